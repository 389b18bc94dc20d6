#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Two QPs on the same device talk to each other (the packets never leave
# the device): ibv_rc_pingpong with validation, and ib_write_bw/ib_read_bw.
. /tests/lib.sh

one_device
g=$G

bg_run srv ibv_rc_pingpong -d sroce0 -g "$g" -s 65536 -n 100 -c
wait_tcp_listen "" 18515
assert_rc 0 "pingpong client" timeout 120 ibv_rc_pingpong -d sroce0 -g "$g" -s 65536 -n 100 -c 192.0.2.1
bg_wait srv 30
for t in ib_write_bw ib_read_bw; do
	bg_run srv timeout 120 $t -F -d sroce0 -x "$g" -s 4096 -n 200
	wait_tcp_listen "" 18515
	assert_rc 0 "$t client" timeout 120 $t -F -d sroce0 -x "$g" -s 4096 -n 200 192.0.2.1
	bg_wait srv 30
done
c() { cat /sys/class/infiniband/sroce0/ports/1/hw_counters/"$1"; }
assert_eq "$(c sent_pkts)" "$(c rcvd_pkts)" "every packet looped back"
assert_eq "$(c retransmits)" "0" "no retransmission"
pass
