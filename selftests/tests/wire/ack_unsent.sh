#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# ACKs for PSNs never sent (ahead of the request PSN, and half the PSN
# space away) while a WRITE is outstanding (everything sroce_a sends is
# lost, netem): ignored, the WRITE is not completed by them. Once the link
# works again the WRITE is retransmitted and completes successfully.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
wire_start
# 2 s ACK timeout, 7 retries: the WRITE stays outstanding (not failed
# with "retry exceeded") while the test sends its packets under TCG.
new_pair rc 19
ctl fill a 0 16 0x5a
ctl fill b 0 16 0
in_a tc qdisc add dev va root netem loss 100%
ctl post "$P" a write 16 0 0
assert_eq "$(kv psn)" 1000 "the WRITE's PSN"
csnap
for psn in 1001 1005 $((1000 + 0x800000)); do
	inj_ba --op 0x11 --qpn "$QPA" --psn "$psn" --ext "$(aeth 0x1f 1)"
done
wait_delta sroce_a rcvd_pkts 3
settle
ctl poll a 1 1
assert_eq "$R" "wc n=0" "the WRITE did not complete on an ACK for a PSN never sent"
ctl dump b 0 16
assert_eq "$(kv hex)" "$(hexpat 16 00)" "the WRITE did not reach B yet"
assert_delta sroce_a rcvd_dropped 0

in_a tc qdisc del dev va root
ctl poll a 30 1
assert_match "$R" "^wc n=1 0:1:" "the WRITE completes successfully"
ctl dump b 0 16
assert_eq "$(kv hex)" "$(hexpat 16 5a)" "its data"
[ "$(cdelta sroce_a retransmits)" -ge 1 ] || fail "no retransmission?"
pass
