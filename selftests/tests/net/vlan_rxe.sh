#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# net/vlan with rdma_rxe in sroce's place, where rdma_rxe works in network
# namespaces (7.1 on): the user guide's comparison, measured.
IFS=. read -r maj min _ < <(uname -r)
if ((maj < 7 || (maj == 7 && min < 1))); then
	. /tests/lib.sh
	skip "rdma_rxe has no network namespace support before 7.1"
fi
DRIVER=rxe . /tests/net/vlan.sh
