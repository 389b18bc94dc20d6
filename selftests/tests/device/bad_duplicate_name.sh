#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A name that is taken: EEXIST, and the second netdev is left clean (it can
# take a device under another name afterwards).
. /tests/lib.sh

veth_pair v0 v1
veth_pair w0 w1
link_add sroce0 v0
assert_fail_errno "File exists" "duplicate name" \
	rdma link add sroce0 type sroce netdev w0
assert_rc 0 "rdma link" rdma link show
assert_nomatch "$OUT" "netdev w0" "no device on w0"
link_add sroce1 w0
assert_rc 0 "rdma link" rdma link show sroce1/1
assert_match "$OUT" "netdev w0" "w0 takes a device under a free name"
pass
