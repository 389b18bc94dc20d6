#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# XRC is not supported: ibv_xsrq_pingpong fails cleanly (no hang, no splat).
. /tests/lib.sh

rdma_pair
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
OUT=$(in_b timeout 30 ibv_xsrq_pingpong -d sroce_b -g "$gb" 2>&1) || rc=$?
log "ibv_xsrq_pingpong: exit $rc: $OUT"
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] || fail "expected a clean failure, got exit $rc"
pass
