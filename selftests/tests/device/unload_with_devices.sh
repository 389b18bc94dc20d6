#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rmmod with devices still present (in two namespaces) removes them all.
. /tests/lib.sh

two_hosts
veth_pair v0 v1
link_add sroce0 v0
link_add sra va ha
link_add srb vb hb
rmmod sroce || fail "rmmod with devices present"
for d in sroce0 sra srb; do
	[ -e /sys/class/infiniband/$d ] && fail "$d left behind"
done
assert_eq "$(udp_port_bound)" "no" "init namespace port released"
assert_eq "$(udp_port_bound ha)" "no" "ha port released"
# shellcheck disable=SC2034  # SROCE_LINKS is lib.sh's list of links to delete
SROCE_LINKS=()
pass
