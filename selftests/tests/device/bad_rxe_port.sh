#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With rdma_rxe holding UDP 4791 in the initial namespace (from load time on
# 6.1; from its first rxe link on later kernels), rdma link add fails with
# EADDRINUSE and a message naming the cause; once rdma_rxe is gone it works.
. /tests/lib.sh

modinfo rdma_rxe >/dev/null 2>&1 || skip "no rdma_rxe module in this kernel"
veth_pair v0 v1
sroce_load
modprobe rdma_rxe || fail "modprobe rdma_rxe"
if [ "$(udp_port_bound)" != yes ]; then
	# This rdma_rxe opens its socket with its first device.
	rdma link add rxe_t type rxe netdev v1 || fail "rdma link add type rxe"
	assert_eq "$(udp_port_bound)" yes "rdma_rxe's device binds UDP 4791"
	rxe_link=1
fi
assert_fail_errno "Address already in use" "with rdma_rxe loaded" \
	rdma link add sroce0 type sroce netdev v0
assert_match "$(dmesg | tail -n 5)" "sroce and rdma_rxe cannot be loaded together" "message names the cause"
[ -e /sys/class/infiniband/sroce0 ] && fail "device created"
if [ -n "${rxe_link:-}" ]; then
	rdma link delete rxe_t || fail "rdma link delete rxe_t"
fi
rmmod rdma_rxe || fail "rmmod rdma_rxe"
port_free() { [[ $(udp_port_bound) == no ]]; }
wait_for 10 "UDP 4791 released by rdma_rxe" port_free
link_add sroce0 v0
pass
