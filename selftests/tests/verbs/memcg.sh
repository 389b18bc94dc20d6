#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process in a memory cgroup of 64 MiB creates rings until it cannot
# (CQs, SRQs, QPs with deep receive queues), registers explicit ODP MRs
# over 64 GiB of nothing, and WRITEs through an implicit ODP MR into 256
# unmapped stretches (progs/memcg.c): its creates fail with ENOMEM at its
# limit, the ODP MRs cost no kernel memory for what never faulted in, and
# the host's kernel memory does not grow past the cgroup's limit. Then
# the cgroup's charge drains back, and no user object is left.
. /tests/lib.sh

cg=/sys/fs/cgroup
if ! grep -q "^cgroup2 $cg " /proc/mounts; then
	mkdir -p $cg
	mount -t cgroup2 none $cg
	at_exit "umount $cg"
fi
grep -qw memory $cg/cgroup.controllers || skip "no memory controller"
echo +memory > $cg/cgroup.subtree_control
mkdir $cg/sroce-memcg
at_exit "rmdir $cg/sroce-memcg"
echo 64M > $cg/sroce-memcg/memory.max

one_device
rc=0
bash -c "echo \$\$ > $cg/sroce-memcg/cgroup.procs && exec memcg sroce0 64" \
	> memcg.log 2>&1 || rc=$?
cat memcg.log
echo "# memory.events: $(tr '\n' ' ' < $cg/sroce-memcg/memory.events)"
[ $rc = 0 ] || fail "memcg: $(grep -c '^not ok' memcg.log) checks failed (exit $rc)"
n=$(grep -c '^ok ' memcg.log)
[ "$n" -ge 15 ] || fail "only $n checks ran"
assert_eq "$(awk '$1 == "oom_kill" { print $2 }' $cg/sroce-memcg/memory.events)" 0 \
	"no OOM kill in the cgroup"
assert_eq "$(user_objects sroce0)" "0" "no user object left"
pass
