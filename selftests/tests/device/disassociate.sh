#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A process holds the device (objects of every kind, rings mapped, RDMA
# WRITEs in flight) while it goes away, four ways: rdma link delete, its
# netdev deleted, its namespace deleted, rmmod. Each completes while the
# process still runs (it exits only after it saw the device's fatal event,
# so a removal that waited for it would time out here); the process sees
# IBV_EVENT_DEVICE_FATAL, EIO, and its ring mappings keeping their own
# stale rings, or (7.2) zapped by the core (progs/disassoc.c); the kernel
# stays clean (the harness checks dmesg and kmemleak).
. /tests/lib.sh

# hold DEVICE: start the holder on DEVICE and wait until it holds it
hold() {
	rm -f removed
	bg_run holder disassoc "$1" "$PWD/removed"
	wait_for 60 "the holder to hold $1" grep -q holding holder.log
}

# released WHAT: the holder saw everything it should, after WHAT
released() {
	local rc=0
	bg_wait holder 150 || rc=$?
	bg_log holder
	assert_eq "$rc" 0 "holder's checks after $1"
	assert_match "$(bg_log holder)" "ok [0-9]+ - async event 8 " "fatal event after $1"
}

# gone DEVICE: wait until DEVICE is unregistered, then tell the holder (the
# core destroys the objects before it removes the device from sysfs)
gone() {
	wait_for 30 "$1 gone" test ! -e "/sys/class/infiniband/$1"
	touch removed
}

one_device
hold sroce0
_lib_bounded 30 rdma link delete sroce0 || fail "rdma link delete while held"
gone sroce0
released "rdma link delete"

link_add sroce0 v0
wait_for 10 "IPv4 GID" gid_index sroce0 192.0.2.1
hold sroce0
_lib_bounded 30 ip link del v0 || fail "ip link del v0 while held"
gone sroce0
released "netdev removal"

two_hosts
link_add sra va ha
wait_for 10 "IPv4 GID on sra" gid_index sra 192.0.2.1
hold sra
_lib_bounded 30 ip netns del ha || fail "ip netns del ha while held"
gone sra
released "namespace deletion"

veth_pair v2 v3
ip addr add 198.51.100.1/24 dev v2
link_add sroce1 v2
wait_for 10 "IPv4 GID on sroce1" gid_index sroce1 198.51.100.1
hold sroce1
_lib_bounded 30 rmmod sroce || fail "rmmod sroce while held"
gone sroce1
released "rmmod"
# shellcheck disable=SC2034  # SROCE_LINKS is lib.sh's list of links to delete
SROCE_LINKS=()
pass
