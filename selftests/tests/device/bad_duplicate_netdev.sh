#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A second device on the same netdev: EEXIST; the first one is untouched.
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0
assert_fail_errno "File exists" "second device on v0" \
	rdma link add sroce1 type sroce netdev v0
[ -e /sys/class/infiniband/sroce1 ] && fail "second device created"
assert_match "$(dmesg | tail -n 5)" "v0 already carries device sroce0" "kernel says why"
assert_rc 0 "ibv_devinfo" ibv_devinfo -d sroce0
assert_match "$OUT" "PORT_ACTIVE" "first device still works"
pass
