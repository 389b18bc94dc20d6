#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# RDMA FLUSH (IBA 1.5, opcode 0x1c: BTH, FETH, RETH), crafted, to an RC
# QP of sroce_b. Where the kernel knows the FLUSH access bits (6.2 on),
# the device advertises global visibility (capability bit 38) and not
# persistence (bit 39), and an MR may allow FLUSH_GLOBAL (access bit 8)
# but not FLUSH_PERSISTENT (bit 9). A FLUSH of a range in such an MR, or
# of the whole MR, is answered by an empty RDMA READ response ONLY at its
# PSN; a duplicate is answered again. NAKed, and the QP to the error
# state: remote access error for an R_Key without the FLUSH access (the
# suite's main MR), a range outside the MR, a persistent flush; invalid
# request for a FETH with no placement type or a reserved selectivity
# level. On 6.1 the core refuses the access bit, no capability is
# advertised, and every FLUSH is NAKed.
. /tests/lib.sh
. /tests/wire/wire.lib

LOCAL_WRITE=1 REMOTE_WRITE=2 REMOTE_READ=4
FLUSH_GLOBAL=$((1 << 8)) FLUSH_PERSISTENT=$((1 << 9))
# FETH: placement type (bits 3:0), selectivity level (bits 5:4)
feth() { printf '%08x' $(($1 | $2 << 4)); }
# flush PSN FETH RETH: one FLUSH from A's address to the newest pair's B
flush() { inj_ab --op 0x1c --qpn "$QPB" --psn "$1" --ackreq --ext "$2$3"; }
# answered OP PSN AETH: wait for that answer to A's QP (len: UDP length)
answered() {
	local pat="op=$1 qpn=$QPA psn=$2 ackreq=. aeth=$3 len=28"
	wait_for 10 "$pat" eval 'sniff_in | grep -q "$pat"'
}
# nak_case WHAT FETH RETH SYNDROME COUNTER: on a new pair, a FLUSH that is
# NAKed with SYNDROME, counted in COUNTER, and ends B's QP
nak_case() {
	new_pair rc
	csnap
	flush 1000 "$2" "$3"
	answered 0x11 1000 "$4"
	wait_delta sroce_b "$5" 1
	assert_delta sroce_b "$5" 1 "$1: NAK counted"
	ctl state "$P" b
	assert_eq "$(kv state)" ERR "$1: B's QP"
}

wire_start
sniff_start ha va
IFS=. read -r major minor _ <<<"$(uname -r)"
((major > 6 || (major == 6 && minor >= 2))) && known=1 || known=0

ctl caps b
caps=$(kv caps)
assert_eq "$(((caps >> 38) & 1))" "$known" "FLUSH_GLOBAL capability on $(uname -r) ($caps)"
assert_eq "$(((caps >> 39) & 1))" 0 "no FLUSH_PERSISTENT capability ($caps)"
rw=$((LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ))
ctl mr b $((rw | FLUSH_PERSISTENT))
assert_eq "$(kv rkey)" - "an MR that allows FLUSH_PERSISTENT: refused"
ctl mr b $((rw | FLUSH_GLOBAL))
rkey=$(kv rkey)
global=$(feth 1 0)

if ((known)); then
	[[ $rkey != - ]] || fail "an MR that allows FLUSH_GLOBAL: refused ($R)"
	new_pair rc
	csnap
	flush 1000 "$global" "$(reth "$VA_B" "$rkey" 4096)"
	answered 0x10 1000 0x1f
	flush 1001 "$(feth 1 1)" "$(reth 0 "$rkey" 0)"
	answered 0x10 1001 0x1f
	flush 1002 "$global" "$(reth "$VA_B" "$rkey" 0)"
	answered 0x10 1002 0x1f
	# the first again: a duplicate, answered again, once
	flush 1000 "$global" "$(reth "$VA_B" "$rkey" 4096)"
	wait_delta sroce_b duplicate_request 1
	wait_for 10 "the duplicate's answer" eval \
		'(($(sniff_in | grep -c "op=0x10 qpn=$QPA psn=1000 ") == 2))'
	settle
	assert_delta sroce_b rcvd_pkts 4
	assert_delta sroce_b sent_pkts 4 "one READ response each"
	assert_delta sroce_b duplicate_request 1
	assert_delta sroce_b sent_nak_rem_access 0
	ctl state "$P" b
	assert_eq "$(kv state)" RTS "B's QP after the FLUSHes"
	# each took one PSN: a WRITE at the next is executed
	ctl fill b 0 16 0
	inj_ab --op 0x0a --qpn "$QPB" --psn 1003 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" 16)" --payload-len 16
	answered 0x11 1003 0x1f
	ctl dump b 0 16
	assert_eq "$(kv hex)" 000102030405060708090a0b0c0d0e0f "the WRITE after"
	nak_case "below the MR" "$global" "$(reth $((VA_B - 8)) "$rkey" 16)" \
		0x62 sent_nak_rem_access
	nak_case "beyond the MR" "$global" "$(reth "$VA_B" "$rkey" $((1 << 30)))" \
		0x62 sent_nak_rem_access
	nak_case "persistent" "$(feth 2 0)" "$(reth "$VA_B" "$rkey" 64)" \
		0x62 sent_nak_rem_access
	nak_case "no placement type" "$(feth 0 0)" "$(reth "$VA_B" "$rkey" 64)" \
		0x61 sent_nak_inv_req
	nak_case "reserved level" "$(feth 1 2)" "$(reth "$VA_B" "$rkey" 64)" \
		0x61 sent_nak_inv_req
else
	assert_eq "$rkey" - "an MR that allows FLUSH_GLOBAL on $(uname -r): refused"
fi
nak_case "no FLUSH access" "$global" "$(reth "$VA_B" "$RKEY_B" 64)" \
	0x62 sent_nak_rem_access
nak_case "whole MR, no FLUSH access" "$(feth 1 1)" "$(reth 0 "$RKEY_B" 0)" \
	0x62 sent_nak_rem_access
pass
