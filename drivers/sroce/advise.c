// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * advise_mr: prefetch of ODP MRs (ibv_advise_mr(), which the rxe provider
 * of rdma-core 59 and later passes to the kernel). Each SGE names an ODP
 * MR of the PD by its lkey and a range inside it, whose pages are faulted
 * in and mapped before an access needs them: PREFETCH readable,
 * PREFETCH_WRITE writable (the MR must allow local writes), and
 * PREFETCH_NO_FAULT takes what the process has in its page tables as it
 * is. With IB_UVERBS_ADVISE_MR_FLAG_FLUSH the call returns when that is
 * done, or with the first error; without it, the MRs are looked up (an
 * unknown lkey fails the call) and the rest is queued: best effort, its
 * failures unreported, as the verb defines it.
 *
 * The errors are rdma_rxe's: -ENOENT for an lkey that names no MR of the
 * PD allowing the access, -EOPNOTSUPP for an MR that is not ODP, -EFAULT
 * for a range outside the MR or a page the process has not mapped.
 *
 * A fault never waits for a page (odp.c). A synchronous prefetch waits
 * here instead for the I/O the fault started, killable and for at most
 * SROCE_PREFETCH_WAIT; a queued one tries once.
 */
#include <linux/delay.h>
#include <linux/sched/signal.h>

#include "sroce.h"
#include "mr.h"
#include "odp.h"
#include "sched.h"

#define SROCE_PREFETCH_WAIT	(5 * HZ)

struct sroce_prefetch_work {
	struct work_struct	work;
	bool			write;
	bool			fault;
	u32			num;
	struct {
		struct sroce_mr	*mr;
		u64		addr;
		u32		len;
	} frags[];
};

/* The ODP MR @sge names in @ibpd, referenced, or an ERR_PTR. */
static struct sroce_mr *sroce_prefetch_mr(struct ib_pd *ibpd,
					  const struct ib_sge *sge, bool write)
{
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_get(to_sdev(ibpd->device), sge->lkey, ibpd,
			  write ? IB_ACCESS_LOCAL_WRITE : 0);
	if (!mr)
		return ERR_PTR(-ENOENT);
	if (mr->type != SROCE_MR_ODP)
		err = -EOPNOTSUPP;
	else if (!sroce_mr_covers(mr, sge->addr, sge->length))
		err = -EFAULT;
	else
		return mr;
	sroce_mr_put(mr);
	return ERR_PTR(err);
}

/* Prefetch [addr, addr + len) of @mr, waiting for pages if @wait. */
static int sroce_prefetch_range(struct sroce_mr *mr, u64 addr, u32 len,
				bool write, bool fault, bool wait)
{
	unsigned long end = jiffies + SROCE_PREFETCH_WAIT;
	int err;

	while (len) {
		err = sroce_odp_prefetch(mr, addr, len, write, fault);
		if (err != -EAGAIN || !wait)
			return err;
		if (fatal_signal_pending(current))
			return -EINTR;
		if (time_after(jiffies, end))
			return -EAGAIN;
		usleep_range(100, 1000);
	}
	return 0;
}

static void sroce_prefetch_work(struct work_struct *w)
{
	struct sroce_prefetch_work *work =
		container_of(w, struct sroce_prefetch_work, work);
	u32 i;

	for (i = 0; i < work->num; i++) {
		sroce_prefetch_range(work->frags[i].mr, work->frags[i].addr,
				     work->frags[i].len, work->write,
				     work->fault, false);
		sroce_mr_put(work->frags[i].mr);
	}
	kvfree(work);
}

/* Without FLAG_FLUSH: look the MRs up now, prefetch them in a worker. */
static int sroce_prefetch_queue(struct ib_pd *ibpd, struct ib_sge *sg_list,
				u32 num_sge, bool write, bool fault)
{
	struct sroce_prefetch_work *work;
	struct sroce_mr *mr;
	u32 i;

	work = kvzalloc(struct_size(work, frags, num_sge), GFP_KERNEL_ACCOUNT);
	if (!work)
		return -ENOMEM;
	for (i = 0; i < num_sge; i++) {
		mr = sroce_prefetch_mr(ibpd, &sg_list[i], write);
		if (IS_ERR(mr)) {
			while (i--)
				sroce_mr_put(work->frags[i].mr);
			kvfree(work);
			return PTR_ERR(mr);
		}
		work->frags[i].mr = mr;
		work->frags[i].addr = sg_list[i].addr;
		work->frags[i].len = sg_list[i].length;
	}
	work->num = num_sge;
	work->write = write;
	work->fault = fault;
	INIT_WORK(&work->work, sroce_prefetch_work);
	sroce_queue_work(&work->work);
	return 0;
}

/* With FLAG_FLUSH: every range present when this returns 0. */
static int sroce_prefetch_now(struct ib_pd *ibpd, struct ib_sge *sg_list,
			      u32 num_sge, bool write, bool fault)
{
	struct sroce_mr *mr;
	int err = 0;
	u32 i;

	for (i = 0; i < num_sge && !err; i++) {
		mr = sroce_prefetch_mr(ibpd, &sg_list[i], write);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		err = sroce_prefetch_range(mr, sg_list[i].addr,
					   sg_list[i].length, write, fault,
					   true);
		sroce_mr_put(mr);
	}
	return err;
}

int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	bool write = false, fault = true;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
		write = true;
		break;
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		fault = false;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	if (!num_sge)
		return 0;
	if (flags & IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return sroce_prefetch_now(ibpd, sg_list, num_sge, write, fault);
	return sroce_prefetch_queue(ibpd, sg_list, num_sge, write, fault);
}
