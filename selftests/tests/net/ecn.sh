#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ECN (RFC 3168) through a bottleneck that marks: tbf at 100 Mbit/s on
# sroce_a's port (va), under it fq_codel marking every ECN-capable packet
# that waited over 1 ms (ce_threshold), RC traffic across (rc_data
# integrity, every byte compared):
#   - sroce.ecn=0: the packets are not ECN-capable, so the qdisc marks
#     none and sroce_b counts none (np_ecn_marked_roce_packets);
#   - sroce.ecn=1: they are ECT(0); the qdisc marks some, and sroce_b
#     counts exactly as many CE-marked arrivals as the qdisc marked
#     (nothing else crosses va ECN-capable), sroce_a none; sroce_b answers
#     with CNPs (np_cnp_sent), at most one per marked packet, and sroce_a
#     receives every one of them (rp_cnp_ignored: no rate limiter yet).
. /tests/lib.sh
. /tests/net/traffic.lib

for m in sch_tbf sch_fq_codel; do
	modprobe "$m" 2>/dev/null || skip "no $m in this kernel"
done
P=/sys/module/sroce/parameters/ecn
rdma_pair
[[ -w $P ]] || fail "no writable $P"
at_exit "echo 0 >$P"
pin_neighbours
ip netns exec ha tc qdisc add dev va root handle 1: tbf rate 100mbit burst 32k latency 1s ||
	fail "tbf on va"
# target and interval far above the queue's delay: codel itself neither
# marks nor drops; only ce_threshold marks
ip netns exec ha tc qdisc add dev va parent 1: handle 10: fq_codel ce_threshold 1ms \
	target 2s interval 10s || fail "fq_codel on va"

# marks: CE marks the fq_codel on va made (ce_threshold and codel's own)
marks() {
	ip netns exec ha tc -s qdisc show dev va | awk '
		/qdisc fq_codel/ { f = 1 }
		f { for (i = 1; i < NF; i++) if ($i == "ce_mark" || $i == "ecn_mark") n += $(i + 1) }
		END { print n + 0 }'
}

# delta VAR DEV COUNTER: COUNTER of DEV since snap() saved it in VAR
snap() { local -n _v=$1; _v=$(cnt "$2" "$3"); }
delta() { local -n _v=$1; echo $(($(cnt "$2" "$3") - _v)); }

# run ECN: traffic with sroce.ecn=ECN; sets MARKED (the qdisc's marks),
# CE_B and CE_A (the devices' CE counts), CNP_B and CNP_A (CNPs sent) and
# RCNP_A and RCNP_B (CNPs received) for the run
run() {
	local m0 b0 a0 sb0 sa0 rb0 ra0
	echo "$1" >"$P" || fail "ecn=$1"
	m0=$(marks)
	snap b0 sroce_b np_ecn_marked_roce_packets
	snap a0 sroce_a np_ecn_marked_roce_packets
	snap sb0 sroce_b np_cnp_sent
	snap sa0 sroce_a np_cnp_sent
	snap rb0 sroce_b rp_cnp_ignored
	snap ra0 sroce_a rp_cnp_ignored
	traffic "ecn$1" 4 2 40
	traffic_ok "ecn$1" "ecn=$1"
	MARKED=$(($(marks) - m0))
	CE_B=$(delta b0 sroce_b np_ecn_marked_roce_packets)
	CE_A=$(delta a0 sroce_a np_ecn_marked_roce_packets)
	CNP_B=$(delta sb0 sroce_b np_cnp_sent)
	CNP_A=$(delta sa0 sroce_a np_cnp_sent)
	RCNP_B=$(delta rb0 sroce_b rp_cnp_ignored)
	RCNP_A=$(delta ra0 sroce_a rp_cnp_ignored)
	echo "SUMMARY ecn=$1: qdisc marked $MARKED; CE counted by sroce_b $CE_B, sroce_a $CE_A;" \
		"CNPs sent by sroce_b $CNP_B, sroce_a $CNP_A; received by sroce_a $RCNP_A, sroce_b $RCNP_B"
}

run 0
((MARKED == 0 && CE_B == 0 && CE_A == 0)) || fail "ecn=0: packets were ECN-capable"
((CNP_A + CNP_B + RCNP_A + RCNP_B == 0)) || fail "ecn=0: CNPs without a mark"
run 1
((MARKED > 0)) || {
	ip netns exec ha tc -s qdisc show dev va
	fail "ecn=1: the qdisc marked nothing (no packet ECN-capable, or no queue)"
}
((CE_B == MARKED)) || fail "ecn=1: sroce_b counted $CE_B CE-marked packets, the qdisc marked $MARKED"
((CE_A == 0)) || fail "ecn=1: sroce_a counted $CE_A, nothing marks its way"
((CNP_B > 0 && CNP_B <= CE_B)) || fail "ecn=1: sroce_b sent $CNP_B CNPs for $CE_B marks"
((CNP_A == 0 && RCNP_B == 0)) || fail "ecn=1: CNPs the other way ($CNP_A sent, $RCNP_B received)"
((RCNP_A == CNP_B)) || fail "ecn=1: sroce_a received $RCNP_A of sroce_b's $CNP_B CNPs"
pass
