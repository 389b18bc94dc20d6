#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# UD between two hosts (selftests/progs/rc_data/ud.c "ud"): 0 B to the MTU,
# compared byte for byte behind the 40-byte GRH; a send larger than the MTU
# completes successfully without emitting a packet (IBA C10-93.1.1, as
# rdma_rxe does); a wrong Q_Key is dropped at the receiver; the QPs carry on.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 300 rc_data ud sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data ud: exit $rc, $(grep -c '^not ok' out.log) checks failed"
grep -qx '1\.\.23' out.log || fail "rc_data ud ran $(grep -c '^ok ' out.log) checks, not 23"
pass
