#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernels sroce is built and tested on, fetched from the Debian archive:
#
#   6.1   Debian bookworm's kernel, installed as packages by selftests/deps.sh
#   6.12  bookworm-backports: headers and image unpacked into the cache; the
#         module builds natively (the kernel was built with bookworm's gcc-12)
#   7.2   sid: image unpacked into the cache; the module builds inside a sid
#         chroot (its headers need gcc-16 and glibc 2.38 host tools)
#   debug bookworm's linux-source-6.1 built here with the checks of
#         selftests/debug.config (KASAN, lockdep, kmemleak, UBSAN...; no
#         DWARF, which sroce.ko gets from KCFLAGS=-g instead); the
#         build tree is the KDIR. Rebuilt when the source package or the
#         fragment changes (both are in the cache directory's name).
#
# The exact package versions are looked up in the archive's indexes, never
# hard-coded. Everything lands in $SROCE_CACHE (default /var/cache/sroce) and
# is reused by later runs.
#
#   kernels.sh env KVER            print KREL, KDIR, VMLINUZ, MODROOT, CHROOT
#                                  as shell assignments, fetching what is missing
#   kernels.sh make KVER ARGS...   run "make ARGS..." in this tree against KVER
#                                  (KDIR set; inside the chroot for 7.2)
#   kernels.sh list                the KVER names known here
#   kernels.sh userland SUITE      print the root of SUITE's (trixie, sid) RDMA
#                                  user space, setting it up when missing
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${SROCE_CACHE:-/var/cache/sroce}
KR=/usr/share/keyrings/debian-archive-keyring.gpg

# The Debian archive, as the host's own apt sources name it: the first source
# of the main archive (a suite without "-security"), from deb822 .sources files
# or one-line sources.list entries. SROCE_MIRROR overrides it.
host_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			uri = ""; ok = 0; deb = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^URIs:/) { split($i, u, " "); uri = u[2] }
				if ($i ~ /^Types:.*deb( |$)/) deb = 1
				if ($i ~ /^Suites:/ && $i !~ /-security/) ok = 1
			}
			if (deb && ok && uri != "") { print uri; exit }
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk '$1 == "deb" && $0 !~ /-security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit }
		}' "$f"
	done
	return 0
}
MIRROR=${SROCE_MIRROR:-$(host_mirror | awk 'NR == 1')}

die() { echo "kernels.sh: $*" >&2; exit 1; }
say() { echo "kernels.sh: $*" >&2; }

# --- private apt state for backports/sid/trixie, apart from the host's ------
apt_priv() {
	local a=$CACHE/apt
	[ -n "$MIRROR" ] ||
		die "no Debian archive in the host's apt sources; set SROCE_MIRROR"
	mkdir -p "$a"/{lists/partial,cache/archives/partial,etc/sources.list.d,etc/preferences.d}
	cat >"$a/etc/sources.list" <<EOF
deb [signed-by=$KR] $MIRROR bookworm-backports main
deb [signed-by=$KR] $MIRROR sid main
EOF
	cat >"$a/apt.conf" <<EOF
Dir::Etc::sourcelist "$a/etc/sources.list";
Dir::Etc::sourceparts "$a/etc/sources.list.d";
Dir::Etc::preferencesparts "$a/etc/preferences.d";
Dir::State::Lists "$a/lists";
Dir::State::status "$a/status";
Dir::Cache "$a/cache";
APT::Architecture "amd64";
Acquire::Check-Valid-Until "false";
EOF
	touch "$a/status"
	# Indexes younger than a day are good enough.
	if [ -z "$(find "$a/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null)" ]; then
		say "updating private apt indexes"
		APT_CONFIG=$a/apt.conf apt-get -q update >&2 || die "apt-get update failed"
	fi
}

apt_p() { APT_CONFIG=$CACHE/apt/apt.conf "$@"; }

# newest_abi REGEX: the newest "linux-headers-<abi>" name matching REGEX.
newest_abi() {
	apt_p apt-cache pkgnames linux-headers- | grep -E "^linux-headers-($1)\$" |
		sed 's/^linux-headers-//' | sort -V | tail -1
}

# unpack DIR PKG...: download the packages and extract them into DIR.
unpack() {
	local dir=$1 d
	shift
	local dl=$CACHE/debs/${dir##*/}
	rm -rf "$dl"
	mkdir -p "$dl" "$dir"
	(cd "$dl" && apt_p apt-get -q download "$@" >&2) || die "download of $* failed"
	for d in "$@"; do
		dpkg -x "$dl/${d}"_*.deb "$dir" || die "cannot unpack $d"
	done
	rm -rf "$dl"
}

# --- 6.1: the host's own bookworm packages -----------------------------------
env_61() {
	KREL=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	       sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
	[ -n "$KREL" ] || die "linux-image-amd64 is not installed (run selftests/deps.sh)"
	KDIR=/lib/modules/$KREL/build
	VMLINUZ=/boot/vmlinuz-$KREL
	MODROOT=/
	CHROOT=
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ -f "$KDIR/Makefile" ] && [ -f "$VMLINUZ" ] ||
		die "kernel $KREL headers or image missing (run selftests/deps.sh)"
}

# cached GLOB: the newest kernel in the cache that was unpacked completely.
cached() {
	local d
	# shellcheck disable=SC2012,SC2086  # $1 is a glob; the cache's directory names have no special characters
	for d in $(ls -d "$CACHE"/k-$1/ 2>/dev/null | sort -rV); do
		[ -f "$d/ready" ] && { echo "${d%/}"; return; }
	done
	return 0
}

# lookup REGEX WHERE: the newest kernel ABI name (e.g. 6.12.95+deb12-amd64)
# in the archive's indexes.
lookup() {
	local abi
	apt_priv
	abi=$(newest_abi "$1")
	[ -n "$abi" ] || die "no kernel headers matching '$1' in $2"
	say "fetching kernel $abi"
	rm -rf "$CACHE/k-$abi"
	echo "$abi"
}

# --- 6.12: bookworm-backports, unpacked, native build ------------------------
env_612() {
	local dir abi
	dir=$(cached '6.12.*')
	if [ -z "$dir" ]; then
		abi=$(lookup '6\.12\.[0-9]+\+bpo-amd64|6\.12\.[0-9]+\+deb12-amd64' bookworm-backports)
		dir=$CACHE/k-$abi
		unpack "$dir" "linux-headers-$abi" "linux-headers-${abi%-amd64}-common" \
			"linux-kbuild-${abi%-amd64}" "linux-image-$abi-unsigned"
		# The arch headers include the common tree by absolute path.
		sed -i "s#/usr/src/linux-headers-#$dir/usr/src/linux-headers-#g" \
			"$dir/usr/src/linux-headers-$abi/Makefile"
		depmod -b "$dir" "$abi"
		touch "$dir/ready"
	fi
	KREL=${dir##*/k-}
	KDIR=$dir/usr/src/linux-headers-$KREL
	VMLINUZ=$dir/boot/vmlinuz-$KREL
	MODROOT=$dir
	CHROOT=
}

# --- 7.2: sid, image unpacked, build in a cached sid chroot ------------------
env_72() {
	local dir abi root=$CACHE/sid-root
	dir=$(cached '7.2.*')
	if [ -z "$dir" ]; then
		abi=$(lookup '7\.2\.[0-9]+(\+deb[0-9]+)?-amd64' sid)
		dir=$CACHE/k-$abi
		unpack "$dir" "linux-base-$abi" "linux-binary-unsigned-$abi" "linux-modules-$abi"
		depmod -b "$dir/usr" "$abi"
		touch "$dir/ready"
	fi
	KREL=${dir##*/k-}
	VMLINUZ=$dir/usr/lib/modules/$KREL/vmlinuz.unsigned
	# shellcheck disable=SC2012  # the first of a glob of kernel image file names, which have no special characters
	[ -f "$VMLINUZ" ] || VMLINUZ=$(ls "$dir"/usr/lib/modules/"$KREL"/vmlinuz* | head -1)
	MODROOT=$dir/usr
	CHROOT=$root
	KDIR=/usr/src/linux-headers-$KREL
	# What the chroot must hold; the stamp records what it was set up with.
	local pkgs="make sparse dkms linux-headers-$KREL"
	if [ "$(cat "$root/ready" 2>/dev/null)" != "$pkgs" ]; then
		if [ ! -x "$root/usr/bin/apt-get" ]; then
			command -v debootstrap >/dev/null || die "debootstrap missing (run selftests/deps.sh)"
			say "creating the sid build chroot in $root"
			rm -rf "$root"
			debootstrap --variant=minbase sid "$root" "$MIRROR" >&2 ||
				die "debootstrap failed"
		fi
		echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99no-valid-until"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		say "installing $pkgs in the chroot"
		in_chroot "$root" / bash -c "apt-get -q update &&
			DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
				$pkgs && apt-get clean" >&2 ||
			die "chroot package install failed"
		echo "$pkgs" >"$root/ready"
	fi
	checker_valid "$root/usr/src/linux-headers-${KREL%-amd64}-common/scripts"
}

# checker_valid DIR: Debian's 7.2 headers lack scripts/checker-valid.sh,
# without which kbuild quietly turns C=2 off ("sparse is not available").
# Ours prints 1 when the checker, given kbuild's flags, parses a C file.
checker_valid() {
	[ -e "$1/checker-valid.sh" ] && return 0
	cat >"$1/checker-valid.sh" <<'EOF'
#!/bin/sh
# Written by sroce's selftests/kernels.sh: is the checker "$1" usable?
command -v "$1" >/dev/null 2>&1 || exit 0
f=$(mktemp --suffix=.c) || exit 0
echo 'int sroce_checker_probe;' >"$f"
"$@" "$f" >/dev/null 2>&1 && echo 1
rm -f "$f"
EOF
	chmod +x "$1/checker-valid.sh"
}

# in_chroot ROOT DIR CMD...: run CMD inside ROOT with this tree bind-mounted
# at its own path, in a private mount namespace (nothing leaks to the host).
in_chroot() {
	local root=$1 dir=$2
	shift 2
	mkdir -p "$root$top"
	unshare --mount --propagation private -- bash -c '
		set -e
		root=$1 top=$2 dir=$3; shift 3
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mount --bind "$top" "$root$top"
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 bash -c "cd \"\$0\" && exec \"\$@\"" "$dir" "$@"
	' in_chroot "$root" "$top" "$dir" "$@"
}

# --- debug: bookworm's source with selftests/debug.config, built here --------
DEBUG_SRC_PKG=linux-source-6.1
DEBUG_FRAGMENT=$top/selftests/debug.config

# debug_config SRC OUT: configure, then check that every line of the fragment
# survived (a missing dependency silently drops an option).
debug_config() {
	local src=$1 out=$2 l n bad=0
	make -s -C "$src" O="$out" KCONFIG_ALLCONFIG="$DEBUG_FRAGMENT" allnoconfig >&2 ||
		die "allnoconfig with $DEBUG_FRAGMENT failed"
	while IFS= read -r l; do
		case $l in
		CONFIG_*=*)
			grep -qxF "$l" "$out/.config" && continue
			say "debug.config: wanted $l, got: $(grep -E "^(# )?${l%%=*}[= ]" "$out/.config")"
			bad=1
			;;
		"# CONFIG_"*" is not set")
			n=${l#\# }
			n=${n%% *}
			grep -q "^$n=" "$out/.config" || continue
			say "debug.config: wanted $n off, got: $(grep "^$n=" "$out/.config")"
			bad=1
			;;
		esac
	done <"$DEBUG_FRAGMENT"
	[ $bad = 0 ] || die "selftests/debug.config does not hold after allnoconfig"
}

# debug_build DIR: unpack, configure, build, install the modules into DIR.
debug_build() {
	local dir=$1 t0=$SECONDS jobs=${SROCE_JOBS:-$(($(nproc) + 1))}
	local tarball=/usr/src/$DEBUG_SRC_PKG.tar.xz
	rm -rf "$dir"
	mkdir -p "$dir/src"
	say "unpacking $tarball"
	tar -xf "$tarball" -C "$dir/src" --strip-components=1 || die "cannot unpack $tarball"
	debug_config "$dir/src" "$dir/build"
	say "building the debug kernel in $dir/build (make -j$jobs; log in $dir/build.log)"
	if ! make -C "$dir/build" -j"$jobs" bzImage modules >"$dir/build.log" 2>&1; then
		grep -E 'error|Error' "$dir/build.log" | head -20 >&2
		die "debug kernel build failed, see $dir/build.log"
	fi
	# Stripped modules keep the initramfs small; the build tree keeps the
	# debug info for scripts/faddr2line and decode_stacktrace.sh.
	make -C "$dir/build" INSTALL_MOD_PATH="$dir/mod" INSTALL_MOD_STRIP=1 \
		modules_install >>"$dir/build.log" 2>&1 || die "modules_install failed"
	# External modules need the headers, scripts and Module.symvers, not
	# the objects: drop those (most of the tree's size), keep vmlinux.
	find "$dir/build" -name '*.o' -not -path "$dir/build/scripts/*" \
		-not -path "$dir/build/tools/*" -delete
	say "debug kernel built in $((SECONDS - t0)) s, cache $(du -sh "$dir" | cut -f1)"
}

env_debug() {
	local ver sum dir d
	if ! dpkg-query -W -f='${Status}' "$DEBUG_SRC_PKG" 2>/dev/null | grep -q 'ok installed'; then
		say "installing $DEBUG_SRC_PKG"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q install -y \
			--no-install-recommends "$DEBUG_SRC_PKG" bc bison flex libelf-dev >&2 ||
			die "cannot install $DEBUG_SRC_PKG (run selftests/deps.sh)"
	fi
	ver=$(dpkg-query -W -f='${Version}' "$DEBUG_SRC_PKG")
	sum=$(sha256sum "$DEBUG_FRAGMENT" | cut -c1-12)
	dir=$CACHE/k-debug-$ver-$sum
	# make check builds it in the background while it sets up the other
	# kernels, and asks for it again later: the second caller waits.
	mkdir -p "$CACHE"
	exec 9>"$CACHE/k-debug.lock"
	flock 9
	if [ ! -f "$dir/ready" ]; then
		# Builds of another source or fragment are large: drop those that
		# no run used or built for a day (another branch may use one).
		for d in "$CACHE"/k-debug-*; do
			# shellcheck disable=SC2015  # C is meant to run when either A or B fails
			[ "$d" != "$dir" ] && [ -d "$d" ] || continue
			[ -n "$(find "$d" -maxdepth 1 -mmin -1440 | head -1)" ] || rm -rf "$d"
		done
		debug_build "$dir"
	fi
	touch "$dir/ready"	# its age says when it was last used
	exec 9>&-
	KDIR=$dir/build
	KREL=$(cat "$KDIR/include/config/kernel.release")
	VMLINUZ=$KDIR/arch/x86/boot/bzImage
	MODROOT=$dir/mod
	CHROOT=
}

# --- userlands: trixie's and sid's RDMA user space, for a VM ---------------
# A root file system of the suite with its rdma-core, perftest and
# infiniband-diags, and rdma-core's own test suite as python3-pyverbs ships
# it, gunzipped and compiled (nothing compiles under TCG) in
# /usr/share/rdma-core-tests. vm.sh hands it to the guest read-only over
# 9p; tests/userland runs the tools inside it (lib.sh: in_userland).
USERLAND_PKGS="rdma-core ibverbs-providers ibverbs-utils rdmacm-utils perftest"
USERLAND_PKGS+=" python3-pyverbs infiniband-diags iproute2 procps"
userland() {
	local suite=$1 root=$CACHE/user-$1 pkgs=$USERLAND_PKGS
	case $suite in
	# and what DKMS needs to build the package against trixie's kernel
	# (check.sh: t_deb_dist)
	trixie) pkgs+=" dkms linux-headers-amd64" ;;
	sid) ;;
	*) die "unknown userland '$suite' (known: trixie sid)" ;;
	esac
	exec 9>"$root.lock"
	flock 9
	if [ "$(cat "$root/ready" 2>/dev/null)" != "$pkgs" ]; then
		[ -n "$MIRROR" ] ||
			die "no Debian archive in the host's apt sources; set SROCE_MIRROR"
		command -v debootstrap >/dev/null || die "debootstrap missing (run selftests/deps.sh)"
		say "creating the $suite userland in $root"
		rm -rf "$root"
		debootstrap --variant=minbase "$suite" "$root" "$MIRROR" >&2 ||
			die "debootstrap $suite failed"
		echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99no-valid-until"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		in_chroot "$root" / bash -c "apt-get -q update &&
			DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
				$pkgs && apt-get clean &&
			t=/usr/share/rdma-core-tests && mkdir -p \$t /sroce-tests &&
			cp -p /usr/share/doc/rdma-core/tests/* \$t/ && gunzip -f \$t/*.gz &&
			python3 -m compileall -q \$t >/dev/null" >&2 ||
			die "$suite userland package install failed"
		echo "$pkgs" >"$root/ready"
	fi
	exec 9>&-
	echo "$root"
}

kernel_env() {
	case $1 in
	6.1) env_61 ;;
	6.12) env_612 ;;
	7.2) env_72 ;;
	debug) env_debug ;;
	*) die "unknown kernel '$1' (known: $(list))" ;;
	esac
}

list() { echo "6.1 6.12 7.2 debug"; }

cmd=${1:-}
case $cmd in
env)
	[ $# = 2 ] || die "usage: kernels.sh env KVER"
	kernel_env "$2"
	printf 'KREL=%q\nKDIR=%q\nVMLINUZ=%q\nMODROOT=%q\nCHROOT=%q\n' \
		"$KREL" "$KDIR" "$VMLINUZ" "$MODROOT" "$CHROOT"
	;;
make)
	[ $# -ge 2 ] || die "usage: kernels.sh make KVER ARGS..."
	kernel_env "$2"
	shift 2
	# The caller's make must not hand KVER down to ours again.
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
	if [ -n "$CHROOT" ]; then
		in_chroot "$CHROOT" "$top" make KVER= KDIR="$KDIR" "$@"
	elif grep -qx 'CONFIG_DEBUG_INFO_NONE=y' "$KDIR/.config"; then
		# a kernel without DWARF (the debug kernel): the module's own,
		# for scripts/faddr2line on drivers/sroce/sroce.ko
		make -C "$top" KVER= KDIR="$KDIR" KCFLAGS=-g "$@"
	else
		make -C "$top" KVER= KDIR="$KDIR" "$@"
	fi
	;;
list) list ;;
userland)
	[ $# = 2 ] || die "usage: kernels.sh userland trixie|sid"
	userland "$2"
	;;
*) die "usage: kernels.sh env|make|list|userland ..." ;;
esac
