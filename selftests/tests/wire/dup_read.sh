#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# Duplicate READ requests do not amplify (F4): after a 4-packet READ, a
# duplicate with the same PSN and RETH is answered with at most as many
# packets as the original; duplicates whose RETH differs from the saved
# one (address, length, R_Key) trigger no replay at all. Each is counted
# in duplicate_request; sroce_a ignores the replayed responses.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
len=$((4 * MTU))
ctl fill b 0 "$len" 0x42
csnap
ctl post "$P" a read "$len" 0 0
assert_eq "$(kv npkts)" 4 "READ of 4 MTUs"
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:2:$len" "the READ"
orig=$(cdelta sroce_b sent_pkts)
assert_eq "$orig" 4 "response packets of the original READ"

csnap
inj_ab --op 0x0c --qpn "$QPB" --psn 1000 --ackreq --ext "$(reth "$VA_B" "$RKEY_B" "$len")"
wait_delta sroce_b duplicate_request 1
settle
[ "$(cdelta sroce_b sent_pkts)" -le "$orig" ] ||
	fail "a duplicate READ sent $(cdelta sroce_b sent_pkts) packets, the original $orig"

for ext in "$(reth $((VA_B + 64)) "$RKEY_B" "$len")" \
	   "$(reth "$VA_B" "$RKEY_B" $((len * 64)))" \
	   "$(reth "$VA_B" $((RKEY_B ^ 0x100)) "$len")"; do
	csnap
	inj_ab --op 0x0c --qpn "$QPB" --psn 1000 --ackreq --ext "$ext"
	wait_delta sroce_b duplicate_request 1
	settle
	assert_delta sroce_b sent_pkts 0 "a duplicate READ with another RETH ($ext): no replay"
done
ctl poll a 1 1
assert_eq "$R" "wc n=0" "no completion on A from replays"
ctl state "$P" a
assert_eq "$(kv state)" RTS "A's QP"
pass
