#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# ibv_uc_pingpong, ibv_ud_pingpong and ibv_srq_pingpong between two hosts,
# buffers validated, each polling and with completion events (-e), over
# IPv4 and IPv6 GIDs.
. /tests/lib.sh

rdma_pair
pp() {
	local tool=$1 fam=$2 a b ga gb out rc=0 src=0
	shift 2
	if [ "$fam" = 4 ]; then a=192.0.2.1 b=192.0.2.2; else a=2001:db8::1 b=2001:db8::2; fi
	ga=$(gid_index sroce_a $a)
	gb=$(gid_index sroce_b $b)
	bg_run srv in_b timeout 120 "$tool" -d sroce_b -g "$gb" "$@"
	wait_tcp_listen hb 18515
	out=$(in_a timeout 120 "$tool" -d sroce_a -g "$ga" "$@" 192.0.2.2 2>&1) || rc=$?
	bg_wait srv 60 || src=$?
	log "$tool IPv$fam $*: client $rc, server $src"
	if [ $rc != 0 ] || [ $src != 0 ]; then
		echo "$out"
		bg_log srv
		fail "$tool IPv$fam $*"
	fi
	assert_match "$out" "iters in" "$tool finished"
}
for fam in 4 6; do
	for ev in "" "-e"; do
		pp ibv_uc_pingpong $fam -s 4096 -n 200 -c $ev
		pp ibv_ud_pingpong $fam -s 512 -n 200 -c $ev
		pp ibv_srq_pingpong $fam -s 4096 -n 200 -q 4 -c $ev
	done
done
pass
