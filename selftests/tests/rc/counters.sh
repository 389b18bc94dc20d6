#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under full load on the lossless veth (ib_write_bw and ib_send_bw with
# 64 KiB messages): no request goes out twice, and the counters of the two
# sides agree packet for packet.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
c() { cat /sys/class/infiniband/$1/ports/1/hw_counters/$2; }

for t in ib_write_bw ib_send_bw; do
	bg_run srv in_b timeout 200 $t -F -d sroce_b -x "$gb" -s 65536 -n 1000
	wait_tcp_listen hb 18515
	assert_rc 0 "$t client" in_a timeout 200 $t -F -d sroce_a -x "$ga" -s 65536 -n 1000 192.0.2.2
	bg_wait srv 60
done

for d in sroce_a sroce_b; do
	for k in retransmits duplicate_request out_of_seq_request rcvd_seq_err \
		 completer_retry_err rcvd_dropped rcvd_icrc_err send_err; do
		assert_eq "$(c $d $k)" "0" "$d $k"
	done
done
assert_eq "$(c sroce_a sent_pkts)" "$(c sroce_b rcvd_pkts)" "a sent = b received"
assert_eq "$(c sroce_b sent_pkts)" "$(c sroce_a rcvd_pkts)" "b sent = a received"
assert_eq "$(c sroce_a sent_bytes)" "$(c sroce_b rcvd_bytes)" "bytes a -> b"
[ "$(c sroce_a sent_pkts)" -ge 128000 ] || fail "fewer packets than 2 x 1000 x 64 KiB needs: $(c sroce_a sent_pkts)"
[ "$(c sroce_a rdma_sends)" -ge 1000 ] || fail "rdma_sends $(c sroce_a rdma_sends)"
[ "$(c sroce_b rdma_recvs)" -ge 1000 ] || fail "rdma_recvs $(c sroce_b rdma_recvs)"
assert_rc 0 "rdma statistic" rdma statistic show link sroce_a/1
assert_match "$OUT" "sent_pkts [1-9]" "rdma statistic shows the traffic"
pass
