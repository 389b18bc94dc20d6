#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# A NAK (PSN sequence error) for a PSN after a READ whose responses have
# not all arrived does not complete past that READ: the requester asks
# again from the first response missing, with the RETH of the remaining
# part, and both the READ and the WRITE after it complete with their data.
# (Two VMs with netem loss: a READ request after the READ was lost, the
# responder's NAK moved the acknowledged point past the READ, and the
# re-request asked for a negative length until "retry exceeded".)
# sroce_b's responses are lost (netem); the first is crafted, then the NAK.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
wire_start
# 8.6 s ACK timeout: no timeout retry while the test crafts its packets
new_pair rc 21
len=$((3 * MTU))
read_write_unanswered "$len"	# READ at PSN 1000-1002, WRITE at 1003

csnap
inj_ba --op 0x0d --qpn "$QPA" --psn 1000 --ext "$(aeth 0x1f 1)" \
	--payload "$(hexpat "$MTU" 42)"
inj_ba --op 0x11 --qpn "$QPA" --psn 1003 --ext "$(aeth 0x60 2)"
ctl poll a 20 2
assert_match "$R" "^wc n=2 0:2:$len 0:1:16" "the READ, then the WRITE"
assert_delta sroce_a rcvd_seq_err 1
assert_delta sroce_a retransmits 1
ctl dump a 0 "$len"
assert_eq "$(kv hex)" "$(hexpat "$len" 42)" "the READ's data"
ctl dump b "$len" 16
assert_eq "$(kv hex)" "$(hexpat 16 5a)" "the WRITE's data"
ctl state "$P" a
assert_eq "$(kv state)" RTS "A's QP"
pass
