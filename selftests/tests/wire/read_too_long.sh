#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# The device's max_msg_sz is 1 GiB: at a 256-byte MTU a message then spans
# at most 2^22 PSNs, which 24-bit serial arithmetic orders (at 2 GiB a
# READ spans 2^23 and never completes). A READ request of 1 GiB + 1 and
# one of 2 GiB, each naming a valid R_Key, get a NAK "invalid request"
# before any range check, put the responder QP in the error state and
# send no data.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
assert_match "$(ibv_devinfo -v -d sroce_b)" "max_msg_sz:[[:space:]]+0x40000000" \
	"max_msg_sz reported"
sniff_start ha va
for len in $((0x40000001)) $((0x80000000)); do
	new_pair rc
	csnap
	inj_ab --op 0x0c --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" "$len")"
	wait_for 10 "a NAK invalid request for a READ of $len bytes" eval \
		'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 ackreq=. aeth=0x61"'
	wait_for 10 "B's QP in error" eval 'ctl state "$P" b; [[ $(kv state) == ERR ]]'
	settle
	assert_delta sroce_b sent_pkts 1 "$len bytes: the NAK only"
	assert_delta sroce_b sent_nak_inv_req 1 "$len bytes: counted by syndrome"
done
# shellcheck disable=SC2143  # grep -q could end sniff_in early by SIGPIPE, under pipefail
[[ -z $(sniff_in | grep -E "op=0x(0d|0e|0f|10) ") ]] || fail "read response data went out"
pass
