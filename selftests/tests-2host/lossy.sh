#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A lossy, reordering segment (netem on both NICs: 2 % loss, 1 ms delay,
# 5 % of the packets sent early): data still arrives whole through
# retransmission. ibv_rc_pingpong -c (SENDs, buffers checked), rping -V
# (RDMA READ and WRITE, data verified) and perftest WRITE and READ volume,
# with each VM as the server in turn. The capture checker counts this
# test's resends apart (roce_pcap.py --lossy-re): here they are expected.
. /tests/2host/th.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
modprobe rdma_ucm 2>/dev/null || true

# Everything after this marker (sent by A before any loss) is in the lossy
# sections of the capture, even if netem drops a later marker.
th_mark "setup"
th_sync setup >/dev/null || fail "the peer did not start"
tc qdisc replace dev "$TH_NETDEV" root netem loss 2% delay 1ms reorder 5% 50% ||
	fail "netem on $TH_NETDEV"
at_exit "tc qdisc del dev $TH_NETDEV root"

# rp [PEER]: rping server (no PEER) or client, 32 KiB READ/WRITE x 20, verified
# (rping takes at most 64 KiB - 1)
rp() {
	local out rc=0 n
	if (($#)); then
		out=$(rping -c -a "$1" -v -V -C 20 -S 32768 2>&1) || rc=$?
		n=$(grep -c '^ping data: ' <<<"$out" || true)
		echo "$out" | tail -n 5
		((rc == 0 && n >= 20)) || { echo "rping failed: exit $rc, $n pings verified"; return 1; }
	else
		rping -s -a "$TH_ME4" -v -V -C 20 -S 32768 >/dev/null
	fi
}

g=$(th_gid4)
for srv in b a; do
	th_run "pingpong-srv$srv" $srv 300 ibv_rc_pingpong -d "$TH_DEV" -g "$g" -s 65536 -n 50 -c
	TH_READY=cm th_run "rping-srv$srv" $srv 300 rp
	th_run "write_bw-srv$srv" $srv 300 ib_write_bw -F -d "$TH_DEV" -x "$g" -s 65536 -n 200 -t 16
	th_run "read_bw-srv$srv" $srv 300 ib_read_bw -F -d "$TH_DEV" -x "$g" -s 65536 -n 200 -t 16
done
c=/sys/class/infiniband/$TH_DEV/ports/1/hw_counters
[[ $TH_DRIVER != sroce ]] ||
	log "sroce retransmissions: $(cat $c/retransmits) (timeouts $(cat $c/completer_retry_err), NAKs $(cat $c/retrans_nak))"
th_done
