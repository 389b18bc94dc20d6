#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "rdma resource show" lists the QPs, CQs, MRs and PDs a process holds on
# sroce, with the process as their owner; with -dd, sroce's own details
# (restrack.c): a QP's PSNs and queue, a CQ's depth and fill, an MR's pages.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "IPv4 GID" gid_index sroce0 192.0.2.1
bg_run holder verbs_churn sroce0 18 hold
wait_for 60 "objects held" grep -q holding holder.log
pid=""
for p in /proc/[0-9]*; do
	[ "$(cat "$p/comm" 2>/dev/null)" = verbs_churn ] && pid=${p#/proc/}
done
assert_rc 0 "rdma resource show qp" rdma resource show qp link sroce0
assert_match "$OUT" "type RC .*comm verbs_churn" "an RC QP owned by verbs_churn"
assert_match "$OUT" "type UD .*comm verbs_churn" "a UD QP owned by verbs_churn"
assert_rc 0 "rdma resource show cq" rdma resource show cq dev sroce0
assert_match "$OUT" "comm verbs_churn" "CQs owned by verbs_churn"
assert_rc 0 "rdma resource show mr" rdma resource show mr dev sroce0
assert_match "$OUT" "mrlen [0-9]+ .*comm verbs_churn" "MRs owned by verbs_churn"
assert_rc 0 "rdma resource show pd" rdma resource show pd dev sroce0
assert_match "$OUT" "comm verbs_churn" "PDs owned by verbs_churn"
[ -n "$pid" ] && assert_match "$OUT" "pid $pid" "owner pid"
assert_rc 0 "rdma -dd resource show qp" rdma -dd resource show qp link sroce0
s='[[:space:]]+'
assert_match "$OUT" "type RC .*drv_sq_psn [0-9]+${s}drv_sq_psn_unacked [0-9]+${s}drv_rq_psn [0-9]+$s.*drv_sq_posted 0$s" \
	"an RC QP's driver details"
assert_rc 0 "rdma -dd resource show cq" rdma -dd resource show cq dev sroce0
assert_match "$OUT" "drv_depth [1-9][0-9]*${s}drv_unpolled 0${s}drv_armed [0-9]" "a CQ's driver details"
assert_rc 0 "rdma -dd resource show mr" rdma -dd resource show mr dev sroce0
assert_match "$OUT" "drv_pages [1-9][0-9]*${s}drv_page_size 4096${s}drv_windows 0" "an MR's driver details"
bg_kill holder
pass
