#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two QEMU (TCG) VMs, same kernel and initramfs (built with mkinitramfs.sh
# --tests2), joined by one Ethernet segment on a second NIC: the two-host
# tests (selftests/tests-2host) run in both, each side with its own RDMA
# driver. Role a is 192.0.2.1/24 2001:db8::1/64, role b .2 and ::2.
#
# Usage: vm2.sh --kernel VMLINUZ --initrd FILE.cpio.gz [--a sroce|rxe (sroce)]
#               [--b sroce|rxe (sroce)] [--mtu BYTES (1500)]
#               [--tests GLOB[,GLOB...] (2host/*)] [--timeout TOTAL_S (5400)]
#               [--test-timeout PER_TEST_S (2400)] [--mem MB (1024)]
#               [--smp N (1)] [--append "KERNEL PARAMS"] [--log DIR (build/vm2)]
#               [--pcap-full] [--no-capture] [--link unix|stream|dgram (unix)]
#
# Never load sroce and rdma_rxe in one kernel (rxe oopses on sroce's device,
# they share the driver id): each VM loads only its own.
# The segment is captured on each VM's NIC, both directions, into
# DIR/a.pcap and DIR/b.pcap, the first 192 bytes of each frame (all RoCE
# headers; a 64 KiB perftest run would write 300 MB whole), whole frames
# with --pcap-full; selftests/roce_pcap.py checks every RoCE frame in them
# (lengths, ICRC of the frames captured whole, headers, opcode sequences)
# and summarises them into DIR/roce.txt (each sender's packets as sent, from
# its own capture, against those that arrived, from the other's).
# --no-capture (make bench TOPO=vm2) captures and checks nothing.
# Output: each VM's TAP, lines prefixed "a/" or "b/", the capture's summary,
# then "P passed, F failed, S skipped" over both. Exit 0 if nothing failed,
# 1 on failures, kernel splats or malformed frames (or a checker that
# failed), 2 if a VM died or timed out, or a guest's transmit queue
# stopped (nic.lib: both VMs are then stopped at once). Once one VM has
# ended (or its kernel panicked), the other may run PEER_GRACE seconds more
# (env, 300).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit "${1:-2}"
}

LINK=unix
KERNEL="" INITRD="" DRV_A=sroce DRV_B=sroce MTU=1500 TESTS='2host/*'
TOTAL=5400 TEST_TIMEOUT=2400 MEM=1024 APPEND="" LOGDIR=$REPO/build/vm2
# One vCPU each: two VMs with two vCPUs would be four TCG threads on a
# two-core host, and a starved vCPU holds its peer's packets for tens of ms.
SMP=1
SNAPLEN=192
CAPTURE=1
QEMU=${QEMU:-qemu-system-x86_64}

while (($#)); do
	case $1 in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--initrd) INITRD=${2:?}; shift 2 ;;
	--a) DRV_A=${2:?}; shift 2 ;;
	--b) DRV_B=${2:?}; shift 2 ;;
	--mtu) MTU=${2:?}; shift 2 ;;
	--tests) TESTS=${2:?}; shift 2 ;;
	--timeout) TOTAL=${2:?}; shift 2 ;;
	--test-timeout) TEST_TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	--log) LOGDIR=${2:?}; shift 2 ;;
	--no-capture) CAPTURE=0; shift ;;
	--pcap-full) SNAPLEN=65536; shift ;;
	--link) LINK=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "vm2.sh: unknown argument: $1" >&2; usage ;;
	esac
done

die() { echo "vm2.sh: $*" >&2; exit 2; }
[[ -f $KERNEL ]] || die "--kernel: no such file: '$KERNEL'"
[[ -f $INITRD ]] || die "--initrd: no such file: '$INITRD'"
[[ $DRV_A =~ ^(sroce|rxe)$ && $DRV_B =~ ^(sroce|rxe)$ ]] || die "--a/--b must be sroce or rxe"
[[ $LINK =~ ^(stream|unix|dgram)$ ]] || die "--link must be stream, unix or dgram"
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[[ $MTU =~ ^[0-9]+$ ]] && ((MTU >= 1280 && MTU <= 9000)) || die "--mtu must be 1280..9000"
[[ $TESTS =~ ^[^[:space:]\"]+$ ]] || die "--tests must not contain spaces or quotes"
[[ $TOTAL =~ ^[0-9]+$ && $TEST_TIMEOUT =~ ^[0-9]+$ ]] || die "timeouts must be numbers"
[[ $MEM =~ ^[0-9]+$ && $SMP =~ ^[0-9]+$ ]] || die "--mem/--smp must be numbers"
command -v "$QEMU" >/dev/null || die "$QEMU not found"

mkdir -p "$LOGDIR"/{a,b}
rm -f "$LOGDIR"/{a,b}/{console.log,results.tap,qemu.log} "$LOGDIR"/{a,b,seg}.pcap "$LOGDIR/roce.txt" "$LOGDIR/seg.sock"

# The segment, --link:
# unix (default): QEMU's "stream" netdev over a Unix socket, A listening.
#   A stream pushes back: a VM that reads slowly stalls its peer's transmit
#   queue, as a lossless (PFC) fabric would, instead of losing frames. A
#   must listen before B starts (bounded wait).
# stream: the same over one TCP connection on 127.0.0.1. TCP on loopback
#   holds a small frame back until the one before it is acknowledged
#   (Nagle; QEMU does not set TCP_NODELAY), and the peer delays that ACK: a
#   frame that follows a small one waits about 20 ms, so every ping-pong's
#   latency reads about 22 ms whatever the driver, and the two-host tests,
#   which are mostly round trips (connects, NVMe and NFS commands), took
#   half again as long as over a Unix socket, which has no such wait.
# dgram: each VM sends its frames as UDP datagrams to the other's socket; no
#   start order, but lossy: a VM that falls behind overflows its socket's
#   receive buffer (212 KB by default, about 90 frames; the host counts them
#   in /proc/net/snmp Udp RcvbufErrors). Measured: 10-20 % of the frames
#   lost while one VM floods the other under TCG.
# Two free ports: bind-test candidates from a random base.
free_udp_pair() {
	python3 - <<'EOF'
import random, socket
for _ in range(200):
    p = random.randrange(20000, 60000, 2)
    try:
        ss = []
        for q in (p, p + 1):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", q))
            ss.append(s)
        print(p, p + 1)
        break
    except OSError:
        pass
EOF
}
read -r PORT_A PORT_B < <(free_udp_pair)
[[ -n ${PORT_B:-} ]] || die "no free UDP port pair on 127.0.0.1"

. "$REPO/selftests/vm.lib"

# qemu_cmd ROLE DRIVER PEER LOCALPORT REMOTEPORT MAC: into QCMD
qemu_cmd() {
	local role=$1 drv=$2 peer=$3 lport=$4 rport=$5 mac=$6 d=$LOGDIR/$1 cmdline
	cmdline="$VM_CMDLINE sroce_harness.mode=check sroce_harness.tests=$TESTS"
	cmdline+=" sroce_harness.timeout=$TEST_TIMEOUT"
	cmdline+=" sroce_harness.role=$role sroce_harness.driver=$drv sroce_harness.peer=$peer"
	cmdline+=" sroce_harness.mtu=$MTU sroce_harness.segmac=$mac"
	[[ -n $APPEND ]] && cmdline+=" $APPEND"
	vm_qemu "$d" "$(nic_smp "$SMP")" "$(nic_monitor "$d")" "$cmdline"
	QCMD=("${VM_QCMD[@]}" -device "virtio-net-pci,netdev=seg,mac=$mac")
	# each side's: where a frame went missing shows
	((CAPTURE)) && QCMD+=(-object "filter-dump,id=dump,netdev=seg,file=$LOGDIR/$role.pcap,maxlen=$SNAPLEN")
	if [[ $LINK == dgram ]]; then
		QCMD+=(-netdev "dgram,id=seg,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport")
	elif [[ $LINK == unix ]]; then
		QCMD+=(-netdev "stream,id=seg,server=$([[ $role == a ]] && echo on || echo off),addr.type=unix,addr.path=$LOGDIR/seg.sock")
	elif [[ $role == a ]]; then
		QCMD+=(-netdev "stream,id=seg,server=on,addr.type=inet,addr.host=127.0.0.1,addr.port=$lport")
	else
		QCMD+=(-netdev "stream,id=seg,server=off,addr.type=inet,addr.host=127.0.0.1,addr.port=$rport")
	fi
	return 0
}

echo "vm2.sh: $(basename "$KERNEL"), a=$DRV_A b=$DRV_B mtu=$MTU tests=$TESTS," \
	"timeout ${TOTAL}s; logs in $LOGDIR"
START=$(date +%s)

qemu_cmd a "$DRV_A" "$DRV_B" "$PORT_A" "$PORT_B" 52:54:00:00:02:0a
: >"$LOGDIR/a/results.tap"
timeout -k 10 "$TOTAL" "${QCMD[@]}" </dev/null >"$LOGDIR/a/qemu.log" 2>&1 &
QA=$!
VM_PIDS+=("$QA")
if [[ $LINK == stream ]]; then
	# B connects once: wait (bounded) for A's listening socket
	for ((i = 0; i < 100; i++)); do
		ss -Hltn "sport = :$PORT_A" 2>/dev/null | grep -q . && break
		kill -0 "$QA" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	((i < 100)) && kill -0 "$QA" 2>/dev/null || die "VM a does not listen on 127.0.0.1:$PORT_A"
elif [[ $LINK == unix ]]; then
	for ((i = 0; i < 100; i++)); do
		ss -Hlx src "$LOGDIR/seg.sock" 2>/dev/null | grep -q . && break
		kill -0 "$QA" 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	((i < 100)) && kill -0 "$QA" 2>/dev/null || die "VM a does not listen on $LOGDIR/seg.sock"
fi
qemu_cmd b "$DRV_B" "$DRV_A" "$PORT_B" "$PORT_A" 52:54:00:00:02:0b
: >"$LOGDIR/b/results.tap"
timeout -k 10 "$TOTAL" "${QCMD[@]}" </dev/null >"$LOGDIR/b/qemu.log" 2>&1 &
QB=$!
VM_PIDS+=("$QB")

# live progress, each line with its VM's prefix
for r in a b; do
	q=$QA
	[[ $r == b ]] && q=$QB
	tail -n +1 -s 0.5 -F --pid="$q" "$LOGDIR/$r/results.tap" 2>/dev/null |
		sed -u "s#\r##; s#^#$r/#" &
	VM_PIDS+=("$!")
done
# Both VMs end their runs at about the same time: the tests are paired.
# When one is gone (its QEMU exited: done, or its kernel panicked, which
# -no-reboot turns into an exit) or its kernel died without exiting (a
# panic or a double fault on its console), the other gets PEER_GRACE
# seconds to end too, and is then stopped: its tests would otherwise wait
# for a peer that is gone until the per-test timeout. Bounded by TOTAL.
PEER_GRACE=${PEER_GRACE:-300}
vm_up() {
	kill -0 "$1" 2>/dev/null && ! vm_dead "$LOGDIR/$2"
}
# A guest whose transmit queue stopped (nic.lib) ends the run at once.
STALLED=0
for ((n = 1; ; n++)); do
	if ! vm_up "$QA" a || ! vm_up "$QB" b; then break; fi
	if ((n % 5 == 0)) && { nic_stalled "$LOGDIR/a" || nic_stalled "$LOGDIR/b"; }; then
		echo "vm2.sh: a guest's transmit queue stopped; the NICs' queues:"
		nic_dump "vm2.sh: nic" "$LOGDIR/a" "$LOGDIR/b"
		STALLED=1
		break
	fi
	sleep 1
done
for ((i = 0; !STALLED && i < PEER_GRACE; i++)); do
	kill -0 "$QA" 2>/dev/null || kill -0 "$QB" 2>/dev/null || break
	sleep 1
done
((i < PEER_GRACE)) || echo "vm2.sh: a VM still ran ${PEER_GRACE}s after the other ended; stopped"
kill "$QA" "$QB" 2>/dev/null || true
RA=0 RB=0
wait "$QA" || RA=$?
wait "$QB" || RB=$?
sleep 1
echo "vm2.sh: qemu exited with status a=$RA b=$RB after $(($(date +%s) - START))s"

RC=0 P=0 F=0 S=0
for r in a b; do
	d=$LOGDIR/$r
	touch "$d/console.log"
	if ! tr -d '\r' <"$d/results.tap" | grep -q '^# SROCE-HARNESS-END'; then
		echo "---- $r: last 60 lines of $d/console.log ----"
		tail -n 60 "$d/console.log" | tr -d '\r' | sed "s#^#$r/#"
		if ((STALLED)); then
			echo "vm2.sh: VM $r stopped: a transmit queue stopped"
		else
			echo "vm2.sh: VM $r died or timed out"
		fi
		RC=2
		continue
	fi
	if tr -d '\r' <"$d/console.log" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" | grep -qE "$KLINE_RE"; then
		echo "---- $r: kernel splat on the console ----"
		tr -d '\r' <"$d/console.log" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" |
			grep -nE -B 2 -A 20 "$KLINE_RE" | head -n 100 | sed "s#^#$r/#"
		((RC)) || RC=1
	fi
	if tr -d '\r' <"$d/results.tap" | grep -q '^# NO-TESTS-MATCHED'; then
		echo "vm2.sh: $r: no test matched --tests '$TESTS'"
		((RC)) || RC=1
	fi
	res=$(tr -d '\r' <"$d/results.tap" |
		sed -n 's/^# RESULT: \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' | tail -n 1)
	if [[ -z $res ]]; then
		echo "vm2.sh: $r: no '# RESULT:' line"
		RC=2
		continue
	fi
	read -r p _ f _ s _ <<<"${res//,/}"
	P=$((P + p)) F=$((F + f)) S=$((S + s))
done
((F == 0)) || ((RC)) || RC=1

if [[ -s $LOGDIR/a.pcap ]] && command -v python3 >/dev/null; then
	# The largest path MTU a driver can choose on this link: rdma_rxe's
	# (MTU - 80; sroce's, MTU - 96, is never larger)
	PMTU=4096
	while ((PMTU > 256 && PMTU > MTU - 80)); do PMTU=$((PMTU / 2)); done
	pr=0
	"$REPO/selftests/roce_pcap.py" "$LOGDIR/a.pcap" --peer-pcap "$LOGDIR/b.pcap" \
		--mtu "$PMTU" >"$LOGDIR/roce.txt" 2>&1 || pr=$?
	sed -n '/^summary/,$p' "$LOGDIR/roce.txt" | sed 's/^/# /'
	# A malformed frame on the segment fails the run, as does a checker
	# that could not check (it ends with "malformed: K" when it could)
	if grep -q '^malformed: [1-9]' "$LOGDIR/roce.txt"; then
		echo "vm2.sh: malformed RoCE frames on the segment, see $LOGDIR/roce.txt:"
		{ grep -m 20 -E '^(MALFORMED|VIOLATION) ' "$LOGDIR/roce.txt" || true; } | sed 's/^/# /'
		((RC)) || RC=1
	elif ((pr)); then
		echo "vm2.sh: roce_pcap.py failed (exit $pr), see $LOGDIR/roce.txt"
		tail -n 5 "$LOGDIR/roce.txt" | sed 's/^/# /'
		((RC)) || RC=1
	fi
fi
# On a lossless segment sroce sends a request packet twice only after the
# peer lost something (issue 11): rdma_rxe drops READ responses its qdisc
# cannot take, and a peer that drops a request NAKs the gap. The checker
# counts, per sender, the packets it sent more than once with no such loss
# shown before them in that test step ("sender IP: N sent more than once
# with no loss shown before them", IP the host's IPv4 address, standing
# for its IPv6 one too).
for r in a b; do
	drv=DRV_${r^^}
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[[ ${!drv} == sroce ]] && ((CAPTURE)) || continue
	ip=192.0.2.1
	[[ $r == a ]] || ip=192.0.2.2
	dup=$(sed -n "s/^sender $ip: \([0-9]*\) sent more than once with no loss shown before them$/\1/p" \
		"$LOGDIR/roce.txt" 2>/dev/null | tail -n 1)
	[[ -n $dup ]] ||
		dup=$(sed -n "s/^sender $ip: [0-9]* request packets, \([0-9]*\) sent more than once$/\1/p" \
			"$LOGDIR/roce.txt" 2>/dev/null | tail -n 1)
	if [[ -n $dup && $dup != 0 ]]; then
		echo "vm2.sh: sroce on $r ($ip) sent $dup request packets more than once with no loss before them, see $LOGDIR/roce.txt"
		((RC)) || RC=1
	fi
done
echo "$P passed, $F failed, $S skipped"
exit "$RC"
