#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Random SEND/WRITE/WRITE_IMM/READ/atomics, 1 B to 4 MiB, several SGEs,
# 4 QPs at once, every byte compared (selftests/progs/rc_data/integrity.c).
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data integrity sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
rdma statistic show link sroce_a/1; rdma statistic show link sroce_b/1
[ $rc = 0 ] || fail "rc_data integrity: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
