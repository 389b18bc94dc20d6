#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 debug
# Packets of one QP reordered on the way (two transmit queues, two CPUs'
# input backlogs) are held back until the gap fills (hold.c), not taken
# for a loss:
# - responder: a WRITE at PSN 1001, then the one at 1000 to the same
#   address: both execute, in PSN order (the bytes of 1001 stay), with no
#   sequence NAK and no out-of-sequence count;
# - responder, a real gap: a WRITE at 1003 while 1002 is due is held, then
#   after the wait (reorder_wait_us, a second here) taken for a loss: one
#   sequence NAK for 1002, counted out of sequence once, the WRITE still held (its bytes
#   not placed); 1002 then comes, and both are placed; 1003 sent again is
#   a duplicate, and 1002 sent again shows that the loss was none (the
#   NAKed packet came twice: gap_spurious);
# - completer: the responses of a 3-MTU READ in the order FIRST, LAST,
#   MIDDLE (sroce_b's own are lost, netem): the READ completes with the
#   data, asks nothing again, retransmits nothing;
# - completer, an ACK ahead of READ responses: a READ then a WRITE, the
#   WRITE's ACK between the READ's FIRST and MIDDLE. The ACK is held, not
#   taken for a READ response lost (asked again at once before: rc/nic
#   resent 31 READs of 4 MiB with no frame lost, QEMU's NIC queue letting
#   the ACK pass), and both complete in order with nothing sent again.
# The counters by cause: reorder_held (held ahead of a gap), gap_lost_wait
# (a gap taken for a loss after the wait), gap_lost_full, gap_spurious.
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
wire_start
# A gap waits a second before it is a loss (default: 1 ms, 2-3 jiffies):
# under TCG a vCPU may stall longer than that between two packets that
# one process sends back to back, and this test is about the order.
p=/sys/module/sroce/parameters/reorder_wait_us
old=$(<"$p")
echo 1000000 >"$p"
at_exit "echo $old >$p"
# 8.6 s ACK timeout: no timeout retry while the test crafts its packets
new_pair rc 21
w8() { printf '%s' "$(hexpat 8 "$1")"; }

ctl fill b 0 64 0
csnap
# one roce_inject (--next): the two back to back, well within the wait
inj_ab --op 0x0a --qpn "$QPB" --psn 1001 --ackreq \
	--ext "$(reth "$VA_B" "$RKEY_B" 8)" --payload "$(w8 bb)" \
	--next --psn 1000 --payload "$(w8 aa)"
wait_for 10 "both WRITEs taken" eval '(($(cdelta sroce_b rcvd_pkts) >= 2))'
settle
ctl dump b 0 8
assert_eq "$(kv hex)" "$(w8 bb)" "the later PSN's bytes (executed in PSN order)"
assert_delta sroce_b out_of_seq_request 0 "no gap seen"
assert_delta sroce_b reorder_held 1 "1001 held"
assert_delta sroce_b gap_lost_wait 0
assert_delta sroce_b rcvd_seq_err 0
assert_delta sroce_a rcvd_seq_err 0 "no sequence NAK"
ctl state "$P" b
assert_eq "$(kv state)" RTS "B's QP"

# a real gap: 1002 never comes until the NAK asks for it
sniff_start ha va
csnap
inj_ab --op 0x0a --qpn "$QPB" --psn 1003 --ackreq \
	--ext "$(reth $((VA_B + 16)) "$RKEY_B" 8)" --payload "$(w8 33)"
wait_delta sroce_b out_of_seq_request 1
wait_for 10 "B's sequence NAK for 1002" eval \
	'sniff_in | grep -q "op=0x11 qpn=$QPA psn=1002 .*aeth=0x60"'
sniff_stop
settle
assert_delta sroce_b out_of_seq_request 1 "the gap, once"
assert_delta sroce_b sent_pkts 1 "the NAK only"
assert_delta sroce_b reorder_held 1 "1003 held"
assert_delta sroce_b gap_lost_wait 1 "the gap, a loss after the wait"
assert_delta sroce_b gap_lost_full 0
assert_delta sroce_b sent_nak_seq_err 1 "the NAK, counted by syndrome"
ctl dump b 16 8
assert_eq "$(kv hex)" "$(w8 00)" "the held WRITE placed nothing yet"
csnap
inj_ab --op 0x0a --qpn "$QPB" --psn 1002 --ackreq \
	--ext "$(reth $((VA_B + 8)) "$RKEY_B" 8)" --payload "$(w8 22)"
wait_for 10 "1002 and the held 1003 placed" eval \
	'ctl dump b 8 16; [[ $(kv hex) == $(w8 22)$(w8 33) ]]'
inj_ab --op 0x0a --qpn "$QPB" --psn 1003 --ackreq \
	--ext "$(reth $((VA_B + 16)) "$RKEY_B" 8)" --payload "$(w8 44)"
wait_delta sroce_b duplicate_request 1
ctl dump b 16 8
assert_eq "$(kv hex)" "$(w8 33)" "1003 sent again: a duplicate, not placed"
assert_delta sroce_b out_of_seq_request 0
assert_delta sroce_b gap_spurious 0 "a copy of 1003 proves nothing"
inj_ab --op 0x0a --qpn "$QPB" --psn 1002 --ackreq \
	--ext "$(reth $((VA_B + 8)) "$RKEY_B" 8)" --payload "$(w8 55)"
wait_delta sroce_b duplicate_request 2
ctl dump b 8 8
assert_eq "$(kv hex)" "$(w8 22)" "1002 sent again: a duplicate, not placed"
assert_delta sroce_b gap_spurious 1 "1002 came twice: its loss was none"

# the completer: READ responses FIRST, LAST, MIDDLE
new_pair rc 21
len=$((3 * MTU))
ctl fill a 0 "$len" 0
ctl fill b 0 "$len" 0x42
in_b tc qdisc add dev vb root netem loss 100%
at_exit "in_b tc qdisc del dev vb root 2>/dev/null || true"
csnap
ctl post "$P" a read "$len" 0 0
assert_eq "$(kv psn)" 1000 "the READ's PSN"
wait_delta sroce_b sent_pkts 3
in_b tc qdisc del dev vb root
csnap
inj_ba --op 0x0d --qpn "$QPA" --psn 1000 --ext "$(aeth 0x1f 1)" \
	--payload "$(hexpat "$MTU" 42)" \
	--next --op 0x0f --psn 1002 \
	--next --op 0x0e --psn 1001 --ext ""
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:2:$len" "the READ"
ctl dump a 0 "$len"
assert_eq "$(kv hex)" "$(hexpat "$len" 42)" "the READ's data"
settle
echo "counters that moved: $(cchanged)"
assert_delta sroce_a retransmits 0 "nothing asked again"
assert_delta sroce_a reorder_held 1 "the LAST held"
assert_delta sroce_a gap_lost_wait 0
assert_delta sroce_b duplicate_request 0

# the completer: an ACK overtakes the READ responses before it
new_pair rc 21
read_write_unanswered "$len"	# READ at PSN 1000-1002, WRITE at 1003
csnap
inj_ba --op 0x0d --qpn "$QPA" --psn 1000 --ext "$(aeth 0x1f 1)" \
	--payload "$(hexpat "$MTU" 42)" \
	--next --op 0x11 --psn 1003 --ext "$(aeth 0x1f 2)" --payload "" \
	--next --op 0x0e --psn 1001 --ext "" --payload "$(hexpat "$MTU" 42)" \
	--next --op 0x0f --psn 1002 --ext "$(aeth 0x1f 1)"
ctl poll a 20 2
assert_match "$R" "^wc n=2 0:2:$len 0:1:16" "the READ, then the WRITE"
ctl dump a 0 "$len"
assert_eq "$(kv hex)" "$(hexpat "$len" 42)" "the READ's data"
settle
echo "counters that moved: $(cchanged)"
assert_delta sroce_a retransmits 0 "nothing asked again"
assert_delta sroce_a reorder_held 1 "the ACK held"
assert_delta sroce_a gap_lost_wait 0
assert_delta sroce_b duplicate_request 0
pass
