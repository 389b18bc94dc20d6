#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA across the segment: nvmet-rdma exports a file-backed
# namespace on one VM, nvme-rdma connects from the other (rdma_cm, then
# fast-registration MRs and SEND with invalidate), writes 1 MiB, reads it
# back, and the target compares its file; then the VMs swap roles.
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
	mkdir $cfg/ports/1 &&
	echo rdma > $cfg/ports/1/addr_trtype &&
	echo ipv4 > $cfg/ports/1/addr_adrfam &&
	echo "$TH_ME4" > $cfg/ports/1/addr_traddr &&
	echo 4420 > $cfg/ports/1/addr_trsvcid &&
	ln -s $cfg/subsystems/$nqn $cfg/ports/1/subsystems/$nqn
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

# host_io: connect, write 1 MiB of random data, read it back; prints the
# data's md5sum, fails on any error or difference
host_io() {
	local dev
	echo "transport=rdma,traddr=$TH_PEER4,trsvcid=4420,nqn=$nqn" > /dev/nvme-fabrics ||
		{ echo "connect failed"; return 1; }
	wait_for 30 "namespace block device" eval 'ls /sys/block | grep -q "^nvme[0-9]*n1$"' ||
		return 1
	dev=/dev/$(ls /sys/block | grep -m1 "^nvme[0-9]*n1$")
	[ -b "$dev" ] || mknod "$dev" b $(tr : ' ' < "/sys/block/${dev#/dev/}/dev")
	dd if=/dev/urandom of=data bs=4096 count=256 2>/dev/null
	dd if=data of="$dev" bs=4096 count=256 oflag=direct conv=fsync 2>/dev/null ||
		{ echo "write to $dev failed"; return 1; }
	dd if="$dev" of=back bs=4096 count=256 iflag=direct 2>/dev/null ||
		{ echo "read from $dev failed"; return 1; }
	cmp -s data back || { echo "data read back differs"; return 1; }
	host_disconnect
	md5sum < data | cut -d' ' -f1
}

for srv in b a; do
	step=srv$srv rc=0
	th_sync "$step:start" >/dev/null || fail "the peer did not reach $step"
	th_mark "$step start"
	if [[ $TH_ROLE == "$srv" ]]; then
		target_up || rc=1
		th_sync "$step:ready" "$rc" >/dev/null
		sum=$(th_sync "$step:io" - 200) || sum=none
		if [[ $sum == [0-9a-f]* ]] && ((${#sum} == 32)); then
			[[ $(head -c 1048576 "$img" | md5sum | cut -d' ' -f1) == "$sum" ]] ||
				{ echo "$step: the namespace file differs from what the host wrote"; rc=1; }
		else
			echo "$step: the host failed: $sum"
			rc=1
		fi
		target_down
		log "$step: target ($TH_DRIVER) $rc, host ($TH_PEER_DRIVER) $sum"
	else
		if [[ $(th_sync "$step:ready") == 0 ]]; then
			out=$(host_io 2>&1) || rc=1
		else
			out="target not set up" rc=1
		fi
		((rc == 0)) || host_disconnect
		sum=$(tail -n 1 <<<"$out")
		((rc == 0)) || sum="failed: $(tr "\n" " " <<<"$out" | head -c 150)"
		th_sync "$step:io" "$sum" >/dev/null
		log "$step: host ($TH_DRIVER): $sum"
	fi
	prc=$(th_sync "$step:done" "$rc") || prc="no barrier"
	th_mark "$step done"
	[[ $rc == 0 && $prc == 0 ]] ||
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
done
th_done
