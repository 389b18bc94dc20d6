#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Memory windows of both types: BIND_MW, access through them, bounds,
# LOCAL_INV and SEND_WITH_INV, dereg of a bound MR refused, and no access
# through a type 2 window for a new QP that reuses its QP's number (max_qp=16
# brings numbers back within a few QPs).
. /tests/lib.sh

modprobe sroce max_qp=16 || fail "modprobe sroce max_qp=16"
rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data memwin sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data memwin: exit $rc, $(grep -c '^not ok' out.log) checks failed"
pass
