#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# Failures injected into sroce's own allocations (its fault injection
# points, drivers/sroce/fault.h) while users run:
# - every 10th packet allocation fails while
#   ibv_rc_pingpong moves validated buffers (RC: a request is sent a
#   jiffy later, a lost ACK or response is made up for by a retransmit)
#   and rping connects through rdma_cm (a datagram is dropped and counted,
#   and the CM's MADs are sent again) and verifies its data;
# - every 10th packet allocation fails while rc_data sends 400 UD
#   datagrams: a datagram that finds no memory is sent a jiffy later, so
#   each send completes successfully and every datagram arrives, intact,
#   once, in order (the CM's MADs are UD: a DREQ dropped once is never
#   sent again when its sender destroys its ID at once, and rping's
#   server then waited forever);
# - every 10th packet allocation fails while NVMe over RDMA (nvme-rdma to
#   nvmet-rdma on one device) writes and reads back 1 MiB;
# - every 7th ring allocation fails while
#   ibv_rc_pingpong starts 12 times (a run makes 6 rings): each run passes
#   or ends with an error from creating its CQ or QP, and both happen;
# then, with injection off, the same tools pass again. The harness checks
# the kernel log and kmemleak. Needs a kernel with fault injection (the
# debug kernel, selftests/debug.config).
# timeout: 900
. /tests/lib.sh
. /tests/kernel/nvme.lib

dbg=/sys/kernel/debug
grep -q " $dbg debugfs " /proc/mounts || mount -t debugfs none $dbg 2>/dev/null || true
[ -e /proc/self/fail-nth ] || skip "no fault injection in this kernel"
modprobe rdma_ucm || true
rdma_pair
at_exit stop_inject
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)

# inject POINT INTERVAL: fail every INTERVAL-th pass of sroce's POINT
# (skb, ring)
inject() {
	local d=$dbg/fail_sroce_$1
	[ -d "$d" ] || fail "no $d"
	echo 0 > "$d/verbose"
	echo 1000000 > "$d/times"
	echo "$2" > "$d/interval"
	echo 100 > "$d/probability"
}
stop_inject() {
	local d
	for d in "$dbg"/fail_sroce_*; do echo 0 > "$d/probability"; done
}

# pingpong N [SIZE]: one validated ibv_rc_pingpong run; its exit status
pingpong() {
	local rc=0 src=0
	bg_run srv in_b timeout 120 ibv_rc_pingpong -d sroce_b -g "$gb" -s "${2:-4096}" -n "$1" -c
	wait_tcp_listen hb 18515
	in_a timeout 120 ibv_rc_pingpong -d sroce_a -g "$ga" -s "${2:-4096}" -n "$1" -c \
		192.0.2.2 > pp.log 2>&1 || rc=$?
	bg_wait srv 60 || src=$?
	((rc == 0 && src == 0)) && return 0
	cat pp.log; bg_log srv
	return 1
}

rping_verified() {
	local rc=0 src=0 n
	bg_run srv in_b timeout 120 rping -s -a 192.0.2.2 -v -V -C 20 -S 100
	wait_cm_listen sroce_b
	in_a timeout 120 rping -c -a 192.0.2.2 -v -V -C 20 -S 100 > rping.log 2>&1 || rc=$?
	bg_wait srv 60 || src=$?
	n=$(grep -c "ping data" rping.log || true)
	((rc == 0 && src == 0 && n >= 20)) && return 0
	cat rping.log; bg_log srv
	return 1
}

# injected POINT: how many failures POINT has made since inject
injected() { echo $((1000000 - $(cat "$dbg/fail_sroce_$1/times"))); }
# the server's TCP port (18515, 0x4853) listening in hb
srv_listening() {
	in_b cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk '$2 ~ /:4853$/ && $4 == "0A" { f = 1 } END { exit !f }'
}
cnt() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

inject skb 10
pingpong 200 || fail "ibv_rc_pingpong with every 10th packet allocation failed"
rping_verified || fail "rping with every 10th packet allocation failed"
n=$(injected skb)
stop_inject
log "packet allocations failed: $n; retransmits on sroce_a $(cnt sroce_a retransmits), sroce_b $(cnt sroce_b retransmits)"
((n > 0)) || fail "no packet allocation failed"

# UD: a datagram that finds no memory is sent a jiffy later
before=$(cnt sroce_a send_err)
inject skb 10
rc=0
timeout 300 rc_data ud_count sroce_a "$ga" sroce_b "$gb" 1 400 > ud.log 2>&1 || rc=$?
n=$(injected skb)
stop_inject
got=$(sed -n 's/^# received=//p' ud.log)
[[ $rc == 0 && $got =~ ^[0-9]+$ ]] || { cat ud.log; fail "rc_data ud_count: exit $rc"; }
log "UD: 400 datagrams sent, $got received, $n packet allocations failed"
((n > 0)) || fail "no packet allocation failed under UD"
assert_eq "$got" 400 "every UD datagram arrived"
assert_eq "$(($(cnt sroce_a send_err) - before))" 0 "no UD datagram dropped"

# NVMe over RDMA: the kernel's RC QPs, rdma_cm and fast registration
nvme_loop_up
inject skb 10
nvme_roundtrip "NVMe with every 10th packet allocation failed"
n=$(injected skb)
stop_inject
log "NVMe: packet allocations failed: $n"
((n > 0)) || fail "no packet allocation failed under NVMe"
nvme_roundtrip "NVMe after injection"
nvme_loop_down

inject ring 7
ok=0 refused=0
for i in $(seq 12); do
	rc=0
	bg_run srv in_b timeout 60 ibv_rc_pingpong -d sroce_b -g "$gb" -n 5 -c
	# the server creates its CQ and QP before it listens
	for ((t = 0; t < 100; t++)); do
		srv_listening && break
		kill -0 "${_BG_PID[srv]}" 2>/dev/null || break
		sleep 0.1
	done
	if ! kill -0 "${_BG_PID[srv]}" 2>/dev/null; then
		bg_kill srv
		grep -qiE "couldn't create (cq|qp)" srv.log ||
			{ cat srv.log; fail "run $i: the server ended without a refused create"; }
		refused=$((refused + 1))
		continue
	fi
	in_a timeout 60 ibv_rc_pingpong -d sroce_a -g "$ga" -n 5 -c 192.0.2.2 > pp.log 2>&1 || rc=$?
	bg_kill srv
	if ((rc == 0)); then
		ok=$((ok + 1))
	elif grep -qiE "couldn't create (cq|qp)" pp.log; then
		refused=$((refused + 1))
	else
		cat pp.log
		fail "run $i: neither passed nor refused its CQ or QP"
	fi
done
stop_inject
log "ring allocations failed: $refused runs refused, $ok passed"
((refused > 0 && ok > 0)) || fail "want both refused and passed runs"

pingpong 200 65536 || fail "ibv_rc_pingpong after injection"
rping_verified || fail "rping after injection"
assert_eq "$(user_objects sroce_a)" "0" "no user object left on sroce_a"
pass
