#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# RC asks for an ACK only where it needs one (req.c, sroce_req_ackreq()).
# In a stream (a message starts while one that asked is unanswered; here
# A's packets wait 50 ms in netem) unsignaled WRITEs go out without
# AckReq. The tail so left unasked is not left to the ACK timeout: after a
# quarter of it with nothing more to send, its newest packet goes again,
# asking (ack_probes), B acknowledges the duplicate, and A's ring slots
# are free again; nothing is retransmitted. A signaled WRITE asks.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
wire_start
sniff_start ha va
new_pair rc
ctl fill a 0 4096 0x5a
ctl fill b 0 4096 0
in_a tc qdisc add dev va root netem delay 50ms
csnap

# Four unsignaled WRITEs in one post: PSN 1000-1003. The first asks (no
# stream yet), the others go while its ACK is 50 ms away: a stream.
ctl uwrites "$P" a 4 16
assert_eq "$(kv psn)" 1000 "the first unsignaled WRITE's PSN"
wait_for 10 "the probe: PSN 1003 again, asking" eval \
	'grep -q "^pkt dir=out op=0x0a qpn=$QPB psn=1003 ackreq=1" "$PWD/sniff.log"'
wait_for 10 "B's ACK for PSN 1003" eval \
	'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1003 ackreq=. aeth=0x1f"'
settle
out=$(grep "^pkt dir=out" "$PWD/sniff.log")
# shellcheck disable=SC2001  # prefixes each line
echo "$out" | sed 's/^/# /'
assert_eq "$(grep -o 'psn=[0-9]* ackreq=[01]' <<<"$out" | tr '\n' ' ')" \
	"psn=1000 ackreq=1 psn=1001 ackreq=0 psn=1002 ackreq=0 psn=1003 ackreq=0 psn=1003 ackreq=1 " \
	"the first WRITE asks, three more unasked, then one probe"
assert_eq "$(sniff_in | grep "op=0x11 qpn=$QPA " | grep -o 'psn=[0-9]*' | tr '\n' ' ')" \
	"psn=1000 psn=1003 " "B's ACKs: the first WRITE's, the probe's"
assert_delta sroce_a ack_probes 1
assert_delta sroce_b duplicate_request 1 "the probe, a duplicate at B"
for k in retransmits completer_retry_err rcvd_dropped; do
	assert_delta sroce_a "$k" 0
done
ctl poll a 1 4
assert_eq "$R" "wc n=0" "no completion for unsignaled WRITEs"
ctl dump b 0 80
assert_eq "$(kv hex)" "$(hexpat 64 5a)$(hexpat 16 00)" "the WRITEs' data"

# A signaled WRITE asks at once and completes: one completion, no probe.
in_a tc qdisc del dev va root
csnap
ctl post "$P" a write 16 64 64
assert_eq "$(kv psn)" 1004 "the signaled WRITE's PSN"
ctl poll a 10 4
assert_eq "$R" "wc n=1 0:1:16" "one completion, the signaled WRITE's"
settle
assert_match "$(grep "^pkt dir=out" "$PWD/sniff.log" | tail -n 1)" \
	"op=0x0a qpn=$QPB psn=1004 ackreq=1 " "the signaled WRITE asked, and nothing followed"
assert_delta sroce_a ack_probes 0 "no probe after a message that asked"
assert_delta sroce_b duplicate_request 0
ctl dump b 64 16
assert_eq "$(kv hex)" "$(hexpat 16 5a)" "its data"
pass
