#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 20 add/delete cycles leave nothing behind: no device, no UDP socket, no
# module reference, and the module unloads.
. /tests/lib.sh

veth_pair v0 v1
for i in $(seq 1 20); do
	link_add sroce0 v0
	[ -d /sys/class/infiniband/sroce0 ] || fail "cycle $i: no device"
	link_del sroce0
done
[ -e /sys/class/infiniband/sroce0 ] && fail "device left behind"
assert_eq "$(udp_port_bound)" "no" "UDP 4791 released"
assert_eq "$(awk '$1 == "sroce" { print $3 }' /proc/modules)" "0" "module use count"
sroce_unload || fail "rmmod after churn"
pass
