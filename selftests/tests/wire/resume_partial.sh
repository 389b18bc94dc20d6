#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A late ACK that completes the WRITE a timeout resend is in, and covers
# part of the next WRITE too (sent in part before the timeout): sroce_a
# goes on with that next WRITE where the ACK points, as a MIDDLE packet,
# not with a new FIRST at that PSN (rdma_rxe, or sroce as responder,
# NAKs that as an invalid request and the QP dies; seen under load on one
# device). Everything sroce_a sends first is lost (netem); then a tc
# egress filter refuses every packet, so its resend stays at the first
# WRITE while the ACK, crafted, comes.
#
# The refusal starts and ends with a filter, not a qdisc: adding, replacing
# or deleting a device's root qdisc parks its queues on noop_qdisc for an
# RCU grace period (qdisc_graft() -> dev_deactivate()), and noop_qdisc drops
# what it gets with NET_XMIT_CN, which every sender (UDP, TCP, rdma_rxe,
# sroce) takes as "sent". The test used to end the refusal by deleting a
# pfifo with limit 0: sroce_a's packets from 1512 went that way for as long
# as the grace period took, and two full 6.1 runs saw PSN 1550 and 1557
# first. A filter comes and goes with no such window.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
for m in sch_ingress cls_matchall act_gact; do
	modprobe "$m" 2>/dev/null || skip "no $m (tc clsact, matchall, gact drop)"
done
wire_start
# 2 s ACK timeout: time to change the filter before it fires
new_pair rc 19
n=300
len=$((n * MTU))
# clsact first, while nothing is sent: it parks the queues too
in_a tc qdisc add dev va clsact
in_a tc qdisc add dev va root netem loss 100%
csnap
ctl post "$P" a write "$len" 0 0
assert_eq "$(kv psn)" 1000 "the first WRITE's PSN"
ctl post "$P" a write "$len" "$len" "$len"
assert_eq "$(kv psn)" $((1000 + n)) "the second WRITE's PSN"
# 512 PSNs in flight at most: the first WRITE and 212 packets of the second
wait_delta sroce_a sent_pkts 512
# a dropping egress action fails the send (NET_XMIT_DROP): sroce_a holds
# its packet and tries again a jiffy later; netem goes behind it
in_a tc filter add dev va egress pref 1 matchall action drop
in_a tc qdisc del dev va root
echo "# sent: $(cchanged)"
wait_delta sroce_a completer_retry_err 1
echo "# timed out: $(cchanged)"
# the resend is held at the first WRITE; every packet, up to 1511, arrived
sniff_start ha va
inj_ba --op 0x11 --qpn "$QPA" --psn 1511 --ext "$(aeth 0x1f 1)"
wait_delta sroce_a rcvd_pkts 1
ctl poll a 10 1
assert_match "$R" "^wc n=1 0:" "the first WRITE completes on the ACK"
in_a tc -s filter show dev va egress | sed 's/^/#   /'
in_a tc filter del dev va egress pref 1
wait_for 10 "a packet from sroce_a" eval 'grep -q "^pkt dir=out op=" "$PWD/sniff.log"'
sniff_stop
first=$(grep -m1 '^pkt dir=out op=' "$PWD/sniff.log")
echo "# after the ACK: $(cchanged)"
echo "# $(grep -c '^pkt dir=out' "$PWD/sniff.log") out, $(grep -c '^pkt dir=in' "$PWD/sniff.log") in:"
head -n 8 "$PWD/sniff.log" | sed 's/^/#   /'
assert_match "$first" " psn=1512 " "sroce_a goes on at the PSN after the ACK's"
assert_match "$first" "op=0x07 " "with a WRITE MIDDLE (the second WRITE's packet 213)"
pass
