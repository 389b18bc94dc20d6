#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench", inside the VM: RDMA devices of the driver named by
# sroce_bench.driver= on the kernel command line (sroce or rxe), and perftest
# between two processes. sroce_bench.topo= says where: loop (the default),
# one device on a veth end, both processes on it, and both drivers loop the
# packets back inside the device; ns, two namespaces over a veth pair, one
# device in each, the server in one and the client in the other, so the
# packets cross the veth and the receive softirq (7.2 only: the rdma_rxe of
# 6.1 and 6.12 has its UDP socket in the initial namespace only).
# selftests/bench.sh compares two boots (and takes the median of the rounds)
# from these lines:
#   BENCH ROW VALUE UNIT      a figure: MB/s, Mpps or usec
#   BENCH ROW.wall MS ms      the client's wall time
#   BENCH ROW.ctxt N ctxt     context switches (/proc/stat ctxt) over the row
#   BENCHRUN NAME VALUE       over the whole run: bench_s, ctxt and the port
#                             counters of BENCH_COUNTERS ("-": no such counter)
. /tests/lib.sh

# The port counters that say whether the run was clean (rdma_rxe has no
# retransmits or rcvd_dropped); counters() adds the kernel's backlog drops.
BENCH_COUNTERS="retransmits completer_retry_err duplicate_request ack_probes rcvd_dropped rcvd_seq_err tx_order_wait tx_wait"

drv=$(sed -n 's/.*sroce_bench\.driver=\([a-z]*\).*/\1/p' /proc/cmdline)
# sroce_bench.rows=NAME,...: only those rows (make bench ROWS=...)
rows=$(sed -n 's/.*sroce_bench\.rows=\([^ ]*\).*/\1/p' /proc/cmdline)
topo=$(sed -n 's/.*sroce_bench\.topo=\([a-z]*\).*/\1/p' /proc/cmdline)
# sroce_bench.profile=NAME,...: a kernel profile of those rows (make bench
# PROFILE=...): perf samples every CPU while the row's client runs
# shellcheck disable=SC2034  # prof is read by /tests/prof.lib
prof=$(sed -n 's/.*sroce_bench\.profile=\([^ ]*\).*/\1/p' /proc/cmdline)
case $drv in
sroce) sroce_load ;;
rxe) modprobe rdma_rxe || fail "modprobe rdma_rxe" ;;
*) fail "no sroce_bench.driver=sroce|rxe on the kernel command line" ;;
esac

# The devices (DEVS, all counted), the server's (SDEV, GID index SG,
# namespace SNS: "" for none) and the client's (CDEV, CG, CNS).
case ${topo:-loop} in
loop)
	veth_pair v0 v1
	ip addr add 192.0.2.1/24 dev v0
	at_exit "rdma link delete bench0 2>/dev/null || true"
	rdma link add bench0 type "$drv" netdev v0 || fail "rdma link add type $drv"
	DEVS=bench0 SDEV=bench0 CDEV=bench0 SNS="" CNS="" CIP=192.0.2.1
	;;
ns)
	two_hosts
	at_exit "rdma link delete bench0 2>/dev/null; rdma link delete bench1 2>/dev/null; true"
	ip netns exec ha rdma link add bench0 type "$drv" netdev va ||
		fail "rdma link add type $drv in ha"
	ip netns exec hb rdma link add bench1 type "$drv" netdev vb ||
		fail "rdma link add type $drv in hb"
	DEVS="bench0 bench1" SDEV=bench0 CDEV=bench1 SNS=ha CNS=hb CIP=192.0.2.2
	;;
*) fail "sroce_bench.topo=$topo: loop or ns" ;;
esac
for d in $DEVS; do
	wait_for 10 "$d port active" port_state_is "$d" ACTIVE
done
wait_for 10 "IPv4 GIDs" eval "gid_index $SDEV 192.0.2.1 && gid_index $CDEV $CIP"
SG=$(gid_index "$SDEV" 192.0.2.1)
CG=$(gid_index "$CDEV" "$CIP")
echo "bench: driver $drv, kernel $(uname -r), topology ${topo:-loop}, server $SDEV (GID $SG), client $CDEV (GID $CG)"
echo "bench: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# The guest kernel's own copy speed to user space, beside which one-device
# bandwidth is read (both drivers move payload with memcpy()): 64 MiB read
# from the page cache in 64 KiB blocks, each a copy_to_user().
kernel_copy_mbps() {
	local f=/tmp/kcopy t0 t1
	dd if=/dev/zero of=$f bs=64k count=1024 2>/dev/null
	dd if=$f of=/dev/null bs=64k 2>/dev/null
	t0=$(_lib_now_us)
	dd if=$f of=/dev/null bs=64k 2>/dev/null
	t1=$(_lib_now_us)
	rm -f $f
	echo $((64 * 1048576 / (t1 - t0 + 1)))
}

# in_ns NS CMD...: CMD in namespace NS ("": here)
in_ns() {
	local ns=$1
	shift
	if [[ -n $ns ]]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }

# Server and client each on a CPU of their own (with two or more): both
# spin on their completion queues, and when the scheduler put both on one
# vCPU, a latency row read twice as long for either driver.
PIN_SRV="" PIN_CLI=""
if (($(nproc) >= 2)); then
	PIN_SRV="taskset -c 1" PIN_CLI="taskset -c 0"
fi

# counters: "NAME=VALUE ..." for BENCH_COUNTERS, summed over DEVS, VALUE
# "-" where missing
counters() {
	local c d v x l=""
	for c in $BENCH_COUNTERS; do
		v=0
		for d in $DEVS; do
			x=$(cat "/sys/class/infiniband/$d/ports/1/hw_counters/$c" 2>/dev/null) ||
				{ v=-; break; }
			v=$((v + x))
		done
		l+=" $c=$v"
	done
	echo "${l# } backlog_drops=$(backlog_drops)"
}

# backlog_drops: packets the kernel dropped for a full per-CPU input backlog
# (netdev_max_backlog; a veth delivers there), summed over the CPUs: the
# second column of /proc/net/softnet_stat, in hex
backlog_drops() {
	local n=0 x
	while read -r _ x _; do
		n=$((n + 16#$x))
	done </proc/net/softnet_stat
	echo "$n"
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

. /tests/prof.lib

# bench ROW UNIT COLUMN TOOL ARGS...: one perftest run, server and client.
# Bandwidth tools: BW average is column 4, MsgRate[Mpps] column 5;
# latency tools: t_typical is column 5 (and ROW_p99, ROW_p999 from 8, 9).
bench() {
	local name=$1 unit=$2 col=$3 tool=$4 cli srv v1 v2 t0 t1 x0 x1 c0 c1
	shift 4
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	c0=$(counters)
	x0=$(ctxt)
	# shellcheck disable=SC2086  # PIN_SRV is empty or a taskset command, split on purpose
	bg_run srv in_ns "$SNS" $PIN_SRV timeout 300 "$tool" -F -d "$SDEV" -x "$SG" "$@"
	wait_tcp_listen "$SNS" 18515
	prof_start "$name"
	t0=${EPOCHREALTIME/./}
	# shellcheck disable=SC2086  # PIN_CLI is empty or a taskset command, split on purpose
	cli=$(in_ns "$CNS" $PIN_CLI timeout 300 "$tool" -F -d "$CDEV" -x "$CG" "$@" 192.0.2.1 2>&1) ||
		{ echo "$cli"; fail "$tool $* failed"; }
	t1=${EPOCHREALTIME/./}
	prof_stop "$name"
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
	# latency tools: the 99th and 99.9th percentiles, columns 8 and 9
	if [[ $unit == usec ]]; then
		v1=$(field "$cli" 8) v2=$(field "$cli" 9)
		[[ -z $v1 ]] || echo "BENCH ${name}_p99 $v1 usec"
		[[ -z $v2 ]] || echo "BENCH ${name}_p999 $v2 usec"
	fi
	echo "BENCH $name.wall $(((t1 - t0) / 1000)) ms"
	echo "BENCH $name.ctxt $((x1 - x0)) ctxt"
	echo "bench: $name: $(counters_delta "$c0" "$c1")"
}

# tcp ROW STREAMS: TCP on the same link (ns only), iperf3 for 5 s with
# STREAMS streams, server and client where perftest's are: the yardstick
# a user compares RDMA with. MB/s as the receiver counted them.
tcp() {
	local name=$1 n=$2 out v
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	# shellcheck disable=SC2086  # PIN_SRV is empty or a taskset command, split on purpose
	bg_run tsrv in_ns "$SNS" $PIN_SRV timeout 120 iperf3 -s -1 -p 5201
	wait_tcp_listen "$SNS" 5201
	# shellcheck disable=SC2086  # PIN_CLI is empty or a taskset command, split on purpose
	out=$(in_ns "$CNS" $PIN_CLI timeout 120 iperf3 -c 192.0.2.1 -p 5201 -t 5 \
		-P "$n" -J 2>&1) || { echo "$out"; fail "iperf3 -P $n failed"; }
	bg_wait tsrv 30 || { bg_log tsrv; fail "iperf3 server failed"; }
	v=$(iperf3_mbs <<<"$out")
	[[ -n $v ]] || { echo "$out"; fail "iperf3 -P $n: no result"; }
	echo "BENCH $name $v MB/s"
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
# 200 iterations show a run's start-up, 10,000 its steady state
for op in send write; do
	bench "${op}_lat200_2" usec 5 "ib_${op}_lat" -s 2 -n 200
	bench "${op}_lat_2" usec 5 "ib_${op}_lat" -s 2 -n 10000
	bench "${op}_lat_4k" usec 5 "ib_${op}_lat" -s 4096 -n 5000
done
if [[ $topo == ns ]]; then
	tcp tcp_bw_1 1
	tcp tcp_bw_4 4
fi

echo "BENCHRUN bench_s $((SECONDS - run_t0))"
echo "BENCHRUN kcopy_MBps $(kernel_copy_mbps)"
echo "BENCHRUN ctxt $(($(ctxt) - run_x0))"
for kv in $(counters_delta "$run_c0" "$(counters)"); do
	echo "BENCHRUN ${kv%%=*} ${kv#*=}"
done
pass
