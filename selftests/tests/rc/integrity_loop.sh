#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rc/integrity with both ends on one device: every packet takes the
# loopback branch (no ICRC, packets queued straight on the peer QP, whose
# work is told in batches or run inline by the sender, qp.c). The same
# random SEND/WRITE/WRITE_IMM/READ/atomics, 4 QPs, every byte compared.
. /tests/lib.sh

one_device
g=$G
rc=0
timeout 600 rc_data integrity sroce0 "$g" sroce0 "$g" > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
rdma statistic show link sroce0/1
[ $rc = 0 ] || fail "rc_data integrity: exit $rc, $(grep -c '^not ok' out.log) checks failed"
c() { cat /sys/class/infiniband/sroce0/ports/1/hw_counters/$1; }
[ "$(c sent_pkts)" -gt 1000 ] || fail "only $(c sent_pkts) packets sent"
assert_eq "$(c sent_pkts)" "$(c rcvd_pkts)" "every packet looped back"
assert_eq "$(c retransmits)" "0" "no retransmission"
assert_eq "$(c rcvd_dropped)" "0" "no packet dropped"
pass
