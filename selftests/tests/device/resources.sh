#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "rdma resource show" lists the QPs, CQs, MRs and PDs a process holds on
# sroce, with the process as their owner; with -dd, sroce's own details
# (restrack.c): a QP's PSNs and queue, a CQ's depth and fill, an MR's pages;
# with -r, the raw dumps (uapi/sroce_res_raw.h), checked against both.
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

# The raw dumps, as JSON byte lists: one per object, each "SR", version 1,
# its kind and its own length, its fields agreeing with the lines above.
raw_dumps() {
	rdma -j -r resource show "$@" | grep -o '"data":\[[0-9,]*\]' | sed 's/^"data":\[\(.*\)\]$/\1/'
}
# le BYTES OFFSET LEN: the little-endian integer at OFFSET
le() {
	local -a b
	local v=0 i
	IFS=, read -r -a b <<<"$1"
	for ((i = $3 - 1; i >= 0; i--)); do v=$(((v << 8) | b[$2 + i])); done
	echo $v
}
check_hdr() {	# BYTES KIND SIZE
	local n
	n=$(tr -cd , <<<"$1" | wc -c)
	assert_eq "$(le "$1" 0 2).$(le "$1" 2 1).$(le "$1" 3 1).$(le "$1" 4 4)" \
		"$((0x5352)).1.$2.$3" "raw header (magic, version, kind, size)"
	assert_eq "$((n + 1))" "$3" "raw dump length"
}
types=([1]=GSI [2]=RC [3]=UC [4]=UD)
states=(RESET INIT RTR RTS SQD SQE ERR)
n=0
rdma -dd resource show qp link sroce0 >qp.txt
while read -r d; do
	check_hdr "$d" 1 124
	qpn=$(le "$d" 8 4)
	line=$(grep " lqpn $qpn " qp.txt) || fail "raw QP $qpn is not in 'rdma resource show qp'"
	t=${types[$(le "$d" 16 1)]:-?}
	assert_match "$line" "type $t state ${states[$(le "$d" 17 1)]} " "raw QP $qpn: type and state"
	assert_match "$line" "drv_sq_psn $(le "$d" 60 4) " "raw QP $qpn: sq_psn"
	[[ $line == *"comm verbs_churn"* ]] || continue
	assert_eq "$(($(le "$d" 24 4) & 1))" 1 "raw QP $qpn: a user QP"
	n=$((n + 1))
done < <(raw_dumps qp link sroce0)
[ $n -ge 3 ] || fail "raw QP dumps: $n, expected at least verbs_churn's 3"
n=0
rdma -dd resource show cq dev sroce0 >cq.txt
while read -r d; do
	check_hdr "$d" 2 28
	cqn=$(le "$d" 8 4)
	line=$(grep " cqn $cqn " cq.txt) || fail "raw CQ $cqn is not in 'rdma resource show cq'"
	assert_match "$line" "cqe $(le "$d" 12 4) .*drv_depth $(le "$d" 12 4)${s}drv_unpolled $((($(le "$d" 16 4) - $(le "$d" 20 4)) & 0xffff))" \
		"raw CQ $cqn: size and fill"
	[[ $line == *"comm verbs_churn"* ]] && { assert_eq "$(le "$d" 26 1)" 1 "raw CQ $cqn: a user CQ"; n=$((n + 1)); }
done < <(raw_dumps cq dev sroce0)
[ $n -ge 1 ] || fail "no raw dump of verbs_churn's CQs"
n=0
rdma -dd resource show mr dev sroce0 >mr.txt
while read -r d; do
	check_hdr "$d" 3 56
	rkey=$(printf '0x%x' "$(le "$d" 12 4)")
	line=$(grep " rkey $rkey " mr.txt) || fail "raw MR $rkey is not in 'rdma resource show mr'"
	assert_match "$line" "lkey $(printf '0x%x' "$(le "$d" 8 4)") mrlen $(le "$d" 24 8) .*drv_pages $(le "$d" 36 4)${s}drv_page_size $((1 << $(le "$d" 44 4))) " \
		"raw MR $rkey: keys, length, pages"
	assert_eq "$(le "$d" 52 1).$(le "$d" 53 1)" "1.1" "raw MR $rkey: a valid user MR"
	n=$((n + 1))
done < <(raw_dumps mr dev sroce0)
[ $n -ge 1 ] || fail "no raw MR dump"
bg_kill holder
pass
