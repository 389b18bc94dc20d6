#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench", inside the VM: one RDMA device of the driver named by
# sroce_bench.driver= on the kernel command line (sroce or rxe) on a veth
# end, and perftest between two processes on that device. One device, because
# rdma_rxe on 6.1 cannot reach another network namespace; both drivers loop
# the packets back inside the device. Prints "BENCH NAME VALUE UNIT" lines
# that selftests/bench.sh compares across the two boots.
. /tests/lib.sh

drv=$(sed -n 's/.*sroce_bench\.driver=\([a-z]*\).*/\1/p' /proc/cmdline)
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

# perftest prints one result row after its "#bytes" header; the client's
# bandwidth can read 0 under TCG, so take the larger of the two sides.
# field TOOL_OUTPUT COLUMN: that column of the result row.
field() {
	awk -v c="$2" '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $c; exit }' <<<"$1"
}

# bench NAME UNIT COLUMN TOOL ARGS...: one perftest run, server and client
bench() {
	local name=$1 unit=$2 col=$3 tool=$4 cli srv v1 v2 t0 t1
	shift 4
	bg_run srv timeout 300 "$tool" -F -d bench0 -x "$g" "$@"
	wait_tcp_listen "" 18515
	t0=${EPOCHREALTIME/./}
	cli=$(timeout 300 "$tool" -F -d bench0 -x "$g" "$@" 192.0.2.1 2>&1) ||
		{ echo "$cli"; fail "$tool $* failed"; }
	t1=${EPOCHREALTIME/./}
	bg_wait srv 60 || { bg_log srv; fail "$tool $* server failed"; }
	srv=$(bg_log srv)
	v1=$(field "$cli" "$col")
	v2=$(field "$srv" "$col")
	if [[ $unit == MB/s ]]; then
		v1=$(awk -v a="${v1:-0}" -v b="${v2:-0}" 'BEGIN { print (a > b ? a : b) }')
	fi
	[[ -n $v1 ]] || { echo "$cli"; fail "$tool $*: no result row"; }
	echo "BENCH $name $v1 $unit"
	echo "BENCH $name.wall $(( (t1 - t0) / 1000 )) ms"
}

# Bandwidth: BW average (column 4); latency: t_typical (column 5).
bench write_bw_64k MB/s 4 ib_write_bw -s 65536 -n 2000
bench send_bw_64k MB/s 4 ib_send_bw -s 65536 -n 2000
bench read_bw_64k MB/s 4 ib_read_bw -s 65536 -n 1000
bench write_bw_4k MB/s 4 ib_write_bw -s 4096 -n 10000
bench send_lat_64 usec 5 ib_send_lat -s 64 -n 1000
bench write_lat_64 usec 5 ib_write_lat -s 64 -n 1000
bench read_lat_64 usec 5 ib_read_lat -s 64 -n 1000
pass
