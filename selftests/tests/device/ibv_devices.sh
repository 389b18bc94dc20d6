#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibv_devices lists the device through the stock rxe provider, with a node
# GUID made from the netdev's MAC (EUI-48 to EUI-64).
. /tests/lib.sh

veth_pair v0 v1
ip link set v0 address 02:11:22:33:44:55
link_add sroce0 v0

assert_rc 0 "ibv_devices" ibv_devices
assert_match "$OUT" "sroce0[[:space:]]+001122fffe334455" "device and GUID listed"
assert_eq "$(cat /sys/class/infiniband/sroce0/node_guid)" "0011:22ff:fe33:4455" "sysfs node_guid"
pass
