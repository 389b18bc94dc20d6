#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12
# (not 7.2: there under TCG a failover met "Oops: int3" in bond_start_xmit,
# code patched live: Documentation/testing.md)
# A device on a bond: two hosts (namespaces) joined by two veth pairs,
# each host's ends enslaved to bond0, in active-backup and then 802.3ad
# mode. RC traffic by GID (rc_data integrity: SEND, WRITE, READ, atomics,
# every byte compared) runs while the link under way goes down: the bonds
# move to the other link and every QP carries on (retransmitting what the
# dead link lost); none ends in error. Then the bond's MAC changes and the
# device follows: traffic again.
. /tests/lib.sh

modprobe bonding 2>/dev/null || true
[[ -d /sys/module/bonding ]] || skip "no bonding module"

# bonds MODE: ha's a1, a2 and hb's b1, b2 (a1-b1, a2-b2 veth pairs) in bond0
bonds() {
	local ns h n
	for ns in ha hb; do
		_TOPO_NETNS+=("$ns")
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		_lib_ns_nodad "$ns"
	done
	ip link add a1 netns ha type veth peer name b1 netns hb
	ip link add a2 netns ha type veth peer name b2 netns hb
	for h in a:1 b:2; do
		ns=h${h%:*} n=${h#*:}
		if [[ $1 == 802.3ad ]]; then
			ip -n "$ns" link add bond0 type bond mode 802.3ad miimon 20 lacp_rate fast
		else
			ip -n "$ns" link add bond0 type bond mode "$1" miimon 20
		fi
		ip -n "$ns" link set "${h%:*}1" master bond0
		ip -n "$ns" link set "${h%:*}2" master bond0
		ip -n "$ns" addr add "192.0.2.$n/24" dev bond0
		ip -n "$ns" addr add "2001:db8::$n/64" dev bond0 nodad
		ip -n "$ns" link set bond0 up
	done
}

# pin NS ADDR... : the peer's bond0 MAC for ADDRs, permanent in NS. The
# core resolves a QP's peer MAC with a 1 s timeout when it connects: an
# ARP lost on the link being cut is outside sroce.
pin() {
	local ns=$1 peer mac a
	peer=$([[ $ns == ha ]] && echo hb || echo ha)
	mac=$(ip -n "$peer" -br link show dev bond0 | awk '{ print $3 }')
	shift
	for a in "$@"; do
		ip -n "$ns" neigh replace "$a" lladdr "$mac" dev bond0 nud permanent
	done
}

# busy_slave: the slave of ha's bond0 that sends the most now (the active
# one; in 802.3ad, the one the flows hash to)
busy_slave() {
	local s d best=none max=0
	local -A t0
	for s in a1 a2; do
		t0[$s]=$(ip netns exec ha cat "/sys/class/net/$s/statistics/tx_packets")
	done
	sleep 0.5
	for s in a1 a2; do
		d=$(($(ip netns exec ha cat "/sys/class/net/$s/statistics/tx_packets") - t0[$s]))
		((d <= max)) || { max=$d; best=$s; }
	done
	echo "$best"
}

c() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# sent N WHAT: until sroce_a has sent N more packets
sent() {
	local p0
	p0=$(c sroce_a sent_pkts)
	wait_for 60 "$2" eval "((\$(c sroce_a sent_pkts) > $p0 + $1))"
}

# traffic ADDR_A ADDR_B WHAT [CUT]: rc_data between the GIDs, the active
# link of ha cut under it when CUT is given
traffic() {
	local ga gb rc=0 s
	wait_for 10 "GIDs" eval "gid_index sroce_a $1 && gid_index sroce_b $2"
	ga=$(gid_index sroce_a "$1")
	gb=$(gid_index sroce_b "$2")
	# long enough to be cut under way
	# held until it has carried on over the other link after the cut
	[[ -z ${4:-} ]] || hold rc
	bg_run rc env RC_DATA_HOLD="$(hold_file rc)" timeout 240 \
		rc_data integrity sroce_a "$ga" sroce_b "$gb" 4 60
	if [[ -n ${4:-} ]]; then
		# Cut once the QPs are connected and busy
		sent 200 "$3: traffic"
		s=$(busy_slave)
		[[ $s == a[12] ]] || fail "$3: neither slave of ha's bond sends"
		log "$3: cutting $s under traffic"
		ip -n ha link set "$s" down
		bg_alive rc "$3: cut"
		sent 200 "$3: traffic after the cut"
		bg_alive rc "$3: after the cut"
		release rc
	fi
	bg_wait rc 240 || rc=$?
	[ $rc = 0 ] || {
		bg_log rc | grep -v "^ok "
		rdma statistic show link sroce_a/1; rdma statistic show link sroce_b/1
		fail "$3: rc_data exit $rc"
	}
}

for mode in active-backup 802.3ad; do
	log "$mode"
	bonds "$mode"
	wait_for 10 "bonds up" eval '[[ $(ip -n ha -o link show bond0) == *LOWER_UP* &&
		$(ip -n hb -o link show bond0) == *LOWER_UP* ]]'
	sroce_load
	link_add sroce_a bond0 ha
	link_add sroce_b bond0 hb
	wait_for 10 "ports active" eval 'port_state_is sroce_a ACTIVE && port_state_is sroce_b ACTIVE'
	pin ha 192.0.2.2 2001:db8::2
	pin hb 192.0.2.1 2001:db8::1
	r0=$(($(c sroce_a retransmits) + $(c sroce_b retransmits)))
	traffic 192.0.2.1 192.0.2.2 "$mode" cut
	r1=$(($(c sroce_a retransmits) + $(c sroce_b retransmits)))
	log "$mode: failover passed, $((r1 - r0)) retransmissions"
	for d in sroce_a sroce_b; do
		assert_eq "$(c $d retry_exceeded_err)" 0 "$mode: $d retry_exceeded_err"
	done

	# The bond's MAC changes: new QPs find it, the device sends from it
	ip -n hb link set bond0 address 02:00:00:00:0b:02
	ip -n ha neigh flush dev bond0 nud all
	ip -n hb neigh flush dev bond0 nud all
	traffic 2001:db8::1 2001:db8::2 "$mode, new MAC"
	link_del sroce_a
	link_del sroce_b
	topo_cleanup || fail "deleting the namespaces"
done
pass
