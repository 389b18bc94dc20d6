#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A UDP length that disagrees with the IP length. Shorter (a valid RoCEv2
# packet with 4 or 8 bytes behind it in the IP datagram; a UDP length of
# 8): dropped by sroce and counted in rcvd_dropped. Longer: dropped by the
# UDP stack (Udp InErrors), sroce sees nothing. Nothing is written; with
# the right length the same WRITE lands.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
new_pair rc
ctl fill b 0 16 0
w() {
	inj_ab --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" 8)" --payload 1122334455667788 "$@"
}
udp_errs() { in_b awk '/^Udp:/ { n++ } /^Udp:/ && n == 2 { print $4 }' /proc/net/snmp; }
for args in "--trailer 00000000" "--trailer 0000000000000000" "--udp-len 8 --trailer 00"; do
	csnap
	# shellcheck disable=SC2086
	w $args
	wait_delta sroce_b rcvd_dropped 1
	settle
	assert_delta sroce_b rcvd_pkts 0 "$args"
	assert_delta sroce_b sent_pkts 0 "$args: no answer"
done
# shellcheck disable=SC2034  # e0 is read by the eval'd condition below
e0=$(udp_errs)
csnap
w --udp-len 52
wait_for 10 "Udp InErrors" eval '(($(udp_errs) > e0))'
settle
assert_delta sroce_b rcvd_pkts 0 "UDP length past the IP datagram"
assert_delta sroce_b rcvd_dropped 0 "UDP length past the IP datagram"
ctl dump b 0 8
assert_eq "$(kv hex)" "$(hexpat 8 00)" "nothing written"
w
wait_for 10 "the WRITE with the right lengths" eval 'ctl dump b 0 8; [[ $(kv hex) == 1122334455667788 ]]'
pass
