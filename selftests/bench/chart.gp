# SPDX-License-Identifier: GPL-2.0
#
# "make bench": the chart of one kernel's bench, two panels side by side:
# bandwidth against message size and latency against message size, sroce
# (solid) beside rdma_rxe (dashed), one colour per perftest tool.
#
#   gnuplot -e "data='build/bench-6.1.dat'; out='build/bench-6.1.png'; \
#               title='...'; rate='...'" selftests/bench/chart.gp
# data: from selftests/bench/report.awk (mode=data); rate: a second title
# line (the message rates); tcp: TCP's single-stream MB/s on the same link
# (report.awk mode=tcp), drawn as a level line; 0 or absent: none.

if (!exists("rate")) rate = ""
if (!exists("tcp")) tcp = "0"
tcpv = real(tcp)

set terminal pngcairo noenhanced size 1200,520 font "sans,10"
set output out
set datafile missing "?"
set key top left Left reverse box opaque
set grid
set logscale x 2
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.2
set style line 2 lc rgb "#1f77b4" lw 2 pt 6 ps 1.2 dt 2
set style line 3 lc rgb "#d62728" lw 2 pt 5 ps 1.2
set style line 4 lc rgb "#d62728" lw 2 pt 4 ps 1.2 dt 2
set style line 5 lc rgb "#2ca02c" lw 2 pt 9 ps 1.2
set style line 6 lc rgb "#2ca02c" lw 2 pt 8 ps 1.2 dt 2
set style line 7 lc rgb "#000000" lw 1.5 dt 3

set multiplot layout 1,2 title title.(strlen(rate) > 0 ? "\n".rate : "") font "sans,12"

set title "bandwidth (BW average; higher is better; log scale)"
set xlabel "message size"
set ylabel "MB/s"
set logscale y 10
set yrange [*:*]
set xrange [2048:2097152]
set xtics ("4 KiB" 4096, "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1048576)
plot data index 0 using 1:2 with linespoints ls 1 title "ib_write_bw sroce", \
     ''   index 0 using 1:3 with linespoints ls 2 title "ib_write_bw rxe", \
     ''   index 0 using 1:4 with linespoints ls 3 title "ib_send_bw sroce", \
     ''   index 0 using 1:5 with linespoints ls 4 title "ib_send_bw rxe", \
     ''   index 0 using 1:6 with linespoints ls 5 title "ib_read_bw sroce", \
     ''   index 0 using 1:7 with linespoints ls 6 title "ib_read_bw rxe", \
     (tcpv > 0 ? tcpv : 1/0) with lines ls 7 title "TCP, one stream (iperf3)"

set title "latency (t_typical; lower is better)"
unset logscale y
set yrange [0:*]
set ylabel "usec"
set xrange [1:8192]
set xtics ("2 B" 2, "16 B" 16, "128 B" 128, "1 KiB" 1024, "4 KiB" 4096)
plot data index 1 using 1:2 with linespoints ls 1 title "ib_send_lat sroce", \
     ''   index 1 using 1:3 with linespoints ls 2 title "ib_send_lat rxe", \
     ''   index 1 using 1:4 with linespoints ls 3 title "ib_write_lat sroce", \
     ''   index 1 using 1:5 with linespoints ls 4 title "ib_write_lat rxe"

unset multiplot
