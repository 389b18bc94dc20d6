#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# The reorder hold (hold.c) against a blind injector, who must guess a
# QP's PSN: a packet ahead of a gap is held only within reorder_max_pkts
# PSNs, and a held packet that another, different one at its PSN
# contradicts is not run:
# - window: a WRITE 65 PSNs ahead (default reorder_max_pkts 64) is not
#   held: the gap is a loss at once (gap_lost_full, a sequence NAK); one
#   64 ahead is held;
# - conflict: a forged WRITE at 1001 is held, a different one at 1001
#   comes: both dropped (hold_conflict); once 1000 comes, 1001 is due
#   again, and the peer's own 1001 is placed, never the forgery's bytes.
#   An exact copy of a held packet is no conflict: dropped, the held one
#   runs;
# - reorder_max_pkts 0: nothing is held, every gap is NAKed at once.
. /tests/lib.sh
. /tests/wire/wire.lib

wire_start
w8() { printf '%s' "$(hexpat 8 "$1")"; }
# wr PSN OFFSET BYTE [roce_inject args]: a WRITE_ONLY of 8 bytes of BYTE
# at B's buffer + OFFSET
wr() {
	local psn=$1 off=$2 b=$3
	shift 3
	inj_ab --op 0x0a --qpn "$QPB" --psn "$psn" --ackreq \
		--ext "$(reth $((VA_B + off)) "$RKEY_B" 8)" --payload "$(w8 "$b")" "$@"
}
p=/sys/module/sroce/parameters/reorder_max_pkts
old=$(<"$p")
at_exit "echo $old >$p"
assert_eq "$old" 64 "reorder_max_pkts by default"

# the window (8.6 s ACK timeout: no retry while packets are crafted)
new_pair rc 21
ctl fill b 0 64 0
csnap
wr 1065 0 ff
wait_delta sroce_b out_of_seq_request 1
assert_delta sroce_b reorder_held 0 "65 PSNs ahead: not held"
assert_delta sroce_b gap_lost_full 1 "the gap a loss at once"
csnap
wr 1064 8 ee
wait_delta sroce_b reorder_held 1
settle
ctl dump b 0 16
assert_eq "$(kv hex)" "$(w8 00)$(w8 00)" "nothing placed"

# a conflict at a held PSN, then a copy of a held packet
new_pair rc 21
ctl fill b 0 64 0
csnap
wr 1001 8 ee --next --payload "$(w8 bb)"
wait_delta sroce_b hold_conflict 1
assert_delta sroce_b reorder_held 1 "the forgery held, until contradicted"
csnap
wr 1000 0 aa
wait_for 10 "1000 placed" eval 'ctl dump b 0 8; [[ $(kv hex) == $(w8 aa) ]]'
settle
ctl dump b 8 8
assert_eq "$(kv hex)" "$(w8 00)" "neither 1001 placed"
wr 1001 8 bb
wait_for 10 "the peer's 1001 placed" eval \
	'ctl dump b 8 8; [[ $(kv hex) == $(w8 bb) ]]'
csnap
wr 1003 24 cc --next --payload "$(w8 cc)"
wait_delta sroce_b reorder_held 1
wr 1002 16 dd
wait_for 10 "1002 and the held 1003 placed" eval \
	'ctl dump b 16 16; [[ $(kv hex) == $(w8 dd)$(w8 cc) ]]'
assert_delta sroce_b hold_conflict 0 "a copy is no conflict"

# no hold at all
echo 0 >"$p"
new_pair rc 21
ctl fill b 0 64 0
csnap
wr 1001 8 bb
wait_delta sroce_b out_of_seq_request 1
assert_delta sroce_b reorder_held 0 "reorder_max_pkts 0: nothing held"
assert_delta sroce_b gap_lost_full 0 "no hold, so none full"
wr 1000 0 aa --next --psn 1001 --ext "$(reth $((VA_B + 8)) "$RKEY_B" 8)" \
	--payload "$(w8 bb)"
wait_for 10 "1000 and 1001 placed in turn" eval \
	'ctl dump b 0 16; [[ $(kv hex) == $(w8 aa)$(w8 bb) ]]'
wire_stop
pass
