# SPDX-License-Identifier: GPL-2.0
#
# "make bench": the report and the chart's data, from the lines that
# selftests/bench.sh collects out of each boot (build/bench-KVER.txt):
#   DRV ROUND BENCH ROW VALUE UNIT     a figure (MB/s, Mpps, usec), or a row's
#                                      wall time (ROW.wall, ms) or context
#                                      switches (ROW.ctxt, ctxt)
#   DRV ROUND BENCHRUN NAME VALUE      over one whole boot ("-": no such
#                                      counter in that driver)
# DRV is sroce or rxe; ROW is OP_KIND_SIZE (write_bw_64k, send_lat_2,
# write_rate_64).
#
#   awk -v kernel=KREL [-v where=TOPOLOGY] [-v mode=report|data|rate|tcp] -f report.awk build/bench-NAME.txt
# mode=report (default): medians of the rounds, sroce/rxe per row, the
#   context switches per row, and the counters of every boot.
# mode=data: the medians as gnuplot data for selftests/bench/chart.gp:
#   index 0 bandwidth (size, then sroce and rxe for write, send, read),
#   index 1 latency (size, then sroce and rxe for send, write); "?" missing.
# mode=rate: one line of the message rates (Mpps rows), for the chart.
# mode=tcp: TCP's single-stream MB/s, the median over every boot of both
#   drivers (nothing without tcp rows), for the chart.
# TCP rows (tcp_bw_STREAMS, iperf3 on the same link in the same boot) give
# the report a second table: each bandwidth row against TCP's single
# stream, sroce's against the median of the sroce boots' TCP, rxe's
# against the rxe boots'. The UDP row (udp_bw_mtu: datagrams the size of
# a RoCE packet at the link's path MTU, sent as fast as one sender can) is
# listed like TCP's, never held against a driver.

function median(list,    v, n, i, j, t) {
	n = split(list, v, " ")
	if (n == 0)
		return ""
	for (i = 2; i <= n; i++)	# insertion sort, numerically
		for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
			t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
		}
	return n % 2 ? v[(n + 1) / 2] + 0 : (v[n / 2] + v[n / 2 + 1]) / 2
}

function spread(list, med,    v, n, i, lo, hi) {
	n = split(list, v, " ")
	if (n < 2 || med == 0)
		return ""
	lo = hi = v[1] + 0
	for (i = 2; i <= n; i++) {
		if (v[i] + 0 < lo) lo = v[i] + 0
		if (v[i] + 0 > hi) hi = v[i] + 0
	}
	return (hi - lo) / med * 100
}

# bytes of a row's size suffix: 2, 64, 4k, 64k, 1m
function bytes(s) {
	if (s ~ /k$/) return substr(s, 1, length(s) - 1) * 1024
	if (s ~ /m$/) return substr(s, 1, length(s) - 1) * 1048576
	return s + 0
}

function size_label(s) {
	if (s ~ /k$/) return substr(s, 1, length(s) - 1) " KiB"
	if (s ~ /m$/) return substr(s, 1, length(s) - 1) " MiB"
	return s " B"
}

# "ib_write_bw 64 KiB" for write_bw_64k, "ib_send_lat 2 B p99" for
# send_lat_2_p99, "ib_send_lat 2 B n200" for send_lat200_2 (200
# iterations), "TCP 4 streams" for tcp_bw_4, "UDP, RoCE-sized" for
# udp_bw_mtu
function label(row,    p, s) {
	split(row, p, "_")
	if (p[1] == "tcp")
		return "TCP " p[3] " stream" (p[3] == 1 ? "" : "s")
	if (p[1] == "udp")
		return "UDP, RoCE-sized"
	s = "ib_" p[1] "_" (p[2] ~ /^lat/ ? "lat" : "bw") " " size_label(p[3])
	if (p[2] ~ /^lat[0-9]/)
		s = s " n" substr(p[2], 4)
	if (p[4] == "p999")
		return s " p99.9"
	return p[4] == "" ? s : s " " p[4]
}

function fmt(v) {
	if (v == "")
		return "-"
	return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.3g", v)
}

$3 == "BENCH" {
	row = $4
	if (row ~ /\.ctxt$/) {
		sub(/\.ctxt$/, "", row)
		ctxt[$1, row] = ctxt[$1, row] " " $5
		next
	}
	if (row ~ /\.wall$/)
		next
	if (!(row in unit)) {
		rows[nrows++] = row
		unit[row] = $6
	}
	# perftest under TCG can print 0 on both sides of a run that moved
	# every byte (its clock, not the driver): no measurement, so it is
	# listed and left out of the median (a driver that fails makes
	# perftest fail, and the boot with it).
	if ($5 + 0 <= 0) {
		zero = zero sprintf("\n  %s round %s: %s %s %s", $1, $2, label(row), $5, $6)
		next
	}
	val[$1, row] = val[$1, row] " " $5
	next
}

$3 == "BENCHRUN" {
	run = $1 " " $2
	if (!(run in seenrun)) {
		seenrun[run] = 1
		runs[nruns++] = run
	}
	if (!($4 in seencol)) {
		seencol[$4] = 1
		cols[ncols++] = $4
	}
	rv[run, $4] = $5
	if ($2 > maxround) maxround = $2
}

function report(    i, k, s, x, r, better, ahead, sp, sp2, c, line) {
	printf "sroce against rdma_rxe, kernel %s, %s, TCG, median of %d round(s)\n\n",
		kernel, where == "" ? "one device (loopback)" : where, maxround
	printf "%-24s %-5s %-6s %9s %9s %9s %-6s %6s %10s %10s\n", "row", "unit", "better",
		"sroce", "rxe", "sroce/rxe", "ahead", "noise%", "ctxt sroce", "ctxt rxe"
	for (i = 0; i < nrows; i++) {
		k = rows[i]
		s = median(val["sroce", k]); x = median(val["rxe", k])
		better = unit[k] == "usec" ? "lower" : "higher"
		r = "-"; ahead = "-"
		if (s != "" && x != "" && s > 0 && x > 0) {
			r = sprintf("%.2f", s / x)
			if (k ~ /^(tcp|udp)_/) ahead = "-"	# the same link in both
			else if (s == x) ahead = "level"
			else ahead = (better == "higher") == (s > x) ? "sroce" : "rxe"
		}
		# the larger relative range (max - min) / median of the two drivers
		sp = spread(val["sroce", k], s); sp2 = spread(val["rxe", k], x)
		if (sp2 != "" && (sp == "" || sp2 > sp)) sp = sp2
		printf "%-24s %-5s %-6s %9s %9s %9s %-6s %6s %10s %10s\n", label(k), unit[k], better,
			fmt(s), fmt(x), r, ahead, sp == "" ? "-" : sprintf("%.0f", sp),
			fmt(median(ctxt["sroce", k])), fmt(median(ctxt["rxe", k]))
	}
	print ""
	against_tcp()
	print "better: the direction that is better for the figure (bandwidth and message rate"
	print "higher, latency t_typical lower); sroce/rxe is the plain quotient of the medians."
	print "noise%: (max - min) / median over the rounds, the larger of the two drivers."
	print "ctxt: context switches (/proc/stat) during the row's perftest run, median."
	if (zero != "")
		print "Figures of 0, left out of the medians (perftest's clock under TCG):" zero
	print ""
	print "Per boot, over the whole run (bench_s: the perftest runs, boot_s: the whole VM on the host;\n\"-\": the driver has no such counter):"
	line = sprintf("%-6s %5s", "driver", "round")
	for (c = 0; c < ncols; c++)
		line = line sprintf(" %*s", length(cols[c]) < 8 ? 8 : length(cols[c]), cols[c])
	print line
	for (i = 0; i < nruns; i++) {
		split(runs[i], p, " ")
		line = sprintf("%-6s %5s", p[1], p[2])
		for (c = 0; c < ncols; c++)
			line = line sprintf(" %*s", length(cols[c]) < 8 ? 8 : length(cols[c]),
				(runs[i], cols[c]) in rv ? rv[runs[i], cols[c]] : "-")
		print line
	}
}

# Each bandwidth row against TCP's single stream on the same link.
function against_tcp(    i, k, s, x, ts, tx, rs, rx) {
	ts = median(val["sroce", "tcp_bw_1"]); tx = median(val["rxe", "tcp_bw_1"])
	if (ts == "" && tx == "")
		return
	printf "Against TCP (iperf3, one stream, %s MB/s in the sroce boots, %s in the rxe boots):\n",
		fmt(ts), fmt(tx)
	printf "%-24s %9s %9s %9s %9s\n", "row", "sroce", "sroce/TCP", "rxe", "rxe/TCP"
	for (i = 0; i < nrows; i++) {
		k = rows[i]
		if (unit[k] != "MB/s" || k ~ /^(tcp|udp)_/)
			continue
		s = median(val["sroce", k]); x = median(val["rxe", k])
		rs = (s != "" && ts > 0) ? sprintf("%.2f", s / ts) : "-"
		rx = (x != "" && tx > 0) ? sprintf("%.2f", x / tx) : "-"
		printf "%-24s %9s %9s %9s %9s\n", label(k), fmt(s), rs, fmt(x), rx
	}
	print ""
}

function cell(drv, row,    m) {
	m = median(val[drv, row])
	return m == "" ? "?" : m
}

function data(    i, k, p, sizes, nsz, seen, j, op, kind, ops, nops) {
	for (kind = 0; kind < 2; kind++) {
		if (kind == 0) {
			print "# bandwidth, MB/s: size write_sroce write_rxe send_sroce send_rxe read_sroce read_rxe"
			nops = split("write send read", ops, " "); want = "bw"
		} else {
			print "\n\n# latency, usec: size send_sroce send_rxe write_sroce write_rxe"
			nops = split("send write", ops, " "); want = "lat"
		}
		nsz = 0
		delete seen
		for (i = 0; i < nrows; i++) {
			delete p
			split(rows[i], p, "_")
			if (p[1] != "tcp" && p[1] != "udp" && p[2] == want && p[4] == "" && !(p[3] in seen)) {
				seen[p[3]] = 1
				sizes[++nsz] = p[3]
			}
		}
		for (j = 1; j <= nsz; j++) {
			printf "%d", bytes(sizes[j])
			for (i = 1; i <= nops; i++) {
				k = ops[i] "_" want "_" sizes[j]
				printf " %s %s", cell("sroce", k), cell("rxe", k)
			}
			print ""
		}
	}
}

function rate(    i, k, s, x, out) {
	for (i = 0; i < nrows; i++) {
		k = rows[i]
		if (unit[k] != "Mpps")
			continue
		s = median(val["sroce", k]); x = median(val["rxe", k])
		out = out (out == "" ? "" : "; ") sprintf("%s: sroce %s Mpps, rxe %s Mpps", label(k), fmt(s), fmt(x))
		if (s > 0 && x > 0)
			out = out sprintf(" (sroce/rxe %.2f)", s / x)
	}
	print out
}

END {
	if (mode == "data")
		data()
	else if (mode == "rate")
		rate()
	else if (mode == "tcp")
		print median(val["sroce", "tcp_bw_1"] " " val["rxe", "tcp_bw_1"])
	else
		report()
}
