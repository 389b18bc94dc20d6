#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# Verbs raced from two threads, each race looped for a bounded time:
# dereg_mr against BIND_MW (never a window on a freed MR); two resizes of
# one CQ or SRQ with one response buffer faulting (EFAULT for that one, no
# leaked or doubly removed mmap entry); a CQ resized while it is polled
# (every completion once, in order); create_qp failing late (EFAULT) while
# packets hit the QPNs it takes.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 250 races all sroce_a "$ga" sroce_b "$gb" 10 > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "races: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
