#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA across the segment: nfsd on one VM with an RDMA listener on
# port 20049 (svcrdma), exporting a tmpfs; the other mounts it with
# "-o rdma,port=20049" (xprtrdma), NFSv3 and then NFSv4.2. Each mount must
# use the RDMA transport; a file is written, read back after a remount
# (from the server, not the page cache) and compared; 32 MiB go each way
# with O_DIRECT; the server compares what it got. Then the VMs swap roles.
. /tests/2host/th.lib

for m in nfsd nfs nfsv3 nfsv4 rpcrdma; do
	modprobe $m 2>/dev/null || skip "no $m module"
done
for b in rpcbind rpc.nfsd rpc.mountd exportfs mount.nfs; do
	command -v $b >/dev/null || skip "no $b in the image (selftests/ulp-tools.sh)"
done
exp=/srv/nfs
mnt=/mnt/nfs
mkdir -p $exp $mnt /var/lib/nfs/v4recovery /run/rpcbind

# The server: rpcbind and mountd (NFSv3's MOUNT protocol, and the export
# cache for both versions) in the foreground under the harness, nfsd with
# its TCP listener and an RDMA one.
server_up() {
	mount -t tmpfs -o size=160m tmpfs $exp &&
	{ grep -q " /proc/fs/nfsd " /proc/mounts || mount -t nfsd nfsd /proc/fs/nfsd; } &&
	echo "$exp *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)" > /etc/exports &&
	bg_run rpcbind rpcbind -f &&
	wait_tcp_listen "" 111 &&
	exportfs -ra &&
	bg_run mountd rpc.mountd -F &&
	# a fresh server's NFSv4 grace period holds every OPEN for 90 s
	echo 10 > /proc/fs/nfsd/nfsv4leasetime &&
	echo 10 > /proc/fs/nfsd/nfsv4gracetime &&
	rpc.nfsd 4 &&
	echo "rdma 20049" > /proc/fs/nfsd/portlist &&
	grep -qx "rdma 20049" /proc/fs/nfsd/portlist
}

server_down() {
	rpc.nfsd 0 2>/dev/null || true
	exportfs -ua 2>/dev/null || true
	bg_kill mountd
	bg_kill rpcbind
	umount $exp 2>/dev/null || true
}

client_umount() {
	! grep -q " $mnt " /proc/mounts || umount $mnt || true
}
at_exit client_umount
at_exit server_down

# nfs_mount VERS: mount the peer's export over RDMA, and check it is
nfs_mount() {
	local o=rdma,port=20049,vers=$1
	[ "$1" = 3 ] && o+=,nolock	# no NLM: no rpc.statd in the image
	mount.nfs "$TH_PEER4:$exp" "$mnt" -n -o "$o" || { echo "mount vers=$1 failed"; return 1; }
	grep " $mnt " /proc/mounts | grep -q "proto=rdma" ||
		{ echo "vers=$1 is not on RDMA: $(grep " $mnt " /proc/mounts)"; return 1; }
}

# client_io VERS: one file written, remounted, read back; 32 MiB written
# and read back with O_DIRECT; prints both files' md5sums for the server
client_io() {
	local v=$1
	nfs_mount "$v" || return 1
	dd if=/dev/urandom of=small bs=4096 count=64 2>/dev/null
	dd if=/dev/urandom of=big bs=1M count=32 2>/dev/null
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	cp small "$mnt/small-$v" && sync || { echo "vers=$v: writing a file failed"; return 1; }
	dd if=big of="$mnt/big-$v" bs=1M oflag=direct 2>/dev/null ||
		{ echo "vers=$v: the 32 MiB write failed"; return 1; }
	umount $mnt && nfs_mount "$v" || return 1
	cmp -s small "$mnt/small-$v" || { echo "vers=$v: the file read back differs"; return 1; }
	dd if="$mnt/big-$v" of=back bs=1M iflag=direct 2>/dev/null ||
		{ echo "vers=$v: the 32 MiB read failed"; return 1; }
	cmp -s big back || { echo "vers=$v: the 32 MiB read back differ"; return 1; }
	umount $mnt || { echo "vers=$v: umount failed"; return 1; }
	echo "$(md5sum < small | cut -d' ' -f1)$(md5sum < big | cut -d' ' -f1)"
	rm -f small big back
}

# server_check VERS SUMS: the files the client wrote, as it wrote them
server_check() {
	local got
	got="$(md5sum < "$exp/small-$1" | cut -d' ' -f1)$(md5sum < "$exp/big-$1" | cut -d' ' -f1)"
	[[ $got == "$2" ]] || { echo "vers=$1: the server's files differ from the client's"; return 1; }
	rm -f "$exp/small-$1" "$exp/big-$1"
}

for srv in b a; do
	step=srv$srv rc=0
	th_sync "$step:start" >/dev/null || fail "the peer did not reach $step"
	th_mark "$step start"
	if [[ $TH_ROLE == "$srv" ]]; then
		server_up || { echo "$step: the NFS server did not come up"; rc=1; }
		th_sync "$step:ready" "$rc" >/dev/null
		for v in 3 4.2; do
			sums=$(th_sync "$step:v$v" - 300) || sums=none
			if [[ $sums =~ ^[0-9a-f]{64}$ ]]; then
				server_check $v "$sums" || rc=1
			else
				echo "$step: the client failed with vers=$v: $sums"
				rc=1
			fi
		done
		server_down
		log "$step: server ($TH_DRIVER) $rc"
	else
		ready=$(th_sync "$step:ready")
		for v in 3 4.2; do
			if [[ $ready == 0 ]]; then
				out=$(client_io $v 2>&1) || rc=1
			else
				out="server not up" rc=1
			fi
			sums=$(tail -n 1 <<<"$out")
			((rc == 0)) || { client_umount; sums="failed: $(tr "\n" " " <<<"$out" | cut -c 1-150)"; }
			th_sync "$step:v$v" "$sums" >/dev/null
			log "$step: client ($TH_DRIVER) vers=$v: $sums"
		done
	fi
	prc=$(th_sync "$step:done" "$rc") || prc="no barrier"
	th_mark "$step done"
	[[ $rc == 0 && $prc == 0 ]] ||
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
done
th_done
