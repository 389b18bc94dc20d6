#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Packets that arrive in page fragments. roce_inject --paged leaves only the
# IP and UDP headers in the skb's linear part, as a NIC that receives into
# pages (virtio-net's mergeable buffers) leaves the payload. sroce pulls the
# BTH and RETH, checks the ICRC across the fragments and places the payload
# from them: a 1 KiB WRITE on IPv4 and on IPv6 lands byte for byte and is
# acknowledged, and the sroce_recv tracepoint shows its 1024 bytes stayed
# in fragments (paged=1024); with a wrong ICRC it writes nothing and is
# counted in rcvd_icrc_err; with its RETH cut short it is dropped.
. /tests/lib.sh
. /tests/wire/wire.lib

T=/sys/kernel/tracing
[[ -e $T/trace ]] || mount -t tracefs tracefs "$T" 2>/dev/null || true
[[ -d $T/events ]] || skip "no tracefs"
# the bytes --payload-len N sends: 0, 1, 2 ... 255, 0, 1 ...
pattern() { local i; for ((i = 0; i < $1; i++)); do printf '%02x' $((i & 255)); done; }
want=$(pattern 1024)

for fam in 4 6; do
	wire_start "$fam"
	if [[ $fam == 4 ]]; then inj=inj_ab; else inj=inj6_ab; fi
	if [[ -z ${DB:-} ]]; then
		DB=$(rdma dev show sroce_b | sed -n 's/^\([0-9]*\): sroce_b: .*/\1/p')
		[[ $DB =~ ^[0-9]+$ ]] || fail "sroce_b's index: '$DB'"
		echo 0 >"$T/tracing_on"
		: >"$T/trace"
		at_exit "echo 0 >$T/events/sroce/sroce_recv/enable; echo 0 >$T/tracing_on; : >$T/trace"
		echo 1 >"$T/events/sroce/sroce_recv/enable"
		echo 1 >"$T/tracing_on"
	fi
	new_pair rc
	ctl fill b 0 1024 0
	csnap
	$inj --paged --op 0x0a --qpn "$QPB" --psn 1000 --ackreq \
		--ext "$(reth "$VA_B" "$RKEY_B" 1024)" --payload-len 1024
	wait_delta sroce_b rcvd_pkts 1
	wait_delta sroce_a rcvd_pkts 1
	pat="sroce_recv: dev=$DB dqpn=$QPB opcode=0x0a psn=1000 len=1024 paged=1024\$"
	grep -qE "$pat" "$T/trace" || {
		grep ' sroce_recv' "$T/trace" | tail -n 5 | sed 's/^/#   /'
		fail "IPv$fam: no trace of the WRITE in fragments: /$pat/"
	}
	ctl dump b 0 1024
	assert_eq "$(kv hex)" "$want" "IPv$fam: 1 KiB WRITE from fragments"
	assert_delta sroce_b rcvd_dropped 0 "IPv$fam: WRITE"
	assert_delta sroce_b rcvd_icrc_err 0 "IPv$fam: WRITE"

	ctl fill b 0 1024 0
	csnap
	$inj --paged --op 0x0a --qpn "$QPB" --psn 1001 --ackreq --bad-icrc \
		--ext "$(reth "$VA_B" "$RKEY_B" 1024)" --payload-len 1024
	wait_delta sroce_b rcvd_icrc_err 1
	settle
	ctl dump b 0 1024
	assert_eq "$(kv hex)" "$(hexpat 1024 00)" "IPv$fam: a bad ICRC writes nothing"
	assert_delta sroce_b rcvd_pkts 0 "IPv$fam: bad ICRC"
	assert_delta sroce_b sent_pkts 0 "IPv$fam: no answer to a bad ICRC"

	csnap
	reth=$(reth "$VA_B" "$RKEY_B" 8)
	$inj --paged --op 0x0a --qpn "$QPB" --psn 1001 --ackreq --ext "${reth:0:24}"
	wait_delta sroce_b rcvd_drop_bad_hdr 1
	settle
	assert_delta sroce_b rcvd_pkts 0 "IPv$fam: a RETH cut short"
	assert_delta sroce_b sent_pkts 0 "IPv$fam: no answer to a RETH cut short"

	ctl state "$P" b
	assert_eq "$(kv state)" RTS "IPv$fam: B's QP"
	ctl fill a 0 16 0x5a
	ctl post "$P" a write 16 0 2048
	ctl poll a 20 1
	assert_match "$R" "^wc n=1 0:1:" "IPv$fam: a real WRITE afterwards"
	wire_stop
done
pass
