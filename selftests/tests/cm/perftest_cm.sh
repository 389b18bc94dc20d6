#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# perftest over rdma_cm (-R) for every RC test, with completion events
# (-e) for every test perftest offers them on (not WRITE), and the UD and UC
# send tests; both sides must exit 0. IPv4 only: perftest 4.5's rdma_cm
# client resolves IPv4 names only ("Address family for hostname not
# supported" for 2001:db8::2); rping and rdmacm-utils cover rdma_cm on IPv6.
. /tests/lib.sh

modprobe rdma_ucm || true
rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
# A known perftest 4.5 race, and the only failure retried: with -R the
# client makes two rdma_cm connections, a control one and then, after a
# handshake over it, the data one; the server calls rdma_listen for the data
# one only after that handshake (create_rdma_cm_connection() ->
# rdma_cm_server_connection()), while the client connects right after it.
# When the client's REQ reaches the server's IB CM first, the IB CM rejects
# it with reason 8, invalid service ID (no listener on sroce_b for port
# 18515 yet). Traced (ib_cm/rdma_cma/ib_mad tracepoints, a kprobe on
# ib_cm_insert_listen): the data REQ arrives on sroce_b's QP1, icm_issue_rej
# and icm_no_listener_err follow, the REJ arrives on sroce_a's QP1, and the
# server's ib_cm_insert_listen on sroce_b comes only afterwards; with the
# server's syscalls slowed (strace -e inject=write:delay_exit=150000) it
# happens every time. The client then reports "Event:
# RDMA_CM_EVENT_REJECTED; error: 8." (only the data connection's handler
# prints that; a rejected control connection prints "Unexpected CM event
# bl blka 8") and perftest's own retry crashes on the ids it just destroyed
# (exit 139), leaving the server waiting. So only that exact client message
# starts the pair afresh (up to three times); any other reject or failure
# fails the test. cm/connect300 checks that sroce itself never rejects a
# connection whose listener is up.
run() {
	local tool=$1 srv=0 cli=0 try
	shift
	for try in 1 2 3; do
		srv=0 cli=0
		bg_run srv in_b timeout 150 "$tool" -F -d sroce_b -x "$gb" "$@"
		if [[ " $* " == *" -R "* ]]; then wait_cm_listen sroce_b; else wait_tcp_listen hb 18515; fi
		in_a timeout 150 "$tool" -F -d sroce_a -x "$ga" "$@" 192.0.2.2 > cli.log 2>&1 || cli=$?
		if [ $cli != 0 ] && [ $try -lt 3 ] && [[ " $* " == *" -R "* ]] &&
		   perftest_cm_race <cli.log; then
			log "$tool $*: data connection rejected before the server listened (perftest race, try $try), starting both again"
			bg_kill srv
			sleep 1
			continue
		fi
		bg_wait srv 60 || srv=$?
		break
	done
	log "$tool $*: client $cli, server $srv"
	if [ $cli != 0 ] || [ $srv != 0 ]; then
		tail -n 15 cli.log
		bg_log srv | tail -n 15
		fail "$tool $*: client exit $cli, server exit $srv"
	fi
}
for t in ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; do
	run $t -R -s 4096 -n 50
	# perftest has no events mode for WRITE ("Events feature not available")
	[[ $t == ib_write_* ]] || run $t -e -s 4096 -n 50
done
run ib_atomic_bw -R -n 50
run ib_atomic_lat -R -n 50
run ib_atomic_bw -e -n 50
for c in UD UC; do
	run ib_send_bw -c $c -s 512 -n 50
	run ib_send_lat -c $c -s 512 -n 50
done
run ib_write_bw -c UC -s 4096 -n 50
pass
