/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce's raw resource dumps: the RDMA_NLDEV_ATTR_RES_RAW blob of
 * "rdma resource show qp|cq|mr ... -r" (RDMA_NLDEV_CMD_RES_*_GET_RAW,
 * CAP_NET_ADMIN only), where a hardware driver puts its device's context of
 * the object. sroce's context is its own state, in these layouts: all
 * fields little-endian, no padding, no kernel address (a kernel MR's iova
 * reads 0).
 *
 * Every dump starts with struct sroce_raw_hdr. A reader checks magic, then
 * reads min(size, sizeof(its struct)) bytes: a later version only appends
 * fields. Indices are ring indices (masked; see rdma_user_sroce.h), PSNs
 * are 24 bits, enums are the kernel's (enum ib_qp_type, ib_qp_state,
 * ib_mtu).
 */
#ifndef SROCE_RES_RAW_H
#define SROCE_RES_RAW_H

#include <linux/types.h>

#define SROCE_RAW_MAGIC		0x5352	/* "SR" */
#define SROCE_RAW_VERSION	1

enum sroce_raw_kind {
	SROCE_RAW_QP = 1,
	SROCE_RAW_CQ = 2,
	SROCE_RAW_MR = 3,
};

struct sroce_raw_hdr {
	__le16 magic;
	__u8 version;
	__u8 kind;		/* enum sroce_raw_kind */
	__le32 size;		/* of the whole dump, this header included */
};

/* struct sroce_raw_qp.flags */
#define SROCE_RAW_QP_USER	(1U << 0)	/* created by a process */
#define SROCE_RAW_QP_SIG_ALL	(1U << 1)	/* every send WQE completes */
#define SROCE_RAW_QP_SRQ	(1U << 2)	/* receives from an SRQ */
#define SROCE_RAW_QP_NEED_RETRY	(1U << 3)	/* the requester goes back */
#define SROCE_RAW_QP_TIMED_OUT	(1U << 4)	/* the ACK timeout fired */
#define SROCE_RAW_QP_RNR_WAIT	(1U << 5)	/* waiting out an RNR NAK */
#define SROCE_RAW_QP_NAK_SENT	(1U << 6)	/* a sequence NAK is out */

struct sroce_raw_qp {
	struct sroce_raw_hdr hdr;
	__le32 qpn;
	__le32 dest_qpn;
	__u8 type;		/* enum ib_qp_type */
	__u8 state;		/* enum ib_qp_state */
	__u8 path_mtu;		/* enum ib_mtu */
	__u8 timeout;		/* local ACK timeout, 4.096 us << timeout */
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 retry_left;
	__u8 rnr_retry_left;
	__le32 flags;		/* SROCE_RAW_QP_* */
	/* send queue: size, sroce's consumer index, the producer's */
	__le32 sq_size;
	__le32 sq_cons;
	__le32 sq_prod;
	__le32 sq_fetched;	/* next WQE to copy from the ring */
	__le32 sq_wqe;		/* next WQE to send (or resume) */
	/* receive queue (zeros with an SRQ) */
	__le32 rq_size;
	__le32 rq_cons;
	__le32 rq_prod;
	/* requester */
	__le32 req_psn;		/* next PSN to send */
	__le32 req_psn_max;	/* the PSN after the newest ever sent */
	__le32 req_offset;	/* bytes of the current WQE sent */
	__le32 req_window;	/* PSNs that may be unacknowledged */
	__le32 req_rd_atomic;	/* READs and atomics outstanding */
	__le32 max_rd_atomic;
	/* completer */
	__le32 comp_psn;	/* oldest PSN not acknowledged */
	/* responder */
	__le32 resp_psn;	/* next PSN expected */
	__le32 resp_msn;
	__le32 resp_offset;	/* bytes placed into the receive WQE */
	__le32 resp_resid;	/* bytes of the message still to come */
	__le32 max_dest_rd_atomic;
	/* packets waiting for the QP's run, and held ahead of a gap */
	__le32 req_pkts;
	__le32 resp_pkts;
	__le32 req_held;
	__le32 resp_held;
};

struct sroce_raw_cq {
	struct sroce_raw_hdr hdr;
	__le32 cqn;		/* the restrack id, as "rdma resource" shows */
	__le32 size;		/* usable slots */
	__le32 prod;		/* sroce's producer index */
	__le32 cons;		/* the consumer's index */
	__u8 notify;		/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP armed */
	__u8 overrun;		/* the CQ overflowed (CQ_ERR raised) */
	__u8 user;		/* created by a process */
	__u8 reserved;
};

struct sroce_raw_mr {
	struct sroce_raw_hdr hdr;
	__le32 lkey;
	__le32 rkey;
	__le64 iova;
	__le64 length;
	__le32 access;		/* enum ib_access_flags */
	__le32 pages;
	__le32 max_pages;
	__le32 page_shift;
	__le32 windows;		/* memory windows bound to it */
	__u8 type;		/* 0 DMA, 1 user, 2 fast registration */
	__u8 valid;		/* 1 when it may be used */
	__u8 dead;		/* being deregistered */
	__u8 reserved;
};

#endif /* SROCE_RES_RAW_H */
