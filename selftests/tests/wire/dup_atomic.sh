#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Duplicate atomics are never executed twice: after a FETCH_ADD of 5, a
# duplicate with the same PSN is answered by at most one atomic ACK (the
# saved original value) and the target stays at 5; five more duplicates,
# and one for another address, change nothing either.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill b 0 16 0
ctl post "$P" a fadd 8 0 0 5
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:4:" "the FETCH_ADD"
ctl dump b 0 8
assert_eq "$(kv hex)" 0500000000000000 "the FETCH_ADD result"

csnap
inj_ab --op 0x14 --qpn "$QPB" --psn 1000 --ackreq --ext "$(atmeth "$VA_B" "$RKEY_B" 5 0)"
wait_delta sroce_b duplicate_request 1
settle
[ "$(cdelta sroce_b sent_pkts)" -le 1 ] || fail "one duplicate atomic: $(cdelta sroce_b sent_pkts) packets"
ctl dump b 0 8
assert_eq "$(kv hex)" 0500000000000000 "not executed again"

csnap
inj_ab --op 0x14 --qpn "$QPB" --psn 1000 --ackreq --ext "$(atmeth "$VA_B" "$RKEY_B" 5 0)" --count 5
inj_ab --op 0x14 --qpn "$QPB" --psn 1000 --ackreq --ext "$(atmeth $((VA_B + 8)) "$RKEY_B" 5 0)"
wait_delta sroce_b duplicate_request 6
settle
[ "$(cdelta sroce_b sent_pkts)" -le 6 ] || fail "six duplicates: $(cdelta sroce_b sent_pkts) packets"
ctl dump b 0 16
assert_eq "$(kv hex)" 05000000000000000000000000000000 "duplicates change nothing"
pass
