#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 7.2
# timeout: 2400
# rdma-core's own test suite, the one its maintainers qualify providers
# with: tests/ of the installed python3-pyverbs (mkinitramfs.sh puts it in
# /usr/share/rdma-core-tests), run through the stock rxe provider against
# one sroce device on a virtio-net NIC (a netdev with a parent device, as
# the suite's rdma_cm tests look for it under device/net), 2 MiB huge pages
# allocated for the huge-page tests. Each test module runs in a process of
# its own with a timeout (pyverbs_run.py: one line per test). Fails on any
# failure, error, module that dies or hangs, and on fewer passes than
# PYVERBS_MIN_PASS: a test that starts to skip is a regression too. The
# totals and the skip reasons, grouped, go to the TAP output (SUMMARY);
# why they skip: Documentation/testing.md, rdma-core's test suite.
. /tests/lib.sh

SUITE=/usr/share/rdma-core-tests
RUN=$(dirname "${BASH_SOURCE[0]}")/pyverbs_run.py
MIN_PASS=${PYVERBS_MIN_PASS:-107}
MOD_TIMEOUT=300
[[ -f $SUITE/base.py && -x /usr/bin/python3 ]] ||
	fail "rdma-core's test suite or python3 is not in the image (mkinitramfs.sh)"

modprobe -a rdma_ucm virtio_pci virtio_net 2>/dev/null || true
sroce_load
nic=
for d in /sys/class/net/*; do
	[[ $(readlink "$d/device/driver" 2>/dev/null) == */virtio_net ]] && { nic=${d##*/}; break; }
done
[[ -n $nic ]] || skip "needs a virtio-net NIC of vm.sh"
ip addr flush dev "$nic"
ip addr add 198.51.100.1/24 dev "$nic"
ip link set "$nic" up
at_exit "ip addr flush dev $nic"
link_add sroce_py "$nic"
wait_for 10 "port active" port_state_is sroce_py ACTIVE
wait_for 10 "IPv4 GID" gid_index sroce_py 198.51.100.1
[[ -e /sys/class/infiniband/sroce_py/device/net/$nic ]] ||
	fail "the netdev is not under /sys/class/infiniband/sroce_py/device/net"

hp=/proc/sys/vm/nr_hugepages
if [[ -e $hp ]]; then
	hp0=$(cat $hp)
	echo 16 >$hp
	at_exit "echo $hp0 >$hp"
	(($(cat $hp) > 0)) || fail "no 2 MiB huge page could be allocated"
else
	log "no huge pages in this kernel (the debug kernel has no HUGETLBFS)"
	# test_odp's two huge-page tests skip
	MIN_PASS=$((MIN_PASS - 2))
fi

declare -A N=([PASS]=0 [FAIL]=0 [ERROR]=0 [SKIP]=0)
bad=()
for f in "$SUITE"/test_*.py; do
	m=$(basename "$f" .py)
	t0=$SECONDS rc=0
	timeout -s KILL $MOD_TIMEOUT python3 "$RUN" "$SUITE" sroce_py "$m" >"$m.log" 2>&1 ||
		rc=$?
	n=$(grep -cE '^(PASS|FAIL|ERROR|SKIP) ' "$m.log" || true)
	log "$m: exit $rc, $n tests, $((SECONDS - t0)) s"
	while read -r what _ id rest; do
		N[$what]=$((N[$what] + 1))
		echo "  $what $id${rest:+ ($rest)}"
		[[ $what != SKIP ]] || echo "$m: ${rest:-no reason}" >>skips
	done < <(grep -E '^(PASS|FAIL|ERROR|SKIP) ' "$m.log")
	if ((rc == 137)); then
		bad+=("$m: killed after ${MOD_TIMEOUT}s")
	elif ((rc != 0)) || ((n == 0)); then
		bad+=("$m: exit $rc")
	fi
	((rc == 0 && n > 0)) || sed 's/^/    | /' "$m.log"
done
# The totals and why tests skipped, in the TAP output (init: SUMMARY lines)
echo "SUMMARY rdma-core tests: ${N[PASS]} passed, ${N[FAIL]} failed," \
	"${N[ERROR]} errors, ${N[SKIP]} skipped, $SECONDS s"
[[ ! -f skips ]] || sort skips | uniq -c | sort -rn | sed 's/^ */SUMMARY skip /'

((${#bad[@]} == 0)) || fail "${bad[*]}"
((N[PASS] >= MIN_PASS)) || fail "${N[PASS]} passed, fewer than $MIN_PASS"
pass
