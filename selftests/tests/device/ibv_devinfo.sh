#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ibv_devinfo -v opens the device through the rxe provider and shows an
# active Ethernet port and the limits the driver advertises.
. /tests/lib.sh

veth_pair v0 v1
link_add sroce0 v0
wait_for 10 "port active" port_state_is sroce0 ACTIVE

assert_rc 0 "ibv_devinfo -v" ibv_devinfo -v -d sroce0
info=$OUT
field() { sed -n "s/^[[:space:]]*$1:[[:space:]]*\(.*\)$/\1/p" <<<"$info" | sed -n 1p; }

assert_eq "$(field hca_id)" "sroce0" "hca_id"
assert_eq "$(field transport)" "InfiniBand (0)" "transport"
assert_eq "$(field state)" "PORT_ACTIVE (4)" "port state"
assert_eq "$(field phys_state)" "LINK_UP (5)" "phys state"
assert_eq "$(field link_layer)" "Ethernet" "link layer"
assert_eq "$(field max_mtu)" "4096 (5)" "max mtu"
assert_eq "$(field active_mtu)" "1024 (3)" "active mtu for a 1500 B netdev"
assert_eq "$(field vendor_id)" "0xffffff" "vendor id"
assert_eq "$(field fw_ver)" "1.0.0" "firmware version"
assert_eq "$(field phys_port_cnt)" "1" "ports"
assert_eq "$(field max_qp)" "1048559" "max_qp"
assert_eq "$(field max_qp_wr)" "16384" "max_qp_wr"
assert_eq "$(field max_sge)" "32" "max_sge"
assert_eq "$(field max_sge_rd)" "32" "max_sge_rd"
assert_eq "$(field max_cq)" "1048575" "max_cq"
assert_eq "$(field max_cqe)" "32767" "max_cqe"
assert_eq "$(field max_mr)" "524288" "max_mr"
assert_eq "$(field max_pd)" "1048575" "max_pd"
assert_eq "$(field max_qp_rd_atom)" "128" "max_qp_rd_atom"
assert_eq "$(field max_srq)" "1048575" "max_srq"
assert_eq "$(field max_srq_wr)" "16384" "max_srq_wr"
assert_eq "$(field max_srq_sge)" "27" "max_srq_sge"
assert_eq "$(field max_mw)" "524288" "max_mw"
assert_eq "$(field max_pkeys)" "1" "max_pkeys"
assert_eq "$(field atomic_cap)" "ATOMIC_HCA (1)" "atomic cap"
assert_eq "$(field max_msg_sz)" "0x40000000" "max_msg_sz"
assert_eq "$(field gid_tbl_len)" "1024" "gid table length"
assert_eq "$(field pkey_tbl_len)" "1" "pkey table length"
assert_eq "$(cat /sys/class/infiniband/sroce0/ports/1/pkeys/0)" "0xffff" "default pkey"
# IB_PORT_CM_SUP (bit 16): the port supports connection management
assert_eq "$(field port_cap_flags)" "0x00010000" "port cap flags"
pass
