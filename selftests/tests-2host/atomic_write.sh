#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# RDMA ATOMIC WRITE (IBA 1.5) across the segment, each VM the responder in
# turn (selftests/progs/atomic_write.c): 64 values placed and nothing
# around them, completed as IBV_WC_ATOMIC_WRITE, read back with an RDMA
# READ; a misaligned one gets a remote invalid request error. Where the
# server's device offers RDMA FLUSH (6.2 on), a FLUSH of a range and one of
# the whole region complete as IB_UVERBS_WC_FLUSH, written into the send
# ring (librxe 44 has no verb for it).
. /tests/2host/th.lib

# rdma_rxe executes ATOMIC WRITE from 6.3 on; before, it NAKs the opcode
IFS=. read -r maj min _ <<<"$(uname -r)"
if [[ $TH_DRIVER == rxe || $TH_PEER_DRIVER == rxe ]] && ((maj * 100 + min < 603)); then
	skip "rdma_rxe of $(uname -r) has no ATOMIC WRITE"
fi
# No FLUSH with rdma_rxe: its ICRC of a FLUSH packet covers the BTH, FETH
# and RETH twice (its opcode table gives RC FLUSH no payload offset, so
# the "payload" it adds is the headers again), so each side drops the
# other's FLUSH as corrupted. Shown by a capture of 7.2's rxe: its FLUSH
# frames' ICRC is that of the headers twice (Documentation/interop.md).
if [[ $TH_DRIVER == rxe || $TH_PEER_DRIVER == rxe ]]; then
	export AW_NO_FLUSH=1
fi
g=$(th_gid4)
for srv in b a; do
	th_run "srv$srv" $srv 120 atomic_write "$TH_DEV" "$g"
done
th_done
