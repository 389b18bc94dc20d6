#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process killed with objects open (and rings mapped) leaves nothing
# behind; the device and the module go away afterwards.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "IPv4 GID" grep -q "ffff:c000:0201" /sys/class/infiniband/sroce0/ports/1/gids/1
bg_run holder verbs_churn sroce0 900 hold
wait_for 120 "objects created" grep -q holding holder.log
assert_rc 0 "rdma resource" rdma resource show
assert_match "$OUT" "sroce0: pd [1-9][0-9]* cq [1-9]" "objects exist while held"
bg_kill holder
wait_for 30 "resources released" \
	eval '[ "$(user_objects sroce0)" = 0 ] && rdma resource show | grep -q "sroce0: .*ctx 0"'
link_del sroce0
sroce_unload || fail "module unload after the kill"
pass
