// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues: create, modify (limit, resize), query, destroy.
 * Kernel consumers post into them through post.c.
 */
#include "sroce.h"
#include "queue.h"
#include "srq.h"

static size_t sroce_recv_wqe_size(u32 max_sge)
{
	return sizeof(struct sroce_recv_wqe) + max_sge * sizeof(struct sroce_sge);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (attr->max_wr < 1 || attr->max_wr > sdev->attr.max_srq_wr ||
	    attr->max_sge < 1 || attr->max_sge > sdev->attr.max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && (udata->outlen < sizeof(resp) ||
		      !sroce_udata_in_empty(udata)))
		return -EINVAL;

	spin_lock_init(&srq->lock);
	mutex_init(&srq->resize_mutex);
	srq->is_user = !!udata;
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	err = sroce_queue_init(&srq->queue, SROCE_Q_FROM_USER, attr->max_wr,
			       sroce_recv_wqe_size(attr->max_sge));
	if (err)
		return err;

	err = xa_alloc_cyclic(&sdev->srq_xa, &srq->srq_num, srq,
			      XA_LIMIT(1, sdev->attr.max_srq), &sdev->srq_next,
			      GFP_KERNEL);
	if (err < 0) {
		err = err == -EBUSY ? -ENOMEM : err;
		goto err_queue;
	}

	if (udata) {
		err = sroce_queue_export(&srq->queue, sroce_udata_uctx(udata),
					 &resp.mi);
		if (err)
			goto err_xa;
		resp.srq_num = srq->srq_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_xa;
	}
	attr->max_wr = sroce_queue_size(&srq->queue);
	return 0;

err_xa:
	xa_erase(&sdev->srq_xa, srq->srq_num);
err_queue:
	sroce_queue_cleanup(&srq->queue);
	mutex_destroy(&srq->resize_mutex);
	return err;
}

/*
 * IB_SRQ_MAX_WR: move the posted WQEs into a ring of the new size, under
 * resize_mutex (uverbs lets two threads modify one SRQ).
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct sroce_modify_srq_cmd cmd = {};
	struct sroce_mminfo mi = {};
	struct sroce_queue oq;
	int err;

	lockdep_assert_held(&srq->resize_mutex);
	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	err = sroce_queue_resize(&srq->queue, &srq->lock, max_wr,
				 udata ? sroce_udata_uctx(udata) : NULL,
				 &mi, &oq);
	if (err)
		return err;
	/* The ABI: the new mminfo goes to a user address given in the command. */
	if (udata &&
	    copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi)))
		err = -EFAULT;
	return sroce_queue_resize_end(&srq->queue, &oq, err);
}

int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr < 1 || attr->max_wr > sdev->attr.max_srq_wr)
			return -EINVAL;
		if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > attr->max_wr)
			return -EINVAL;
	}

	mutex_lock(&srq->resize_mutex);
	if (mask & IB_SRQ_MAX_WR)
		err = sroce_srq_resize(srq, attr->max_wr, udata);
	if (!err && (mask & IB_SRQ_LIMIT)) {
		if (attr->srq_limit > sroce_queue_size(&srq->queue))
			err = -EINVAL;
		else	/* Arms the limit event (srq_limit 0 disarms it). */
			WRITE_ONCE(srq->limit, attr->srq_limit);
	}
	mutex_unlock(&srq->resize_mutex);
	return err;
}

int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = sroce_queue_size(&srq->queue);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	xa_erase(&to_sdev(ibsrq->device)->srq_xa, srq->srq_num);
	sroce_queue_cleanup(&srq->queue);
	mutex_destroy(&srq->resize_mutex);
	return 0;
}
