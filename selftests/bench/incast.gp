# SPDX-License-Identifier: GPL-2.0
#
# "make check-cluster": the chart of cluster/incast, one panel per run
# (without congestion control, with it): each sender's rate over time,
# sampled every half second from its bytes sent (retransmissions
# included), and the bottleneck's rate as a level line.
#
#   gnuplot -e "data='build/incast-6.1.dat'; out='build/incast-6.1.png'; \
#               title='...'; mbit='40'; nodes='4'" selftests/bench/incast.gp
# data: lines "RUN NODE T_MS MBIT", one block per RUN and NODE, RUN 0
# without congestion control and 1 with it (check.sh: cluster_chart).

set terminal pngcairo noenhanced size 1200,480 font "sans,10"
set output out
set grid
set key top right box opaque
set xlabel "seconds"
set ylabel "Mbit/s sent"
set yrange [0:*]
set style line 1 lc rgb "#1f77b4" lw 2
set style line 2 lc rgb "#d62728" lw 2
set style line 3 lc rgb "#2ca02c" lw 2
set style line 4 lc rgb "#9467bd" lw 2
set style line 9 lc rgb "#000000" lw 1.5 dt 2
bn = real(mbit)
nn = int(nodes)

set multiplot layout 1,2 title title
do for [r = 0:1] {
	set title (r == 0 ? "without congestion control (ecn=0)" : "with it (ecn=1, DCQCN)")
	plot for [n = 2:nn] data using ($1 == r && $2 == n ? $3 / 1000.0 : 1/0):4 \
		with lines ls (n - 1) title sprintf("node %d", n), \
	     bn with lines ls 9 title "bottleneck"
}
unset multiplot
