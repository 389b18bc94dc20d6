#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The port counters are registered: "rdma statistic" and sysfs show them,
# and a packet the device cannot use is counted as dropped.
. /tests/lib.sh

two_hosts
link_add sra va ha
link_add srb vb hb

assert_rc 0 "rdma statistic" rdma statistic show link srb/1
for c in sent_pkts rcvd_pkts duplicate_request out_of_seq_request \
	 rcvd_rnr_err send_rnr_err rcvd_seq_err ack_deferred \
	 retry_exceeded_err retry_rnr_exceeded_err completer_retry_err \
	 send_err link_downed rdma_sends rdma_recvs sent_bytes rcvd_bytes \
	 retransmits rcvd_dropped rcvd_icrc_err retrans_nak retrans_rnr ack_probes \
	 sent_nak_seq_err sent_nak_inv_req sent_nak_rem_access sent_nak_rem_op \
	 rcvd_nak_inv_req rcvd_nak_rem_access rcvd_nak_rem_op tx_wait tx_order_wait \
	 send_err_route send_err_qdisc send_err_ip send_err_other; do
	assert_match "$OUT" "(^|[[:space:]])$c [0-9]+" "counter $c in rdma statistic"
	[ -r /sys/class/infiniband/srb/ports/1/hw_counters/$c ] || fail "no sysfs counter $c"
done

dropped() { cat /sys/class/infiniband/srb/ports/1/hw_counters/rcvd_dropped; }
before=$(dropped)
# A datagram to the RoCEv2 port that is far too short for a BTH.
in_a bash -c 'echo x > /dev/udp/192.0.2.2/4791' || fail "send UDP datagram"
wait_for 10 "rcvd_dropped counts the datagram" test "$(dropped)" -gt "$before"

# A well-formed RC SEND_ONLY to QP 17 whose ICRC is wrong: dropped before
# any QP lookup, and counted as an ICRC error.
icrc() { cat /sys/class/infiniband/srb/ports/1/hw_counters/rcvd_icrc_err; }
assert_eq "$(icrc)" "0" "no ICRC error yet"
in_a bash -c "printf '\\x04\\x00\\xff\\xff\\x00\\x00\\x00\\x11\\x80\\x00\\x00\\x01\\xde\\xad\\xbe\\xef' > /dev/udp/192.0.2.2/4791" ||
	fail "send a packet with a bad ICRC"
wait_for 10 "rcvd_icrc_err counts it" test "$(icrc)" -eq 1
pass
