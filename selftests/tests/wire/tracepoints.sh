#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# The sroce: tracepoints, read through tracefs: the state changes of a new
# RC pair; a WRITE and its ACK on both sides (sroce_send and sroce_recv,
# QPNs, opcodes, PSNs); a crafted packet for no QP (sroce_drop, its cause
# named as the counter that moved); a crafted SEND out of sequence, which
# B NAKs (sroce_nak_send); and a crafted sequence NAK for A's outstanding
# WRITE (sroce_nak_recv) and the resend it starts (sroce_retransmit, cause
# nak), after which the WRITE completes; a CQ overrun (sroce_cq_overflow).
. /tests/lib.sh
. /tests/wire/wire.lib

modprobe sch_netem 2>/dev/null || skip "no sch_netem"
T=/sys/kernel/tracing
[[ -e $T/trace ]] || mount -t tracefs tracefs "$T" 2>/dev/null || true
[[ -d $T/events ]] || skip "no tracefs"
# the devices, so the module (and its events) are loaded; no QP yet
wire_start
[[ -d $T/events/sroce ]] || fail "no events/sroce in tracefs with sroce loaded"
# the devices' indexes ("N: sroce_a: ..."): QPNs are per device
dev_index() { rdma dev show "$1" | sed -n "s/^\([0-9]*\): $1: .*/\1/p"; }
DA=$(dev_index sroce_a) DB=$(dev_index sroce_b)
[[ $DA =~ ^[0-9]+$ && $DB =~ ^[0-9]+$ && $DA != "$DB" ]] ||
	fail "device indexes: '$DA' '$DB'"
echo 0 >"$T/tracing_on"
: >"$T/trace"
at_exit "echo 0 >$T/events/sroce/enable; echo 0 >$T/tracing_on; : >$T/trace"
echo 1 >"$T/events/sroce/enable"
echo 1 >"$T/tracing_on"

# trace_has WHAT ERE [SECS]: a line of the trace buffer matches ERE (within
# SECS, default 0: at once)
trace_has() {
	local end=$((SECONDS + ${3:-0}))
	until grep -qE "$2" "$T/trace"; do
		if ((SECONDS >= end)); then
			grep ' sroce_' "$T/trace" | tail -n 20 | sed 's/^/#   /'
			fail "no trace line for $1: /$2/"
		fi
		sleep 0.2
	done
}

# 2 s ACK timeout: no timeout resend before the crafted NAK
new_pair rc 19
for s in "0 1" "1 2" "2 3"; do
	# shellcheck disable=SC2086  # the pair of states as two arguments
	set -- $s
	trace_has "QP A from $1 to $2" "sroce_qp_state: dev=$DA qpn=$QPA from=$1 to=$2\$"
	trace_has "QP B from $1 to $2" "sroce_qp_state: dev=$DB qpn=$QPB from=$1 to=$2\$"
done

ctl fill a 0 16 0x5a
ctl post "$P" a write 16 0 0
ctl poll a 20 1
assert_match "$R" "^wc n=1 0:1:" "the first WRITE"
trace_has "A sends the WRITE" \
	"sroce_send: dev=$DA qpn=$QPA dqpn=$QPB opcode=0x0a psn=1000 len=[0-9]+\$"
trace_has "B takes the WRITE" \
	"sroce_recv: dev=$DB dqpn=$QPB opcode=0x0a psn=1000 len=16 paged=0\$"
trace_has "B sends the ACK" \
	"sroce_send: dev=$DB qpn=$QPB dqpn=$QPA opcode=0x11 psn=1000 len=[0-9]+\$"
trace_has "A takes the ACK" \
	"sroce_recv: dev=$DA dqpn=$QPA opcode=0x11 psn=1000 len=0 paged=0\$"

# no QP 0xabcde on B
csnap
inj_ab --op 0x04 --qpn 0xabcde --psn 1000 --payload 0102030405060708
wait_delta sroce_b rcvd_dropped 1
cause=""
for f in /sys/class/infiniband/sroce_b/ports/1/hw_counters/rcvd_drop_*; do
	(($(cdelta sroce_b "${f##*/}") == 1)) && cause=${f##*/}
done
[[ -n $cause ]] || fail "no rcvd_drop_* counter moved: $(cchanged)"
trace_has "the drop" "sroce_drop: dev=$DB cause=$cause\$"

# B expects PSN 1001: a SEND at 1005 is out of sequence
inj_ab --op 0x04 --qpn "$QPB" --psn 1005 --ackreq --payload 0102030405060708
trace_has "B's sequence NAK" \
	"sroce_nak_send: dev=$DB qpn=$QPB psn=1001 syndrome=0x60\$" 10

# A's WRITE at 1001 is lost; a sequence NAK for it makes A resend it
in_a tc qdisc add dev va root netem loss 100%
ctl post "$P" a write 16 0 16
assert_eq "$(kv psn)" 1001 "the outstanding WRITE's PSN"
inj_ba --op 0x11 --qpn "$QPA" --psn 1001 --ext "$(aeth 0x60 1)"
trace_has "A takes the NAK" \
	"sroce_nak_recv: dev=$DA qpn=$QPA psn=1001 syndrome=0x60\$" 10
trace_has "A resends" "sroce_retransmit: dev=$DA qpn=$QPA psn=1001 cause=nak\$" 10
in_a tc qdisc del dev va root
ctl poll a 30 1
assert_match "$R" "^wc n=1 0:1:" "the resent WRITE completes"

# A CQ overrun: rc_data events posts 4 signalled WRITEs on a QP of A whose
# send CQ has 1 entry (and checks IBV_EVENT_CQ_ERR itself)
rc=0
timeout 300 rc_data events sroce_a "$(gid_index sroce_a 192.0.2.1)" \
	sroce_b "$(gid_index sroce_b 192.0.2.2)" >events.log 2>&1 || rc=$?
((rc == 0)) || { grep -v "^ok " events.log; fail "rc_data events: exit $rc"; }
trace_has "the completion lost in the overrun" \
	"sroce_cq_overflow: dev=$DA qpn=[1-9][0-9]* cqe=[1-9][0-9]*\$"
pass
