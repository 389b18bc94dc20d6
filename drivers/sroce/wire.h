/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_WIRE_H
#define SROCE_WIRE_H

/*
 * RoCEv2 wire format: the IBA transport headers carried in UDP. All fields
 * are big-endian on the wire; the ICRC is stored little-endian.
 */
#include <linux/bits.h>
#include <linux/types.h>
#include <asm/byteorder.h>

#define SROCE_UDP_PORT		4791
#define SROCE_ICRC_SIZE		4
#define SROCE_PSN_MASK		0xffffff
#define SROCE_QPN_MASK		0xffffff
#define SROCE_DEFAULT_PKEY_BE	cpu_to_be16(0xffff)
#define SROCE_GSI_QKEY		0x80010000

struct sroce_bth {
	u8	opcode;		/* transport(7:5) operation(4:0) */
	u8	flags;		/* SE(7) M(6) PadCnt(5:4) TVer(3:0) */
	__be16	pkey;
	__be32	qpn;		/* FECN(31) BECN(30) resv(29:24) DestQP(23:0) */
	__be32	apsn;		/* AckReq(31) resv(30:24) PSN(23:0) */
} __packed;

#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_FECN		0x80000000	/* in the BTH's qpn word */
#define SROCE_BTH_BECN		0x40000000
#define SROCE_BTH_QPN_VARIANT	0xff000000	/* FECN, BECN and resv */
#define SROCE_BTH_ACKREQ	0x80000000
#define SROCE_MCAST_QPN		0xffffff	/* DestQP of a multicast packet */

struct sroce_reth {
	__be64	va;
	__be32	rkey;
	__be32	len;
} __packed;

static inline void sroce_reth_set(struct sroce_reth *reth, u64 va, u32 rkey,
				  u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

static inline u64 sroce_reth_va(const struct sroce_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 sroce_reth_rkey(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 sroce_reth_len(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->len);
}

struct sroce_aeth {
	__be32	smsn;		/* syndrome(31:24) MSN(23:0) */
} __packed;

#define SROCE_AETH_SYN_SHIFT	24
#define SROCE_AETH_MSN_MASK	0xffffff

struct sroce_atmeth {
	__be64	va;
	__be32	rkey;
	__be64	swap_add;
	__be64	compare;
} __packed;

static inline void sroce_atmeth_set(struct sroce_atmeth *atmeth, u64 va,
				    u32 rkey, u64 swap_add, u64 compare)
{
	atmeth->va = cpu_to_be64(va);
	atmeth->rkey = cpu_to_be32(rkey);
	atmeth->swap_add = cpu_to_be64(swap_add);
	atmeth->compare = cpu_to_be64(compare);
}

static inline u64 sroce_atmeth_va(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->va);
}

static inline u32 sroce_atmeth_rkey(const struct sroce_atmeth *atmeth)
{
	return be32_to_cpu(atmeth->rkey);
}

/* A compare-and-swap's swap value, a fetch-and-add's addend. */
static inline u64 sroce_atmeth_swap_add(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->swap_add);
}

static inline u64 sroce_atmeth_compare(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->compare);
}

/* AtomicAckETH: the value the target held before the atomic. */
struct sroce_atmack {
	__be64	orig;
} __packed;

static inline void sroce_atmack_set(struct sroce_atmack *atmack, u64 orig)
{
	atmack->orig = cpu_to_be64(orig);
}

static inline u64 sroce_atmack_orig(const struct sroce_atmack *atmack)
{
	return be64_to_cpu(atmack->orig);
}

/* Immediate data: opaque, in network order as verbs pass it. */
struct sroce_immdt {
	__be32	imm;
} __packed;

static inline void sroce_immdt_set(struct sroce_immdt *immdt, __be32 imm)
{
	immdt->imm = imm;
}

static inline __be32 sroce_immdt_data(const struct sroce_immdt *immdt)
{
	return immdt->imm;
}

/* IETH: the R_Key a SEND with invalidate invalidates. */
struct sroce_ieth {
	__be32	rkey;
} __packed;

static inline void sroce_ieth_set(struct sroce_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

static inline u32 sroce_ieth_rkey(const struct sroce_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

/*
 * FLUSH extension header (IBA 1.5, A19.4): the placement type in bits
 * 3:0 (SROCE_FLUSH_GLOBAL, SROCE_FLUSH_PERSISTENT), the selectivity level
 * in bits 5:4 (SROCE_FLUSH_RANGE: the RETH's range; SROCE_FLUSH_MR: the
 * whole memory region of the R_Key), the rest reserved.
 */
struct sroce_feth {
	__be32	bits;
} __packed;

#define SROCE_FETH_PLT_MASK	0x0f
#define SROCE_FETH_SEL_SHIFT	4
#define SROCE_FETH_SEL_MASK	0x30
#define SROCE_FLUSH_GLOBAL	1	/* placement type: global visibility */
#define SROCE_FLUSH_PERSISTENT	2	/* placement type: persistence */
#define SROCE_FLUSH_RANGE	0	/* selectivity: the RETH's range */
#define SROCE_FLUSH_MR		1	/* selectivity: the whole region */

static inline void sroce_feth_set(struct sroce_feth *feth, u8 placement,
				  u8 selectivity)
{
	feth->bits = cpu_to_be32(placement |
				 selectivity << SROCE_FETH_SEL_SHIFT);
}

static inline u32 sroce_feth_placement(const struct sroce_feth *feth)
{
	return be32_to_cpu(feth->bits) & SROCE_FETH_PLT_MASK;
}

static inline u32 sroce_feth_selectivity(const struct sroce_feth *feth)
{
	return (be32_to_cpu(feth->bits) & SROCE_FETH_SEL_MASK) >>
	       SROCE_FETH_SEL_SHIFT;
}

struct sroce_deth {
	__be32	qkey;
	__be32	sqp;		/* resv(31:24) source QP(23:0) */
} __packed;

/* A DETH of Q_Key @qkey from QP @sqp. */
static inline void sroce_deth_set(struct sroce_deth *deth, u32 qkey, u32 sqp)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(sqp);
}

static inline u32 sroce_deth_qkey(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

/* The QP the datagram comes from. */
static inline u32 sroce_deth_sqp(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->sqp) & SROCE_QPN_MASK;
}

/*
 * AETH syndromes: the type in bits 7:5, and a value in bits 4:0, which is
 * an ACK's credit count, an RNR NAK's timer or a NAK's code.
 */
#define SROCE_AETH_TYPE_MASK	0xe0
#define SROCE_AETH_VALUE_MASK	0x1f
#define SROCE_AETH_ACK		0x00
#define SROCE_AETH_RNR_NAK	0x20
#define SROCE_AETH_NAK		0x60
#define SROCE_AETH_ACK_NOCREDIT	0x1f	/* ACK, credits not used */
#define SROCE_NAK_PSN_SEQ	0
#define SROCE_NAK_INVALID_REQ	1
#define SROCE_NAK_REMOTE_ACCESS	2
#define SROCE_NAK_REMOTE_OP	3

/* An AETH: @syndrome, and the responder's MSN @msn. */
static inline __be32 sroce_aeth_pack(u8 syndrome, u32 msn)
{
	return cpu_to_be32((u32)syndrome << SROCE_AETH_SYN_SHIFT |
			   (msn & SROCE_AETH_MSN_MASK));
}

static inline void sroce_aeth_set(struct sroce_aeth *aeth, u8 syndrome,
				  u32 msn)
{
	aeth->smsn = sroce_aeth_pack(syndrome, msn);
}

static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> SROCE_AETH_SYN_SHIFT;
}

/* A syndrome of @type (SROCE_AETH_ACK, _RNR_NAK or _NAK) and @value. */
static inline u8 sroce_syndrome(u8 type, u8 value)
{
	return type | (value & SROCE_AETH_VALUE_MASK);
}

static inline u8 sroce_syndrome_type(u8 syndrome)
{
	return syndrome & SROCE_AETH_TYPE_MASK;
}

/* The credit count, RNR timer or NAK code, as the type says. */
static inline u8 sroce_syndrome_value(u8 syndrome)
{
	return syndrome & SROCE_AETH_VALUE_MASK;
}

/* An RNR NAK or a NAK: anything but an ACK. */
static inline bool sroce_syndrome_is_nak(u8 syndrome)
{
	return sroce_syndrome_type(syndrome) != SROCE_AETH_ACK;
}

/* Opcodes: high 3 bits transport, low 5 bits operation. */
#define SROCE_OP_CLASS_MASK	0xe0
#define SROCE_OP_OPER_MASK	0x1f

enum {
	SROCE_OP_RC		= 0x00,
	SROCE_OP_UC		= 0x20,
	SROCE_OP_UD		= 0x60,

	SROCE_OP_SEND_FIRST	= 0x00,
	SROCE_OP_SEND_MIDDLE	= 0x01,
	SROCE_OP_SEND_LAST	= 0x02,
	SROCE_OP_SEND_LAST_IMM	= 0x03,
	SROCE_OP_SEND_ONLY	= 0x04,
	SROCE_OP_SEND_ONLY_IMM	= 0x05,
	SROCE_OP_WRITE_FIRST	= 0x06,
	SROCE_OP_WRITE_MIDDLE	= 0x07,
	SROCE_OP_WRITE_LAST	= 0x08,
	SROCE_OP_WRITE_LAST_IMM	= 0x09,
	SROCE_OP_WRITE_ONLY	= 0x0a,
	SROCE_OP_WRITE_ONLY_IMM	= 0x0b,
	SROCE_OP_READ_REQ	= 0x0c,
	SROCE_OP_READ_RESP_FIRST = 0x0d,
	SROCE_OP_READ_RESP_MIDDLE = 0x0e,
	SROCE_OP_READ_RESP_LAST	= 0x0f,
	SROCE_OP_READ_RESP_ONLY	= 0x10,
	SROCE_OP_ACK		= 0x11,
	SROCE_OP_ATOMIC_ACK	= 0x12,
	SROCE_OP_CMP_SWAP	= 0x13,
	SROCE_OP_FETCH_ADD	= 0x14,
	SROCE_OP_SEND_LAST_INV	= 0x16,
	SROCE_OP_SEND_ONLY_INV	= 0x17,
	SROCE_OP_FLUSH		= 0x1c,	/* IBA 1.5 */
	SROCE_OP_ATOMIC_WRITE	= 0x1d,	/* IBA 1.5 */
	SROCE_OP_NUM		= 0x20,
};

/*
 * RoCEv2's Congestion Notification Packet (IBA Annex A17.9.2): a BTH with
 * this opcode and BECN set, then 16 reserved bytes, no AckReq, PSN 0.
 */
#define SROCE_OP_CNP		0x81
#define SROCE_CNP_RESV		16

/* What an opcode (low 5 bits) carries and means. */
enum sroce_op_flags {
	SROCE_F_RETH	= BIT(0),
	SROCE_F_AETH	= BIT(1),
	SROCE_F_ATMETH	= BIT(2),
	SROCE_F_ATMACK	= BIT(3),
	SROCE_F_IMM	= BIT(4),
	SROCE_F_IETH	= BIT(5),
	SROCE_F_PAYLOAD	= BIT(6),
	SROCE_F_REQ	= BIT(7),	/* requester -> responder */
	SROCE_F_RESP	= BIT(8),	/* responder -> requester */
	SROCE_F_FIRST	= BIT(9),
	SROCE_F_MIDDLE	= BIT(10),
	SROCE_F_LAST	= BIT(11),
	SROCE_F_SEND	= BIT(12),
	SROCE_F_WRITE	= BIT(13),
	SROCE_F_READ	= BIT(14),
	SROCE_F_ATOMIC	= BIT(15),
	SROCE_F_RWR	= BIT(16),	/* consumes a receive WQE */
	SROCE_F_COMP	= BIT(17),	/* completes a receive WQE */
	SROCE_F_UC_OK	= BIT(18),	/* valid on UC too */
	SROCE_F_UD_OK	= BIT(19),	/* valid on UD (with DETH) */
	SROCE_F_LOCAL	= BIT(20),	/* a local operation, not on the wire */
	SROCE_F_ATOMIC_WRITE = BIT(21),	/* 8 bytes stored at once (a WRITE) */
	SROCE_F_FLUSH	= BIT(22),	/* RDMA FLUSH: FETH, then RETH */
	SROCE_F_CNP	= BIT(23),	/* a CNP (SROCE_OP_CNP), no transport */
};

#define SROCE_F_ONLY	(SROCE_F_FIRST | SROCE_F_LAST)
/*
 * Requests that take a responder resource and are answered by a response
 * of their own, never by an ACK alone: READ, the atomics, and ATOMIC WRITE
 * and RDMA FLUSH (both answered by an RDMA READ response of no payload, as
 * rdma_rxe does).
 */
#define SROCE_F_RD_ATOMIC (SROCE_F_READ | SROCE_F_ATOMIC | \
			   SROCE_F_ATOMIC_WRITE | SROCE_F_FLUSH)

struct sroce_opcode_info {
	u32	flags;
	u8	hdr_len;	/* BTH and extension headers, without DETH */
};

extern const struct sroce_opcode_info sroce_opcodes[SROCE_OP_NUM];

/* The transport of an opcode: SROCE_OP_RC, SROCE_OP_UC or SROCE_OP_UD. */
static inline u8 sroce_op_class(u8 opcode)
{
	return opcode & SROCE_OP_CLASS_MASK;
}

/* What the operation of @opcode carries and means, whatever its transport. */
static inline const struct sroce_opcode_info *sroce_op_info(u8 opcode)
{
	return &sroce_opcodes[opcode & SROCE_OP_OPER_MASK];
}

/* The SE/M/PadCnt/TVer byte of a BTH: TVer 0, @pad (0..3) bytes of pad. */
static inline u8 sroce_bth_flags(bool se, u8 pad)
{
	return (se ? SROCE_BTH_SE : 0) | pad << SROCE_BTH_PAD_SHIFT;
}

/*
 * Build a BTH, default P_Key, no FECN or BECN: @flags from sroce_bth_flags(),
 * to QP @qpn, with PSN @psn and AckReq set if @ackreq.
 */
static inline void sroce_bth_set(struct sroce_bth *bth, u8 opcode, u8 flags,
				 u32 qpn, u32 psn, bool ackreq)
{
	bth->opcode = opcode;
	bth->flags = flags;
	bth->pkey = SROCE_DEFAULT_PKEY_BE;
	bth->qpn = cpu_to_be32(qpn & SROCE_QPN_MASK);
	bth->apsn = cpu_to_be32((psn & SROCE_PSN_MASK) |
				(ackreq ? SROCE_BTH_ACKREQ : 0));
}

/* A CNP's BTH (IBA A17.9.2): BECN set, to QP @qpn, PSN 0, no AckReq. */
static inline void sroce_bth_set_cnp(struct sroce_bth *bth, u32 qpn)
{
	bth->opcode = SROCE_OP_CNP;
	bth->flags = 0;
	bth->pkey = SROCE_DEFAULT_PKEY_BE;
	bth->qpn = cpu_to_be32(SROCE_BTH_BECN | (qpn & SROCE_QPN_MASK));
	bth->apsn = 0;
}

/* A CNP's SE/M/PadCnt/TVer byte: TVer 0, no pad. */
static inline bool sroce_bth_cnp_flags_ok(const struct sroce_bth *bth)
{
	return !(bth->flags & (SROCE_BTH_TVER_MASK | SROCE_BTH_PAD_MASK));
}

/* The BTH as the ICRC covers it: FECN, BECN and resv set to ones. */
static inline void sroce_bth_icrc_mask(struct sroce_bth *bth)
{
	bth->qpn |= cpu_to_be32(SROCE_BTH_QPN_VARIANT);
}

static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_QPN_MASK;
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_PSN_MASK;
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACKREQ;
}

/* The solicited event bit. */
static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

/* The pad count: bytes between the payload and the ICRC. */
static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
}

/* The transport header version: 0 is the only one. */
static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_TVER_MASK;
}

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* How many PSNs @a is after @b, 0 .. SROCE_PSN_MASK (@a before @b wraps). */
static inline u32 sroce_psn_diff(u32 a, u32 b)
{
	return (a - b) & SROCE_PSN_MASK;
}

/* <0, 0, >0 as a is before, at, after b, in 24-bit serial arithmetic. */
static inline int sroce_psn_cmp(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

#endif /* SROCE_WIRE_H */
