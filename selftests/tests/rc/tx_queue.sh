#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A QP hands its netdev at most tx_queue_kib of packets at a time (txbuf.c;
# 64 KiB here: 64 packets at MTU 1024, below the qdisc's limit): behind a
# qdisc that lets 16 packets out every 10 ms and drops beyond 80 queued
# (netem slots), an RDMA WRITE stream (the requester) and a READ stream
# (the responder) lose nothing there, resend nothing, and say they waited
# (tx_wait). Without the mark the 512-PSN window overflows it at once.
# Slots, not a delay or a rate: with those netem orphans what it queues
# (skb_orphan_partial()), which ends the QP's count as the packet enters.
. /tests/lib.sh

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
rdma_pair
veth_in_order	# netem's dequeues on any CPU: see lib.sh
pin_neighbours
p=/sys/module/sroce/parameters/tx_queue_kib
old=$(<"$p")
assert_eq "$old" "256" "tx_queue_kib by default"
echo 64 >"$p"
at_exit "echo $old >$p"
for h in a b; do
	in_$h tc qdisc add dev v$h root netem slot 10ms 10ms packets 16 limit 80 ||
		fail "netem on v$h"
done
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
c() { cat /sys/class/infiniband/"$1"/ports/1/hw_counters/"$2"; }
qdisc_drops() {
	"in_$1" tc -s qdisc show dev "v$1" | sed -n 's/.*dropped \([0-9]*\).*/\1/p'
}

# 1 MiB messages, 1024 packets each at MTU 1024; perftest keeps 128 of
# them posted (WRITE) or max_rd_atomic of them outstanding (READ). A
# WRITE stream asks for an ACK every 64 packets (req.c), 40 ms apart on
# this link, and each waits behind up to 64 packets in the qdisc: the
# default ACK timeout (-u 14: 67 ms) is too close to that, and ran out
# about once a run (completer_retry_err, 80 requests sent twice). -u 18
# (1.07 s) is the timeout of a link this slow.
for t in ib_write_bw ib_read_bw; do
	bg_run srv in_b timeout 120 $t -F -d sroce_b -x "$gb" -s 1048576 -n 8 -u 18
	wait_tcp_listen hb 18515
	assert_rc 0 "$t client" in_a timeout 120 $t -F -d sroce_a -x "$ga" \
		-s 1048576 -n 8 -u 18 192.0.2.2
	bg_wait srv 60
done

for d in sroce_a sroce_b; do
	log "$d: $(cd /sys/class/infiniband/$d/ports/1/hw_counters &&
		grep -v '^0$' -H -- * | tr '\n' ' ')"
done
for h in a b; do
	assert_eq "$(qdisc_drops $h)" "0" "packets netem dropped on v$h"
done
for d in sroce_a sroce_b; do
	for k in send_err retransmits duplicate_request rcvd_dropped; do
		assert_eq "$(c $d $k)" "0" "$d $k"
	done
done
# The WRITE stream waited at sroce_a, the READ responses at sroce_b.
for d in sroce_a sroce_b; do
	[ "$(c $d tx_wait)" -gt 0 ] || fail "$d never waited for its netdev"
	log "$d: tx_wait $(c $d tx_wait)"
done
pass
