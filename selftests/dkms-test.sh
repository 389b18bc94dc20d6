#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms add, build, install and remove sroce for kernel KREL whose headers are
# at KDIR, as on a host with that kernel's headers installed. It runs in a
# private mount namespace whose /lib/modules holds only KREL with its "build"
# link to KDIR, and whose /var/lib/dkms is empty: the host's module trees and
# DKMS state are never touched. Passes when the installed module carries
# KREL's vermagic and depends on ib_core, and remove takes it away again.
#
#   dkms-test.sh KREL KDIR
set -euo pipefail

krel=${1:?usage: dkms-test.sh KREL KDIR}
kdir=$(readlink -f "${2:?usage: dkms-test.sh KREL KDIR}")
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v dkms >/dev/null || { echo "dkms is not installed"; exit 1; }

if [ -z "${SROCE_DKMS_NS:-}" ]; then
	exec env SROCE_DKMS_NS=1 unshare --mount --propagation private -- "$0" "$@"
fi
mount -t tmpfs tmpfs /lib/modules
mkdir -p "/lib/modules/$krel" /var/lib/dkms
ln -s "$kdir" "/lib/modules/$krel/build"
mount -t tmpfs tmpfs /var/lib/dkms

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
t=$(mktemp -d "${TMPDIR:-/tmp}/sroce-dkms.XXXXXX")
trap 'rm -rf "$t"' EXIT

# The source as a user would put it in /usr/src/sroce-VERSION: the tracked
# files (and any new ones not yet committed), nothing built.
mkdir -p "$t/src/sroce-$ver"
(cd "$top" && git ls-files --cached --others --exclude-standard -z |
	cpio --quiet -0 -pdm "$t/src/sroce-$ver")

trees=(--sourcetree "$t/src")

set -x
dkms add -m sroce -v "$ver" "${trees[@]}"
dkms build -m sroce -v "$ver" -k "$krel" "${trees[@]}"
dkms install -m sroce -v "$ver" -k "$krel" "${trees[@]}" \
	--force
dkms status -m sroce "${trees[@]}"
set +x

ko=$(find /lib/modules -name 'sroce.ko*' | head -1)
[ -n "$ko" ] || { echo "no sroce.ko installed under /lib/modules/$krel"; find /lib/modules; exit 1; }
case $ko in *.xz) xz -dc "$ko" >"$t/sroce.ko"; ko=$t/sroce.ko ;; esac
vm=$(modinfo -F vermagic "$ko")
echo "installed $ko: vermagic $vm"
[[ $vm == "$krel "* ]] || { echo "wrong vermagic, expected $krel"; exit 1; }
modinfo -F depends "$ko" | grep -q ib_core || { echo "no ib_core dependency"; exit 1; }

dkms remove -m sroce -v "$ver" -k "$krel" "${trees[@]}"
if find /lib/modules -name 'sroce.ko*' | grep -q .; then
	echo "dkms remove left the module installed"
	exit 1
fi
echo "dkms: add, build, install, remove for $krel: ok"
