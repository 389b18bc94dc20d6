#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# Incast: every other node writes to node 1 at once (ib_write_bw, 64 KiB,
# for INCAST_SECS seconds each), through a bottleneck at node 1's ingress
# as a switch port would have: an IFB with tbf at INCAST_MBIT Mbit/s and
# under it one FIFO (fq_codel with a single flow queue) of INCAST_LIMIT
# packets that marks ECN-capable packets CE once they have waited
# INCAST_CE_MS (10: at 1 ms, a RoCE switch's order, every sender sat at
# its floor rate, the emulated hosts' packets coming in bursts). sroce
# nodes run it twice, without congestion control (ecn=0) and with it
# (ecn=1: marks, CNPs, DCQCN); rdma_rxe nodes once, as they are.
# Per run: goodput against the bottleneck's rate, Jain's fairness index
# over the flows, the bottleneck's drops and marks, the senders'
# retransmissions and ACK timeouts, and the queue's delay (ping through
# it). Each sender samples its bytes sent every half second: the flows'
# rates over time. Every ib_write_bw must exit 0; with congestion control
# the bottleneck must mark and the senders act on CNPs, without it
# neither; the figures are printed (SUMMARY lines).
. /tests/cluster/cl.lib

SECS=${INCAST_SECS:-15}
MBIT=${INCAST_MBIT:-40}
LIMIT=${INCAST_LIMIT:-1000}
CE_MS=${INCAST_CE_MS:-10}
BASE_PORT=18530
modprobe ifb 2>/dev/null || true
for m in sch_ingress cls_matchall act_mirred sch_tbf sch_fq_codel; do
	modprobe "$m" 2>/dev/null || true
done
# the counter COUNTER of this node's device, or 0 where the driver has none
ctr() { cat "/sys/class/infiniband/$TH_DEV/ports/1/hw_counters/$1" 2>/dev/null || echo 0; }
ecn_p=/sys/module/sroce/parameters/ecn

# bottleneck: node 1's ingress through an IFB (the module makes ifb0 and
# ifb1 of its own: ours is named apart)
IFB=incast0
bottleneck() {
	ip link add "$IFB" type ifb && ip link set "$IFB" up &&
		tc qdisc add dev "$TH_NETDEV" handle ffff: ingress &&
		tc filter add dev "$TH_NETDEV" parent ffff: matchall \
			action mirred egress redirect dev "$IFB" &&
		tc qdisc add dev "$IFB" root handle 1: tbf rate "${MBIT}mbit" burst 16k latency 2s &&
		tc qdisc add dev "$IFB" parent 1: handle 10: fq_codel flows 1 limit "$LIMIT" \
			ce_threshold "${CE_MS}ms" target 2s interval 10s
}

# qstat FIELD: the bottleneck fq_codel's FIELD (dropped, ce_mark...)
qstat() {
	tc -s qdisc show dev "$IFB" | awk -v f="$1" '
		/qdisc fq_codel/ { q = 1 }
		q { for (i = 1; i < NF; i++) if ($i == f || $i == "(" f) { v = $(i + 1); sub(/,$/, "", v); print v; exit } }'
}

# sample FILE: bytes sent, every half second, until killed
sample() {
	local t0=${EPOCHREALTIME/./}
	while :; do
		echo "$(((${EPOCHREALTIME/./} - t0) / 1000)) $(ctr sent_bytes)" >>"$1"
		sleep 0.5
	done
}

# run NAME: one incast; node 1 serves every sender on its own port
run() {
	local name=$1 k rc=0 all out d0 m0 p0 r0 t0 h0 bw res
	cl_sync "$name:start" >/dev/null || { cl_fail "$name: the nodes did not meet"; return; }
	if ((TH_NODE == 1)); then
		d0=$(qstat dropped) m0=$(qstat ce_mark)
		for ((k = 2; k <= TH_NODES; k++)); do
			bg_run "srv$k" timeout -s KILL $((SECS + 120)) ib_write_bw -F -d "$TH_DEV" \
				-x "$(cl_gid4)" -s 65536 -D "$SECS" -p $((BASE_PORT + k))
		done
		for ((k = 2; k <= TH_NODES; k++)); do
			wait_tcp_listen "" $((BASE_PORT + k)) || rc=125
		done
		cl_sync "$name:ready" "$rc" >/dev/null
		# the queue's delay, as a packet behind the flows sees it
		bg_run ping timeout $((SECS + 30)) ping -q -i 0.2 -w $((SECS - 2)) "$(cl_addr4 2)"
		for ((k = 2; k <= TH_NODES; k++)); do
			bg_wait "srv$k" $((SECS + 120)) || { rc=$?; cl_fail "$name: server for node $k exit $rc"; }
		done
		bg_wait ping 30 || true
		res=$(cl_sync "$name:done" "$rc") || cl_fail "$name: the nodes did not meet at the end"
		report "$name" "$res" $(($(qstat dropped) - d0)) $(($(qstat ce_mark) - m0)) \
			"$(bg_log ping | sed -En 's#.* = [0-9.]+/([0-9.]+)/([0-9.]+)[/ ].*#avg \1 max \2 ms#p')"
	else
		[[ $(cl_sync "$name:ready" | awk '{ print $1 }') == 1:0 ]] ||
			{ cl_fail "$name: node 1's servers did not start"; return; }
		p0=$(ctr retransmits) r0=$(ctr completer_retry_err) t0=$(ctr retrans_nak)
		h0=$(ctr rp_cnp_handled)
		rm -f "$PWD/$name.series"
		bg_run sampler sample "$PWD/$name.series"
		out=$(timeout -s KILL $((SECS + 120)) ib_write_bw -F -d "$TH_DEV" -x "$(cl_gid4)" \
			-s 65536 -D "$SECS" -p $((BASE_PORT + TH_NODE)) "$(cl_addr4 1)" 2>&1) || rc=$?
		bg_kill sampler
		bw=$(awk '$1 == 65536 { print $4 }' <<<"$out" | tail -n 1)
		# shellcheck disable=SC2015  # C is meant to run when either A or B fails
		((rc == 0)) && [[ -n $bw ]] || { tail -n 5 <<<"$out"; cl_fail "$name: ib_write_bw exit $rc"; }
		echo "SUMMARY $name node $TH_NODE ($TH_DRIVER): ${bw:-?} MB/s;" \
			"sent (ms:Mbit/s): $(awk 'NR > 1 { printf "%d:%.1f ", $1, ($2 - b) * 8 / ($1 - t) / 1000 } { t = $1; b = $2 }' \
				"$PWD/$name.series")Mbit/s"
		all="${bw:-0},$(($(ctr retransmits) - p0)),$(($(ctr completer_retry_err) - r0)),$(($(ctr retrans_nak) - t0)),$(($(ctr rp_cnp_handled) - h0))"
		cl_sync "$name:done" "$all" >/dev/null || cl_fail "$name: the nodes did not meet at the end"
	fi
}

# report NAME RESULTS DROPS MARKS DELAY: goodput, fairness and the rest
report() {
	local r
	r=$(awk -v mbit="$MBIT" -v drops="$3" -v marks="$4" '
		{ for (i = 1; i <= NF; i++) {
			split($i, kv, ":"); if (kv[1] == 1) continue
			split(kv[2], f, ","); n++; x = f[1] * 8.388608; s += x; s2 += x * x
			rt += f[2]; to += f[3]; nak += f[4]; cnp += f[5] } }
		END { printf "goodput %.1f Mbit/s of %d (%.0f %%), Jain %.3f over %d flows,", s, mbit, 100 * s / mbit, s * s / (n * s2), n
		      printf " bottleneck drops %d, CE marks %d; senders: %d retransmits, %d ACK timeouts, %d NAK resends, %d CNPs handled", drops, marks, rt, to, nak, cnp }' <<<"$2")
	echo "SUMMARY $1 ($TH_DRIVERS): $r; queue delay ${5:-?}"
	log "$1: $2"
	# the loop runs: with congestion control, marks and CNPs acted on;
	# without, neither (the goodput and fairness targets are measured,
	# Documentation/testing.md says how far they are)
	if [[ $1 == incast-cc ]]; then
		grep -qE 'CE marks [1-9].* [1-9][0-9]* CNPs handled' <<<"$r" ||
			cl_fail "$1: no CE mark, or no CNP handled: $r"
	elif [[ $1 == incast-nocc ]]; then
		grep -qE 'CE marks 0;.* 0 CNPs handled' <<<"$r" || cl_fail "$1: marks or CNPs: $r"
	fi
}

# cc_params: DCQCN's timers for this fabric. Their defaults are a RoCE
# NIC's, for microsecond round trips; between these emulated hosts a round
# trip takes milliseconds (the queue's delay, below), so each interval is
# scaled up, and rates stay under what the emulated link moves.
cc_params() {
	local p=/sys/module/sroce/parameters kv
	for kv in min_time_between_cnps=5000 rate_reduce_monitor_period=20000 \
		dce_tcp_rtt=10000 rpg_time_reset=40000 rpg_byte_reset=131072 \
		rpg_max_rate=60 rpg_min_rate=5 rpg_ai_rate=2 rpg_hai_rate=5; do
		echo "${kv#*=}" >"$p/${kv%%=*}" || return 1
	done
}

if ((TH_NODE == 1)); then
	bottleneck || cl_fail "the bottleneck on $TH_NETDEV"
fi
if [[ $TH_DRIVERS == *sroce* ]]; then
	# every node alike: sroce nodes set ecn, rdma_rxe ones have none
	[[ $TH_DRIVER != sroce ]] || echo 0 >"$ecn_p" || cl_fail "ecn=0"
	run incast-nocc
	if [[ $TH_DRIVER == sroce ]]; then
		cc_params || cl_fail "DCQCN's parameters"
		echo 1 >"$ecn_p" || cl_fail "ecn=1"
	fi
	run incast-cc
	[[ $TH_DRIVER != sroce ]] || echo 0 >"$ecn_p"
else
	run incast
fi
cl_done
