#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench", inside the VM: one RDMA device of the driver named by
# sroce_bench.driver= on the kernel command line (sroce or rxe) on a veth
# end, and perftest between two processes on that device. One device, because
# rdma_rxe on 6.1 cannot reach another network namespace; both drivers loop
# the packets back inside the device. selftests/bench.sh compares two boots
# (and takes the median of the rounds) from these lines:
#   BENCH ROW VALUE UNIT      a figure: MB/s, Mpps or usec
#   BENCH ROW.wall MS ms      the client's wall time
#   BENCH ROW.ctxt N ctxt     context switches (/proc/stat ctxt) over the row
#   BENCHRUN NAME VALUE       over the whole run: bench_s, ctxt and the port
#                             counters of BENCH_COUNTERS ("-": no such counter)
. /tests/lib.sh

# The port counters that say whether the run was clean; rdma_rxe has no
# retransmits or rcvd_dropped.
BENCH_COUNTERS="retransmits completer_retry_err duplicate_request rcvd_dropped"

drv=$(sed -n 's/.*sroce_bench\.driver=\([a-z]*\).*/\1/p' /proc/cmdline)
# sroce_bench.rows=NAME,...: only those rows (make bench ROWS=...)
rows=$(sed -n 's/.*sroce_bench\.rows=\([^ ]*\).*/\1/p' /proc/cmdline)
case $drv in
sroce) sroce_load ;;
rxe) modprobe rdma_rxe || fail "modprobe rdma_rxe" ;;
*) fail "no sroce_bench.driver=sroce|rxe on the kernel command line" ;;
esac

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
at_exit "rdma link delete bench0 2>/dev/null || true"
rdma link add bench0 type "$drv" netdev v0 || fail "rdma link add type $drv"
wait_for 10 "port active" port_state_is bench0 ACTIVE
wait_for 10 "IPv4 GID" gid_index bench0 192.0.2.1
g=$(gid_index bench0 192.0.2.1)
echo "bench: driver $drv, kernel $(uname -r), device bench0 on v0, GID index $g"

hwc=/sys/class/infiniband/bench0/ports/1/hw_counters
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

# counters: "NAME=VALUE ..." for BENCH_COUNTERS, VALUE "-" where missing
counters() {
	local c v l=""
	for c in $BENCH_COUNTERS; do
		v=$(cat "$hwc/$c" 2>/dev/null) || v=-
		l+=" $c=$v"
	done
	echo "${l# }"
}

# counters_delta BEFORE AFTER: "NAME=DELTA ..." from two counters lines
counters_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) {
			split(x[i], p, "="); split(y[i], q, "=")
			v = (p[2] == "-" || q[2] == "-") ? "-" : q[2] - p[2]
			printf "%s%s=%s", (i > 1 ? " " : ""), p[1], v
		}
		print ""
	}'
}

# perftest prints one result row after its "#bytes" header; the client's
# bandwidth can read 0 under TCG, so take the larger of the two sides.
# field TOOL_OUTPUT COLUMN: that column of the result row.
field() {
	awk -v c="$2" '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $c; exit }' <<<"$1"
}

# bench ROW UNIT COLUMN TOOL ARGS...: one perftest run, server and client.
# Bandwidth tools: BW average is column 4, MsgRate[Mpps] column 5;
# latency tools: t_typical is column 5.
bench() {
	local name=$1 unit=$2 col=$3 tool=$4 cli srv v1 v2 t0 t1 x0 x1 c0 c1
	shift 4
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	c0=$(counters)
	x0=$(ctxt)
	bg_run srv timeout 300 "$tool" -F -d bench0 -x "$g" "$@"
	wait_tcp_listen "" 18515
	t0=${EPOCHREALTIME/./}
	cli=$(timeout 300 "$tool" -F -d bench0 -x "$g" "$@" 192.0.2.1 2>&1) ||
		{ echo "$cli"; fail "$tool $* failed"; }
	t1=${EPOCHREALTIME/./}
	bg_wait srv 60 || { bg_log srv; fail "$tool $* server failed"; }
	x1=$(ctxt)
	c1=$(counters)
	srv=$(bg_log srv)
	v1=$(field "$cli" "$col")
	v2=$(field "$srv" "$col")
	if [[ $unit != usec ]]; then
		v1=$(awk -v a="${v1:-0}" -v b="${v2:-0}" 'BEGIN { print (a > b ? a : b) }')
	fi
	[[ -n $v1 ]] || { echo "$cli"; fail "$tool $*: no result row"; }
	echo "BENCH $name $v1 $unit"
	echo "BENCH $name.wall $(((t1 - t0) / 1000)) ms"
	echo "BENCH $name.ctxt $((x1 - x0)) ctxt"
	echo "bench: $name: $(counters_delta "$c0" "$c1")"
}

run_c0=$(counters)
run_x0=$(ctxt)
run_t0=$SECONDS

# Iteration counts: each row runs about 2-7 s under TCG on 6.1 (perftest's
# own start-up is about 0.6 s), one driver's whole boot about 1.5 minutes,
# well within 5 (Documentation/testing.md); with fewer iterations than its
# TX depth (128) perftest would shrink the depth, so the bandwidth rows stay
# above it.
bench write_rate_64 Mpps 5 ib_write_bw -s 64 -n 100000
for op in write send read; do
	bench "${op}_bw_4k" MB/s 4 "ib_${op}_bw" -s 4096 -n 20000
	bench "${op}_bw_64k" MB/s 4 "ib_${op}_bw" -s 65536 -n 2000
	bench "${op}_bw_1m" MB/s 4 "ib_${op}_bw" -s 1048576 -n 200
done
for op in send write; do
	bench "${op}_lat_2" usec 5 "ib_${op}_lat" -s 2 -n 10000
	bench "${op}_lat_4k" usec 5 "ib_${op}_lat" -s 4096 -n 5000
done

echo "BENCHRUN bench_s $((SECONDS - run_t0))"
echo "BENCHRUN ctxt $(($(ctxt) - run_x0))"
for kv in $(counters_delta "$run_c0" "$(counters)"); do
	echo "BENCHRUN ${kv%%=*} ${kv#*=}"
done
pass
