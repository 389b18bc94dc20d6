// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder: executes incoming requests in PSN order. It checks the
 * PSN (duplicates are answered again, a gap is NAKed once), the opcode
 * sequence, the QP's remote access rights, receive WQE availability (RNR
 * NAK), the R_Key and lengths; then places data, answers reads and atomics
 * from a ring of saved resources (so duplicates can be replayed), posts
 * receive completions and acknowledges.
 *
 * Receive WQEs are copied out of the ring once and used from the copy.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "sroce.h"
#include "cc.h"
#include "copy.h"
#include "counters.h"
#include "cq.h"
#include "hold.h"
#include "local.h"
#include "mr.h"
#include "qp.h"
#include "resp.h"
#include "sched.h"
#include "txbuf.h"
#include "trace.h"
#include "xmit.h"

/* Atomics are atomic against each other, across all devices. */
static DEFINE_SPINLOCK(sroce_atomic_lock);

enum sroce_resp_err {
	SROCE_RESP_OK,
	SROCE_RESP_DROP,	/* silently */
	SROCE_RESP_RNR,		/* no receive WQE */
	SROCE_RESP_INV_REQ,	/* NAK invalid request; QP to error */
	SROCE_RESP_ACCESS,	/* NAK remote access error; QP to error */
	SROCE_RESP_OP_ERR,	/* NAK remote operational error; QP to error */
};

void sroce_resp_reset(struct sroce_qp *qp)
{
	qp->resp.psn = qp->attr.rq_psn;
	qp->resp.msn = 0;
	qp->resp.nak_sent = false;
	qp->resp.prev_flags = 0;
	qp->resp.has_wqe = false;
	qp->resp.offset = 0;
	qp->resp.drop_msg = false;
	qp->resp.comm_est = false;
	qp->resp.res_next = 0;
	qp->resp.read = NULL;
	memset(qp->resp.res, 0, qp->resp.nres * sizeof(*qp->resp.res));
}

static struct sk_buff *sroce_resp_skb(struct sroce_qp *qp, u8 op, u32 psn,
				      u32 payload, u8 **p)
{
	const struct sroce_opcode_info *info = &sroce_opcodes[op];
	u8 pad = -payload & 3;
	struct sroce_bth *bth;
	struct sk_buff *skb;

	skb = sroce_skb_alloc(qp, &qp->av, info->hdr_len + payload + pad);
	if (!skb)
		return NULL;
	bth = (struct sroce_bth *)skb->data;
	sroce_bth_set(bth, SROCE_OP_RC | op, sroce_bth_flags(false, pad),
		      qp->attr.dest_qp_num, psn, false);
	*p = (u8 *)(bth + 1);
	memset(*p + info->hdr_len - sizeof(*bth) + payload, 0, pad);
	return skb;
}

int sroce_send_ack(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	struct sk_buff *skb;
	u8 *p;

	skb = sroce_resp_skb(qp, SROCE_OP_ACK, psn, 0, &p);
	if (!skb)
		return -ENOMEM;
	sroce_aeth_set((struct sroce_aeth *)p, syndrome, qp->resp.msn);
	if (sroce_syndrome_type(syndrome) == SROCE_AETH_NAK)
		sroce_count(to_sdev(qp->ibqp.device),
			    sroce_nak_counter(sroce_syndrome_value(syndrome),
					      true));
	if (sroce_syndrome_is_nak(syndrome))
		trace_sroce_nak_send(qp->ibqp.device->index,
				     qp->ibqp.qp_num, psn, syndrome);
	return sroce_xmit(qp, &qp->av, qp->src_port, skb);
}

static void sroce_send_atomic_ack(struct sroce_qp *qp, struct sroce_res *res)
{
	struct sk_buff *skb;
	u8 *p;

	skb = sroce_resp_skb(qp, SROCE_OP_ATOMIC_ACK, res->first_psn, 0, &p);
	if (!skb)
		return;
	sroce_aeth_set((struct sroce_aeth *)p, SROCE_AETH_ACK_NOCREDIT,
		       qp->resp.msn);
	sroce_atmack_set((struct sroce_atmack *)(p + sizeof(struct sroce_aeth)),
			 res->orig);
	sroce_xmit(qp, &qp->av, qp->src_port, skb);
}

/* Stop sending READ responses: the reply is over, or it failed. */
static void sroce_read_stop(struct sroce_qp *qp)
{
	qp->resp.read = NULL;
}

/*
 * The memory of the next READ response of @res, from @off: one MTU, or to
 * a QP of this device, several at once, gathered in @f (local.c, *@chunk
 * set). Returns the bytes, with a reference on their MR in *@mrp (NULL
 * for none: a zero-length READ), or -EACCES if the key no longer gives
 * access.
 */
static int sroce_read_payload(struct sroce_qp *qp, struct sroce_res *res,
			      u32 off, struct sroce_frags *f,
			      struct sroce_mr **mrp, bool *chunk)
{
	u32 left = res->end_off - off, n = min(left, qp->mtu);
	bool local = left > qp->mtu && sroce_av_local(qp, &qp->av);
	u32 want = local ? min_t(u32, left, SROCE_LOCAL_CHUNK) : n;

	*chunk = false;
	*mrp = NULL;
	if (!n)
		return 0;
	*mrp = sroce_rkey_get(qp, res->rkey, res->va + off, want,
			      IB_ACCESS_REMOTE_READ);
	if (!*mrp)
		return -EACCES;
	if (local && sroce_frags_from_mr(qp, f, *mrp, res->va + off,
					 want) > qp->mtu) {
		*chunk = true;
		return f->bytes;
	}
	if (local)
		sroce_frags_release(f);
	return n;
}

/* The READ's next packet is sent again SROCE_BACKOFF_US later. */
static void sroce_read_wait(struct sroce_qp *qp)
{
	qp->resp.read_wait = true;
	qp->resp.read_resume = ktime_add_us(ktime_get(), SROCE_BACKOFF_US);
	sroce_qp_wake_at(qp, qp->resp.read_resume);
}

/*
 * The @n bytes of a READ response at @va into @skb: the pages gathered in
 * @frags (a chunk, several MTUs), or copied from @mr to @p. Drops the
 * reference on @mr. Returns the PSNs the packet covers, or an error:
 * -EAGAIN if an ODP page is on its way.
 */
static int sroce_read_fill(struct sroce_qp *qp, struct sk_buff *skb,
			   struct sroce_mr *mr, struct sroce_frags *frags,
			   u64 va, u8 *p, u32 n)
{
	int err = 0;

	if (frags) {
		sroce_frags_attach(skb, frags);
		sroce_pkt(skb)->span = DIV_ROUND_UP(n, qp->mtu);
		sroce_mr_put(mr);
		return sroce_pkt(skb)->span;
	}
	if (mr) {
		err = sroce_mr_copy(mr, va, p, n, false);
		sroce_mr_put(mr);
	}
	return err ?: 1;
}

/*
 * Send the next READ response packet of qp->resp.read. The responder sends
 * one packet per step of its work budget, so a large READ (or a replayed
 * one) never monopolises the CPU and other QPs get their turn. The MR is
 * looked up again for every packet: it may be deregistered or invalidated
 * meanwhile. False if the packet could not go out now (a full qdisc, no
 * memory), and nothing advanced.
 */
static bool sroce_send_read_pkt(struct sroce_qp *qp)
{
	struct sroce_res *res = qp->resp.read;
	u32 off = res->cur_off, psn = res->cur_psn;
	struct sroce_frags frags;
	struct sroce_mr *mr;
	struct sk_buff *skb;
	bool last, chunk;
	int n, span;
	u8 op, *p;

	n = sroce_read_payload(qp, res, off, &frags, &mr, &chunk);
	if (n < 0)
		goto access_err;
	last = off + n == res->end_off;
	if (res->cur_first)
		op = last ? SROCE_OP_READ_RESP_ONLY : SROCE_OP_READ_RESP_FIRST;
	else
		op = last ? SROCE_OP_READ_RESP_LAST : SROCE_OP_READ_RESP_MIDDLE;

	skb = sroce_resp_skb(qp, op, psn, chunk ? 0 : n, &p);
	if (!skb) {
		if (chunk)
			sroce_frags_release(&frags);
		if (mr)
			sroce_mr_put(mr);
		/*
		 * No memory now: this packet again after a back-off. Stopping
		 * would leave the requester to time out and ask again for
		 * the rest, a timeout per failure: nvme-rdma's 128 KiB writes
		 * (the target READs them) timed out after 30 s when every
		 * 10th allocation failed (rc/fail_random).
		 */
		sroce_read_wait(qp);
		return false;
	}
	if (sroce_opcodes[op].flags & SROCE_F_AETH) {
		sroce_aeth_set((struct sroce_aeth *)p, SROCE_AETH_ACK_NOCREDIT,
			       qp->resp.msn);
		p += sizeof(struct sroce_aeth);
	}
	span = sroce_read_fill(qp, skb, mr, chunk ? &frags : NULL,
			       res->va + off, p, n);
	if (span == -EAGAIN) {
		/* An ODP page on its way: this packet again later. */
		kfree_skb(skb);
		sroce_read_wait(qp);
		return false;
	}
	if (span < 0) {
		/* Never put bytes we did not read on the wire. */
		kfree_skb(skb);
		goto access_err;
	}
	if (sroce_xmit(qp, &qp->av, qp->src_port, skb) == -EAGAIN) {
		/*
		 * Dropped on the way out: a READ streams faster than the NIC
		 * drains. Sent again after a back-off, not lost for the requester
		 * to ask again from, the whole rest of the READ after it
		 * (rc/nic, debug kernel: 22,557 such drops in one
		 * ib_read_bw).
		 */
		sroce_read_wait(qp);
		return false;
	}
	res->cur_first = false;
	res->cur_off = off + n;
	res->cur_psn = sroce_psn_add(psn, span);
	if (last)
		sroce_read_stop(qp);
	return true;

access_err:
	sroce_read_stop(qp);
	sroce_send_ack(qp, sroce_syndrome(SROCE_AETH_NAK,
					  SROCE_NAK_REMOTE_ACCESS), psn);
	sroce_qp_error(qp, IB_EVENT_QP_ACCESS_ERR);
	return true;
}

/*
 * The READ responses may go on: not waiting for a full qdisc to drain, nor
 * for the netdev to free some of the QP's packets.
 */
static bool sroce_read_may_send(struct sroce_qp *qp)
{
	if (!sroce_txbuf_room(qp))
		return false;
	if (!qp->resp.read_wait)
		return true;
	if (sroce_qp_wait_until(qp, qp->resp.read_resume))
		return false;
	qp->resp.read_wait = false;
	return true;
}

/* Start the reply to a READ of @res: @len bytes at @off, from @psn on. */
static void sroce_read_start(struct sroce_qp *qp, struct sroce_res *res,
			     u32 psn, u32 off, u32 len)
{
	res->cur_psn = psn;
	res->cur_off = off;
	res->end_off = off + len;
	res->cur_first = true;
	qp->resp.read = res;
}

/* The resource holding @psn, for a duplicate read or atomic. */
static struct sroce_res *sroce_res_find(struct sroce_qp *qp, u32 psn)
{
	u32 i, n = max_t(u32, qp->attr.max_dest_rd_atomic, 1);

	for (i = 0; i < n && i < qp->resp.nres; i++) {
		struct sroce_res *res = &qp->resp.res[i];

		if (res->valid && sroce_psn_cmp(psn, res->first_psn) >= 0 &&
		    sroce_psn_cmp(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

static struct sroce_res *sroce_res_new(struct sroce_qp *qp)
{
	u32 n = clamp_t(u32, qp->attr.max_dest_rd_atomic, 1, qp->resp.nres);
	struct sroce_res *res = &qp->resp.res[qp->resp.res_next % n];

	qp->resp.res_next = (qp->resp.res_next + 1) % n;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

/*
 * A duplicate READ asks again for all or the tail of a saved one (the
 * requester lost responses). Its RETH must name the same R_Key and a
 * range inside the saved one that starts where its PSN says; anything
 * else is not a retry of ours and is dropped: one 40-byte packet must not
 * make us send what was never asked for.
 */
static void sroce_resp_dup_read(struct sroce_qp *qp, struct sk_buff *skb,
				struct sroce_res *res)
{
	struct sroce_reth *reth = sroce_ext(skb, 0);
	u64 va = sroce_reth_va(reth), off64;
	u32 len = sroce_reth_len(reth), psn = sroce_pkt(skb)->psn;
	u64 off = (u64)sroce_psn_diff(psn, res->first_psn) * qp->mtu;

	if (sroce_reth_rkey(reth) != res->rkey || va < res->va)
		goto drop;
	off64 = va - res->va;
	if (off64 != off || off64 > res->length || len > res->length - off64)
		goto drop;
	if (!len && off64 != res->length)
		goto drop;
	sroce_read_start(qp, res, psn, off64, len);
	return;
drop:
	sroce_count_drop(to_sdev(qp->ibqp.device), SROCE_CNT_DROP_BAD_READ);
}

static void sroce_resp_duplicate(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_res *res;

	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_DUP_REQ);
	sroce_hold_dup(qp, &qp->req_held, pkt->psn);
	if (pkt->flags & (SROCE_F_ATOMIC_WRITE | SROCE_F_FLUSH)) {
		/* Done once; its (empty) READ response is sent again. */
		res = sroce_res_find(qp, pkt->psn);
		if (res && res->empty_resp && res->first_psn == pkt->psn &&
		    !qp->resp.read)
			sroce_read_start(qp, res, pkt->psn, 0, 0);
		return;
	}
	if (pkt->flags & (SROCE_F_SEND | SROCE_F_WRITE)) {
		/*
		 * Already done (C9-105): acknowledge again, with the newest
		 * PSN received, but like any packet only when asked to. A
		 * requester that rewinds resends a burst; one ACK (at its
		 * AckReq) answers it, not one per packet, which would make
		 * the requester's completer work through a storm of ACKs.
		 */
		if (pkt->ackreq)
			sroce_send_ack(qp, SROCE_AETH_ACK_NOCREDIT,
				       sroce_psn_add(qp->resp.psn, -1));
		return;
	}
	res = sroce_res_find(qp, pkt->psn);
	if (!res)
		return;		/* too old: drop */
	if (res->atomic && (pkt->flags & SROCE_F_ATOMIC)) {
		/* Never execute an atomic twice: answer the saved value. */
		if (res->first_psn == pkt->psn)
			sroce_send_atomic_ack(qp, res);
	} else if (!res->atomic && !res->empty_resp &&
		   (pkt->flags & SROCE_F_READ)) {
		sroce_resp_dup_read(qp, skb, res);
	}
}

static void sroce_resp_complete(struct sroce_qp *qp, struct sk_buff *skb,
				enum ib_wc_status status);

/* The receive WQE just taken is malformed: complete it, end the QP. */
static int sroce_resp_bad_wqe(struct sroce_qp *qp, enum ib_wc_status status)
{
	struct sroce_recv_wqe *copy = (struct sroce_recv_wqe *)qp->resp.wqe;

	copy->dma.num_sge = 0;
	qp->resp.length = 0;
	sroce_resp_complete(qp, NULL, status);
	sroce_qp_error(qp, IB_EVENT_QP_FATAL);
	return -EINVAL;
}

/*
 * Take the next receive WQE (from the SRQ or the RQ) into our copy.
 * Returns 0, -ENOENT when there is none, or -EINVAL when the owner wrote a
 * malformed one: that WQE is completed with a local QP operation (or
 * length) error and the QP goes to the error state (the caller NAKs an RC
 * peer).
 */
static int sroce_resp_get_wqe(struct sroce_qp *qp)
{
	struct sroce_recv_wqe *copy = (struct sroce_recv_wqe *)qp->resp.wqe;
	struct sroce_queue *q;
	struct sroce_srq *srq = NULL;
	struct sroce_recv_wqe *slot;
	u32 max_sge, i, n;
	u64 len = 0;
	spinlock_t *lock;	/* the receive ring's: the QP's or the SRQ's */
	unsigned long flags;
	bool event = false;

	if (qp->ibqp.srq) {
		srq = to_ssrq(qp->ibqp.srq);
		q = &srq->queue;
		lock = &srq->lock;
		max_sge = srq->max_sge;
	} else {
		q = &qp->rq;
		lock = &qp->rq_lock;
		max_sge = qp->rq_max_sge;
	}

	spin_lock_irqsave(lock, flags);
	slot = sroce_queue_consume_slot(q);
	if (!slot) {
		spin_unlock_irqrestore(lock, flags);
		return -ENOENT;
	}
	memcpy(copy, slot, sizeof(*copy));
	n = copy->dma.num_sge;
	if (n > max_sge)
		n = U32_MAX;	/* malformed: rejected below */
	else
		memcpy(copy->dma.sge, slot->dma.sge, n * sizeof(struct sroce_sge));
	sroce_queue_advance(q);
	if (srq && srq->limit && sroce_queue_count(q) < srq->limit) {
		srq->limit = 0;	/* one event per arming */
		event = true;
	}
	spin_unlock_irqrestore(lock, flags);

	if (event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}

	qp->resp.has_wqe = true;
	qp->resp.offset = 0;
	if (n == U32_MAX)
		return sroce_resp_bad_wqe(qp, IB_WC_LOC_QP_OP_ERR);
	for (i = 0; i < n; i++)
		len += copy->dma.sge[i].length;
	/* The ABI's lengths are 32-bit: a larger sum is a malformed WQE. */
	if (len > U32_MAX)
		return sroce_resp_bad_wqe(qp, IB_WC_LOC_LEN_ERR);
	qp->resp.length = len;
	return 0;
}

static void sroce_resp_complete(struct sroce_qp *qp, struct sk_buff *skb,
				enum ib_wc_status status)
{
	struct sroce_recv_wqe *wqe = (struct sroce_recv_wqe *)qp->resp.wqe;
	struct sroce_pkt *pkt = skb ? sroce_pkt(skb) : NULL;
	struct ib_wc wc = {
		.wr_id = wqe->wr_id,
		.status = status,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};

	qp->resp.has_wqe = false;
	if (status == IB_WC_SUCCESS && pkt) {
		/* As rxe: receives report a GRH, also on RC and UC. */
		wc.wc_flags = IB_WC_GRH;
		if (pkt->flags & SROCE_F_WRITE) {
			wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
			wc.byte_len = qp->resp.write_len;
		} else {
			wc.opcode = IB_WC_RECV;
			wc.byte_len = qp->resp.offset;
		}
		if (pkt->flags & SROCE_F_IMM) {
			u32 off = pkt->flags & SROCE_F_RETH ?
				  sizeof(struct sroce_reth) : 0;

			wc.ex.imm_data = sroce_immdt_data(sroce_ext(skb, off));
			wc.wc_flags |= IB_WC_WITH_IMM;
		}
		if (pkt->flags & SROCE_F_IETH) {
			wc.ex.invalidate_rkey =
				sroce_ieth_rkey(sroce_ext(skb, 0));
			wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		}
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_RDMA_RECVS);
	} else {
		wc.opcode = IB_WC_RECV;
	}
	if (sroce_cq_post(to_scq(qp->ibqp.recv_cq), &wc,
			  pkt && pkt->se) && qp->ibqp.qp_type == IB_QPT_RC)
		sroce_qp_error(qp, IB_EVENT_QP_FATAL);
}

static enum sroce_resp_err sroce_resp_check_seq(struct sroce_qp *qp,
						struct sroce_pkt *pkt)
{
	u32 prev = qp->resp.prev_flags;

	if (prev) {
		/* Inside a message: only its MIDDLE or LAST may come. */
		if ((pkt->flags & (SROCE_F_MIDDLE | SROCE_F_LAST)) &&
		    !(pkt->flags & SROCE_F_FIRST) &&
		    (pkt->flags & prev & (SROCE_F_SEND | SROCE_F_WRITE)))
			return SROCE_RESP_OK;
		return SROCE_RESP_INV_REQ;
	}
	if (!(pkt->flags & SROCE_F_FIRST))
		return SROCE_RESP_INV_REQ;
	return SROCE_RESP_OK;
}

/*
 * What any request must pass before it executes: the QP's remote access
 * rights for its operation, responder resources for a READ or atomic,
 * and its length (sroce_pkt_len_ok()).
 */
static enum sroce_resp_err sroce_resp_check(struct sroce_qp *qp,
					    struct sroce_pkt *pkt)
{
	int access = qp->attr.qp_access_flags;

	if (pkt->flags & SROCE_F_WRITE && !(access & IB_ACCESS_REMOTE_WRITE))
		return SROCE_RESP_INV_REQ;
	if (pkt->flags & SROCE_F_READ && !(access & IB_ACCESS_REMOTE_READ))
		return SROCE_RESP_INV_REQ;
	if (pkt->flags & SROCE_F_ATOMIC && !(access & IB_ACCESS_REMOTE_ATOMIC))
		return SROCE_RESP_INV_REQ;
	if ((pkt->flags & SROCE_F_RD_ATOMIC) && !qp->attr.max_dest_rd_atomic)
		return SROCE_RESP_INV_REQ;
	if (!sroce_pkt_len_ok(pkt, qp->mtu))
		return SROCE_RESP_INV_REQ;
	return SROCE_RESP_OK;
}

/* RDMA READ: check the whole range, save it, and start the reply. */
static enum sroce_resp_err sroce_resp_read(struct sroce_qp *qp,
					   struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_reth *reth = sroce_ext(skb, 0);
	u32 len = sroce_reth_len(reth), span;
	struct sroce_res *res;
	struct sroce_mr *mr;

	if (len > SROCE_MAX_MSG_SZ)
		return SROCE_RESP_INV_REQ;
	if (len) {
		mr = sroce_rkey_get(qp, sroce_reth_rkey(reth),
				    sroce_reth_va(reth), len,
				    IB_ACCESS_REMOTE_READ);
		if (!mr)
			return SROCE_RESP_ACCESS;
		sroce_mr_put(mr);
	}
	span = max_t(u32, DIV_ROUND_UP(len, qp->mtu), 1);
	res = sroce_res_new(qp);
	res->first_psn = pkt->psn;
	res->last_psn = sroce_psn_add(pkt->psn, span - 1);
	res->va = sroce_reth_va(reth);
	res->rkey = sroce_reth_rkey(reth);
	res->length = len;
	qp->resp.msn++;
	qp->resp.psn = sroce_psn_add(pkt->psn, span);
	sroce_read_start(qp, res, pkt->psn, 0, len);
	return SROCE_RESP_OK;
}

/* What an atomic leaves in memory that held @old. */
static u64 sroce_atomic_result(const struct sroce_pkt *pkt,
			       const struct sroce_atmeth *a, u64 old)
{
	if (pkt->opcode == (SROCE_OP_RC | SROCE_OP_CMP_SWAP))
		return old == sroce_atmeth_compare(a) ?
		       sroce_atmeth_swap_add(a) : old;
	return old + sroce_atmeth_swap_add(a);
}

/*
 * Compare-and-swap or fetch-and-add, 8 aligned bytes, atomic against every
 * other atomic of every device; the original value is saved for a replay.
 */
static enum sroce_resp_err sroce_resp_atomic(struct sroce_qp *qp,
					     struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_atmeth *a = sroce_ext(skb, 0);
	u64 va = sroce_atmeth_va(a), val;
	struct sroce_res *res;
	struct sroce_mr *mr;
	unsigned long flags;
	int err;

	if (va & 7)
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(qp, sroce_atmeth_rkey(a), va, 8,
			    IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return SROCE_RESP_ACCESS;
	/* ODP: fault in before the spinlock, keep it present until done. */
	err = sroce_mr_hold(mr, va, 8);
	if (err == -EAGAIN) {
		sroce_mr_put(mr);
		return SROCE_RESP_RNR;	/* the page on its way */
	}
	res = sroce_res_new(qp);
	res->atomic = true;
	res->first_psn = pkt->psn;
	res->last_psn = pkt->psn;
	if (!err) {
		spin_lock_irqsave(&sroce_atomic_lock, flags);
		err = sroce_mr_copy_held(mr, va, &val, 8, false);
		if (!err) {
			res->orig = val;
			val = sroce_atomic_result(pkt, a, val);
			err = sroce_mr_copy_held(mr, va, &val, 8, true);
		}
		spin_unlock_irqrestore(&sroce_atomic_lock, flags);
		sroce_mr_unhold(mr, va);
	}
	sroce_mr_put(mr);
	if (err)
		return SROCE_RESP_ACCESS;
	qp->resp.msn++;
	qp->resp.psn = sroce_psn_add(pkt->psn, 1);
	sroce_send_atomic_ack(qp, res);
	return SROCE_RESP_OK;
}

/*
 * RDMA WRITE: the first packet names the range (checked whole), each
 * packet is placed where the one before it ended. The MR the first packet
 * found places its payload too: one lookup for a one-packet WRITE.
 */
static enum sroce_resp_err sroce_resp_write(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	enum sroce_resp_err ret = SROCE_RESP_OK;
	struct sroce_mr *mr = NULL;
	int err;

	if (pkt->flags & SROCE_F_RETH) {
		struct sroce_reth *reth = sroce_ext(skb, 0);

		qp->resp.va = sroce_reth_va(reth);
		qp->resp.rkey = sroce_reth_rkey(reth);
		qp->resp.resid = sroce_reth_len(reth);
		qp->resp.write_len = qp->resp.resid;
		if (qp->resp.resid > SROCE_MAX_MSG_SZ)
			return SROCE_RESP_INV_REQ;
		if (qp->resp.resid) {
			mr = sroce_rkey_get(qp, qp->resp.rkey, qp->resp.va,
					    qp->resp.resid,
					    IB_ACCESS_REMOTE_WRITE);
			if (!mr)
				return SROCE_RESP_ACCESS;
		}
	}
	if (pkt->paylen > qp->resp.resid ||
	    ((pkt->flags & SROCE_F_LAST) && pkt->paylen != qp->resp.resid)) {
		ret = SROCE_RESP_INV_REQ;
		goto out;
	}
	if (pkt->paylen) {
		if (!mr)
			mr = sroce_rkey_get(qp, qp->resp.rkey, qp->resp.va,
					    pkt->paylen, IB_ACCESS_REMOTE_WRITE);
		if (!mr)
			return SROCE_RESP_ACCESS;
		err = sroce_payload_to_mr(skb, mr, qp->resp.va);
		if (err) {
			/* -EAGAIN: an ODP page on its way (odp.c) */
			ret = err == -EAGAIN ? SROCE_RESP_RNR :
					       SROCE_RESP_ACCESS;
			goto out;
		}
	}
	qp->resp.va += pkt->paylen;
	qp->resp.resid -= pkt->paylen;
out:
	if (mr)
		sroce_mr_put(mr);
	return ret;
}

/*
 * An ATOMIC WRITE or FLUSH at @psn is done: save it, for a duplicate to be
 * answered again without doing it twice, and start its empty READ
 * response.
 */
static void sroce_resp_empty_read(struct sroce_qp *qp, u32 psn)
{
	struct sroce_res *res = sroce_res_new(qp);

	res->empty_resp = true;
	res->first_psn = psn;
	res->last_psn = psn;
	qp->resp.msn++;
	qp->resp.psn = sroce_psn_add(psn, 1);
	sroce_read_start(qp, res, psn, 0, 0);
}

/*
 * RDMA ATOMIC WRITE (IBA A19.4): 8 bytes to an aligned address in memory
 * the QP may write, stored at once and after everything placed before it.
 * Like a READ it takes a responder resource and is answered by an RDMA
 * READ response, of no payload (as rdma_rxe answers it, and expects); a
 * duplicate gets that response again and is never stored twice.
 */
static enum sroce_resp_err sroce_resp_atomic_write(struct sroce_qp *qp,
						   struct sk_buff *skb)
{
	struct sroce_reth *reth = sroce_ext(skb, 0);
	u64 va = sroce_reth_va(reth), val;
	struct sroce_mr *mr;
	int err;

	if (sroce_reth_len(reth) != 8 || sroce_pkt(skb)->paylen != 8 ||
	    (va & 7))
		return SROCE_RESP_INV_REQ;
	mr = sroce_rkey_get(qp, sroce_reth_rkey(reth), va, 8,
			    IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return SROCE_RESP_ACCESS;
	memcpy(&val, sroce_ext(skb, sizeof(*reth)), 8);
	err = sroce_mr_store64(mr, va, val);
	sroce_mr_put(mr);
	if (err == -EAGAIN)
		return SROCE_RESP_RNR;	/* an ODP page on its way */
	if (err)
		return err == -EINVAL ? SROCE_RESP_INV_REQ : SROCE_RESP_ACCESS;
	sroce_resp_empty_read(qp, sroce_pkt(skb)->psn);
	return SROCE_RESP_OK;
}

/*
 * The MR access a FLUSH's placement types need: each type the FETH asks
 * for must be allowed; 0 if it asks for none, or for one IBA does not
 * define (invalid request).
 */
static int sroce_flush_access(u32 plt)
{
	int access = 0;

	if (!plt || (plt & ~(SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)))
		return 0;
	if (plt & SROCE_FLUSH_GLOBAL)
		access |= SROCE_ACCESS_FLUSH_GLOBAL;
	if (plt & SROCE_FLUSH_PERSISTENT)
		access |= SROCE_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/*
 * RDMA FLUSH (IBA A19.4): make what was placed before it in the range (or
 * the whole region) of its R_Key globally visible, or persistent. The
 * R_Key must allow that placement type (no MR here ever allows
 * persistence: sroce.h); a range must lie in the MR. Our memory is
 * ordinary RAM written by the CPU, so global visibility is a full barrier
 * between the data placed before and the response that reports it done.
 * Like ATOMIC WRITE, it takes a responder resource and is answered by an
 * empty RDMA READ response (as rdma_rxe does); a duplicate gets that
 * response again.
 */
static enum sroce_resp_err sroce_resp_flush(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	struct sroce_feth *feth = sroce_ext(skb, 0);
	struct sroce_reth *reth = sroce_ext(skb, sizeof(struct sroce_feth));
	u32 sel = sroce_feth_selectivity(feth);
	int access = sroce_flush_access(sroce_feth_placement(feth));
	u32 rkey = sroce_reth_rkey(reth), len = sroce_reth_len(reth);
	struct sroce_mr *mr;

	if (!access || sel > SROCE_FLUSH_MR || len > SROCE_MAX_MSG_SZ)
		return SROCE_RESP_INV_REQ;
	if (sel == SROCE_FLUSH_MR) {
		if (!sroce_rkey_allows(qp, rkey, access))
			return SROCE_RESP_ACCESS;
	} else {
		mr = sroce_rkey_get(qp, rkey, sroce_reth_va(reth), len,
				    access);
		if (!mr)
			return SROCE_RESP_ACCESS;
		sroce_mr_put(mr);
	}
	/* Everything placed before is seen before the response says so. */
	smp_mb();
	sroce_resp_empty_read(qp, sroce_pkt(skb)->psn);
	return SROCE_RESP_OK;
}

/* SEND: into the receive WQE's buffers, after what came before. */
static enum sroce_resp_err sroce_resp_send(struct sroce_qp *qp,
					   struct sk_buff *skb)
{
	struct sroce_recv_wqe *wqe = (struct sroce_recv_wqe *)qp->resp.wqe;
	struct sroce_pkt *pkt = sroce_pkt(skb);
	int err;

	if (pkt->paylen > qp->resp.length - qp->resp.offset) {
		sroce_resp_complete(qp, NULL, IB_WC_LOC_LEN_ERR);
		return SROCE_RESP_INV_REQ;
	}
	err = pkt->paylen ?
	      sroce_payload_to_sge(skb, qp, wqe->dma.sge, wqe->dma.num_sge,
				   qp->resp.offset) : 0;
	if (err == -EAGAIN)
		return SROCE_RESP_RNR;	/* an ODP page on its way */
	if (err) {
		sroce_resp_complete(qp, NULL, IB_WC_LOC_PROT_ERR);
		return SROCE_RESP_OP_ERR;
	}
	qp->resp.offset += pkt->paylen;
	return SROCE_RESP_OK;
}

/*
 * Whether RC acknowledges @pkt, the FIRST packet of a longer message,
 * unasked. A requester that leaves its retransmission timer running once
 * all is acknowledged (rdma_rxe does) and asks for an ACK only every 64
 * packets would otherwise time out early on a long message that starts
 * late in that timer's period, and resend it. The early ACK re-arms such a
 * timer. A message that ends within SROCE_ACK_EARLY_MTUS packets gets
 * none: its last packet asks for an ACK about as soon, and the extra ACK
 * cost a packet per message (and, under a VM, a kick of the NIC). A
 * WRITE's RETH says its length; a SEND is at most as long as the receive
 * buffer it lands in. Not for a chunk: only sroce sends those.
 */
#define SROCE_ACK_EARLY_MTUS	8

static bool sroce_resp_ack_early(struct sroce_qp *qp,
				 const struct sroce_pkt *pkt)
{
	u64 most;

	if ((pkt->flags & SROCE_F_ONLY) != SROCE_F_FIRST || pkt->span != 1)
		return false;
	most = pkt->flags & SROCE_F_RETH ? qp->resp.write_len :
					   qp->resp.length;
	return most > SROCE_ACK_EARLY_MTUS * qp->mtu;
}

/*
 * A SEND or WRITE packet placed: the next PSN; at the end of a message the
 * invalidation it carries and its receive completion; the ACK.
 */
static enum sroce_resp_err sroce_resp_finish(struct sroce_qp *qp,
					     struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	qp->resp.psn = sroce_psn_add(pkt->psn, pkt->span);
	qp->resp.prev_flags = (pkt->flags & SROCE_F_LAST) ? 0 : pkt->flags;
	if (pkt->flags & SROCE_F_LAST) {
		qp->resp.msn++;
		if ((pkt->flags & SROCE_F_IETH) &&
		    sroce_invalidate(qp, sroce_ieth_rkey(sroce_ext(skb, 0)),
				     true)) {
			sroce_resp_complete(qp, NULL, IB_WC_REM_INV_REQ_ERR);
			return SROCE_RESP_INV_REQ;
		}
		if (pkt->flags & SROCE_F_COMP)
			sroce_resp_complete(qp, skb, IB_WC_SUCCESS);
	}
	/* UC has no acknowledgements, whatever the sender asks for. */
	if (qp->ibqp.qp_type == IB_QPT_RC &&
	    (pkt->ackreq || sroce_resp_ack_early(qp, pkt)))
		sroce_send_ack(qp, SROCE_AETH_ACK_NOCREDIT,
			       sroce_psn_add(pkt->psn, pkt->span - 1));
	return SROCE_RESP_OK;
}

/* Execute a request that is next in sequence: one handler per operation. */
static enum sroce_resp_err sroce_resp_execute(struct sroce_qp *qp,
					      struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	enum sroce_resp_err err;

	err = sroce_resp_check(qp, pkt);
	if (err)
		return err;
	if (pkt->flags & SROCE_F_READ)
		return sroce_resp_read(qp, skb);
	if (pkt->flags & SROCE_F_ATOMIC)
		return sroce_resp_atomic(qp, skb);
	if (pkt->flags & SROCE_F_ATOMIC_WRITE)
		return sroce_resp_atomic_write(qp, skb);
	if (pkt->flags & SROCE_F_FLUSH)
		return sroce_resp_flush(qp, skb);

	/* SEND and WRITE with immediate: a receive WQE, RNR if none */
	if ((pkt->flags & SROCE_F_RWR) && !qp->resp.has_wqe) {
		int e = sroce_resp_get_wqe(qp);

		if (e)
			return e == -ENOENT ? SROCE_RESP_RNR : SROCE_RESP_OP_ERR;
	}
	if (pkt->flags & SROCE_F_WRITE)
		err = sroce_resp_write(qp, skb);
	else
		err = sroce_resp_send(qp, skb);
	if (err)
		return err;
	return sroce_resp_finish(qp, skb);
}

/* Class C errors (IBA 9.9.3): NAK, and the QP goes to the error state. */
static void sroce_resp_fail(struct sroce_qp *qp, u32 psn,
			    enum sroce_resp_err err)
{
	u8 code = err == SROCE_RESP_INV_REQ ? SROCE_NAK_INVALID_REQ :
		  err == SROCE_RESP_ACCESS ? SROCE_NAK_REMOTE_ACCESS :
					     SROCE_NAK_REMOTE_OP;

	if (qp->ibqp.qp_type == IB_QPT_RC) {
		sroce_send_ack(qp, sroce_syndrome(SROCE_AETH_NAK, code), psn);
		if (qp->resp.has_wqe)
			sroce_resp_complete(qp, NULL,
					    err == SROCE_RESP_ACCESS ?
					    IB_WC_REM_ACCESS_ERR :
					    IB_WC_REM_INV_REQ_ERR);
		/* Affiliated events of the responder's class C errors. */
		sroce_qp_error(qp, err == SROCE_RESP_ACCESS ?
				   IB_EVENT_QP_ACCESS_ERR :
				   err == SROCE_RESP_INV_REQ ?
				   IB_EVENT_QP_REQ_ERR : IB_EVENT_QP_FATAL);
	} else {
		/*
		 * UC: drop the message and wait for the next one, which reuses
		 * the receive WQE (if it was not completed with an error). Our
		 * own faults (a bad receive WQE or buffer) end the QP.
		 */
		qp->resp.drop_msg = true;
		qp->resp.prev_flags = 0;
		qp->resp.offset = 0;
		if (err == SROCE_RESP_OP_ERR)
			sroce_qp_error(qp, IB_EVENT_QP_FATAL);
	}
}

/*
 * UD and GSI: one packet per message. The Q_Key must match; the receive
 * buffer gets the 40-byte GRH image (IPv6 header, or 20 zero bytes and the
 * IPv4 header) then the payload. No receive WQE, or too small a one: drop.
 */
static void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_deth *deth = sroce_ext(skb, 0);
	struct sroce_recv_wqe *wqe;
	int err;
	union {
		u8 raw[40];
		struct {
			u8 pad[20];
			struct iphdr ip4;
		};
		struct ipv6hdr ip6;
	} grh = {};
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
		.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
	};

	if (sroce_deth_qkey(deth) != qp->attr.qkey) {
		sroce_count_drop(sdev, SROCE_CNT_DROP_QKEY);
		return;
	}
	if (!qp->resp.has_wqe && sroce_resp_get_wqe(qp)) {
		sroce_count_drop(sdev, SROCE_CNT_DROP_NO_WQE);
		return;
	}
	wqe = (struct sroce_recv_wqe *)qp->resp.wqe;
	wc.wr_id = wqe->wr_id;
	qp->resp.has_wqe = false;

	if (skb->protocol == htons(ETH_P_IPV6)) {
		memcpy(&grh.ip6, ipv6_hdr(skb), sizeof(grh.ip6));
		wc.network_hdr_type = RDMA_NETWORK_IPV6;
	} else {
		memcpy(&grh.ip4, ip_hdr(skb), sizeof(grh.ip4));
		wc.network_hdr_type = RDMA_NETWORK_IPV4;
	}
	/* The CM finds the GID a request came to by its VLAN too. */
	if (pkt->has_vlan) {
		wc.wc_flags |= IB_WC_WITH_VLAN;
		wc.vlan_id = pkt->vlan_id;
	}
	err = sizeof(grh) + pkt->paylen > qp->resp.length ? 0 :
	      sroce_sge_copy(qp, wqe->dma.sge, wqe->dma.num_sge, 0, grh.raw,
			     sizeof(grh), true) ?:
	      sroce_payload_to_sge(skb, qp, wqe->dma.sge, wqe->dma.num_sge,
				   sizeof(grh));
	if (err == -EAGAIN) {
		/*
		 * An ODP page on its way: a datagram cannot be asked for
		 * again, so it is dropped; the WQE waits for the next.
		 */
		qp->resp.has_wqe = true;
		sroce_count_drop(sdev, SROCE_CNT_DROP_NO_WQE);
		return;
	}
	if (sizeof(grh) + pkt->paylen > qp->resp.length) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else if (err) {
		wc.status = IB_WC_LOC_PROT_ERR;
	} else {
		wc.byte_len = sizeof(grh) + pkt->paylen;
		wc.src_qp = sroce_deth_sqp(deth);
		if (pkt->flags & SROCE_F_IMM) {
			struct sroce_immdt *immdt =
				sroce_ext(skb, sizeof(struct sroce_deth));

			wc.ex.imm_data = sroce_immdt_data(immdt);
			wc.wc_flags |= IB_WC_WITH_IMM;
		}
		sroce_count(sdev, SROCE_CNT_RDMA_RECVS);
	}
	sroce_cq_post(to_scq(qp->ibqp.recv_cq), &wc, pkt->se);
}

/*
 * A gap before the expected PSN is a loss: one PSN sequence NAK, counted
 * out of sequence, until the expected packet comes. What is held stays:
 * it is taken once the gap fills, and its copies sent again are
 * duplicates (whose ACK lets the requester skip ahead, req.c).
 */
static void sroce_resp_gap(struct sroce_qp *qp)
{
	if (qp->resp.nak_sent)
		return;
	qp->resp.nak_sent = true;
	sroce_hold_lost(&qp->req_held, qp->resp.psn);
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_OUT_OF_SEQ_REQ);
	sroce_send_ack(qp, sroce_syndrome(SROCE_AETH_NAK, SROCE_NAK_PSN_SEQ),
		       qp->resp.psn);
}

/* No receive WQE for the request at @psn: an RNR NAK (RC), or dropped (UC). */
static void sroce_resp_rnr(struct sroce_qp *qp, u32 psn)
{
	if (qp->ibqp.qp_type != IB_QPT_RC) {
		qp->resp.drop_msg = true;
		return;
	}
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_SND_RNR);
	sroce_send_ack(qp, sroce_syndrome(SROCE_AETH_RNR_NAK,
					  qp->attr.min_rnr_timer), psn);
	/*
	 * The requester sends this request again after its RNR timer, and
	 * the ones behind it: those are no gap, and a sequence NAK for them
	 * would cost it a retry each time the RNR timer outlasts the reorder
	 * wait (retry_cnt ran out under a 10 us RNR timer).
	 */
	qp->resp.nak_sent = true;
}

/* Take one request; true if @skb was kept (held, hold.c), else done with. */
static bool sroce_resp_one(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	enum sroce_resp_err err;
	int cmp;

	if (qp->state == IB_QPS_RTR && !qp->resp.comm_est) {
		/* The first packet in RTR: the connection is up (IBA 11.6.3.1). */
		qp->resp.comm_est = true;
		sroce_qp_event(qp, IB_EVENT_COMM_EST);
	}
	if (sroce_qp_is_ud(qp)) {
		sroce_resp_ud(qp, skb);
		return false;
	}
	if (pkt->ce) {
		/* once: a request held, or served in steps, comes back here */
		pkt->ce = false;
		sroce_cc_np_marked(qp);
	}
	if (qp->ibqp.qp_type == IB_QPT_UC) {
		/* On a gap or after an error, resume at the next message. */
		if (pkt->psn != qp->resp.psn || qp->resp.drop_msg) {
			if (!(pkt->flags & SROCE_F_FIRST))
				goto drop_msg;
			/* An unfinished message is lost; its WQE takes this one. */
			qp->resp.prev_flags = 0;
			qp->resp.offset = 0;
			qp->resp.drop_msg = false;
			qp->resp.psn = pkt->psn;
		}
	} else {
		cmp = sroce_psn_cmp(pkt->psn, qp->resp.psn);
		if (cmp > 0) {
			/* Reordered on the way, perhaps: wait for the gap. */
			if (sroce_hold(qp, &qp->req_held, skb, qp->resp.psn))
				return true;
			/* No room, or too far ahead: a loss, and dropped. */
			sroce_resp_gap(qp);
			return false;
		}
		if (cmp < 0) {
			sroce_resp_duplicate(qp, skb);
			return false;
		}
		qp->resp.nak_sent = false;
		sroce_hold_progress(&qp->req_held);
	}

	err = sroce_resp_check_seq(qp, pkt);
	if (err == SROCE_RESP_OK)
		err = sroce_resp_execute(qp, skb);
	switch (err) {
	case SROCE_RESP_OK:
	case SROCE_RESP_DROP:
		return false;
	case SROCE_RESP_RNR:
		sroce_resp_rnr(qp, pkt->psn);
		return false;
	default:
		sroce_resp_fail(qp, pkt->psn, err);
		return false;
	}
drop_msg:
	qp->resp.drop_msg = true;
	return false;
}

bool sroce_responder(struct sroce_qp *qp, int *budget)
{
	bool progress = false;
	struct sk_buff *skb;

	sroce_qp_assert_run(qp);

	if (qp->state == IB_QPS_RESET || qp->state == IB_QPS_INIT)
		return false;
	while (*budget > 0 && qp->state != IB_QPS_ERR) {
		/* A READ's responses go out before the next request is seen. */
		if (qp->resp.read) {
			if (!sroce_read_may_send(qp) ||
			    !sroce_send_read_pkt(qp))
				break;
		} else {
			/* A held one whose turn has come, then the queue's. */
			skb = sroce_hold_next(&qp->req_held, qp->resp.psn);
			/* Not even the queue's lock when it is empty. */
			if (!skb && !skb_queue_empty_lockless(&qp->req_pkts))
				skb = skb_dequeue(&qp->req_pkts);
			if (!skb)
				break;
			if (!sroce_resp_one(qp, skb))
				sroce_skb_done(qp, skb);
		}
		(*budget)--;
		progress = true;
	}
	/* Not while requests wait to be read: one of them may fill the gap. */
	if (qp->ibqp.qp_type == IB_QPT_RC && qp->state != IB_QPS_ERR &&
	    !qp->resp.nak_sent && skb_queue_empty_lockless(&qp->req_pkts) &&
	    sroce_hold_expired(qp, &qp->req_held))
		sroce_resp_gap(qp);
	return progress;
}
