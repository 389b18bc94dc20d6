#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test suite: host-side checks (warning-free W=1 build, sparse, SPDX
# lines), then the in-VM tests. Prints TAP as it goes and ends with the line
# "N passed, N failed, N skipped". Exit status non-zero if anything failed
# or the VM died.
#
#   selftests/check.sh [--kver KVER] [--tests GLOB] [--mode check|run]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=""
tests="*"
mode=check
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

if [ -z "$kver" ]; then
	kver=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	       sed -n 's/^linux-image-\([^ ,]*\).*/\1/p')
fi
kdir=/lib/modules/$kver/build
vmlinuz=/boot/vmlinuz-$kver
if [ -z "$kver" ] || [ ! -f "$kdir/Makefile" ] || [ ! -f "$vmlinuz" ]; then
	echo "check.sh: test kernel '$kver' is not installed (run selftests/deps.sh)" >&2
	exit 2
fi

build=$top/build
mkdir -p "$build"
passed=0 failed=0 skipped=0 n=0

# host_test NAME CMD...: run one host-side test, print a TAP line.
host_test() {
	local name=$1 log rc
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

# A fresh build with W=1: any compiler warning fails.
t_build_w1() {
	make -s -C "$kdir" M="$top" clean >/dev/null 2>&1
	local out
	out=$(make -C "$kdir" M="$top" W=1 modules 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	! grep -qE 'warning:|error:' <<<"$out"
}

t_sparse() {
	make -s KDIR="$kdir" sparse
}

# Every source file carries an SPDX line near its top.
t_spdx() {
	local f bad=0
	while IFS= read -r f; do
		case "$f" in LICENSE) continue ;; esac
		if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier:'; then
			echo "no SPDX line: $f"
			bad=1
		fi
	done < <(git ls-files --cached --others --exclude-standard)
	return $bad
}

# The test programs, built against the distribution's libibverbs.
build_progs() {
	local src out
	mkdir -p "$build/progs"
	for src in selftests/progs/*.c; do
		out=$build/progs/$(basename "$src" .c)
		gcc -Wall -Wextra -Werror -O2 -o "$out" "$src" -libverbs -lrdmacm -lpthread ||
			return 1
	done
}

# The uapi header describes the same layout as the installed rxe ABI header.
t_abi() {
	gcc -Wall -Wextra -Werror -o "$build/abi_compare" selftests/host/abi_compare.c &&
		"$build/abi_compare"
}

vm_tests() {
	local extra=() mode=$1 globs=$2 p
	for p in "$build"/progs/*; do
		[ -x "$p" ] && extra+=(--extra-bin "$p")
	done
	selftests/mkinitramfs.sh --kver "$kver" --modroot / \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--out "$build/initramfs.cpio.gz" "${extra[@]}" >"$build/mkinitramfs.log" 2>&1 ||
		{ cat "$build/mkinitramfs.log"; return 2; }
	selftests/vm.sh --kernel "$vmlinuz" --initrd "$build/initramfs.cpio.gz" \
		--mode "$mode" --tests "$globs" --log "$build/vm"
}

if [ "$mode" = run ]; then
	make -s -C "$kdir" M="$top" modules || exit 1
	build_progs || exit 1
	vm_tests run "*"
	exit $?
fi

start=$(date +%s)
summary=$(mktemp)
echo "TAP version 13"
echo "# host checks (kernel $kver)"
host_test build-w1 t_build_w1
host_test sparse t_sparse
host_test spdx t_spdx
host_test uapi-abi t_abi
host_test progs build_progs

if [ ! -f drivers/sroce/sroce.ko ]; then
	echo "# no module was built: skipping the VM tests"
	vm_rc=1
else
	echo "# VM tests"
	# vm.sh ends with its own count line; ours, below, is the one that counts.
	vm_tests check "$tests" | tee "$summary" |
		sed -E 's/^([0-9]+ passed, [0-9]+ failed, [0-9]+ skipped)$/# VM: \1/'
	vm_rc=${PIPESTATUS[0]}
fi

res=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$summary" 2>/dev/null | tail -1)
rm -f "$summary"
if [ -n "$res" ]; then
	read -r vp _ vf _ vs _ <<<"${res//,/}"
	passed=$((passed + vp)) failed=$((failed + vf)) skipped=$((skipped + vs))
fi
if [ "$vm_rc" != 0 ] && [ "$failed" = 0 ]; then
	# The VM died or timed out before it could report a failure.
	failed=$((failed + 1))
fi

echo "# wall time: $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
