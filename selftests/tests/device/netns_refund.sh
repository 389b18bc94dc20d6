#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A NIC (virtio-net: no rtnl_link_ops) is not destroyed with its namespace
# but handed back to init_net, with a NETDEV_UNREGISTER on the way. A device
# on it, in that namespace, must be gone before the namespace's sockets
# close, even while a process still holds it open: no warning, no use
# after free, the NIC back in init_net.
. /tests/lib.sh

modprobe -a virtio_pci virtio_net 2>/dev/null || true	# may be built in
virtio_nic() {
	local d
	for d in /sys/class/net/*; do
		if [[ $(readlink "$d/device/driver" 2>/dev/null) == */virtio_net ]]; then
			nic=${d##*/}
			return 0
		fi
	done
	return 1
}
nic=""
wait_for 10 "the virtio-net NIC that vm.sh adds" virtio_nic

ip netns add rf
at_exit "\"\$IP\" netns del rf 2>/dev/null || true"
ip link set "$nic" netns rf
ip -n rf link set lo up
ip -n rf addr add 198.51.100.1/24 dev "$nic"
ip -n rf link set "$nic" up
link_add srf "$nic" rf
wait_for 10 "port active" port_state_is srf ACTIVE
wait_for 10 "IPv4 GID" gid_index srf 198.51.100.1
g=$(gid_index srf 198.51.100.1)

# Traffic through the namespace's sockets: the device sends to itself.
bg_run srv "$IP" netns exec rf ibv_rc_pingpong -d srf -g "$g" -s 4096 -n 50 -c
wait_tcp_listen rf 18515
assert_rc 0 "pingpong client" timeout 120 "$IP" netns exec rf \
	ibv_rc_pingpong -d srf -g "$g" -s 4096 -n 50 -c 198.51.100.1
bg_wait srv 30
sent=$(cat /sys/class/infiniband/srf/ports/1/hw_counters/sent_pkts)
(( sent > 0 )) || fail "no packet sent"

# A process in init_net keeps the device open (with QPs, CQs and mapped
# rings): the namespace's cleanup unregisters the device without waiting
# for the process (sroce disassociates it, see device/disassociate), and
# before it closes the namespace's sockets.
bg_run holder verbs_churn srf 20 hold
wait_for 60 "objects created" grep -q holding holder.log
ip netns del rf
wait_for 60 "device removed with the namespace while held" \
	test ! -e /sys/class/infiniband/srf
kill -0 "${_BG_PID[holder]}" || fail "the holder died: $(bg_log holder)"
bg_kill holder
wait_for 60 "the NIC back in init_net" test -e "/sys/class/net/$nic"
assert_rc 0 "rdma link" rdma link show
assert_nomatch "$OUT" "srf/" "no device left"

# The NIC takes a new device in init_net, and it works.
ip addr add 198.51.100.1/24 dev "$nic"
ip link set "$nic" up
link_add srf2 "$nic"
wait_for 10 "port active again" port_state_is srf2 ACTIVE
wait_for 10 "IPv4 GID again" gid_index srf2 198.51.100.1
g=$(gid_index srf2 198.51.100.1)
bg_run srv2 ibv_rc_pingpong -d srf2 -g "$g" -s 4096 -n 20 -c
wait_tcp_listen "" 18515
assert_rc 0 "pingpong client in init_net" timeout 120 \
	ibv_rc_pingpong -d srf2 -g "$g" -s 4096 -n 20 -c 198.51.100.1
bg_wait srv2 30
link_del srf2
ip addr flush dev "$nic"
ip link set "$nic" down
pass
