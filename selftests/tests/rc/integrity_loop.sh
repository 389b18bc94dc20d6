#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rc/integrity with both ends on one device: every packet takes the
# loopback branch (no ICRC, packets queued straight on the peer QP, whose
# work is told in batches or run inline by the sender, qp.c), and every
# SEND, WRITE or READ reply of more than one MTU goes as chunks of up to
# 64 KiB whose payload is the sender's pages (local.c). The same random
# SEND/WRITE/WRITE_IMM/READ/atomics, 1 B to 4 MiB over several SGEs at odd
# offsets, 4 QPs, every byte compared; the sroce_send tracepoint shows the
# chunks went (a packet longer than the 1024-byte path MTU).
. /tests/lib.sh

T=/sys/kernel/tracing
[[ -e $T/trace ]] || mount -t tracefs tracefs "$T" 2>/dev/null || true
[[ -d $T/events ]] || skip "no tracefs"
one_device
g=$G
ev=$T/events/sroce/sroce_send
at_exit "echo 0 >$ev/enable; echo 0 >$ev/filter; echo 0 >$T/tracing_on; : >$T/trace"
: >"$T/trace"
echo 'len > 1100' >"$ev/filter"
echo 1 >"$ev/enable"
echo 1 >"$T/tracing_on"
rc=0
timeout 600 rc_data integrity sroce0 "$g" sroce0 "$g" > out.log 2>&1 || rc=$?
echo 0 >"$T/tracing_on"
grep -v "^ok " out.log || true
rdma statistic show link sroce0/1
[ $rc = 0 ] || fail "rc_data integrity: exit $rc, $(grep -c '^not ok' out.log) checks failed"
c() { cat /sys/class/infiniband/sroce0/ports/1/hw_counters/"$1"; }
[ "$(c sent_pkts)" -gt 1000 ] || fail "only $(c sent_pkts) packets sent"
assert_eq "$(c sent_pkts)" "$(c rcvd_pkts)" "every packet looped back"
assert_eq "$(c retransmits)" "0" "no retransmission"
assert_eq "$(c rcvd_dropped)" "0" "no packet dropped"
chunks=$(grep -c ' sroce_send: ' "$T/trace")
echo "chunks longer than the MTU: $chunks"
grep -m3 ' sroce_send: ' "$T/trace" || true
[ "$chunks" -gt 10 ] || fail "only $chunks packets longer than the MTU: no chunks"
# WRITE (0x06-0x0b), SEND (0x00-0x05) and READ replies (0x0d-0x10) all chunked
for op in 'opcode=0x0[6-9ab]' 'opcode=0x0[0-5]' 'opcode=0x(0[d-f]|10)'; do
	grep -qE " sroce_send: .*$op " "$T/trace" || fail "no chunk with $op"
done
pass
