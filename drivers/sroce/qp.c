// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation with the rings user space maps, the IBA state
 * machine with attribute validation, query and destroy.
 */
#include <rdma/ib_cache.h>

#include "sroce.h"
#include "comp.h"
#include "cq.h"
#include "hold.h"
#include "mcast.h"
#include "qp.h"
#include "queue.h"
#include "req.h"
#include "resp.h"
#include "sched.h"
#include "srq.h"
#include "txbuf.h"
#include "verbs.h"
#include "trace.h"

#define SROCE_QPN_MIN		16	/* QPN 1 is the GSI QP; 0 and 2..15 unused */

/*
 * Only the remote bits mean anything to a QP; the MR-only ones are taken
 * and ignored, as RNICs and rdma_rxe do, because applications pass their
 * MR's flags (rdma-core's ODP tests pass IB_ACCESS_ON_DEMAND). The FLUSH
 * bits too: from 6.2 the IB CM puts them in a connected QP's flags when
 * the device reports FLUSH (cm_init_qp_init_attr()), and rdma_cm's
 * rdma_create_qp() passes them on.
 */
#define SROCE_QP_ACCESS_FLAGS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | \
				 IB_ACCESS_ON_DEMAND | \
				 IB_ACCESS_HUGETLB | \
				 SROCE_ACCESS_FLUSH_GLOBAL | \
				 SROCE_ACCESS_FLUSH_PERSISTENT)

static int sroce_qp_check_init(struct sroce_dev *sdev,
			       struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_GSI:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (cap->max_send_wr > sdev->attr.max_qp_wr ||
	    cap->max_send_sge > sdev->attr.max_send_sge ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > sdev->attr.max_qp_wr ||
			   cap->max_recv_sge > sdev->attr.max_recv_sge))
		return -EINVAL;
	return 0;
}

static int sroce_qp_init_queues(struct sroce_qp *qp,
				struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 w;
	int err;

	/*
	 * A send slot holds the WQE header and either the SGEs or the inline
	 * data. Report back what the slot can really hold: the rxe provider
	 * uses the returned max_send_sge and max_inline_data as its limits.
	 */
	w = max_t(u32, cap->max_send_sge * sizeof(struct sroce_sge),
		  cap->max_inline_data);
	w = max_t(u32, w, sizeof(struct sroce_sge));
	qp->sq_max_sge = min_t(u32, w / sizeof(struct sroce_sge), SROCE_MAX_SGE);
	qp->sq_max_inline = min_t(u32, w, SROCE_MAX_INLINE);
	err = sroce_queue_init(&qp->sq, SROCE_Q_FROM_USER, cap->max_send_wr,
			       sizeof(struct sroce_send_wqe) + w);
	if (err)
		return err;
	cap->max_send_wr = sroce_queue_size(&qp->sq);
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;

	if (init->srq) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}

	qp->rq_max_sge = max_t(u32, cap->max_recv_sge, 1);
	err = sroce_queue_init(&qp->rq, SROCE_Q_FROM_USER, cap->max_recv_wr,
			       sizeof(struct sroce_recv_wqe) +
			       qp->rq_max_sge * sizeof(struct sroce_sge));
	if (err) {
		sroce_queue_cleanup(&qp->sq);
		return err;
	}
	cap->max_recv_wr = sroce_queue_size(&qp->rq);
	cap->max_recv_sge = qp->rq_max_sge;
	return 0;
}

bool sroce_qp_is_ud(struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
}

/* Find QP @qpn and take a reference; BHs off or in softirq. */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp;

	xa_lock(&sdev->qp_xa);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock(&sdev->qp_xa);
	return qp;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* The QP entered ERROR: a QP on an SRQ will take no more WQEs from it. */
static void sroce_qp_entered_error(struct sroce_qp *qp)
{
	if (qp->ibqp.srq)
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/*
 * Move to ERROR from the QP's own work, with the affiliated asynchronous
 * event for the cause (0: none, a completion reports it).
 */
void sroce_qp_error(struct sroce_qp *qp, enum ib_event_type why)
{
	sroce_qp_assert_run(qp);
	if (qp->state == IB_QPS_ERR)
		return;
	trace_sroce_qp_state(qp->ibqp.device->index, qp->ibqp.qp_num,
			     qp->state, IB_QPS_ERR);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	qp->attr.qp_state = IB_QPS_ERR;
	if (why)
		sroce_qp_event(qp, why);
	sroce_qp_entered_error(qp);
}

/*
 * The responder's saved READ and atomic replies, max_dest_rd_atomic of
 * them (one at least), allocated when the attribute is set: at the
 * device's limit they would be most of an idle QP's memory. Growing keeps
 * the replies saved so far. Called at create or with the run token held.
 */
static int sroce_qp_size_res(struct sroce_qp *qp, u32 n)
{
	struct sroce_res *res;

	n = max(n, 1U);
	if (n <= qp->resp.nres)
		return 0;
	res = kcalloc(n, sizeof(*res), GFP_KERNEL_ACCOUNT);
	if (!res)
		return -ENOMEM;
	if (qp->resp.res)
		memcpy(res, qp->resp.res, qp->resp.nres * sizeof(*res));
	if (qp->resp.read)
		qp->resp.read = res + (qp->resp.read - qp->resp.res);
	kfree(qp->resp.res);
	qp->resp.res = res;
	qp->resp.nres = n;
	return 0;
}

static int sroce_qp_alloc_state(struct sroce_qp *qp,
				struct ib_qp_init_attr *init)
{
	size_t rq_slot;

	/* Sized by the process: charged to it, and no splat if too big. */
	qp->sq_copy = kvzalloc(sroce_queue_data_size(&qp->sq),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
			       __GFP_RETRY_MAYFAIL);
	rq_slot = sizeof(struct sroce_recv_wqe) + sizeof(struct sroce_sge) *
		  (init->srq ? to_ssrq(init->srq)->max_sge : qp->rq_max_sge);
	qp->resp.wqe = kzalloc(rq_slot, GFP_KERNEL_ACCOUNT);
	if (!qp->sq_copy || !qp->resp.wqe || sroce_qp_size_res(qp, 1) ||
	    sroce_txbuf_init(qp))
		return -ENOMEM;
	qp->tx_cpu = -1;
	qp->tx_xps_cpu = -1;
	return dst_cache_init(&qp->dst_cache, GFP_KERNEL_ACCOUNT);
}

static void sroce_qp_free_state(struct sroce_qp *qp)
{
	dst_cache_destroy(&qp->dst_cache);	/* a no-op if never set up */
	kvfree(qp->sq_copy);
	kfree(qp->resp.wqe);
	kfree(qp->resp.res);
}

/* A new QP's locks, run state, queues of packets and timers. */
static void sroce_qp_init_fields(struct sroce_qp *qp,
				 const struct ib_qp_init_attr *init, bool user)
{
	qp->is_user = user;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	mutex_init(&qp->ctl);
	qp->state = IB_QPS_RESET;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	sroce_qp_sched_init(qp);
	skb_queue_head_init(&qp->req_pkts);
	skb_queue_head_init(&qp->resp_pkts);
	sroce_comp_timers_init(qp);
	sroce_req_timer_init(qp);
	sroce_hold_init(qp);
}

/*
 * A QPN for @qp, and for a GSI QP the port's one GSI slot. The receive
 * path looks QPs up in softirq: BH-safe lock. Only the number is reserved
 * (a NULL entry, which lookups do not see); the QP becomes visible once
 * nothing can fail, so an error path never frees a QP a lookup may hold.
 */
static int sroce_qp_reserve_qpn(struct sroce_dev *sdev, struct sroce_qp *qp,
				const struct ib_qp_init_attr *init)
{
	u32 qpn;
	int err;

	err = xa_alloc_cyclic_bh(&sdev->qp_xa, &qpn, NULL,
				 XA_LIMIT(SROCE_QPN_MIN,
					  SROCE_QPN_MIN + sdev->attr.max_qp - 1),
				 &sdev->qp_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	qp->index = qpn;
	qp->serial = atomic64_inc_return(&sdev->qp_serial);
	qp->ibqp.qp_num = qpn;
	if (init->qp_type == IB_QPT_GSI) {
		/* One GSI QP per port; the wire calls it QP1. */
		if (cmpxchg(&sdev->gsi_index, 0, qpn)) {
			xa_erase_bh(&sdev->qp_xa, qpn);
			return -EBUSY;
		}
		qp->ibqp.qp_num = 1;
		qp->attr.qkey = SROCE_GSI_QKEY;
	}
	return 0;
}

/* A user QP's rings, mapped for the process, and where they are. */
static int sroce_qp_export(struct sroce_qp *qp,
			   const struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct ib_ucontext *uctx = sroce_udata_uctx(udata);
	struct sroce_create_qp_resp resp = {};
	int err;

	if (!init->srq) {
		err = sroce_queue_export(&qp->rq, uctx, &resp.rq_mi);
		if (err)
			return err;
	}
	err = sroce_queue_export(&qp->sq, uctx, &resp.sq_mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = sroce_qp_check_init(sdev, init);
	if (err)
		return err;
	if (udata && (udata->outlen < sizeof(struct sroce_create_qp_resp) ||
		      !sroce_udata_in_empty(udata)))
		return -EINVAL;

	sroce_qp_init_fields(qp, init, !!udata);
	err = sroce_qp_init_queues(qp, init);
	if (err)
		return err;
	err = sroce_qp_alloc_state(qp, init);
	if (err)
		goto err_queues;
	err = sroce_qp_reserve_qpn(sdev, qp, init);
	if (err)
		goto err_queues;
	if (udata) {
		err = sroce_qp_export(qp, init, udata);
		if (err)
			goto err_xa;
	}

	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->mtu = 1024;
	qp->attr.port_num = SROCE_PORT;
	qp->attr.cap = init->cap;
	/* The slot is reserved: this needs no memory and cannot fail. */
	xa_store_bh(&sdev->qp_xa, qp->index, qp, GFP_KERNEL);
	return 0;

err_xa:
	if (init->qp_type == IB_QPT_GSI && sdev->gsi_index == qp->index)
		sdev->gsi_index = 0;
	xa_erase_bh(&sdev->qp_xa, qp->index);
err_queues:
	sroce_txbuf_free(qp);
	sroce_qp_free_state(qp);
	sroce_queue_cleanup(&qp->sq);
	sroce_queue_cleanup(&qp->rq);
	return err;
}

/* Values the core's state machine check does not look at. */
static int sroce_qp_check_attr(struct sroce_dev *sdev, struct sroce_qp *qp,
			       struct ib_qp_attr *attr, int mask,
			       struct sroce_av *av)
{
	enum ib_mtu port_mtu;

	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU) {
		port_mtu = READ_ONCE(sdev->port_mtu);
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > port_mtu)
			return -EINVAL;
	}
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_SQ_PSN) && attr->sq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_RQ_PSN) && attr->rq_psn > SROCE_PSN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > sdev->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > sdev->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SROCE_QP_ACCESS_FLAGS))
		return -EINVAL;
	/* No alternate path: sroce has one port and no path migration. */
	if (mask & IB_QP_ALT_PATH)
		return -EINVAL;
	if ((mask & IB_QP_CAP) &&
	    (attr->cap.max_send_wr != sroce_queue_size(&qp->sq) ||
	     attr->cap.max_recv_wr != (qp->ibqp.srq ? 0 :
				       sroce_queue_size(&qp->rq))))
		return -EINVAL;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(sdev, av, &attr->ah_attr);
	return 0;
}

/*
 * In the ERROR state every outstanding work request completes with
 * IB_WC_WR_FLUSH_ERR, in order: the send WQEs from the oldest not yet
 * completed, and the receive WQEs (the one the responder holds first) if
 * the QP owns its receive queue. Of WQEs not yet copied only
 * wr_id is read from the (untrusted) ring.
 */
void sroce_qp_flush(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};
	struct sroce_send_wqe *swqe;
	struct sroce_recv_wqe *rwqe;
	u32 budget;

	sroce_qp_assert_run(qp);

	skb_queue_purge(&qp->req_pkts);
	skb_queue_purge(&qp->resp_pkts);
	sroce_hold_purge(&qp->req_held);
	sroce_hold_purge(&qp->resp_held);
	qp->comp.rnr_wait = false;
	qp->req.backoff = false;

	/* Bounded: a hostile producer index cannot keep us here. */
	budget = sroce_queue_size(&qp->sq);
	while (budget-- && (swqe = sroce_queue_consume_slot(&qp->sq))) {
		if (qp->sq.index == qp->req.fetched) {
			wc.wr_id = READ_ONCE(swqe->wr.wr_id);
			qp->req.fetched = sroce_queue_next(&qp->sq,
							   qp->req.fetched);
		} else {
			wc.wr_id = sroce_sq_copy(qp, qp->sq.index)->wr.wr_id;
		}
		wc.opcode = IB_WC_SEND;
		sroce_queue_advance(&qp->sq);
		if (sroce_cq_post(to_scq(qp->ibqp.send_cq), &wc, false))
			break;
	}
	qp->req.wqe_index = qp->sq.index;
	qp->req.fetched = qp->sq.index;
	qp->req.offset = 0;
	qp->req.rd_atomic = 0;

	if (qp->ibqp.srq) {
		if (qp->resp.has_wqe) {
			rwqe = (struct sroce_recv_wqe *)qp->resp.wqe;
			wc.wr_id = rwqe->wr_id;
			wc.opcode = IB_WC_RECV;
			qp->resp.has_wqe = false;
			sroce_cq_post(to_scq(qp->ibqp.recv_cq), &wc, false);
		}
		return;
	}
	wc.opcode = IB_WC_RECV;
	if (qp->resp.has_wqe) {
		wc.wr_id = ((struct sroce_recv_wqe *)qp->resp.wqe)->wr_id;
		qp->resp.has_wqe = false;
		sroce_cq_post(to_scq(qp->ibqp.recv_cq), &wc, false);
	}
	budget = sroce_queue_size(&qp->rq);
	while (budget-- && (rwqe = sroce_queue_consume_slot(&qp->rq))) {
		wc.wr_id = READ_ONCE(rwqe->wr_id);
		sroce_queue_advance(&qp->rq);
		if (sroce_cq_post(to_scq(qp->ibqp.recv_cq), &wc, false))
			break;
	}
}

/* Drop what is posted: RESET empties the work queues. */
static void sroce_qp_reset_queues(struct sroce_qp *qp)
{
	skb_queue_purge(&qp->req_pkts);
	skb_queue_purge(&qp->resp_pkts);
	sroce_hold_purge(&qp->req_held);
	sroce_hold_purge(&qp->resp_held);
	sroce_queue_consume_all(&qp->sq);
	if (!qp->ibqp.srq)
		sroce_queue_consume_all(&qp->rq);
	qp->req.fetched = qp->sq.index;
	sroce_req_reset(qp);
	sroce_resp_reset(qp);
}

/* The attributes @mask names, checked already (@av: the new one's). */
static void sroce_qp_apply_attr(struct sroce_qp *qp,
				const struct ib_qp_attr *attr, int mask,
				const struct sroce_av *av)
{
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		qp->attr.pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		qp->av = *av;
		dst_cache_reset(&qp->dst_cache);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->attr.path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		qp->attr.path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->src_port = rdma_get_udp_sport(qp->av.flow_label,
						  qp->ibqp.qp_num,
						  qp->attr.dest_qp_num);

	if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
}

/* From @cur to @new: what each transition resets, starts or flushes. */
static void sroce_qp_set_state(struct sroce_qp *qp, enum ib_qp_state cur,
			       enum ib_qp_state new)
{
	if (new == IB_QPS_RESET && cur != IB_QPS_RESET)
		sroce_qp_reset_queues(qp);
	if (new == IB_QPS_RTR && cur == IB_QPS_INIT)
		sroce_resp_reset(qp);
	if (new == IB_QPS_RTS && cur == IB_QPS_RTR)
		sroce_req_reset(qp);
	if (cur != new)
		trace_sroce_qp_state(qp->ibqp.device->index,
				     qp->ibqp.qp_num, cur, new);
	WRITE_ONCE(qp->state, new);
	qp->attr.qp_state = new;
	if (new == IB_QPS_ERR) {
		sroce_qp_flush(qp);
		if (cur != IB_QPS_ERR)
			sroce_qp_entered_error(qp);
	} else if (new == IB_QPS_RTS) {
		sroce_qp_sched(qp);	/* WQEs may be waiting */
	}
}

int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state cur, new;
	struct sroce_av av;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (!sroce_udata_in_empty(udata))
		return -EINVAL;

	sroce_qp_lock(qp);
	cur = qp->state;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		err = -EINVAL;
		goto out;
	}
	new = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, new, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = sroce_qp_check_attr(sdev, qp, attr, mask, &av);
	if (!err && (mask & IB_QP_MAX_DEST_RD_ATOMIC))
		err = sroce_qp_size_res(qp, attr->max_dest_rd_atomic);
	if (err)
		goto out;

	sroce_qp_apply_attr(qp, attr, mask, &av);
	sroce_qp_set_state(qp, cur, new);
out:
	sroce_qp_unlock(qp);
	return err;
}

int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);

	sroce_qp_lock(qp);
	*attr = qp->attr;
	attr->cur_qp_state = qp->state;
	memset(&attr->ah_attr, 0, sizeof(attr->ah_attr));
	if (qp->av.network_type) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, SROCE_PORT);
		rdma_ah_set_grh(&attr->ah_attr, &qp->av.dgid,
				qp->av.flow_label, qp->av.sgid_index,
				qp->av.hop_limit, qp->av.traffic_class);
		rdma_ah_set_sl(&attr->ah_attr, qp->av.sl);
		memcpy(attr->ah_attr.roce.dmac, qp->av.dmac, ETH_ALEN);
	}
	sroce_qp_unlock(qp);

	attr->cap.max_send_wr = sroce_queue_size(&qp->sq);
	attr->cap.max_send_sge = qp->sq_max_sge;
	attr->cap.max_inline_data = qp->sq_max_inline;
	attr->cap.max_recv_wr = ibqp->srq ? 0 : sroce_queue_size(&qp->rq);
	attr->cap.max_recv_sge = ibqp->srq ? 0 : qp->rq_max_sge;

	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = ibqp->qp_type;
	init->port_num = SROCE_PORT;
	return 0;
}

int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_dev *sdev = to_sdev(ibqp->device);

	/* Packets in a netdev's hands no longer schedule it (not waited for). */
	sroce_txbuf_detach(qp);
	if (ibqp->qp_type == IB_QPT_UD)
		sroce_mcast_detach_qp(qp);
	/* No new lookups; wait for the lookups under way to let go. */
	if (ibqp->qp_type == IB_QPT_GSI)
		WRITE_ONCE(sdev->gsi_index, 0);
	xa_erase_bh(&sdev->qp_xa, qp->index);
	sroce_qp_put(qp);
	wait_for_completion(&qp->released);

	/* Nothing can schedule the work now but its timers and itself. */
	WRITE_ONCE(qp->dying, true);
	timer_delete_sync(&qp->comp.retrans_timer);
	hrtimer_cancel(&qp->comp.rnr_timer);
	timer_delete_sync(&qp->req.probe_timer);
	hrtimer_cancel(&qp->hold_timer);
	cancel_work_sync(&qp->work);
	/* Every run tells its loopback peer before it returns. */
	WARN_ON_ONCE(qp->kick.qp);
	timer_delete_sync(&qp->comp.retrans_timer);
	hrtimer_cancel(&qp->comp.rnr_timer);
	timer_delete_sync(&qp->req.probe_timer);
	hrtimer_cancel(&qp->hold_timer);

	skb_queue_purge(&qp->req_pkts);
	skb_queue_purge(&qp->resp_pkts);
	sroce_hold_purge(&qp->req_held);
	sroce_hold_purge(&qp->resp_held);
	kfree_skb(qp->spare);
	sroce_txbuf_free(qp);
	sroce_qp_free_state(qp);
	sroce_queue_cleanup(&qp->sq);
	sroce_queue_cleanup(&qp->rq);
	mutex_destroy(&qp->ctl);
	return 0;
}
