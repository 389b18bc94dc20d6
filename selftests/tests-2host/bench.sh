#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench TOPO=vm2", in each of the two VMs (selftests/vm2.sh), both
# with the same driver: the rows of selftests/tests/bench.sh across the
# segment, server on b, client on a. Not a test: it skips unless the kernel
# command line has sroce_bench.vm2=1 (selftests/bench.sh puts it there).
# Role a prints the figures as BENCH/BENCHRUN lines, which the harness
# copies to its TAP (selftests/init); each bandwidth figure is the larger
# of the two sides' (the client's can read 0 under TCG), the counters are
# both devices' added up, ctxt the client VM's.
. /tests/2host/th.lib

grep -qw 'sroce_bench.vm2=1' /proc/cmdline || skip "a benchmark (make bench TOPO=vm2)"
# sroce_bench.rows=NAME,...: only those rows (make bench ROWS=...)
rows=$(sed -n 's/.*sroce_bench\.rows=\([^ ]*\).*/\1/p' /proc/cmdline)
# sroce_bench.profile=NAME,...: a kernel profile of those rows in each VM
# (make bench TOPO=vm2 PROFILE=...), as in selftests/tests/bench.sh
prof=$(sed -n 's/.*sroce_bench\.profile=\([^ ]*\).*/\1/p' /proc/cmdline)

BENCH_COUNTERS="retransmits completer_retry_err duplicate_request rcvd_dropped"
hwc=/sys/class/infiniband/$TH_DEV/ports/1/hw_counters
g=$(th_gid4)
ctxt() { awk '$1 == "ctxt" { print $2 }' /proc/stat; }
counters() {
	local c v l=""
	for c in $BENCH_COUNTERS; do
		v=$(cat "$hwc/$c" 2>/dev/null) || v=-
		l+="${l:+,}$c=$v"
	done
	echo "$l"
}
# field OUTPUT COLUMN: that column of perftest's result row
field() {
	awk -v c="$2" '/#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $c; exit }' <<<"$1"
}

# prof_start ROW / prof_stop ROW: "perf record" of this VM's CPU around
# ROW, if sroce_bench.profile names it; prof_stop prints the profile as
# "PROF ROW.ROLE" lines (a: the client, b: the server): the share of each
# DSO, the symbols above 0.5 % (self), the symbols above 2 % with what
# they call (children).
prof_start() {
	[[ -n $prof && ,$prof, == *,$1,* ]] || return 0
	command -v perf >/dev/null || { echo "PROF $1.$TH_ROLE no perf in the image"; return 0; }
	perf record -q -a -g -F 999 -e cpu-clock -o "/tmp/perf-$1.data" \
		>"/tmp/perf-$1.log" 2>&1 &
	PROF_PID=$!
	sleep 1	# perf is sampling before the step starts
}
prof_stop() {
	local f=/tmp/perf-$1.data
	[[ -n ${PROF_PID:-} ]] || return 0
	kill -INT "$PROF_PID"
	wait "$PROF_PID" || true
	PROF_PID=
	[[ -s $f ]] || { sed "s/^/PROF $1.$TH_ROLE perf: /" "/tmp/perf-$1.log"; return 0; }
	{
		perf report -i "$f" --stdio --no-children -g none --sort dso \
			--percent-limit 1
		perf report -i "$f" --stdio --no-children -g none --sort dso,sym \
			--percent-limit 0.5
		perf report -i "$f" --stdio --children -g none --sort sym \
			--percent-limit 2
	} 2>/dev/null | grep -v '^#' | grep -v '^$' | head -300 |
		sed "s/^/PROF $1.$TH_ROLE /"
	rm -f "$f"
}

# row NAME UNIT COLUMN TOOL ARGS...
row() {
	local name=$1 unit=$2 col=$3 tool=$4 out v pv x0 x1 k0
	shift 4
	[[ -z $rows || ,$rows, == *,$name,* ]] || return 0
	k0=$(counters)
	x0=$(ctxt)
	prof_start "$name"
	th_run "$name" b 300 "$tool" -F -d "$TH_DEV" -x "$g" "$@"
	prof_stop "$name"
	x1=$(ctxt)
	if [[ $TH_ROLE == b ]]; then out=$(bg_log "$name"); else out=$(cat "$name.log"); fi
	v=$(field "$out" "$col")
	log "$name: $v $unit, counters before $k0, after $(counters)"
	pv=$(th_sync "$name:value" "${v:--}") || pv=-
	[[ $TH_ROLE == a ]] || return 0
	if [[ $unit != usec && $pv != - ]]; then
		v=$(awk -v a="${v:-0}" -v b="$pv" 'BEGIN { print (a > b ? a : b) }')
	fi
	[[ -n $v ]] || { echo "$out"; TH_FAILS+=("$name: no result row"); return 0; }
	echo "BENCH $name $v $unit"
	echo "BENCH $name.ctxt $((x1 - x0)) ctxt"
}

c0=$(counters)
x0=$(ctxt)
t0=$SECONDS
row write_rate_64 Mpps 5 ib_write_bw -s 64 -n 20000
for op in write send read; do
	row "${op}_bw_4k" MB/s 4 "ib_${op}_bw" -s 4096 -n 5000
	row "${op}_bw_64k" MB/s 4 "ib_${op}_bw" -s 65536 -n 1000
	row "${op}_bw_1m" MB/s 4 "ib_${op}_bw" -s 1048576 -n 100
done
for op in send write; do
	row "${op}_lat_2" usec 5 "ib_${op}_lat" -s 2 -n 5000
	row "${op}_lat_4k" usec 5 "ib_${op}_lat" -s 4096 -n 2000
done
t1=$SECONDS
c1=$(counters)
pc=$(th_sync "counters" "$c0;$c1") || pc=""
if [[ $TH_ROLE == a ]]; then
	echo "BENCHRUN bench_s $((t1 - t0))"
	echo "BENCHRUN ctxt $(($(ctxt) - x0))"
	# this VM's deltas plus the peer's
	awk -v a="$c0;$c1" -v b="$pc" 'BEGIN {
		split(a, s, ";"); split(b, t, ";")
		n = split(s[1], x0, ","); split(s[2], x1, ",")
		split(t[1], y0, ","); split(t[2], y1, ",")
		for (i = 1; i <= n; i++) {
			split(x0[i], p, "="); split(x1[i], q, "=")
			split(y0[i], r, "="); split(y1[i], w, "=")
			if (p[2] == "-" || q[2] == "-") v = "-"
			else v = q[2] - p[2]
			if (v != "-" && r[2] != "" && r[2] != "-" && w[2] != "-")
				v += w[2] - r[2]
			printf "BENCHRUN %s %s\n", p[1], v
		}
	}'
fi
th_done
