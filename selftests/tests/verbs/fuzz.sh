#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# The verbs fuzzer (progs/verbs_fuzz.c): random sequences of verbs with
# random attributes from 4 threads, random bytes in the send rings and
# doorbells, 6 rounds, every other one ended by SIGKILL. 40 s with seed 1
# here; "make fuzz-verbs" runs it for FUZZ_SECONDS (an hour) with
# FUZZ_SEED (random), passed on the kernel command line. The fuzzer must
# not crash, nothing may be left, and the harness fails the run on any
# splat or leak.
# timeout: 300
. /tests/lib.sh

secs=40 seed=1
# shellcheck disable=SC2013  # the kernel command line's words
for w in $(cat /proc/cmdline); do
	case $w in
	sroce_fuzz.seconds=*) secs=${w#*=} ;;
	sroce_fuzz.seed=*) seed=${w#*=} ;;
	esac
done
one_device
modprobe rdma_ucm || true
rc=0
verbs_fuzz sroce0 "$seed" "$secs" 4 6 > fuzz.log 2>&1 || rc=$?
cat fuzz.log
[ $rc = 0 ] || fail "verbs_fuzz seed $seed: exit $rc"
assert_match "$(cat fuzz.log)" "ok 1 - 6 rounds" "the fuzzer's summary"
wait_for 30 "the killed rounds' objects gone" eval '[ "$(user_objects sroce0)" = 0 ]'
# the device still carries verified data
bg_run srv ibv_rc_pingpong -d sroce0 -g "$G" -n 100 -s 4096 -c
wait_tcp_listen "" 18515
assert_rc 0 "ibv_rc_pingpong after the fuzzer" \
	timeout 60 ibv_rc_pingpong -d sroce0 -g "$G" -n 100 -s 4096 -c 192.0.2.1
bg_wait srv 30
pass
