#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# READ responses (ONLY, FIRST, MIDDLE, LAST) and atomic ACKs that answer
# nothing (sroce_a has no request outstanding), at a PSN already used and
# at one never sent, are ignored: received (rcvd_pkts), not dropped as
# malformed, no completion, nothing written, nothing sent back, the QP
# stays in RTS; a real READ then completes with the right data.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill a 0 64 0
ctl fill b 0 64 0x77
a=$(aeth 0x1f 1)
n=0
csnap
for psn in 999 1000 1005; do
	inj_ba --op 0x10 --qpn "$QPA" --psn "$psn" --ext "$a" --payload-len 16
	inj_ba --op 0x0d --qpn "$QPA" --psn "$psn" --ext "$a" --payload-len "$MTU"
	inj_ba --op 0x0e --qpn "$QPA" --psn "$psn" --payload-len "$MTU"
	inj_ba --op 0x0f --qpn "$QPA" --psn "$psn" --ext "$a" --payload-len 16
	inj_ba --op 0x12 --qpn "$QPA" --psn "$psn" --ext "${a}0102030405060708"
	n=$((n + 5))
done
wait_delta sroce_a rcvd_pkts "$n"
settle
assert_delta sroce_a rcvd_pkts "$n"
assert_delta sroce_a rcvd_dropped 0
assert_delta sroce_a sent_pkts 0 "nothing sent back"
ctl poll a 1 1
assert_eq "$(kv n)" 0 "no completion on A"
ctl dump a 0 64
assert_eq "$(kv hex)" "$(hexpat 64 00)" "nothing written on A"
ctl state "$P" a
assert_eq "$(kv state)" RTS "A's QP"

ctl post "$P" a read 64 0 0
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:2:64" "a real READ afterwards"
ctl dump a 0 64
assert_eq "$(kv hex)" "$(hexpat 64 77)" "its data"
pass
