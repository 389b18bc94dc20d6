#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The active MTU follows the netdev MTU (minus RoCEv2 headers, rounded down
# to an IB MTU).
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0

active_mtu() {
	ibv_devinfo -d sroce0 | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}
check_mtu() {
	ip link set v0 mtu "$1" || fail "set mtu $1"
	assert_eq "$(active_mtu)" "$2" "active_mtu for netdev mtu $1"
}
check_mtu 9000 4096
check_mtu 4192 4096
check_mtu 4191 2048
check_mtu 1500 1024
check_mtu 1200 1024
check_mtu 1119 512
check_mtu 600 256
check_mtu 1500 1024
pass
