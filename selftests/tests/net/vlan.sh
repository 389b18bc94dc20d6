#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# VLANs both ways, as RoCE NICs do them, on two hosts (namespaces) joined
# by a veth, every RoCE frame on the wire counted by VLAN and 802.1p
# priority (vlan_cap, a packet socket on hb's port):
#
# 1. Devices on the ports, VLAN 100 above them (egress QoS map 0:0 .. 7:7):
#    ibv_rc_pingpong by the VLAN's IPv4 GID with SL 3, buffers checked;
#    ib_write_bw -R (rdma_cm) with ToS 16, which rdma_cm turns into SL 6
#    (priority 6 through the VLAN's map); rping (rdma_cm, data verified)
#    to the VLAN's IPv6 address. Every frame leaves tagged 100 (the CM's
#    MADs too), with PCP 3, 6 and 0 for the three.
# 2. Devices on VLAN 200 netdevs: the device has that VLAN's GIDs and no
#    other (not the port's, not VLAN 100's); pingpong and rping over it,
#    every frame tagged 200. A device on the port beneath is refused (it
#    would have the VLAN's GIDs too); one on VLAN 100 beside it is not.
#
# With DRIVER=rxe (net/vlan_rxe) the same with rdma_rxe, for the user
# guide's comparison: what it does differently is asserted as such.
. /tests/lib.sh
DRIVER=${DRIVER:-sroce}
if [[ $DRIVER == rxe ]]; then
	sroce_unload
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	at_exit "rmmod rdma_rxe"
	link_add() {
		SROCE_LINKS+=("$1")
		"$IP" netns exec "$3" "$RDMA" link add "$1" type rxe netdev "$2"
	}
	sroce_load() { :; }
fi

modprobe -a 8021q rdma_ucm 2>/dev/null || true
[[ -d /sys/module/8021q ]] || skip "no 8021q module"
two_hosts
for h in a:1 b:2; do
	ns=h${h%:*} d=v${h%:*} n=${h#*:}
	ip -n "$ns" link add link "$d" name "$d.100" type vlan id 100 \
		egress-qos-map 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7
	ip -n "$ns" link add link "$d" name "$d.200" type vlan id 200
	ip -n "$ns" addr add "198.18.100.$n/24" dev "$d.100"
	ip -n "$ns" addr add "fd00:100::$n/64" dev "$d.100" nodad
	ip -n "$ns" addr add "198.18.200.$n/24" dev "$d.200"
	ip -n "$ns" link set "$d.100" up
	ip -n "$ns" link set "$d.200" up
done
sroce_load

# cap_start / cap_stop: vlan_cap on vb, its counts in cap.log
cap_start() {
	rm -f cap.pid
	bg_run cap in_b bash -c 'echo $$ >cap.pid; exec vlan_cap vb 280'
	wait_for 10 "vlan_cap ready" grep -q ready "$PWD/cap.log"
}
cap_stop() {
	kill -TERM "$(<cap.pid)" || true
	bg_wait cap 20 || fail "vlan_cap: exit $?"
	cat cap.log
}
cap_count() {  # "untagged" or "vlan V pcp P": its count, 0 if none
	awk -v k="$1" '{ n = $NF; $NF = "" } $0 == k " " { print n; f = 1 }
		END { if (!f) print 0 }' cap.log
}
cap_total() {  # all RoCE frames counted
	awk '$1 != "ready" { s += $NF } END { print s + 0 }' cap.log
}

# pingpong DEV_A DEV_B ADDR_A ADDR_B [ARGS]: ibv_rc_pingpong by GID, checked
pingpong() {
	local ga gb rc=0 src=0 out
	ga=$(gid_index "$1" "$3") || fail "$1 has no GID for $3"
	gb=$(gid_index "$2" "$4") || fail "$2 has no GID for $4"
	bg_run srv in_b timeout 120 ibv_rc_pingpong -d "$2" -g "$gb" -n 100 -c "${@:5}"
	wait_tcp_listen hb 18515
	out=$(in_a timeout 120 ibv_rc_pingpong -d "$1" -g "$ga" -n 100 -c \
		"${@:5}" "$4" 2>&1) || rc=$?
	bg_wait srv 60 || src=$?
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ $rc = 0 ] && [ $src = 0 ] || { echo "$out"; bg_log srv; fail "pingpong $3 -> $4: $rc/$src"; }
	assert_match "$out" "100 iters in" "pingpong $3 -> $4 finished"
}

# rping_to DEV_B ADDR: rping with 20 pings verified (lib.sh)
rping_to() { rping_verified hb ha "$1" "$2" "VLAN"; }

log "1: devices on the ports, VLAN 100 above"
link_add sroce_a va ha
link_add sroce_b vb hb
wait_for 10 "ports active" eval 'port_state_is sroce_a ACTIVE && port_state_is sroce_b ACTIVE'
wait_for 10 "VLAN 100 GIDs" eval 'gid_index sroce_a 198.18.100.1 && gid_index sroce_b 198.18.100.2 &&
	gid_index sroce_a fd00:100::1 && gid_index sroce_b fd00:100::2'
cap_start
pingpong sroce_a sroce_b 198.18.100.1 198.18.100.2 -l 3
bg_run srv in_b timeout 120 ib_write_bw -R -T 16 -d sroce_b -s 65536 -n 50 -F
wait_cm_listen sroce_b
rc=0
out=$(in_a timeout 120 ib_write_bw -R -T 16 -d sroce_a -s 65536 -n 50 -F 198.18.100.2 2>&1) || rc=$?
src=0
bg_wait srv 60 || src=$?
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[ $rc = 0 ] && [ $src = 0 ] || { echo "$out"; bg_log srv; fail "ib_write_bw -R: $rc/$src"; }
rping_to sroce_b fd00:100::2
cap_stop
assert_eq "$(cap_count untagged)" 0 "untagged RoCE frames"
if [[ $DRIVER == rxe ]]; then
	# rdma_rxe leaves skb->priority 0: PCP 0 whatever the SL or ToS
	assert_eq "$(cap_count "vlan 100 pcp 0")" "$(cap_total)" "rdma_rxe: PCP 0"
	assert_fail_errno "Operation not permitted" "rdma_rxe on a VLAN netdev" \
		in_a "$RDMA" link add rxe_c type rxe netdev va.200
	pass
fi
(($(cap_count "vlan 100 pcp 3") >= 200)) || fail "SL 3: $(cap_count "vlan 100 pcp 3") frames with PCP 3"
(($(cap_count "vlan 100 pcp 6") >= 200)) || fail "ToS 16: $(cap_count "vlan 100 pcp 6") frames with PCP 6"
(($(cap_count "vlan 100 pcp 0") >= 40)) || fail "rping: $(cap_count "vlan 100 pcp 0") frames with PCP 0"
t=$(cap_total)
n=$(($(cap_count "vlan 100 pcp 0") + $(cap_count "vlan 100 pcp 3") + $(cap_count "vlan 100 pcp 6")))
assert_eq "$n" "$t" "every RoCE frame on VLAN 100 with PCP 0, 3 or 6"
link_del sroce_a
link_del sroce_b

log "2: devices on VLAN 200 netdevs"
link_add sroce_a va.200 ha
link_add sroce_b vb.200 hb
wait_for 10 "ports active" eval 'port_state_is sroce_a ACTIVE && port_state_is sroce_b ACTIVE'
wait_for 10 "VLAN 200 GIDs" eval 'gid_index sroce_a 198.18.200.1 && gid_index sroce_b 198.18.200.2'
for x in 192.0.2.1 2001:db8::1 198.18.100.1 fd00:100::1; do
	! gid_index sroce_a "$x" >/dev/null || fail "sroce_a on va.200 has a GID for $x"
done
assert_fail_errno "File exists" "a device on the port beneath" \
	in_a "$RDMA" link add sroce_c type sroce netdev va
# A device per VLAN of one port: each with its own VLAN's GIDs
link_add sroce_c va.100 ha
wait_for 10 "VLAN 100 GIDs of sroce_c" gid_index sroce_c 198.18.100.1
! gid_index sroce_c 198.18.200.1 >/dev/null || fail "sroce_c on va.100 has VLAN 200's GID"
! gid_index sroce_a 198.18.100.1 >/dev/null || fail "sroce_a on va.200 has VLAN 100's GID"
link_del sroce_c
cap_start
pingpong sroce_a sroce_b 198.18.200.1 198.18.200.2
rping_to sroce_b 198.18.200.2
cap_stop
(($(cap_count "vlan 200 pcp 0") >= 240)) || fail "$(cap_count "vlan 200 pcp 0") frames on VLAN 200"
assert_eq "$(cap_count "vlan 200 pcp 0")" "$(cap_total)" "every RoCE frame on VLAN 200"
pass
