// SPDX-License-Identifier: GPL-2.0
/*
 * disassoc DEVICE DONEFILE: hold a device while it goes away.
 *
 * Creates one object of each kind (PD, CQ, an RC QP connected to itself,
 * a UD QP, an SRQ, an MR, a type 2 MW, an AH), checks an RDMA WRITE, prints
 * "holding" and keeps RDMA WRITEs in flight until the device reports
 * IBV_EVENT_DEVICE_FATAL (at most 120 s). Then, as rdma-core's disassociate
 * contract says: calls that need the device fail with EIO, destroying the
 * objects and closing the device succeed. The ring mappings keep the pages
 * of their (now unused) rings until they are unmapped (drivers/sroce/
 * queue.c), or, where the core zaps such mappings too, show its one
 * substitute page; they are checked once DONEFILE exists: the test
 * creates it when the removal is over. TAP lines; exit 0 when all pass.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#define BUF_SIZE	(64 * 1024)
#define MSG		4096

struct objs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_ah *ah;
	char *buf;
	int gid;
};

static int connect_self(struct objs *o)
{
	return rc_connect(o->ctx, o->rc, o->rc->qp_num, o->gid);
}

static int create_all(struct objs *o)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16,
						  .max_sge = 1 } };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh.hop_limit = 1 };

	o->gid = ipv4_gid(o->ctx);
	o->buf = calloc(1, BUF_SIZE);
	o->pd = ibv_alloc_pd(o->ctx);
	o->cq = ibv_create_cq(o->ctx, 64, NULL, NULL, 0);
	if (o->gid < 0 || !o->buf || !o->pd || !o->cq)
		return -1;
	qa.send_cq = qa.recv_cq = o->cq;
	qa.qp_type = IBV_QPT_RC;
	o->rc = ibv_create_qp(o->pd, &qa);
	qa.qp_type = IBV_QPT_UD;
	o->ud = ibv_create_qp(o->pd, &qa);
	o->srq = ibv_create_srq(o->pd, &sa);
	o->mr = ibv_reg_mr(o->pd, o->buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
	o->mw = ibv_alloc_mw(o->pd, IBV_MW_TYPE_2);
	aa.grh.sgid_index = o->gid;
	ibv_query_gid(o->ctx, 1, o->gid, &aa.grh.dgid);
	o->ah = ibv_create_ah(o->pd, &aa);
	if (!o->rc || !o->ud || !o->srq || !o->mr || !o->mw || !o->ah)
		return -1;
	return connect_self(o);
}

/* One signaled RDMA WRITE of MSG bytes from the buffer's start to its half. */
static int post_write(struct objs *o, uint64_t id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)o->buf, .length = MSG,
			       .lkey = o->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)o->buf + BUF_SIZE / 2,
			     .rkey = o->mr->rkey },
	}, *bad;

	return ibv_post_send(o->rc, &wr, &bad);
}

static int first_write(struct objs *o)
{
	struct ibv_wc wc;
	double end = now() + 30;
	int i, n = 0;

	for (i = 0; i < MSG; i++)
		o->buf[i] = (char)(i * 7 + 1);
	if (post_write(o, 1))
		return -1;
	while (!n && now() < end)
		n = ibv_poll_cq(o->cq, 1, &wc);
	return n == 1 && wc.status == IBV_WC_SUCCESS &&
	       !memcmp(o->buf, o->buf + BUF_SIZE / 2, MSG) ? 0 : -1;
}

/* The start addresses of this process's uverbs mappings (the rings). */
static int ring_maps(uintptr_t *addr, int max)
{
	char *p = uverbs_maps();
	int n = 0;

	while (*p && n < max) {
		addr[n++] = strtoul(p, NULL, 16);
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return n;
}

/* Does any of the first 64 bytes of each mapping hold a non-zero byte? */
static int rings_nonzero(const uintptr_t *addr, int n)
{
	int i, j, nz = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < 64; j++)
			nz |= ((volatile const char *)addr[i])[j] != 0;
	return nz;
}

/*
 * After disassociate each mapping keeps its own ring's pages (the ring is
 * no longer used; the pages go at munmap): every mapping reads back what
 * was written through it, not through another, and still holds the ring
 * header sroce wrote (its element size and index mask are not zero).
 */
static int rings_kept(const uintptr_t *addr, int n)
{
	int i, kept = 1;

	for (i = 0; i < n; i++)
		*(volatile uint64_t *)(addr[i] + 2048) = 0x5a17d15a00000000ULL | i;
	for (i = 0; i < n; i++)
		kept &= *(volatile uint64_t *)(addr[i] + 2048) ==
			(0x5a17d15a00000000ULL | i) &&
			*(volatile uint32_t *)(addr[i] + 4) != 0;
	return kept;
}

/*
 * Or the core zapped them (kernels whose zap_vma_ptes() also zaps a
 * mapping of pages, not only of PFNs): every mapping then shows the one
 * page the core hands out for it, so a mark written through the first
 * mapping reads back through all of them.
 */
static int rings_zapped(const uintptr_t *addr, int n)
{
	volatile uint64_t *mark = (uint64_t *)(addr[0] + 2048);
	int i, same = 1;

	*mark = 0x5a17d15a550c1a7eULL;
	for (i = 1; i < n; i++)
		same &= *(volatile uint64_t *)(addr[i] + 2048) == *mark;
	return same;
}

/* The next async event's type, or -1 if none is pending. */
static int next_event(struct objs *o)
{
	struct pollfd pfd = { .fd = o->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int type;

	if (poll(&pfd, 1, 1) != 1 || ibv_get_async_event(o->ctx, &ev))
		return -1;
	type = ev.event_type;
	ibv_ack_async_event(&ev);
	return type;
}

/*
 * Keep up to 8 WRITEs in flight until the device reports a fatal error;
 * events before it (port error, GID change: the netdev going away first)
 * are listed. Returns the fatal event's type, or -1 if none came in 120 s.
 */
static int run_until_fatal(struct objs *o, long *posted, int *post_err)
{
	struct ibv_wc wc[8];
	double end = now() + 120;
	int inflight = 0, n, type;

	while (now() < end) {
		while (!*post_err && inflight < 8) {
			*post_err = post_write(o, 2);
			if (*post_err)
				break;
			inflight++;
			(*posted)++;
		}
		n = ibv_poll_cq(o->cq, 8, wc);
		if (n > 0)
			inflight -= n;
		type = next_event(o);
		if (type == IBV_EVENT_DEVICE_FATAL)
			return type;
		if (type >= 0)
			printf("# event before it: %s\n",
			       ibv_event_type_str(type));
	}
	return -1;
}

static int wait_file(const char *path)
{
	double end = now() + 60;

	while (access(path, F_OK) && now() < end)
		usleep(10000);
	return !access(path, F_OK);
}

static void check_after(struct objs *o, const uintptr_t *maps, int nmaps,
			const char *done)
{
	struct ibv_wc wc;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	int err;

	err = post_write(o, 3);
	check(err == EIO, "post_send after disassociate: %s (want EIO)",
	      strerror(err));
	errno = 0;
	pd = ibv_alloc_pd(o->ctx);
	check(!pd && errno == EIO, "alloc_pd: %s (want EIO)", strerror(errno));
	errno = 0;
	mr = ibv_reg_mr(o->pd, o->buf, MSG, IBV_ACCESS_LOCAL_WRITE);
	check(!mr && errno == EIO, "reg_mr: %s (want EIO)", strerror(errno));
	check(ibv_poll_cq(o->cq, 1, &wc) >= 0, "poll_cq does not fail");
	check(nmaps > 1 && wait_file(done) &&
	      (rings_kept(maps, nmaps) || rings_zapped(maps, nmaps)),
	      "the %d ring mappings keep their own stale rings, or all show the core's one page",
	      nmaps);
}

static void destroy_all(struct objs *o)
{
	check(!ibv_destroy_ah(o->ah), "destroy_ah");
	check(!ibv_dealloc_mw(o->mw), "dealloc_mw");
	check(!ibv_dereg_mr(o->mr), "dereg_mr");
	check(!ibv_destroy_srq(o->srq), "destroy_srq");
	check(!ibv_destroy_qp(o->ud), "destroy_qp UD");
	check(!ibv_destroy_qp(o->rc), "destroy_qp RC");
	check(!ibv_destroy_cq(o->cq), "destroy_cq");
	check(!ibv_dealloc_pd(o->pd), "dealloc_pd");
	check(!ibv_close_device(o->ctx), "close_device");
}

int main(int argc, char **argv)
{
	struct objs o = { .ctx = argc > 2 ? open_dev(argv[1]) : NULL };
	uintptr_t maps[64];
	long posted = 0;
	int nmaps, type, post_err = 0;

	if (!o.ctx) {
		fprintf(stderr, "usage: disassoc DEVICE DONEFILE\n");
		return 2;
	}
	if (!check(!create_all(&o), "one object of each kind, RC QP in RTS") ||
	    !check(!first_write(&o), "an RDMA WRITE completes, data intact"))
		return 1;
	nmaps = ring_maps(maps, 64);
	check(nmaps >= 5 && rings_nonzero(maps, nmaps),
	      "%d ring mappings, with content", nmaps);
	printf("holding\n");
	fflush(stdout);

	type = run_until_fatal(&o, &posted, &post_err);
	check(type == IBV_EVENT_DEVICE_FATAL, "async event %d (%s)", type,
	      type < 0 ? "none in 120 s" : ibv_event_type_str(type));
	printf("# %ld WRITEs posted while held; post_send stopped with: %s\n",
	       posted, post_err ? strerror(post_err) : "-");
	check_after(&o, maps, nmaps, argv[2]);
	destroy_all(&o);
	free(o.buf);
	printf("1..%d\n", ntests);
	return nfail ? 1 : 0;
}
