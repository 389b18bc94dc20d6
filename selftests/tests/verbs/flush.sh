#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA FLUSH (IBA 1.5) as the requester, one device to the other
# (selftests/progs/rc_data/flush.c): librxe 44 has no verb for it, so
# the WQE is written into the send ring as a newer provider would. Where
# the kernel knows the FLUSH access bits (6.2 on), FLUSHes of a range, of
# the whole MR and of no bytes complete as IB_UVERBS_WC_FLUSH, and the
# data WRITTEN before is in place; a persistent one or one past the MR
# gets a remote access error. On every kernel: a remote access error for
# an MR without the access; a local QP operation error, before anything is
# sent, for no placement type or a reserved selectivity level.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 300 rc_data flush sroce_a "$ga" sroce_b "$gb" > out.log 2>&1 || rc=$?
cat out.log
[ $rc = 0 ] || fail "rc_data flush: exit $rc, $(grep -c '^not ok' out.log) checks failed"
grep -q "^ok .*a range just written: success" out.log ||
	grep -q "^ok .*FLUSH_GLOBAL refused, capability bit 38 0" out.log ||
	fail "neither a FLUSH done nor the access refused"
pass
