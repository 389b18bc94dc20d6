#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench TOPO=vm2", in each of the two VMs (selftests/vm2.sh), both
# with the same driver: the rows of selftests/tests/bench.sh across the
# segment, server on b, client on a. Not a test: it skips unless the kernel
# command line has sroce_bench.vm2=1 (selftests/bench.sh puts it there).
# Role a prints the figures as BENCH/BENCHRUN lines, which the harness
# copies to its TAP (selftests/init); each bandwidth figure is the larger
# of the two sides' (the client's can read 0 under TCG), the counters are
# both devices' added up, ctxt the client VM's.
. /tests/2host/th.lib

grep -qw 'sroce_bench.vm2=1' /proc/cmdline || skip "a benchmark (make bench TOPO=vm2)"
# sroce_bench.rows=NAME,...: only those rows (make bench ROWS=...)
rows=$(sed -n 's/.*sroce_bench\.rows=\([^ ]*\).*/\1/p' /proc/cmdline)
# sroce_bench.profile=NAME,...: a kernel profile of those rows in each VM
# (make bench TOPO=vm2 PROFILE=...), as in selftests/tests/bench.sh
# shellcheck disable=SC2034  # prof is read by /tests/prof.lib
prof=$(sed -n 's/.*sroce_bench\.profile=\([^ ]*\).*/\1/p' /proc/cmdline)

BENCH_COUNTERS="retransmits completer_retry_err duplicate_request ack_probes rcvd_dropped tx_wait"
hwc=/sys/class/infiniband/$TH_DEV/ports/1/hw_counters
g=$(th_gid4)
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
counters() {
	local c v l=""
	for c in $BENCH_COUNTERS; do
		v=$(cat "$hwc/$c" 2>/dev/null) || v=-
		l+="${l:+,}$c=$v"
	done
	echo "$l"
}
# field OUTPUT COLUMN: that column of perftest's result row
field() {
	awk -v c="$2" '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $c; exit }' <<<"$1"
}

. /tests/prof.lib
# shellcheck disable=SC2034  # PROF_TAG is read by /tests/prof.lib
PROF_TAG=.$TH_ROLE

# row NAME UNIT COLUMN TOOL ARGS...
row() {
	local name=$1 unit=$2 col=$3 tool=$4 out v pv x0 x1 k0
	shift 4
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	k0=$(counters)
	x0=$(ctxt)
	prof_start "$name"
	th_run "$name" b 300 "$tool" -F -d "$TH_DEV" -x "$g" "$@"
	prof_stop "$name"
	x1=$(ctxt)
	if [[ $TH_ROLE == b ]]; then out=$(bg_log "$name"); else out=$(cat "$name.log"); fi
	v=$(field "$out" "$col")
	log "$name: $v $unit, counters before $k0, after $(counters)"
	pv=$(th_sync "$name:value" "${v:--}") || pv=-
	[[ $TH_ROLE == a ]] || return 0
	if [[ $unit != usec && $pv != - ]]; then
		v=$(awk -v a="${v:-0}" -v b="$pv" 'BEGIN { print (a > b ? a : b) }')
	fi
	[[ -n $v ]] || { echo "$out"; TH_FAILS+=("$name: no result row"); return 0; }
	echo "BENCH $name $v $unit"
	echo "BENCH $name.ctxt $((x1 - x0)) ctxt"
	# latency tools: the 99th and 99.9th percentiles, columns 8 and 9
	if [[ $unit == usec ]]; then
		v=$(field "$out" 8)
		[[ -z $v ]] || echo "BENCH ${name}_p99 $v usec"
		v=$(field "$out" 9)
		[[ -z $v ]] || echo "BENCH ${name}_p999 $v usec"
	fi
}

# tcp_side STREAMS [SERVER]: iperf3's server, or its client for 5 s with
# STREAMS streams (th_run appends the server's address)
tcp_side() {
	[[ -n ${2:-} ]] || exec iperf3 -s -1 -p 5201
	exec iperf3 -c "$2" -p 5201 -t 5 -P "$1" -J
}
tcp_ready() { wait_tcp_listen "" 5201; }

# iperf_row ROW SIDE ARG: one iperf3 run between the two VMs, SIDE ARG
# (tcp_side or udp_side) on each, server on b; MB/s as the receiver
# counted them
iperf_row() {
	local name=$1 v
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	TH_READY=tcp_ready th_run "$name" b 120 "$2" "$3"
	[[ $TH_ROLE == a ]] || return 0
	v=$(iperf3_mbs <"$name.log")
	[[ -n $v ]] || { cat "$name.log"; TH_FAILS+=("$name: no iperf3 result"); return 0; }
	echo "BENCH $name $v MB/s"
}

# tcp ROW STREAMS: TCP between the same two VMs, the yardstick a user
# compares RDMA with
tcp() { iperf_row "$1" tcp_side "$2"; }

# roce_dgram: the UDP payload of a full RoCE packet on this segment: BTH,
# a path MTU of payload (the largest IBA MTU whose packet fits the
# segment's MTU, as ib_core's iboe_get_mtu() picks it) and the ICRC
roce_dgram() {
	local m=$((TH_MTU - 96)) p=4096
	while ((p > 256 && p > m)); do p=$((p / 2)); done
	echo $((12 + p + 4))
}

# udp_side LEN [SERVER]: iperf3's server, or its client sending LEN-byte
# UDP datagrams for 5 s as fast as it can
udp_side() {
	[[ -n ${2:-} ]] || exec iperf3 -s -1 -p 5201
	exec iperf3 -c "$2" -p 5201 -t 5 -u -b 0 -l "$1" -J
}

# udp ROW: what this link moves in frames of the size RoCE has to use:
# TCP's frames carry up to the segment's MTU, a RoCE packet at most an IBA
# path MTU (1,024 bytes at MTU 1500)
udp() { iperf_row "$1" udp_side "$(roce_dgram)"; }

c0=$(counters)
x0=$(ctxt)
t0=$SECONDS
row write_rate_64 Mpps 5 ib_write_bw -s 64 -n 20000
for op in write send read; do
	row "${op}_bw_4k" MB/s 4 "ib_${op}_bw" -s 4096 -n 5000
	row "${op}_bw_64k" MB/s 4 "ib_${op}_bw" -s 65536 -n 1000
	row "${op}_bw_1m" MB/s 4 "ib_${op}_bw" -s 1048576 -n 100
done
# 200 iterations show a run's start-up, 5,000 its steady state
for op in send write; do
	row "${op}_lat200_2" usec 5 "ib_${op}_lat" -s 2 -n 200
	row "${op}_lat_2" usec 5 "ib_${op}_lat" -s 2 -n 5000
	row "${op}_lat_4k" usec 5 "ib_${op}_lat" -s 4096 -n 2000
done
tcp tcp_bw_1 1
tcp tcp_bw_4 4
udp udp_bw_mtu
t1=$SECONDS
c1=$(counters)
pc=$(th_sync "counters" "$c0;$c1") || pc=""
if [[ $TH_ROLE == a ]]; then
	echo "BENCHRUN bench_s $((t1 - t0))"
	echo "BENCHRUN ctxt $(($(ctxt) - x0))"
	# this VM's deltas plus the peer's
	awk -v a="$c0;$c1" -v b="$pc" 'BEGIN {
		split(a, s, ";"); split(b, t, ";")
		n = split(s[1], x0, ","); split(s[2], x1, ",")
		split(t[1], y0, ","); split(t[2], y1, ",")
		for (i = 1; i <= n; i++) {
			split(x0[i], p, "="); split(x1[i], q, "=")
			split(y0[i], r, "="); split(y1[i], w, "=")
			if (p[2] == "-" || q[2] == "-") v = "-"
			else v = q[2] - p[2]
			if (v != "-" && r[2] != "" && r[2] != "-" && w[2] != "-")
				v += w[2] - r[2]
			printf "BENCHRUN %s %s\n", p[1], v
		}
	}'
fi
th_done
