#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A ghost NAK (F9): while a WRITE is outstanding at PSN 1001 (everything
# sroce_a sends is lost, netem), NAKs (remote access, invalid request,
# remote operational error, PSN sequence) for PSN 1000, whose WRITE was
# already acknowledged and completed, are ignored: the outstanding WRITE
# is not failed by them, nor are they counted, and it completes
# successfully once the link works. Then a NAK for the outstanding PSN
# (invalid request, remote access, remote operational error, a reserved
# code) fails its WRITE with that status and counts in rcvd_nak_*.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
wire_start
# 2 s ACK timeout, 7 retries: the WRITE stays outstanding (not failed
# with "retry exceeded") while the test sends its packets under TCG.
new_pair rc 19
ctl fill a 0 16 0x5a
ctl fill b 0 32 0
ctl post "$P" a write 16 0 0
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:1:" "the first WRITE"
in_a tc qdisc add dev va root netem loss 100%
ctl post "$P" a write 16 0 16
assert_eq "$(kv psn)" 1001 "the outstanding WRITE's PSN"
csnap
for syn in 0x62 0x61 0x63 0x60; do
	inj_ba --op 0x11 --qpn "$QPA" --psn 1000 --ext "$(aeth "$syn" 1)"
done
wait_delta sroce_a rcvd_pkts 4
settle
ctl poll a 1 1
assert_eq "$R" "wc n=0" "no completion from a NAK older than the outstanding PSN"
for c in rcvd_nak_rem_access rcvd_nak_inv_req rcvd_nak_rem_op rcvd_seq_err; do
	assert_delta sroce_a "$c" 0 "an ignored NAK is not counted"
done
ctl state "$P" a
assert_eq "$(kv state)" RTS "A's QP"

in_a tc qdisc del dev va root
ctl poll a 30 1
assert_match "$R" "^wc n=1 0:1:" "the outstanding WRITE completes successfully"
ctl dump b 16 16
assert_eq "$(kv hex)" "$(hexpat 16 5a)" "its data"

# a NAK for the outstanding PSN fails that WRITE with its status, and is
# counted by syndrome
at_exit "in_a tc qdisc del dev va root 2>/dev/null || true"
for x in "0x61 9 rcvd_nak_inv_req" "0x62 10 rcvd_nak_rem_access" \
	 "0x63 11 rcvd_nak_rem_op" "0x7f 11 rcvd_nak_rem_op"; do
	read -r syn st c <<<"$x"
	new_pair rc 19
	in_a tc qdisc add dev va root netem loss 100%
	ctl post "$P" a write 16 0 0
	csnap
	inj_ba --op 0x11 --qpn "$QPA" --psn 1000 --ext "$(aeth "$syn" 0)"
	ctl poll a 20 1
	assert_match "$R" "^wc n=1 $st:" "NAK $syn: the WRITE's status"
	assert_delta sroce_a "$c" 1 "NAK $syn"
	in_a tc qdisc del dev va root
done
pass
