#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# UC has no acknowledgements (F10): a UC SEND and a UC WRITE with AckReq
# set are executed (the receive completes, the data lands) and nothing is
# sent back.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair uc
ctl recv "$P" b 1 64
ctl fill b 0 64 0
sniff_start ha va
csnap
inj_ab --op 0x24 --qpn "$QPB" --psn 1000 --ackreq --payload 0102030405060708
ctl poll b 20 1
assert_eq "$R" "wc n=1 0:128:8" "the UC SEND"
inj_ab --op 0x2a --qpn "$QPB" --psn 1001 --ackreq \
	--ext "$(reth $((VA_B + 32)) "$RKEY_B" 8)" --payload 1122334455667788
wait_for 10 "the UC WRITE" eval 'ctl dump b 32 8; [[ $(kv hex) == 1122334455667788 ]]'
settle
assert_delta sroce_b rcvd_pkts 2
assert_delta sroce_b sent_pkts 0 "no packet back on UC"
[[ -z $(sniff_in) ]] || fail "packets sent back: $(sniff_in)"
pass
