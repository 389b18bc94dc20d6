#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest across the segment: send, write and read bandwidth and READ
# latency over all sizes (-a, 2 B to 8 MiB, 5 iterations each) and atomic
# bandwidth and latency with each VM as the server in turn, SEND and WRITE
# latency over all sizes once and at 2 B the other way round; both sides
# must exit 0. PT_SHORT=1 (perftest_short.sh): every latency test at 2 B
# only, both ways round. 100 round trips at 2 B: over the TCP link
# (vm2.sh --link stream) a two-VM round trip took about 45 ms, and 1,000 46 s
# a run.
. /tests/2host/th.lib

g=$(th_gid4)
pt() { "$1" -F -d "$TH_DEV" "${@:2}"; }
for srv in b a; do
	for t in send write read; do
		th_run "${t}_bw-srv$srv" $srv 300 pt ib_${t}_bw -x "$g" -a -n 5
	done
	if [[ ${PT_SHORT:-0} == 1 ]]; then
		th_run "read_lat-srv$srv" $srv 120 pt ib_read_lat -x "$g" -s 2 -n 100
	else
		th_run "read_lat-srv$srv" $srv 300 pt ib_read_lat -x "$g" -a -n 5
	fi
	# send_lat and write_lat ping-pong the same messages both ways, whichever
	# side listens: all sizes once, 2 B with the roles swapped
	for t in send write; do
		if [[ $srv == b && ${PT_SHORT:-0} != 1 ]]; then
			th_run "${t}_lat-srv$srv" $srv 300 pt ib_${t}_lat -x "$g" -a -n 5
		else
			th_run "${t}_lat-srv$srv" $srv 120 pt ib_${t}_lat -x "$g" -s 2 -n 100
		fi
	done
	th_run "atomic_bw-srv$srv" $srv 120 pt ib_atomic_bw -x "$g" -n 100
	th_run "atomic_lat-srv$srv" $srv 120 pt ib_atomic_lat -x "$g" -n 100
done
th_done
