#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# UDP port 4791 is bound per network namespace, by the first device there,
# and released with the last one.
. /tests/lib.sh

two_hosts
assert_eq "$(udp_port_bound ha)" "no" "ha: port free before"
link_add sra va ha
assert_eq "$(udp_port_bound ha)" "yes" "ha: bound by the first device"
assert_eq "$(udp_port_bound hb)" "no" "hb: not bound by ha's device"
assert_eq "$(udp_port_bound)" "no" "init namespace untouched"

# A second device in ha shares the sockets.
in_a ip link add vx type veth peer name vy
in_a ip link set vx up
link_add srx vx ha
link_del sra
assert_eq "$(udp_port_bound ha)" "yes" "ha: still bound while srx exists"
link_del srx
assert_eq "$(udp_port_bound ha)" "no" "ha: released with the last device"
pass
