#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iSCSI over RDMA (iSER) across the segment: a LIO target (configured
# through configfs, as targetcli does) exports a file-backed LUN on one VM
# with an iSER portal (ib_isert); the other discovers it over TCP and logs
# in with open-iscsi's iser transport (ib_iser), which must be the
# session's transport. 8 MiB of random data are written to the disk with
# O_DIRECT and read back; after the logout the target compares its file.
# Then the VMs swap roles.
. /tests/2host/th.lib

for m in target_core_mod target_core_file iscsi_target_mod ib_isert ib_iser sd_mod; do
	modprobe $m 2>/dev/null || skip "no $m module"
done
for b in iscsid iscsiadm; do
	command -v $b >/dev/null || skip "no $b in the image (selftests/ulp-tools.sh)"
done
grep -q " /sys/kernel/config " /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
cfg=/sys/kernel/config/target
iqn=iqn.2026-12.org.sroce:iser
tpg=$cfg/iscsi/$iqn/tpgt_1
bs=$cfg/core/fileio_0/disk0
img=$PWD/lun.img
mb=8

target_up() {
	local np=$tpg/np/$TH_ME4:3260
	dd if=/dev/zero of="$img" bs=1M count=$mb 2>/dev/null &&
	mkdir -p $bs &&
	echo "fd_dev_name=$img,fd_dev_size=$((mb << 20))" > $bs/control &&
	echo 1 > $bs/enable &&
	mkdir -p $tpg/lun/lun_0 &&
	ln -s $bs $tpg/lun/lun_0/disk0 &&
	mkdir $np &&
	echo 1 > $np/iser &&
	echo 0 > $tpg/attrib/authentication &&
	echo 1 > $tpg/attrib/generate_node_acls &&
	echo 1 > $tpg/attrib/cache_dynamic_acls &&
	echo 0 > $tpg/attrib/demo_mode_write_protect &&
	echo 1 > $tpg/enable
}

target_down() {
	local np=$tpg/np/$TH_ME4:3260
	[ ! -e $tpg/enable ] || echo 0 > $tpg/enable
	[ ! -e $np/iser ] || echo 0 > $np/iser
	rmdir $np 2>/dev/null || true
	rm -f $tpg/lun/lun_0/disk0
	rmdir $tpg/lun/lun_0 $tpg $cfg/iscsi/$iqn $bs $cfg/core/fileio_0 2>/dev/null || true
	rm -f "$img"
}

initiator_down() {
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" --logout >/dev/null 2>&1 || true
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" -o delete >/dev/null 2>&1 || true
}
at_exit initiator_down
at_exit target_down

echo "InitiatorName=iqn.2026-12.org.sroce:$TH_ROLE" > /etc/iscsi/initiatorname.iscsi
mkdir -p /run/lock/iscsi /var/lib/iscsi
bg_run iscsid iscsid -f

# lun_disk: the sdX of the session's LUN, once it shows
lun_disk() {
	local d
	for d in /sys/class/iscsi_session/session*/device/target*/*/block/sd*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# initiator_io: discover (TCP), log in over iSER, write 8 MiB, read them
# back; prints their md5sum
initiator_io() {
	local out disk
	out=$(iscsiadm -m discovery -t sendtargets -p "$TH_PEER4:3260" 2>&1) ||
		{ echo "discovery failed: $out"; return 1; }
	[[ $out == *"$iqn"* ]] || { echo "discovery did not find $iqn: $out"; return 1; }
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" -o update \
		-n iface.transport_name -v iser >/dev/null &&
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" --login >/dev/null ||
		{ echo "login over iSER failed"; return 1; }
	out=$(iscsiadm -m session 2>&1)
	[[ $out == iser:* ]] || { echo "the session is not on iSER: $out"; return 1; }
	wait_for 30 "the LUN's disk" lun_disk || return 1
	disk=/dev/$(lun_disk)
	[ -b "$disk" ] || mknod "$disk" b $(tr : ' ' < "/sys/block/${disk#/dev/}/dev")
	dd if=/dev/urandom of=data bs=1M count=$mb 2>/dev/null
	dd if=data of="$disk" bs=1M oflag=direct conv=fsync 2>/dev/null ||
		{ echo "write to $disk failed"; return 1; }
	dd if="$disk" of=back bs=1M iflag=direct 2>/dev/null ||
		{ echo "read from $disk failed"; return 1; }
	cmp -s data back || { echo "data read back differs"; return 1; }
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" --logout >/dev/null ||
		{ echo "logout failed"; return 1; }
	md5sum < data | cut -d' ' -f1
}

for srv in b a; do
	step=srv$srv rc=0
	th_sync "$step:start" >/dev/null || fail "the peer did not reach $step"
	th_mark "$step start"
	if [[ $TH_ROLE == "$srv" ]]; then
		target_up || { echo "$step: the target did not come up"; rc=1; }
		th_sync "$step:ready" "$rc" >/dev/null
		sum=$(th_sync "$step:io" - 300) || sum=none
		if [[ $sum =~ ^[0-9a-f]{32}$ ]]; then
			[[ $(md5sum < "$img" | cut -d' ' -f1) == "$sum" ]] ||
				{ echo "$step: the LUN's file differs from what the initiator wrote"; rc=1; }
		else
			echo "$step: the initiator failed: $sum"
			rc=1
		fi
		target_down
		log "$step: target ($TH_DRIVER) $rc, initiator ($TH_PEER_DRIVER) $sum"
	else
		if [[ $(th_sync "$step:ready") == 0 ]]; then
			out=$(initiator_io 2>&1) || rc=1
		else
			out="target not set up" rc=1
		fi
		initiator_down
		sum=$(tail -n 1 <<<"$out")
		((rc == 0)) || sum="failed: $(tr "\n" " " <<<"$out" | head -c 200)"
		th_sync "$step:io" "$sum" >/dev/null
		log "$step: initiator ($TH_DRIVER): $sum"
	fi
	prc=$(th_sync "$step:done" "$rc") || prc="no barrier"
	th_mark "$step done"
	[[ $rc == 0 && $prc == 0 ]] ||
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
done
th_done
