// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting work requests. User space writes its WQEs into the mapped rings
 * itself and rings the send queue's doorbell (post_send with an empty
 * list); kernel consumers (rdma_cm, NVMe, NFS, iSER) call post_send,
 * post_recv and post_srq_recv, which write each request into the same
 * rings in the layout user space uses, so one requester and one responder
 * serve both.
 */
#include "sroce.h"
#include "post.h"
#include "qp.h"
#include "queue.h"
#include "sched.h"

/*
 * Kernel consumers: write @wr and its successors into the ring, as the rxe
 * provider does from user space.
 */
static int sroce_post_recv_ring(struct sroce_queue *q, spinlock_t *lock,
				u32 max_sge, const struct ib_recv_wr *wr,
				const struct ib_recv_wr **bad_wr)
{
	struct sroce_recv_wqe *wqe;
	unsigned long flags;
	int i, err = 0;
	u64 len;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > max_sge) {
			err = -EINVAL;
			break;
		}
		wqe = sroce_queue_post_slot(q);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		wqe->wr_id = wr->wr_id;
		len = 0;
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			len += wr->sg_list[i].length;
		}
		if (len > U32_MAX) {
			err = -EINVAL;
			break;
		}
		wqe->dma.length = len;
		wqe->dma.resid = len;
		wqe->dma.num_sge = wr->num_sge;
		wqe->dma.cur_sge = 0;
		wqe->dma.sge_offset = 0;
		sroce_queue_post_advance(q);
	}
	spin_unlock_irqrestore(lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * Kernel consumers: write each work request into the send ring, in the
 * layout user space uses, so one requester serves both. Inline data is
 * copied from the (kernel) SGE addresses now.
 */
static int sroce_build_kwqe(struct sroce_qp *qp, const struct ib_send_wr *wr,
			    struct sroce_send_wqe *wqe)
{
	u32 i, len = 0;

	if (wr->num_sge < 0 || wr->num_sge > qp->sq_max_sge)
		return -EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	wqe->wr.ex.imm_data = wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		wqe->iova = rdma_wr(wr)->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		wqe->iova = atomic_wr(wr)->remote_addr;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
		break;
	case IB_WR_REG_MR:
		/* Kernel rings only: the requester trusts this pointer. */
		wqe->wr.wr.mw.addr = (uintptr_t)reg_wr(wr)->mr;
		wqe->wr.wr.mw.rkey = reg_wr(wr)->key;
		wqe->wr.wr.mw.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.ah_num = to_sah(ud_wr(wr)->ah)->ah_num;
	}

	if (wr->send_flags & IB_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			u32 n = wr->sg_list[i].length;

			if (n > qp->sq_max_inline - len)
				return -EINVAL;
			memcpy(wqe->dma.inline_data + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr, n);
			len += n;
		}
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
			len += wr->sg_list[i].length;
		}
		wqe->dma.num_sge = wr->num_sge;
	}
	wqe->dma.length = len;
	wqe->dma.resid = len;
	return 0;
}

static int sroce_post_send_kernel(struct sroce_qp *qp,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr **bad_wr)
{
	struct sroce_send_wqe *wqe;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		wqe = sroce_queue_post_slot(&qp->sq);
		if (!wqe) {
			err = -ENOMEM;
			break;
		}
		err = sroce_build_kwqe(qp, wr, wqe);
		if (err)
			break;
		sroce_queue_post_advance(&qp->sq);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	sroce_qp_sched(qp);
	return err;
}

/*
 * User QPs ring the doorbell with an empty list (the WQEs are in the
 * mapped send queue already). Before RTS there is nothing to send, and the
 * IBA makes posting an error there.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (!qp->is_user)
		return sroce_post_send_kernel(qp, wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EINVAL;
	}
	/*
	 * Send (or, in ERROR, flush) right here in the caller's context when
	 * no run is under way: no hand-off to a worker, and what was posted
	 * is on the wire when the doorbell returns. Otherwise the run under
	 * way picks it up.
	 */
	sroce_qp_run_doorbell(qp);
	return 0;
}

int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	if (qp->is_user || ibqp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = sroce_post_recv_ring(&qp->rq, &qp->rq_lock, qp->rq_max_sge,
				   wr, bad_wr);
	/* Posted in ERROR (ib_drain_rq does): flushed by the work. */
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		sroce_qp_sched(qp);
	return err;
}

int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return sroce_post_recv_ring(&srq->queue, &srq->lock, srq->max_sge,
				    wr, bad_wr);
}
