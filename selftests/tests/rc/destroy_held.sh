#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A QP whose packets a qdisc holds (tbf at 1 kbit/s on the sender's
# netdev: a 1 KiB packet every 8 s) is destroyed at once: the process that
# owns it is killed in the middle of an ibv_rc_pingpong stream and its QP
# is gone within 5 s, while the qdisc still holds its packets (a paused
# NIC holds packets the same way). Not netem: with a delay it orphans
# packets as they enter it. The packets are freed when the qdisc goes,
# and the kernel stays clean.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
bg_run srv in_b timeout 120 ibv_rc_pingpong -d sroce_b -g "$gb" -s 4096 -n 1000000
wait_tcp_listen hb 18515
bg_run cli in_a timeout 120 ibv_rc_pingpong -d sroce_a -g "$ga" -s 4096 -n 1000000 192.0.2.2
# shellcheck disable=SC2034  # s0 is read by the eval'd condition below
s0=$(cat /sys/class/infiniband/sroce_a/ports/1/hw_counters/sent_pkts)
wait_for 30 "the stream to flow" eval \
	'(($(cat /sys/class/infiniband/sroce_a/ports/1/hw_counters/sent_pkts) > s0 + 100))'
in_a tc qdisc add dev va root tbf rate 1kbit burst 1600 limit 1mb
at_exit "ip netns exec ha tc qdisc del dev va root 2>/dev/null || true"
# packets that the qdisc now holds
wait_for 10 "packets held in the qdisc" eval \
	'[[ $(in_a tc -s qdisc show dev va) =~ backlog\ [0-9]+b\ ([1-9][0-9]*)p ]]'
log "$(in_a tc -s qdisc show dev va | grep -m1 backlog)"
# The client ends (killed here, or on its own once its retries run out
# against the held packets); its QP must be gone within 5 s all the same.
t0=${EPOCHREALTIME/./}
bg_kill cli
wait_for 5 "sroce_a's QP destroyed while its packets are held" \
	eval '[ "$(user_objects sroce_a)" = 0 ]'
log "sroce_a's QP was gone after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
[[ $(in_a tc -s qdisc show dev va) =~ backlog\ [0-9]+b\ ([1-9][0-9]*)p ]] ||
	fail "the qdisc let go of the packets already: nothing was held"
log "still held: ${BASH_REMATCH[1]} packets"
in_a tc qdisc del dev va root
pass
