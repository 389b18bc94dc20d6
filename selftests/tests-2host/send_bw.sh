#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ib_send_bw -F -s 65536 -n 1000 across the segment, IPv4 GIDs, with each VM as
# the server in turn; both sides must exit 0.
. /tests/2host/th.lib

g=$(th_gid4)
for srv in b a; do
	th_run "srv$srv" $srv 900 ib_send_bw -F -d "$TH_DEV" -x "$g" -s 65536 -n 1000
done
th_done
