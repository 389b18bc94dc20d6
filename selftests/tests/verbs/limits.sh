#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# With the max_* module parameters at 4, query_device reports 4 and the
# fifth object of each kind fails with ENOMEM. Queues of the largest
# advertised sizes are made (or refused with ENOMEM), one entry more is
# EINVAL, and nothing splats. max_mcast_grp groups can be attached, one more
# fails with ENOMEM, and detaching them leaves the netdev's multicast
# filter as it was.
. /tests/lib.sh

veth_pair v0 v1
ip addr add 192.0.2.1/24 dev v0
modprobe sroce max_qp=4 max_cq=4 max_pd=4 max_srq=4 max_mr=4 max_mw=4 max_ah=4 ||
	fail "modprobe with limits"
link_add sroce0 v0
wait_for 10 "IPv4 GID" grep -q "ffff:c000:0201" /sys/class/infiniband/sroce0/ports/1/gids/1
# The MAD layer's GSI QP holds a PD (with its DMA MR), a CQ and a QP.
kern() { rdma resource show "$@" 2>/dev/null | grep -c 'comm \[' || true; }
# (the DMA MR of a kernel PD is not in the resource tracker: one per PD)
k="$(kern pd dev sroce0) $(kern cq dev sroce0) $(kern qp link sroce0/1) $(kern pd dev sroce0)"
log "kernel objects (pd cq qp mr): $k"
rc=0
klog_lines=$(dmesg | wc -l)
# shellcheck disable=SC2086
verbs_objects sroce0 limits 4 $k > limits.log 2>&1 || rc=$?
grep -v "^ok " limits.log || true
[ $rc = 0 ] || fail "limits: $(grep -c '^not ok' limits.log) checks failed"
# An allocation failure report (warn_alloc) is a splat too: none for any size.
if dmesg | tail -n +"$((klog_lines + 1))" | grep -E "allocation failure|vmalloc error"; then
	fail "an allocation failed loudly"
fi

maddrs() { ip maddr show dev v0 | grep -c link || true; }
before=$(maddrs)
rc=0
timeout 300 verbs_objects sroce0 mcast > mcast.log 2>&1 || rc=$?
grep -v "^ok " mcast.log || true
[ $rc = 0 ] || fail "mcast: $(grep -c '^not ok' mcast.log) checks failed"
assert_eq "$(maddrs)" "$before" "multicast addresses on v0 after detaching"
pass
