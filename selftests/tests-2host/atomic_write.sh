#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA ATOMIC WRITE (IBA 1.5) across the segment, each VM the responder in
# turn (selftests/progs/atomic_write.c): 64 values placed and nothing
# around them, completed as IBV_WC_ATOMIC_WRITE, read back with an RDMA
# READ; a misaligned one gets a remote invalid request error.
. /tests/2host/th.lib

# rdma_rxe executes ATOMIC WRITE from 6.3 on; before, it NAKs the opcode
IFS=. read -r maj min _ <<<"$(uname -r)"
if [[ $TH_DRIVER == rxe || $TH_PEER_DRIVER == rxe ]] && ((maj * 100 + min < 603)); then
	skip "rdma_rxe of $(uname -r) has no ATOMIC WRITE"
fi
g=$(th_gid4)
for srv in b a; do
	th_run "srv$srv" $srv 120 atomic_write "$TH_DEV" "$g"
done
th_done
