#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Performance Management class on the GSI (mad.c). The RDMA core shows
# a port's counters in sysfs (ports/1/counters/) by sending PerfMgmt GETs
# through ->process_mad: after traffic they equal sroce's own hw_counters
# (packets; data in 4-byte words), the 64-bit ones since ClassPortInfo
# offers them. Idle, nothing moves between two reads. Then the same MADs
# from user space, over the wire and to the device's own port.
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

# The same GETs from user space through ib_umad, as perfquery sends them
# (progs/pma_get.c; perfquery also registers the SMI class, whose QP0 a
# RoCE port lacks, and fails: Documentation/interop.md): from sroce_a to
# sroce_b's PMA over the wire, and to its own. Each 64-bit counter the PMA
# answers lies between sroce's hw_counters of that port read before and
# after the query. Over IPv6 GIDs: the MAD layer matches a response to its
# request by comparing the request's source GID with the GRH the response
# came with, and a RoCEv2 packet over IPv4 has an IPv4 header there, so
# the answer to a GET sent from an IPv4 GID is never matched (the RDMA
# core's rcv_has_same_gid(); Documentation/interop.md).
modprobe ib_umad
ga6=$(gid_index sroce_a 2001:db8::1)
wait_for 10 "umad devices" eval 'ls /sys/class/infiniband_mad | grep -q umad'
# pma_query TO_DEV TO_GID: the query, its counters checked
pma_query() {
	local h=/sys/class/infiniband/$1/ports/1/hw_counters out rc=0 c hw div v
	local -A b=() a=()
	for c in sent_bytes rcvd_bytes sent_pkts rcvd_pkts; do b[$c]=$(cat "$h/$c"); done
	out=$(in_a pma_get sroce_a "$ga6" "$2" 2>&1) || rc=$?
	for c in sent_bytes rcvd_bytes sent_pkts rcvd_pkts; do a[$c]=$(cat "$h/$c"); done
	echo "$out"
	[ $rc = 0 ] || fail "pma_get to $1: $(grep -c '^not ok' <<<"$out") checks failed"
	for c in PortXmitData:sent_bytes:4 PortRcvData:rcvd_bytes:4 \
		PortXmitPkts:sent_pkts:1 PortRcvPkts:rcvd_pkts:1; do
		IFS=: read -r c hw div <<<"$c"
		v=$(sed -n "s/^$c=//p" <<<"$out")
		[[ -n $v ]] || fail "pma_get to $1: no $c"
		log "$1 $c $v: $hw $((b[$hw] / div)) .. $((a[$hw] / div))"
		((b[$hw] / div <= v && v <= a[$hw] / div)) ||
			fail "$1 $c $v is not between $hw / $div before and after"
	done
}
pma_query sroce_b 2001:db8::2
pma_query sroce_a 2001:db8::1
pass
