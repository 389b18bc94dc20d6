#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The NFS server and client tools for the two-VM image (tests-2host/nfs.sh):
# Debian's nfs-kernel-server, nfs-common and rpcbind, downloaded from the
# archive and unpacked under $SROCE_CACHE, not installed: installing them
# would start an NFS server and rpcbind on this host. Prints the directory
# that holds the unpacked tree (usr/sbin/rpc.nfsd...).
set -euo pipefail

CACHE=${SROCE_CACHE:-/var/cache/sroce}
PKGS=(nfs-kernel-server nfs-common rpcbind)

ver=$(apt-cache policy nfs-common | sed -n 's/^ *Candidate: //p')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	apt-get update -q >&2
	ver=$(apt-cache policy nfs-common | sed -n 's/^ *Candidate: //p')
fi
[ -n "$ver" ] && [ "$ver" != "(none)" ] || { echo "nfs-tools: nfs-common is not in the archive" >&2; exit 1; }
dir=$CACHE/nfs-tools-${ver//[:~]/_}
if [ -x "$dir/usr/sbin/rpc.nfsd" ]; then
	echo "$dir"
	exit 0
fi

tmp=$(mktemp -d "$CACHE/nfs-tools.XXXXXX")
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
