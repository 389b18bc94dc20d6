#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# roce_inject makes packets sroce takes: an RDMA WRITE crafted on IPv4 and
# on IPv6 lands in sroce_b's memory and is acknowledged; the same packet
# with a wrong ICRC is dropped and counted in rcvd_icrc_err.
. /tests/lib.sh
. /tests/wire/wire.lib

for fam in 4 6; do
	wire_start "$fam"
	new_pair rc
	if [[ $fam == 4 ]]; then inj=inj_ab; else inj=inj6_ab; fi
	ctl fill b 0 64 0
	sniff_start ha va
	csnap
	$inj --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth $((VA_B + 16)) "$RKEY_B" 8)" --payload 1122334455667788
	wait_delta sroce_b rcvd_pkts 1
	ctl dump b 0 32
	assert_eq "$(kv hex)" "$(hexpat 16 00)1122334455667788$(hexpat 8 00)" "IPv$fam: WRITE data"
	wait_for 10 "the ACK" eval 'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 .*aeth=0x1f"'
	assert_delta sroce_b rcvd_dropped 0
	assert_delta sroce_b rcvd_icrc_err 0

	csnap
	$inj --op 0x0a --qpn "$QPB" --psn 1001 --ackreq --bad-icrc \
		--ext "$(reth "$VA_B" "$RKEY_B" 8)" --payload aaaaaaaaaaaaaaaa
	wait_delta sroce_b rcvd_icrc_err 1
	settle
	ctl dump b 0 8
	assert_eq "$(kv hex)" "$(hexpat 8 00)" "IPv$fam: a bad ICRC writes nothing"
	assert_delta sroce_b rcvd_pkts 0
	assert_delta sroce_b sent_pkts 0 "IPv$fam: no answer to a bad ICRC"
	ctl state "$P" b
	assert_eq "$(kv state)" RTS "IPv$fam: B's QP"
	sniff_stop
	wire_stop
done
pass
