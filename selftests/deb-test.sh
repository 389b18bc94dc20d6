#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package (make deb) installed with apt and removed again, as on
# a host with the headers of the kernels KREL... installed. It runs in a
# chroot whose root is an overlay on this host's root with its changes in a
# tmpfs, and whose /lib/modules holds only the given kernels, each with its
# "build" link to its headers: the host's packages, DKMS state and module
# trees are never touched.
#
# Passes when installing the package builds and installs sroce for every
# one of those kernels (the module carries that kernel's vermagic and
# depends on ib_core) and puts the modprobe.d note in place (rdma_rxe
# blacklisted), and when removing it takes the modules and the DKMS tree
# away again and purging it the note. The installed modules are
# copied to OUTDIR/KREL/sroce.ko, for the VM to load (device/deb_module).
#
# With --root, the overlay's lower layer is ROOT instead of this host's
# root (a trixie or sid root of selftests/kernels.sh, with dkms and the
# headers installed), and each KDIR is a path inside it.
#
#   deb-test.sh [--root ROOT] DEB OUTDIR KREL=KDIR...
set -euo pipefail

usage() { echo "usage: deb-test.sh [--root ROOT] DEB OUTDIR KREL=KDIR..." >&2; exit 2; }
lower=/
if [ "${1:-}" = --root ]; then
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	lower=$(readlink -f "${2:-}") && [ -x "$lower/usr/sbin/dkms" ] ||
		{ echo "deb-test.sh: no root with dkms at '${2:-}'" >&2; exit 2; }
	shift 2
fi
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
deb=$(readlink -f "${1:-}") && [ -f "$deb" ] || usage
out=${2:-}
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[ -n "$out" ] && [ $# -ge 3 ] || usage
shift 2

if [ -z "${SROCE_DEB_NS:-}" ]; then
	[ "$lower" = / ] || set -- --root "$lower" "$deb" "$out" "$@"
	[ "$lower" != / ] || set -- "$deb" "$out" "$@"
	exec env SROCE_DEB_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi

t=$(mktemp -d "${TMPDIR:-/tmp}/sroce-deb.XXXXXX")
trap 'umount -R "$t" 2>/dev/null || umount -R -l "$t"; rmdir "$t"' EXIT
mount -t tmpfs tmpfs "$t"
mkdir "$t/upper" "$t/work" "$t/root"
mount -t overlay overlay -o "lowerdir=$lower,upperdir=$t/upper,workdir=$t/work" "$t/root"
r=$t/root
mount -t proc proc "$r/proc"
mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/lib/modules"
mount -t tmpfs tmpfs "$r/var/lib/dkms"
mount -t tmpfs tmpfs "$r/tmp"

krels=()
for kk in "$@"; do
	krel=${kk%%=*} kdir=${kk#*=}
	[ "$lower" != / ] || kdir=$(readlink -f "$kdir")
	[ -f "$r$kdir/Makefile" ] || { echo "no kernel headers at $kdir for $krel"; exit 1; }
	mkdir -p "$r/lib/modules/$krel"
	ln -s "$kdir" "$r/lib/modules/$krel/build"
	# an installed kernel has one; DKMS 3.1 and later (trixie) skip
	# depmod for a kernel without it
	: >"$r/lib/modules/$krel/modules.dep"
	krels+=("$krel")
done
cp "$deb" "$r/tmp/"
in_root() { chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 "$@"; }

name=$(dpkg-deb -f "$deb" Package)
ver=$(dpkg-deb -f "$deb" Version)
echo "# apt-get install ./$(basename "$deb") for ${krels[*]}"
in_root apt-get install -y --no-install-recommends -o Debug::NoLocking=1 \
	"/tmp/$(basename "$deb")"
in_root dkms status -m sroce
grep -qx 'blacklist rdma_rxe' "$r/etc/modprobe.d/$name.conf" ||
	{ echo "/etc/modprobe.d/$name.conf does not blacklist rdma_rxe"; exit 1; }

rm -rf "$out"
for krel in "${krels[@]}"; do
	ko=$(find "$r/lib/modules/$krel" -name 'sroce.ko*' | head -1)
	[ -n "$ko" ] || { echo "no sroce.ko installed for $krel"; exit 1; }
	mkdir -p "$out/$krel"
	case $ko in
	*.xz) xz -dc "$ko" >"$out/$krel/sroce.ko" ;;
	*.zst) zstd -qdc "$ko" >"$out/$krel/sroce.ko" ;;
	*) cp "$ko" "$out/$krel/sroce.ko" ;;
	esac
	vm=$(modinfo -F vermagic "$out/$krel/sroce.ko")
	echo "# $krel: ${ko#"$r"}, vermagic $vm"
	[[ $vm == "$krel "* ]] || { echo "wrong vermagic for $krel"; exit 1; }
	modinfo -F depends "$out/$krel/sroce.ko" | grep -qw ib_core ||
		{ echo "no ib_core dependency"; exit 1; }
	grep -q "^updates/dkms/sroce.ko" "$r/lib/modules/$krel/modules.dep" || {
		echo "depmod did not list sroce for $krel:"
		ls -la "$r/lib/modules/$krel"
		exit 1
	}
done

echo "# apt-get remove $name"
in_root apt-get remove -y -o Debug::NoLocking=1 "$name"
left=$(find "$r/lib/modules" -name 'sroce.ko*')
[ -z "$left" ] || { echo "the module is still installed: $left"; exit 1; }
[ ! -e "$r/usr/src/sroce-$ver" ] || { echo "/usr/src/sroce-$ver is still there"; exit 1; }
[ -z "$(in_root dkms status -m sroce)" ] || { echo "DKMS still knows sroce"; exit 1; }
# the conffile stays until the package is purged
in_root apt-get purge -y -o Debug::NoLocking=1 "$name"
[ ! -e "$r/etc/modprobe.d/$name.conf" ] || { echo "purge left the modprobe.d note"; exit 1; }
echo "deb: $name $ver installed for ${krels[*]}, removed and purged: ok"
