#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibv_uc_pingpong, ibv_ud_pingpong (IPv4 and IPv6 GIDs) and ibv_srq_pingpong
# across the segment, buffers checked (-c), polling and with completion
# events (-e), with each VM as the server in turn.
. /tests/2host/th.lib

g4=$(th_gid4)
g6=$(th_gid6)
pp() { ibv_"$1"_pingpong -d "$TH_DEV" "${@:2}"; }
for srv in b a; do
	th_run "uc-srv$srv" $srv 120 pp uc -g "$g4" -s 4096 -n 100 -c
	th_run "ud-v4-srv$srv" $srv 120 pp ud -g "$g4" -s 512 -n 100 -c -e
	th_run "ud-v6-srv$srv" $srv 120 pp ud -g "$g6" -s 512 -n 100 -c
	th_run "srq-srv$srv" $srv 120 pp srq -g "$g4" -s 4096 -n 100 -q 4 -c -e
done
th_done
