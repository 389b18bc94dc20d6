// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging (IB_ACCESS_ON_DEMAND): user MRs whose pages are not
 * pinned. ib_umem_odp watches the range with an MMU interval notifier;
 * a copy faults in the pages it needs (hmm_range_fault(), which sleeps)
 * and touches them holding the umem mutex, so an invalidation (munmap,
 * migration, reclaim) waits until the copy is done and the next copy
 * faults again. An address the process has not mapped fails the access:
 * a NAK or an error completion, as with any bad range.
 *
 * Faults sleep, so every run of a QP whose PD has an ODP MR happens in its
 * worker (sroce_qp_run_here()); sroce_odp_pd_mark() makes sure no run that
 * started before the PD's first ODP MR is still under way elsewhere.
 */
#include <linux/highmem.h>

#include "sroce.h"

static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	ib_umem_odp_unmap_dma_pages(odp, max(range->start, ib_umem_start(odp)),
				    min(range->end, ib_umem_end(odp)));
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_ops = {
	.invalidate = sroce_odp_invalidate,
};

/*
 * From now on the QPs of @ibpd run only in their workers. A run already
 * under way in a softirq or a doorbell did not see that: wait for it, as
 * for any RCU reader (a softirq is one). Only the PD's first ODP MR waits.
 */
static void sroce_odp_pd_mark(struct ib_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);

	if (READ_ONCE(pd->odp))
		return;
	WRITE_ONCE(pd->odp, true);
	synchronize_rcu();
}

/*
 * The umem of an ODP MR over [start, start + length). Huge pages are
 * handled as PAGE_SIZE pages (IB_ACCESS_HUGETLB dropped), so that every
 * page array of the umem has one entry per PAGE_SIZE page.
 */
struct ib_umem *sroce_odp_get(struct ib_pd *ibpd, u64 start, u64 length,
			      int access)
{
	struct ib_umem_odp *odp;

	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return ERR_PTR(-EOPNOTSUPP);
	odp = ib_umem_odp_get(ibpd->device, start, length,
			      access & ~IB_ACCESS_HUGETLB, &sroce_odp_ops);
	if (IS_ERR(odp))
		return ERR_CAST(odp);
	if (WARN_ON_ONCE(odp->page_shift != PAGE_SHIFT)) {
		ib_umem_odp_release(odp);
		return ERR_PTR(-EINVAL);
	}
	sroce_odp_pd_mark(ibpd);
	return &odp->umem;
}

/* The user address @iova of @mr stands for. */
static u64 sroce_odp_va(const struct sroce_mr *mr, u64 iova)
{
	return mr->umem->address + (iova - mr->iova);
}

static bool sroce_odp_range_present(struct ib_umem_odp *odp, u64 va, u32 len,
				    bool write)
{
	u64 idx = (va - ib_umem_start(odp)) >> PAGE_SHIFT;
	u64 last = (va + len - 1 - ib_umem_start(odp)) >> PAGE_SHIFT;

	for (; idx <= last; idx++)
		if (!sroce_odp_present(odp, idx, write))
			return false;
	return true;
}

/*
 * Make [iova, iova + len) of ODP MR @mr present (writable if @write) and
 * keep it so: on success the umem mutex is held, invalidations wait, and
 * the caller lets go with sroce_odp_unhold(). Sleeps. The range is inside
 * the MR (checked by the caller).
 */
int sroce_odp_hold(struct sroce_mr *mr, u64 iova, u32 len, bool write)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	u64 va = sroce_odp_va(mr, iova);
	int np;

	might_sleep();
	if (!len)
		len = 1;
	mutex_lock(&odp->umem_mutex);
	if (sroce_odp_range_present(odp, va, len, write))
		return 0;
	mutex_unlock(&odp->umem_mutex);

	np = ib_umem_odp_map_dma_and_lock(odp, va, len,
					  sroce_odp_access(write), true);
	if (np < 0)
		return np;
	if (sroce_odp_range_present(odp, va, len, write))
		return 0;
	mutex_unlock(&odp->umem_mutex);
	return -EFAULT;
}

void sroce_odp_unhold(struct sroce_mr *mr)
{
	mutex_unlock(&to_ib_umem_odp(mr->umem)->umem_mutex);
}

/* sroce_mr_copy() for an ODP MR whose range the caller holds. */
void sroce_odp_copy_held(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
			 bool to_mr)
{
	struct ib_umem_odp *odp = to_ib_umem_odp(mr->umem);
	u64 va = sroce_odp_va(mr, iova);

	lockdep_assert_held(&odp->umem_mutex);
	while (len) {
		u64 idx = (va - ib_umem_start(odp)) >> PAGE_SHIFT;
		u32 in = va & ~PAGE_MASK;
		u32 n = min_t(u64, len, PAGE_SIZE - in);
		void *p = kmap_local_page(sroce_odp_page(odp, idx));

		if (to_mr)
			sroce_copy(p + in, buf, n);
		else
			sroce_copy(buf, p + in, n);
		kunmap_local(p);
		buf += n;
		va += n;
		len -= n;
	}
}

int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   bool to_mr)
{
	int err = sroce_odp_hold(mr, iova, len, to_mr);

	if (err)
		return err;
	sroce_odp_copy_held(mr, iova, buf, len, to_mr);
	sroce_odp_unhold(mr);
	return 0;
}

/* sroce_mr_store64() for an ODP MR. */
int sroce_odp_store64(struct sroce_mr *mr, u64 iova, u64 val)
{
	u64 va = sroce_odp_va(mr, iova);
	struct ib_umem_odp *odp;
	u8 *p;
	int err;

	if (va & 7)
		return -EINVAL;
	err = sroce_odp_hold(mr, iova, 8, true);
	if (err)
		return err;
	odp = to_ib_umem_odp(mr->umem);
	p = kmap_local_page(sroce_odp_page(odp, (va - ib_umem_start(odp)) >>
					   PAGE_SHIFT));
	/* After everything placed before it, as sroce_mr_store64() says. */
	smp_store_release((u64 *)(p + (va & ~PAGE_MASK)), val);
	kunmap_local(p);
	sroce_odp_unhold(mr);
	return 0;
}

/* What sroce reports: RC and UD SEND/RECV, RC WRITE/READ/ATOMIC/SRQ. */
void sroce_odp_caps(struct ib_device_attr *a)
{
	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return;
	a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	a->odp_caps.general_caps = IB_ODP_SUPPORT;
	a->odp_caps.per_transport_caps.rc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
	a->odp_caps.per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV;
}
