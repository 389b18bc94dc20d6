#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# mckey: UD multicast through rdma_cm (join, attach, send to the group,
# receive on the attached QP) between two hosts. IPv4 only: the 6.1 RDMA CM
# refuses IPv6 multicast joins on RoCEv2 ports (ENOTSUPP, errno 524).
. /tests/lib.sh

modprobe rdma_ucm || true
rdma_pair
for i in 1 2 3; do
	g=239.1.2.$i
	bg_run rcv in_b timeout 60 mckey -m $g -b 192.0.2.2 -C 10
	# mckey does not synchronise: start sending once the receiver joined.
	wait_for 30 "receiver joined $g" eval "in_b ip maddr show dev vb | grep -q 'inet  *$g'"
	rc=0
	OUT=$(in_a timeout 60 mckey -m $g -b 192.0.2.1 -s -C 10 2>&1) || rc=$?
	src=0
	bg_wait rcv 60 || src=$?
	log "mckey $g: sender $rc receiver $src"
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ $rc = 0 ] && [ $src = 0 ] || { echo "$OUT"; bg_log rcv; fail "mckey $g: sender $rc, receiver $src"; }
	assert_match "$(bg_log rcv)" "test complete" "receiver completed"
done
assert_eq "$(cat /sys/class/infiniband/sroce_a/ports/1/hw_counters/send_err)" "0" "no send error"
pass
