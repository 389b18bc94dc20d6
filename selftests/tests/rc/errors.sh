#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Error paths with their exact work completion status: bad rkey, outside
# the MR, no remote write, misaligned atomic, RNR, retry exhaustion, flush;
# RDMA ATOMIC WRITE placed, misaligned and without remote write.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data errors sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data errors: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
