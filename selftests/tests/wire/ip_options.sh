#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# RoCEv2 has no IPv4 options: an RDMA WRITE behind 4, 20 (F14: as long as
# an IPv6 header) or 40 bytes of options is dropped and counted in
# rcvd_dropped, and writes nothing; the same WRITE without options lands.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill b 0 64 0
w() {
	inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" 8)" --payload 1122334455667788 "$@"
}
for n in 4 20 40; do
	csnap
	w --ip-opts "$(hexpat "$n" 01)"
	wait_delta sroce_b rcvd_dropped 1
	settle
	assert_delta sroce_b rcvd_dropped 1 "$n option bytes"
	assert_delta sroce_b rcvd_drop_bad_hdr 1 "$n option bytes: counted as a bad header"
	assert_delta sroce_b rcvd_pkts 0 "$n option bytes"
	assert_delta sroce_b sent_pkts 0 "$n option bytes: no answer"
	ctl dump b 0 8
	assert_eq "$(kv hex)" "$(hexpat 8 00)" "$n option bytes: nothing written"
done
csnap
w
wait_delta sroce_b rcvd_pkts 1
wait_for 10 "the WRITE without options" eval 'ctl dump b 0 8; [[ $(kv hex) == 1122334455667788 ]]'
assert_delta sroce_b rcvd_dropped 0
pass
