#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A BTH transport header version other than 0 is dropped and counted in
# rcvd_dropped, with no effect and no answer; with TVer 0 the same WRITE
# lands.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill b 0 64 0
w() {
	inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" 8)" --payload 1122334455667788 "$@"
}
for v in 1 8 15; do
	csnap
	w --tver "$v"
	wait_delta sroce_b rcvd_dropped 1
	settle
	assert_delta sroce_b rcvd_pkts 0 "TVer $v"
	assert_delta sroce_b sent_pkts 0 "TVer $v: no answer"
	ctl dump b 0 8
	assert_eq "$(kv hex)" "$(hexpat 8 00)" "TVer $v: nothing written"
done
csnap
w
wait_for 10 "the WRITE with TVer 0" eval 'ctl dump b 0 8; [[ $(kv hex) == 1122334455667788 ]]'
assert_delta sroce_b rcvd_dropped 0
pass
