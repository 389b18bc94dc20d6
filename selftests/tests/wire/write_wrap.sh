#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A WRITE or READ whose va + length wraps past 2^64 (with a valid R_Key)
# gets a NAK "remote access error" and puts the responder QP in the error
# state; nothing is written or read out.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
sniff_start ha va
ctl fill b 0 64 0
for op in 0x0a 0x0c; do
	new_pair rc
	csnap
	if [[ $op == 0x0a ]]; then
		inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
			--ext "$(reth -8 "$RKEY_B" 16)" --payload-len 16
	else
		inj_ab --op 0x0c --qpn "$QPB" --psn 1000 --ackreq \
			--ext "$(reth -256 "$RKEY_B" 512)"
	fi
	wait_for 10 "a NAK remote access error for opcode $op" eval \
		'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 ackreq=. aeth=0x62"'
	wait_for 10 "B's QP in error" eval 'ctl state "$P" b; [[ $(kv state) == ERR ]]'
	settle
	assert_delta sroce_b sent_pkts 1 "opcode $op: the NAK only"
	assert_delta sroce_b sent_nak_rem_access 1 "opcode $op: counted by syndrome"
	assert_delta sroce_b rcvd_pkts 1
done
# shellcheck disable=SC2143  # grep -q could end sniff_in early by SIGPIPE, under pipefail
[[ -z $(sniff_in | grep -E "op=0x(0d|0e|0f|10) ") ]] || fail "read response data went out"
ctl dump b 0 64
assert_eq "$(kv hex)" "$(hexpat 64 00)" "nothing written"
pass
