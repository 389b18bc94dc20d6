#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma link add on a netdev that does not exist: ENODEV, nothing created.
. /tests/lib.sh

sroce_load
assert_fail_errno "No such device" "missing netdev" \
	rdma link add sroce0 type sroce netdev nosuchdev0
[ -e /sys/class/infiniband/sroce0 ] && fail "device created"
assert_eq "$(udp_port_bound)" "no" "no socket left"
pass
