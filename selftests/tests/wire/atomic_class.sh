#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Atomic opcodes exist on RC only: CMP_SWAP and FETCH_ADD with the UC
# (0x33, 0x34) or UD (0x73, 0x74) class bits are dropped and counted in
# rcvd_dropped, change nothing and are not answered, to an RC and to a UC
# QP. The RC FETCH_ADD (0x14) itself is executed and answered.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair uc
uqp=$QPB
new_pair rc
ctl fill b 0 8 0
for q in "$QPB" "$uqp"; do
	for op in 0x33 0x34 0x73 0x74; do
		csnap
		inj_ab --op "$op" --qpn "$q" --psn 1000 --ackreq --ext "$(atmeth "$VA_B" "$RKEY_B" 7 0)"
		wait_delta sroce_b rcvd_dropped 1
		settle
		assert_delta sroce_b rcvd_pkts 0 "opcode $op to QPN $q"
		assert_delta sroce_b sent_pkts 0 "opcode $op to QPN $q: no answer"
	done
done
ctl dump b 0 8
assert_eq "$(kv hex)" "$(hexpat 8 00)" "nothing executed"
csnap
inj_ab --op 0x14 --qpn "$QPB" --psn 1000 --ackreq --ext "$(atmeth "$VA_B" "$RKEY_B" 7 0)"
wait_delta sroce_b sent_pkts 1
ctl dump b 0 8
assert_eq "$(kv hex)" 0700000000000000 "the RC FETCH_ADD"
pass
