#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An ODP page that does not come blocks nobody: WRITEs into an ODP MR over
# userfaultfd-registered memory that nobody resolves (progs/odp_wait.c).
# The responder answers RNR NAKs while the page is missing (odp_wait and
# send_rnr_err count them) and places the WRITE once it comes; other QPs
# move data meanwhile; the QPs and the MR go within 5 s with a WRITE
# pending; and with one still pending the device goes (rdma link delete;
# its netdev's namespace deleted), and the module is unloaded, each
# within 30 s. On the previous code the fault ended in SIGBUS inside the
# kernel, and the WRITE in a remote access error.
. /tests/lib.sh

# round DEV: run odp_wait on DEV until it leaves a WRITE pending, and
# check what it saw and counted so far
round() {
	rm -f "done"
	bg_run w odp_wait "$1" "$PWD/done"
	wait_for 120 "the program to leave a WRITE pending" \
		grep -qE "^(# pending|1\.\.0 # SKIP|Bail out)" w.log
	grep -q "SKIP userfaultfd" w.log && { bg_wait w 10; skip "no userfaultfd"; }
	grep -q "^# pending" w.log ||
		{ touch "done"; bg_wait w 10; bg_log w; fail "odp_wait: $(tail -1 w.log)"; }
	grep "^not ok" w.log && { touch "done"; bg_wait w 30; fail "odp_wait: checks failed"; }
	c() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }
	[ "$(c "$1" odp_wait)" -gt 0 ] || fail "odp_wait counted nothing"
	[ "$(c "$1" send_rnr_err)" -gt 0 ] || fail "no RNR NAK sent"
	log "$1: odp_wait $(c "$1" odp_wait), send_rnr_err $(c "$1" send_rnr_err)"
}

# the program saw everything it should, after the device went
finish() {
	local rc=0
	touch "done"
	bg_wait w 60 || rc=$?
	bg_log w
	assert_eq "$rc" 0 "odp_wait's checks, $1"
}

one_device
round sroce0
_lib_bounded 30 rdma link delete sroce0 || fail "rdma link delete with a WRITE pending"
SROCE_LINKS=()
finish "rdma link delete"
_lib_bounded 30 rmmod sroce || fail "rmmod sroce after"

sroce_load
two_hosts
link_add sra va ha
wait_for 10 "IPv4 GID on sra" gid_index sra 192.0.2.1
round sra
_lib_bounded 30 ip netns del ha || fail "ip netns del with a WRITE pending"
wait_for 30 "sra gone" test ! -e /sys/class/infiniband/sra
# shellcheck disable=SC2034  # SROCE_LINKS is lib.sh's list of links to delete
SROCE_LINKS=()
finish "the namespace's deletion"
_lib_bounded 30 rmmod sroce || fail "rmmod sroce after"
pass
