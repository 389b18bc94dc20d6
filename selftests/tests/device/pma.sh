#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Performance Management class on the GSI (mad.c). The RDMA core shows
# a port's counters in sysfs (ports/1/counters/) by sending PerfMgmt GETs
# through ->process_mad: after traffic they equal sroce's own hw_counters
# (packets; data in 4-byte words), the 64-bit ones since ClassPortInfo
# offers them. Idle, nothing moves between two reads.
. /tests/lib.sh

rdma_pair
P=/sys/class/infiniband/sroce_a/ports/1
for c in port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets link_downed; do
	[ -r "$P/counters/$c" ] || fail "no counter $c in ports/1/counters"
done

ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
bg_run srv in_b ibv_rc_pingpong -d sroce_b -g "$gb" -s 4096 -n 100 -c
wait_tcp_listen hb 18515
in_a timeout 120 ibv_rc_pingpong -d sroce_a -g "$ga" -s 4096 -n 100 -c 192.0.2.2 >/dev/null ||
	fail "ibv_rc_pingpong"
bg_wait srv 60 || fail "ibv_rc_pingpong server"

# pma PMA_NAME HW_NAME DIVISOR: the two reads agree (taken with the port idle)
pma() {
	local p h
	p=$(cat "$P/counters/$1")
	h=$(cat "$P/hw_counters/$2")
	log "$1 $p, $2 $h"
	[ "$h" -gt 0 ] || fail "$2 is 0 after traffic"
	assert_eq "$p" "$((h / $3))" "$1 is $2 / $3"
}
pma port_xmit_packets sent_pkts 1
pma port_rcv_packets rcvd_pkts 1
pma port_xmit_data sent_bytes 4
pma port_rcv_data rcvd_bytes 4
assert_eq "$(cat "$P/counters/link_downed")" "$(cat "$P/hw_counters/link_downed")" "link_downed"

# perfquery: the same GETs from user space, through umad and QP1
modprobe ib_umad
rc=0
out=$(timeout 30 perfquery -C sroce_a -P 1 -x 2>&1) || rc=$?
log "perfquery -x: rc=$rc"
echo "$out"
rc=0
out=$(timeout 30 perfquery -C sroce_a -P 1 -d 2>&1) || rc=$?
log "perfquery -d: rc=$rc"
echo "$out"
pass
