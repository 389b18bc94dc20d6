#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# 10,000 objects of mixed kinds created and destroyed leave nothing behind,
# and the module unloads.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
link_add sroce0 v0
wait_for 10 "IPv4 GID" grep -q "ffff:c000:0201" /sys/class/infiniband/sroce0/ports/1/gids/1
assert_rc 0 "churn" verbs_churn sroce0 10000
assert_match "$OUT" "10000 objects created, 0 failures" "all objects made"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
assert_rc 0 "rdma resource" rdma resource show
assert_match "$OUT" "sroce0: .*ctx 0" "no user context left"
link_del sroce0
sroce_unload || fail "module unload after churn"
pass
