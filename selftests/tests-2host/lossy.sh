#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A lossy, reordering segment (netem on both NICs: 2 % loss, 1 ms delay,
# 5 % of the packets sent early; in the ibv_rc_pingpong steps positive
# ACKs are delayed but never lost, see ack_filter, and CM MADs never are):
# data still arrives whole through retransmission. ibv_rc_pingpong -c
# (SENDs, buffers checked), rping -V (RDMA READ and WRITE, data verified)
# and perftest WRITE and READ volume, with each VM as the server in turn.
# The capture checker counts this test's resends apart (roce_pcap.py
# --lossy-re): here they are expected.
. /tests/2host/th.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
modprobe rdma_ucm 2>/dev/null || true

# Everything after this marker (sent by A before any loss) is in the lossy
# sections of the capture, even if netem drops a later marker.
th_mark "setup"
th_sync setup >/dev/null || fail "the peer did not start"
# Two bands: 1:1 lossy, 1:2 with the same delay but no loss, for CM MADs
# and the positive ACKs of the ibv_rc_pingpong steps (ack_filter).
N=$TH_NETDEV
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
tc qdisc replace dev "$N" root handle 1: prio bands 2 \
	priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc qdisc add dev "$N" parent 1:1 handle 10: netem loss 2% delay 1ms reorder 5% 50% &&
	tc qdisc add dev "$N" parent 1:2 handle 20: netem delay 1ms ||
	fail "prio and netem on $N"
at_exit "tc qdisc del dev $N root"
# CM MADs (BTH destination QP 1, at 32) go through the band without loss,
# for every step. ib_cm stops resending a DREQ once its cm_id is
# destroyed, and rping's client destroys its own right after
# rdma_disconnect(): with the DREQ lost, the server is never told and
# waits for ever. Seen in a capture: no DREQ from the client on the
# segment, the server killed at its 300 s timeout. That is the CM's and
# rping's, on any RDMA device; this test is about data.
tc filter add dev "$N" parent 1: protocol ip prio 2 u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff \
	match u32 0x00000001 0x00ffffff at 32 \
	flowid 1:2 || fail "u32 filter for CM MADs on $N"

# ack_filter add|del: RoCEv2 ACKs (IPv4 without options, UDP 4791, BTH
# opcode 0x11 at 28, AETH syndrome type 00 at 40) to the band without loss,
# or back. Whichever ibv_rc_pingpong completes last exits at once and
# destroys its QP: if the ACK of the peer's last message is lost, the
# peer's resends find no QP and it ends with IB_WC_RETRY_EXC_ERR, on any RC
# implementation (seen with the sroce_retransmit tracepoint: 7 timeouts at
# the last message's PSN while the peer counted rcvd_drop_no_qp). rping
# and perftest keep their QPs until both sides are done: their ACKs stay
# lossy. Data and NAKs are lost in every step.
ack_filter() {
	if [[ $1 == add ]]; then
		tc filter add dev "$N" parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u8 0x11 0xff at 28 match u8 0x00 0xe0 at 40 \
			flowid 1:2 || fail "u32 filter for ACKs on $N"
	else
		tc filter del dev "$N" parent 1: prio 1 || fail "deleting the ACK filter"
	fi
}

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
	ack_filter add
	th_run "pingpong-srv$srv" $srv 300 ibv_rc_pingpong -d "$TH_DEV" -g "$g" -s 65536 -n 50 -c
	ack_filter del
	TH_READY=cm th_run "rping-srv$srv" $srv 300 rp
	th_run "write_bw-srv$srv" $srv 300 ib_write_bw -F -d "$TH_DEV" -x "$g" -s 65536 -n 200 -t 16
	th_run "read_bw-srv$srv" $srv 300 ib_read_bw -F -d "$TH_DEV" -x "$g" -s 65536 -n 200 -t 16
done
c=/sys/class/infiniband/$TH_DEV/ports/1/hw_counters
# netem_stat HANDLE: "SENT DROPPED" packets of that netem
netem_stat() {
	tc -s qdisc show dev "$N" |
		awk -v h="$1" '/^qdisc/ {q = $3} q == h && / Sent / {print $4, $7 + 0}'
}
log "netem 10: (lossy) sent, dropped: $(netem_stat 10:); 20: (ACKs, MADs) $(netem_stat 20:)"
read -r acks _ <<<"$(netem_stat 20:)"
((${acks:-0} > 0)) || fail "no ACK went through the band without loss"
[[ $TH_DRIVER != sroce ]] ||
	log "sroce retransmissions: $(cat "$c"/retransmits) (timeouts $(cat "$c"/completer_retry_err), NAKs $(cat "$c"/retrans_nak))"
th_done
