#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An ODP page that does not come blocks nobody: WRITEs into an ODP MR over
# userfaultfd-registered memory that nobody resolves (progs/odp_wait.c).
# The responder answers RNR NAKs while the page is missing (odp_wait and
# send_rnr_err count them) and places the WRITE once it comes; other QPs
# move data meanwhile; the QPs and the MR go within 5 s with a WRITE
# pending; and with one still pending the device is deleted, and the
# module unloaded, each within 30 s. On the previous code the fault ended
# in SIGBUS inside the kernel, and the WRITE in a remote access error.
. /tests/lib.sh

one_device
c() { cat /sys/class/infiniband/sroce0/ports/1/hw_counters/$1; }
rm -f done
bg_run w odp_wait sroce0 "$PWD/done"
wait_for 120 "the program to leave a WRITE pending" \
	grep -qE "^(# pending|1\.\.0 # SKIP|Bail out)" w.log
grep -q "SKIP userfaultfd" w.log && { bg_wait w 10; skip "no userfaultfd"; }
grep -q "^# pending" w.log || { touch done; bg_wait w 10; bg_log w; fail "odp_wait: $(tail -1 w.log)"; }
# the program's checks so far, then the counters of the pending WRITEs
grep "^not ok" w.log && { touch done; bg_wait w 30; fail "odp_wait: checks failed"; }
[ "$(c odp_wait)" -gt 0 ] || fail "odp_wait counted nothing"
[ "$(c send_rnr_err)" -gt 0 ] || fail "no RNR NAK sent"
log "odp_wait $(c odp_wait), send_rnr_err $(c send_rnr_err)"
_lib_bounded 30 rdma link delete sroce0 || fail "rdma link delete with a WRITE pending"
SROCE_LINKS=()
touch done
rc=0
bg_wait w 60 || rc=$?
bg_log w
assert_eq "$rc" 0 "odp_wait's checks"
_lib_bounded 30 rmmod sroce || fail "rmmod sroce after"
pass
