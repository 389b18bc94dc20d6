#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make run": two hosts (network namespaces joined by a veth pair), an sroce
# device on each, and what the distribution's RDMA tools see of them.
. /tests/lib.sh

show() {
	echo
	echo "\$ $*"
	"$@"
}

two_hosts
link_add sroce_a va ha
link_add sroce_b vb hb
wait_for 10 "ports active" port_state_is sroce_a ACTIVE
wait_for 10 "ports active" port_state_is sroce_b ACTIVE

show rdma link show
show ibv_devices
show ibv_devinfo -d sroce_a
show in_b ibv_devinfo -v -d sroce_b
show rdma statistic show link sroce_a/1
show rdma resource show
echo
echo "run-demo: done"
pass
