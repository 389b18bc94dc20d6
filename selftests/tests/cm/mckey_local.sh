#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Multicast with the sender and a receiver on one device, as RoCE hardware
# and rdma_rxe deliver it: mckey receivers on sroce_b and on sroce_a, the
# sender on sroce_b. Both receivers get every datagram; sroce_b takes each
# of its own 10 exactly once (the IP layer's loopback copy is not delivered
# a second time).
. /tests/lib.sh

modprobe rdma_ucm || true
rdma_pair
g=239.1.3.1
c=/sys/class/infiniband/sroce_b/ports/1/hw_counters
bg_run rb in_b timeout 60 mckey -m $g -b 192.0.2.2 -C 10
bg_run ra in_a timeout 60 mckey -m $g -b 192.0.2.1 -C 10
# mckey does not synchronise: send once both receivers joined
wait_for 30 "receivers joined $g" eval "in_b ip maddr show dev vb | grep -q 'inet  *$g' &&
	in_a ip maddr show dev va | grep -q 'inet  *$g'"
rx0=$(cat $c/rcvd_pkts)
rc=0
OUT=$(in_b timeout 60 mckey -m $g -b 192.0.2.2 -s -C 10 2>&1) || rc=$?
rb=0 ra=0
bg_wait rb 60 || rb=$?
bg_wait ra 60 || ra=$?
log "sender $rc, receiver on sroce_b $rb, on sroce_a $ra"
((rc == 0 && rb == 0 && ra == 0)) || {
	echo "$OUT"; bg_log rb; bg_log ra
	fail "mckey: sender $rc, receiver on the sender's device $rb, on the other $ra"
}
assert_match "$(bg_log rb)" "test complete" "the receiver on the sender's device completed"
assert_match "$(bg_log ra)" "test complete" "the receiver on the other device completed"
assert_eq "$(($(cat $c/rcvd_pkts) - rx0))" 10 "packets sroce_b received (its own 10, once each)"
assert_eq "$(cat $c/send_err)" 0 "sroce_b send errors"
pass
