// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details for "rdma resource show qp|cq|mr ... -dd", as hardware
 * drivers give them: a QP's transport state, a CQ's fill, an MR's pages;
 * and for "... -r" (CAP_NET_ADMIN) the raw dump, where hardware drivers put
 * their device's context: ours is our state, in the layouts of
 * uapi/sroce_res_raw.h.
 *
 * The RDMA core holds the object (restrack) while we look; the fields are
 * the run's, read without its token: a snapshot, each value on its own. A
 * CQ's ring is read under its lock, since a resize swaps and frees it.
 */
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "sroce.h"
#include "queue.h"
#include "restrack.h"
#include "sroce_res_raw.h"

/* The driver's table: one nested attribute that iproute2 prints with -dd. */
static int sroce_put_u32s(struct sk_buff *msg, const char *const *names,
			  const u32 *vals, int n)
{
	struct nlattr *table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	int i;

	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (rdma_nl_put_driver_u32(msg, names[i], vals[i])) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	static const char *const names[] = {
		"sq_psn", "sq_psn_unacked", "rq_psn", "msn", "window",
		"rd_atomic_out", "sq_posted", "retry_left", "rnr_retry_left",
		"req_held", "resp_held",
	};
	struct sroce_qp *qp = to_sqp(ibqp);
	u32 v[ARRAY_SIZE(names)] = {
		READ_ONCE(qp->req.psn), READ_ONCE(qp->comp.psn),
		READ_ONCE(qp->resp.psn), READ_ONCE(qp->resp.msn),
		READ_ONCE(qp->req.window), READ_ONCE(qp->req.rd_atomic),
		qp->sq.buf ? sroce_queue_count(&qp->sq) : 0,
		READ_ONCE(qp->comp.retry_left), READ_ONCE(qp->comp.rnr_left),
		skb_queue_len_lockless(&qp->req_held.q),
		skb_queue_len_lockless(&qp->resp_held.q),
	};

	return sroce_put_u32s(msg, names, v, ARRAY_SIZE(names));
}

int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	static const char *const names[] = { "depth", "unpolled", "armed" };
	struct sroce_cq *cq = to_scq(ibcq);
	u32 v[ARRAY_SIZE(names)];

	spin_lock_irq(&cq->lock);
	v[0] = sroce_queue_size(&cq->queue);
	v[1] = sroce_queue_count(&cq->queue);
	v[2] = cq->notify;
	spin_unlock_irq(&cq->lock);
	return sroce_put_u32s(msg, names, v, ARRAY_SIZE(names));
}

int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	static const char *const names[] = { "pages", "page_size", "windows" };
	struct sroce_mr *mr = to_smr(ibmr);
	u32 v[ARRAY_SIZE(names)] = {
		READ_ONCE(mr->npages), 1U << mr->page_shift,
		atomic_read(&mr->num_mw),
	};

	return sroce_put_u32s(msg, names, v, ARRAY_SIZE(names));
}

static void sroce_raw_hdr(struct sroce_raw_hdr *h, enum sroce_raw_kind kind,
			  size_t size)
{
	h->magic = cpu_to_le16(SROCE_RAW_MAGIC);
	h->version = SROCE_RAW_VERSION;
	h->kind = kind;
	h->size = cpu_to_le32(size);
}

/* A ring's size and its two indices, zeros for a QP without that ring. */
static void sroce_raw_ring(const struct sroce_queue *q, __le32 *size,
			   __le32 *own, __le32 *peer)
{
	if (!q->buf)
		return;
	*size = cpu_to_le32(sroce_queue_size(q));
	*own = cpu_to_le32(q->index & q->index_mask);
	*peer = cpu_to_le32(sroce_queue_peer_index(q));
}

static u32 sroce_raw_qp_flags(struct sroce_qp *qp)
{
	u32 f = 0;

	if (qp->is_user)
		f |= SROCE_RAW_QP_USER;
	if (qp->sq_sig_all)
		f |= SROCE_RAW_QP_SIG_ALL;
	if (qp->ibqp.srq)
		f |= SROCE_RAW_QP_SRQ;
	if (READ_ONCE(qp->req.need_retry))
		f |= SROCE_RAW_QP_NEED_RETRY;
	if (READ_ONCE(qp->comp.timed_out))
		f |= SROCE_RAW_QP_TIMED_OUT;
	if (READ_ONCE(qp->comp.rnr_wait))
		f |= SROCE_RAW_QP_RNR_WAIT;
	if (READ_ONCE(qp->resp.nak_sent))
		f |= SROCE_RAW_QP_NAK_SENT;
	return f;
}

static void sroce_raw_qp_attr(struct sroce_raw_qp *r, struct sroce_qp *qp)
{
	const struct ib_qp_attr *a = &qp->attr;

	r->qpn = cpu_to_le32(qp->ibqp.qp_num);
	r->dest_qpn = cpu_to_le32(READ_ONCE(a->dest_qp_num));
	r->type = qp->ibqp.qp_type;
	r->state = READ_ONCE(qp->state);
	r->path_mtu = READ_ONCE(a->path_mtu);
	r->timeout = READ_ONCE(a->timeout);
	r->retry_cnt = READ_ONCE(a->retry_cnt);
	r->rnr_retry = READ_ONCE(a->rnr_retry);
	r->max_rd_atomic = cpu_to_le32(READ_ONCE(a->max_rd_atomic));
	r->max_dest_rd_atomic = cpu_to_le32(READ_ONCE(a->max_dest_rd_atomic));
	r->flags = cpu_to_le32(sroce_raw_qp_flags(qp));
}

static void sroce_raw_qp_transport(struct sroce_raw_qp *r, struct sroce_qp *qp)
{
	r->retry_left = READ_ONCE(qp->comp.retry_left);
	r->rnr_retry_left = READ_ONCE(qp->comp.rnr_left);
	r->sq_fetched = cpu_to_le32(READ_ONCE(qp->req.fetched));
	r->sq_wqe = cpu_to_le32(READ_ONCE(qp->req.wqe_index));
	r->req_psn = cpu_to_le32(READ_ONCE(qp->req.psn));
	r->req_psn_max = cpu_to_le32(READ_ONCE(qp->req.psn_max));
	r->req_offset = cpu_to_le32(READ_ONCE(qp->req.offset));
	r->req_window = cpu_to_le32(READ_ONCE(qp->req.window));
	r->req_rd_atomic = cpu_to_le32(READ_ONCE(qp->req.rd_atomic));
	r->comp_psn = cpu_to_le32(READ_ONCE(qp->comp.psn));
	r->resp_psn = cpu_to_le32(READ_ONCE(qp->resp.psn));
	r->resp_msn = cpu_to_le32(READ_ONCE(qp->resp.msn));
	r->resp_offset = cpu_to_le32(READ_ONCE(qp->resp.offset));
	r->resp_resid = cpu_to_le32(READ_ONCE(qp->resp.resid));
	r->req_pkts = cpu_to_le32(skb_queue_len_lockless(&qp->req_pkts));
	r->resp_pkts = cpu_to_le32(skb_queue_len_lockless(&qp->resp_pkts));
	r->req_held = cpu_to_le32(skb_queue_len_lockless(&qp->req_held.q));
	r->resp_held = cpu_to_le32(skb_queue_len_lockless(&qp->resp_held.q));
}

int sroce_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_raw_qp r = {};

	sroce_raw_hdr(&r.hdr, SROCE_RAW_QP, sizeof(r));
	sroce_raw_qp_attr(&r, qp);
	sroce_raw_qp_transport(&r, qp);
	sroce_raw_ring(&qp->sq, &r.sq_size, &r.sq_cons, &r.sq_prod);
	if (!ibqp->srq)
		sroce_raw_ring(&qp->rq, &r.rq_size, &r.rq_cons, &r.rq_prod);
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(r), &r);
}

int sroce_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_raw_cq r = {};

	sroce_raw_hdr(&r.hdr, SROCE_RAW_CQ, sizeof(r));
	r.cqn = cpu_to_le32(ibcq->res.id);
	r.user = cq->is_user;
	spin_lock_irq(&cq->lock);
	sroce_raw_ring(&cq->queue, &r.size, &r.prod, &r.cons);
	r.notify = cq->notify;
	r.overrun = cq->overrun;
	spin_unlock_irq(&cq->lock);
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(r), &r);
}

int sroce_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_raw_mr r = {};

	sroce_raw_hdr(&r.hdr, SROCE_RAW_MR, sizeof(r));
	r.lkey = cpu_to_le32(ibmr->lkey);
	r.rkey = cpu_to_le32(ibmr->rkey);
	/* a kernel MR's iova is a kernel address (virtual DMA): not shown */
	if (mr->type == SROCE_MR_USER || mr->type == SROCE_MR_ODP)
		r.iova = cpu_to_le64(READ_ONCE(mr->iova));
	r.length = cpu_to_le64(READ_ONCE(mr->length));
	r.access = cpu_to_le32(READ_ONCE(mr->access));
	r.pages = cpu_to_le32(READ_ONCE(mr->npages));
	r.max_pages = cpu_to_le32(mr->max_pages);
	r.page_shift = cpu_to_le32(mr->page_shift);
	r.windows = cpu_to_le32(atomic_read(&mr->num_mw));
	r.type = mr->type;
	r.valid = READ_ONCE(mr->state) == SROCE_MR_VALID;
	r.dead = READ_ONCE(mr->dead);
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(r), &r);
}
