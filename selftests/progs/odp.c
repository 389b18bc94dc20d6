// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging through the stock rxe provider: two RC QPs of one
 * device, connected to each other, and an ODP MR (IBV_ACCESS_ON_DEMAND)
 * over anonymous memory nobody has touched.
 *
 * - the capabilities reported (RC SEND/RECV/WRITE/READ/ATOMIC/SRQ_RECV,
 *   UD SEND/RECV), and that registering faults nothing in (mincore);
 * - RDMA WRITE into it, RDMA READ and SEND out of it, a RECV into it,
 *   FETCH_ADD and CMP_SWAP on it: data compared byte for byte;
 * - after MADV_DONTNEED drops its pages (an invalidation), an RDMA WRITE
 *   lands in the new pages the process sees, not in the freed ones;
 * - an implicit ODP MR (NULL, SIZE_MAX: the whole address space): an RDMA
 *   WRITE into memory nobody touched, across a 4 MiB boundary (where sroce
 *   starts another child umem), an RDMA READ and a SEND out of it, and a
 *   FETCH_ADD, all through its keys; data compared byte for byte;
 * - a page unmapped inside the MR: an RDMA WRITE to it completes with
 *   IBV_WC_REM_ACCESS_ERR; deregistration after munmap succeeds;
 * - an implicit MR's bound: WRITEs into 4,096 stretches of 4 MiB land,
 *   one into the 4,097th gets IBV_WC_REM_ACCESS_ERR.
 *
 *   odp DEV
 *
 * TAP lines; the exit status is the number of failed checks (capped).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define NPG	4
#define PG	4096
#define LEN	(NPG * PG)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;		/* qa posts, qb answers */
static struct ibv_mr *omr, *smr;	/* ODP over odp[], pinned over src[] */
static unsigned char *odp, *src;
static int gidx;

static void caps(void)
{
	struct ibv_device_attr_ex a;
	uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		      IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		      IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	uint32_t ud = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV;

	if (!check(!ibv_query_device_ex(ctx, NULL, &a), "query_device_ex"))
		return;
	check(a.odp_caps.general_caps & IBV_ODP_SUPPORT,
	      "ODP supported (general caps 0x%llx)",
	      (unsigned long long)a.odp_caps.general_caps);
	check(a.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT,
	      "implicit ODP claimed");
	check((a.odp_caps.per_transport_caps.rc_odp_caps & rc) == rc,
	      "RC caps 0x%x", a.odp_caps.per_transport_caps.rc_odp_caps);
	check((a.odp_caps.per_transport_caps.ud_odp_caps & ud) == ud,
	      "UD caps 0x%x", a.odp_caps.per_transport_caps.ud_odp_caps);
}

/* How many pages of odp[] are resident. */
static int resident(void)
{
	unsigned char v[NPG];
	int i, n = 0;

	if (mincore(odp, LEN, v))
		return -1;
	for (i = 0; i < NPG; i++)
		n += v[i] & 1;
	return n;
}

static struct ibv_qp *rc_qp(void)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(pd, &a);
}

static int connect_qp(struct ibv_qp *qp, uint32_t dqpn)
{
	return rc_connect(ctx, qp, dqpn, gidx);
}

static int setup(const char *dev)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	ctx = open_dev(dev);
	gidx = ctx ? ipv4_gid(ctx) : -1;
	pd = gidx >= 0 ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	odp = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = aligned_alloc(PG, LEN);
	if (!cq || odp == MAP_FAILED || !src)
		return -1;
	caps();
	omr = ibv_reg_mr(pd, odp, LEN, acc | IBV_ACCESS_ON_DEMAND);
	if (!check(omr != NULL, "ODP MR registered"))
		return -1;
	check(resident() == 0, "registering faulted nothing in (%d resident)",
	      resident());
	smr = ibv_reg_mr(pd, src, LEN, acc);
	qa = smr ? rc_qp() : NULL;
	qb = qa ? rc_qp() : NULL;
	if (!qb || connect_qp(qa, qb->qp_num) || connect_qp(qb, qa->qp_num))
		return -1;
	return 0;
}

/* One completion within 30 s; its status, or -1. */
static int wait_wc(struct ibv_wc *wc)
{
	double end = now() + 30;
	int r;

	while (now() < end) {
		r = ibv_poll_cq(cq, 1, wc);
		if (r)
			return r < 0 ? -1 : (int)wc->status;
	}
	return -1;
}

/* Post @wr on @qp and wait for its completion: its status, or -1. */
static int post(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	wr->send_flags |= IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad))
		return -1;
	return wait_wc(&wc);
}

static int rdma(enum ibv_wr_opcode op, void *local, uint32_t lkey,
		uint32_t len, void *remote, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	wr.wr.rdma.remote_addr = (uintptr_t)remote;
	wr.wr.rdma.rkey = rkey;
	return post(qa, &wr);
}

static void fill(unsigned char *p, unsigned char seed)
{
	int i;

	for (i = 0; i < LEN; i++)
		p[i] = (unsigned char)(i * 7 + seed + i / PG);
}

static void write_read(void)
{
	int st;

	fill(src, 1);
	st = rdma(IBV_WR_RDMA_WRITE, src, smr->lkey, LEN, odp, omr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(odp, src, LEN),
	      "RDMA WRITE of %d pages into the ODP MR (%s)", NPG,
	      st < 0 ? "no completion" : ibv_wc_status_str(st));
	check(resident() == NPG, "its pages are now resident");

	/* The invalidation: the next WRITE must land in the new pages. */
	check(!madvise(odp, LEN, MADV_DONTNEED), "MADV_DONTNEED");
	fill(src, 2);
	st = rdma(IBV_WR_RDMA_WRITE, src, smr->lkey, LEN, odp, omr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(odp, src, LEN),
	      "after MADV_DONTNEED, an RDMA WRITE lands where the process sees it");

	memset(src, 0, LEN);
	fill(odp, 3);
	st = rdma(IBV_WR_RDMA_READ, src, smr->lkey, LEN, odp, omr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(odp, src, LEN),
	      "RDMA READ out of the ODP MR");
}

/* SEND @ss into a RECV of @rs; both completions must be right. */
static int send_into(struct ibv_sge *ss, struct ibv_sge *rs)
{
	struct ibv_recv_wr rwr = { .sg_list = rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;
	int i, ok = 1;

	if (ibv_post_recv(qb, &rwr, &rbad) || ibv_post_send(qa, &swr, &sbad))
		return 0;
	for (i = 0; i < 2; i++) {
		ok &= wait_wc(&wc) == IBV_WC_SUCCESS;
		if (wc.opcode == IBV_WC_RECV)
			ok &= wc.byte_len == ss->length;
	}
	return ok;
}

static void send_recv(void)
{
	struct ibv_sge o = { (uintptr_t)odp, LEN, omr->lkey };
	struct ibv_sge s = { (uintptr_t)src, LEN, smr->lkey };

	madvise(odp, LEN, MADV_DONTNEED);
	fill(src, 4);
	check(send_into(&s, &o) && !memcmp(odp, src, LEN),
	      "SEND into a RECV in the ODP MR");

	/* And out of it: the sender's SGE is ODP memory. */
	madvise(odp, LEN, MADV_DONTNEED);
	fill(odp, 5);
	memset(src, 0, LEN);
	check(send_into(&o, &s) && !memcmp(odp, src, LEN),
	      "SEND out of the ODP MR");
}

static int atomic(enum ibv_wr_opcode op, uint64_t cmp, uint64_t add,
		  uint64_t *orig)
{
	struct ibv_sge sge = { (uintptr_t)orig, 8, smr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };

	wr.wr.atomic.remote_addr = (uintptr_t)(odp + PG + 8);
	wr.wr.atomic.rkey = omr->rkey;
	wr.wr.atomic.compare_add = op == IBV_WR_ATOMIC_CMP_AND_SWP ? cmp : add;
	wr.wr.atomic.swap = add;
	return post(qa, &wr);
}

static void atomics(void)
{
	uint64_t *orig = (uint64_t *)src, *mem = (uint64_t *)(odp + PG + 8);
	int st;

	madvise(odp, LEN, MADV_DONTNEED);
	st = atomic(IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 5, orig);
	check(st == IBV_WC_SUCCESS && *orig == 0 && *mem == 5,
	      "FETCH_ADD on an absent page: original 0, now %llu",
	      (unsigned long long)*mem);
	madvise(odp, LEN, MADV_DONTNEED);
	*mem = 41;
	st = atomic(IBV_WR_ATOMIC_CMP_AND_SWP, 41, 42, orig);
	check(st == IBV_WC_SUCCESS && *orig == 41 && *mem == 42,
	      "CMP_SWAP: original %llu, now %llu",
	      (unsigned long long)*orig, (unsigned long long)*mem);
}

/*
 * An implicit ODP MR: 16 KiB straddling a 4 MiB boundary of fresh
 * anonymous memory, written, read and sent through the MR's keys.
 */
static void implicit(void)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		  IBV_ACCESS_ON_DEMAND;
	size_t big = 12 << 20, mib4 = 4 << 20;
	unsigned char *m = mmap(NULL, big, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, acc);
	unsigned char *p;
	uint64_t *mem;
	int st;

	if (!check(m != MAP_FAILED && imr, "an implicit ODP MR registered (%s)",
		   imr ? "yes" : strerror(errno)))
		goto out;
	p = (unsigned char *)(((uintptr_t)m + mib4) & ~(mib4 - 1)) - LEN / 2;
	fill(src, 6);
	st = rdma(IBV_WR_RDMA_WRITE, src, smr->lkey, LEN, p, imr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(p, src, LEN),
	      "implicit: an RDMA WRITE across a 4 MiB boundary (%s)",
	      st < 0 ? "no completion" : ibv_wc_status_str(st));
	fill(p, 7);
	memset(src, 0, LEN);
	st = rdma(IBV_WR_RDMA_READ, src, smr->lkey, LEN, p, imr->rkey);
	check(st == IBV_WC_SUCCESS && !memcmp(p, src, LEN),
	      "implicit: an RDMA READ out of it");
	{
		struct ibv_sge o = { (uintptr_t)p, LEN, imr->lkey };
		struct ibv_sge s = { (uintptr_t)src, LEN, smr->lkey };

		fill(p, 8);
		memset(src, 0, LEN);
		check(send_into(&o, &s) && !memcmp(p, src, LEN),
		      "implicit: a SEND out of it");
	}
	mem = (uint64_t *)(p + LEN / 2 + 64);	/* the next 4 MiB */
	*mem = 9;
	{
		struct ibv_sge sge = { (uintptr_t)src, 8, smr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD };

		wr.wr.atomic.remote_addr = (uintptr_t)mem;
		wr.wr.atomic.rkey = imr->rkey;
		wr.wr.atomic.compare_add = 3;
		st = post(qa, &wr);
		check(st == IBV_WC_SUCCESS && *(uint64_t *)src == 9 && *mem == 12,
		      "implicit: FETCH_ADD: original %llu, now %llu",
		      (unsigned long long)*(uint64_t *)src,
		      (unsigned long long)*mem);
	}
out:
	check(!imr || !ibv_dereg_mr(imr), "implicit: deregistered");
	if (m != MAP_FAILED)
		munmap(m, big);
}

/* Last: a hole in the MR fails the access and the QP. */
static void hole(void)
{
	int st;

	check(!munmap(odp + (NPG - 1) * PG, PG), "unmap the MR's last page");
	st = rdma(IBV_WR_RDMA_WRITE, src, smr->lkey, PG,
		  odp + (NPG - 1) * PG, omr->rkey);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "an RDMA WRITE to it: %s (got %s)",
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
	      st < 0 ? "no completion" : ibv_wc_status_str(st));
	check(!munmap(odp, LEN), "unmap the rest");
	check(!ibv_dereg_mr(omr), "deregister the ODP MR after munmap");
}

/*
 * The bound on an implicit MR's children (odp.c, SROCE_IMR_MAX: 4,096 of
 * 4 MiB). An RDMA WRITE into each of 4,096 stretches of fresh memory
 * lands; one into the next stretch gets REM_ACCESS_ERR. On a QP pair of
 * its own, as that last WRITE fails its QP; 16 GiB of address space,
 * 4,097 pages of it touched (no huge pages: they would be 8 GiB).
 */
#define CAP_CHILDREN	4096
#define CAP_BATCH	8	/* WRITEs per signaled one */

static int cap_batch(struct ibv_qp *qp, unsigned char *base, int first,
		     int n, uint32_t rkey)
{
	size_t mib4 = 4 << 20;
	struct ibv_send_wr wr[CAP_BATCH], *bad;
	struct ibv_sge sge[CAP_BATCH];
	struct ibv_wc wc;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		int k = first + i;

		sge[i].addr = (uintptr_t)src + (k % (LEN / 8)) * 8;
		sge[i].length = 8;
		sge[i].lkey = smr->lkey;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr.rdma.remote_addr = (uintptr_t)base + k * mib4;
		wr[i].wr.rdma.rkey = rkey;
	}
	wr[n - 1].send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, wr, &bad))
		return -1;
	return wait_wc(&wc);
}

static void implicit_cap(void)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_ON_DEMAND;
	size_t mib4 = 4 << 20, span = (size_t)(CAP_CHILDREN + 2) * mib4;
	unsigned char *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
	struct ibv_mr *imr = ibv_reg_mr(pd, NULL, SIZE_MAX, acc);
	struct ibv_qp *qc = rc_qp(), *qd = qc ? rc_qp() : NULL;
	int i, st = IBV_WC_SUCCESS, done = 0, bad = 0;
	unsigned char *base;

	if (!check(m != MAP_FAILED, "cap: 16 GiB mapped (%s)",
		   m != MAP_FAILED ? "yes" : strerror(errno)))
		goto out;
	/* EINVAL: a kernel without huge pages */
	if (madvise(m, span, MADV_NOHUGEPAGE) && errno != EINVAL) {
		check(0, "cap: no huge pages (%s)", strerror(errno));
		goto out;
	}
	if (!check(imr && qd && !connect_qp(qc, qd->qp_num) &&
		   !connect_qp(qd, qc->qp_num),
		   "cap: an implicit MR and a QP pair"))
		goto out;
	base = (unsigned char *)(((uintptr_t)m + mib4 - 1) & ~(mib4 - 1));
	fill(src, 10);
	for (i = 0; i < CAP_CHILDREN && st == IBV_WC_SUCCESS; i += CAP_BATCH) {
		st = cap_batch(qc, base, i, CAP_BATCH, imr->rkey);
		done += st == IBV_WC_SUCCESS ? CAP_BATCH : 0;
	}
	check(done == CAP_CHILDREN,
	      "cap: RDMA WRITEs into %d stretches of 4 MiB (%d done, last %s)",
	      CAP_CHILDREN, done,
	      st < 0 ? "no completion" : ibv_wc_status_str(st));
	for (i = 0; i < done; i++)
		bad += !!memcmp(base + i * mib4, src + (i % (LEN / 8)) * 8, 8);
	check(done && !bad, "cap: %d of them hold the bytes written",
	      done - bad);
	st = cap_batch(qc, base, CAP_CHILDREN, 1, imr->rkey);
	check(st == IBV_WC_REM_ACCESS_ERR,
	      "cap: one more stretch: %s (got %s)",
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
	      st < 0 ? "no completion" : ibv_wc_status_str(st));
out:
	if (qd)
		ibv_destroy_qp(qd);
	if (qc)
		ibv_destroy_qp(qc);
	check(!imr || !ibv_dereg_mr(imr), "cap: deregistered");
	if (m != MAP_FAILED)
		munmap(m, span);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: odp DEV\n");
		return 2;
	}
	if (setup(argv[1])) {
		check(0, "setting up %s", argv[1]);
		return 1;
	}
	write_read();
	send_recv();
	atomics();
	implicit();
	hole();
	implicit_cap();
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(smr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return nfail > 100 ? 100 : nfail;
}
