#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA across the segment: nvmet-rdma exports a file-backed
# namespace on one VM, nvme-rdma connects from the other (rdma_cm, then
# fast-registration MRs and SEND with invalidate), writes 1 MiB and reads it
# back. Then the target goes away (its port removed: the queues are torn
# down and the host's reconnect attempts are refused) and comes back; the
# host must reconnect by itself, read the first 1 MiB back, and write
# another, which the target finds in its file. Then the VMs swap roles.
. /tests/2host/th.lib

for m in nvmet nvmet-rdma nvme-rdma; do
	modprobe $m 2>/dev/null || skip "no $m module"
done
grep -q " /sys/kernel/config " /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
cfg=/sys/kernel/config/nvmet
nqn=sroce-2host
img=$PWD/ns.img

target_up() {
	dd if=/dev/zero of="$img" bs=1M count=8 2>/dev/null &&
	mkdir $cfg/subsystems/$nqn &&
	echo 1 > $cfg/subsystems/$nqn/attr_allow_any_host &&
	mkdir $cfg/subsystems/$nqn/namespaces/1 &&
	echo -n "$img" > $cfg/subsystems/$nqn/namespaces/1/device_path &&
	echo 1 > $cfg/subsystems/$nqn/namespaces/1/buffered_io &&
	echo 1 > $cfg/subsystems/$nqn/namespaces/1/enable &&
	port_up
}

# port_up, port_down: the target's RDMA port (its rdma_cm listener) comes
# and goes; the subsystem and its namespace stay
port_up() {
	mkdir $cfg/ports/1 &&
	echo rdma > $cfg/ports/1/addr_trtype &&
	echo ipv4 > $cfg/ports/1/addr_adrfam &&
	echo "$TH_ME4" > $cfg/ports/1/addr_traddr &&
	echo 4420 > $cfg/ports/1/addr_trsvcid &&
	ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
}

port_down() {
	rm -f $cfg/ports/1/subsystems/$nqn && rmdir $cfg/ports/1
}

target_down() {
	rm -f $cfg/ports/1/subsystems/$nqn
	rmdir $cfg/ports/1 2>/dev/null
	[ -e $cfg/subsystems/$nqn/namespaces/1/enable ] &&
		echo 0 > $cfg/subsystems/$nqn/namespaces/1/enable
	rmdir $cfg/subsystems/$nqn/namespaces/1 $cfg/subsystems/$nqn 2>/dev/null
	rm -f "$img"
	true
}

host_disconnect() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/delete_controller" ] && echo 1 > "$c/delete_controller"
	done
	true
}
at_exit host_disconnect
at_exit target_down

# ctrl_state: the state of the (one) controller: live, connecting...
ctrl_state() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/state" ] && { cat "$c/state"; return; }
	done
	echo none
}
state_is() { [[ $(ctrl_state) == "$1" ]]; }
state_not() { [[ $(ctrl_state) != "$1" ]]; }

# io DIRECTION FILE: 1 MiB between FILE and the namespace, direct I/O
io() {
	local dev
	# shellcheck disable=SC2010  # sysfs block device names have no special characters
	dev=/dev/$(ls /sys/block | grep -m1 "^nvme[0-9]*n1$")
	# shellcheck disable=SC2046  # major and minor as two arguments
	[ -b "$dev" ] || mknod "$dev" b $(tr : ' ' < "/sys/block/${dev#/dev/}/dev")
	if [ "$1" = write ]; then
		dd if="$2" of="$dev" bs=4096 count=256 oflag=direct conv=fsync 2>/dev/null
	else
		dd if="$dev" of="$2" bs=4096 count=256 iflag=direct 2>/dev/null
	fi || { echo "$1 on $dev failed"; return 1; }
}

# host_io: connect (reconnecting every second for two minutes once lost),
# write 1 MiB of random data and read it back; fails on any error or
# difference
host_io() {
	echo "transport=rdma,traddr=$TH_PEER4,trsvcid=4420,nqn=$nqn,reconnect_delay=1,ctrl_loss_tmo=120" \
		> /dev/nvme-fabrics || { echo "connect failed"; return 1; }
	wait_for 30 "namespace block device" eval 'ls /sys/block | grep -q "^nvme[0-9]*n1$"' ||
		return 1
	dd if=/dev/urandom of=data bs=4096 count=256 2>/dev/null
	io write data && io read back || return 1
	cmp -s data back || { echo "data read back differs"; return 1; }
	echo ok
}

# host_again: after the target came back, the controller is live again
# without help; the first data reads back, new data is written; prints its
# md5sum
host_again() {
	wait_for 90 "the controller to reconnect" state_is live || return 1
	io read back2 || return 1
	cmp -s data back2 || { echo "data read back after the reconnect differs"; return 1; }
	dd if=/dev/urandom of=data2 bs=4096 count=256 2>/dev/null
	io write data2 || return 1
	host_disconnect
	md5sum < data2 | cut -d' ' -f1
}

# target_step STEP: export, wait for the host's first I/O, go away, come
# back, check the host's second write in the file; returns 1 on a failure
target_step() {
	local step=$1 rc=0 r sum
	target_up || rc=1
	th_sync "$step:ready" "$rc" >/dev/null
	r=$(th_sync "$step:io" - 200)
	[ "$r" = ok ] || { echo "$step: the host failed before the loss: $r"; rc=1; }
	port_down || { echo "$step: removing the port failed"; rc=1; }
	th_sync "$step:down" "$rc" >/dev/null
	r=$(th_sync "$step:lost" - 200)
	[ "$r" = ok ] || { echo "$step: the host did not see the target go: $r"; rc=1; }
	port_up || { echo "$step: the port did not come back"; rc=1; }
	th_sync "$step:up" "$rc" >/dev/null
	sum=$(th_sync "$step:again" - 200) || sum=none
	if [[ $sum == [0-9a-f]* ]] && ((${#sum} == 32)); then
		[[ $(head -c 1048576 "$img" | md5sum | cut -d' ' -f1) == "$sum" ]] ||
			{ echo "$step: the namespace file differs from what the host wrote"; rc=1; }
	else
		echo "$step: the host failed after the loss: $sum"
		rc=1
	fi
	target_down
	log "$step: target ($TH_DRIVER) $rc, host ($TH_PEER_DRIVER) $sum"
	return $rc
}

# host_step STEP: the other side of target_step; every barrier is met,
# failed or not, so that the target never waits in vain
host_step() {
	local step=$1 rc=0 out sum
	if [[ $(th_sync "$step:ready") == 0 ]]; then
		out=$(host_io 2>&1) || rc=1
	else
		out="target not set up" rc=1
	fi
	out=$(tail -n 1 <<<"$out")
	th_sync "$step:io" "$out" >/dev/null
	[[ $(th_sync "$step:down") == 0 ]] || { out="the target could not go"; rc=1; }
	if ((rc == 0)); then
		wait_for 60 "the controller to see the target go" state_not live ||
			{ out="the controller stayed live: $(ctrl_state)"; rc=1; }
	fi
	((rc == 0)) && out=ok
	log "$step: host ($TH_DRIVER) after the loss: $(ctrl_state)"
	th_sync "$step:lost" "$out" >/dev/null
	[[ $(th_sync "$step:up") == 0 ]] || rc=1
	if ((rc == 0)); then
		out=$(host_again 2>&1) || rc=1
		sum=$(tail -n 1 <<<"$out")
	fi
	((rc == 0)) || { host_disconnect; sum="failed: $(tr "\n" " " <<<"$out" | cut -c 1-150)"; }
	th_sync "$step:again" "$sum" >/dev/null
	log "$step: host ($TH_DRIVER): $sum"
	return $rc
}

for srv in b a; do
	step=srv$srv rc=0
	th_sync "$step:start" >/dev/null || fail "the peer did not reach $step"
	th_mark "$step start"
	if [[ $TH_ROLE == "$srv" ]]; then
		target_step $step || rc=1
	else
		host_step $step || rc=1
	fi
	prc=$(th_sync "$step:done" "$rc") || prc="no barrier"
	th_mark "$step done"
	[[ $rc == 0 && $prc == 0 ]] ||
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
done
th_done
