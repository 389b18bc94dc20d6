#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# (no kernel API in it changed since 6.1)
# ECN (RFC 3168) and DCQCN through a bottleneck that marks: tbf at
# 100 Mbit/s on sroce_a's port (va), under it fq_codel marking every
# ECN-capable packet that waited over 1 ms (ce_threshold), RC traffic
# across (rc_data integrity, the same operations each time, every byte
# compared):
#   - sroce.ecn=0: the packets are not ECN-capable, so the qdisc marks
#     none, sroce_b counts none (np_ecn_marked_roce_packets), no CNP;
#   - sroce.ecn=1, rp_enable=0: they are ECT(0); the qdisc marks some, and
#     sroce_b counts exactly as many CE-marked arrivals as the qdisc
#     marked (nothing else crosses va ECN-capable), sroce_a none; sroce_b
#     answers with CNPs (np_cnp_sent), at most one per marked packet, and
#     sroce_a receives every one of them and ignores it (rp_cnp_ignored);
#   - the same with rp_enable=1: sroce_a handles every CNP
#     (rp_cnp_handled), cuts its QPs' rates and paces them (the
#     sroce_cc_rate tracepoint shows the cuts), and the traffic passes.
. /tests/lib.sh
. /tests/net/traffic.lib

for m in sch_tbf sch_fq_codel; do
	modprobe "$m" 2>/dev/null || skip "no $m in this kernel"
done
P=/sys/module/sroce/parameters
T=/sys/kernel/tracing
[[ -d $T/events ]] || T=/sys/kernel/debug/tracing
rdma_pair
[[ -w $P/ecn && -w $P/rp_enable ]] || fail "no writable $P/ecn, $P/rp_enable"
[[ -d $T/events/sroce/sroce_cc_rate ]] || fail "no sroce_cc_rate tracepoint"
at_exit "echo 0 >$P/ecn; echo 1 >$P/rp_enable"
at_exit "echo 0 >$T/events/sroce/sroce_cc_rate/enable; : >$T/trace"
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

CTRS="np_ecn_marked_roce_packets np_cnp_sent rp_cnp_ignored rp_cnp_handled"
# run ECN RP: traffic with sroce.ecn=ECN, rp_enable=RP; sets MARKED (the
# qdisc's marks) and D[DEV:COUNTER], each counter's growth on each device
declare -A D
run() {
	local -A c0
	local d c t0
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	echo "$1" >"$P/ecn" && echo "$2" >"$P/rp_enable" || fail "ecn=$1 rp_enable=$2"
	for d in sroce_a sroce_b; do
		# shellcheck disable=SC2034  # ShellCheck does not parse c0[DEV:COUNTER] in arithmetic, where c0 is read
		for c in $CTRS; do c0[$d:$c]=$(cnt "$d" "$c"); done
	done
	t0=$(marks)
	traffic "ecn$1$2" 4 2 40
	traffic_ok "ecn$1$2" "ecn=$1 rp_enable=$2"
	MARKED=$(($(marks) - t0))
	for d in sroce_a sroce_b; do
		# shellcheck disable=SC1102,SC2086  # ShellCheck does not parse the ':' in c0[DEV:COUNTER] in arithmetic
		for c in $CTRS; do D[$d:$c]=$(($(cnt "$d" "$c") - c0[$d:$c])); done
	done
	echo "SUMMARY ecn=$1 rp_enable=$2: qdisc marked $MARKED; CE counted by sroce_b" \
		"${D[sroce_b:np_ecn_marked_roce_packets]}, sroce_a ${D[sroce_a:np_ecn_marked_roce_packets]};" \
		"CNPs sent by sroce_b ${D[sroce_b:np_cnp_sent]}, sroce_a ${D[sroce_a:np_cnp_sent]};" \
		"sroce_a handled ${D[sroce_a:rp_cnp_handled]}, ignored ${D[sroce_a:rp_cnp_ignored]}"
}
# the counters that must not move: the other way, and the RP's other one
quiet() {
	local c
	for c in "$@"; do
		((D[$c] == 0)) || fail "$WHAT: $c grew by ${D[$c]}"
	done
}

WHAT="ecn=0"
run 0 1
((MARKED == 0)) || fail "$WHAT: the qdisc marked $MARKED packets: they were ECN-capable"
quiet sroce_b:np_ecn_marked_roce_packets sroce_a:np_ecn_marked_roce_packets \
	sroce_b:np_cnp_sent sroce_a:np_cnp_sent sroce_a:rp_cnp_handled sroce_a:rp_cnp_ignored

# marked_ok: marks counted as the qdisc made them, CNPs for them, all arrived
marked_ok() {
	local ce=${D[sroce_b:np_ecn_marked_roce_packets]} cnp=${D[sroce_b:np_cnp_sent]}
	((MARKED > 0)) || {
		ip netns exec ha tc -s qdisc show dev va
		fail "$WHAT: the qdisc marked nothing (no packet ECN-capable, or no queue)"
	}
	((ce == MARKED)) || fail "$WHAT: sroce_b counted $ce CE-marked packets, the qdisc marked $MARKED"
	((cnp > 0 && cnp <= ce)) || fail "$WHAT: sroce_b sent $cnp CNPs for $ce marks"
	quiet sroce_a:np_ecn_marked_roce_packets sroce_a:np_cnp_sent \
		sroce_b:rp_cnp_handled sroce_b:rp_cnp_ignored
}

WHAT="ecn=1 rp_enable=0"
run 1 0
marked_ok
MARKED_NO_RP=$MARKED
# shellcheck disable=SC1105,SC2102,SC2205,SC2211,SC2284  # ShellCheck does not parse the ':' in D[DEV:COUNTER] in arithmetic
((D[sroce_a:rp_cnp_ignored] == D[sroce_b:np_cnp_sent])) ||
	fail "$WHAT: sroce_a ignored ${D[sroce_a:rp_cnp_ignored]} of ${D[sroce_b:np_cnp_sent]} CNPs"
quiet sroce_a:rp_cnp_handled

WHAT="ecn=1 rp_enable=1"
: >"$T/trace"
echo 1 >"$T/events/sroce/sroce_cc_rate/enable" || fail "enable sroce_cc_rate"
run 1 1
echo 0 >"$T/events/sroce/sroce_cc_rate/enable"
marked_ok
# shellcheck disable=SC1105,SC2102,SC2205,SC2211,SC2284  # ShellCheck does not parse the ':' in D[DEV:COUNTER] in arithmetic
((D[sroce_a:rp_cnp_handled] == D[sroce_b:np_cnp_sent])) ||
	fail "$WHAT: sroce_a handled ${D[sroce_a:rp_cnp_handled]} of ${D[sroce_b:np_cnp_sent]} CNPs"
quiet sroce_a:rp_cnp_ignored
cuts=$(grep -cE 'sroce_cc_rate: .* rc=[1-9][0-9]* ' "$T/trace" || true)
# awk reads to the end: "sort | head" under pipefail fails when sort
# takes SIGPIPE on a long trace.
lowest=$(sed -n 's/.*sroce_cc_rate: .* rc=\([1-9][0-9]*\) .*/\1/p' "$T/trace" |
	awk 'NR == 1 || $1 < m { m = $1 } END { if (NR) print m }')
echo "SUMMARY rp_enable=1: $cuts paced rate changes, lowest ${lowest:-none} Mbit/s;" \
	"the qdisc marked $MARKED packets, $MARKED_NO_RP with rp_enable=0"
((cuts > 0)) || fail "$WHAT: no QP was paced (no sroce_cc_rate event with a rate)"
pass
