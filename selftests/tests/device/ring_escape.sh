#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not 6.12, which runs net/bond instead, nor debug: 1,000 QPs and memory
# pressure take minutes under KASAN, which does not watch user accesses)
# A process forks and mremaps a 4 MiB CQ ring in loops while its device is
# deleted (1,000 UD QPs make the deletion last: each destroy waits for an
# RCU grace period). The core cannot track a mapping made then, and copies
# or moves its PTEs after giving up on it; afterwards no mapping of the
# parent or of any child may reach a ring page the kernel freed or gave
# away (progs/ring_escape.c reads /proc/self/pagemap and /proc/kpagecount).
# timeout: 900
. /tests/lib.sh

one_device
rm -f removed
bg_run holder ring_escape sroce0 "$PWD/removed" 1000 96
# holding, or gone: a holder that failed its set-up is reported at once
wait_for 300 "the holder to hold sroce0" eval \
	'grep -q holding holder.log || ! kill -0 ${_BG_PID[holder]}'
grep -q holding holder.log || { bg_log holder; fail "the holder ended early"; }
_lib_bounded 300 rdma link delete sroce0 || fail "rdma link delete while held"
wait_for 30 "sroce0 gone" test ! -e /sys/class/infiniband/sroce0
touch removed
rc=0
# the holder's last steps are its own: memory pressure, then its and 96
# children's page scans, which with 1.5 GiB of pressure took over 200 s
# under TCG beside another VM and a kernel build on the same two cores
# (the removal they check has ended, asserted above)
bg_wait holder 420 || rc=$?
bg_log holder
assert_eq "$rc" 0 "ring_escape's checks"
# shellcheck disable=SC2034  # SROCE_LINKS is lib.sh's list of links to delete
SROCE_LINKS=()
pass
