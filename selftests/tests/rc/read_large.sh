#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Large RDMA READs between two hosts: the responder sends its responses a
# budget at a time, and the requester takes them all: nothing is dropped,
# nothing is asked twice, the data arrives whole.
. /tests/lib.sh

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
c() { cat /sys/class/infiniband/"$1"/ports/1/hw_counters/"$2"; }

# 16 MiB READs, 16 of them outstanding at once (perftest's default depth
# is bounded by max_rd_atomic): 16 Ki response packets per READ at MTU 1024.
bg_run srv in_b timeout 200 ib_read_bw -F -d sroce_b -x "$gb" -s 16777216 -n 20
wait_tcp_listen hb 18515
assert_rc 0 "ib_read_bw client" in_a timeout 200 ib_read_bw -F -d sroce_a -x "$ga" \
	-s 16777216 -n 20 192.0.2.2
bg_wait srv 60

for d in sroce_a sroce_b; do
	for k in rcvd_dropped retransmits duplicate_request out_of_seq_request \
		 rcvd_seq_err send_err; do
		assert_eq "$(c $d $k)" "0" "$d $k"
	done
done
[ "$(c sroce_b sent_pkts)" -ge $((20 * 16384)) ] ||
	fail "fewer response packets than 20 x 16 MiB needs: $(c sroce_b sent_pkts)"
pass
