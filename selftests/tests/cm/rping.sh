#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rping (rdma_cm: connection setup over the GSI QP, then RDMA READ/WRITE
# ping-pong with data verification) between two hosts, IPv4 and IPv6.
. /tests/lib.sh

modprobe rdma_ucm || true
rdma_pair
for b in 192.0.2.2 2001:db8::2; do
	bg_run srv in_b timeout 120 rping -s -a "$b" -v -V -C 20 -S 100
	wait_cm_listen sroce_b
	rc=0
	OUT=$(in_a timeout 120 rping -c -a "$b" -v -V -C 20 -S 100 2>&1) || rc=$?
	src=0
	bg_wait srv 60 || src=$?
	log "rping to $b: client $rc server $src"
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ $rc = 0 ] && [ $src = 0 ] || { echo "$OUT"; bg_log srv; fail "rping $b"; }
	n=$(grep -c "ping data" <<<"$OUT" || true)
	[ "$n" -ge 20 ] || { echo "$OUT"; fail "rping $b: $n pings verified"; }
done
pass
