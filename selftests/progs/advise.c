// SPDX-License-Identifier: GPL-2.0
/*
 * advise_mr (prefetch of ODP MRs) straight through the uverbs ioctl
 * (UVERBS_METHOD_ADVISE_MR), as rdma-core 59 and later's rxe provider
 * sends it, so that it runs with any rdma-core (44's provider has no
 * advise_mr and answers EOPNOTSUPP itself). Over anonymous memory nobody
 * touched (mincore says what is resident):
 *
 * - synchronous PREFETCH_WRITE faults every page in; PREFETCH_NO_FAULT
 *   faults nothing; asynchronous PREFETCH_WRITE returns at once and the
 *   pages come; synchronous PREFETCH, and through an implicit MR;
 * - the errors rdma_rxe gives: ENOENT for an unknown lkey, an MR of another
 *   PD, PREFETCH_WRITE on an MR without local write; EOPNOTSUPP for a
 *   pinned MR and an unknown advice; EFAULT for a range past the MR's end
 *   and for a page unmapped inside it; EINVAL (the core) for unknown flags;
 * - an MR deregistered right behind an asynchronous prefetch of it.
 *
 *   advise DEV
 *
 * TAP lines; the exit status is the number of failed checks (capped).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "common.h"

#define NPG	8
#define PG	4096
#define LEN	(NPG * PG)

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;

/* ioctl ADVISE_MR on @p with one SGE; 0 or errno */
static int advise(struct ibv_pd *p, uint32_t advice, uint32_t flags,
		  void *addr, uint32_t len, uint32_t lkey)
{
	struct ib_uverbs_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = lkey,
	};
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[4];
	} c = {
		.hdr = {
			.length = sizeof(c), .object_id = UVERBS_OBJECT_MR,
			.method_id = UVERBS_METHOD_ADVISE_MR, .num_attrs = 4,
			.driver_id = RDMA_DRIVER_RXE,
		},
		.attr = {
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE,
			  .data = p->handle },
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE, .len = 8,
			  .data = advice },
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS, .len = 4,
			  .data = flags },
			{ .attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST,
			  .len = sizeof(sge), .data = (uintptr_t)&sge },
		},
	};

	return ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &c) ? errno : 0;
}

/* Fresh anonymous memory of LEN bytes, nothing resident */
static unsigned char *fresh(void)
{
	void *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* How many of the LEN / PG pages at @p are resident */
static int resident(unsigned char *p)
{
	unsigned char v[NPG];
	int i, n = 0;

	if (mincore(p, LEN, v))
		return -1;
	for (i = 0; i < NPG; i++)
		n += v[i] & 1;
	return n;
}

static struct ibv_mr *odp_mr(struct ibv_pd *p, void *addr, size_t len,
			     int acc)
{
	return ibv_reg_mr(p, addr, len, acc | IBV_ACCESS_ON_DEMAND);
}

#define LW	IBV_ACCESS_LOCAL_WRITE
#define FLUSH	IB_UVERBS_ADVISE_MR_FLAG_FLUSH
#define PF	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH
#define PFW	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define PFNF	IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT

/* Wait up to 5 s for all NPG pages at @m to be resident; how many are */
static int await_resident(unsigned char *m)
{
	int i, n = resident(m);

	for (i = 0; i < 500 && n >= 0 && n < NPG; i++) {
		usleep(10000);
		n = resident(m);
	}
	return n;
}

/* The three advices on an explicit ODP MR over untouched memory */
static void prefetch(void)
{
	unsigned char *m = fresh();
	struct ibv_mr *mr = m ? odp_mr(pd, m, LEN, LW) : NULL;
	int i;

	if (!check(mr != NULL, "ODP MR registered"))
		return;
	check(resident(m) == 0, "nothing resident after registering");
	check(advise(pd, PFNF, FLUSH, m, LEN, mr->lkey) == 0,
	      "sync PREFETCH_NO_FAULT: 0");
	check(resident(m) == 0, "PREFETCH_NO_FAULT faulted nothing in (%d)",
	      resident(m));
	check(advise(pd, PFW, FLUSH, m, LEN / 2, mr->lkey) == 0,
	      "sync PREFETCH_WRITE of the first half: 0");
	check(resident(m) == NPG / 2, "its %d pages resident (%d)", NPG / 2,
	      resident(m));
	check(advise(pd, PFNF, FLUSH, m, LEN, mr->lkey) == 0,
	      "PREFETCH_NO_FAULT over present and absent pages: 0");
	check(advise(pd, PFW, 0, m + LEN / 2, LEN / 2, mr->lkey) == 0,
	      "async PREFETCH_WRITE of the second half: 0");
	check(await_resident(m) == NPG, "async: all %d pages resident (%d)",
	      NPG, resident(m));
	for (i = 0; i < LEN && !m[i]; i++)
		;
	check(i == LEN, "the prefetched pages read as zeros");
	check(!ibv_dereg_mr(mr), "deregistered");
	munmap(m, LEN);
}

/* Read-only: PREFETCH on an MR without local write; an implicit MR */
static void readonly_implicit(void)
{
	unsigned char *m = fresh(), *m2 = fresh();
	struct ibv_mr *mr = m ? odp_mr(pd, m, LEN, 0) : NULL;
	struct ibv_mr *imr = odp_mr(pd, NULL, SIZE_MAX, LW);

	if (!check(mr && m2, "read-only ODP MR registered"))
		return;
	check(advise(pd, PFW, FLUSH, m, LEN, mr->lkey) == ENOENT,
	      "PREFETCH_WRITE without local write: ENOENT");
	check(advise(pd, PF, FLUSH, m, LEN, mr->lkey) == 0,
	      "sync PREFETCH without local write: 0");
	check(resident(m) == NPG, "all %d pages mapped (%d)", NPG,
	      resident(m));
	if (check(imr != NULL, "implicit ODP MR registered")) {
		check(advise(pd, PFW, FLUSH, m2, LEN, imr->lkey) == 0,
		      "sync PREFETCH_WRITE through the implicit MR: 0");
		check(resident(m2) == NPG, "all %d pages resident (%d)", NPG,
		      resident(m2));
		check(!ibv_dereg_mr(imr), "implicit MR deregistered");
	}
	check(!ibv_dereg_mr(mr), "read-only MR deregistered");
	munmap(m, LEN);
	munmap(m2, LEN);
}

/* What is refused, and with which errno */
static void errors(void)
{
	unsigned char *m = fresh(), *pin = aligned_alloc(PG, LEN);
	struct ibv_mr *mr = m ? odp_mr(pd, m, LEN, LW) : NULL;
	struct ibv_mr *pmr = pin ? ibv_reg_mr(pd, pin, LEN, LW) : NULL;
	int e;

	if (!check(mr && pmr, "an ODP and a pinned MR registered"))
		return;
	e = advise(pd, PFW, FLUSH, m, LEN, mr->lkey ^ 0x100);
	check(e == ENOENT, "an lkey naming no MR: ENOENT (%d)", e);
	e = advise(pd, PFW, 0, m, LEN, mr->lkey ^ 0x100);
	check(e == ENOENT, "the same, async: ENOENT (%d)", e);
	e = advise(pd2, PFW, FLUSH, m, LEN, mr->lkey);
	check(e == ENOENT, "an MR of another PD: ENOENT (%d)", e);
	e = advise(pd, PFW, FLUSH, pin, LEN, pmr->lkey);
	check(e == EOPNOTSUPP, "a pinned MR: EOPNOTSUPP (%d)", e);
	e = advise(pd, 3, FLUSH, m, LEN, mr->lkey);
	check(e == EOPNOTSUPP, "advice 3: EOPNOTSUPP (%d)", e);
	e = advise(pd, PFW, 2, m, LEN, mr->lkey);
	check(e == EINVAL, "flags 2: EINVAL (%d)", e);
	e = advise(pd, PFW, FLUSH, m + LEN - PG, 2 * PG, mr->lkey);
	check(e == EFAULT, "a range past the MR's end: EFAULT (%d)", e);
	check(resident(m) == 0, "and nothing faulted in (%d)", resident(m));
	munmap(m + 2 * PG, PG);
	e = advise(pd, PFW, FLUSH, m, LEN, mr->lkey);
	check(e == EFAULT, "a page unmapped inside the range: EFAULT (%d)", e);
	check(!ibv_dereg_mr(mr), "ODP MR deregistered after munmap");
	check(!ibv_dereg_mr(pmr), "pinned MR deregistered");
	munmap(m, LEN);
	free(pin);
}

/* Deregistration right behind an asynchronous prefetch, many times */
static void dereg_race(void)
{
	unsigned char *m = fresh();
	int i, bad = 0, err = 0;

	for (i = 0; m && i < 200; i++) {
		struct ibv_mr *mr = odp_mr(pd, m, LEN, LW);

		if (!mr || advise(pd, PFW, 0, m, LEN, mr->lkey))
			bad++;
		if (mr && ibv_dereg_mr(mr))
			err++;
		madvise(m, LEN, MADV_DONTNEED);
	}
	check(m && !bad, "200 async prefetches accepted (%d refused)", bad);
	check(m && !err, "each MR deregistered right behind it (%d failed)",
	      err);
	if (m)
		munmap(m, LEN);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: advise DEV\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	pd2 = pd ? ibv_alloc_pd(ctx) : NULL;
	if (!check(pd2 != NULL, "opened %s, two PDs", argv[1]))
		return 1;
	prefetch();
	readonly_implicit();
	errors();
	dereg_race();
	ibv_dealloc_pd(pd2);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return nfail > 100 ? 100 : nfail;
}
