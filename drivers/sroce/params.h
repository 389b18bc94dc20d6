/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_PARAMS_H
#define SROCE_PARAMS_H

/*
 * Limits advertised by query_device/query_port. They are at least rdma_rxe's
 * (6.1), so anything written for rxe fits, and every create verb enforces
 * them. Work queue depths are those of rxe 6.1: a send queue is a ring plus
 * the kernel's copy of it, up to 1 KiB a slot, so 2^14 WRs already cost
 * 2 x 32 MiB of kernel memory per QP.
 */
#define SROCE_VENDOR_ID			0xFFFFFF	/* same as rxe: no OUI */
#define SROCE_FW_VER			((u64)1 << 32)	/* 1.0.0 */
#define SROCE_PAGE_SIZE_CAP		0xfffff000
#define SROCE_MAX_MR_SIZE		(~0ULL)

#define SROCE_MAX_QP			0xfffef
#define SROCE_MAX_QP_WR			0x4000
#define SROCE_MAX_SGE			32
#define SROCE_MAX_SGE_RD		32
#define SROCE_MAX_INLINE		512
#define SROCE_MAX_CQ			0xfffff
#define SROCE_MAX_CQE			0x7fff
#define SROCE_MAX_MR			0x80000
#define SROCE_MAX_MW			0x80000
#define SROCE_MAX_PD			0xfffff
#define SROCE_MAX_QP_RD_ATOM		128
#define SROCE_MAX_RES_RD_ATOM		0x3f000
#define SROCE_MAX_AH			0x7fff
#define SROCE_MAX_SRQ			0xfffff
#define SROCE_MAX_SRQ_WR		0x4000
#define SROCE_MAX_SRQ_SGE		27
#define SROCE_MAX_FMR_PAGE_LIST_LEN	512
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_TOT_MCAST_QP_ATTACH	0x70000
#define SROCE_LOCAL_CA_ACK_DELAY	15

/* Port */
#define SROCE_PORT			1
#define SROCE_GID_TABLE_LEN		1024
#define SROCE_PKEY_TABLE_LEN		1
#define SROCE_DEFAULT_PKEY		0xffff
/*
 * 1 GiB, as RoCE NICs give: at a 256-byte MTU one message spans 2^22 PSNs,
 * so a message and the window beside it stay below the 2^23 PSNs apart
 * that 24-bit serial arithmetic can order (sroce_psn_cmp()); at 2 GiB a
 * READ's span would be 2^23 and never complete.
 */
#define SROCE_MAX_MSG_SZ		0x40000000U
#define SROCE_PORT_MAX_MTU		IB_MTU_4096

#endif /* SROCE_PARAMS_H */
