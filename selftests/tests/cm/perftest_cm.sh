#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
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
run() {
	local tool=$1 srv=0 cli=0 try
	shift
	# Now and then (about one run in ten, on any kernel) the first REQ is
	# rejected ("invalid service ID") although the listener is up, and
	# that perftest server then waits forever. Not understood yet: start
	# the pair afresh, up to three times, and log it.
	for try in 1 2 3; do
		srv=0 cli=0
		bg_run srv in_b timeout 150 "$tool" -F -d sroce_b -x "$gb" "$@"
		if [[ " $* " == *" -R "* ]]; then wait_cm_listen sroce_b; else wait_tcp_listen hb 18515; fi
		in_a timeout 150 "$tool" -F -d sroce_a -x "$ga" "$@" 192.0.2.2 > cli.log 2>&1 || cli=$?
		if [ $cli != 0 ] && [ $try -lt 3 ] && grep -q "RDMA_CM_EVENT_REJECTED" cli.log; then
			log "$tool $*: connection rejected (try $try), starting both again"
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
