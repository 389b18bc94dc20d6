#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# A process writes garbage into its own rings and rings the doorbell: bad
# send WQEs, a send producer index moved backwards under a WQE in flight,
# malformed receive and SRQ WQEs (num_sge past the limit, SGE lengths past
# 2^32, a garbage producer index), a CQ consumer index ahead of the
# producer; and a QP is destroyed while its peer floods it. Error
# completions (a malformed receive WQE: LOC_QP_OP_ERR or LOC_LEN_ERR, and
# the sender's SEND fails), the QP in ERROR, nothing else harmed (a new
# pair still moves data), no kernel splat.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data hostile sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data hostile: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
