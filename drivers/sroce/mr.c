// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory: regions (DMA, user, fast registration) and windows, and their
 * keys. The bytes moved to and from them: copy.c.
 *
 * Lookups (sroce_mr_get) run in process context and take a reference under
 * the xarray lock; dereg/dealloc erase the key first, so no new reference
 * can be taken, then wait for the ones in flight to be dropped.
 */
#include <linux/random.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "mr.h"
#include "odp.h"

#define SROCE_MR_ACCESS		(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | \
				 IB_ACCESS_HUGETLB | \
				 IB_ACCESS_ON_DEMAND | \
				 SROCE_ACCESS_FLUSH)

static u32 sroce_make_key(u32 index)
{
	return index << 8 | (get_random_u32() & 0xff);
}

static int sroce_mr_add(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	u32 index;
	int err;

	refcount_set(&mr->ref, 1);
	init_completion(&mr->released);
	atomic_set(&mr->num_mw, 0);
	err = xa_alloc_cyclic_bh(&sdev->mr_xa, &index, mr,
				 XA_LIMIT(1, sdev->attr.max_mr), &sdev->mr_next,
				 GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	mr->ibmr.lkey = sroce_make_key(index);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return 0;
}

static void sroce_mr_remove(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	xa_erase_bh(&sdev->mr_xa, mr->ibmr.lkey >> 8);
	sroce_mr_put(mr);
	wait_for_completion(&mr->released);
}

/*
 * Find the valid MR named by @key, in @pd, allowing @access, and take a
 * reference (drop it with sroce_mr_put). NULL if any of it does not hold.
 */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      struct ib_pd *pd, int access)
{
	struct sroce_mr *mr;

	xa_lock_bh(&sdev->mr_xa);
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (!mr || mr->ibmr.lkey != key || mr->ibmr.pd != pd ||
	    mr->state != SROCE_MR_VALID || (mr->access & access) != access ||
	    !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	xa_unlock_bh(&sdev->mr_xa);
	return mr;
}

void sroce_mr_put(struct sroce_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->released);
}

bool sroce_mr_covers(struct sroce_mr *mr, u64 va, u32 len)
{
	u64 start = mr->type == SROCE_MR_FAST ? mr->ibmr.iova : mr->iova;
	u64 length = mr->type == SROCE_MR_FAST ? mr->ibmr.length : mr->length;

	if (mr->type == SROCE_MR_DMA)
		return true;
	return va >= start && len <= length && va - start <= length - len;
}

static int sroce_check_access(int access)
{
	/* Optional bits (relaxed ordering, ...) may be ignored, by definition. */
	if (access & ~(SROCE_MR_ACCESS | IB_ACCESS_OPTIONAL))
		return -EOPNOTSUPP;
	/* Remote writes and atomics change memory: local write is implied. */
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = SROCE_MR_DMA;
	mr->access = access;
	mr->state = SROCE_MR_VALID;
	mr->length = U64_MAX;
	mr->ibmr.pd = ibpd;
	err = sroce_mr_add(sdev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/* Pin the pages of a user MR (not ODP) and note each one. */
static int sroce_mr_pin(struct sroce_mr *mr, struct ib_pd *ibpd, u64 start,
			u64 length, int access)
{
	struct sg_page_iter sg_iter;
	struct ib_umem *umem;
	u32 i = 0;

	umem = ib_umem_get_va(ibpd->device, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mr->umem = umem;
	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &sg_iter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&sg_iter);
	}
	mr->page_shift = PAGE_SHIFT;
	mr->type = SROCE_MR_USER;
	return 0;
}

static bool sroce_mr_implicit(u64 start, u64 length)
{
	return !start && length == U64_MAX;
}

/*
 * An ODP MR: pages come and go, sroce_odp_hold() faults them in. Start 0
 * and length U64_MAX ask for an implicit one, over the whole address space.
 */
static int sroce_mr_odp(struct sroce_mr *mr, struct ib_pd *ibpd, u64 start,
			u64 length, int access)
{
	struct ib_umem *umem = sroce_odp_get(mr, ibpd, start, access);

	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mr->umem = umem;
	mr->page_shift = PAGE_SHIFT;
	mr->type = SROCE_MR_ODP;
	return 0;
}

struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_check_access(access);
	if (err)
		return ERR_PTR(err);
	if (sroce_mr_implicit(start, length)) {
		/* Implicit ODP: addresses are the process's own. */
		if (iova || !(access & IB_ACCESS_ON_DEMAND))
			return ERR_PTR(-EINVAL);
	} else if (!length || length > sdev->attr.max_mr_size ||
		   start + length < start || iova + length < iova) {
		return ERR_PTR(-EINVAL);
	}
	if (!sroce_udata_in_empty(udata))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	if (access & IB_ACCESS_ON_DEMAND)
		err = sroce_mr_odp(mr, ibpd, start, length, access);
	else
		err = sroce_mr_pin(mr, ibpd, start, length, access);
	if (err)
		goto err_free;

	mr->access = access;
	mr->state = SROCE_MR_VALID;
	mr->iova = iova;
	mr->length = length;
	mr->ibmr.pd = ibpd;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	err = sroce_mr_add(sdev, mr);
	if (err)
		goto err_free;
	return &mr->ibmr;

err_free:
	kvfree(mr->pages);
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_release(mr);
	ib_umem_release(mr->umem);
	kfree(mr);
	return ERR_PTR(err);
}

struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > sdev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->page_list = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL_ACCOUNT);
	if (!mr->page_list) {
		err = -ENOMEM;
		goto err_free;
	}
	mr->type = SROCE_MR_FAST;
	mr->max_pages = max_num_sg;
	mr->state = SROCE_MR_INVALID;	/* until a REG_MR work request */
	mr->ibmr.pd = ibpd;
	err = sroce_mr_add(sdev, mr);
	if (err)
		goto err_list;
	return &mr->ibmr;

err_list:
	kfree(mr->page_list);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int sroce_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->page_list[mr->npages++] = addr;
	return 0;
}

int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->type != SROCE_MR_FAST)
		return -EINVAL;
	mr->npages = 0;
	mr->page_shift = ilog2(ibmr->page_size);
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_page);
}

int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	bool busy;

	/*
	 * Windows bound to it must go first (IBA 10.6.7.2.6). Binds count
	 * themselves under the mw_xa lock and refuse a dead MR, so once it
	 * is marked dead here no window can attach to it any more.
	 */
	xa_lock_bh(&sdev->mw_xa);
	busy = atomic_read(&mr->num_mw);
	if (!busy)
		mr->dead = true;
	xa_unlock_bh(&sdev->mw_xa);
	if (busy)
		return -EBUSY;

	sroce_mr_remove(sdev, mr);
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_release(mr);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr->page_list);
	kfree(mr);
	return 0;
}

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	u32 index;
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!sroce_udata_in_empty(udata))
		return -EINVAL;

	mw->state = SROCE_MR_INVALID;	/* unbound */
	err = xa_alloc_cyclic_bh(&sdev->mw_xa, &index, mw,
				 XA_LIMIT(SROCE_MW_INDEX_BASE + 1,
					  SROCE_MW_INDEX_BASE + sdev->attr.max_mw),
				 &sdev->mw_next, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	ibmw->rkey = sroce_make_key(index);
	return 0;
}

/* Unbind a window and drop its reference on its MR. */
static void sroce_mw_unbind(struct sroce_mw *mw)
{
	lockdep_assert_held(&to_sdev(mw->ibmw.device)->mw_xa.xa_lock);
	if (mw->mr) {
		atomic_dec(&mw->mr->num_mw);
		sroce_mr_put(mw->mr);
	}
	mw->mr = NULL;
	mw->state = SROCE_MR_INVALID;
}

int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);

	/* After the erase no lookup can reach it: lookups hold the lock. */
	xa_lock_bh(&sdev->mw_xa);
	__xa_erase(&sdev->mw_xa, ibmw->rkey >> 8);
	sroce_mw_unbind(mw);
	xa_unlock_bh(&sdev->mw_xa);
	return 0;
}

/*
 * The access a bind may give a window: remote access only. LOCAL_WRITE is
 * accepted and ignored (a window grants nothing locally; rdma-core's tests
 * and rdma_rxe pass it); a zero-based window is not supported.
 */
#define SROCE_MW_ACCESS		(IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * BIND_MW (IBA 10.6.7.2): attach a window to [addr, addr + length) of an
 * MR of the QP's PD that allows binding, with the new rkey the consumer
 * chose (same index, new key byte: an unchanged key would leave rkeys a
 * peer already holds valid for the new range). Remote write or atomic
 * access needs LOCAL_WRITE on the MR (IBA 10.6.7.2.1). The QP's own access
 * flags play no part: IBA has no such QP attribute, and rdma_rxe and RoCE
 * hardware bind on any RC QP. A bound window keeps the reference its
 * lookup of the MR took, so the MR outlives it. Runs in the QP's work.
 */
enum ib_wc_status sroce_bind_mw(struct sroce_qp *qp,
				const struct sroce_send_wqe *wqe)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	u32 mw_rkey = wqe->wr.wr.mw.mw_rkey, rkey = wqe->wr.wr.mw.rkey;
	u64 addr = wqe->wr.wr.mw.addr, length = wqe->wr.wr.mw.length;
	int access = wqe->wr.wr.mw.access & ~IB_ACCESS_LOCAL_WRITE;
	enum ib_wc_status st = IB_WC_MW_BIND_ERR;
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;

	if ((rkey >> 8) != (mw_rkey >> 8) || rkey == mw_rkey ||
	    (access & ~SROCE_MW_ACCESS))
		return IB_WC_MW_BIND_ERR;
	if (length) {
		mr = sroce_mr_get(sdev, wqe->wr.wr.mw.mr_lkey, qp->ibqp.pd,
				  IB_ACCESS_MW_BIND);
		if (!mr)
			return IB_WC_MW_BIND_ERR;
		if (length > U32_MAX || !sroce_mr_covers(mr, addr, length) ||
		    mr->type == SROCE_MR_DMA ||
		    ((access & (IB_ACCESS_REMOTE_WRITE |
				IB_ACCESS_REMOTE_ATOMIC)) &&
		     !(mr->access & IB_ACCESS_LOCAL_WRITE)))
			goto out;
	}

	xa_lock_bh(&sdev->mw_xa);
	mw = xa_load(&sdev->mw_xa, mw_rkey >> 8);
	if (!mw || mw->ibmw.rkey != mw_rkey || mw->ibmw.pd != qp->ibqp.pd ||
	    (mw->ibmw.type == IB_MW_TYPE_2 &&
	     (mw->state == SROCE_MR_VALID || !length)) ||
	    (mr && mr->dead)) {
		xa_unlock_bh(&sdev->mw_xa);
		goto out;
	}
	sroce_mw_unbind(mw);
	if (length) {
		atomic_inc(&mr->num_mw);
		mw->mr = mr;	/* takes over the lookup's reference */
		mr = NULL;
		mw->addr = addr;
		mw->length = length;
		mw->access = access;
		mw->qp_serial = qp->serial;
		mw->state = SROCE_MR_VALID;
	}
	mw->ibmw.rkey = rkey;
	xa_unlock_bh(&sdev->mw_xa);
	st = IB_WC_SUCCESS;
out:
	if (mr)
		sroce_mr_put(mr);
	return st;
}

/*
 * REG_MR from a kernel consumer: the MR, mapped by map_mr_sg, becomes valid
 * under the new key (same index) with the given access.
 */
enum ib_wc_status sroce_reg_mr(struct sroce_qp *qp,
			       const struct sroce_send_wqe *wqe)
{
	struct sroce_mr *mr = (struct sroce_mr *)(uintptr_t)wqe->wr.wr.mw.addr;
	u32 key = wqe->wr.wr.mw.rkey;

	if (!mr || mr->type != SROCE_MR_FAST || mr->ibmr.pd != qp->ibqp.pd ||
	    (key >> 8) != (mr->ibmr.lkey >> 8) ||
	    mr->state == SROCE_MR_VALID ||
	    sroce_check_access(wqe->wr.wr.mw.access))
		return IB_WC_MW_BIND_ERR;
	xa_lock_bh(&to_sdev(qp->ibqp.device)->mr_xa);
	mr->access = wqe->wr.wr.mw.access;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->state = SROCE_MR_VALID;
	xa_unlock_bh(&to_sdev(qp->ibqp.device)->mr_xa);
	return IB_WC_SUCCESS;
}

/*
 * Invalidate @key: a fast-registration MR, or a bound type 2 window (for a
 * remote invalidation, only one bound to this QP). Same PD as the QP.
 */
int sroce_invalidate(struct sroce_qp *qp, u32 key, bool remote)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mw *mw;
	struct sroce_mr *mr;
	int err = -EINVAL;

	if ((key >> 8) > SROCE_MW_INDEX_BASE) {
		xa_lock_bh(&sdev->mw_xa);
		mw = xa_load(&sdev->mw_xa, key >> 8);
		if (mw && mw->ibmw.rkey == key && mw->ibmw.pd == qp->ibqp.pd &&
		    mw->ibmw.type == IB_MW_TYPE_2 &&
		    mw->state == SROCE_MR_VALID &&
		    (!remote || mw->qp_serial == qp->serial)) {
			sroce_mw_unbind(mw);
			err = 0;
		}
		xa_unlock_bh(&sdev->mw_xa);
		return err;
	}

	mr = sroce_mr_get(sdev, key, qp->ibqp.pd, 0);
	if (!mr)
		return -EINVAL;
	if (mr->type == SROCE_MR_FAST && !atomic_read(&mr->num_mw)) {
		mr->state = SROCE_MR_INVALID;
		err = 0;
	}
	sroce_mr_put(mr);
	return err;
}

/* Whether @qp may reach memory through @mr at all (rights aside). */
static bool sroce_mr_usable(struct sroce_qp *qp, struct sroce_mr *mr)
{
	return mr->state == SROCE_MR_VALID && mr->ibmr.pd == qp->ibqp.pd &&
	       !(mr->type == SROCE_MR_DMA && qp->is_user);
}

/*
 * The MR a remote access with @rkey may use for [va, va + len), or
 * anywhere in it if @whole (a FLUSH of the whole region, which names no
 * range): same PD as the QP, the access allowed, the range inside the MR
 * or window. With a reference.
 */
static struct sroce_mr *sroce_rkey_find(struct sroce_qp *qp, u32 rkey, u64 va,
					u32 len, int access, bool whole)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mw *mw;
	struct sroce_mr *mr;

	if ((rkey >> 8) > SROCE_MW_INDEX_BASE) {
		/* Through a window: its own rights and range, then its MR's. */
		mr = NULL;
		xa_lock_bh(&sdev->mw_xa);
		mw = xa_load(&sdev->mw_xa, rkey >> 8);
		if (mw && mw->ibmw.rkey == rkey && mw->state == SROCE_MR_VALID &&
		    (mw->access & access) == access &&
		    mw->ibmw.pd == qp->ibqp.pd &&
		    (mw->ibmw.type == IB_MW_TYPE_1 ||
		     mw->qp_serial == qp->serial) &&
		    (whole || (va >= mw->addr && len <= mw->length &&
			       va - mw->addr <= mw->length - len)) &&
		    mw->mr && sroce_mr_usable(qp, mw->mr) &&
		    refcount_inc_not_zero(&mw->mr->ref))
			mr = mw->mr;
		xa_unlock_bh(&sdev->mw_xa);
		return mr;
	}

	mr = sroce_mr_get(sdev, rkey, qp->ibqp.pd, access);
	if (!mr)
		return NULL;
	if ((!whole && !sroce_mr_covers(mr, va, len)) ||
	    !sroce_mr_usable(qp, mr)) {
		sroce_mr_put(mr);
		return NULL;
	}
	return mr;
}

struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, u64 va,
				u32 len, int access)
{
	return sroce_rkey_find(qp, rkey, va, len, access, false);
}

/* Whether @rkey gives @qp @access to its whole MR or window. */
bool sroce_rkey_allows(struct sroce_qp *qp, u32 rkey, int access)
{
	struct sroce_mr *mr = sroce_rkey_find(qp, rkey, 0, 0, access, true);

	if (mr)
		sroce_mr_put(mr);
	return !!mr;
}
