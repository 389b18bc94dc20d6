#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user space of the kernel ULP tests in the two-VM image: the NFS server
# and client (tests-2host/nfs.sh: Debian's nfs-kernel-server, nfs-common,
# rpcbind) and the iSCSI initiator (tests-2host/iser.sh: open-iscsi),
# downloaded from the archive and unpacked under $SROCE_CACHE, not
# installed: installing them would start an NFS server, rpcbind and iscsid
# on this host. Their libraries are installed by deps.sh. Prints the
# directory that holds the unpacked tree (usr/sbin/rpc.nfsd, sbin/iscsid...).
set -euo pipefail

CACHE=${SROCE_CACHE:-/var/cache/sroce}
PKGS=(nfs-kernel-server nfs-common rpcbind open-iscsi)

# the candidates' versions name the tree
versions() {
	local p v
	for p in "${PKGS[@]}"; do
		v=$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')
		[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
		echo "$p=$v"
	done
}
vers=$(versions) || { apt-get update -q >&2; vers=$(versions); } ||
	{ echo "ulp-tools: ${PKGS[*]} are not all in the archive" >&2; exit 1; }
dir=$CACHE/ulp-tools-$(md5sum <<<"$vers" | cut -c1-12)
if [ -x "$dir/usr/sbin/rpc.nfsd" ] && [ -x "$dir/sbin/iscsid" ]; then
	echo "$dir"
	exit 0
fi

tmp=$(mktemp -d "$CACHE/ulp-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${PKGS[@]}" >&2) || {
	apt-get update -q >&2
	(cd "$tmp" && apt-get download "${PKGS[@]}" >&2)
}
for d in "$tmp"/*.deb; do
	dpkg-deb -x "$d" "$tmp/root"
done
rm -rf "$dir"
mv "$tmp/root" "$dir"
echo "$dir"
