#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A cluster: N QEMU (TCG) VMs, same kernel and initramfs (built with
# mkinitramfs.sh --tests-cluster), one vCPU each, on one Ethernet segment: a
# Linux bridge with a tap device per VM, in a private network namespace of
# the host's (unshare -n), so nothing of it is seen outside and nothing
# needs cleaning up. The cluster tests (selftests/tests-cluster) run in
# every VM, each with its own RDMA driver. Node K is 192.0.2.K/24 and
# 2001:db8::K/64 (K in hexadecimal there).
#
# Usage: vmn.sh --kernel VMLINUZ --initrd FILE.cpio.gz [--nodes N (4)]
#               [--drivers D1,D2,... (sroce for every node; the last one
#               given stands for the nodes after it)] [--mtu BYTES (1500)]
#               [--tests GLOB[,GLOB...] (cluster/*)] [--timeout TOTAL_S (3600)]
#               [--test-timeout PER_TEST_S (900)] [--mem MB (1024)]
#               [--append "KERNEL PARAMS"] [--log DIR (build/vmn)]
#               [--no-capture]
#
# The bridge, unlike vm2.sh's Unix socket, does not push back: a VM that
# falls behind loses the frames its tap's queue cannot hold (10,000 here),
# as a switch without PFC would, and the hosts' transports recover. The
# taps' drop counters are printed at the end ("taps dropped").
# Each VM's NIC is captured into DIR/K.pcap (first 192 bytes of each frame);
# selftests/roce_pcap.py checks every RoCE frame in it (lengths, headers,
# opcode sequences, CNPs' form) and a malformed one fails the run.
# Output: each VM's TAP, lines prefixed "K/", then "P passed, F failed, S
# skipped" over all. Exit 0 if nothing failed, 1 on failures, kernel splats
# or malformed frames, 2 if a VM died or timed out, or a guest's transmit
# queue stopped (nic.lib: all VMs are then stopped at once). Once one VM
# has ended, the others may run PEER_GRACE seconds more (env, 300).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit "${1:-2}"
}

KERNEL="" INITRD="" NODES=4 DRIVERS=sroce MTU=1500 TESTS='cluster/*'
TOTAL=3600 TEST_TIMEOUT=900 MEM=1024 APPEND="" LOGDIR=$REPO/build/vmn
CAPTURE=1
QEMU=${QEMU:-qemu-system-x86_64}
ARGS=("$@")

while (($#)); do
	case $1 in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--initrd) INITRD=${2:?}; shift 2 ;;
	--nodes) NODES=${2:?}; shift 2 ;;
	--drivers) DRIVERS=${2:?}; shift 2 ;;
	--mtu) MTU=${2:?}; shift 2 ;;
	--tests) TESTS=${2:?}; shift 2 ;;
	--timeout) TOTAL=${2:?}; shift 2 ;;
	--test-timeout) TEST_TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	--log) LOGDIR=${2:?}; shift 2 ;;
	--no-capture) CAPTURE=0; shift ;;
	-h|--help) usage 0 ;;
	*) echo "vmn.sh: unknown argument: $1" >&2; usage ;;
	esac
done

die() { echo "vmn.sh: $*" >&2; exit 2; }
[[ -f $KERNEL ]] || die "--kernel: no such file: '$KERNEL'"
[[ -f $INITRD ]] || die "--initrd: no such file: '$INITRD'"
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[[ $NODES =~ ^[0-9]+$ ]] && ((NODES >= 2 && NODES <= 16)) || die "--nodes must be 2..16"
[[ $DRIVERS =~ ^(sroce|rxe)(,(sroce|rxe))*$ ]] || die "--drivers: a list of sroce and rxe"
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
[[ $MTU =~ ^[0-9]+$ ]] && ((MTU >= 1280 && MTU <= 9000)) || die "--mtu must be 1280..9000"
[[ $TESTS =~ ^[^[:space:]\"]+$ ]] || die "--tests must not contain spaces or quotes"
[[ $TOTAL =~ ^[0-9]+$ && $TEST_TIMEOUT =~ ^[0-9]+$ && $MEM =~ ^[0-9]+$ ]] ||
	die "timeouts and --mem must be numbers"
command -v "$QEMU" >/dev/null || die "$QEMU not found"

# The segment lives in a network namespace of our own: run again inside one
if [[ -z ${VMN_NETNS:-} ]]; then
	VMN_NETNS=1 exec unshare -n "$0" "${ARGS[@]}"
fi

# each node's driver: the list, its last entry repeated
IFS=, read -r -a DRV <<<"$DRIVERS"
while ((${#DRV[@]} < NODES)); do DRV+=("${DRV[-1]}"); done
DRV=("${DRV[@]:0:NODES}")
DRIVERS=$(IFS=,; echo "${DRV[*]}")

. "$REPO/selftests/vm.lib"

ip link set lo up
ip link add br0 type bridge forward_delay 0 stp_state 0
ip link set br0 up
for ((k = 1; k <= NODES; k++)); do
	ip tuntap add "tap$k" mode tap
	ip link set "tap$k" mtu "$MTU" txqueuelen 10000 master br0 up
	mkdir -p "$LOGDIR/$k"
	rm -f "$LOGDIR/$k"/{console.log,results.tap,qemu.log} "$LOGDIR/$k.pcap" "$LOGDIR/$k.roce.txt"
done
ip link set br0 mtu "$MTU"

# qemu_cmd K: node K's command line, into QCMD
qemu_cmd() {
	local k=$1 d=$LOGDIR/$1 mac cmdline
	mac=$(printf '52:54:00:00:03:%02x' "$k")
	cmdline="$VM_CMDLINE sroce_harness.mode=check sroce_harness.tests=$TESTS"
	cmdline+=" sroce_harness.timeout=$TEST_TIMEOUT"
	cmdline+=" sroce_harness.role=$k sroce_harness.nodes=$NODES"
	cmdline+=" sroce_harness.driver=${DRV[k - 1]} sroce_harness.drivers=$DRIVERS"
	cmdline+=" sroce_harness.mtu=$MTU sroce_harness.segmac=$mac"
	[[ -n $APPEND ]] && cmdline+=" $APPEND"
	vm_qemu "$d" "$(nic_smp 1)" "$(nic_monitor "$d")" "$cmdline"
	# no virtio-net header: no offloads, as on vm2.sh's socket netdevs,
	# and plain Ethernet frames in the capture
	# shellcheck disable=SC2054  # the comma is QEMU's option syntax inside one argument
	QCMD=("${VM_QCMD[@]}"
		-netdev "tap,id=seg,ifname=tap$k,script=no,downscript=no,vnet_hdr=off"
		-device "virtio-net-pci,netdev=seg,mac=$mac")
	((CAPTURE)) && QCMD+=(-object "filter-dump,id=dump,netdev=seg,file=$LOGDIR/$k.pcap,maxlen=192")
	return 0
}

echo "vmn.sh: $(basename "$KERNEL"), $NODES nodes ($DRIVERS), mtu=$MTU tests=$TESTS," \
	"timeout ${TOTAL}s; logs in $LOGDIR"
START=$(date +%s)
QP=()

for ((k = 1; k <= NODES; k++)); do
	qemu_cmd "$k"
	: >"$LOGDIR/$k/results.tap"
	timeout -k 10 "$TOTAL" "${QCMD[@]}" </dev/null >"$LOGDIR/$k/qemu.log" 2>&1 &
	QP[k]=$!
	VM_PIDS+=("$!")
	tail -n +1 -s 0.5 -F --pid="${QP[k]}" "$LOGDIR/$k/results.tap" 2>/dev/null |
		sed -u "s#\r##; s#^#$k/#" &
	VM_PIDS+=("$!")
done

# All end at about the same time: the tests meet at barriers. When one is
# gone (done, or its kernel panicked) the others get PEER_GRACE seconds.
PEER_GRACE=${PEER_GRACE:-300}
all_up() {
	local k
	for ((k = 1; k <= NODES; k++)); do
		kill -0 "${QP[k]}" 2>/dev/null || return 1
		! vm_dead "$LOGDIR/$k" || return 1
	done
}
any_up() {
	local k
	for ((k = 1; k <= NODES; k++)); do kill -0 "${QP[k]}" 2>/dev/null && return 0; done
	return 1
}
# A guest whose transmit queue stopped (nic.lib) ends the run at once.
STALLED=0
for ((n = 1; ; n++)); do
	all_up || break
	if ((n % 5 == 0)); then
		for ((k = 1; k <= NODES; k++)); do
			nic_stalled "$LOGDIR/$k" && STALLED=1
		done
		if ((STALLED)); then
			echo "vmn.sh: a guest's transmit queue stopped; the NICs' queues:"
			dirs=()
			for ((k = 1; k <= NODES; k++)); do dirs+=("$LOGDIR/$k"); done
			nic_dump "vmn.sh: nic" "${dirs[@]}"
			break
		fi
	fi
	sleep 1
done
for ((i = 0; !STALLED && i < PEER_GRACE; i++)); do
	any_up || break
	sleep 1
done
((i < PEER_GRACE)) || echo "vmn.sh: VMs still ran ${PEER_GRACE}s after one ended; stopped"
RCS=""
for ((k = 1; k <= NODES; k++)); do
	kill "${QP[k]}" 2>/dev/null || true
	r=0
	wait "${QP[k]}" || r=$?
	RCS+=" $k=$r"
done
sleep 1
echo "vmn.sh: qemu exited with status$RCS after $(($(date +%s) - START))s"
drops=""
for ((k = 1; k <= NODES; k++)); do
	drops+=" tap$k=$(ip -s link show "tap$k" | awk '/TX:/{getline; print $4}')"
done
echo "# taps dropped (frames to a VM that fell behind):$drops"

RC=0 P=0 F=0 S=0
for ((k = 1; k <= NODES; k++)); do
	d=$LOGDIR/$k
	touch "$d/console.log"
	if ! tr -d '\r' <"$d/results.tap" | grep -q '^# SROCE-HARNESS-END'; then
		echo "---- $k: last 60 lines of $d/console.log ----"
		tail -n 60 "$d/console.log" | tr -d '\r' | sed "s#^#$k/#"
		if ((STALLED)); then
			echo "vmn.sh: VM $k stopped: a transmit queue stopped"
		else
			echo "vmn.sh: VM $k died or timed out"
		fi
		RC=2
		continue
	fi
	if tr -d '\r' <"$d/console.log" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" | grep -qE "$KLINE_RE"; then
		echo "---- $k: kernel splat on the console ----"
		tr -d '\r' <"$d/console.log" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" |
			grep -nE -B 2 -A 20 "$KLINE_RE" | head -n 100 | sed "s#^#$k/#"
		((RC)) || RC=1
	fi
	if tr -d '\r' <"$d/results.tap" | grep -q '^# NO-TESTS-MATCHED'; then
		echo "vmn.sh: $k: no test matched --tests '$TESTS'"
		((RC)) || RC=1
	fi
	res=$(tr -d '\r' <"$d/results.tap" |
		sed -n 's/^# RESULT: \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' | tail -n 1)
	if [[ -z $res ]]; then
		echo "vmn.sh: $k: no '# RESULT:' line"
		RC=2
		continue
	fi
	read -r p _ f _ s _ <<<"${res//,/}"
	P=$((P + p)) F=$((F + f)) S=$((S + s))
done
((F == 0)) || ((RC)) || RC=1

# Each node's capture on its own: every RoCE frame it sent or received
# well formed (the checker's sequence and loss accounting wants one peer,
# vm2.sh's topology, and is not asked for here).
PMTU=4096
while ((PMTU > 256 && PMTU > MTU - 80)); do PMTU=$((PMTU / 2)); done
for ((k = 1; CAPTURE && k <= NODES; k++)); do
	if [[ ! -s $LOGDIR/$k.pcap ]]; then
		echo "vmn.sh: node $k's NIC was not captured ($LOGDIR/$k.pcap)"
		((RC)) || RC=1
		continue
	fi
	pr=0
	# --ip this node; --peer-ip a node that is not there (the checker's
	# pairing is vm2.sh's). --ce-unseen: the cluster tests' congestion
	# point is the receiving node's ingress (an IFB), after its NIC, where
	# the capture is taken: no mark shows in it, so the CNPs are checked
	# for their form here, and against the marks by the tests' counters.
	"$REPO/selftests/roce_pcap.py" "$LOGDIR/$k.pcap" --mtu "$PMTU" --no-fail --ce-unseen \
		--ip "192.0.2.$k,2001:db8::$(printf %x "$k")" --peer-ip 192.0.2.254,2001:db8::fe \
		>"$LOGDIR/$k.roce.txt" 2>&1 || pr=$?
	m=$(sed -n 's/^malformed: \([0-9]*\).*/\1/p' "$LOGDIR/$k.roce.txt" | tail -n 1)
	n=$(sed -n 's/^== .*: \([0-9]*\) RoCE packets.*/\1/p' "$LOGDIR/$k.roce.txt" |
		awk '{ n += $1 } END { print n + 0 }')
	echo "# capture $k: $n RoCE frames; $(grep -m 1 '^checked' "$LOGDIR/$k.roce.txt" |
		sed 's/^checked [^ ]*: //');" \
		"$(grep -m 1 '^ecn' "$LOGDIR/$k.roce.txt" | sed 's/^ecn [^ ]*: //'); malformed ${m:-?}"
	if ((n == 0)); then
		echo "vmn.sh: node $k's capture has no RoCE frame: nothing was checked"
		((RC)) || RC=1
	fi
	if ((pr)) || [[ $m != 0 ]]; then
		echo "vmn.sh: node $k's capture: malformed frames or the checker failed (exit $pr), see $LOGDIR/$k.roce.txt"
		{ grep -m 20 -E '^(MALFORMED|VIOLATION) ' "$LOGDIR/$k.roce.txt" || true; } | sed 's/^/# /'
		((RC)) || RC=1
	fi
done
echo "$P passed, $F failed, $S skipped"
exit "$RC"
