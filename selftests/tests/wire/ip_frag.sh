#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# An IP-fragmented RoCEv2 datagram (a 512-byte WRITE in 128-byte IPv4
# fragments, sent last first) is reassembled by the stack and then handled
# like any packet: the data lands and sroce_b acknowledges it.
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
pass
