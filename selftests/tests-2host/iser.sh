#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# iSCSI over RDMA (iSER) across the segment: a LIO target, configured with
# Debian's targetcli (targetcli-fb, unmodified, from selftests/ulp-tools.sh),
# exports a file-backed LUN on one VM with an iSER portal (ib_isert,
# targetcli's enable_iser); the other discovers it over TCP and logs
# in with open-iscsi's iser transport (ib_iser), which must be the
# session's transport. 8 MiB of random data are written to the disk with
# O_DIRECT and read back; after the logout the target compares its file.
# Then the VMs swap roles.
. /tests/2host/th.lib

for m in target_core_mod target_core_file iscsi_target_mod ib_isert ib_iser sd_mod; do
	modprobe $m 2>/dev/null || skip "no $m module"
done
for b in iscsid iscsiadm targetcli dbus-daemon; do
	command -v $b >/dev/null || skip "no $b in the image (selftests/ulp-tools.sh)"
done
grep -q " /sys/kernel/config " /proc/mounts ||
	mount -t configfs configfs /sys/kernel/config || fail "mount configfs"
# targetcli's preferences and history; it saves no configuration
# (auto_save_on_exit=false, target_up)
export TARGETCLI_HOME=$PWD/targetcli
cfg=/sys/kernel/config/target
iqn=iqn.2026-12.org.sroce:iser
tpg=$cfg/iscsi/$iqn/tpgt_1
img=$PWD/lun.img
mb=8

# tcli ARGS...: one targetcli command; its output is printed when it fails
tcli() {
	local out
	out=$(targetcli "$@" 2>&1) ||
		{ echo "targetcli $* failed: $out"; return 1; }
}

# target_up: the target, set up with targetcli only; then checked in
# configfs (read only) to be what was asked for
target_up() {
	local t=/iscsi/$iqn/tpg1 a v
	rm -f "$img"
	tcli set global auto_save_on_exit=false auto_add_default_portal=false \
		auto_add_mapped_luns=false &&
	tcli /backstores/fileio create name=disk0 file_or_dev="$img" \
		size=${mb}M write_back=false &&
	tcli /iscsi create $iqn &&
	tcli $t/luns create /backstores/fileio/disk0 &&
	tcli $t/portals create "$TH_ME4" 3260 &&
	tcli $t/portals/"$TH_ME4":3260 enable_iser boolean=true &&
	tcli $t set attribute authentication=0 generate_node_acls=1 \
		cache_dynamic_acls=1 demo_mode_write_protect=0 &&
	tcli $t enable || return 1
	for a in enable np/$TH_ME4:3260/iser attrib/generate_node_acls \
		attrib/cache_dynamic_acls; do
		v=$(cat "$tpg/$a" 2>&1)
		[[ $v == 1 ]] || { echo "$tpg/$a is $v after targetcli, not 1"; return 1; }
	done
	for a in attrib/authentication attrib/demo_mode_write_protect; do
		v=$(cat $tpg/$a 2>&1)
		[[ $v == 0 ]] || { echo "$tpg/$a is $v after targetcli, not 0"; return 1; }
	done
	[ -e $tpg/lun/lun_0 ] || { echo "targetcli made no lun_0"; return 1; }
	v=$(stat -c %s "$img" 2>&1)
	[[ $v == $((mb << 20)) ]] || { echo "targetcli made $img of $v bytes, not $mb MiB"; return 1; }
}

# target_down: targetcli removes everything it made; it must leave no
# target behind (a leftover would break the next step)
target_down() {
	local rc=0
	tcli clearconfig confirm=True || rc=1
	[ ! -e $cfg/iscsi/$iqn ] || { echo "$iqn is still there after clearconfig"; rc=1; }
	rm -f "$img"
	return $rc
}

initiator_down() {
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" --logout >/dev/null 2>&1 || true
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" -o delete >/dev/null 2>&1 || true
}
# the system bus, which targetcli connects to when it starts; not a bg_run
# job: those are killed before the at_exit commands run, and target_down's
# targetcli needs the bus
mkdir -p /run/dbus
rm -f /run/dbus/system_bus_socket
dbus_pid=$(dbus-daemon --system --fork --nopidfile --print-pid) ||
	fail "dbus-daemon --system did not start"
[[ $dbus_pid =~ ^[0-9]+$ ]] || fail "dbus-daemon printed no pid: $dbus_pid"
dbus_down() {
	local _
	kill "$dbus_pid" 2>/dev/null || return 0
	for _ in {1..50}; do
		kill -0 "$dbus_pid" 2>/dev/null || break
		sleep 0.1
	done
	rm -f /run/dbus/system_bus_socket
}
at_exit dbus_down
wait_for 30 "the system bus" test -S /run/dbus/system_bus_socket

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
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" -o update \
		-n iface.transport_name -v iser >/dev/null &&
	iscsiadm -m node -T $iqn -p "$TH_PEER4:3260" --login >/dev/null ||
		{ echo "login over iSER failed"; return 1; }
	out=$(iscsiadm -m session 2>&1)
	[[ $out == iser:* ]] || { echo "the session is not on iSER: $out"; return 1; }
	wait_for 30 "the LUN's disk" lun_disk || return 1
	disk=/dev/$(lun_disk)
	# shellcheck disable=SC2046  # major and minor as two arguments
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
		t0=$SECONDS
		if target_up; then
			log "$step: targetcli set the target up in $((SECONDS - t0)) s"
		else
			echo "$step: the target did not come up"
			rc=1
		fi
		th_sync "$step:ready" "$rc" >/dev/null
		sum=$(th_sync "$step:io" - 300) || sum=none
		if [[ $sum =~ ^[0-9a-f]{32}$ ]]; then
			[[ $(md5sum < "$img" | cut -d' ' -f1) == "$sum" ]] ||
				{ echo "$step: the LUN's file differs from what the initiator wrote"; rc=1; }
		else
			echo "$step: the initiator failed: $sum"
			rc=1
		fi
		target_down || rc=1
		log "$step: target ($TH_DRIVER) $rc, initiator ($TH_PEER_DRIVER) $sum"
	else
		if [[ $(th_sync "$step:ready") == 0 ]]; then
			out=$(initiator_io 2>&1) || rc=1
		else
			out="target not set up" rc=1
		fi
		initiator_down
		sum=$(tail -n 1 <<<"$out")
		((rc == 0)) || sum="failed: $(tr "\n" " " <<<"$out" | cut -c 1-200)"
		th_sync "$step:io" "$sum" >/dev/null
		log "$step: initiator ($TH_DRIVER): $sum"
	fi
	prc=$(th_sync "$step:done" "$rc") || prc="no barrier"
	th_mark "$step done"
	[[ $rc == 0 && $prc == 0 ]] ||
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
done
th_done
