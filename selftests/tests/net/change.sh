#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# The netdev changes under RC traffic (rc_data integrity between two hosts,
# every byte compared):
#   - the link goes down and up again within the retry budget: every QP
#     carries on, no error;
#   - the MTU drops from 9000 to 1500 under QPs using 4096-byte packets:
#     those no longer pass, and the QPs end with a retry error (as the IBA
#     has it: a path MTU changes only by modify_qp), nothing else; new QPs
#     then work at the new MTU;
#   - the MTU rises from 1500 to 9000 under QPs using 1024-byte packets:
#     they carry on at their path MTU, the port's active MTU becomes 4096,
#     and new QPs work at it;
#   - the netdev is renamed: the device follows (rdma link names the new
#     netdev), traffic again;
#   - the netdev moves to another namespace: the device goes away.
. /tests/lib.sh

rdma_pair
# A QP's peer MAC is resolved with a 1 s timeout when it connects: an ARP
# lost to a link going down is outside sroce
pin_neighbours
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
c() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# run NAME: rc_data integrity in the background, output in NAME.log,
# going on while NAME is held (lib.sh's hold).
# ACK timeout 16 (a 2.1 s retry budget), as traffic.lib's: the 0.2 s the
# link is down lasts, with the commands around it, past rc_data's default
# budget of 8 x 67 ms under TCG beside other VMs (7.2: round 8's SEND
# ended with a retry error).
run() {
	bg_run "$1" env RC_DATA_TIMEOUT=16 RC_DATA_HOLD="$(hold_file "$1")" \
		timeout 240 rc_data integrity sroce_a "$ga" sroce_b "$gb" 4 60
}
# busy: until the QPs are connected and sending
busy() {
	local p0
	# shellcheck disable=SC2034  # p0 is read by the eval'd condition below
	p0=$(c sroce_a sent_pkts)
	wait_for 60 "traffic" eval '(($(c sroce_a sent_pkts) > p0 + 200))'
}

log "link down and up under traffic"
hold flap
run flap
busy
ip -n hb link set vb down
sleep 0.2
ip -n hb link set vb up
bg_alive flap "flap"
busy
release flap
rc=0
bg_wait flap 240 || rc=$?
[ $rc = 0 ] || { bg_log flap | grep -v "^ok "; fail "flap: rc_data exit $rc"; }
assert_eq "$(c sroce_a link_downed)" 1 "sroce_a saw its link go down"

log "MTU 9000 -> 1500 under traffic"
ip -n ha link set va mtu 9000
ip -n hb link set vb mtu 9000
wait_for 10 "active MTU 4096" eval \
	'ibv_devinfo -d sroce_a | grep -q "active_mtu:.*4096"'
hold mtu
run mtu
busy
ip -n ha link set va mtu 1500
ip -n hb link set vb mtu 1500
release mtu
rc=0
bg_wait mtu 240 || rc=$?
bad=$(bg_log mtu | grep "^not ok" | grep -vE "retry counter exceeded|flush" || true)
[ -z "$bad" ] || { echo "$bad"; fail "MTU: an error other than a retry error or a flush"; }
log "MTU: rc_data exit $rc"
run mtu2
bg_wait mtu2 240 || { bg_log mtu2 | grep -v "^ok "; fail "new QPs at MTU 1500"; }

log "MTU 1500 -> 9000 under traffic"
hold mtu3
run mtu3
busy
ip -n ha link set va mtu 9000
ip -n hb link set vb mtu 9000
wait_for 10 "active MTU 4096" eval \
	'ibv_devinfo -d sroce_a | grep -q "active_mtu:.*4096"'
bg_alive mtu3 "MTU rise"
busy
release mtu3
bg_wait mtu3 240 || { bg_log mtu3 | grep -v "^ok "; fail "QPs at 1024 across the MTU's rise"; }
run mtu4
bg_wait mtu4 240 || { bg_log mtu4 | grep -v "^ok "; fail "new QPs at MTU 9000"; }
ip -n ha link set va mtu 1500
ip -n hb link set vb mtu 1500

log "rename"
ip -n ha link set va down
ip -n ha link set va name va2
ip -n ha link set va2 up
wait_for 10 "sroce_a active again" port_state_is sroce_a ACTIVE
assert_match "$(in_a "$RDMA" link show sroce_a/1)" "netdev va2" "rdma link names the new netdev"
run renamed
bg_wait renamed 240 || { bg_log renamed | grep -v "^ok "; fail "traffic after the rename"; }
ip -n ha link set va2 down
ip -n ha link set va2 name va
ip -n ha link set va up

log "move to another namespace"
_TOPO_NETNS+=(hc)
ip netns add hc
ip -n ha link set va netns hc
wait_for 10 "sroce_a gone" eval '[[ ! -e /sys/class/infiniband/sroce_a ]]'
pass
