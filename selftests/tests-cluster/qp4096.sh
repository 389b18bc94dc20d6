#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# 4,096 RC QPs between nodes 1 and 2, every one moving checked data
# (selftests/progs/qp_many.c): each side writes 2 KiB into the peer's slot
# for each QP and sends a note behind it, and checks that every QP got its
# one note, behind its WRITE, and every slot byte for byte. Each of the
# two prints the kernel memory its driver took per QP (VmallocUsed + Slab,
# the QPs in RTS with one receive posted): with DRIVERS=sroce,rxe one run
# measures both drivers on the same kernel. The other nodes only wait.
. /tests/cluster/cl.lib

N=${QP_MANY:-4096}
PORT=18515
((TH_NODES >= 2)) || skip "needs two nodes"
cl_sync start >/dev/null || { cl_fail "the nodes did not meet"; cl_done; }
case $TH_NODE in
1)
	bg_run qp timeout -s KILL 840 qp_many "$TH_DEV" "$(cl_gid4)" "$N"
	( wait_tcp_listen "" "$PORT" ) || cl_fail "qp_many did not listen"
	cl_sync ready >/dev/null || cl_fail "the nodes did not meet"
	bg_wait qp 850 || cl_fail "qp_many (server, $TH_DRIVER): exit $?"
	out=$(bg_log qp)
	;;
2)
	cl_sync ready >/dev/null || cl_fail "the nodes did not meet"
	rc=0
	out=$(timeout -s KILL 840 qp_many "$TH_DEV" "$(cl_gid4)" "$N" "$(cl_addr4 1)" 2>&1) || rc=$?
	((rc == 0)) || cl_fail "qp_many (client, $TH_DRIVER): exit $rc"
	;;
*)
	cl_sync ready >/dev/null || cl_fail "the nodes did not meet"
	out=""
	;;
esac
if [[ -n $out ]]; then
	grep -v '^ok ' <<<"$out" | grep -v '^SUMMARY' | sed -n 1,30p
	sed -n "s/^SUMMARY /SUMMARY node $TH_NODE, $TH_DRIVER ($(uname -r)): /p" <<<"$out"
fi
cl_done
