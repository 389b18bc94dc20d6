#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# perftest RC: send/write/read/atomic, bandwidth and latency, over all
# sizes with short iteration counts, with the ibv_wr_* API (perftest's
# default) and with --use_old_post_send; both sides must exit 0.
# (Bandwidth figures are not asserted: under TCG they are noise.)
# 14 runs of up to 200 s each; 152 to 248 s in all under TCG, more while
# the debug kernel's VM shares the host's two cores:
# timeout: 600
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)

run() {
	local tool=$1 srv cli
	shift
	bg_run srv in_b timeout 200 "$tool" -F -d sroce_b -x "$gb" "$@"
	wait_tcp_listen hb 18515
	srv=0 cli=0
	in_a timeout 200 "$tool" -F -d sroce_a -x "$ga" "$@" 192.0.2.2 > cli.log 2>&1 || cli=$?
	bg_wait srv 60 || srv=$?
	log "$tool $*: client $cli, server $srv"
	if [ $cli != 0 ] || [ $srv != 0 ]; then
		tail -n 20 cli.log
		bg_log srv | tail -n 20
		fail "$tool $*: client exit $cli, server exit $srv"
	fi
}

for api in "" "--use_old_post_send"; do
	for t in ib_send_bw ib_write_bw ib_read_bw; do
		run $t -a -n 5 $api
	done
	# latency over all sizes once; the old post_send path at 2 B (its
	# bandwidth runs above cover every size)
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		if [ -z "$api" ]; then run $t -a -n 5; else run $t -s 2 -n 100 $api; fi
	done
	run ib_atomic_bw -n 100 $api
	run ib_atomic_lat -n 100 $api
done
pass
