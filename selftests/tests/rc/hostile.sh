#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process writes garbage into its own send ring and rings the doorbell:
# error completions, the QP in ERROR, no kernel splat.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data hostile sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data hostile: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
