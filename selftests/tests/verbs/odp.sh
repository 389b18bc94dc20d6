#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# On-demand paging (IBV_ACCESS_ON_DEMAND) through the stock rxe provider:
# capabilities, WRITE/READ/SEND/RECV/atomics on memory faulted in on use,
# an invalidation (MADV_DONTNEED) between accesses, an implicit ODP MR
# (the whole address space; across a 4 MiB boundary; its bound of 4,096
# children of 4 MiB), a hole in the MR
# (REM_ACCESS_ERR), deregistration after munmap. See selftests/progs/odp.c.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "IPv4 GID" grep -q "ffff:c000:0201" /sys/class/infiniband/sroce0/ports/1/gids/1

rc=0
odp sroce0 > odp.log 2>&1 || rc=$?
cat odp.log
[ $rc = 0 ] || fail "odp: $(grep -c '^not ok' odp.log) checks failed (exit $rc)"
n=$(grep -c '^ok ' odp.log)
[ "$n" -ge 31 ] || fail "only $n checks ran"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
pass
