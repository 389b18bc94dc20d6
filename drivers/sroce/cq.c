// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues. A CQ is a ring that sroce produces into; user space
 * (or, for kernel consumers, sroce_poll_cq) consumes from it. User CQ slots
 * hold a struct ib_uverbs_wc, kernel CQ slots a struct ib_wc.
 */
#include "sroce.h"
#include "cq.h"
#include "queue.h"
#include "trace.h"

#define SROCE_CQE_SIZE	max(sizeof(struct ib_wc), sizeof(struct ib_uverbs_wc))

static int sroce_cq_check_size(struct sroce_dev *sdev, int cqe)
{
	return cqe < 1 || cqe > sdev->attr.max_cqe ? -EINVAL : 0;
}

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_resp resp = {};
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (sroce_cq_check_size(sdev, attr->cqe) ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (udata && (udata->outlen < sizeof(resp) ||
		      !sroce_udata_in_empty(udata)))
		return -EINVAL;

	if (atomic_inc_return(&sdev->num_cq) > sdev->attr.max_cq) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->is_user = !!udata;
	err = sroce_queue_init(&cq->queue, SROCE_Q_TO_USER, attr->cqe,
			       SROCE_CQE_SIZE);
	if (err)
		goto err_count;

	if (udata) {
		err = sroce_queue_export(&cq->queue, sroce_udata_uctx(udata),
					 &resp.mi);
		if (err)
			goto err_queue;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_queue;
	}
	ibcq->cqe = sroce_queue_size(&cq->queue);
	return 0;

err_queue:
	sroce_queue_cleanup(&cq->queue);
err_count:
	mutex_destroy(&cq->resize_mutex);
	atomic_dec(&sdev->num_cq);
	return err;
}

/*
 * Replace the ring by one of the new size, keeping the entries not yet
 * polled. The old ring stays mapped until user space unmaps it.
 *
 * uverbs lets two threads resize one CQ at once (it only read-locks the
 * object): the mutex makes each resize see and clean up only its own rings.
 */
static int sroce_cq_resize(struct ib_cq *ibcq, int cqe,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_queue oq;
	int err;

	if (sroce_cq_check_size(sdev, cqe))
		return -EINVAL;
	if (udata && (udata->outlen < sizeof(resp) ||
		      !sroce_udata_in_empty(udata)))
		return -EINVAL;

	err = sroce_queue_resize(&cq->queue, &cq->lock, cqe,
				 udata ? sroce_udata_uctx(udata) : NULL,
				 &resp.mi, &oq);
	if (err)
		return err;
	ibcq->cqe = sroce_queue_size(&cq->queue);
	if (udata)
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
	return sroce_queue_resize_end(&cq->queue, &oq, err);
}

int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	mutex_lock(&cq->resize_mutex);
	err = sroce_cq_resize(ibcq, cqe, udata);
	mutex_unlock(&cq->resize_mutex);
	return err;
}

int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	sroce_queue_cleanup(&cq->queue);
	mutex_destroy(&cq->resize_mutex);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	u8 want = flags & IB_CQ_SOLICITED_MASK;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* NEXT_COMP covers SOLICITED; an armed NEXT_COMP is never narrowed. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = want;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    sroce_queue_count(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* Kernel consumers: entries are struct ib_wc. */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	const void *slot;
	int n = 0;

	if (cq->is_user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries) {
		slot = sroce_queue_poll_slot(&cq->queue);
		if (!slot)
			break;
		memcpy(&wc[n++], slot, sizeof(*wc));
		sroce_queue_poll_advance(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Post one completion. A full CQ is an overrun: the entry is lost and the
 * caller gets an error. The consumer gets IB_EVENT_CQ_ERR the first time
 * only: each event is an allocation in the uverbs async queue, which a
 * process that never reads events would otherwise grow without bound with
 * every failed post. Returns 0 or -EOVERFLOW.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	struct ib_uverbs_wc *uwc;
	struct ib_event ev;
	unsigned long flags;
	bool fire = false;
	void *slot;

	spin_lock_irqsave(&cq->lock, flags);
	slot = sroce_queue_produce_slot(&cq->queue);
	if (!slot) {
		fire = !cq->overrun;
		cq->overrun = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		trace_sroce_cq_overflow(cq->ibcq.device->index,
					wc->qp ? wc->qp->qp_num : 0,
					cq->ibcq.cqe);
		if (fire && cq->ibcq.event_handler) {
			ev.device = cq->ibcq.device;
			ev.element.cq = &cq->ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return -EOVERFLOW;
	}

	if (cq->is_user) {
		uwc = slot;
		memset(uwc, 0, sizeof(*uwc));
		uwc->wr_id = wc->wr_id;
		uwc->status = wc->status;
		uwc->opcode = wc->opcode;
		uwc->vendor_err = wc->vendor_err;
		uwc->byte_len = wc->byte_len;
		/* imm_data (network order) and invalidate_rkey share the union. */
		uwc->ex.imm_data = wc->ex.imm_data;
		uwc->qp_num = wc->qp->qp_num;
		uwc->src_qp = wc->src_qp;
		uwc->wc_flags =
			(wc->wc_flags & IB_WC_GRH ? SROCE_UWC_GRH : 0) |
			(wc->wc_flags & IB_WC_WITH_IMM ? SROCE_UWC_WITH_IMM : 0) |
			(wc->wc_flags & IB_WC_WITH_INVALIDATE ?
			 SROCE_UWC_WITH_INV : 0);
		uwc->pkey_index = wc->pkey_index;
		uwc->slid = wc->slid;
		uwc->sl = wc->sl;
		if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
			uwc->sl = wc->network_hdr_type == RDMA_NETWORK_IPV4 ?
				  SROCE_UWC_SL_ROCEV2_IPV4 :
				  SROCE_UWC_SL_ROCEV2_IPV6;
		uwc->dlid_path_bits = wc->dlid_path_bits;
		uwc->port_num = wc->port_num;
	} else {
		memcpy(slot, wc, sizeof(*wc));
	}
	sroce_queue_advance(&cq->queue);

	/* A solicited-only arm also fires for unsuccessful completions. */
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}
