#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A lossy, reordering link (netem on both veth ends): the random RC traffic
# of rc/integrity still arrives intact, through retransmission.
. /tests/lib.sh

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
rdma_pair
# fixed neighbour entries: connecting resolves the peer's MAC (see lib.sh)
pin_neighbours
in_a tc qdisc add dev va root netem loss 2% delay 1ms reorder 5% 50%
in_b tc qdisc add dev vb root netem loss 2% delay 1ms reorder 5% 50%
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
rc=0
timeout 600 rc_data integrity sroce_a "$ga" sroce_b "$gb" 2 60 7 > out.log 2>&1 || rc=$?
grep -v "^ok " out.log || true
[ $rc = 0 ] || fail "rc_data over a lossy link: exit $rc"
c() {
	echo $(($(cat /sys/class/infiniband/sroce_a/ports/1/hw_counters/"$1") +
		$(cat /sys/class/infiniband/sroce_b/ports/1/hw_counters/"$1")))
}
rt=$(c retransmits) to=$(c completer_retry_err) nak=$(c retrans_nak)
log "retransmissions: $rt (timeouts $to, NAKs $nak, RNR $(c retrans_rnr))"
[ "$rt" -gt 0 ] || fail "no retransmission on a lossy link?"
# Every retransmission has its cause counted.
assert_eq "$((to + nak))" "$rt" "timeouts + NAK-started retransmissions"
pass
