#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Deleting the netdev removes the device, in the initial namespace and when
# a whole namespace goes away.
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0
ip link del v0
wait_for 20 "device removed with its netdev" test ! -e /sys/class/infiniband/sroce0

two_hosts
link_add sra va ha
link_add srb vb hb
ip netns del hb
wait_for 20 "devices removed with the namespace" \
	eval 'test ! -e /sys/class/infiniband/sra && test ! -e /sys/class/infiniband/srb'
assert_rc 0 "rdma link" rdma link show
assert_nomatch "$OUT" "sr[ab]/" "no device left"
pass
