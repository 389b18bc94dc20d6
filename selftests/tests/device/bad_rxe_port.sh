#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With rdma_rxe loaded (it binds UDP 4791 in the initial namespace at load
# time on 6.1), rdma link add fails with EADDRINUSE and a message naming the
# cause; once rdma_rxe is gone it works.
. /tests/lib.sh

modinfo rdma_rxe >/dev/null 2>&1 || skip "no rdma_rxe module in this kernel"
veth_pair v0 v1
sroce_load
modprobe rdma_rxe || fail "modprobe rdma_rxe"
if [ "$(udp_port_bound)" != yes ]; then
	rmmod rdma_rxe
	skip "this rdma_rxe does not bind the port at load time"
fi
assert_fail_errno "Address already in use" "with rdma_rxe loaded" \
	rdma link add sroce0 type sroce netdev v0
assert_match "$(dmesg | tail -n 5)" "sroce and rdma_rxe cannot be loaded together" "message names the cause"
[ -e /sys/class/infiniband/sroce0 ] && fail "device created"
rmmod rdma_rxe || fail "rmmod rdma_rxe"
link_add sroce0 v0
pass
