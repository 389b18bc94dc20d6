// SPDX-License-Identifier: GPL-2.0
/*
 * ODP faults that wait for nobody (drivers/sroce/odp.c: a page that is not
 * there yet is asked for and the access tried again later). RC QP pairs
 * of one device; the WRITEs of pair 1 go into an ODP MR over anonymous
 * memory registered with userfaultfd for missing pages, which nobody
 * resolves until this program does (no thread reads the userfaultfd):
 *
 * - a WRITE into a missing page does not complete while the page is
 *   missing (the responder answers RNR NAKs; rnr_retry 7 is for ever),
 *   and meanwhile pair 2, in a PD of its own, completes 200 WRITEs of
 *   64 KiB, each compared byte for byte;
 * - once the page is resolved (UFFDIO_COPY of a pattern) the WRITE
 *   completes successfully: its bytes are there, the rest of the page is
 *   the pattern;
 * - with a second WRITE pending into another missing page, destroying
 *   both QPs and deregistering the MR each return within 5 s;
 * - a third pair is left with a WRITE pending into a missing page of a
 *   new ODP MR: "# pending" is printed, and the program waits (120 s at
 *   most) until the file DONE exists (the caller deletes the device
 *   meanwhile).
 *
 *   odp_wait DEV DONE
 *
 * TAP lines; the exit status is the number of failed checks (capped).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common.h"

#define PG	4096
#define NPG	8
#define BIG	65536

static struct ibv_context *ctx;
static int gidx, uffd;
static unsigned char *miss;		/* NPG pages, missing until copied */

struct pair {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qa, *qb;
};

static struct ibv_qp *rc_qp(struct pair *p)
{
	struct ibv_qp_init_attr a = {
		.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(p->pd, &a);
}

static int pair_new(struct pair *p, struct ibv_pd *pd)
{
	p->pd = pd;
	p->cq = ibv_create_cq(ctx, 32, NULL, NULL, 0);
	p->qa = p->cq ? rc_qp(p) : NULL;
	p->qb = p->qa ? rc_qp(p) : NULL;
	return !p->qb || rc_connect(ctx, p->qa, p->qb->qp_num, gidx) ||
	       rc_connect(ctx, p->qb, p->qa->qp_num, gidx) ? -1 : 0;
}

static int write_post(struct pair *p, void *src, uint32_t lkey, uint32_t len,
		      void *dst, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)src, len, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(p->qa, &wr, &bad);
}

/* One completion of @p within @secs: its status; -1 if none came. */
static int wait_wc(struct pair *p, double secs)
{
	double end = now() + secs;
	struct ibv_wc wc;
	int r;

	do {
		r = ibv_poll_cq(p->cq, 1, &wc);
		if (r)
			return r < 0 ? -2 : (int)wc.status;
		usleep(1000);
	} while (now() < end);
	return -1;
}

static int uffd_setup(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { (uintptr_t)miss, NPG * PG },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};

	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return -1;
	return ioctl(uffd, UFFDIO_API, &api) ||
	       ioctl(uffd, UFFDIO_REGISTER, &reg) ? -1 : 0;
}

/* Page @i of miss[] arrives: the pattern 0x5a. */
static int resolve(int i)
{
	static unsigned char pat[PG];
	struct uffdio_copy c = {
		.dst = (uintptr_t)miss + i * PG, .src = (uintptr_t)pat,
		.len = PG,
	};

	memset(pat, 0x5a, sizeof(pat));
	return ioctl(uffd, UFFDIO_COPY, &c);
}

/* Pair 2, in a PD without ODP: 200 WRITEs of 64 KiB, compared. */
static void others_move(struct pair *p2, unsigned char *a, struct ibv_mr *ma,
			unsigned char *b, struct ibv_mr *mb)
{
	int i, ok = 0;

	for (i = 0; i < 200; i++) {
		memset(a, i, BIG);
		if (write_post(p2, a, ma->lkey, BIG, b, mb->rkey) ||
		    wait_wc(p2, 30) != IBV_WC_SUCCESS || memcmp(a, b, BIG))
			break;
		ok++;
	}
	check(ok == 200, "another PD's QPs move data meanwhile: %d of 200 WRITEs verified", ok);
}

/* @what returned within 5 s: checked. */
static void timed(const char *what, int rc, double t0)
{
	check(!rc && now() - t0 < 5, "%s: %d in %.2f s", what, rc, now() - t0);
}

int main(int argc, char **argv)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	unsigned char *src, *a, *b;
	struct ibv_mr *ms, *mo, *ma, *mb;
	struct pair p1, p2, p3;
	struct ibv_pd *pd2;
	double t0;
	int st;

	ctx = argc > 2 ? open_dev(argv[1]) : NULL;
	gidx = ctx ? ipv4_gid(ctx) : -1;
	miss = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = aligned_alloc(PG, PG);
	a = aligned_alloc(PG, BIG);
	b = aligned_alloc(PG, BIG);
	if (gidx < 0 || miss == MAP_FAILED || !src || !a || !b) {
		printf("Bail out! setup\n");
		return 100;
	}
	if (uffd_setup()) {
		printf("1..0 # SKIP userfaultfd: %s\n", strerror(errno));
		return 0;
	}
	memset(src, 0xc3, PG);
	if (pair_new(&p1, ibv_alloc_pd(ctx)) ||
	    pair_new(&p2, ibv_alloc_pd(ctx))) {
		printf("Bail out! QPs\n");
		return 100;
	}
	ms = ibv_reg_mr(p1.pd, src, PG, acc);
	mo = ibv_reg_mr(p1.pd, miss, NPG * PG, acc | IBV_ACCESS_ON_DEMAND);
	pd2 = p2.pd;
	ma = ibv_reg_mr(pd2, a, BIG, acc);
	mb = ibv_reg_mr(pd2, b, BIG, acc);
	if (!check(ms && mo && ma && mb, "MRs registered, one of them ODP over missing pages"))
		return 100;

	/* a WRITE into missing page 0, 1 KiB into it */
	check(!write_post(&p1, src, ms->lkey, 512, miss + 1024, mo->rkey),
	      "WRITE into a missing page posted");
	others_move(&p2, a, ma, b, mb);
	st = wait_wc(&p1, 1);
	check(st == -1, "no completion while the page is missing (%d)", st);
	check(!resolve(0), "page 0 resolved (UFFDIO_COPY)");
	st = wait_wc(&p1, 20);
	check(st == IBV_WC_SUCCESS, "the WRITE then completes: %s",
	      st >= 0 ? ibv_wc_status_str(st) : "none");
	check(!memcmp(miss + 1024, src, 512) && miss[0] == 0x5a &&
	      miss[1023] == 0x5a && miss[1536] == 0x5a && miss[PG - 1] == 0x5a,
	      "its bytes landed in the page that came, the rest is that page's");

	/* a WRITE pending into page 1; the QPs and the MR go */
	check(!write_post(&p1, src, ms->lkey, 512, miss + PG, mo->rkey),
	      "WRITE into missing page 1 posted");
	st = wait_wc(&p1, 1);
	check(st == -1, "pending (%d)", st);
	t0 = now();
	timed("destroy the requester QP", ibv_destroy_qp(p1.qa), t0);
	t0 = now();
	timed("destroy the responder QP", ibv_destroy_qp(p1.qb), t0);
	t0 = now();
	timed("deregister the ODP MR", ibv_dereg_mr(mo), t0);

	/* pair 3: a WRITE left pending for the device's removal */
	mo = ibv_reg_mr(p1.pd, miss, NPG * PG, acc | IBV_ACCESS_ON_DEMAND);
	if (!check(mo && !pair_new(&p3, p1.pd), "pair 3 and a new ODP MR"))
		return 100;
	check(!write_post(&p3, src, ms->lkey, 512, miss + 2 * PG, mo->rkey),
	      "WRITE into missing page 2 posted");
	st = wait_wc(&p3, 1);
	check(st == -1, "pending (%d)", st);
	printf("# pending\n");
	fflush(stdout);
	for (t0 = now(); now() - t0 < 120 && access(argv[2], F_OK); )
		usleep(100000);
	printf("1..%d\n# %d passed, %d failed\n", ntests, ntests - nfail, nfail);
	return nfail > 99 ? 99 : nfail;
}
