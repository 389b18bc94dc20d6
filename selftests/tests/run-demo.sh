#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make run": two hosts (network namespaces joined by a veth pair), an sroce
# device on each, what the distribution's RDMA tools see of them, and RC
# traffic between them.
. /tests/lib.sh

show() {
	echo
	echo "\$ $*"
	"$@"
}

rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)

show rdma link show
show ibv_devices
show ibv_devinfo -d sroce_a
show in_b ibv_devinfo -v -d sroce_b

echo
echo "\$ ibv_rc_pingpong -d sroce_b -g $gb -s 4096 -n 1000 -c        (host b, server)"
echo "\$ ibv_rc_pingpong -d sroce_a -g $ga -s 4096 -n 1000 -c 192.0.2.2  (host a)"
bg_run srv in_b ibv_rc_pingpong -d sroce_b -g "$gb" -s 4096 -n 1000 -c
wait_tcp_listen hb 18515
in_a ibv_rc_pingpong -d sroce_a -g "$ga" -s 4096 -n 1000 -c 192.0.2.2
bg_wait srv 60

echo
echo "\$ ib_write_bw -d sroce_a -x $ga -s 65536 -n 2000 192.0.2.2      (host a; server on b)"
bg_run srv in_b ib_write_bw -F -d sroce_b -x "$gb" -s 65536 -n 2000
wait_tcp_listen hb 18515
in_a ib_write_bw -F -d sroce_a -x "$ga" -s 65536 -n 2000 192.0.2.2
bg_wait srv 60
echo "(server side)"
bg_log srv | sed -n '/bytes/,$p'

echo
echo "\$ ib_send_lat -d sroce_a -x $ga -s 64 -n 1000 192.0.2.2         (host a; server on b)"
bg_run srv in_b ib_send_lat -F -d sroce_b -x "$gb" -s 64 -n 1000
wait_tcp_listen hb 18515
in_a ib_send_lat -F -d sroce_a -x "$ga" -s 64 -n 1000 192.0.2.2
bg_wait srv 60

show rdma statistic show link sroce_a/1
show rdma resource show
echo
echo "run-demo: done (TCG timings are slow and noisy)"
pass
