#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": sroce against the kernel's own rdma_rxe, on the same kernel,
# image and topology, booted one after the other, ROUNDS times each. Each boot
# runs selftests/tests/bench.sh with sroce_bench.driver=sroce or =rxe; this
# script puts the medians of the rounds side by side with sroce/rxe
# (selftests/bench/report.awk), lists each boot's counters, and draws
# build/bench-KVER.png (selftests/bench/chart.gp). Under TCG only ratios from
# one run mean anything, and even those are noisy (the report's noise%).
#
#   selftests/bench.sh [--kernel 6.1|6.12|7.2] [--rounds N (3)] [--update-doc]
#                      [--report-only]
# --update-doc copies the chart to Documentation/bench-KVER.png;
# --report-only boots nothing: the report and chart again from the last
# build/bench-KVER.txt.
# Output: build/bench-KVER.txt (every figure of every boot),
# build/bench-KVER.report (the report, also printed), build/bench-KVER.dat
# and .png (the chart), build/bench-KVER-DRV-rN/ (each boot's logs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=6.1
rounds=3
update_doc=0
report_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kver=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--update-doc) update_doc=1; shift ;;
	--report-only) report_only=1; shift ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: --rounds must be a number >= 1" >&2; exit 2; }

build=$top/build
res=$build/bench-$kver.txt
if ((!report_only)); then
	eval "$(selftests/kernels.sh env "$kver")"
	selftests/kernels.sh make "$kver" -s modules
	mkdir -p "$build"
	selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--out "$build/initramfs-bench.cpio.gz" >"$build/mkinitramfs-bench.log"

	echo "# kernel $KREL" >"$res"
	t_all=$SECONDS
	for r in $(seq 1 "$rounds"); do
		for drv in sroce rxe; do
			echo "bench: round $r of $rounds, $drv on $KREL"
			log=$build/bench-$kver-$drv-r$r
			t0=$SECONDS
			if ! selftests/vm.sh --kernel "$VMLINUZ" \
				--initrd "$build/initramfs-bench.cpio.gz" --mode bench \
				--append "sroce_bench.driver=$drv" --log "$log" \
				>"$log.out" 2>&1; then
				tail -30 "$log.out"
				echo "bench: the $drv run failed (logs in $log)"
				exit 1
			fi
			tr -d '\r' <"$log/results.tap" |
				sed -n -E "s/^(BENCH|BENCHRUN) /$drv $r &/p" >>"$res"
			echo "$drv $r BENCHRUN boot_s $((SECONDS - t0))" >>"$res"
		done
	done
	echo "bench: $rounds round(s) took $((SECONDS - t_all)) s"
fi
[[ -s $res ]] || { echo "bench.sh: no $res" >&2; exit 1; }
krel=$(sed -n 's/^# kernel //p' "$res")
rounds=$(awk '$3 == "BENCHRUN" && $2 > m { m = $2 } END { print m + 0 }' "$res")

echo
awk -v kernel="$krel" -f selftests/bench/report.awk "$res" | tee "$build/bench-$kver.report"
echo "(every figure of every boot in $res)"

# The chart: bandwidth and latency against message size.
dat=$build/bench-$kver.dat
png=$build/bench-$kver.png
awk -v mode=data -f selftests/bench/report.awk "$res" >"$dat"
rate=$(awk -v mode=rate -f selftests/bench/report.awk "$res")
title="sroce against rdma_rxe, kernel $krel, one device (loopback), TCG, median of $rounds round(s)"
gnuplot -e "data='$dat'; out='$png'; title='$title'; rate='$rate'" selftests/bench/chart.gp
echo "bench: chart in $png"
if ((update_doc)); then
	cp "$png" "Documentation/bench-$kver.png"
	echo "bench: copied to Documentation/bench-$kver.png"
fi
