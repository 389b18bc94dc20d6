#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# XDP programs on the port (xdp_attach), under RC traffic by IPv4 and IPv6
# GID (rc_data integrity, every byte compared):
#   - one that passes every frame, on both ends, native (a veth then
#     receives through its NAPI ring, and refuses frames while it is full:
#     sent again) and generic: traffic passes, no packet dropped, lost to
#     an error or with a bad ICRC;
#   - one that drops RoCEv2 (IPv4 UDP to port 4791) on the receiver for a
#     moment: the requesters retransmit, every QP carries on.
. /tests/lib.sh
. /tests/net/traffic.lib

rdma_pair
pin_neighbours

# xdp NAME NS DEV MODE PROG: xdp_attach in the background, until it attached;
# its own PID in NAME.pid (bg_run's is the subshell's)
xdp() {
	bg_run "$1" bash -c "echo \$\$ >$PWD/$1.pid; exec ip netns exec $2 xdp_attach $3 $4 $5"
	wait_for 10 "XDP on $3" eval "grep -q attached $PWD/$1.log || ! kill -0 ${_BG_PID[$1]} 2>/dev/null"
	grep -q attached "$PWD/$1.log" && return 0
	bg_log "$1"
	if bg_log "$1" | grep -qE "BPF_PROG_LOAD: (Function not implemented|Operation not permitted)"; then
		skip "no BPF in this kernel"
	fi
	fail "xdp_attach $3 $4 $5"
}
unxdp() { bg_kill "$1"; }


for mode in drv skb; do
	log "$mode: a program that passes all, on both ends"
	xdp xa ha va "$mode" pass
	xdp xb hb vb "$mode" pass
	assert_match "$(ip -n hb link show dev vb)" "prog/xdp" "vb shows its program"
	e0=$(lost)
	q0=$(cnt sroce_a send_err_qdisc)
	for fam in 4 6; do
		traffic t "$fam"
		traffic_ok t "XDP $mode pass, IPv$fam"
	done
	lost_none "XDP $mode" "$e0"
	# a veth with XDP refuses frames while its ring is full: sent again
	log "XDP $mode: send_err_qdisc +$(($(cnt sroce_a send_err_qdisc) - q0))"
	unxdp xa
	unxdp xb
done

log "drv: RoCEv2 dropped on the receiver for 0.3 s"
# The program attached before the traffic, its drop switched on and off
# through a map: attaching one under traffic would patch kernel text then
# (the XDP dispatcher), which 7.2 under TCG has met with an int3 oops
# (Documentation/testing.md)
xdp xd hb vb drv switch
# switch on|off: the drop, until the program's map holds it
switch() {
	kill "-$([[ $1 == on ]] && echo USR1 || echo USR2)" "$(cat xd.pid)"
	wait_for 10 "drop $1" grep -q "drop $1" "$PWD/xd.log"
}
brief_drop 4 completer_retry_err "XDP drop" "switch on" "switch off"
unxdp xd
pass
