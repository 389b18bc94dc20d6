#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test suite, per kernel: host-side checks (warning-free W=1 build,
# sparse, SPDX lines, the linters, uapi layout, test programs, the pcap
# checker), then the in-VM tests booted on that kernel. Prints TAP as it
# goes, the lines of every kernel but the first prefixed with its name, and
# ends with "N passed, N failed, N skipped" over all kernels. Exit status
# non-zero if anything failed or a VM died.
#
#   selftests/check.sh [--kernels "6.1 6.12 7.2 debug"] [--tests GLOB] [--mode check|run]
#   selftests/check.sh --two-host [--kernels KVER] [--pairs "sroce:sroce sroce:rxe"]
#                      [--mtu BYTES] [--tests GLOB]
#   selftests/check.sh --cluster [--kernels KVER] [--nodes N] [--drivers D1,D2,...]
#                      [--mtu BYTES] [--tests GLOB]
#
# --two-host (make check2) runs the two-host tests (selftests/tests-2host)
# on the first kernel only, in two VMs (selftests/vm2.sh) per pairing A:B of
# drivers; each test runs its server in either VM in turn, so sroce:rxe
# covers sroce as client of rxe and rxe as client of sroce.
# --cluster (make check-cluster) runs the cluster tests
# (selftests/tests-cluster) on the first kernel only, in N VMs (default 4)
# on one bridge (selftests/vmn.sh), each with its --drivers entry.
#
# By default 6.1 (Debian bookworm) runs the whole suite; 6.12 and 7.2, which
# selftests/kernels.sh fetches, and the debug kernel (KASAN, lockdep,
# kmemleak...) run the tests whose "# kernels:" line names them, and those
# with no such line (selftests/init: "lane=KVER"). An explicit --tests
# applies to every kernel; a kernel run alone (make check KVER=...) runs
# the whole suite.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck disable=SC2164  # top was just found; this script does not run set -e, so no || exit
cd "$top"

kernels="6.1 6.12 7.2 debug"
tests=""
mode=check
two_host=0
cluster=0 nodes=4 drivers=sroce
pairs="sroce:sroce sroce:rxe"
mtu=1500
while [ $# -gt 0 ]; do
	case "$1" in
	--two-host) two_host=1; shift ;;
	--cluster) cluster=1; shift ;;
	--nodes) nodes=$2; shift 2 ;;
	--drivers) drivers=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--mtu) mtu=$2; shift 2 ;;
	--kernels) kernels=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ "$tests" = "*" ] && tests=""
# --tests: the 2host/ globs go to the two-host tests, the rest to the others;
# "none" runs no single-VM test, and the two-host matrix as make check does
tests2=""
if [ -n "$tests" ]; then
	IFS=, read -ra _globs <<<"$tests"
	tests=""
	for _g in "${_globs[@]}"; do
		if [[ $_g == 2host/* ]]; then tests2+=${tests2:+,}$_g; else tests+=${tests:+,}$_g; fi
	done
	[ -n "$tests" ] || [ "$two_host" = 1 ] || tests=none
fi
build=$top/build
mkdir -p "$build"
progs_dir=$build/progs	# the test programs (build_progs)
passed=0 failed=0 skipped=0 n=0
pfx=""          # "6.12/" for the kernels after the first

# host_test NAME CMD...: run one host-side test, print a TAP line.
host_test() {
	local name=$pfx$1 log rc
	shift
	n=$((n + 1))
	log=$build/host-${name//\//-}.log
	"$@" >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $n host/$name"
		passed=$((passed + 1))
	else
		echo "not ok $n host/$name # exit=$rc"
		sed 's/^/#   /' "$log" | tail -40
		failed=$((failed + 1))
	fi
}

# kmake ARGS...: make in this tree against the current kernel.
kmake() {
	selftests/kernels.sh make "$kver" "$@"
}

# A fresh build with W=1, probes included: any compiler warning fails.
t_build_w1() {
	local out
	rm -f drivers/sroce/*.o drivers/sroce/*.ko drivers/sroce/compat_probed.h
	out=$(kmake W=1 modules 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	! grep -qE 'warning:|error:' <<<"$out" && [ -f drivers/sroce/sroce.ko ] &&
		modinfo -F vermagic drivers/sroce/sroce.ko | grep -q "^$KREL "
}

t_sparse() {
	kmake -s sparse
}

# Every source file carries an SPDX line near its top; an image (the bench
# charts in Documentation/) carries it in FILE.license, as REUSE does.
t_spdx() {
	local f l bad=0
	while IFS= read -r f; do
		case "$f" in LICENSE) continue ;; esac
		# a file whose format has no comments (an image, a Debian
		# changelog) has its SPDX line in FILE.license beside it
		l=$f
		[ -f "$f.license" ] && l=$f.license
		if ! head -n 3 "$l" 2>/dev/null | grep -q 'SPDX-License-Identifier:'; then
			echo "no SPDX line: $f"
			bad=1
		fi
	done < <(git ls-files --cached --others --exclude-standard)
	return $bad
}

# Every test's "# kernels:" line names known kernels, 6.1 among them but
# for userland/ tests (a misspelt name would drop the test from that
# kernel's lane unseen).
t_test_kernels() {
	local f k bad=0
	for f in selftests/tests/*/*.sh; do
		k=$(sed -n '/^[^#]/q; s/^# kernels: //p' "$f")
		[ -n "$k" ] || continue
		# a userland test runs where check.sh gives a userland
		if [[ (! " $k " == *" 6.1 "* && $f != selftests/tests/userland/*) ||
			! $k =~ ^(6\.1|6\.12|7\.2|debug)(\ (6\.1|6\.12|7\.2|debug))*$ ]]; then
			echo "$f: kernels: $k"
			bad=1
		fi
	done
	return $bad
}

# The shell scripts under shellcheck and the Python under flake8, at zero
# findings (selftests/style.sh). checkpatch.pl comes from a kernel source,
# the debug kernel's, which may still be building now: t_checkpatch runs it
# once that kernel is set up.
t_style() {
	selftests/style.sh shellcheck python
}

# The driver's and uapi's C under checkpatch.pl --strict, at zero findings:
# the debug kernel's own script (KDIR is its build directory, beside the
# source it was built from).
t_checkpatch() {
	CHECKPATCH=${KDIR%/build}/src/scripts/checkpatch.pl selftests/style.sh checkpatch
}

# The test programs, built against the distribution's libibverbs.
build_progs() {
	local src out files
	mkdir -p "$progs_dir"
	# one program per file, and one per directory of files (rc_data/)
	for src in selftests/progs/*.c selftests/progs/*/; do
		out=$progs_dir/$(basename "$src" .c)
		files=("$src")
		[ ! -d "$src" ] || files=("$src"*.c)
		gcc -Wall -Wextra -Werror -O2 -o "$out" "${files[@]}" -libverbs -lrdmacm -lpthread ||
			return 1
	done
}

# The uapi header describes the same layout as the installed rxe ABI header.
t_abi() {
	gcc -Wall -Wextra -Werror -o "$build/abi_compare" selftests/host/abi_compare.c &&
		"$build/abi_compare"
}

# The driver's packet checks under libFuzzer with ASan and UBSan: a short
# pass with a fixed seed (make fuzz runs long ones).
t_fuzz() {
	selftests/fuzz/run.sh --runs 200000 --seed 1
}

# The capture checker of the two-host runs (roce_pcap.py) on pcaps built
# in the test, its ICRC against the driver's parse.c.
t_pcap_checker() {
	python3 selftests/roce_pcap_test.py -v
}

# sroce's copy of the core's private struct rdma_umap_priv matches this
# kernel's (selftests/umap-priv.sh; the debug kernel has no BTF to read,
# and its 6.1 source is the Debian 6.1 kernel's, which is checked).
t_umap_priv() {
	# shellcheck disable=SC2012  # the first of a glob of kernel module file names, which have no special characters
	selftests/umap-priv.sh "$VMLINUZ" \
		"$(ls "$MODROOT"/lib/modules/"$KREL"/kernel/drivers/infiniband/core/ib_core.ko* | head -1)"
}

# The Debian DKMS package: make deb, then deb-test.sh installs it with apt
# in a throwaway overlay of this host, where DKMS builds it for 6.1 (the
# headers deps.sh installs) and, on 6.12, for 6.12 as well; it checks the
# installed modules and removes the package. The host's packages, DKMS
# state and module trees are untouched. The module installed for KREL goes
# into the initramfs for tests/device/deb_module.sh.
t_deb() {
	local k
	k=("$(eval "$(selftests/kernels.sh env 6.1)" && echo "$KREL=$KDIR")") || return 1
	rm -rf "$build/deb-test"
	# shellcheck disable=SC2128  # k has one element here, the one compared
	[ "$k" = "$KREL=$KDIR" ] || k+=("$KREL=$KDIR")
	make -s deb >"$build/deb-build.log" 2>&1 || { cat "$build/deb-build.log"; return 1; }
	selftests/deb-test.sh "$(ls build/deb/sroce-dkms_*_all.deb)" "$build/deb-test" "${k[@]}"
}

# The package in a newer Debian: with apt in trixie's root (the userland)
# against trixie's own 6.12 headers, on the 6.12 lane; in the sid build
# root against 7.2's headers, on 7.2, whose module the VM then loads
# (tests/device/deb_module.sh). Both roots have dkms (kernels.sh).
t_deb_dist() {
	local root hrel deb
	case $kver in
	6.12)
		root=$USERLAND
		# shellcheck disable=SC2012  # header directory names have no special characters
		hrel=$(ls "$root/usr/src" | sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' |
			sort -V | tail -1)
		;;
	7.2) root=$CHROOT hrel=$KREL ;;
	*) return 1 ;;
	esac
	[ -n "$hrel" ] || { echo "no kernel headers in $root"; return 1; }
	make -s deb >"$build/deb-build.log" 2>&1 || { cat "$build/deb-build.log"; return 1; }
	deb=$(ls build/deb/sroce-dkms_*_all.deb) || return 1
	selftests/deb-test.sh --root "$root" "$deb" "$build/deb-test-$kver" \
		"$hrel=/usr/src/linux-headers-$hrel"
}

# vm_initramfs: the current kernel's initramfs, with this module build and
# the test programs (build/initramfs-KVER.cpio.gz).
vm_initramfs() {
	local extra=() p log=$build/mkinitramfs-$kver.log
	for p in "$progs_dir"/*; do
		[ -x "$p" ] && extra+=(--extra-bin "$p")
	done
	# the module the package built for this kernel (t_deb, t_deb_dist)
	for p in "$build"/deb-test*/"$KREL"/sroce.ko; do
		[ -f "$p" ] && { extra+=(--deb-ko "$p"); break; }
	done
	selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--out "$build/initramfs-$kver.cpio.gz" "${extra[@]}" >"$log" 2>&1 ||
		{ cat "$log"; return 2; }
}

# The time a run of make check may take: the CI gives it 90 minutes and
# .ci/run is to stay under 80, so 79 (the summary takes seconds). Each
# VM's total timeout is cut to what is left of CHECK_BUDGET seconds from
# the start (CHECK_T0, date +%s, which .ci/run sets before it installs
# anything; else this script's), less a minute for the summary, and a VM
# that would have under two minutes does not boot: a run that goes over,
# by a hang or a slow host, ends with its failures and its slowest tests
# listed, rather than being killed with nothing said. Only the whole suite
# (make check with no KVER or T) has a budget unless one is set (below,
# once the options are known).
budget=${CHECK_BUDGET:-4740}
start=${CHECK_T0:-$(date +%s)}

# vm_budget SECONDS: SECONDS, or what is left of the budget if that is less;
# 0 if under two minutes are left.
vm_budget() {
	local left=$((start + budget - 60 - $(date +%s)))
	((left >= 120)) || { echo 0; return; }
	echo $((left < $1 ? left : $1))
}

# vm_boot MODE GLOBS: one VM on the current kernel, at most $vm_total
# seconds (vm_opts) or what is left of the budget.
vm_boot() {
	local t
	t=$(vm_budget "$vm_total")
	if [ "$t" = 0 ]; then
		echo "not ok 0 vm # not booted: out of the ${budget} s budget"
		return 2
	fi
	selftests/vm.sh --kernel "$VMLINUZ" --initrd "$build/initramfs-$kver.cpio.gz" \
		--mode "$1" --tests "$2" --log "$build/vm-$kver" --timeout "$t" \
		"${VM_OPTS[@]}"
}

vm_tests() {
	vm_initramfs && vm_boot "$@"
}

# vm_print: vm.sh's output as ours (its count line saved in $summary, test
# lines of later kernels named with the kernel).
vm_print() {
	tee "$summary" "$summary.all" |
		sed -E -e 's/^([0-9]+ passed, [0-9]+ failed, [0-9]+ skipped)$/# VM: \1/' \
			-e "s#^(not )?ok ([0-9]+) #\1ok \2 $pfx#"
}

# vm_count RC FAILED_BEFORE: add vm.sh's count line to the totals; a VM that
# died or timed out before it could report a failure is one.
vm_count() {
	local res vp vf vs
	res=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$summary" 2>/dev/null | tail -1)
	: >"$summary"
	if [ -n "$res" ]; then
		read -r vp _ vf _ vs _ <<<"${res//,/}"
		passed=$((passed + vp)) failed=$((failed + vf)) skipped=$((skipped + vs))
	fi
	if [ "$1" != 0 ] && [ "$failed" = "$2" ]; then
		failed=$((failed + 1))
		# why, and the console's last kernel lines, as a failure of
		# its own: the list of failures at the end is what a CI log
		# that keeps only its tail shows
		echo "not ok ${pfx}vm # vm.sh exit $1: $(grep -m1 -E 'VM died|timeout of|no test matched|not booted' \
			"$summary.all" 2>/dev/null || echo "no reason given")"
		grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$summary.all" 2>/dev/null | tail -n 8 |
			sed 's/^/#   FAIL console: /'
	fi
	rm -f "$summary.all"
}

# vm_opts: QEMU memory and timeouts for the current kernel. The debug kernel
# (KASAN, lockdep, kmemleak) runs several times slower under TCG and KASAN's
# shadow and kmemleak's metadata take memory.
vm_opts() {
	local append=""
	VM_OPTS=()
	vm_total=3000
	case $kver in
	# its slowest test takes about 65 s here
	debug) VM_OPTS=(--mem 3072 --test-timeout 600); vm_total=4800 ;;
	esac
	if [ "$kver" = debug ]; then
		# The debug kernel run alone (make check KVER=debug) scans for
		# leaks after every test, and fails that test (about 25 s per
		# test); beside the other kernels, once after the last test
		# (test selftests/kmemleak). A floor under the local ACK
		# timeout: 67 ms (perftest's) is far less than the debug kernel
		# needs to answer a burst (see comp.c).
		append="sroce.min_ack_timeout_ms=1000"
		[ "${lead:-0}" = 1 ] && append+=" sroce_harness.kmemleak=each"
	fi
	# make fuzz-verbs: the verbs fuzzer's time and seed, which
	# tests/verbs/fuzz.sh reads from the kernel command line
	if [ -n "${FUZZ_SECONDS:-}" ]; then
		append+=" sroce_fuzz.seconds=$FUZZ_SECONDS"
		VM_OPTS+=(--test-timeout $((FUZZ_SECONDS + 600)))
		vm_total=$((vm_total + FUZZ_SECONDS))
	fi
	[ -n "${FUZZ_SEED:-}" ] && append+=" sroce_fuzz.seed=$FUZZ_SEED"
	# more kernel parameters for the VMs, e.g. sroce_harness.pydriver=rxe
	[ -z "${VM_APPEND:-}" ] || append+=" $VM_APPEND"
	[ -z "$append" ] || VM_OPTS+=(--append "${append# }")
	[ -z "${USERLAND:-}" ] || VM_OPTS+=(--userland "$USERLAND")
}

# kernel_env KVER: KREL, KDIR, VMLINUZ, MODROOT for it, fetched if need be,
# and USERLAND, the root of the newer RDMA user space its VM mounts
# (tests/userland): trixie's on 6.12, sid's on 7.2, set up if need be
kernel_env() {
	local e ul='' log=$build/kernels-$1.log
	e=$(selftests/kernels.sh env "$1" 2>"$log") || { tail -20 "$log"; return 1; }
	eval "$e"
	case $1 in
	6.12) ul=trixie ;;
	7.2) ul=sid ;;
	esac
	USERLAND=
	[ -z "$ul" ] && return 0
	USERLAND=$(selftests/kernels.sh userland "$ul" 2>>"$log") || { tail -20 "$log"; return 1; }
}

# The two-VM matrix that make check runs after each kernel's tests (after
# all of them and the background VMs, when some run in the background), as
# A:B[@MTU][=GLOBS] pairings (selftests/vm2.sh; A and B each sroce or rxe,
# that kernel's own rdma_rxe; GLOBS, if given, its tests): sroce against
# rdma_rxe on 6.1 and 7.2 (each test runs its server in either VM in turn,
# so both roles), at path MTU 1024 (netdev MTU 1500) and, on 7.2, 4096
# (9000); sroce against sroce at 4096 on 6.1, with the 300-connection
# test; sroce against sroce on 7.2 with 2host/atomic_write alone, for
# RDMA FLUSH, which 6.1 lacks and rdma_rxe cannot exchange
# (Documentation/interop.md). 6.12 runs none since the CI came within 2
# minutes of its 90 (its sroce:rxe took 231 s): rdma_rxe as the peer is
# tested on the oldest and the newest kernel. make check2 runs any pairing
# (make check2 KVER=6.12 PAIRS=sroce:rxe).
two_host_plan() {
	case $1 in
	6.1) echo "sroce:rxe sroce:sroce@9000" ;;
	7.2) echo "sroce:rxe@9000 sroce:sroce=2host/atomic_write" ;;
	esac
}
# The tests of a pairing with rdma_rxe: every case but connect300, lossy
# and perftest's latency tests over every size (perftest_short: at 2 B;
# make check2 runs 2host/perftest), on 6.1. 7.2 runs no NFS or iSER: the
# full lists took the CI past 80 minutes, and the cases left out run the
# same sroce code paths on 6.1.
# sroce:sroce pairings run connect300 and lossy with the bulk and pingpong
# tests at their path MTU (the rest would add 5 minutes there). make
# check2 and "make check T=2host/..." run any test on any pairing.
TWO_HOST_RXE_TESTS=2host/cm,2host/iser,2host/nfs,2host/nvme,2host/perftest_short,2host/pingpong,2host/pingpongs,2host/read_bw,2host/send_bw,2host/write_bw
TWO_HOST_RXE_TESTS_7_2=2host/atomic_write,2host/cm,2host/nvme,2host/perftest_short,2host/pingpong,2host/pingpongs,2host/read_bw,2host/send_bw,2host/write_bw
TWO_HOST_SROCE_TESTS=2host/atomic_write,2host/connect300,2host/lossy,2host/pingpong,2host/read_bw,2host/send_bw,2host/write_bw

# two_host_tests "A:B[@MTU] ...": each pairing in its own pair of VMs, logs
# in build/vm2-KVER-A-B[-mtuN], the capture checker's report in its
# roce.txt. TAP lines "ok N [KVER/]A-B[-mtuN]/a|b/2host/TEST"; the counts
# are added to passed/failed/skipped.
two_host_tests() {
	two_host_initramfs && two_host_run "$1"
}

# two_host_initramfs: the current kernel's initramfs of the two-VM tests
# (build/initramfs2-KVER.cpio.gz), with this build of the module.
two_host_initramfs() {
	local p extra=() log=$build/mkinitramfs2-$kver.log
	for p in "$progs_dir"/*; do
		[ -x "$p" ] && extra+=(--extra-bin "$p")
	done
	p=$(selftests/ulp-tools.sh 2>>"$log") || { cat "$log"; failed=$((failed + 1)); return 2; }
	extra+=(--ulp-tools "$p")
	selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--tests2 "$top/selftests/tests-2host" \
		--out "$build/initramfs2-$kver.cpio.gz" "${extra[@]}" >"$log" 2>&1 ||
		{ cat "$log"; failed=$((failed + 1)); return 2; }
}

# two_host_run "A:B[@MTU] ...": the pairings, from two_host_initramfs's
# initramfs of the current kernel.
two_host_run() {
	local p a b m rc=0 r t t0 log tag globs res only
	for p in $1; do
		only=${p#*=}
		[ "$only" = "$p" ] && only=""
		p=${p%%=*}
		m=${p#*@}
		[ "$m" = "$p" ] && m=$mtu
		p=${p%@*} a=${p%%:*} b=${p#*:}
		tag=$a-$b
		[ "$m" = 1500 ] || tag+=-mtu$m
		log=$build/vm2-$kver-$tag
		globs=${tests2:-2host/*}
		if [ -z "$tests2" ] && [ "$two_host" = 0 ]; then
			case $kver in
			7.2) globs=$TWO_HOST_RXE_TESTS_7_2 ;;
			*) globs=$TWO_HOST_RXE_TESTS ;;
			esac
			[ "$a:$b" = sroce:sroce ] && globs=$TWO_HOST_SROCE_TESTS
			[ -n "$only" ] && globs=$only
		fi
		t=$(vm_budget 5400)
		if [ "$t" = 0 ]; then
			echo "not ok $pfx$tag # not run: out of the ${budget} s budget"
			failed=$((failed + 1)) rc=1
			continue
		fi
		echo "# pairing a=$a b=$b, MTU $m: logs in $log"
		t0=$(date +%s)
		r=0
		# its slowest test, 2host/perftest, takes about 200 s
		selftests/vm2.sh --kernel "$VMLINUZ" --initrd "$build/initramfs2-$kver.cpio.gz" \
			--a "$a" --b "$b" --mtu "$m" --tests "$globs" \
			--timeout "$t" --test-timeout 900 \
			--log "$log" "${VM_OPTS[@]}" >"$log.out" 2>&1 || r=$?
		pair_logs+=("$log.out")
		sed -E -e "s#^([ab])/(not )?ok ([0-9]+) (.*)#\2ok \3 $pfx$tag/\1/\4#" \
			-e '/^(not )?ok /!s/^/# /' -e 's/^# # /# /' "$log.out" |
			grep -E "^(not )?ok |^# (sender|checked|malformed|vm2.sh|[ab]/# FAIL|[ab]/#   (counters|server:|client:))|$SPLAT_LINE_RE" |
			awk '!/^(not )?ok |^# (sender|checked|malformed|vm2|[ab]\/# FAIL|[ab]\/#   (co|se|cl))/{if (++s > 12) next} 1' || true
		res=$(tail -n 1 "$log.out")
		if [[ $res =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			passed=$((passed + BASH_REMATCH[1]))
			failed=$((failed + BASH_REMATCH[2]))
			skipped=$((skipped + BASH_REMATCH[3]))
			((r == 0 || BASH_REMATCH[2] > 0)) || failed=$((failed + 1))
		else
			failed=$((failed + 1))
		fi
		echo "# pairing a=$a b=$b, MTU $m: exit $r in $(( $(date +%s) - t0 )) s"
		[ $r = 0 ] || { echo "not ok $pfx$tag # vm2.sh exit $r, see $log.out"; rc=1; }
	done
	return $rc
}

# cluster_tests: the cluster tests in $nodes VMs (selftests/vmn.sh), from
# an initramfs that has them; TAP lines "ok N cluster-NODES/K/cluster/TEST".
cluster_tests() {
	local p extra=() log=$build/mkinitramfs-cluster-$kver.log r=0 res
	for p in "$progs_dir"/*; do
		[ -x "$p" ] && extra+=(--extra-bin "$p")
	done
	# the MPI job (tests-cluster/mpi.sh), built against the host's Open MPI
	mkdir -p "$build/mpi"
	mpicc -Wall -Wextra -Werror -O2 -o "$build/mpi/mpi_check" selftests/mpi/mpi_check.c \
		>"$log" 2>&1 || { cat "$log"; failed=$((failed + 1)); return 1; }
	extra+=(--extra-bin "$build/mpi/mpi_check" --mpi)
	selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--tests-cluster "$top/selftests/tests-cluster" \
		--out "$build/initramfs-cluster-$kver.cpio.gz" "${extra[@]}" >"$log" 2>&1 ||
		{ cat "$log"; failed=$((failed + 1)); return 1; }
	log=$build/vmn-$kver
	echo "# cluster: $nodes nodes ($drivers), MTU $mtu: logs in $log"
	selftests/vmn.sh --kernel "$VMLINUZ" --initrd "$build/initramfs-cluster-$kver.cpio.gz" \
		--nodes "$nodes" --drivers "$drivers" --mtu "$mtu" \
		--tests "${tests:-cluster/*}" --log "$log" >"$log.out" 2>&1 || r=$?
	sed -E -e "s#^([0-9]+)/(not )?ok ([0-9]+) (.*)#\2ok \3 ${pfx}cluster-$nodes/\1/\4#" \
		-e '/^(not )?ok /!s/^/# /' -e 's/^# # /# /' "$log.out" |
		grep -E "^(not )?ok |^# (vmn.sh|capture|taps|[0-9]+/# FAIL|[0-9]+/\[)|$SPLAT_LINE_RE" || true
	res=$(tail -n 1 "$log.out")
	if [[ $res =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		passed=$((passed + BASH_REMATCH[1]))
		failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + BASH_REMATCH[3]))
		((r == 0 || BASH_REMATCH[2] > 0)) || failed=$((failed + 1))
	else
		failed=$((failed + 1))
	fi
	[ $r = 0 ] || echo "not ok ${pfx}cluster-$nodes # vmn.sh exit $r, see $log.out"
	cluster_chart "$log"
}

# cluster_chart LOGDIR: cluster/incast's senders' rates over time, from
# their TAP, into build/incast-KVER.png (selftests/bench/incast.gp)
cluster_chart() {
	local dat=$build/incast-$kver.dat
	tr -d '\r' <<<"$(cat "$1"/*/results.tap 2>/dev/null)" |
		sed -n 's/^SUMMARY incast-\(nocc\|cc\) node \([0-9]*\) .*sent (ms:Mbit\/s): \(.*\)Mbit\/s$/\1 \2 \3/p' |
		awk '{ r = $1 == "nocc" ? 0 : 1; n = $2; if (NF == 2) next
			for (i = 3; i <= NF; i++) { split($i, v, ":"); print r, n, v[1], v[2] }
			print "" }' >"$dat"
	[ -s "$dat" ] && command -v gnuplot >/dev/null || return 0
	gnuplot -e "data='$dat'; out='$build/incast-$kver.png'; mbit='40'; nodes='$nodes';
		title='cluster/incast on $kver: 3 senders, 1 receiver, $drivers'" \
		selftests/bench/incast.gp && echo "# chart: $build/incast-$kver.png"
}

pair_logs=()
# a kernel splat's lines in a test's output (selftests/init's patterns,
# after the console's timestamp), for the summaries above
SPLAT_LINE_RE='\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|lockdep|locking|refcount_t:|corruption|soft lockup|hung_task|blocked for more|RIP:|Kernel panic)'
[ "$two_host$mode$kernels$tests" = "0check6.1 6.12 7.2 debug" ] ||
	budget=${CHECK_BUDGET:-1000000}
if [ "$cluster" = 1 ]; then
	kver=${kernels%% *}
	kernel_env "$kver" || exit 1
	kmake -s modules || exit 1
	build_progs || exit 1
	cluster_tests
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit $?
fi
if [ "$two_host" = 1 ]; then
	kver=${kernels%% *}
	kernel_env "$kver" || exit 1
	VM_OPTS=()
	kmake -s modules || exit 1
	build_progs || exit 1
	two_host_tests "$pairs"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit $?
fi

if [ "$mode" = run ]; then
	kver=${kernels%% *}
	kernel_env "$kver" || exit 1
	vm_opts
	kmake -s modules || exit 1
	build_progs || exit 1
	vm_tests run "*"
	exit $?
fi

summary=$(mktemp)
# everything printed, for the list of failures at the end (a CI log may
# keep only its head and tail)
all=$build/check.log
bg_pid="" prefetch_pid=""
trap 'rm -f "$summary" "$summary.all"; kill $bg_pid $prefetch_pid 2>/dev/null' EXIT
exec 3>&1 > >(tee "$all")
tee_pid=$!
echo "TAP version 13"
# Lanes: the kernels in BG_KERNELS (default: 7.2, then debug) are set up
# and their VMs run one after another in a background lane, beside the
# others' in the foreground, and report at the end (PARALLEL=0: all in
# turn). QEMU runs one VM on about one of the two cores. The lane sets up
# its own kernels (fetch or build, host checks, module, initramfs) in a
# copy of the tree, so that neither lane waits for the other's kernel: the
# debug kernel's build from an empty cache, about 1,600 CPU seconds, runs
# beside the VMs. The first kernel asked for never goes to the background
# (it runs the whole suite).
bg_kernels=""
if [ "${PARALLEL:-1}" != 0 ]; then
	for k in ${BG_KERNELS:-7.2 debug}; do
		[ "$k" != "${kernels%% *}" ] && [[ " $kernels " == *" $k "* ]] &&
			bg_kernels+="$k "
	done
fi
fg_kernels=""
for k in $kernels; do
	[[ " $bg_kernels " == *" $k "* ]] || fg_kernels+="$k "
done
rm -f "$build"/vm-*.host "$build"/vm-*.host.count "$build"/vm-*.out \
	"$build"/vm-*.out.rc "$build"/vm-*.pairs "$build"/vm-*.secs

# kernel_setup: the current kernel ($kver) fetched or built (kernel_env),
# or its failure counted
kernel_setup() {
	kernel_env "$kver" && return 0
	n=$((n + 1))
	echo "not ok $n host/$pfx$kver/fetch # could not fetch or set up kernel $kver"
	failed=$((failed + 1))
	return 1
}

# module_checks: the module's fresh W=1 build (its probes shown) and sparse
module_checks() {
	host_test build-w1 t_build_w1
	grep -h '^probe:' "$build/host-${pfx//\//-}build-w1.log" | sed 's/^/# /'
	host_test sparse t_sparse
}

# kernel_globs KVER LEAD: the tests of a kernel's VM: every test on the
# first kernel, on the others those their "# kernels:" lines give them
kernel_globs() {
	local g="lane=$1"
	[ "$2" = 1 ] && g='*'
	echo "${tests:-$g}"
}

# pairing_wanted: whether the current kernel's two-VM pairings run
pairing_wanted() {
	[ -n "$plan" ] && [ -f drivers/sroce/sroce.ko ] &&
		{ [ -z "$tests" ] || [ "$tests" = none ] || [ -n "$tests2" ]; }
}

# bg_setup: a background kernel set up in the lane, in build/tree-KVER (a
# copy of the tracked files: the foreground builds the module for its
# kernels meanwhile), the test programs in build/progs-lane. Its TAP lines
# go to build/vm-KVER.host, their counts to .host.count, a pairing for
# the end to .pairs. Fails when there is no VM to run.
bg_setup() {
	local p0=$passed f0=$failed s0=$skipped rc=0 src=$top
	pfx=$kver/
	top=$build/tree-$kver
	progs_dir=$build/progs-lane
	rm -rf "$top" && mkdir -p "$top" || return 1
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$src" ls-files -z | (cd "$src" && tar -c --null -T - -f -) |
			tar -x -C "$top" || return 1
		# what make deb packs (Makefile)
		mkdir -p "$top/build"
		git -C "$src" ls-files -z >"$top/build/tracked-files"
	else
		(cd "$src" && cp -a Makefile Kbuild drivers uapi selftests "$top/") || return 1
	fi
	cd "$top" || return 1
	if ! kernel_setup; then
		rc=1
	else
		echo "# kernel $kver: $KREL (set up in the background)"
		module_checks
		[ "$kver" != debug ] || host_test checkpatch t_checkpatch
		[ "$kver" = debug ] || host_test umap-priv t_umap_priv
		[ "$kver" != 7.2 ] || host_test deb-sid t_deb_dist
		[ -x "$progs_dir/rc_data" ] || build_progs >"$build/host-lane-progs.log" 2>&1 ||
			cat "$build/host-lane-progs.log"
		plan=$(two_host_plan "$kver")
		if pairing_wanted && two_host_initramfs; then
			echo "$kver $pfx $VMLINUZ $plan" >"$build/vm-$kver.pairs"
		fi
		if [ "$g" = none ]; then
			:
		elif [ ! -f drivers/sroce/sroce.ko ]; then
			echo "# no module was built for $kver: skipping its VM tests"
			rc=1
		else
			echo "# VM tests on $KREL: $g"
			vm_initramfs || rc=1
		fi
	fi
	echo "$((passed - p0)) $((failed - f0)) $((skipped - s0))" >"$build/vm-$kver.host.count"
	return $rc
}

# bg_lane: the background kernels, one after another; each VM's output in
# build/vm-KVER.out, vm.sh's exit status in .out.rc.
bg_lane() {
	local g t0
	for kver in $bg_kernels; do
		lead=0
		g=$(kernel_globs "$kver" 0)
		t0=$(date +%s)
		( bg_setup >"$build/vm-$kver.host" 2>&1 &&
		  if [ "$g" = none ]; then
			echo 0 >"$build/vm-$kver.out.rc"
		  else
			vm_opts
			vm_boot check "$g" >"$build/vm-$kver.out" 2>&1
			echo $? >"$build/vm-$kver.out.rc"
		  fi )
		echo $(($(date +%s) - t0)) >"$build/vm-$kver.secs"
	done
}

# The debug kernel is built here when the cache lacks it: it starts now,
# beside everything else (kernels.sh makes a second caller wait for it).
if [[ " $kernels " == *" debug "* ]] && [ "${kernels%% *}" != debug ]; then
	selftests/kernels.sh env debug >/dev/null 2>"$build/kernels-debug-build.log" &
	prefetch_pid=$!
fi
bg_pid=""
if [ -n "$bg_kernels" ]; then
	echo "# kernels set up and run in the background, reported at the end: $bg_kernels"
	bg_lane &
	bg_pid=$!
fi
first=1
deferred=()
for kver in $fg_kernels; do
	kstart=$(date +%s)
	kp=$passed kf=$failed ks=$skipped
	# lead: the first kernel, which runs everything
	lead=$first
	kernel_setup || continue
	pfx=""
	[ $lead = 1 ] || pfx="$kver/"
	vm_opts
	echo "# kernel $kver: $KREL"
	module_checks
	if [ $lead = 1 ]; then
		host_test spdx t_spdx
		host_test style t_style
		host_test test-kernels t_test_kernels
		host_test uapi-abi t_abi
		host_test progs build_progs
		host_test fuzz-parse t_fuzz
		host_test pcap-checker t_pcap_checker
	fi
	case $kver in 6.1|6.12) host_test deb t_deb ;; esac
	case $kver in
	6.12) host_test deb-trixie t_deb_dist ;;
	7.2) host_test deb-sid t_deb_dist ;;
	esac
	[ "$kver" != debug ] || host_test checkpatch t_checkpatch
	[ "$kver" = debug ] || host_test umap-priv t_umap_priv

	globs=$(kernel_globs "$kver" "$lead")
	vm_rc=0
	if [ ! -f drivers/sroce/sroce.ko ]; then
		echo "# no module was built for $kver: skipping its VM tests"
		vm_rc=1
	elif [ "$globs" = none ]; then
		:		# only two-host tests asked for
	else
		echo "# VM tests on $KREL: $globs"
		# vm.sh ends with its own count line; ours, below, is the one
		# that counts. Test lines of later kernels carry the kernel name.
		vm_tests check "$globs" | vm_print
		vm_rc=${PIPESTATUS[0]}
	fi
	vm_count "$vm_rc" "$kf"
	plan=$(two_host_plan "$kver")
	if pairing_wanted; then
		VM_OPTS=()
		if [ -z "$bg_kernels" ]; then
			two_host_tests "$plan" || true
		elif two_host_initramfs; then
			# after the background VMs: see "deferred" below
			deferred+=("$kver ${pfx:--} $VMLINUZ $plan")
		fi
	fi
	echo "# kernel $kver: $((passed - kp)) passed, $((failed - kf)) failed," \
		"$((skipped - ks)) skipped in $(( $(date +%s) - kstart )) s"
	first=0
done

if [ -n "$bg_pid" ]; then
	# vm.sh's --timeout bounds each VM
	wait "$bg_pid"
	bg_pid=""
fi
lane_deferred=()
for kver in $bg_kernels; do
	pfx=$kver/
	kp=$passed kf=$failed ks=$skipped
	cat "$build/vm-$kver.host" 2>/dev/null
	read -r hp hf hs <"$build/vm-$kver.host.count" 2>/dev/null || hp=0 hf=0 hs=0
	passed=$((passed + hp)) failed=$((failed + hf)) skipped=$((skipped + hs))
	[ ! -f "$build/vm-$kver.out" ] || vm_print <"$build/vm-$kver.out"
	vm_count "$(cat "$build/vm-$kver.out.rc" 2>/dev/null || echo 1)" "$failed"
	[ -f "$build/vm-$kver.pairs" ] && lane_deferred+=("$(cat "$build/vm-$kver.pairs")")
	echo "# kernel $kver: $((passed - kp)) passed, $((failed - kf)) failed," \
		"$((skipped - ks)) skipped in $(cat "$build/vm-$kver.secs" 2>/dev/null) s (in the background)"
done
deferred=("${lane_deferred[@]}" "${deferred[@]}")
# The two-VM pairings, deferred while the background VMs ran: their checks
# are about time (a request sent again with no loss before it fails), and
# three QEMUs on two cores slow a peer past a 67 ms ACK timeout.
for d in "${deferred[@]}"; do
	read -r kver pfx VMLINUZ plan <<<"$d"
	[ "$pfx" = - ] && pfx=""
	kstart=$(date +%s)
	kp=$passed kf=$failed ks=$skipped
	VM_OPTS=()
	two_host_run "$plan" || true
	echo "# kernel $kver, two-VM pairings: $((passed - kp)) passed, $((failed - kf)) failed," \
		"$((skipped - ks)) skipped in $(( $(date +%s) - kstart )) s"
done

# where the time went, again at the end (a CI log may keep only its tail)
sleep 0.2
grep -E '^# (kernel .* in [0-9]+ s|pairing .*: exit )' "$all" | sed 's/^# /#   /'
echo "# wall time: $(( $(date +%s) - start )) s of a ${budget} s budget"
# the slowest tests (where a hang shows first)
echo "# slowest tests:"
{
	awk '/^(not )?ok /{sub(/^(not )?ok [0-9]+ /, ""); n=$1}
		/^#   \([0-9]+s\)$/{gsub(/[^0-9]/, ""); print $0 " s " n}' "$all"
	for f in "${pair_logs[@]}"; do
		awk -v p="${f##*/}" '/^a\/(not )?ok /{sub(/^a\/(not )?ok [0-9]+ /, ""); n=$1}
			/^a\/#   \([0-9]+s\)$/{gsub(/[^0-9]/, ""); print $0 " s " p ": " n}' "$f"
	done
} | sort -rn | head -n 8 | sed 's/^/#   /'
if [ "$failed" != 0 ]; then
	echo "# failed:"
	# each failure with its reasons: a test's first FAIL line, a VM's
	# last console lines, the first lines of a kernel splat
	grep -E -A80 '^not ok ' "$all" | grep -E "^not ok |FAIL|$SPLAT_LINE_RE" |
		awk '/^not ok /{print "#   " $0; f=6; next} f>0{print "#     " $0; f--}' |
		head -n 60
fi
echo "$passed passed, $failed failed, $skipped skipped"
# let tee write the last lines before the caller sees the exit status (5 s
# at most: a stray child may still hold the pipe)
exec 1>&3 3>&-
for _i in $(seq 50); do
	kill -0 "$tee_pid" 2>/dev/null || break
	sleep 0.1
done
[ "$failed" = 0 ]
