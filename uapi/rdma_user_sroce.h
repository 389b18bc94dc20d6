/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The user ABI of sroce.
 *
 * It is the ABI of rdma_rxe, version 2, as rdma-core's rxe provider speaks
 * it (rdma-core 44 and later): sroce devices register with driver id
 * RDMA_DRIVER_RXE, so the stock provider binds them. Names differ from
 * rdma_user_rxe.h; layouts are identical, and the kernel checks every size
 * and offset the provider relies on at compile time (abi_check.c), as does a
 * host test against the installed rdma_user_rxe.h.
 *
 * Rings: every CQ, SQ, RQ and SRQ is one buffer, mapped whole by the process
 * through the mmap cookie in struct sroce_mminfo: a 384-byte header (struct
 * sroce_queue_buf) followed by 2^n slots of 2^log2_elem_size bytes. Indices
 * lie in [0, index_mask]; empty is prod == cons, full is
 * ((prod + 1) & index_mask) == cons. User space produces into SQ, RQ and
 * SRQ and consumes from CQs; the kernel does the opposite. Each side
 * publishes its own index with a release store after writing or reading the
 * slot, and reads the other side's with an acquire load.
 */
#ifndef RDMA_USER_SROCE_H
#define RDMA_USER_SROCE_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/in6.h>

/* The uverbs ABI version the rxe provider accepts (it takes 1..2). */
#define SROCE_UVERBS_ABI_VERSION	2

enum {
	SROCE_NETWORK_TYPE_IPV4 = 1,
	SROCE_NETWORK_TYPE_IPV6 = 2,
};

union sroce_gid {
	__u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

struct sroce_global_route {
	union sroce_gid	dgid;
	__u32		flow_label;
	__u8		sgid_index;
	__u8		hop_limit;
	__u8		traffic_class;
};

/* An address vector as old providers put it in UD WQEs (ignored by sroce). */
struct sroce_uav {
	__u8				port_num;
	__u8				network_type;
	__u8				dmac[6];
	struct sroce_global_route	grh;
	union {
		struct sockaddr_in	_sockaddr_in;
		struct sockaddr_in6	_sockaddr_in6;
	} sgid_addr, dgid_addr;
};

struct sroce_send_wr {
	__aligned_u64	wr_id;
	__u32		reserved;
	__u32		opcode;		/* IB_UVERBS_WR_* */
	__u32		send_flags;	/* IB_UVERBS_SEND_* */
	union {
		__be32	imm_data;
		__u32	invalidate_rkey;
	} ex;
	union {
		struct {
			__aligned_u64	remote_addr;
			__u32		rkey;
			__u32		reserved;
		} rdma;
		struct {
			__aligned_u64	remote_addr;
			__aligned_u64	compare_add;
			__aligned_u64	swap;
			__u32		rkey;
			__u32		reserved;
		} atomic;
		/*
		 * IB_UVERBS_WR_FLUSH (IBA 1.5). The range flushed is the
		 * WQE's iova and dma.length, as for a READ: rdma_rxe reads
		 * them there, and not remote_addr and length.
		 */
		struct {
			__aligned_u64	remote_addr;
			__u32		length;
			__u32		rkey;
			__u8		type;	/* IB_FLUSH_GLOBAL, _PERSISTENT */
			__u8		level;	/* IB_FLUSH_RANGE, IB_FLUSH_MR */
		} flush;
		struct {
			__u32		remote_qpn;
			__u32		remote_qkey;
			__u16		pkey_index;
			__u16		reserved;
			__u32		ah_num;
			__u32		pad[4];
			struct sroce_uav	av;
		} ud;
		struct {
			__aligned_u64	addr;
			__aligned_u64	length;
			__u32		mr_lkey;
			__u32		mw_rkey;
			__u32		rkey;
			__u32		access;
		} mw;
	} wr;
};

struct sroce_sge {
	__aligned_u64	addr;
	__u32		length;
	__u32		lkey;
};

struct sroce_mminfo {
	__aligned_u64	offset;		/* mmap cookie: pass as the mmap offset */
	__u32		size;		/* bytes to map */
	__u32		pad;
};

struct sroce_dma_info {
	__u32	length;
	__u32	resid;
	__u32	cur_sge;
	__u32	num_sge;
	__u32	sge_offset;
	__u32	reserved;
	union {
		__DECLARE_FLEX_ARRAY(__u8, inline_data);
		__DECLARE_FLEX_ARRAY(__u8, atomic_wr);
		__DECLARE_FLEX_ARRAY(struct sroce_sge, sge);
	};
};

/*
 * A send queue slot. User space writes wr, iova and dma; sroce copies the
 * slot once and never reads or writes the other fields, which exist only for
 * layout compatibility.
 */
struct sroce_send_wqe {
	struct sroce_send_wr	wr;
	__u32			status;
	__u32			state;
	__aligned_u64		iova;
	__u32			mask;
	__u32			first_psn;
	__u32			last_psn;
	__u32			ack_length;
	__u32			ssn;
	__u32			has_rd_atomic;
	struct sroce_dma_info	dma;
};

struct sroce_recv_wqe {
	__aligned_u64		wr_id;
	__u32			reserved;
	__u32			padding;
	struct sroce_dma_info	dma;
};

/*
 * CQ slots hold a struct ib_uverbs_wc (48 bytes) at their start. The
 * provider hands them to the application as they are, so wc_flags carries
 * libibverbs' values: GRH 1, WITH_IMM 2 (as the kernel's), but an
 * invalidation is 8 (IBV_WC_WITH_INV), not the kernel's 4.
 */
#define SROCE_UWC_GRH		(1 << 0)
#define SROCE_UWC_WITH_IMM	(1 << 1)
#define SROCE_UWC_WITH_INV	(1 << 3)

/*
 * A UD receive's sl tells how the packet came (IBA Annex 17, A17.4.5.1:
 * the completion says whether the frame was IPv4, IPv6 or RoCE), in the
 * encoding RoCE NICs give user space and UCX reads to find the
 * destination address in the 40 bytes before the payload: bit 3 a UDP
 * header (RoCEv2), bits 2-0 the L3 header, 1 IPv6 or 2 IPv4.
 */
#define SROCE_UWC_SL_ROCEV2_IPV6	0x9
#define SROCE_UWC_SL_ROCEV2_IPV4	0xa

struct sroce_create_ah_resp {
	__u32	ah_num;
	__u32	reserved;
};

struct sroce_create_cq_resp {
	struct sroce_mminfo	mi;
};

struct sroce_resize_cq_resp {
	struct sroce_mminfo	mi;
};

struct sroce_create_qp_resp {
	struct sroce_mminfo	rq_mi;	/* the receive queue comes first */
	struct sroce_mminfo	sq_mi;
};

struct sroce_create_srq_resp {
	struct sroce_mminfo	mi;
	__u32			srq_num;
	__u32			reserved;
};

/*
 * modify_srq with IB_SRQ_MAX_WR (resize): the kernel writes the new ring's
 * struct sroce_mminfo to the user address mmap_info_addr.
 */
struct sroce_modify_srq_cmd {
	__aligned_u64	mmap_info_addr;
};

struct sroce_queue_buf {
	__u32	log2_elem_size;
	__u32	index_mask;
	__u32	pad_1[30];
	__u32	producer_index;		/* own cache line */
	__u32	pad_2[31];
	__u32	consumer_index;		/* own cache line */
	__u32	pad_3[31];
	__u8	data[];			/* slot 0 at offset 384 */
};

#endif /* RDMA_USER_SROCE_H */
