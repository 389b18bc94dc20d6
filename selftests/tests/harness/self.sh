#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
#
# The harness itself: lib.sh helpers, the two-namespace topology, and the
# user space shipped in the image.
. /tests/lib.sh

# --- asserts
assert_eq "abc" "abc" "assert_eq on equal strings"
assert_match "link sroce0/1 state ACTIVE" '^link [a-z0-9]+/1 state (ACTIVE|DOWN)$' "assert_match"
assert_nomatch "state DOWN" 'ACTIVE' "assert_nomatch"
assert_rc 3 "assert_rc" bash -c 'echo out; echo err >&2; exit 3'
assert_eq "$OUT" $'out\nerr' "assert_rc captures stdout and stderr"
mkdir "$PWD/d"
assert_fail_errno "File exists" "mkdir of an existing directory" mkdir "$PWD/d"

# fail/skip exit codes, as seen by a caller
rc=0; (fail "deliberate") 2>/dev/null || rc=$?
assert_eq "$rc" 1 "fail exits 1"
rc=0; (skip "deliberate") >/dev/null || rc=$?
assert_eq "$rc" 4 "skip exits 4"
rc=0; (assert_eq 1 2 "deliberate") 2>/dev/null || rc=$?
assert_eq "$rc" 1 "assert_eq fails on different strings"
rc=0; (assert_fail_errno "File exists" "deliberate" true) 2>/dev/null || rc=$?
assert_eq "$rc" 1 "assert_fail_errno fails when the command succeeds"
rc=0; (wait_for 1 "deliberate" false) 2>/dev/null || rc=$?
assert_eq "$rc" 1 "wait_for fails on timeout"

# --- background jobs
bg_run job bash -c 'sleep 0.5; echo done; exit 7'
wait_for 5 "job output" grep -q "done" "$PWD/job.log"
rc=0; bg_wait job 10 || rc=$?
assert_eq "$rc" 7 "bg_wait returns the job's exit status"
bg_run forever sleep 1000
rc=0; bg_wait forever 1 2>/dev/null || rc=$?
assert_eq "$rc" 124 "bg_wait times out"
bg_run leftover sleep 1000	# killed by the EXIT trap

# --- tools: real binaries, complete libraries
for t in ip rdma tc bridge timeout; do
	p=$(type -P "$t") || fail "$t not in PATH"
	assert_nomatch "$(readlink -f "$p")" 'busybox' "$t is not busybox"
done
rc=0; out=$(ibv_devices 2>&1) || rc=$?
log "ibv_devices (rc=$rc): $out"
assert_nomatch "$out" 'error while loading|cannot open|Warning|warning' "ibv_devices runs cleanly"
for t in rping ib_send_bw ib_write_bw ibv_rc_pingpong ucmatose; do
	rc=0; out=$("$t" -h 2>&1) || rc=$?
	assert_nomatch "$out" 'error while loading shared libraries|symbol lookup error' "$t -h"
	((rc < 126)) || fail "$t -h exited $rc: $out"
	assert_match "$out" '[Uu]sage|-s.*server' "$t -h prints its usage"
done
[[ -e /etc/libibverbs.d/rxe.driver ]] || fail "rxe.driver missing"
assert_rc 0 "ib_uverbs is loaded" grep -qw '^ib_uverbs' /proc/modules
assert_rc 0 "modprobe can resolve rdma_rxe" modprobe -n rdma_rxe
assert_eq "$(udp_port_bound)" "no" "udp_port_bound: 4791 free"
# rdma_rxe binds UDP 4791 in the initial namespace when it loads (6.1) or
# with its first device (later kernels)
port_free() { [[ $(udp_port_bound) == no ]]; }
if ! grep -qw '^rdma_rxe' /proc/modules && ! sroce_loaded; then
	modprobe rdma_rxe
	at_exit "rmmod rdma_rxe 2>/dev/null || true"
	if [[ $(udp_port_bound) == no ]]; then
		veth_pair t8 t9
		at_exit "rdma link delete rxe_h 2>/dev/null || true"
		rdma link add rxe_h type rxe netdev t8
	fi
	assert_eq "$(udp_port_bound)" "yes" "udp_port_bound: rdma_rxe's socket"
	rdma link delete rxe_h 2>/dev/null || true
	rmmod rdma_rxe
	wait_for 10 "UDP 4791 released by rdma_rxe" port_free
fi

# --- topology
two_hosts
in_a ping -c1 -W2 192.0.2.2 >/dev/null
in_b ping -c1 -W2 192.0.2.1 >/dev/null
in_a ping -6 -c1 -W2 2001:db8::2 >/dev/null
in_b ping -6 -c1 -W2 2001:db8::1 >/dev/null
assert_match "$(ip netns list)" 'ha' "netns ha exists"
# rdma link add resolves the netdev in the caller's netns
assert_fail_errno "does not exist" "va is not visible in the initial netns" ip link show dev va
topo_cleanup
assert_eq "$(ip netns list)" "" "topo_cleanup removes the namespaces"

veth_pair t0 t1
wait_for 5 "t0 carrier" grep -qx 1 /sys/class/net/t0/carrier
topo_cleanup
[[ ! -e /sys/class/net/t0 ]] || fail "veth t0 still exists after topo_cleanup"

pass
