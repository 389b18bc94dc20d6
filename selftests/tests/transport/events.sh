#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 7.2
# Asynchronous events reach the process: COMM_EST, QP_FATAL,
# QP_ACCESS_ERR, CQ_ERR, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data events sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data events: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
