#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# tc filters on the port that drop RoCEv2 (UDP port 4791) under RC traffic
# (rc_data integrity, every byte compared):
#   - on the receiver's ingress for a moment: the requesters retransmit,
#     every QP carries on;
#   - on the sender's egress (clsact) for a moment: the qdisc layer refuses
#     our packets (send_err_qdisc counts them), the QPs send them again and
#     carry on;
#   - on the sender's egress for good, from the QPs' first packet: each QP
#     ends with a retry error after its retry budget, nothing sends on in a
#     loop, and new QPs work once the filter is gone.
. /tests/lib.sh
. /tests/net/traffic.lib

for m in sch_ingress cls_u32 cls_matchall act_gact; do
	modprobe "$m" 2>/dev/null || skip "no $m in this kernel"
done
rdma_pair
# ARP is not dropped, but a neighbour entry that goes stale during a drop
# holds our packets in its own queue (lib.sh): outside sroce
pin_neighbours

# drop NS DEV ingress|egress: a u32 filter dropping IPv4 UDP to port 4791
drop() {
	ip netns exec "$1" tc filter add dev "$2" "$3" protocol ip pref 10 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff action drop ||
		fail "tc filter on $2 $3"
}
undrop() { ip netns exec "$1" tc filter del dev "$2" "$3" pref 10 || fail "tc filter del $2 $3"; }
ip netns exec ha tc qdisc add dev va clsact || fail "clsact on va"
ip netns exec hb tc qdisc add dev vb clsact || fail "clsact on vb"
# A filter that lets all pass stays on each hook from before the traffic
# on: the first filter and the last one gone flip a static key, whose
# code patching under traffic 7.2 under TCG has met with an int3 oops in
# tc_run() (Documentation/testing.md); the drops come and go above it.
ip netns exec ha tc filter add dev va egress pref 100 matchall action pass ||
	fail "pass filter on va"
ip netns exec hb tc filter add dev vb ingress pref 100 matchall action pass ||
	fail "pass filter on vb"

log "receiver's ingress drops for 0.3 s: ACK timeouts"
brief_drop 4 completer_retry_err "ingress drop" "drop hb vb ingress" "undrop hb vb ingress"

log "sender's egress drops for 0.3 s: counted, sent again"
brief_drop 4 send_err_qdisc "egress drop" "drop ha va egress" "undrop ha va egress"

log "sender's egress drops for good, from the first packet"
# Nothing is outstanding, so no ACK timer runs: only the bound on sending
# again into the drop (xmit.c) makes these packets lost, and the QPs' retry
# budget end them.
q0=$(cnt sroce_a send_err_qdisc)
x0=$(cnt sroce_a retry_exceeded_err)
drop ha va egress
t0=$SECONDS
traffic lost 4 4 600
traffic_retry_err lost "egress drop for good"
log "QPs ended after $((SECONDS - t0)) s, send_err_qdisc +$(($(cnt sroce_a send_err_qdisc) - q0))"
(($(cnt sroce_a retry_exceeded_err) >= x0 + 4)) || fail "retry_exceeded_err: not every QP"
sleep 1
q1=$(cnt sroce_a send_err_qdisc)
sleep 2
assert_eq "$(cnt sroce_a send_err_qdisc)" "$q1" "nothing sent into the drop after the QPs ended"
undrop ha va egress
traffic after 4
traffic_ok after "new QPs after the drop"
pass
