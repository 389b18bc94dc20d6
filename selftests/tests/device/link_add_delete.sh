#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "rdma link add NAME type sroce" autoloads the module through its alias,
# creates the device on the netdev, and "rdma link delete" removes it.
. /tests/lib.sh

grep -q '^sroce ' /proc/modules && fail "sroce loaded before the test"
veth_pair v0 v1
link_add sroce0 v0
grep -q '^sroce ' /proc/modules || fail "module was not autoloaded"

assert_rc 0 "rdma link show" rdma link show sroce0/1
assert_match "$OUT" "link sroce0/1 .*netdev v0" "link shows netdev"
[ -d /sys/class/infiniband/sroce0 ] || fail "no sysfs device"
assert_eq "$(cat /sys/class/infiniband/sroce0/node_type)" "1: CA" "node type"

link_del sroce0
[ -d /sys/class/infiniband/sroce0 ] && fail "device still in sysfs"
assert_rc 0 "rdma link show" rdma link show
assert_nomatch "$OUT" "sroce0" "device gone from rdma link"
pass
