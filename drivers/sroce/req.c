// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester: turns send WQEs into request packets.
 *
 * Each WQE is copied out of the send ring once (sroce_req_fetch) and
 * checked there; from then on only the kernel's copy is used, so a process
 * rewriting its ring cannot change a WQE under way. Messages are cut into
 * path-MTU packets; RC keeps at most qp->req.window PSNs unacknowledged
 * (comp.c: 512, halved at each loss, grown again as ACKs come). It asks
 * for an ACK only where one is needed (sroce_req_ackreq), and sends an
 * unasked tail's newest packet again to get one (sroce_req_probe).
 */
#include "sroce.h"
#include "cc.h"
#include "comp.h"
#include "copy.h"
#include "hold.h"
#include "local.h"
#include "mr.h"
#include "qp.h"
#include "req.h"
#include "sched.h"
#include "txbuf.h"
#include "xmit.h"

#define SROCE_ACKREQ_EVERY	64

struct sroce_send_wqe *sroce_sq_copy(struct sroce_qp *qp, u32 index)
{
	return (struct sroce_send_wqe *)(qp->sq_copy +
					 sroce_queue_offset(&qp->sq, index));
}

/* What each work request opcode is on the wire; 0 = not valid. */
static u32 sroce_wr_flags(struct sroce_qp *qp, u32 op)
{
	enum ib_qp_type type = qp->ibqp.qp_type;

	if (type == IB_QPT_GSI)
		type = IB_QPT_UD;
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return SROCE_F_SEND;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return type == IB_QPT_UD ? 0 : SROCE_F_WRITE;
	case IB_WR_SEND_WITH_INV:
		return type == IB_QPT_RC ? SROCE_F_SEND | SROCE_F_IETH : 0;
	case IB_WR_RDMA_READ:
		return type == IB_QPT_RC ? SROCE_F_READ : 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC ? SROCE_F_ATOMIC : 0;
	case SROCE_WR_ATOMIC_WRITE:
		/* Its 8 bytes come in the user WQE; no kernel verb has it. */
		return type == IB_QPT_RC && qp->is_user ?
		       SROCE_F_WRITE | SROCE_F_ATOMIC_WRITE : 0;
	case SROCE_WR_FLUSH:
		/* Its FETH comes in the user WQE; no kernel verb has it. */
		return type == IB_QPT_RC && qp->is_user ? SROCE_F_FLUSH : 0;
	case IB_WR_LOCAL_INV:
	case IB_WR_BIND_MW:
		return type == IB_QPT_UD ? 0 : SROCE_F_LOCAL;
	case IB_WR_REG_MR:
		/* Carries a kernel pointer: never from a user ring. */
		return type == IB_QPT_UD || qp->is_user ? 0 : SROCE_F_LOCAL;
	default:
		return 0;
	}
}

/*
 * Copy a WQE out of the ring: its header, then only as much of the rest of
 * the slot as the header's copy says is in use (the inline data or the
 * SGEs), never more than the slot. A small WQE is ~100 bytes of a 512-byte
 * slot. What the checks below accept lies within what was copied.
 */
static void sroce_req_copy(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			   u32 index)
{
	const u8 *slot = sroce_queue_slot(&qp->sq, index);
	size_t room = sroce_queue_elem_size(&qp->sq) - sizeof(*wqe);
	size_t tail;

	memcpy(wqe, slot, sizeof(*wqe));
	if (wqe->wr.opcode == SROCE_WR_ATOMIC_WRITE)
		tail = 8;	/* dma.atomic_wr */
	else if (wqe->wr.send_flags & IB_SEND_INLINE)
		tail = wqe->dma.length;
	else
		tail = (size_t)wqe->dma.num_sge * sizeof(struct sroce_sge);
	memcpy(wqe->dma.inline_data, slot + sizeof(*wqe), min(tail, room));
}

/* The inline data and the SGEs start right behind the header. */
static_assert(offsetof(struct sroce_send_wqe, dma.inline_data) ==
	      sizeof(struct sroce_send_wqe));

/*
 * A FLUSH names placement types the FETH can carry (global visibility,
 * persistence or both) and a selectivity level (the range, or the whole
 * region); what the responder's region allows is the responder's to judge.
 */
static bool sroce_req_flush_ok(const struct sroce_send_wr *wr)
{
	u8 type = wr->wr.flush.type;

	return type && !(type & ~(SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)) &&
	       wr->wr.flush.level <= SROCE_FLUSH_MR;
}

/* Copy the next WQE out of the ring and validate it. */
static void sroce_req_fetch(struct sroce_qp *qp)
{
	u32 index = qp->req.fetched;
	struct sroce_send_wqe *wqe = sroce_sq_copy(qp, index);
	u64 len = 0;
	u32 i, n;

	sroce_req_copy(qp, wqe, index);
	qp->req.fetched = sroce_queue_next(&qp->sq, index);

	wqe->state = SROCE_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->first_psn = 0;
	wqe->last_psn = 0;
	wqe->mask = sroce_wr_flags(qp, wqe->wr.opcode);
	if (!wqe->mask)
		goto bad_op;

	if (wqe->mask & SROCE_F_LOCAL) {
		wqe->dma.length = 0;
		return;
	}
	if (wqe->mask & SROCE_F_ATOMIC_WRITE) {
		/* Sent as 8 bytes of inline data to wr.rdma's address. */
		wqe->wr.send_flags |= IB_SEND_INLINE;
		wqe->dma.num_sge = 0;
		wqe->dma.length = 8;
		wqe->dma.resid = 8;
		wqe->iova = wqe->wr.wr.rdma.remote_addr;
		return;
	}

	if (wqe->mask & SROCE_F_FLUSH) {
		/*
		 * No data. As rdma_rxe reads such a WQE: the range is iova
		 * and dma.length, as for a READ; wr.flush gives the R_Key
		 * and the FETH.
		 */
		if (!sroce_req_flush_ok(&wqe->wr))
			goto bad_op;
		wqe->wr.send_flags &= ~IB_SEND_INLINE;
		wqe->dma.num_sge = 0;
		wqe->dma.resid = wqe->dma.length;
		return;
	}

	if ((wqe->wr.send_flags & IB_SEND_INLINE) &&
	    (wqe->mask & (SROCE_F_SEND | SROCE_F_WRITE))) {
		/* The provider wrote the data itself; only its length counts. */
		if (wqe->dma.length > qp->sq_max_inline)
			goto bad_len;
		len = wqe->dma.length;
		wqe->dma.num_sge = 0;
	} else {
		wqe->wr.send_flags &= ~IB_SEND_INLINE;
		n = wqe->dma.num_sge;
		if (n > qp->sq_max_sge)
			goto bad_op;
		/* Never trust dma.length: sum the SGEs ourselves. */
		for (i = 0; i < n; i++)
			len += wqe->dma.sge[i].length;
	}
	if (len > SROCE_MAX_MSG_SZ)
		goto bad_len;
	if (wqe->mask & SROCE_F_ATOMIC) {
		/* The original value lands in the first SGE. */
		if (!wqe->dma.num_sge || wqe->dma.sge[0].length < 8)
			goto bad_len;
		len = 8;
	}
	wqe->dma.length = len;
	wqe->dma.resid = len;
	return;

bad_len:
	wqe->status = IB_WC_LOC_LEN_ERR;
	wqe->state = SROCE_WQE_DONE;
	return;
bad_op:
	wqe->status = IB_WC_LOC_QP_OP_ERR;
	wqe->state = SROCE_WQE_DONE;
}

/*
 * Start over from the oldest unacknowledged PSN (after a timeout or NAK,
 * or forward, when a late ACK covers packets being sent again): every WQE
 * from the oldest not completed up to the one being sent (that one
 * included if partly sent) goes out again; the first resumes at the
 * packet of that PSN. Those sent before keep their PSNs (RESEND), so an
 * ACK that arrives for them meanwhile still completes them.
 */
static void sroce_req_rewind(struct sroce_qp *qp)
{
	u32 i, end = qp->req.wqe_index, psn = qp->comp.psn;
	u32 partial = qp->req.offset ? end : U32_MAX;
	struct sroce_send_wqe *wqe;
	bool first = true;

	if (qp->req.offset)
		end = sroce_queue_next(&qp->sq, end);
	/*
	 * And every WQE past it that an earlier rewind marked and that is
	 * not sent again yet: the acknowledged point may lie in one of them.
	 * A late ACK that completes the WQE a resend is in moves the
	 * requester to the next one at offset 0, though that one went out
	 * in part before the rewind; it must resume where the ACK points.
	 */
	while (end != qp->req.fetched) {
		wqe = sroce_sq_copy(qp, end);
		if (wqe->state != SROCE_WQE_RESEND && wqe->state != SROCE_WQE_SENT)
			break;
		end = sroce_queue_next(&qp->sq, end);
	}
	qp->req.wqe_index = qp->sq.index;
	qp->req.psn = psn;
	qp->req.offset = 0;
	qp->req.rd_atomic = 0;
	/* The first packet sent again asks: one ACK tells what arrived. */
	qp->req.noack = SROCE_ACKREQ_EVERY;
	if (qp->ibqp.qp_type == IB_QPT_RC)
		sroce_comp_restart(qp);
	for (i = qp->sq.index; i != end; i = sroce_queue_next(&qp->sq, i)) {
		wqe = sroce_sq_copy(qp, i);
		if (wqe->state == SROCE_WQE_DONE)
			continue;
		if (wqe->state == SROCE_WQE_SENT || i == partial)
			wqe->state = SROCE_WQE_RESEND;
		if (first && wqe->state == SROCE_WQE_RESEND &&
		    sroce_psn_cmp(psn, wqe->first_psn) > 0) {
			/* Partly acknowledged: resume at that PSN. */
			qp->req.offset = sroce_psn_diff(psn, wqe->first_psn);
			qp->req.offset *= qp->mtu;
		}
		first = false;
	}
}

/*
 * After a rewind: an ACK for a packet not yet sent again acknowledged the
 * first copies, so the timeout that started the resend was spurious (the
 * responder was slow, not short of packets; TCP's F-RTO reasons the same
 * way). Everything sent before is taken as in flight again, and sending
 * goes on at the newest PSN ever sent; a packet really lost is NAKed
 * when the next arrives, or times out.
 */
static void sroce_req_resume(struct sroce_qp *qp)
{
	struct sroce_send_wqe *wqe;
	u32 end = qp->req.psn_max;

	while (qp->req.wqe_index != qp->req.fetched &&
	       sroce_psn_cmp(qp->req.psn, end) < 0) {
		wqe = sroce_sq_copy(qp, qp->req.wqe_index);
		if (wqe->state == SROCE_WQE_DONE) {
			/* A local operation, run already. */
			qp->req.wqe_index = sroce_queue_next(&qp->sq,
							     qp->req.wqe_index);
			continue;
		}
		if (wqe->state != SROCE_WQE_RESEND)
			break;
		if (sroce_psn_cmp(wqe->last_psn, end) >= 0) {
			/* Sent in part: go on after its newest packet. */
			qp->req.offset = sroce_psn_diff(end, wqe->first_psn) *
					 qp->mtu;
			qp->req.psn = end;
			break;
		}
		wqe->state = SROCE_WQE_SENT;
		if (wqe->mask & SROCE_F_RD_ATOMIC)
			qp->req.rd_atomic++;
		qp->req.wqe_index = sroce_queue_next(&qp->sq,
						     qp->req.wqe_index);
		qp->req.offset = 0;
		qp->req.psn = sroce_psn_add(wqe->last_psn, 1);
	}
}

void sroce_req_reset(struct sroce_qp *qp)
{
	qp->req.wqe_index = qp->sq.index;
	qp->req.fetched = qp->sq.index;
	qp->req.psn = qp->attr.sq_psn;
	qp->req.psn_max = qp->attr.sq_psn;
	qp->req.offset = 0;
	qp->req.noack = 0;
	qp->req.ask_psn = sroce_psn_add(qp->attr.sq_psn, -1);
	qp->req.dense = false;
	WRITE_ONCE(qp->req.probe_due, false);
	qp->req.rd_atomic = 0;
	qp->req.need_retry = false;
	qp->req.backoff = false;
	qp->req.window = SROCE_WINDOW_MAX;
	sroce_comp_reset(qp);
	sroce_cc_reset(qp);
}

/*
 * The completer's news for the requester. The requester's fields are
 * written by req.c alone, inside the QP's run; these are the completer's
 * ways to change them.
 */

/* A new ACK: one more packet may be in flight, up to the maximum. */
void sroce_req_acked(struct sroce_qp *qp)
{
	sroce_qp_assert_run(qp);
	qp->req.window = min(qp->req.window + 8, SROCE_WINDOW_MAX);
}

/*
 * Send again from the oldest unacknowledged PSN at the next step. @lost:
 * a packet was lost (a timeout, a NAK, a missing response), so fewer are
 * in flight until ACKs come again. A peer that drops what it cannot take
 * (a full receive ring, a full queue) would otherwise lose the same
 * window each time it is sent again, until the retries run out. An RNR
 * NAK loses nothing.
 */
void sroce_req_retry(struct sroce_qp *qp, bool lost)
{
	sroce_qp_assert_run(qp);
	if (lost)
		qp->req.window = max(qp->req.window / 2, SROCE_WINDOW_MIN);
	qp->req.need_retry = true;
}

/*
 * @wqe, the oldest in the send queue, completes: it no longer counts
 * against the READs and atomics in flight, and if it completes before the
 * requester moved past it (an error found while building it), the
 * requester starts at the next one.
 */
void sroce_req_completing(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	sroce_qp_assert_run(qp);
	/* Counted while sent and unanswered (a rewind recounts). */
	if ((wqe->mask & SROCE_F_RD_ATOMIC) &&
	    wqe->state == SROCE_WQE_SENT)
		qp->req.rd_atomic -= !!qp->req.rd_atomic;
	if (qp->req.wqe_index == qp->sq.index) {
		qp->req.wqe_index = sroce_queue_next(&qp->sq,
						     qp->req.wqe_index);
		qp->req.offset = 0;
	}
}

static u8 sroce_req_opcode(struct sroce_send_wqe *wqe, bool first, bool last)
{
	u32 op = wqe->wr.opcode;

	switch (op) {
	case IB_WR_RDMA_READ:
		return SROCE_OP_READ_REQ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_OP_CMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_OP_FETCH_ADD;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_OP_ATOMIC_WRITE;
	case SROCE_WR_FLUSH:
		return SROCE_OP_FLUSH;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (first && last)
			return op == IB_WR_RDMA_WRITE ? SROCE_OP_WRITE_ONLY :
							SROCE_OP_WRITE_ONLY_IMM;
		if (first)
			return SROCE_OP_WRITE_FIRST;
		if (!last)
			return SROCE_OP_WRITE_MIDDLE;
		return op == IB_WR_RDMA_WRITE ? SROCE_OP_WRITE_LAST :
						SROCE_OP_WRITE_LAST_IMM;
	default:
		if (first && last)
			return op == IB_WR_SEND ? SROCE_OP_SEND_ONLY :
			       op == IB_WR_SEND_WITH_IMM ?
			       SROCE_OP_SEND_ONLY_IMM : SROCE_OP_SEND_ONLY_INV;
		if (first)
			return SROCE_OP_SEND_FIRST;
		if (!last)
			return SROCE_OP_SEND_MIDDLE;
		return op == IB_WR_SEND ? SROCE_OP_SEND_LAST :
		       op == IB_WR_SEND_WITH_IMM ?
		       SROCE_OP_SEND_LAST_IMM : SROCE_OP_SEND_LAST_INV;
	}
}

/*
 * The payload of the next packet of a SEND or WRITE: one MTU from
 * qp->req.offset, or to a QP of this device, several at once: a chunk of
 * the sender's pages gathered in @f (local.c, *@chunk set).
 */
static u32 sroce_req_payload(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			     struct sroce_frags *f, bool *chunk)
{
	u32 left = wqe->dma.length - qp->req.offset, n;

	*chunk = false;
	if (left > qp->mtu && !(wqe->wr.send_flags & IB_SEND_INLINE) &&
	    sroce_av_local(qp, &qp->av)) {
		n = sroce_frags_from_sge(qp, f, wqe->dma.sge, wqe->dma.num_sge,
					 qp->req.offset,
					 min_t(u32, left, SROCE_LOCAL_CHUNK));
		if (n > qp->mtu) {
			*chunk = true;
			return n;
		}
		sroce_frags_release(f);
	}
	return min(left, qp->mtu);
}

/*
 * The extension headers after the BTH of the packet at @off of @wqe (a
 * FLUSH's FETH, then RETH, ATMETH, immediate, IETH); returns what follows
 * them. A FLUSH WQE keeps its R_Key where rxe's layout puts it, apart from
 * a WRITE's or READ's; a FLUSH is one packet, so @off is 0 for it.
 */
static u8 *sroce_req_ext_hdrs(const struct sroce_send_wqe *wqe,
			      const struct sroce_opcode_info *info, u8 op,
			      u32 off, u8 *p)
{
	bool flush = info->flags & SROCE_F_FLUSH;

	if (flush) {
		sroce_feth_set((struct sroce_feth *)p, wqe->wr.wr.flush.type,
			       wqe->wr.wr.flush.level);
		p += sizeof(struct sroce_feth);
	}
	if (info->flags & SROCE_F_RETH) {
		sroce_reth_set((struct sroce_reth *)p, wqe->iova + off,
			       flush ? wqe->wr.wr.flush.rkey :
				       wqe->wr.wr.rdma.rkey,
			       wqe->dma.length - off);
		p += sizeof(struct sroce_reth);
	}
	if (info->flags & SROCE_F_ATMETH) {
		bool cas = op == SROCE_OP_CMP_SWAP;

		sroce_atmeth_set((struct sroce_atmeth *)p,
				 wqe->wr.wr.atomic.remote_addr,
				 wqe->wr.wr.atomic.rkey,
				 cas ? wqe->wr.wr.atomic.swap :
				       wqe->wr.wr.atomic.compare_add,
				 cas ? wqe->wr.wr.atomic.compare_add : 0);
		p += sizeof(struct sroce_atmeth);
	}
	if (info->flags & SROCE_F_IMM) {
		sroce_immdt_set((struct sroce_immdt *)p, wqe->wr.ex.imm_data);
		p += sizeof(struct sroce_immdt);
	}
	if (info->flags & SROCE_F_IETH) {
		sroce_ieth_set((struct sroce_ieth *)p,
			       wqe->wr.ex.invalidate_rkey);
		p += sizeof(struct sroce_ieth);
	}
	return p;
}

/*
 * Whether the end of @wqe needs an ACK at once: a signaled SEND or WRITE
 * completes on it; an unsignaled one only frees its ring slot, which the
 * next ACK asked for does as well (ACKs are cumulative). READ and atomic
 * requests are answered anyway; FLUSH and ATOMIC WRITE ask as before.
 */
static bool sroce_req_wants_ack(struct sroce_qp *qp,
				const struct sroce_send_wqe *wqe)
{
	switch (wqe->wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return qp->sq_sig_all ||
		       (wqe->wr.send_flags & IB_SEND_SIGNALED);
	default:
		return true;
	}
}

/*
 * Whether RC asks for an ACK: at the end of a message that wants one,
 * every SROCE_ACKREQ_EVERY packets (a chunk as often as the packets it
 * stands for would), and on the packet that fills the window, or nothing
 * would open it.
 *
 * In a stream (req.dense: a message started while one that asked was
 * still unanswered) unsignaled messages do not ask: an ACK each was half
 * the packets of a stream of small WRITEs between two hosts. The tail a
 * stream leaves unasked is probed (sroce_req_probe), which ends the
 * stream. Messages far apart (an ACK came back before the next one) each
 * ask at their end, as before, and need no probe.
 */
static bool sroce_req_ackreq(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			     bool first, bool last, bool chunk, u32 span)
{
	u32 limit = sroce_psn_add(qp->comp.psn, qp->req.window);
	bool ask;

	if (qp->ibqp.qp_type != IB_QPT_RC)
		return false;
	if (first && sroce_psn_cmp(qp->req.ask_psn, qp->comp.psn) >= 0)
		qp->req.dense = true;
	ask = (last && (!qp->req.dense || sroce_req_wants_ack(qp, wqe))) ||
	      (qp->req.noack += (chunk ? span : 1)) >= SROCE_ACKREQ_EVERY ||
	      sroce_psn_cmp(sroce_psn_add(qp->req.psn, span), limit) >= 0;
	if (ask) {
		qp->req.noack = 0;
		qp->req.ask_psn = sroce_psn_add(qp->req.psn, span - 1);
	}
	return ask;
}

/*
 * The first packet of @wqe is out: all its PSNs, so that an ACK may
 * complete it even while it is sent again.
 */
static void sroce_req_wqe_psns(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			       u32 span)
{
	u32 len = wqe->dma.length;

	wqe->first_psn = qp->req.psn;
	wqe->last_psn = sroce_psn_add(qp->req.psn, span - 1);
	if (wqe->mask & (SROCE_F_SEND | SROCE_F_WRITE) && len)
		wqe->last_psn = sroce_psn_add(qp->req.psn,
					      DIV_ROUND_UP(len, qp->mtu) - 1);
}

/* Build and send one packet of @wqe; returns the PSNs it takes, or <0. */
static int sroce_req_packet(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	u32 len = wqe->dma.length, off = qp->req.offset, payload = 0, span = 1;
	bool first = off == 0, last = true, ackreq, se, chunk = false;
	const struct sroce_opcode_info *info;
	struct sroce_frags frags;
	u8 op, pad = 0, class;
	struct sroce_bth *bth;
	struct sk_buff *skb;
	u8 *p;
	int err;

	if (wqe->mask & (SROCE_F_SEND | SROCE_F_WRITE)) {
		payload = sroce_req_payload(qp, wqe, &frags, &chunk);
		last = off + payload == len;
		pad = chunk ? 0 : -payload & 3;
		span = chunk ? DIV_ROUND_UP(payload, qp->mtu) : 1;
	} else if (wqe->mask & SROCE_F_READ) {
		span = max_t(u32, DIV_ROUND_UP(len - off, qp->mtu), 1);
	}
	op = sroce_req_opcode(wqe, first, last);
	info = &sroce_opcodes[op];
	class = qp->ibqp.qp_type == IB_QPT_UC ? SROCE_OP_UC : SROCE_OP_RC;

	skb = sroce_skb_alloc(qp, &qp->av,
			      info->hdr_len + (chunk ? 0 : payload + pad));
	if (!skb) {
		if (chunk)
			sroce_frags_release(&frags);
		return -ENOMEM;
	}

	ackreq = sroce_req_ackreq(qp, wqe, first, last, chunk, span);

	se = last && (wqe->wr.send_flags & IB_SEND_SOLICITED) &&
	     (info->flags & SROCE_F_COMP);
	bth = (struct sroce_bth *)skb->data;
	sroce_bth_set(bth, class | op, sroce_bth_flags(se, pad),
		      qp->attr.dest_qp_num, qp->req.psn, ackreq);
	p = sroce_req_ext_hdrs(wqe, info, op, off, (u8 *)(bth + 1));

	if (chunk) {
		sroce_frags_attach(skb, &frags);
		sroce_pkt(skb)->span = span;
	} else if (payload) {
		err = wqe->wr.send_flags & IB_SEND_INLINE ? 0 :
		      sroce_sge_copy(qp, wqe->dma.sge, wqe->dma.num_sge, off,
				     p, payload, false);
		if (err) {
			kfree_skb(skb);
			/* -EAGAIN: an ODP page on its way, sent later */
			return err == -EAGAIN ? err : -EFAULT;
		}
		if (wqe->wr.send_flags & IB_SEND_INLINE)
			memcpy(p, wqe->dma.inline_data + off, payload);
		memset(p + payload, 0, pad);
	}

	/* -EAGAIN: dropped on the way out (a full qdisc); sent again soon. */
	err = sroce_xmit(qp, &qp->av, qp->src_port, skb);
	if (err)
		return err;
	sroce_cc_sent(qp, info->hdr_len + payload + pad);

	if (first)
		sroce_req_wqe_psns(qp, wqe, span);
	qp->req.offset += payload;
	if (last)
		qp->req.offset = 0;
	return span;
}

/*
 * UD and GSI: one packet, addressed by the AH the WQE names (its number,
 * checked against the QP's PD; the AV is copied under the table lock, so a
 * concurrent destroy cannot pull it away mid-send). Returns the WQE's
 * completion status, or -ENOMEM or -EAGAIN: not sent, nothing advanced.
 */
static int sroce_req_ud(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 len = wqe->dma.length, mtu = ib_mtu_enum_to_int(sdev->port_mtu);
	u32 dqpn = wqe->wr.wr.ud.remote_qpn & SROCE_QPN_MASK;
	u32 qkey = wqe->wr.wr.ud.remote_qkey;
	bool imm = wqe->wr.opcode == IB_WR_SEND_WITH_IMM;
	u8 op = imm ? SROCE_OP_SEND_ONLY_IMM : SROCE_OP_SEND_ONLY;
	u8 pad = -len & 3;
	struct sroce_deth *deth;
	struct sroce_bth *bth;
	struct sroce_ah *ah;
	struct sroce_av av;
	struct sk_buff *skb;
	unsigned long flags;
	bool found = false;
	int err;
	u8 *p;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	ah = xa_load(&sdev->ah_xa, wqe->wr.wr.ud.ah_num);
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		av = ah->av;
		found = true;
	}
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	if (!found)
		return IB_WC_LOC_QP_OP_ERR;
	/*
	 * A UD message is one packet. One larger than the port's MTU is not
	 * sent at all, and that is no error (IBA C10-93.1.1, which rdma_rxe
	 * follows too).
	 */
	if (len > mtu)
		return IB_WC_SUCCESS;

	skb = sroce_skb_alloc(qp, &av, sroce_opcodes[op].hdr_len +
			      sizeof(*deth) + len + pad);
	/*
	 * No memory for it: sent after a back-off, as an RC packet is. Not
	 * dropped: a MAD the CM sends once and never again (a DREQ whose
	 * sender destroys its ID at once) would leave the peer connected
	 * for good (rping's server in rc/fail_random); nor an error
	 * completion, which would end the MAD layer's exchange.
	 */
	if (!skb)
		return -ENOMEM;
	bth = (struct sroce_bth *)skb->data;
	sroce_bth_set(bth, SROCE_OP_UD | op,
		      sroce_bth_flags(wqe->wr.send_flags & IB_SEND_SOLICITED,
				      pad),
		      dqpn, qp->req.psn, false);
	deth = (struct sroce_deth *)(bth + 1);
	/* A Q_Key with the high bit set means: use the QP's own. */
	sroce_deth_set(deth, qkey & 0x80000000 ? qp->attr.qkey : qkey,
		       qp->ibqp.qp_num);
	p = (u8 *)(deth + 1);
	if (imm) {
		sroce_immdt_set((struct sroce_immdt *)p, wqe->wr.ex.imm_data);
		p += sizeof(struct sroce_immdt);
	}
	err = !len || wqe->wr.send_flags & IB_SEND_INLINE ? 0 :
	      sroce_sge_copy(qp, wqe->dma.sge, wqe->dma.num_sge, 0, p, len,
			     false);
	if (err) {
		kfree_skb(skb);
		/* -EAGAIN: an ODP page on its way, sent later */
		return err == -EAGAIN ? err : IB_WC_LOC_PROT_ERR;
	}
	if (len && wqe->wr.send_flags & IB_SEND_INLINE)
		memcpy(p, wqe->dma.inline_data, len);
	memset(p + len, 0, pad);
	sroce_xmit(qp, &av, rdma_get_udp_sport(av.flow_label,
					       qp->ibqp.qp_num, dqpn), skb);
	sroce_count(sdev, SROCE_CNT_RDMA_SENDS);
	return IB_WC_SUCCESS;
}

/*
 * Send the newest packet again, asking for an ACK: messages sent without
 * asking (sroce_req_ackreq) and not followed by one that asks would
 * otherwise wait for the ACK timeout. The responder takes it as a
 * duplicate and acknowledges all it has (IBA C9-105); if packets were
 * lost, it NAKs or the ACK timeout resends them as usual.
 */
static void sroce_req_probe(struct sroce_qp *qp)
{
	u32 psn = sroce_psn_add(qp->req.psn_max, -1);
	u32 index = sroce_queue_prev(&qp->sq, qp->req.wqe_index);
	struct sroce_send_wqe *wqe = sroce_sq_copy(qp, index);

	qp->req.noack = 0;
	/* Only between whole messages, with none sent again under way. */
	if (qp->req.offset || qp->req.psn != qp->req.psn_max ||
	    qp->req.wqe_index == qp->sq.index ||
	    wqe->state != SROCE_WQE_SENT ||
	    !(wqe->mask & (SROCE_F_SEND | SROCE_F_WRITE)) ||
	    sroce_psn_cmp(psn, wqe->first_psn) < 0 ||
	    sroce_psn_cmp(psn, wqe->last_psn) > 0)
		return;
	qp->req.psn = psn;
	qp->req.offset = sroce_psn_diff(psn, wqe->first_psn) * qp->mtu;
	qp->req.noack = SROCE_ACKREQ_EVERY;	/* so that it asks */
	if (sroce_req_packet(qp, wqe) > 0)
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_ACK_PROBES);
	qp->req.psn = qp->req.psn_max;
	qp->req.offset = 0;
	qp->req.noack = 0;
	qp->req.dense = false;	/* the stream has ended */
}

/* Packets went out unasked: see a while later whether more followed. */
static void sroce_req_probe_arm(struct sroce_qp *qp)
{
	if (timer_pending(&qp->req.probe_timer) || READ_ONCE(qp->dying))
		return;
	qp->req.probe_psn = qp->req.psn_max;
	mod_timer(&qp->req.probe_timer, jiffies + sroce_comp_probe_delay(qp));
}

static void sroce_req_probe_timeout(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, req.probe_timer);

	WRITE_ONCE(qp->req.probe_due, true);
	sroce_qp_sched(qp);
}

void sroce_req_timer_init(struct sroce_qp *qp)
{
	timer_setup(&qp->req.probe_timer, sroce_req_probe_timeout, 0);
}

/*
 * The probe timer ran out. Nothing to do if a packet asked since or all
 * is acknowledged, or if a newer wait started. Packets still go out: the
 * next one asks (a slow trickle of unsignaled messages must not wait for
 * 64 packets and run into the ACK timeout). A tail left alone: probe it.
 */
static void sroce_req_tail(struct sroce_qp *qp)
{
	if (!qp->req.noack || qp->comp.psn == qp->req.psn_max ||
	    timer_pending(&qp->req.probe_timer) || qp->req.need_retry ||
	    qp->comp.rnr_wait || qp->req.backoff)
		return;
	if (qp->req.probe_psn != qp->req.psn_max) {
		qp->req.noack = SROCE_ACKREQ_EVERY;
		sroce_req_probe_arm(qp);
		return;
	}
	sroce_req_probe(qp);
}

/* Whether a back-off still stops the sending; if so, the QP runs at its end. */
static bool sroce_req_backing_off(struct sroce_qp *qp)
{
	if (!qp->req.backoff)
		return false;
	if (sroce_qp_wait_until(qp, qp->req.resume))
		return true;
	qp->req.backoff = false;
	return false;
}

/*
 * The WQE to work on next, fetched from the ring if need be; NULL if there
 * is none or the QP may not start one. A timeout, NAK or late ACK first
 * moves the send point back.
 */
static struct sroce_send_wqe *sroce_req_next_wqe(struct sroce_qp *qp, bool rc)
{
	if (qp->req.need_retry) {
		/* A timeout, NAK or RNR wait: from the acknowledged point. */
		qp->req.need_retry = false;
		sroce_req_rewind(qp);
	} else if (rc && sroce_psn_cmp(qp->comp.psn, qp->req.psn) > 0) {
		/* A late ACK passed the packet a resend would send next. */
		sroce_req_rewind(qp);
		sroce_req_resume(qp);
	}
	if (qp->comp.rnr_wait || sroce_req_backing_off(qp))
		return NULL;

	if (qp->req.wqe_index == qp->req.fetched) {
		if (qp->state != IB_QPS_RTS)
			return NULL;	/* SQD: no new WQE */
		if (sroce_queue_peer_index(&qp->sq) == qp->req.fetched)
			return NULL;
		/*
		 * The copy ring is full: every slot holds a WQE not yet
		 * completed. Only a producer index moved backwards gets
		 * here; fetching would overwrite WQEs still under way.
		 */
		if (sroce_queue_next(&qp->sq, qp->req.fetched) == qp->sq.index)
			return NULL;
		sroce_req_fetch(qp);
	}
	return sroce_sq_copy(qp, qp->req.wqe_index);
}

static void sroce_req_wqe_done(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	wqe->state = SROCE_WQE_DONE;
	qp->req.wqe_index = sroce_queue_next(&qp->sq, qp->req.wqe_index);
}

/*
 * A local operation (bind, fast register, local invalidate); false while it
 * must wait. They run once everything before them has completed, so they
 * cannot change memory an earlier WQE of this QP still uses.
 */
static bool sroce_req_local(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	if (qp->sq.index != qp->req.wqe_index) {
		/* Waiting for the ACK of an unasked tail: ask for it now. */
		if (qp->req.noack)
			sroce_req_probe(qp);
		return false;
	}
	if (wqe->wr.opcode == IB_WR_BIND_MW)
		wqe->status = sroce_bind_mw(qp, wqe);
	else if (wqe->wr.opcode == IB_WR_REG_MR)
		wqe->status = sroce_reg_mr(qp, wqe);
	else if (sroce_invalidate(qp, wqe->wr.ex.invalidate_rkey, false))
		wqe->status = IB_WC_LOC_QP_OP_ERR;
	sroce_req_wqe_done(qp, wqe);
	return true;
}

/* Whether the window, a fence and the READ/atomic limit let @wqe go on. */
static bool sroce_req_may_send(struct sroce_qp *qp,
			       const struct sroce_send_wqe *wqe, bool rc)
{
	u32 limit = sroce_psn_add(qp->comp.psn, qp->req.window);

	if (rc && sroce_psn_cmp(qp->req.psn, limit) >= 0)
		return false;
	if (rc && qp->req.offset == 0 &&
	    (wqe->wr.send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
		return false;
	return !((wqe->mask & SROCE_F_RD_ATOMIC) && qp->req.offset == 0 &&
		 qp->req.rd_atomic >= max_t(u32, qp->attr.max_rd_atomic, 1));
}

/* A packet of @wqe that took @span PSNs is out. */
static void sroce_req_sent(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			   int span, bool rc)
{
	if (qp->req.offset == 0) {
		/* The whole message is out. */
		if (wqe->mask & SROCE_F_SEND)
			sroce_count(to_sdev(qp->ibqp.device),
				    SROCE_CNT_RDMA_SENDS);
		if (wqe->mask & SROCE_F_RD_ATOMIC)
			qp->req.rd_atomic++;
		wqe->state = rc ? SROCE_WQE_SENT : SROCE_WQE_DONE;
		qp->req.wqe_index = sroce_queue_next(&qp->sq,
						     qp->req.wqe_index);
	}
	qp->req.psn = sroce_psn_add(qp->req.psn, span);
	if (sroce_psn_cmp(qp->req.psn, qp->req.psn_max) > 0)
		qp->req.psn_max = qp->req.psn;
	if (rc)
		sroce_comp_arm(qp);
}

/*
 * Nothing more is sent for SROCE_BACKOFF_US: the QP runs again then
 * (sroce_qp_wake_at()), as a READ's responses wait for a full qdisc.
 */
static void sroce_req_backoff(struct sroce_qp *qp)
{
	qp->req.backoff = true;
	qp->req.resume = ktime_add_us(ktime_get(), SROCE_BACKOFF_US);
	sroce_qp_wake_at(qp, qp->req.resume);
}

/* One step of the requester: a packet sent or a WQE finished; false: idle. */
static bool sroce_req_step(struct sroce_qp *qp)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	struct sroce_send_wqe *wqe = sroce_req_next_wqe(qp, rc);
	int span;

	if (!wqe)
		return false;
	if (wqe->state == SROCE_WQE_DONE) {
		/* Invalid WQE, or a finished local operation. */
		sroce_req_wqe_done(qp, wqe);
		return true;
	}
	if (wqe->mask & SROCE_F_LOCAL)
		return sroce_req_local(qp, wqe);
	/* The netdev holds enough of our packets: on when it frees some. */
	if (!sroce_txbuf_room(qp))
		return false;
	if (sroce_qp_is_ud(qp)) {
		span = sroce_req_ud(qp, wqe);
		if (span == -ENOMEM || span == -EAGAIN) {
			sroce_req_backoff(qp);
			return false;
		}
		wqe->status = span;
		qp->req.psn = sroce_psn_add(qp->req.psn, 1);
		sroce_req_wqe_done(qp, wqe);
		return true;
	}
	if (!sroce_req_may_send(qp, wqe, rc))
		return false;
	/* Paced to the rate CNPs cut it to (cc.c): on when it may go */
	if (!sroce_cc_may_send(qp))
		return false;

	span = sroce_req_packet(qp, wqe);
	if (span == -EAGAIN || span == -ENOMEM) {
		/*
		 * Not sent (a full qdisc, or no memory for the packet: both
		 * pass), nothing advanced: try again after SROCE_BACKOFF_US,
		 * not after a whole ACK timeout.
		 */
		sroce_req_backoff(qp);
		return false;
	}
	if (span < 0) {
		wqe->status = span == -EFAULT ? IB_WC_LOC_PROT_ERR :
						IB_WC_LOC_QP_OP_ERR;
		wqe->state = SROCE_WQE_DONE;
		return true;
	}
	sroce_req_sent(qp, wqe, span, rc);
	return true;
}

bool sroce_requester(struct sroce_qp *qp, int *budget)
{
	bool progress = false;

	sroce_qp_assert_run(qp);

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return false;
	sroce_cc_react(qp);
	if (READ_ONCE(qp->req.probe_due) && qp->ibqp.qp_type == IB_QPT_RC) {
		WRITE_ONCE(qp->req.probe_due, false);
		sroce_req_tail(qp);
	}
	while (*budget > 0 && sroce_req_step(qp)) {
		progress = true;
		(*budget)--;
		/*
		 * Responses have come: the completer reads them first, so
		 * that a resend stops where they acknowledged and a full
		 * window opens again.
		 */
		if (!skb_queue_empty_lockless(&qp->resp_pkts))
			break;
	}
	/* Packets outstanding that asked for no ACK: a probe may be due. */
	if (qp->req.noack && qp->comp.psn != qp->req.psn_max)
		sroce_req_probe_arm(qp);
	return progress;
}
