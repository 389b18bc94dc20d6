#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# rdmacm-utils over sroce between two hosts, IPv4 and IPv6: ucmatose (RC
# connections and data), udaddy (UD through rdma_cm), rstream and riostream
# (rsockets, data verified).
. /tests/lib.sh

modprobe rdma_ucm || true
rdma_pair
run() {
	local name=$1 srv=$2 cli=$3 rc=0 src=0
	# shellcheck disable=SC2086  # srv is a command line, split on purpose
	bg_run srv in_b timeout 120 $srv
	wait_cm_listen sroce_b
	# shellcheck disable=SC2086  # cli is a command line, split on purpose
	OUT=$(in_a timeout 120 $cli 2>&1) || rc=$?
	bg_wait srv 60 || src=$?
	log "$name: client $rc server $src"
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ $rc = 0 ] && [ $src = 0 ] || { echo "$OUT"; bg_log srv; fail "$name: client $rc, server $src"; }
}
for b in 192.0.2.2 2001:db8::2; do
	run "ucmatose $b" "ucmatose -b $b -c 2 -C 10" "ucmatose -s $b -c 2 -C 10"
	assert_match "$OUT" "test complete" "ucmatose completes"
	run "udaddy $b" "udaddy -b $b -c 2 -C 10" "udaddy -s $b -c 2 -C 10"
	assert_match "$OUT" "test complete" "udaddy completes"
	run "rstream $b" "rstream -b $b -S 4096 -C 100 -T v" "rstream -s $b -S 4096 -C 100 -T v"
	run "riostream $b" "riostream -b $b -S 4096 -C 100 -T v" "riostream -s $b -S 4096 -C 100 -T v"
done
pass
