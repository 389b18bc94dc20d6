#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The user space of the kernel ULP tests in the two-VM image: the NFS server
# and client (tests-2host/nfs.sh: Debian's nfs-kernel-server, nfs-common,
# rpcbind), the iSCSI initiator and the LIO target's configuration tool
# (tests-2host/iser.sh: open-iscsi; targetcli-fb with its Python modules,
# PyGObject and GLib's typelibs for its `from gi.repository import Gio`, and
# the D-Bus system bus that targetcli connects to when it starts),
# downloaded from the archive and unpacked under $SROCE_CACHE, not
# installed: installing them would start an NFS server, rpcbind, iscsid and
# a target restore service on this host. Their libraries are installed by
# deps.sh. Prints the directory that holds the unpacked tree
# (usr/sbin/rpc.nfsd, sbin/iscsid, usr/bin/targetcli...).
set -euo pipefail

CACHE=${SROCE_CACHE:-/var/cache/sroce}
PKGS=(nfs-kernel-server nfs-common rpcbind open-iscsi
	targetcli-fb python3-rtslib-fb python3-configshell-fb python3-pyudev
	python3-six python3-pyparsing python3-urwid python3-gi gir1.2-glib-2.0
	dbus-daemon dbus-system-bus-common)

# the candidates' versions name the tree (one apt-cache call: it takes a
# second each)
versions() {
	local p v out
	out=$(apt-cache policy "${PKGS[@]}") || return 1
	for p in "${PKGS[@]}"; do
		v=$(awk -v p="$p:" '$0 == p { f = 1; next } /^[^ ]/ { f = 0 }
			f && $1 == "Candidate:" { print $2; exit }' <<<"$out")
		[ -n "$v" ] && [ "$v" != "(none)" ] || return 1
		echo "$p=$v"
	done
}
vers=$(versions) || { apt-get update -q >&2; vers=$(versions); } ||
	{ echo "ulp-tools: ${PKGS[*]} are not all in the archive" >&2; exit 1; }
dir=$CACHE/ulp-tools-$(md5sum <<<"$vers" | cut -c1-12)
if [ -x "$dir/usr/sbin/rpc.nfsd" ] && [ -x "$dir/sbin/iscsid" ] &&
	[ -x "$dir/usr/bin/targetcli" ] && [ -x "$dir/usr/bin/dbus-daemon" ] &&
	[ -f "$dir/usr/share/dbus-1/system.conf" ] &&
	[ -d "$dir/usr/lib/python3/dist-packages/rtslib_fb" ] &&
	[ -f "$dir/usr/lib/x86_64-linux-gnu/girepository-1.0/Gio-2.0.typelib" ]; then
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
