#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A non-Ethernet netdev (loopback, a tun device in L3 mode) is refused with
# EOPNOTSUPP and nothing is left behind.
. /tests/lib.sh

sroce_load
assert_fail_errno "Operation not supported" "loopback" \
	rdma link add sroce0 type sroce netdev lo
assert_match "$(dmesg | tail -n 5)" "lo is not an Ethernet device" "kernel says why"
if ip tuntap add dev tun9 mode tun 2>/dev/null; then
	assert_fail_errno "Operation not supported" "tun" \
		rdma link add sroce0 type sroce netdev tun9
	ip tuntap del dev tun9 mode tun
fi
[ -e /sys/class/infiniband/sroce0 ] && fail "device created"
assert_eq "$(udp_port_bound)" "no" "no socket left"
pass
