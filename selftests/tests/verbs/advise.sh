#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# advise_mr, prefetch of ODP MRs, through the uverbs ioctl as rdma-core
# 59+'s rxe provider sends it: synchronous, asynchronous and no-fault
# prefetch over memory nobody touched (what becomes resident, mincore),
# read-only and implicit MRs, rdma_rxe's errnos for what is refused, and
# deregistration right behind an asynchronous prefetch. See
# selftests/progs/advise.c.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "port active" port_state_is sroce0 ACTIVE

rc=0
advise sroce0 >advise.log 2>&1 || rc=$?
cat advise.log
[ $rc = 0 ] || fail "advise: $(grep -c '^not ok' advise.log) checks failed (exit $rc)"
n=$(grep -c '^ok ' advise.log)
[ "$n" -ge 35 ] || fail "only $n checks ran"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
pass
