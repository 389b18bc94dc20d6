#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every uverbs command sroce implements with its 1st, 2nd, ... kernel
# allocation failed in turn (/proc/thread-self/fail-nth, failslab failing
# sleeping allocations too), until it runs with none failed: each failure
# is an errno or a success anyway, the verb works again afterwards, a
# destroy that failed succeeds when called again (progs/fail_nth.c); no
# object is left, and the harness finds no splat and no leak. Needs a
# kernel with fault injection: the debug kernel (selftests/debug.config).
# timeout: 900
. /tests/lib.sh

[ -e /proc/self/fail-nth ] || skip "no fault injection in this kernel"
dbg=/sys/kernel/debug
grep -q " $dbg debugfs " /proc/mounts || mount -t debugfs none $dbg
for f in "$dbg"/fail*/verbose; do
	echo 0 > "$f"
done
echo N > $dbg/failslab/ignore-gfp-wait
at_exit "echo Y > $dbg/failslab/ignore-gfp-wait"

one_device
rc=0
fail_nth sroce0 > fail_nth.log 2>&1 || rc=$?
cat fail_nth.log
[ $rc = 0 ] || fail "fail_nth: $(grep -c '^not ok' fail_nth.log) checks failed (exit $rc)"
n=$(grep -c '^ok ' fail_nth.log)
[ "$n" -ge 25 ] || fail "only $n checks ran"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
pass
