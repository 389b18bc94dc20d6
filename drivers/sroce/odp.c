// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On-demand paging (IB_ACCESS_ON_DEMAND): user MRs whose pages are not
 * pinned. ib_umem_odp watches the range with an MMU interval notifier;
 * a copy faults in the pages it needs and touches them holding the umem
 * mutex, so an invalidation (munmap, migration, reclaim) waits until the
 * copy is done and the next copy faults again. A fault never waits for a
 * page (sroce_odp_fault()): one that needs I/O or a userfaultfd handler
 * is started, and the access is tried again later (-EAGAIN: an RNR NAK to
 * the peer, or the QP's own retry). An address the process has not mapped
 * fails the access: a NAK or an error completion, as with any bad range.
 *
 * Faults sleep, so every run of a QP whose PD has an ODP MR happens in its
 * worker (sroce_qp_run_here()); sroce_odp_pd_mark() makes sure no run that
 * started before the PD's first ODP MR is still under way elsewhere.
 *
 * Every ODP MR, explicit or implicit (start 0, length U64_MAX: the whole
 * address space), has a root umem with no pages; each SROCE_IMR_SIZE-
 * aligned stretch of addresses an access touches gets a child umem of its
 * own, with its own notifier and page arrays, made on first use, and only
 * if the process has something mapped at the address, and kept until the
 * MR goes. So the kernel memory an MR costs follows what its accesses
 * touched, not the range it names: the core's page arrays for a whole
 * explicit range (16 bytes a page, which the core does not charge to any
 * memory cgroup) would let a 512 GiB registration of nothing take 2 GiB.
 * An access is held and copied one child at a time. SROCE_IMR_MAX children
 * per MR bound what a peer with the R_Key can make sroce allocate, and
 * max_odp_children per device (children hold the core's uncharged
 * arrays, about 16 KiB each) what all of them can.
 */
#include <linux/error-injection.h>
#include <linux/highmem.h>
#include <linux/sched/mm.h>

#include "sroce.h"
#include "copy.h"
#include "odp.h"

#define SROCE_IMR_SHIFT	22		/* 4 MiB per child */
#define SROCE_IMR_SIZE	BIT_ULL(SROCE_IMR_SHIFT)
#define SROCE_IMR_MAX	4096		/* children: 16 GiB of addresses */

static unsigned int max_odp_children = 16384;
module_param(max_odp_children, uint, 0644);
MODULE_PARM_DESC(max_odp_children,
		 "Children (4 MiB stretches, about 16 KiB of kernel memory each) all ODP MRs of a device may have (default 16384)");

static unsigned int max_odp_mr = 4096;
module_param(max_odp_mr, uint, 0644);
MODULE_PARM_DESC(max_odp_mr, "ODP MRs per device (default 4096)");

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
 * The root umem of ODP MR @mr, whose iova @mr->iova is user address @start
 * (0 for an implicit MR). Huge pages are handled as PAGE_SIZE pages
 * (IB_ACCESS_HUGETLB dropped), so that every page array of a child has one
 * entry per PAGE_SIZE page.
 */
struct ib_umem *sroce_odp_get(struct sroce_mr *mr, struct ib_pd *ibpd,
			      u64 start, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem_odp *root;

	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return ERR_PTR(-EOPNOTSUPP);
	if (atomic_inc_return(&sdev->num_odp_mr) > READ_ONCE(max_odp_mr)) {
		atomic_dec(&sdev->num_odp_mr);
		return ERR_PTR(-ENOMEM);
	}
	root = ib_umem_odp_alloc_implicit(ibpd->device,
					  access & ~IB_ACCESS_HUGETLB);
	if (IS_ERR(root)) {
		atomic_dec(&sdev->num_odp_mr);
		return ERR_CAST(root);
	}
	mr->odp_va = start;
	xa_init(&mr->odp_children);
	sroce_odp_pd_mark(ibpd);
	return &root->umem;
}

ALLOW_ERROR_INJECTION(sroce_odp_get, ERRNO);

/* Before the MR's root umem goes: its children. */
void sroce_odp_release(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = to_sdev(mr->umem->ibdev);
	struct ib_umem_odp *child;
	unsigned long idx;

	xa_for_each(&mr->odp_children, idx, child)
		ib_umem_odp_release(child);
	xa_destroy(&mr->odp_children);
	atomic_sub(atomic_read(&mr->odp_nchildren), &sdev->num_odp_children);
	atomic_dec(&sdev->num_odp_mr);
}

/* The user address @iova of @mr stands for. */
static u64 sroce_odp_va(const struct sroce_mr *mr, u64 iova)
{
	return mr->odp_va + (iova - mr->iova);
}

/* Does the process that registered @root have anything mapped at @va? */
static bool sroce_odp_mapped(struct ib_umem_odp *root, u64 va)
{
	struct mm_struct *mm = root->umem.owning_mm;
	bool mapped;

	mmap_read_lock(mm);
	mapped = vma_lookup(mm, va);
	mmap_read_unlock(mm);
	return mapped;
}

/* Count a new child against @mr's and the device's bounds. */
static int sroce_odp_count_child(struct sroce_mr *mr, struct sroce_dev *sdev)
{
	if (atomic_inc_return(&mr->odp_nchildren) > SROCE_IMR_MAX) {
		atomic_dec(&mr->odp_nchildren);
		return -ENOMEM;
	}
	if (atomic_inc_return(&sdev->num_odp_children) >
	    READ_ONCE(max_odp_children)) {
		atomic_dec(&sdev->num_odp_children);
		atomic_dec(&mr->odp_nchildren);
		return -ENOMEM;
	}
	return 0;
}

static void sroce_odp_uncount_child(struct sroce_mr *mr,
				    struct sroce_dev *sdev)
{
	atomic_dec(&sdev->num_odp_children);
	atomic_dec(&mr->odp_nchildren);
}

/*
 * Make and insert the child for stretch @idx, or find the one another run
 * made first. The stretch must have a mapping at @va: an access to an
 * address the process never mapped fails without a child.
 */
static struct ib_umem_odp *sroce_odp_make_child(struct sroce_mr *mr,
						unsigned long idx, u64 va)
{
	struct ib_umem_odp *root = to_ib_umem_odp(mr->umem), *child, *old;
	struct sroce_dev *sdev = to_sdev(root->umem.ibdev);
	int err;

	/* Its notifier needs a live mm: not once the process has left it. */
	if (!mmget_not_zero(root->umem.owning_mm))
		return ERR_PTR(-EFAULT);
	err = sroce_odp_mapped(root, va) ? sroce_odp_count_child(mr, sdev) :
					   -EFAULT;
	child = err ? ERR_PTR(err) :
		ib_umem_odp_alloc_child(root, (u64)idx << SROCE_IMR_SHIFT,
					SROCE_IMR_SIZE, &sroce_odp_ops);
	mmput(root->umem.owning_mm);
	if (err)
		return child;
	old = IS_ERR(child) ? NULL :
	      xa_cmpxchg(&mr->odp_children, idx, NULL, child, GFP_KERNEL);
	if (!IS_ERR(child) && !old)
		return child;
	/* Failed, or another run made it first. */
	sroce_odp_uncount_child(mr, sdev);
	if (IS_ERR(child))
		return child;
	ib_umem_odp_release(child);
	return xa_is_err(old) ? ERR_PTR(xa_err(old)) : old;
}

/* @mr's child for @va, made if @make and not there yet. */
static struct ib_umem_odp *sroce_odp_umem(struct sroce_mr *mr, u64 va,
					  bool make)
{
	unsigned long idx = va >> SROCE_IMR_SHIFT;
	struct ib_umem_odp *child = xa_load(&mr->odp_children, idx);

	if (child || !make)
		return child ?: ERR_PTR(-EFAULT);
	return sroce_odp_make_child(mr, idx, va);
}

/* How much of @len bytes from @iova one umem of @mr holds. */
static u32 sroce_odp_span(struct sroce_mr *mr, u64 iova, u32 len)
{
	u64 va = sroce_odp_va(mr, iova);

	return min_t(u64, len, SROCE_IMR_SIZE - (va & (SROCE_IMR_SIZE - 1)));
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

/* Does @vma allow the access a fault of sroce's may make? */
static bool sroce_odp_vma_ok(struct vm_area_struct *vma, bool write)
{
	if (vma->vm_flags & (VM_IO | VM_PFNMAP))
		return false;
	return vma->vm_flags & (write ? VM_WRITE : VM_READ);
}

/*
 * Fault the pages of [va, va + len) in the process that owns @odp into its
 * page tables, without waiting: a page that needs I/O (a file read, FUSE)
 * or another party (userfaultfd) has that started and is left for later,
 * and so is an mmap lock that is taken. -EAGAIN then: the QP has its peer
 * come back later (an RNR NAK) or tries again itself, so a page that never
 * comes blocks nobody (no worker, no verb, no removal). -EFAULT where
 * nothing is mapped or the mapping does not allow the access.
 */
static int sroce_odp_fault(struct ib_umem_odp *odp, u64 va, u32 len,
			   bool write)
{
	unsigned int flags = FAULT_FLAG_REMOTE | FAULT_FLAG_ALLOW_RETRY |
			     FAULT_FLAG_RETRY_NOWAIT;
	struct mm_struct *mm = odp->umem.owning_mm;
	struct vm_area_struct *vma;
	u64 addr, end = va + len;
	vm_fault_t ret = 0;
	int err = 0;

	if (write)
		flags |= FAULT_FLAG_WRITE;
	if (!mmget_not_zero(mm))
		return -EFAULT;
	if (!mmap_read_trylock(mm)) {
		mmput(mm);
		return -EAGAIN;
	}
	for (addr = va & PAGE_MASK; addr < end; addr += PAGE_SIZE) {
		vma = vma_lookup(mm, addr);
		if (!vma || !sroce_odp_vma_ok(vma, write)) {
			err = -EFAULT;
			break;
		}
		ret = handle_mm_fault(vma, addr, flags, NULL);
		if (ret & (VM_FAULT_RETRY | VM_FAULT_COMPLETED)) {
			err = -EAGAIN;
			break;
		}
		if (ret & VM_FAULT_ERROR) {
			err = -EFAULT;
			break;
		}
	}
	/* With RETRY_NOWAIT only a completed fault let go of the lock. */
	if (!(ret & VM_FAULT_COMPLETED))
		mmap_read_unlock(mm);
	mmput(mm);
	return err;
}

/*
 * Make [va, va + len) of @odp present (writable if @write) and keep it so:
 * on success the umem mutex is held, invalidations wait, and the caller lets
 * go with sroce_odp_unhold(). The range lies in @odp. Sleeps, but never
 * waits for a page (sroce_odp_fault()): -EAGAIN if one is not there yet.
 */
static int sroce_odp_hold_umem(struct ib_umem_odp *odp, u64 va, u32 len,
			       bool write)
{
	int np;

	mutex_lock(&odp->umem_mutex);
	if (sroce_odp_range_present(odp, va, len, write))
		return 0;
	mutex_unlock(&odp->umem_mutex);

	np = sroce_odp_fault(odp, va, len, write);
	if (np)
		return np;
	/* Mapped now: the umem takes the pages, faulting nothing. */
	np = ib_umem_odp_map_dma_and_lock(odp, va, len,
					  sroce_odp_access(write), false);
	if (np < 0)
		return np == -EFAULT ? np : -EAGAIN;
	if (sroce_odp_range_present(odp, va, len, write))
		return 0;
	mutex_unlock(&odp->umem_mutex);
	return -EAGAIN;		/* reclaimed or moved meanwhile */
}

/* sroce_odp_hold_umem(), the accesses told to wait counted. */
static int sroce_odp_hold_count(struct ib_umem_odp *odp, u64 va, u32 len,
				bool write)
{
	int err = sroce_odp_hold_umem(odp, va, len, write);

	if (err == -EAGAIN)
		sroce_count(to_sdev(odp->umem.ibdev), SROCE_CNT_ODP_WAIT);
	return err;
}

/*
 * sroce_odp_hold_umem() for [iova, iova + len) of ODP MR @mr, inside the MR
 * (checked by the caller). The range is not empty and lies in one child
 * (sroce_odp_span()), or it is refused.
 */
int sroce_odp_hold(struct sroce_mr *mr, u64 iova, u32 len, bool write)
{
	u64 va = sroce_odp_va(mr, iova);
	struct ib_umem_odp *odp;

	might_sleep();
	if (!len || sroce_odp_span(mr, iova, len) != len)
		return -EFAULT;
	odp = sroce_odp_umem(mr, va, true);
	if (IS_ERR(odp))
		return PTR_ERR(odp);
	return sroce_odp_hold_count(odp, va, len, write);
}

/* Let go of what sroce_odp_hold(@mr, @iova, ...) holds. */
void sroce_odp_unhold(struct sroce_mr *mr, u64 iova)
{
	mutex_unlock(&sroce_odp_umem(mr, sroce_odp_va(mr, iova),
				     false)->umem_mutex);
}

/* Copy between @buf and [va, va + len) of @odp, which the caller holds. */
static void sroce_odp_copy_umem(struct ib_umem_odp *odp, u64 va, void *buf,
				u32 len, bool to_mr)
{
	lockdep_assert_held(&odp->umem_mutex);
	while (len) {
		u64 idx = (va - ib_umem_start(odp)) >> PAGE_SHIFT;
		u32 in = va & ~PAGE_MASK;
		u32 n = min_t(u64, len, PAGE_SIZE - in);
		void *p = kmap_local_page(sroce_odp_page(odp, idx));

		if (to_mr)
			memcpy(p + in, buf, n);
		else
			memcpy(buf, p + in, n);
		kunmap_local(p);
		buf += n;
		va += n;
		len -= n;
	}
}

/* sroce_mr_copy() for an ODP MR whose range the caller holds. */
void sroce_odp_copy_held(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
			 bool to_mr)
{
	u64 va = sroce_odp_va(mr, iova);

	sroce_odp_copy_umem(sroce_odp_umem(mr, va, false), va, buf, len, to_mr);
}

/*
 * sroce_mr_copy() for an ODP MR: one umem (child) at a time, each looked up
 * once.
 */
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   bool to_mr)
{
	struct ib_umem_odp *odp;
	u32 n;
	int err;

	might_sleep();
	while (len) {
		u64 va = sroce_odp_va(mr, iova);

		n = sroce_odp_span(mr, iova, len);
		odp = sroce_odp_umem(mr, va, true);
		if (IS_ERR(odp))
			return PTR_ERR(odp);
		err = sroce_odp_hold_count(odp, va, n, to_mr);
		if (err)
			return err;
		sroce_odp_copy_umem(odp, va, buf, n, to_mr);
		mutex_unlock(&odp->umem_mutex);
		iova += n;
		buf += n;
		len -= n;
	}
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
	odp = sroce_odp_umem(mr, va, false);
	p = kmap_local_page(sroce_odp_page(odp, (va - ib_umem_start(odp)) >>
					   PAGE_SHIFT));
	/* After everything placed before it, as sroce_mr_store64() says. */
	smp_store_release((u64 *)(p + (va & ~PAGE_MASK)), val);
	kunmap_local(p);
	sroce_odp_unhold(mr, iova);
	return 0;
}

/*
 * Take what the process has in its page tables of [va, va + len) of @odp
 * into the umem, faulting nothing (advise_mr's PREFETCH_NO_FAULT): pages
 * not there are left out. The umem mutex is held on success.
 */
static int sroce_odp_snapshot(struct ib_umem_odp *odp, u64 va, u32 len,
			      bool write)
{
	int np;

	if (!mmget_not_zero(odp->umem.owning_mm))
		return -EFAULT;
	np = ib_umem_odp_map_dma_and_lock(odp, va, len,
					  sroce_odp_access(write), false);
	mmput(odp->umem.owning_mm);
	return np < 0 ? np : 0;
}

/*
 * Make [iova, iova + len) of ODP MR @mr present, writable if @write, for
 * advise_mr (advise.c), one child at a time; inside the MR (checked by the
 * caller). With !@fault only what the process has in its page tables is
 * taken. -EAGAIN where a page is not there yet (its I/O started), -EFAULT
 * where nothing is mapped or the mapping does not allow the access.
 */
int sroce_odp_prefetch(struct sroce_mr *mr, u64 iova, u32 len, bool write,
		       bool fault)
{
	struct ib_umem_odp *odp;
	int err;
	u32 n;

	might_sleep();
	while (len) {
		u64 va = sroce_odp_va(mr, iova);

		n = sroce_odp_span(mr, iova, len);
		odp = sroce_odp_umem(mr, va, true);
		if (IS_ERR(odp))
			return PTR_ERR(odp);
		err = fault ? sroce_odp_hold_umem(odp, va, n, write) :
			      sroce_odp_snapshot(odp, va, n, write);
		if (err)
			return err;
		mutex_unlock(&odp->umem_mutex);
		iova += n;
		len -= n;
	}
	return 0;
}

/*
 * What sroce reports: implicit MRs; RC and UD SEND/RECV, RC
 * WRITE/READ/ATOMIC/SRQ, and RC FLUSH and ATOMIC WRITE where the kernel
 * has bits for them (6.16): a FLUSH checks the key and range only, and an
 * ATOMIC WRITE is sroce_odp_store64().
 */
void sroce_odp_caps(struct ib_device_attr *a)
{
	if (!IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING))
		return;
	a->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	a->odp_caps.general_caps = IB_ODP_SUPPORT | IB_ODP_SUPPORT_IMPLICIT;
	a->odp_caps.per_transport_caps.rc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV |
		SROCE_ODP_SUPPORT_FLUSH_AW;
	a->odp_caps.per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV;
}
