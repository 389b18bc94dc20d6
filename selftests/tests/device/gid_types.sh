#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# (two minutes of IPv6 address set-up: GID table logic no kernel changes)
# The core fills the GID table from the netdev's addresses; every GID is
# RoCE v2, and new addresses show up.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
ip addr add 2001:db8::1/64 dev v0 nodad
link_add sroce0 v0

gids=/sys/class/infiniband/sroce0/ports/1/gids
types=/sys/class/infiniband/sroce0/ports/1/gid_attrs/types
has_gid() { grep -qx "$1" $gids/* 2>/dev/null; }
wait_for 10 "IPv4 GID" has_gid "0000:0000:0000:0000:0000:ffff:c000:0201"
wait_for 10 "IPv6 GID" has_gid "2001:0db8:0000:0000:0000:0000:0000:0001"
wait_for 10 "link-local GID" grep -q "^fe80:" $gids/0

# A new address is added to the table.
ip addr add 192.0.2.77/24 dev v0
wait_for 10 "new IPv4 GID" has_gid "0000:0000:0000:0000:0000:ffff:c000:024d"

n=0
for f in "$types"/*; do
	t=$(cat "$f" 2>/dev/null) || continue
	[ -n "$t" ] || continue
	n=$((n + 1))
	assert_eq "$t" "RoCE v2" "type of GID $(basename "$f")"
done
[ $n -ge 4 ] || fail "expected at least 4 GIDs, found $n"

assert_rc 0 "ibv_devinfo -v" ibv_devinfo -v -d sroce0
assert_match "$OUT" "GID\\[ *[0-9]+\\]:.*192\\.0\\.2\\.1, RoCE v2" "ibv_devinfo shows the IPv4 GID"
assert_nomatch "$OUT" "RoCE v1" "no RoCE v1 GID"
pass
