#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the initramfs used by selftests/vm.sh: a busybox + Debian user space
# with rdma-core (rxe provider only), perftest, the kernel's RDMA/net modules
# and our own module(s), plus the selftests and selftests/init as /init.
#
# Usage: mkinitramfs.sh --kver KVER [--modroot DIR] --ko PATH/sroce.ko [--ko more.ko]
#                       [--tests DIR] [--tests2 DIR] [--tests-cluster DIR]
#                       --out FILE.cpio.gz [--extra-bin PATH]...
#                       [--deb-ko PATH] [--ulp-tools DIR] [--mpi]
#
# --tests2 adds the two-host tests (selftests/tests-2host) as /tests/2host,
# for selftests/vm2.sh; the one-VM image leaves them out, where they could
# only fail; --tests-cluster adds the cluster tests (selftests/tests-cluster)
# as /tests/cluster, for selftests/vmn.sh. --deb-ko adds the module the Debian package built (deb-test.sh)
# as /lib/sroce-deb/sroce.ko, for tests/device/deb_module.sh. --ulp-tools
# adds the NFS server and client, the iSCSI initiator and targetcli from the
# tree ulp-tools.sh unpacked. --mpi adds Debian's Open MPI and UCX as the
# host has them installed (deps.sh cluster): mpirun, orted, their plugins
# (Open MPI's MCA components, PMIx's, UCX's transports) and what they link.
set -euo pipefail
trap 'echo "mkinitramfs: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
	sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit "${1:-2}"
}

die() { echo "mkinitramfs: $*" >&2; exit 1; }

KVER=""
MODROOT="/"
TESTS="$SELF_DIR/tests"
TESTS2=""
TESTSC=""
OUT=""
KOS=()
EXTRA_BINS=()
DEB_KO=""
ULP_TOOLS=""
MPI=0

while (($#)); do
	case $1 in
	--kver) KVER=${2:?}; shift 2 ;;
	--modroot) MODROOT=${2:?}; shift 2 ;;
	--ko) KOS+=("${2:?}"); shift 2 ;;
	--tests) TESTS=${2:?}; shift 2 ;;
	--tests2) TESTS2=${2:?}; shift 2 ;;
	--tests-cluster) TESTSC=${2:?}; shift 2 ;;
	--out) OUT=${2:?}; shift 2 ;;
	--extra-bin) EXTRA_BINS+=("${2:?}"); shift 2 ;;
	--deb-ko) DEB_KO=${2:?}; shift 2 ;;
	--ulp-tools) ULP_TOOLS=${2:?}; shift 2 ;;
	--mpi) MPI=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "mkinitramfs: unknown argument: $1" >&2; usage ;;
	esac
done

[[ -n $KVER ]] || die "--kver is required"
[[ -n $OUT ]] || die "--out is required"
[[ -d $TESTS ]] || die "tests directory not found: $TESTS"
[[ -f $SELF_DIR/init ]] || die "missing $SELF_DIR/init"
[[ -f $SELF_DIR/lib.sh ]] || die "missing $SELF_DIR/lib.sh"
for ko in "${KOS[@]}"; do
	[[ -f $ko ]] || die "module not found: $ko"
done
for b in "${EXTRA_BINS[@]}"; do
	[[ -f $b && -x $b ]] || die "extra binary not found or not executable: $b"
done

if [[ -d $MODROOT/lib/modules/$KVER ]]; then
	MODDIR=$(cd "$MODROOT/lib/modules/$KVER" && pwd -P)
elif [[ -d $MODROOT/usr/lib/modules/$KVER ]]; then
	MODDIR=$(cd "$MODROOT/usr/lib/modules/$KVER" && pwd -P)
else
	die "no lib/modules/$KVER or usr/lib/modules/$KVER under $MODROOT"
fi

START=$(date +%s%N)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sroce-initramfs.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
ST=$TMP/root

# --- skeleton (merged /usr, like Debian) ------------------------------------
mkdir -p "$ST"/{usr/bin,usr/sbin,usr/lib,usr/lib64,usr/local/bin} \
	"$ST"/{dev,proc,sys,tmp,run,etc,root,var,mnt,tests}
ln -s usr/bin "$ST/bin"
ln -s usr/sbin "$ST/sbin"
ln -s usr/lib "$ST/lib"
ln -s usr/lib64 "$ST/lib64"
ln -s ../run "$ST/var/run"
mkdir -p "$ST/run/netns"
chmod 1777 "$ST/tmp"
# /dev/console lets the kernel hand PID 1 its stdio; init re-opens it after
# mounting devtmpfs anyway, so a non-root build without mknod still works.
mknod -m 600 "$ST/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$ST/dev/null" c 1 3 2>/dev/null || true

cat >"$ST/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
EOF
cat >"$ST/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
cat >"$ST/etc/hosts" <<'EOF'
127.0.0.1	localhost vm
::1		localhost ip6-localhost ip6-loopback
EOF
echo vm >"$ST/etc/hostname"
: >"$ST/etc/fstab"

# --- copying files with their shared libraries -------------------------------
declare -A COPIED=()

# copy_file PATH [DEST]: put the real file at its resolved path and make PATH
# (or DEST) resolve to it inside the image.
copy_file() {
	local src=$1 dst=${2:-$1} real
	[[ -n ${COPIED[$dst]:-} ]] && return 0
	COPIED[$dst]=1
	real=$(readlink -f "$src")
	[[ -f $real ]] || die "cannot resolve $src"
	if [[ ! -e $ST$real ]]; then
		mkdir -p "$ST$(dirname "$real")"
		cp -p "$real" "$ST$real"
	fi
	if [[ ! -e $ST$dst && ! -L $ST$dst ]]; then
		mkdir -p "$ST$(dirname "$dst")"
		ln -s "$real" "$ST$dst"
	fi
}

declare -A LDD_DONE=()
copy_libs() {
	local f=$1 line lib
	[[ -n ${LDD_DONE[$f]:-} ]] && return 0
	LDD_DONE[$f]=1
	# static binaries make ldd exit 1 ("not a dynamic executable")
	while read -r line; do
		case $line in
		*"=> not found"*) die "$f: missing library: $line" ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;;
		*) continue ;;
		esac
		copy_file "$lib"
	done < <(ldd "$f" 2>/dev/null || true)
}

# copy_bin SRC [DEST]
copy_bin() {
	local src=$1 dst=${2:-$1}
	copy_file "$src" "$dst"
	copy_libs "$src"
}

SHIPPED=()  # basenames of real binaries (no busybox applet link for these)

# ship_pyverbs: python3 with the part of its standard library a test suite
# needs (compiled files kept, so that nothing compiles under TCG), pyverbs,
# and rdma-core's own test suite as python3-pyverbs ships it (gunzipped) in
# /usr/share/rdma-core-tests: the installed pyverbs's version, exactly
# (tests/rdmacore/pyverbs.sh).
PY_SKIP='config-*|lib-dynload|test|idlelib|tkinter|turtledemo|ensurepip|lib2to3|pydoc_data|distutils|site-packages|dist-packages|venv|sqlite3|curses|dbm|__phello__'
PY_SKIP_SO='_test*|xx*|_ctypes_test*|_curses*|readline*|_dbm*|nis*|ossaudiodev*|audioop*|_sqlite3*|_tkinter*'
ship_pyverbs() {
	local py lib f n docs=/usr/share/doc/rdma-core/tests
	dpkg -s python3-pyverbs >/dev/null 2>&1 || die "package python3-pyverbs is not installed"
	py=$(readlink -f /usr/bin/python3)
	lib=/usr/lib/$(basename "$py")
	ship /usr/bin/python3
	mkdir -p "$ST$lib/lib-dynload" "$ST/usr/lib/python3/dist-packages" \
		"$ST/usr/share/rdma-core-tests"
	for f in "$lib"/*; do
		n=${f##*/}
		# shellcheck disable=SC2254
		case $n in $PY_SKIP) continue ;; esac
		[[ -L $f ]] && continue		# sitecustomize.py -> /etc
		cp -a "$f" "$ST$lib/"
	done
	find "$ST$lib" -name '*.opt-[12].pyc' -delete
	for f in "$lib"/lib-dynload/*.so; do
		n=${f##*/}
		# shellcheck disable=SC2254
		case $n in $PY_SKIP_SO) continue ;; esac
		cp -p "$f" "$ST$lib/lib-dynload/"
		copy_libs "$f"
	done
	cp -a /usr/lib/python3/dist-packages/pyverbs "$ST/usr/lib/python3/dist-packages/"
	while read -r f; do
		copy_libs "$f"
	done < <(find /usr/lib/python3/dist-packages/pyverbs -name '*.so')
	cp -p "$docs"/* "$ST/usr/share/rdma-core-tests/"
	gunzip -f "$ST"/usr/share/rdma-core-tests/*.gz
}

ship() {  # ship SRC [DEST]
	local dst=${2:-$1}
	copy_bin "$1" "$dst"
	SHIPPED+=("$(basename "$dst")")
}

# bash is /bin/bash and /bin/sh
ship /bin/bash /usr/bin/bash
ln -s bash "$ST/usr/bin/sh"
SHIPPED+=(sh)

# busybox (static)
BUSYBOX=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
copy_file "$BUSYBOX" /usr/bin/busybox

# kmod and its personalities
KMOD=$(command -v kmod) || die "kmod not found"
copy_bin "$KMOD" /usr/bin/kmod
for n in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -s ../bin/kmod "$ST/usr/sbin/$n"
	SHIPPED+=("$n")
done
SHIPPED+=(kmod)

# iproute2 (full-featured ip with netns, unlike busybox's) and a few tools whose
# busybox applets would exec busybox applets instead of the real binaries;
# ethtool and nft for what tests/net/ puts on the path; iperf3, TCP beside
# RDMA in make bench.
for n in ip rdma bridge tc ss timeout env nohup nice setsid nsenter unshare \
	taskset xargs strace ethtool nft iperf3; do
	p=$(command -v "$n" 2>/dev/null) || { echo "mkinitramfs: note: $n not on host, skipped" >&2; continue; }
	[[ $p == /* ]] || continue
	# busybox itself may be first in PATH for some names on odd hosts
	[[ $(readlink -f "$p") == "$(readlink -f "$BUSYBOX")" ]] && continue
	case $p in /bin/*|/sbin/*) p=/usr$p ;; esac
	ship "$p"
done

# rdma-core test programs
for pkg in ibverbs-utils rdmacm-utils perftest; do
	dpkg -s "$pkg" >/dev/null 2>&1 || die "package $pkg is not installed"
	while read -r p; do
		[[ -f $p && -x $p ]] || continue
		if [[ $(head -c 4 "$p") == $'\x7fELF' ]]; then
			ship "$p"
		else
			# scripts (run_perftest_*): copy as is
			copy_file "$p"
			SHIPPED+=("$(basename "$p")")
		fi
	done < <(dpkg -L "$pkg" | grep -E '/s?bin/')
done

# rxe provider for libibverbs (the only one we need)
copy_file /etc/libibverbs.d/rxe.driver
shopt -s nullglob
providers=(/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
shopt -u nullglob
((${#providers[@]})) || die "rxe provider not found (ibverbs-providers)"
for p in "${providers[@]}"; do
	copy_bin "$p"
done

# libgcc_s: dlopen()ed by glibc for pthread_exit/cancellation (rping)
libgcc=$(ldconfig -p | awk '/libgcc_s\.so\.1 .*x86-64/ && !f { print $NF; f = 1 }')
[[ -n $libgcc ]] || libgcc=/lib/x86_64-linux-gnu/libgcc_s.so.1
[[ -f $libgcc ]] || die "libgcc_s.so.1 not found"
copy_file "$libgcc"

ship_pyverbs

# ship_targetcli DIR: Debian's targetcli (targetcli-fb) as ulp-tools.sh
# unpacked it in DIR, unmodified, with its Python modules beside pyverbs
# (compiled here, with the image's own python3, so that nothing compiles
# under TCG), PyGObject with GLib's typelibs (targetcli imports Gio), the
# readline module it imports (ship_pyverbs leaves it out), libudev that
# pyudev loads with ctypes, /etc/rtslib-fb-target, where rtslib points
# LIO's dbroot (it fails when the directory is missing), and dbus-daemon
# with Debian's system.conf: targetcli connects to the system bus (to ask
# tcmu-runner for its handlers) and fails without one; the test starts it
TARGETCLI_PY=(targetcli rtslib_fb configshell_fb pyudev six.py pyparsing urwid gi)
ship_targetcli() {
	local d=$1 dp=/usr/lib/python3/dist-packages f py
	py=$(basename "$(readlink -f /usr/bin/python3)")
	for f in "${TARGETCLI_PY[@]}"; do
		[[ -e $d$dp/$f ]] || die "$d$dp/$f not found (selftests/ulp-tools.sh)"
		cp -a "$d$dp/$f" "$ST$dp/"
	done
	while read -r f; do
		copy_libs "$f"
	done < <(find "$ST$dp/gi" "$ST$dp/urwid" -name '*.so')
	f=$(echo /usr/lib/"$py"/lib-dynload/readline.*.so)
	[[ -f $f ]] || die "$f not found"
	cp -p "$f" "$ST/usr/lib/$py/lib-dynload/"
	copy_libs "$f"
	f=$(ldconfig -p | awk '/libudev\.so\.1 .*x86-64/ && !n { print $NF; n = 1 }')
	[[ -n $f ]] || die "libudev.so.1 not found (deps.sh: libudev1)"
	copy_file "$f"
	mkdir -p "$ST/usr/lib/x86_64-linux-gnu/girepository-1.0"
	cp -p "$d"/usr/lib/x86_64-linux-gnu/girepository-1.0/{GLib,GObject,GModule,Gio}-2.0.typelib \
		"$ST/usr/lib/x86_64-linux-gnu/girepository-1.0/"
	[[ -x $d/usr/bin/targetcli ]] || die "$d/usr/bin/targetcli not found (selftests/ulp-tools.sh)"
	cp -p "$d/usr/bin/targetcli" "$ST/usr/bin/targetcli"
	SHIPPED+=(targetcli)
	mkdir -p "$ST/etc/rtslib-fb-target"
	ship "$d/usr/bin/dbus-daemon" /usr/bin/dbus-daemon
	mkdir -p "$ST/usr/share/dbus-1/system.d" "$ST/etc/dbus-1/system.d"
	cp -p "$d/usr/share/dbus-1/system.conf" "$ST/usr/share/dbus-1/"
	echo 'messagebus:x:100:102::/nonexistent:/usr/sbin/nologin' >>"$ST/etc/passwd"
	echo 'messagebus:x:102:' >>"$ST/etc/group"
	for f in "${TARGETCLI_PY[@]}"; do
		"$(readlink -f /usr/bin/python3)" -m compileall -q -o 0 "$ST$dp/$f" >/dev/null ||
			die "compileall $f failed"
	done
}

# ship_ulp DIR: rpcbind, the NFS server's daemons, mount.nfs, iscsid and
# iscsiadm, from the packages ulp-tools.sh unpacked in DIR, and what they
# read in /etc; targetcli (ship_targetcli)
ship_ulp() {
	local d=$1 f
	ship_targetcli "$d"
	for f in sbin/rpcbind sbin/mount.nfs usr/sbin/rpc.nfsd usr/sbin/rpc.mountd \
		usr/sbin/exportfs sbin/iscsid sbin/iscsiadm; do
		[[ -x $d/$f ]] || die "$d/$f not found (selftests/ulp-tools.sh)"
		ship "$d/$f" "/usr/sbin/${f##*/}"
	done
	ln -s mount.nfs "$ST/usr/sbin/mount.nfs4"
	for f in /etc/netconfig /etc/services /etc/protocols; do
		copy_file "$f"
	done
	mkdir -p "$ST/var/lib/nfs" "$ST/run/rpcbind" "$ST/etc/iscsi" "$ST/var/lib/iscsi"
	cp "$d/etc/iscsi/iscsid.conf" "$ST/etc/iscsi/"
	echo '_rpc:x:102:65534::/run/rpcbind:/usr/sbin/nologin' >>"$ST/etc/passwd"
	echo 'statd:x:103:65534::/var/lib/nfs:/usr/sbin/nologin' >>"$ST/etc/passwd"
}
[[ -n $ULP_TOOLS ]] && ship_ulp "$ULP_TOOLS"

# ship_mpi: Open MPI's launcher, daemon and plugins, PMIx's and UCX's
# plugins (dlopen()ed: copied as directories, with what each links), and
# their configuration and help texts
ship_mpi() {
	local lib=/usr/lib/x86_64-linux-gnu d f
	command -v orterun >/dev/null || die "Open MPI is not installed (deps.sh cluster)"
	for f in orterun orted ompi_info ucx_info ucx_perftest; do
		ship "/usr/bin/$f"
	done
	ln -s orterun "$ST/usr/bin/mpirun"
	for d in "$lib/openmpi" "$lib/pmix2" "$lib/ucx" "$lib/hwloc" /usr/share/openmpi \
		/usr/share/pmix /etc/openmpi /usr/share/ucx; do
		[[ -d $d ]] || continue
		mkdir -p "$ST$(dirname "$d")"
		cp -a "$d" "$ST$d"
	done
	while read -r f; do
		copy_libs "$f"
	done < <(find "$lib/openmpi" "$lib/pmix2" "$lib/ucx" "$lib/hwloc" -name '*.so*' -type f \
		2>/dev/null)
}
((MPI)) && ship_mpi

# our own test programs
for b in "${EXTRA_BINS[@]}"; do
	cp -L "$b" "$ST/usr/local/bin/$(basename "$b")"
	chmod 755 "$ST/usr/local/bin/$(basename "$b")"
	copy_libs "$b"
	SHIPPED+=("$(basename "$b")")
done

# busybox applets, except names we ship as real binaries
declare -A SKIP_APPLET=()
for n in "${SHIPPED[@]}"; do SKIP_APPLET[$n]=1; done
SKIP_APPLET[busybox]=1
SKIP_APPLET[linuxrc]=1
SKIP_APPLET[init]=1
while read -r a; do
	[[ -n $a && -z ${SKIP_APPLET[$a]:-} ]] || continue
	[[ -e $ST/usr/bin/$a || -L $ST/usr/bin/$a || -e $ST/usr/sbin/$a ]] && continue
	ln -s busybox "$ST/usr/bin/$a"
done < <("$BUSYBOX" --list)

# --- kernel modules -------------------------------------------------------------
MODS=(ib_core ib_uverbs ib_umad rdma_ucm rdma_cm ib_cm iw_cm veth dummy udp_tunnel
	ip6_udp_tunnel rdma_rxe nvme-rdma nvmet-rdma nvme-fabrics nvmet nvme-core
	nfsd nfs nfsv3 nfsv4 rpcrdma target_core_file iscsi_target_mod ib_isert ib_iser iscsi_tcp crc32c_generic
	sd_mod
	null_blk bridge 8021q virtio_net virtio_pci ib_uverbs_support crc32_generic sch_netem sch_tbf
	sch_ingress cls_matchall act_gact sch_prio cls_u32 macvlan ipvlan vxlan geneve bonding
	ifb act_mirred sch_fq_codel sch_red
	nf_tables 9pnet_virtio 9p)

# modprobe -d wants DIR/lib/modules/KVER; build that view for either layout
MODBASE=$TMP/modbase
mkdir -p "$MODBASE/lib/modules"
ln -s "$MODDIR" "$MODBASE/lib/modules/$KVER"
IMGMOD=$ST/usr/lib/modules/$KVER
mkdir -p "$IMGMOD/extra"

declare -A MOD_DONE=()
nmods=0
for m in "${MODS[@]}"; do
	deps=$(modprobe -C /dev/null -d "$MODBASE" -S "$KVER" --show-depends "$m" 2>/dev/null) || continue
	while read -r kind path _; do
		[[ $kind == insmod ]] || continue      # "builtin NAME" needs nothing
		rel=${path#*/lib/modules/"$KVER"/}
		[[ -z ${MOD_DONE[$rel]:-} ]] || continue
		MOD_DONE[$rel]=1
		src=$MODDIR/$rel
		[[ -f $src ]] || die "module file missing: $src"
		mkdir -p "$IMGMOD/$(dirname "$rel")"
		case $rel in
		*.ko.xz) xz -dc "$src" >"$IMGMOD/${rel%.xz}" ;;
		*.ko.zst) zstd -qdc "$src" >"$IMGMOD/${rel%.zst}" ;;
		*.ko.gz) gzip -dc "$src" >"$IMGMOD/${rel%.gz}" ;;
		*) cp "$src" "$IMGMOD/$rel" ;;
		esac
		nmods=$((nmods + 1))
	done <<<"$deps"
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[[ -f $MODDIR/$f ]] && cp "$MODDIR/$f" "$IMGMOD/$f"
done
if [[ -f $IMGMOD/modules.order ]]; then
	# the order file names .ko.xz etc.; we decompressed them
	sed -i -E 's/\.ko\.(xz|zst|gz)$/.ko/' "$IMGMOD/modules.order"
fi
for ko in "${KOS[@]}"; do
	cp "$ko" "$IMGMOD/extra/$(basename "$ko")"
done
depmod -b "$ST" "$KVER"
# the module the Debian package installed, outside the module tree so that
# modprobe never picks it (tests/device/deb_module.sh insmods it)
if [[ -n $DEB_KO ]]; then
	mkdir -p "$ST/lib/sroce-deb"
	cp "$DEB_KO" "$ST/lib/sroce-deb/sroce.ko"
fi

# --- tests and init --------------------------------------------------------------
cp -r "$TESTS/." "$ST/tests/"
if [[ -n $TESTS2 ]]; then
	[[ -d $TESTS2 ]] || die "two-host tests directory not found: $TESTS2"
	mkdir -p "$ST/tests/2host"
	cp -r "$TESTS2/." "$ST/tests/2host/"
fi
if [[ -n $TESTSC ]]; then
	[[ -d $TESTSC ]] || die "cluster tests directory not found: $TESTSC"
	mkdir -p "$ST/tests/cluster"
	cp -r "$TESTSC/." "$ST/tests/cluster/"
fi
cp "$SELF_DIR/lib.sh" "$ST/tests/lib.sh"
install -m 755 "$SELF_DIR/init" "$ST/init"
install -m 644 "$SELF_DIR/splat.lib" "$ST/splat.lib"

# --- archive ----------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
(cd "$ST" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -4 >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"

END=$(date +%s%N)
ms=$(((END - START) / 1000000))
printf 'mkinitramfs: %s: %s (%s uncompressed; %d kernel modules + %d --ko) in %d.%03ds\n' \
	"$OUT" "$(du -h "$OUT" | cut -f1)" "$(du -sh "$ST" | cut -f1)" "$nmods" "${#KOS[@]}" \
	$((ms / 1000)) $((ms % 1000))
