#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 7.2
# ibv_rc_pingpong between two hosts, buffers validated, at 1 B, 4 KiB and
# 1 MiB, over IPv4 and IPv6 GIDs.
. /tests/lib.sh

rdma_pair
for fam in 4 6; do
	if [ $fam = 4 ]; then a=192.0.2.1 b=192.0.2.2; else a=2001:db8::1 b=2001:db8::2; fi
	ga=$(gid_index sroce_a $a)
	gb=$(gid_index sroce_b $b)
	for size in 1 4096 1048576; do
		n=200
		[ $size = 1048576 ] && n=10
		bg_run srv in_b ibv_rc_pingpong -d sroce_b -g "$gb" -s $size -n $n -c
		wait_tcp_listen hb 18515
		rc=0
		out=$(in_a timeout 120 ibv_rc_pingpong -d sroce_a -g "$ga" -s $size -n $n -c 192.0.2.2 2>&1) || rc=$?
		src=0
		bg_wait srv 60 || src=$?
		log "IPv$fam size $size: client rc=$rc server rc=$src"
		# shellcheck disable=SC2015  # C is meant to run when either A or B fails
		[ $rc = 0 ] && [ $src = 0 ] || { echo "$out"; bg_log srv; fail "IPv$fam $size B"; }
		assert_match "$out" "$n iters in" "client finished $n iterations"
	done
done
pass
