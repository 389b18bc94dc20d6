#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package that building sroce and running its tests
# needs ("deps.sh cluster": and the cluster's, Open MPI and UCX). Idempotent and quick when everything is there already: it only calls
# apt when a package is missing. Needs root on Debian bookworm.
set -euo pipefail

PKGS=(
	# build
	make gcc libc6-dev kmod sparse dwarves xz-utils
	# the parser fuzzer (selftests/fuzz/): clang with libFuzzer
	clang libclang-rt-14-dev
	# other kernels (selftests/kernels.sh)
	debootstrap
	# make deb and its test (selftests/deb-test.sh)
	dkms debhelper dh-dkms dpkg-dev
	linux-headers-amd64
	# the debug kernel (KVER=debug), built from bookworm's source
	linux-source-6.1 bc bison flex libelf-dev
	# the test VM: kernel image (its modules), emulator, initramfs tools
	linux-image-amd64 qemu-system-x86 busybox-static cpio gzip
	# RDMA user space that runs inside the VM
	rdma-core ibverbs-utils ibverbs-providers rdmacm-utils perftest
	libibverbs-dev librdmacm-dev iproute2
	# make bench's yardstick: TCP on the same wire
	iperf3
	# what tests/net/ puts on the path: offloads, a firewall
	ethtool nftables
	# rdma-core's own test suite (tests/rdmacore/pyverbs.sh)
	python3-pyverbs
	# the NFS and iSCSI tools' libraries (the tools: selftests/ulp-tools.sh)
	libwrap0 libtirpc3 libisns0 libopeniscsiusr
	# targetcli's (ulp-tools.sh): PyGObject's _gi.so, GLib's typelibs'
	# libraries, libudev for pyudev (ctypes), Python's readline module,
	# the system bus's dbus-daemon
	libgirepository-1.0-1 libglib2.0-0 libffi8 libudev1 libreadline8
	libdbus-1-3 libexpat1 libsystemd0 libaudit1 libcap-ng0 libapparmor1
	# make bench's chart
	gnuplot-nox
	# make style (selftests/style.sh): the shell and Python linters
	shellcheck flake8
)

# make check-cluster (deps.sh cluster): Open MPI over UCX in the VMs
# (selftests/mpi/, mkinitramfs.sh --mpi)
[[ ${1:-} != cluster ]] || PKGS+=(openmpi-bin libopenmpi-dev ucx-utils)

missing=()
for p in "${PKGS[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
