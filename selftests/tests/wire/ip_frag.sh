#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# An IP-fragmented RoCEv2 datagram (a 512-byte WRITE in 128-byte IPv4
# fragments, sent last first) is reassembled by the stack and then handled
# like any packet: the data lands and sroce_b acknowledges it. One whose
# payload is larger than any RoCE MTU (a 6 KiB WRITE, reassembled from
# 1 KiB fragments) is dropped after its headers, before its ICRC is
# computed or its fragments joined: counted (rcvd_drop_bad_hdr), nothing
# placed, nothing answered.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill b 0 512 0
sniff_start ha va
csnap
inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq --ext "$(reth "$VA_B" "$RKEY_B" 512)" \
	--payload "$(for i in $(seq 0 255); do printf '%02x' "$i"; done)$(hexpat 256 ee)" --frag 128
wait_delta sroce_b rcvd_pkts 1
wait_for 10 "the ACK" eval 'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1000 .*aeth=0x1f"'
ctl dump b 0 512
assert_eq "$(kv hex)" "$(for i in $(seq 0 255); do printf '%02x' "$i"; done)$(hexpat 256 ee)" "the data"
assert_delta sroce_b rcvd_dropped 0
assert_delta sroce_b rcvd_icrc_err 0

new_pair rc
ctl fill b 0 16 0
csnap
inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq --ext "$(reth "$VA_B" "$RKEY_B" 6144)" \
	--payload-len 6144 --frag 1024
wait_delta sroce_b rcvd_drop_bad_hdr 1
settle
assert_delta sroce_b rcvd_dropped 1 "6 KiB of payload: dropped"
assert_delta sroce_b rcvd_icrc_err 0 "before its ICRC"
assert_delta sroce_b sent_pkts 0 "nothing answered"
ctl dump b 0 16
assert_eq "$(kv hex)" "$(hexpat 16 00)" "nothing placed"
pass
