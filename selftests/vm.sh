#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel with the selftests initramfs in QEMU (TCG) and report.
#
# Usage: vm.sh --kernel VMLINUZ --initrd FILE.cpio.gz [--mode check|run|bench]
#              [--tests GLOB[,GLOB...]] [--timeout TOTAL_S (3000)]
#              [--test-timeout PER_TEST_S (300)] [--mem MB (2048)] [--smp N (2)]
#              [--append "KERNEL PARAMS"] [--log DIR (build/vm)]
#              [--userland ROOT]
#
# --append adds kernel parameters, e.g. "sroce.debug=1" (module parameters
# for "modprobe sroce") or "dyndbg=...". --userland hands the guest a root
# file system (selftests/kernels.sh userland) read-only over 9p, with the
# mount tag "userland" (tests/lib.sh: userland_mount). NIC_PCAP=1 in the environment
# captures the two NICs' frames (LOGDIR/nic0.pcap, nic1.pcap).
# Exit: check mode 0 if nothing failed, 1 on failures or kernel splats;
# run/bench mode 0 if the script exited 0 and no splat; 2 if the VM died or
# timed out. The last line in check mode is "P passed, F failed, S skipped".
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	sed -n '3,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit "${1:-2}"
}

KERNEL=""
INITRD=""
MODE=check
TESTS='*'
TOTAL=3000
TEST_TIMEOUT=""
MEM=2048
SMP=2
APPEND=""
LOGDIR=$REPO/build/vm
USERLAND=""
QEMU=${QEMU:-qemu-system-x86_64}

while (($#)); do
	case $1 in
	--kernel) KERNEL=${2:?}; shift 2 ;;
	--initrd) INITRD=${2:?}; shift 2 ;;
	--mode) MODE=${2:?}; shift 2 ;;
	--tests) TESTS=${2:?}; shift 2 ;;
	--timeout) TOTAL=${2:?}; shift 2 ;;
	--test-timeout) TEST_TIMEOUT=${2:?}; shift 2 ;;
	--mem) MEM=${2:?}; shift 2 ;;
	--smp) SMP=${2:?}; shift 2 ;;
	--append) APPEND=${2:?}; shift 2 ;;
	--log) LOGDIR=${2:?}; shift 2 ;;
	--userland) USERLAND=${2:?}; shift 2 ;;
	-h|--help) usage 0 ;;
	*) echo "vm.sh: unknown argument: $1" >&2; usage ;;
	esac
done

die() { echo "vm.sh: $*" >&2; exit 2; }
[[ -f $KERNEL ]] || die "--kernel: no such file: '$KERNEL'"
[[ -f $INITRD ]] || die "--initrd: no such file: '$INITRD'"
[[ $MODE =~ ^(check|run|bench)$ ]] || die "--mode must be check, run or bench"
[[ $TESTS =~ ^[^[:space:]\"]+$ ]] || die "--tests must not contain spaces or quotes"
[[ $TOTAL =~ ^[0-9]+$ ]] || die "--timeout must be a number of seconds"
[[ -z $TEST_TIMEOUT || $TEST_TIMEOUT =~ ^[0-9]+$ ]] || die "--test-timeout must be a number"
[[ $MEM =~ ^[0-9]+$ && $SMP =~ ^[0-9]+$ ]] || die "--mem/--smp must be numbers"
[[ -z $USERLAND || -x $USERLAND/usr/bin/env ]] || die "--userland: no root file system in '$USERLAND'"
command -v "$QEMU" >/dev/null || die "$QEMU not found"

mkdir -p "$LOGDIR"
CONSOLE=$LOGDIR/console.log
TAP=$LOGDIR/results.tap
rm -f "$CONSOLE" "$TAP" "$LOGDIR/qemu.log"
: >"$TAP"

. "$REPO/selftests/vm.lib"

CMDLINE="$VM_CMDLINE sroce_harness.mode=$MODE sroce_harness.tests=$TESTS"
[[ -n $TEST_TIMEOUT ]] && CMDLINE+=" sroce_harness.timeout=$TEST_TIMEOUT"
[[ -n $APPEND ]] && CMDLINE+=" $APPEND"
[[ -z $USERLAND ]] || CMDLINE+=" sroce_harness.userland=${USERLAND##*/}"

vm_qemu "$LOGDIR" "$SMP" none "$CMDLINE"
# A second virtio-net NIC on eth0's hub: two real NIC drivers (no
# rtnl_link_ops, so a dying namespace hands one back to init_net) whose
# packets reach each other and nothing else (rc/nic: the receive softirq
# of a NIC runs the QP).
# shellcheck disable=SC2054  # the comma is QEMU's option syntax inside one argument
QEMU_CMD=("${VM_QCMD[@]}" -netdev hubport,id=nic1,hubid=0 -device virtio-net-pci,netdev=nic1)
[[ -z $USERLAND ]] ||
	QEMU_CMD+=(-virtfs "local,path=$USERLAND,mount_tag=userland,security_model=none,readonly=on")
# NIC_PCAP=1: what each of the two NICs sends and receives, as QEMU passes it
# (LOGDIR/nic0.pcap, nic1.pcap; selftests/roce_pcap.py reads them).
[[ ${NIC_PCAP:-0} = 1 ]] && for n in nic0 nic1; do
	rm -f "$LOGDIR/$n.pcap"
	QEMU_CMD+=(-object "filter-dump,id=dump-$n,netdev=$n,file=$LOGDIR/$n.pcap,maxlen=96")
done

echo "vm.sh: $(basename "$KERNEL"), mode=$MODE tests=$TESTS, timeout ${TOTAL}s; logs in $LOGDIR"
START=$(date +%s)
timeout -k 10 "$TOTAL" "${QEMU_CMD[@]}" </dev/null >"$LOGDIR/qemu.log" 2>&1 &
QPID=$!
VM_PIDS+=("$QPID")
# live progress
tail -n +1 -s 0.5 -F --pid="$QPID" "$TAP" 2>/dev/null | tr -d '\r' &
TPID=$!
VM_PIDS+=("$TPID")
QRC=0
wait "$QPID" || QRC=$?
wait "$TPID" 2>/dev/null || true
ELAPSED=$(($(date +%s) - START))
echo "vm.sh: qemu exited with status $QRC after ${ELAPSED}s"

touch "$CONSOLE"
if ! tr -d '\r' <"$TAP" | grep -q '^# SROCE-HARNESS-END'; then
	echo "---- last 100 lines of $CONSOLE ----"
	tail -n 100 "$CONSOLE" | tr -d '\r'
	if [[ -s $LOGDIR/qemu.log ]]; then
		echo "---- qemu output ----"
		tail -n 20 "$LOGDIR/qemu.log"
	fi
	((QRC == 124 || QRC == 137)) && echo "vm.sh: total timeout of ${TOTAL}s reached"
	echo "VM died or timed out"
	exit 2
fi

RC=0
if tr -d '\r' <"$CONSOLE" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" | grep -qE "$KLINE_RE"; then
	echo "---- kernel splat on the console ----"
	tr -d '\r' <"$CONSOLE" | grep -vE "$USER_FAULT_RE|$NOT_SPLAT_RE" |
		grep -nE -B 2 -A 20 "$KLINE_RE" | head -n 150
	echo "vm.sh: kernel splat found in $CONSOLE"
	RC=1
fi

if [[ $MODE == check ]]; then
	if tr -d '\r' <"$TAP" | grep -q '^# NO-TESTS-MATCHED'; then
		echo "vm.sh: no test matched --tests '$TESTS'"
		RC=1
	fi
	res=$(tr -d '\r' <"$TAP" | sed -n 's/^# RESULT: \([0-9]* passed, [0-9]* failed, [0-9]* skipped\)$/\1/p' | tail -n 1)
	[[ -n $res ]] || { echo "vm.sh: no '# RESULT:' line in $TAP"; echo "VM died or timed out"; exit 2; }
	failed=${res#* passed, }
	failed=${failed%% failed*}
	((failed == 0)) || RC=1
	echo "$res"
else
	run_rc=$(tr -d '\r' <"$TAP" | sed -n 's/^# RUN-EXIT: //p' | tail -n 1)
	echo "vm.sh: $MODE script exit: ${run_rc:-?}"
	[[ $run_rc == 0 ]] || RC=1
fi
exit "$RC"
