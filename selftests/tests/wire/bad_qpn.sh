#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Destination QPNs that no RC packet may reach: QPN 0 (the SMI QP, which
# RoCE does not have), QPN 1 (the GSI QP, UD only) and QPN 0xFFFFFF
# (multicast, UD only) with an RC opcode. Each packet is dropped and
# counted in rcvd_dropped, and answered by nothing; an RC SEND to the real
# QPN is delivered.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl recv "$P" b 1 64
for qpn in 0 1 0xffffff; do
	for op in 0x04 0x0a; do
		if [[ $op == 0x0a ]]; then ext=$(reth "$VA_B" "$RKEY_B" 8); else ext=""; fi
		csnap
		inj_ab --op "$op" --qpn "$qpn" --psn 1000 --ackreq --ext "$ext" \
			--payload 0102030405060708
		wait_delta sroce_b rcvd_dropped 1
		settle
		assert_delta sroce_b rcvd_dropped 1 "QPN $qpn, opcode $op"
		assert_delta sroce_b sent_pkts 0 "QPN $qpn, opcode $op: no answer"
	done
done
ctl poll b 1 1
assert_eq "$(kv n)" 0 "no receive completed on B"
ctl dump b 0 8
assert_eq "$(kv hex)" "$(hexpat 8 00)" "nothing written"

csnap
inj_ab --op 0x04 --qpn "$QPB" --psn 1000 --ackreq --payload 0102030405060708
ctl poll b 10 1
assert_eq "$R" "wc n=1 0:128:8" "a SEND to the real QPN"
assert_delta sroce_b rcvd_dropped 0
pass
