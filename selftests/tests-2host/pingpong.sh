#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibv_rc_pingpong across the segment, IPv4 GIDs, buffers checked (-c), at
# 4 KiB and 1 MiB, with each VM as the server in turn.
. /tests/2host/th.lib

g=$(th_gid4)
for srv in b a; do
	th_run "4k-srv$srv" $srv 120 ibv_rc_pingpong -d "$TH_DEV" -g "$g" -s 4096 -n 200 -c
	th_run "1m-srv$srv" $srv 240 ibv_rc_pingpong -d "$TH_DEV" -g "$g" -s 1048576 -n 10 -c
done
th_done
