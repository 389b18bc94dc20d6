#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": sroce against the kernel's own rdma_rxe, on the same kernel,
# image and topology, booted one after the other. Each boot runs
# selftests/tests/bench.sh with sroce_bench.driver=sroce or =rxe; this script
# puts their figures side by side with the ratio. Under TCG only ratios from
# one run mean anything, and even those are noisy: run it more than once
# before believing a small difference.
#
#   selftests/bench.sh [--kernel 6.1|6.12|7.2] [--rounds N]
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=6.1
rounds=1
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kver=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

eval "$(selftests/kernels.sh env "$kver")"
selftests/kernels.sh make "$kver" -s modules
build=$top/build
mkdir -p "$build"
selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
	--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
	--out "$build/initramfs-bench.cpio.gz" >"$build/mkinitramfs-bench.log"

res=$build/bench-$kver.txt
: >"$res"
for r in $(seq 1 "$rounds"); do
	for drv in sroce rxe; do
		echo "bench: round $r, $drv on $KREL"
		log=$build/bench-$kver-$drv
		if ! selftests/vm.sh --kernel "$VMLINUZ" --initrd "$build/initramfs-bench.cpio.gz" \
			--mode bench --append "sroce_bench.driver=$drv" --log "$log" \
			>"$log.out" 2>&1; then
			tail -30 "$log.out"
			echo "bench: the $drv run failed (logs in $log)"
			exit 1
		fi
		tr -d '\r' <"$log/results.tap" | sed -n "s/^BENCH /$drv /p" >>"$res"
	done
done

# Best of the rounds per driver and test; the ratio says how many times
# better sroce is (higher bandwidth, or lower latency and wall time).
echo
echo "sroce against rdma_rxe, kernel $KREL, one device, TCG ($rounds round(s))"
awk '
	{ key = $2; unit[key] = $4
	  better = ($4 == "MB/s") ? ($3 > best[$1, key]) : (best[$1, key] == "" || $3 < best[$1, key])
	  if (!(($1, key) in best) || better) best[$1, key] = $3
	  if (!(key in seen)) { seen[key] = 1; order[n++] = key } }
	END {
		printf "%-18s %12s %12s %8s  %s\n", "test", "sroce", "rxe", "ratio", "unit"
		for (i = 0; i < n; i++) {
			k = order[i]; s = best["sroce", k]; x = best["rxe", k]
			if (s == "" || x == "" || s == 0 || x == 0) r = "-"
			else r = sprintf("%.2f", unit[k] == "MB/s" ? s / x : x / s)
			printf "%-18s %12s %12s %8s  %s\n", k, s, x, r, unit[k]
		}
	}' "$res"
echo "(ratio > 1: sroce is better; figures from $res)"
