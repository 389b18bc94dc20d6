#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibv_rc_pingpong across the segment at 1 B, 4 KiB and 1 MiB, over IPv4 and
# IPv6 GIDs, buffers checked (-c), with each VM as the server in turn.
. /tests/2host/th.lib

# shellcheck disable=SC2034  # read through ${!g} below
g4=$(th_gid4)
# shellcheck disable=SC2034  # read through ${!g} below
g6=$(th_gid6)
for srv in b a; do
	for fam in 4 6; do
		g=g$fam
		th_run "1b-v$fam-srv$srv" $srv 120 ibv_rc_pingpong -d "$TH_DEV" -g "${!g}" -s 1 -n 20 -c
		th_run "4k-v$fam-srv$srv" $srv 120 ibv_rc_pingpong -d "$TH_DEV" -g "${!g}" -s 4096 -n 20 -c
		th_run "1m-v$fam-srv$srv" $srv 240 ibv_rc_pingpong -d "$TH_DEV" -g "${!g}" -s 1048576 -n 3 -c
	done
done
th_done
