// SPDX-License-Identifier: GPL-2.0
/*
 * memcg DEV LIMIT_MIB: run inside a memory cgroup whose memory.max is
 * LIMIT_MIB; what the kernel allocates for this process's verbs objects
 * must be charged to it, so that the process meets its limit and the host
 * does not.
 *
 * - rings: CQs of the largest size (4 MiB rings), SRQs (16 MiB), QPs with
 *   the deepest receive queue (32 MiB), each until a create fails, at most
 *   twice the limit's worth: the failure is ENOMEM, before the limit's
 *   worth plus two; the kernel's memory outside page caches (/proc/meminfo:
 *   VmallocUsed + Slab) grows by no more than the limit; after the objects
 *   go, one more creates;
 * - explicit ODP MRs over 64 GiB of address space nobody mapped: each one
 *   registers (or fails with ENOMEM) and eight of them take less than
 *   4 MiB of kernel memory;
 * - an implicit ODP MR: 256 RDMA WRITEs into 256 stretches of 4 MiB that
 *   nothing is mapped at each fail with IBV_WC_REM_ACCESS_ERR, and leave
 *   less than 1 MiB more kernel memory behind than the same WRITEs into
 *   an MR without remote access (no state for what never faulted in).
 *
 * TAP lines; exit 0 when all pass.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define MAXOBJ		512
#define MIB		(1UL << 20)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_device_attr da;
static long limit;

enum kind { CQ, SRQ, QP };
static const char *const names[] = { "CQ", "SRQ", "QP" };
static const long ring_mib[] = { 4, 16, 32 };

static void *create(enum kind k, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sa = { .attr = {
		.max_wr = da.max_srq_wr, .max_sge = da.max_srq_sge } };
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_send_sge = 1,
			 .max_recv_wr = da.max_qp_wr,
			 .max_recv_sge = da.max_sge },
	};

	switch (k) {
	case CQ:
		return ibv_create_cq(ctx, da.max_cqe, NULL, NULL, 0);
	case SRQ:
		return ibv_create_srq(pd, &sa);
	default:
		return ibv_create_qp(pd, &qa);
	}
}

static void destroy(enum kind k, void *o)
{
	if (k == CQ)
		ibv_destroy_cq(o);
	else if (k == SRQ)
		ibv_destroy_srq(o);
	else
		ibv_destroy_qp(o);
}

/* Objects of kind @k until one fails; then all go, and one more comes. */
static void rings(enum kind k, struct ibv_cq *cq)
{
	long fit = limit / ring_mib[k], max = 2 * fit + 4, base = kmem();
	long grown = 0;
	void *objs[MAXOBJ], *again;
	int n, err = 0;

	for (n = 0; n < max && n < MAXOBJ; n++) {
		errno = 0;
		objs[n] = create(k, cq);
		if (!objs[n]) {
			err = errno;
			break;
		}
		if (kmem() - base > grown)
			grown = kmem() - base;
	}
	check(err == ENOMEM && n <= fit + 2,
	      "%ss of %ld MiB: create %d fails with %s (want ENOMEM by %ld)",
	      names[k], ring_mib[k], n + 1, err ? strerror(err) : "nothing",
	      fit + 2);
	check(grown <= limit * (long)MIB,
	      "%ss: the kernel's memory grew by %ld MiB (limit %ld)",
	      names[k], grown / (long)MIB, limit);
	while (n--)
		destroy(k, objs[n]);
	again = create(k, cq);
	check(again != NULL, "%ss: one creates again after they went (%s)",
	      names[k], again ? "yes" : strerror(errno));
	if (again)
		destroy(k, again);
}

/* Eight explicit ODP MRs over 64 GiB each of addresses nobody mapped. */
static void odp_explicit(void)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_ON_DEMAND;
	size_t len = 64UL << 30;
	struct ibv_mr *mr[8];
	long base = kmem(), grown;
	int i, ok = 0, enomem = 0, other = 0;

	for (i = 0; i < 8; i++) {
		errno = 0;
		mr[i] = ibv_reg_mr(pd, (void *)(0x100000000000UL + i * len),
				   len, acc);
		ok += !!mr[i];
		enomem += !mr[i] && errno == ENOMEM;
		other += !mr[i] && errno != ENOMEM;
	}
	grown = kmem() - base;
	check(!other, "explicit ODP MRs of 64 GiB: %d registered, %d ENOMEM, %d other errors",
	      ok, enomem, other);
	check(grown < 4 * (long)MIB,
	      "explicit ODP MRs: the kernel's memory grew by %ld KiB (< 4 MiB)",
	      grown / 1024);
	for (i = 0; i < 8; i++)
		if (mr[i])
			ibv_dereg_mr(mr[i]);
}

/* Reset @qp and connect it to @dqpn on this device. */
static int connect_to(struct ibv_qp *qp, uint32_t dqpn, int gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RESET,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	return rc_connect(ctx, qp, dqpn, gid);
}

/* One RDMA WRITE of 8 bytes; its completion status, or -1. */
static int write8(struct ibv_qp *qp, struct ibv_cq *cq, struct ibv_mr *src,
		  uint64_t addr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)src->addr, 8, src->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	double end = now() + 10;
	int n = 0;

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	while (!n && now() < end)
		n = ibv_poll_cq(cq, 1, &wc);
	while (n == 1 && ibv_poll_cq(cq, 1, &wc) == 1)
		;	/* the flushed rest, if any */
	return n == 1 ? (int)wc.status : -1;
}

/*
 * 256 times: the pair connected again, one RDMA WRITE through @rkey to
 * @addr + i * @step. Returns how many got IBV_WC_REM_ACCESS_ERR; *@grown
 * is how much the kernel's memory grew meanwhile.
 */
static int writes_refused(struct ibv_qp *qp, struct ibv_qp *qb,
			  struct ibv_cq *cq, struct ibv_mr *src, int gid,
			  uintptr_t addr, uintptr_t step, uint32_t rkey,
			  long *grown)
{
	long base = kmem();
	int i, st, errs = 0;

	for (i = 0; i < 256; i++) {
		if (connect_to(qp, qb->qp_num, gid) ||
		    connect_to(qb, qp->qp_num, gid)) {
			printf("# connecting the QP: %s\n", strerror(errno));
			break;
		}
		st = write8(qp, cq, src, addr + i * step, rkey);
		if (st != IBV_WC_REM_ACCESS_ERR && errs == i)
			printf("# WRITE %d: %s\n", i, st < 0 ? "no completion" :
			       ibv_wc_status_str(st));
		errs += st == IBV_WC_REM_ACCESS_ERR;
	}
	*grown = kmem() - base;
	return errs;
}

/*
 * WRITEs through an implicit MR into 256 stretches with nothing mapped,
 * after the same WRITEs into an MR without remote access: what the loop
 * leaves either way is not ODP's (on a KASAN kernel, the quarantine of
 * freed objects counts as slab until it is full, by some MiB in a VM
 * that has just booted).
 */
static void odp_implicit(struct ibv_cq *cq)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_ON_DEMAND;
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_send_sge = 1,
			 .max_recv_wr = 1, .max_recv_sge = 1 },
	};
	static char buf[4096];
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, acc);
	struct ibv_mr *src = ibv_reg_mr(pd, buf, sizeof(buf), 0);
	struct ibv_qp *qp = ibv_create_qp(pd, &qa), *qb = ibv_create_qp(pd, &qa);
	/* a hole of 1 GiB: reserved, then given back */
	char *hole = mmap(NULL, 1UL << 30, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int gid = ipv4_gid(ctx), ctl, errs;
	long ctl_grown, grown;

	if (!check(imr && src && qp && qb && hole != MAP_FAILED && gid >= 0 &&
		   !munmap(hole, 1UL << 30),
		   "an implicit ODP MR, an RC QP pair, a 1 GiB hole"))
		goto out;
	ctl = writes_refused(qp, qb, cq, src, gid, (uintptr_t)buf, 0,
			     src->rkey, &ctl_grown);
	errs = writes_refused(qp, qb, cq, src, gid, (uintptr_t)hole, 4 * MIB,
			      imr->rkey, &grown);
	check(ctl == 256 && errs == 256,
	      "implicit ODP: %d of 256 WRITEs into nothing got REM_ACCESS_ERR (%d of 256 into an MR without remote access)",
	      errs, ctl);
	check(grown - ctl_grown < (long)MIB,
	      "implicit ODP: the kernel's memory grew by %ld KiB, by %ld KiB without ODP (< 1 MiB more)",
	      grown / 1024, ctl_grown / 1024);
out:
	if (qb)
		ibv_destroy_qp(qb);
	if (qp)
		ibv_destroy_qp(qp);
	if (src)
		ibv_dereg_mr(src);
	if (imr)
		ibv_dereg_mr(imr);
}

int main(int argc, char **argv)
{
	struct ibv_cq *cq;

	ctx = argc > 2 ? open_dev(argv[1]) : NULL;
	limit = argc > 2 ? atol(argv[2]) : 0;
	if (!ctx || limit <= 0) {
		fprintf(stderr, "usage: memcg DEV LIMIT_MIB\n");
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!check(pd && cq && !ibv_query_device(ctx, &da),
		   "a PD and a small CQ"))
		return 1;
	rings(CQ, cq);
	rings(SRQ, cq);
	rings(QP, cq);
	odp_explicit();
	odp_implicit(cq);
	return nfail ? 1 : 0;
}
