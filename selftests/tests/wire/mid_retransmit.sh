#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A requester that rewinds into the middle of a multi-packet RDMA WRITE (as
# rdma_rxe does after a timeout: IBA lets it resend from any unacknowledged
# PSN) is answered as a continuation: the duplicate MIDDLE packets are not
# written again, one ACK answers the duplicates (the one that asks, with
# AckReq, for the newest PSN received), the new MIDDLE and LAST packets
# complete the WRITE, and the data is whole. Then the same for a SEND.
# The FIRST packet of a WRITE of more than 8 MTUs, or of a SEND into a
# receive buffer of more than 8, is acknowledged too, unasked; not that of
# these messages of 4 (see sroce_resp_ack_early()).
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
sniff_start ha va
len=$((4 * MTU))
pattern=$(for ((i = 0; i < len / 256; i++)); do printf '%02x' {0..255}; done)
# mid OPCODE PSN [ackreq] [roce_inject options]: one MTU of payload 00..ff
mid() {
	inj_ab --op "$1" --qpn "$QPB" --psn "$2" ${3:+--ackreq} --payload-len "$MTU" "${@:4}"
}

# rewind_case WHAT FIRST MIDDLE LAST [FIRST's extension]: the four packets,
# with 1001 and 1002 sent again before 1003 (the second time 1002 asks for
# an ACK), as a requester that timed out after 1002 does; $ACKS: the PSNs
# acknowledged, in order.
rewind_case() {
	local what=$1 ack
	csnap
	mid "$2" 1000 "" ${5:+--ext "$5"}
	mid "$3" 1001
	mid "$3" 1002
	wait_delta sroce_b rcvd_pkts 3
	mid "$3" 1001
	mid "$3" 1002 ackreq
	wait_delta sroce_b duplicate_request 2
	wait_for 10 "$what: an ACK for PSN 1002" eval \
		'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1002 ackreq=. aeth=0x1f"'
	mid "$4" 1003 ackreq
	wait_for 10 "$what: an ACK for PSN 1003" eval \
		'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1003 ackreq=. aeth=0x1f"'
	settle
	ack=$(sniff_in | grep "op=0x11 qpn=$QPA " || true)
	# shellcheck disable=SC2001  # prefixes each line
	echo "$ack" | sed 's/^/# /'
	assert_eq "$(grep -o 'psn=[0-9]*' <<<"$ack" | tr '\n' ' ')" "$ACKS" \
		"$what: ACKs ($ACKS: the FIRST's if any, one for the duplicates, the LAST's)"
	assert_delta sroce_b duplicate_request 2 "$what"
	assert_delta sroce_b rcvd_dropped 0 "$what"
	ctl state "$P" b
	assert_eq "$(kv state)" RTS "$what: B's QP"
}

new_pair rc
ctl fill b 0 "$len" 0
ACKS="psn=1002 psn=1003 "
rewind_case WRITE 0x06 0x07 0x08 "$(reth "$VA_B" "$RKEY_B" "$len")"
ctl dump b 0 "$len"
assert_eq "$(kv hex)" "$pattern" "the WRITE's data"

new_pair rc
ctl fill b 0 "$len" 0
ctl recv "$P" b 1 "$len"
ACKS="psn=1002 psn=1003 "
rewind_case SEND 0x00 0x01 0x02
ctl poll b 10 1
assert_eq "$R" "wc n=1 0:128:$len" "the SEND's receive completes once"
ctl dump b 0 "$len"
assert_eq "$(kv hex)" "$pattern" "the SEND's data"

# A WRITE of 9 MTUs, and a SEND into a receive buffer of 9: each FIRST
# packet is acknowledged at once, unasked.
new_pair rc
csnap
mid 0x06 1000 "" --ext "$(reth "$VA_B" "$RKEY_B" $((9 * MTU)))"
wait_for 10 "the long WRITE's FIRST: an ACK, unasked" eval \
	'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 ackreq=. aeth=0x1f"'
new_pair rc
ctl recv "$P" b 1 $((9 * MTU))
mid 0x00 1000
wait_for 10 "the FIRST of a SEND into 9 MTUs: an ACK, unasked" eval \
	'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 ackreq=. aeth=0x1f"'
assert_delta sroce_b rcvd_dropped 0 "the long messages' FIRST packets"
pass
