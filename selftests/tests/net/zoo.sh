#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# A device on each netdev a host puts RoCE on, between two hosts
# (namespaces) joined by a veth: a bridge with the port enslaved, macvlan,
# ipvlan L2 and L3, VXLAN and Geneve over the veth's addresses, and the bare
# port of an IPv6-only host (no IPv4 address anywhere). For each, over
# IPv4 and IPv6: RC traffic by GID (rc_data integrity: SEND, WRITE, READ,
# atomics, every byte compared) and rping (rdma_cm), data verified. A kind whose module this kernel lacks is skipped (named in the
# log). Last, GIDs follow addresses: one added and removed on a live
# device appears and goes, and ibv_asyncwatch sees IBV_EVENT_GID_CHANGE.
. /tests/lib.sh

modprobe rdma_ucm 2>/dev/null || true
two_hosts
sroce_load

# mk_dev KIND NS LOWER N: netdev x0 of KIND in NS above LOWER, host N's end
mk_dev() {
	local kind=$1 ns=$2 lower=$3 n=$4 peer=$((3 - $4))
	case $kind in
	bridge)
		ip -n "$ns" link add x0 type bridge &&
			ip -n "$ns" link set "$lower" master x0 ;;
	macvlan)
		# ARP answered only on the netdev with the address: else the
		# port beneath answers for the macvlan too (ARP flux), its MAC
		# may win, and the RoCE packets reach the port, which carries
		# no device. Any macvlan host needs it; ND never answers so.
		ip netns exec "$ns" sysctl -q -w "net.ipv4.conf.$lower.arp_ignore=1" &&
			ip -n "$ns" link add link "$lower" name x0 type macvlan mode bridge ;;
	ipvlan-l2) ip -n "$ns" link add link "$lower" name x0 type ipvlan mode l2 ;;
	ipvlan-l3)
		# As containers use it: the slave in a namespace of its own
		# (c$n), the host routing its address to the peer host's
		ip -n "$ns" link add link "$lower" name x0 type ipvlan mode l3 || return
		_TOPO_NETNS+=("c$n")
		ip netns add "c$n"
		ip -n "c$n" link set lo up
		_lib_ns_nodad "c$n"
		ip -n "$ns" link set x0 netns "c$n"
		ip -n "$ns" route add "198.18.7.$peer/32" via "192.0.2.$peer" dev "$lower"
		ip -n "$ns" route add "fd00:7::$peer/128" via "2001:db8::$peer" dev "$lower" ;;
	vxlan) ip -n "$ns" link add x0 type vxlan id 42 dstport 4789 \
		local "192.0.2.$n" remote "192.0.2.$peer" dev "$lower" ;;
	geneve) ip -n "$ns" link add x0 type geneve id 43 remote "192.0.2.$peer" ;;
	esac
}

rm_dev() {  # KIND NS LOWER
	if [[ $1 == ipvlan-l3 ]]; then
		ip netns delete "c$([[ $2 == ha ]] && echo 1 || echo 2)"
		ip -n "$2" route flush root 198.18.7.0/24
		ip -n "$2" -6 route flush root fd00:7::/64
		return
	fi
	ip -n "$2" link del x0
	ip netns exec "$2" sysctl -q -w "net.ipv4.conf.$3.arp_ignore=0"
	[[ $1 != bridge ]] || ip -n "$2" link set "$3" up
}

# check DEV_A DEV_B ADDR_A ADDR_B: RC traffic by GID and rping between them
check() {
	local ga gb rc=0 out
	wait_for 10 "GIDs of $3 and $4" eval "gid_index $1 $3 && gid_index $2 $4"
	ga=$(gid_index "$1" "$3")
	gb=$(gid_index "$2" "$4")
	out=$(timeout 120 rc_data integrity "$1" "$ga" "$2" "$gb" 2 40 2>&1) || rc=$?
	[ $rc = 0 ] || {
		grep -v "^ok " <<<"$out"
		rdma statistic show link "$1/1"; rdma statistic show link "$2/1"
		fail "$kind: rc_data $3 -> $4: exit $rc"
	}
	rping_verified "$NB" "$NA" "$2" "$4" "$kind"
}

ran=0
for kind in bridge macvlan ipvlan-l2 ipvlan-l3 vxlan geneve; do
	if ! mk_dev "$kind" ha va 1 2>/dev/null; then
		log "$kind: not in this kernel, skipped"
		continue
	fi
	mk_dev "$kind" hb vb 2 || fail "$kind: made in ha but not in hb"
	NA=ha NB=hb
	[[ $kind != ipvlan-l3 ]] || NA=c1 NB=c2
	for h in "$NA":1 "$NB":2; do
		ip -n "${h%:*}" addr add "198.18.7.${h#*:}/24" dev x0
		ip -n "${h%:*}" addr add "fd00:7::${h#*:}/64" dev x0 nodad
		ip -n "${h%:*}" link set x0 up
	done
	link_add sroce_a x0 "$NA"
	link_add sroce_b x0 "$NB"
	wait_for 10 "$kind: ports active" eval 'port_state_is sroce_a ACTIVE && port_state_is sroce_b ACTIVE'
	check sroce_a sroce_b 198.18.7.1 198.18.7.2
	check sroce_a sroce_b fd00:7::1 fd00:7::2
	log "$kind: verbs and rping over IPv4 and IPv6 passed"
	link_del sroce_a
	link_del sroce_b
	rm_dev "$kind" ha va
	rm_dev "$kind" hb vb
	ran=$((ran + 1))
done
((ran >= 1)) || fail "no kind of netdev could be made"

log "IPv6-only hosts"
for h in a b; do
	ip -n "h$h" -4 addr flush dev "v$h"
	ip -n "h$h" -4 addr flush dev lo
	[[ -z $(ip -n "h$h" -4 -o addr show) ]] || fail "h$h still has IPv4 addresses"
done
link_add sroce_a va ha
link_add sroce_b vb hb
wait_for 10 "ports active" eval 'port_state_is sroce_a ACTIVE && port_state_is sroce_b ACTIVE'
NA=ha NB=hb kind=ipv6-only check sroce_a sroce_b 2001:db8::1 2001:db8::2

log "GIDs follow addresses"
bg_run watch in_a ibv_asyncwatch -d sroce_a
wait_for 10 "asyncwatch running" grep -q "async event FD" "$PWD/watch.log"
ip -n ha addr add 2001:db8:5::1/64 dev va nodad
wait_for 10 "the new address's GID" gid_index sroce_a 2001:db8:5::1
ip -n ha addr del 2001:db8:5::1/64 dev va
wait_for 10 "the GID gone" eval '! gid_index sroce_a 2001:db8:5::1'
wait_for 10 "two GID_CHANGE events" eval \
	'test "$(grep -c IBV_EVENT_GID_CHANGE "$PWD/watch.log")" -ge 2'
bg_kill watch
pass
