#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Packets whose extension headers are cut short: a WRITE and a READ request
# with part of a RETH, atomics with part of an AtomicETH (to sroce_b), an
# ACK with part of an AETH, a READ response without its AETH and an atomic
# ACK without all of its AtomicAckETH (to sroce_a). Each is dropped and
# counted in rcvd_dropped on the device it reached, and answered by
# nothing; both QPs stay in RTS and a real WRITE then completes.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
reth=$(reth "$VA_B" "$RKEY_B" 8)
atm=$(atmeth "$VA_B" "$RKEY_B" 1 0)
cut() {
	local dev=$1
	shift
	csnap
	"$@"
	wait_delta "$dev" rcvd_dropped 1
	settle
	assert_delta "$dev" rcvd_pkts 0 "$*"
	assert_delta sroce_a sent_pkts 0 "$*: no answer from A"
	assert_delta sroce_b sent_pkts 0 "$*: no answer from B"
}
cut sroce_b inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq --ext "${reth:0:16}"
cut sroce_b inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq --ext "${reth:0:30}"
cut sroce_b inj_ab --op 0x0c --qpn "$QPB" --psn 1000 --ackreq --ext "${reth:0:24}"
cut sroce_b inj_ab --op 0x13 --qpn "$QPB" --psn 1000 --ackreq --ext "${atm:0:40}"
cut sroce_b inj_ab --op 0x14 --qpn "$QPB" --psn 1000 --ackreq --ext "${atm:0:54}"
cut sroce_a inj_ba --op 0x11 --qpn "$QPA" --psn 999 --ext 1f00
cut sroce_a inj_ba --op 0x10 --qpn "$QPA" --psn 999
cut sroce_a inj_ba --op 0x12 --qpn "$QPA" --psn 999 --ext "$(aeth 0x1f 1)00000000"
for s in a b; do
	ctl state "$P" "$s"
	assert_eq "$(kv state)" RTS "QP $s"
done
ctl fill a 0 16 0x5a
ctl post "$P" a write 16 0 64
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:1:" "a real WRITE afterwards"
ctl dump b 64 16
assert_eq "$(kv hex)" "$(hexpat 16 5a)" "its data"
pass
