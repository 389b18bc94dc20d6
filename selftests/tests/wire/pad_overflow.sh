#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A pad count larger than the bytes behind the headers (a SEND with 2
# payload bytes and PadCnt 3, a WRITE with none and PadCnt 1, an ACK with
# PadCnt 2) is dropped and counted in rcvd_dropped: no receive completes,
# nothing is answered. A SEND with 2 bytes and PadCnt 2 is delivered.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl recv "$P" b 1 64
ctl fill b 0 64 0
bad() {
	csnap
	"$@"
	wait_delta sroce_b rcvd_dropped 1
	settle
	assert_delta sroce_b rcvd_pkts 0 "$*"
	assert_delta sroce_b sent_pkts 0 "$*: no answer"
}
bad inj_ab --op 0x04 --qpn "$QPB" --psn 1000 --ackreq --payload abcd --pad 3 --pad-bytes 0
bad inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
	--ext "$(reth "$VA_B" "$RKEY_B" 0)" --pad 1 --pad-bytes 0
bad inj_ab --op 0x11 --qpn "$QPB" --psn 1000 --ext "$(aeth 0x1f 0)" --pad 2 --pad-bytes 0
ctl poll b 1 1
assert_eq "$(kv n)" 0 "no receive completed on B"

csnap
inj_ab --op 0x04 --qpn "$QPB" --psn 1000 --ackreq --payload abcd
ctl poll b 10 1
assert_eq "$R" "wc n=1 0:128:2" "a 2-byte SEND with its 2 pad bytes"
ctl dump b 0 4
assert_eq "$(kv hex)" abcd0000 "its data"
assert_delta sroce_b rcvd_dropped 0
pass
