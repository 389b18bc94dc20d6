#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The port follows the netdev: admin down and loss of carrier make it DOWN,
# up makes it ACTIVE, each with the IB event, and link_downed counts.
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0
wait_for 10 "port active" port_state_is sroce0 ACTIVE

bg_run watch ibv_asyncwatch -d sroce0
wait_for 10 "asyncwatch running" grep -q "async event FD" watch.log

ip link set v0 down
wait_for 10 "port down (admin)" port_state_is sroce0 DOWN
assert_rc 0 "rdma link" rdma link show sroce0/1
assert_match "$OUT" "state DOWN" "rdma link shows DOWN"
assert_rc 0 "ibv_devinfo" ibv_devinfo -d sroce0
assert_match "$OUT" "PORT_DOWN" "ibv_devinfo shows PORT_DOWN"

ip link set v0 up
wait_for 10 "port active again" port_state_is sroce0 ACTIVE

# Carrier: taking the peer down drops the carrier on v0.
ip link set v1 down
wait_for 10 "port down (carrier)" port_state_is sroce0 DOWN
ip link set v1 up
wait_for 10 "port active (carrier back)" port_state_is sroce0 ACTIVE

wait_for 10 "PORT_ERR events" test "$(grep -c IBV_EVENT_PORT_ERR watch.log)" -ge 2
wait_for 10 "PORT_ACTIVE events" test "$(grep -c IBV_EVENT_PORT_ACTIVE watch.log)" -ge 2
bg_kill watch

assert_eq "$(cat /sys/class/infiniband/sroce0/ports/1/hw_counters/link_downed)" "2" "link_downed counter"
pass
