#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": sroce against the kernel's own rdma_rxe, on the same kernel,
# image and topology, booted one after the other, ROUNDS times each. Three
# topologies: loop (default), one VM, one device, perftest between two
# processes on it: each boot runs selftests/tests/bench.sh with
# sroce_bench.driver=sroce or =rxe; ns, one VM, two namespaces over a veth
# pair with a device in each (the same script with sroce_bench.topo=ns;
# 7.2 only: the rdma_rxe of 6.1 and 6.12 has its UDP socket in the initial
# namespace only); vm2, two VMs
# (selftests/vm2.sh, one
# vCPU each, no capture) with the same driver, perftest across the segment:
# selftests/tests-2host/bench.sh, the same rows. This script puts the
# medians of the rounds side by side with sroce/rxe
# (selftests/bench/report.awk), lists each boot's counters, and draws
# build/bench-KVER.png (selftests/bench/chart.gp). Under TCG only ratios from
# one run mean anything, and even those are noisy (the report's noise%).
#
#   selftests/bench.sh [--kernel 6.1|6.12|7.2] [--topo loop|ns|vm2] [--rounds N (3)]
#                      [--update-doc] [--report-only] [--profile ROW,...]
#                      [--mtu BYTES (vm2: the segment's; 1500)]
# --update-doc copies the chart to Documentation/bench-NAME.png;
# --report-only boots nothing: the report and chart again from the last
# build/bench-NAME.txt.
# --profile runs, after the rounds, one more boot per driver with only
# those rows, each under "perf record" of every CPU (for vm2, in each VM:
# lines ROW.a for the client's, ROW.b for the server's), and writes
# build/bench-NAME-prof-DRV.txt: where the kernel's time goes. Those
# boots' figures are not in the report (perf costs time).
# NAME is KVER for loop, KVER-ns for ns, KVER-vm2[-mtuN] for vm2.
# Output: build/bench-NAME.txt (every figure of every boot),
# build/bench-NAME.report (the report, also printed), build/bench-NAME.dat
# and .png (the chart), build/bench-NAME-DRV-rN/ (each boot's logs).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=6.1
topo=loop
rounds=3
update_doc=0
report_only=0
profile=
mtu=
while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kver=$2; shift 2 ;;
	--topo) topo=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--update-doc) update_doc=1; shift ;;
	--report-only) report_only=1; shift ;;
	--profile) profile=$2; shift 2 ;;
	--mtu) mtu=$2; shift 2 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
# --rounds 0 --profile ROWS: only the profile boots
[[ $rounds =~ ^[1-9][0-9]*$ || ($rounds == 0 && -n $profile) ]] ||
	{ echo "bench.sh: --rounds must be a number >= 1 (0 with --profile)" >&2; exit 2; }
case $topo in
loop) name=$kver where="one device (loopback)" ;;
ns) name=$kver-ns where="two namespaces over veth" ;;
vm2) name=$kver-vm2${mtu:+-mtu$mtu} where="two VMs (vm2, 1 vCPU each${mtu:+, MTU $mtu})" ;;
*) echo "bench.sh: --topo must be loop, ns or vm2" >&2; exit 2 ;;
esac
if [[ $topo == ns && $kver != 7.2 ]]; then
	echo "bench.sh: --topo ns needs 7.2 (rdma_rxe reaches other namespaces only there)" >&2
	exit 2
fi

build=$top/build
res=$build/bench-$name.txt

# The guest's clock: under TCG the kernel finds the TSC unstable and reads
# the HPET, an emulated device, in every gettimeofday(); perftest's latency
# loops call it, and those reads were a third of all time in the latency
# rows, the same for both drivers, squeezing their ratio towards 1. A real
# host reads the TSC in the vDSO; so does the bench's guest.
BENCH_CLOCK=${BENCH_CLOCK-clocksource=tsc tsc=reliable}

# boot DRV LOG [APPEND]: one boot (one pair for vm2) with driver DRV; the
# figures, "BENCH ..." and "BENCHRUN ..." lines, on stdout. APPEND goes on
# the kernel command line (default: the rows of ROWS=, if any).
boot() {
	local drv=$1 log=$2 append=${3-${ROWS:+ sroce_bench.rows=$ROWS}}
	append+=${BENCH_APPEND:+ $BENCH_APPEND}
	if [[ $topo != vm2 ]]; then
		selftests/vm.sh --kernel "$VMLINUZ" \
			--initrd "$build/initramfs-bench.cpio.gz" --mode bench \
			--append "$BENCH_CLOCK sroce_bench.driver=$drv sroce_bench.topo=$topo$append" \
			--log "$log" >"$log.out" 2>&1 ||
			return 1
		tr -d '\r' <"$log/results.tap"
	else
		selftests/vm2.sh --kernel "$VMLINUZ" \
			--initrd "$build/initramfs-bench.cpio.gz" --a "$drv" --b "$drv" \
			--tests 2host/bench --no-capture --link unix --timeout 2400 \
			${mtu:+--mtu "$mtu"} \
			--append "$BENCH_CLOCK sroce_bench.vm2=1$append" \
			--log "$log" >"$log.out" 2>&1 ||
			return 1
		# the figures are a's; profiles come from both
		tr -d '\r' <"$log/a/results.tap"
		tr -d '\r' <"$log/b/results.tap" | grep '^PROF ' || true
	fi
}
if ((!report_only)); then
	eval "$(selftests/kernels.sh env "$kver")"
	selftests/kernels.sh make "$kver" -s modules
	mkdir -p "$build/bench-progs"
	# the two VMs meet at barriers (th_sync)
	gcc -Wall -Wextra -Werror -O2 -o "$build/bench-progs/barrier" \
		selftests/progs/barrier.c
	extra=()
	if [[ -n $profile ]]; then
		# Debian's perf (bookworm's 6.1) samples the newer kernels too
		command -v perf >/dev/null || apt-get install -y -q linux-perf >&2
		extra=(--extra-bin "$(command -v perf)")
	fi
	# shellcheck disable=SC2153  # KREL is set by the eval of selftests/kernels.sh env
	selftests/mkinitramfs.sh --kver "$KREL" --modroot "$MODROOT" \
		--ko "$top/drivers/sroce/sroce.ko" --tests "$top/selftests/tests" \
		--tests2 "$top/selftests/tests-2host" \
		--extra-bin "$build/bench-progs/barrier" "${extra[@]}" \
		--out "$build/initramfs-bench.cpio.gz" >"$build/mkinitramfs-bench.log"

	((rounds)) && echo "# kernel $KREL" >"$res"
	t_all=$SECONDS
	for r in $(seq 1 "$rounds"); do
		for drv in sroce rxe; do
			echo "bench: round $r of $rounds, $drv on $KREL, $where"
			log=$build/bench-$name-$drv-r$r
			t0=$SECONDS
			if ! out=$(boot "$drv" "$log"); then
				tail -30 "$log.out"
				echo "bench: the $drv run failed (logs in $log)"
				exit 1
			fi
			sed -n -E "s/^(BENCH|BENCHRUN) /$drv $r &/p" <<<"$out" >>"$res"
			echo "$drv $r BENCHRUN boot_s $((SECONDS - t0))" >>"$res"
		done
	done
	echo "bench: $rounds round(s) took $((SECONDS - t_all)) s"
	for drv in ${profile:+sroce rxe}; do
		echo "bench: profile of $profile, $drv on $KREL, $where"
		log=$build/bench-$name-$drv-prof
		out=$(boot "$drv" "$log" " sroce_bench.rows=$profile sroce_bench.profile=$profile") ||
			{ tail -30 "$log.out"; echo "bench: the $drv profile failed (logs in $log)"; exit 1; }
		sed -n 's/^PROF //p' <<<"$out" >"$build/bench-$name-prof-$drv.txt"
		echo "bench: $(wc -l <"$build/bench-$name-prof-$drv.txt") lines in build/bench-$name-prof-$drv.txt"
	done
	((rounds)) || exit 0
fi
[[ -s $res ]] || { echo "bench.sh: no $res" >&2; exit 1; }
krel=$(sed -n 's/^# kernel //p' "$res")
rounds=$(awk '$3 == "BENCHRUN" && $2 > m { m = $2 } END { print m + 0 }' "$res")

echo
awk -v kernel="$krel" -v where="$where" -f selftests/bench/report.awk "$res" |
	tee "$build/bench-$name.report"
echo "(every figure of every boot in $res)"

# The chart: bandwidth and latency against message size.
dat=$build/bench-$name.dat
png=$build/bench-$name.png
awk -v mode=data -f selftests/bench/report.awk "$res" >"$dat"
rate=$(awk -v mode=rate -f selftests/bench/report.awk "$res")
tcp=$(awk -v mode=tcp -f selftests/bench/report.awk "$res")
title="sroce against rdma_rxe, kernel $krel, $where, TCG, median of $rounds round(s)"
if [[ -n ${ROWS:-} ]]; then
	echo "bench: no chart for some rows (ROWS=$ROWS)"
	exit 0
fi
gnuplot -e "data='$dat'; out='$png'; title='$title'; rate='$rate'; tcp='${tcp:-0}'" \
	selftests/bench/chart.gp
echo "bench: chart in $png"
if ((update_doc)); then
	cp "$png" "Documentation/bench-$name.png"
	# A PNG has no comment line: its SPDX line is beside it (t_spdx).
	printf '%s\n' "# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause" \
		"# Drawn by selftests/bench.sh --kernel $kver --topo $topo --rounds $rounds (selftests/bench/chart.gp)." \
		>"Documentation/bench-$name.png.license"
	echo "bench: copied to Documentation/bench-$name.png"
fi
