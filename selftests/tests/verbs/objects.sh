#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every verb through the stock rxe provider: PD, CQ (create, resize with
# unread entries, notify), QP (RC/UC/UD, the state machine and attribute
# checks, query, flush on ERROR), SRQ, MR with every access flag, MW types 1
# and 2, AH; error paths with their exact errno; ring layout and one-shot
# mmap cookies. See selftests/progs/verbs_objects.c.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "IPv4 GID" grep -q "ffff:c000:0201" /sys/class/infiniband/sroce0/ports/1/gids/1

rc=0
verbs_objects sroce0 > objects.log 2>&1 || rc=$?
grep -v "^ok " objects.log || true
[ $rc = 0 ] || fail "verbs_objects: $(grep -c '^not ok' objects.log) checks failed"
n=$(grep -c '^ok ' objects.log)
[ "$n" -ge 150 ] || fail "only $n checks ran"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
assert_rc 0 "rdma resource" rdma resource show
assert_match "$OUT" "sroce0: .*ctx 0" "no user context left"
pass
