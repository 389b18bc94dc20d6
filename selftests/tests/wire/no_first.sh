#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A MIDDLE or LAST packet with no FIRST before it. RC (IBA 9.7.5.1.1): a
# NAK "invalid request" for its PSN (sent_nak_inv_req), and the responder
# QP goes to the error state. UC: silently dropped (no packet back, the QP stays in RTS, no
# receive completes), and the next whole message is delivered.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
sniff_start ha va
for op in 0x07 0x01 0x02 0x08; do
	new_pair rc
	csnap
	inj_ab --op "$op" --qpn "$QPB" --psn 1000 --ackreq --payload-len 16
	wait_delta sroce_b rcvd_pkts 1
	wait_for 10 "B's QP in error after opcode $op" eval \
		'ctl state "$P" b; [[ $(kv state) == ERR ]]'
	wait_for 10 "a NAK invalid request for opcode $op" eval \
		'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 ackreq=. aeth=0x61"'
	settle
	assert_delta sroce_b sent_pkts 1 "opcode $op: the NAK only"
	assert_delta sroce_b sent_nak_inv_req 1 "opcode $op: counted by syndrome"
	assert_delta sroce_b rcvd_dropped 0
	assert_delta sroce_a rcvd_nak_inv_req 0 "a NAK for nothing sent"
done

new_pair uc
ctl recv "$P" b 1 64
for op in 0x27 0x21 0x22 0x28; do
	csnap
	inj_ab --op "$op" --qpn "$QPB" --psn 1000 --payload-len 16
	wait_delta sroce_b rcvd_pkts 1
	settle
	assert_delta sroce_b sent_pkts 0 "UC opcode $op: no answer"
	ctl state "$P" b
	assert_eq "$(kv state)" RTS "UC opcode $op: B's QP"
done
ctl poll b 1 1
assert_eq "$(kv n)" 0 "UC: no receive completed"
ctl fill a 0 32 0x33
ctl post "$P" a send 32 0 0
ctl poll b 20 1
assert_eq "$R" "wc n=1 0:128:32" "UC: the next SEND is delivered"
ctl dump b 0 32
assert_eq "$(kv hex)" "$(hexpat 32 33)" "UC: its data"
pass
