#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device speaks the rxe user ABI: driver id RXE, ABI version 2, so the
# stock rxe provider binds it (whatever its name).
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0
uv=$(basename "$(ls -d /sys/class/infiniband/sroce0/device/infiniband_verbs/uverbs* 2>/dev/null ||
	 grep -l '^sroce0$' /sys/class/infiniband_verbs/uverbs*/ibdev | xargs -n1 dirname)")
[ -n "$uv" ] || fail "no uverbs device for sroce0"
assert_eq "$(cat /sys/class/infiniband_verbs/"$uv"/abi_version)" "2" "uverbs ABI version"
assert_rc 0 "rdma dev show" rdma -d dev show sroce0
assert_match "$OUT" "sroce0" "rdma dev show"
# ibv_devinfo only works when the provider accepted the device.
assert_rc 0 "ibv_devinfo" ibv_devinfo -d sroce0
assert_nomatch "$OUT" "does not support the kernel ABI" "provider accepts the ABI"
pass
