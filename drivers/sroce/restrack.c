// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details for "rdma resource show qp|cq|mr ... -dd", as hardware
 * drivers give them: a QP's transport state, a CQ's fill, an MR's pages.
 * The RDMA core holds the object (restrack) while we look; the fields are
 * the run's, read without its token: a snapshot, each value on its own.
 */
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "sroce.h"
#include "queue.h"

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
	u32 v[ARRAY_SIZE(names)] = {
		sroce_queue_size(&cq->queue), sroce_queue_count(&cq->queue),
		READ_ONCE(cq->notify),
	};

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
