// SPDX-License-Identifier: GPL-2.0
/*
 * verbs_fuzz DEVICE SEED SECONDS [THREADS] [ROUNDS]: random sequences of
 * verbs with random attributes, reproducible from SEED.
 *
 * Each round forks a child that opens DEVICE and runs THREADS (4) threads
 * for its share of SECONDS; each thread keeps objects of its own (PDs,
 * CQs, QPs of every type, SRQs, MRs pinned and ODP, MWs, AHs) and picks,
 * at random: create, modify, query, resize, destroy, post send and
 * receive work requests with random opcodes, flags, lengths and SGEs,
 * bind windows, attach multicast groups, connect QPs to each other, and
 * write random bytes into its send rings (all but the two words of the
 * ring's geometry, which the provider trusts) and ring the doorbell. Attributes come from a mix of small, edge (0, 1, -1, 2^31,
 * the device's limits and one past them) and random values. Every result
 * is ignored: the kernel must cope. A round ends with the child
 * destroying everything, or, every other round, with SIGKILL at a random
 * moment (the kernel cleans up after it).
 *
 * Prints the seed and per-round counts; exit 0 when every child either
 * finished or was killed by us, 1 if one crashed (a fuzzer bug: the
 * provider trusts fields of its rings this program does not write).
 * Kernel splats and leaks are the harness's to find.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "../../uapi/rdma_user_sroce.h"
#include "common.h"
#include "ring.h"

#define NPD	3
#define NCQ	6
#define NQP	10
#define NSRQ	3
#define NMR	6
#define NMW	4
#define NAH	4
#define BUF	(1 << 20)

struct rnd {
	uint64_t s;
};

static uint64_t rnd(struct rnd *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

static uint32_t pick(struct rnd *r, uint32_t n)
{
	return n ? rnd(r) % n : 0;
}

static struct ibv_context *ctx;
static struct ibv_device_attr da;
static int gid;
static double end;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
/* What each thread is doing, for a crash report. */
static __thread const char *doing;

/* A value for a size or count: small, an edge, the limit, or random. */
static uint32_t val(struct rnd *r, uint32_t limit)
{
	static const uint32_t edge[] = { 0, 1, 2, 3, 0x7fffffff, 0x80000000,
					 0xffffffff, 0x10000, 4096, 4095 };

	switch (pick(r, 6)) {
	case 0:
		return edge[pick(r, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return limit + pick(r, 3) - 1;
	case 2:
		return (uint32_t)rnd(r);
	default:
		return pick(r, limit ? limit : 64) + 1;
	}
}

struct qpx {
	struct ibv_qp *qp;
	struct sroce_queue_buf *sq;	/* its send ring, if found */
};

struct th {
	struct rnd r;
	int id;
	char *buf;
	struct ibv_pd *pd[NPD];
	struct ibv_cq *cq[NCQ];
	struct qpx qp[NQP];
	struct ibv_srq *srq[NSRQ];
	struct ibv_mr *mr[NMR];
	struct ibv_mw *mw[NMW];
	struct ibv_ah *ah[NAH];
	long ops;
};

static struct ibv_pd *any_pd(struct th *t)
{
	return t->pd[pick(&t->r, NPD)];
}

static struct ibv_cq *any_cq(struct th *t)
{
	return t->cq[pick(&t->r, NCQ)];
}

static void op_pd(struct th *t)
{
	struct ibv_pd **p = &t->pd[pick(&t->r, NPD)];

	if (!*p)
		*p = ibv_alloc_pd(ctx);
	else if (!ibv_dealloc_pd(*p))
		*p = NULL;
}

static void op_cq(struct th *t)
{
	struct ibv_cq **c = &t->cq[pick(&t->r, NCQ)];
	struct ibv_wc wc[4];

	/*
	 * Rings are mapped and unmapped under maps_lock, so that a QP's
	 * creation finds its own send ring among the new mappings.
	 */
	if (!*c) {
		pthread_mutex_lock(&maps_lock);
		*c = ibv_create_cq(ctx, (int)val(&t->r, da.max_cqe), NULL,
				   NULL, (int)pick(&t->r, 3) - 1);
		pthread_mutex_unlock(&maps_lock);
		return;
	}
	switch (pick(&t->r, 5)) {
	case 0:
		pthread_mutex_lock(&maps_lock);
		if (!ibv_destroy_cq(*c))
			*c = NULL;
		pthread_mutex_unlock(&maps_lock);
		break;
	case 1:
		pthread_mutex_lock(&maps_lock);
		ibv_resize_cq(*c, (int)val(&t->r, da.max_cqe));
		pthread_mutex_unlock(&maps_lock);
		break;
	case 2:
		ibv_req_notify_cq(*c, pick(&t->r, 2));
		break;
	default:
		ibv_poll_cq(*c, 4, wc);
	}
}

static void op_srq(struct th *t)
{
	struct ibv_srq **s = &t->srq[pick(&t->r, NSRQ)];
	struct ibv_srq_init_attr ia = { .attr = {
		.max_wr = val(&t->r, da.max_srq_wr),
		.max_sge = val(&t->r, da.max_srq_sge),
		.srq_limit = val(&t->r, 16) } };
	struct ibv_srq_attr a = { .max_wr = val(&t->r, da.max_srq_wr),
				  .srq_limit = val(&t->r, 64) };
	struct ibv_pd *pd = any_pd(t);

	if (!*s) {
		pthread_mutex_lock(&maps_lock);
		if (pd)
			*s = ibv_create_srq(pd, &ia);
		pthread_mutex_unlock(&maps_lock);
		return;
	}
	switch (pick(&t->r, 3)) {
	case 0:
		pthread_mutex_lock(&maps_lock);
		if (!ibv_destroy_srq(*s))
			*s = NULL;
		pthread_mutex_unlock(&maps_lock);
		break;
	case 1:
		pthread_mutex_lock(&maps_lock);
		ibv_modify_srq(*s, &a, pick(&t->r, 4));
		pthread_mutex_unlock(&maps_lock);
		break;
	default:
		ibv_query_srq(*s, &a);
	}
}

static void create_qp(struct th *t, struct qpx *q)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD, IBV_QPT_RC };
	struct ibv_qp_init_attr a = {
		.send_cq = any_cq(t), .recv_cq = any_cq(t),
		.qp_type = types[pick(&t->r, 4)],
		.sq_sig_all = pick(&t->r, 2),
		.cap = { .max_send_wr = val(&t->r, 64),
			 .max_recv_wr = val(&t->r, 64),
			 .max_send_sge = val(&t->r, da.max_sge),
			 .max_recv_sge = val(&t->r, da.max_sge),
			 .max_inline_data = val(&t->r, 512) },
	};
	struct ibv_pd *pd = any_pd(t);
	char *before;

	if (pick(&t->r, 4) == 0)
		a.srq = t->srq[pick(&t->r, NSRQ)];
	if (!pd || !a.send_cq || !a.recv_cq)
		return;
	pthread_mutex_lock(&maps_lock);
	before = strdup(uverbs_maps());
	q->qp = ibv_create_qp(pd, &a);
	q->sq = q->qp && before ? new_sq_ring(before) : NULL;
	pthread_mutex_unlock(&maps_lock);
	free(before);
}

/* A random transition with random attributes; often towards RTS. */
static void modify_qp(struct th *t, struct qpx *q)
{
	struct ibv_qp_attr a = {
		.qp_state = pick(&t->r, 7),
		.path_mtu = pick(&t->r, 7),
		.qkey = (uint32_t)rnd(&t->r),
		.rq_psn = (uint32_t)rnd(&t->r),
		.sq_psn = (uint32_t)rnd(&t->r),
		.dest_qp_num = (uint32_t)rnd(&t->r),
		.qp_access_flags = pick(&t->r, 16),
		.pkey_index = pick(&t->r, 3) ? 0 : pick(&t->r, 4),
		.port_num = pick(&t->r, 8) ? 1 : pick(&t->r, 4),
		.max_rd_atomic = val(&t->r, 16),
		.max_dest_rd_atomic = val(&t->r, 16),
		.min_rnr_timer = pick(&t->r, 32),
		.timeout = pick(&t->r, 32),
		.retry_cnt = pick(&t->r, 8),
		.rnr_retry = pick(&t->r, 8),
		.ah_attr = { .is_global = pick(&t->r, 8) != 0, .port_num = 1,
			     .sl = pick(&t->r, 16),
			     .grh = { .hop_limit = pick(&t->r, 256),
				      .sgid_index = pick(&t->r, 4) ? (uint32_t)gid :
						    pick(&t->r, 1100),
				      .traffic_class = pick(&t->r, 256) } },
	};
	static const int next[] = { IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS };
	int mask = (int)rnd(&t->r) & 0x1fffff;

	struct ibv_qp *peer = t->qp[pick(&t->r, NQP)].qp;

	if (peer && pick(&t->r, 2))
		a.dest_qp_num = peer->qp_num;
	ibv_query_gid(ctx, 1, gid, &a.ah_attr.grh.dgid);
	if (pick(&t->r, 2)) {
		/* a plausible step towards RTS */
		a.qp_state = next[pick(&t->r, 3)];
		a.path_mtu = IBV_MTU_1024;
		mask = IBV_QP_STATE;
		if (a.qp_state == IBV_QPS_INIT)
			mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				(q->qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY :
				 IBV_QP_ACCESS_FLAGS);
		else if (a.qp_state == IBV_QPS_RTR &&
			 q->qp->qp_type != IBV_QPT_UD)
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN |
				(q->qp->qp_type == IBV_QPT_RC ?
				 IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MIN_RNR_TIMER : 0);
		else if (a.qp_state == IBV_QPS_RTS)
			mask |= IBV_QP_SQ_PSN |
				(q->qp->qp_type == IBV_QPT_RC ?
				 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC : 0);
		a.max_rd_atomic %= 16;
		a.max_dest_rd_atomic %= 16;
	}
	ibv_modify_qp(q->qp, &a, mask);
}

static struct ibv_mr *any_mr(struct th *t)
{
	return t->mr[pick(&t->r, NMR)];
}

static void fill_sge(struct th *t, struct ibv_sge *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_mr *mr = any_mr(t);

		s[i].addr = (uintptr_t)t->buf + pick(&t->r, BUF);
		s[i].length = pick(&t->r, 4) ? pick(&t->r, 8192) :
					       val(&t->r, BUF);
		s[i].lkey = mr && pick(&t->r, 8) ? mr->lkey :
						   (uint32_t)rnd(&t->r);
		if (!pick(&t->r, 16))
			s[i].addr = rnd(&t->r);
	}
}

static void post_send(struct th *t, struct qpx *q)
{
	struct ibv_sge sge[4];
	struct ibv_mr *mr = any_mr(t);
	struct ibv_ah *ah = t->ah[pick(&t->r, NAH)];
	struct ibv_mw *mw = t->mw[pick(&t->r, NMW)];
	struct ibv_send_wr wr = {
		.wr_id = rnd(&t->r), .sg_list = sge,
		.num_sge = pick(&t->r, 5),
		.opcode = pick(&t->r, 12),
		.send_flags = pick(&t->r, 32),
		.imm_data = (uint32_t)rnd(&t->r),
	}, *bad;

	fill_sge(t, sge, 4);
	wr.wr.rdma.remote_addr = (uintptr_t)t->buf + pick(&t->r, BUF);
	wr.wr.rdma.rkey = mr ? mr->rkey : (uint32_t)rnd(&t->r);
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = ((uintptr_t)t->buf +
					    pick(&t->r, BUF)) & ~7UL;
		wr.wr.atomic.rkey = mr ? mr->rkey : 0;
		wr.wr.atomic.compare_add = rnd(&t->r);
	}
	if (q->qp->qp_type == IBV_QPT_UD) {
		if (!ah)
			return;		/* the provider would dereference it */
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = pick(&t->r, 2) ? 1 : pick(&t->r, 64);
		wr.wr.ud.remote_qkey = (uint32_t)rnd(&t->r);
	}
	if (wr.opcode == IBV_WR_BIND_MW) {
		if (!mw || !mr)
			return;
		wr.bind_mw.mw = mw;
		wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
		wr.bind_mw.bind_info.mr = mr;
		wr.bind_mw.bind_info.addr = (uintptr_t)t->buf +
					    pick(&t->r, BUF);
		wr.bind_mw.bind_info.length = val(&t->r, BUF);
		wr.bind_mw.bind_info.mw_access_flags = pick(&t->r, 32);
	}
	if (wr.send_flags & IBV_SEND_INLINE && wr.num_sge)
		for (int i = 0; i < wr.num_sge; i++) {
			sge[i].addr = (uintptr_t)t->buf + pick(&t->r, BUF / 2);
			sge[i].length = pick(&t->r, 1024);
		}
	ibv_post_send(q->qp, &wr, &bad);
}

static void post_recv(struct th *t, struct qpx *q)
{
	struct ibv_sge sge[4];
	struct ibv_recv_wr wr = { .wr_id = rnd(&t->r), .sg_list = sge,
				  .num_sge = pick(&t->r, 5) }, *bad;
	struct ibv_srq *srq = t->srq[pick(&t->r, NSRQ)];

	fill_sge(t, sge, 4);
	if (pick(&t->r, 3) == 0 && srq)
		ibv_post_srq_recv(srq, &wr, &bad);
	else if (!q->qp->srq)
		ibv_post_recv(q->qp, &wr, &bad);
}

/*
 * Random bytes into a send ring, a doorbell. The provider trusts the
 * ring's geometry and its own producer index (it does not mask it): those
 * words get no random bytes, and an unmasked producer index stands only
 * for the doorbell, then a masked one is put back.
 */
static void scribble(struct th *t, struct qpx *q)
{
	uint32_t len, off, i, mask;
	char *p = (char *)q->sq;

	if (!p)
		return;
	mask = q->sq->index_mask;
	len = (mask + 1) << q->sq->log2_elem_size;
	for (i = pick(&t->r, 64); i; i--) {
		off = 8 + pick(&t->r, 384 - 8 + len - 8);
		if (off + 4 > 128 && off < 132)
			continue;	/* the producer index */
		p[off] = (char)rnd(&t->r);
	}
	if (pick(&t->r, 2))
		__atomic_store_n(&q->sq->producer_index, (uint32_t)rnd(&t->r),
				 __ATOMIC_RELEASE);
	doorbell(q->qp);
	__atomic_store_n(&q->sq->producer_index,
			 __atomic_load_n(&q->sq->producer_index,
					 __ATOMIC_ACQUIRE) & mask,
			 __ATOMIC_RELEASE);
}

static void op_qp(struct th *t)
{
	struct qpx *q = &t->qp[pick(&t->r, NQP)];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (!q->qp) {
		doing = "create_qp";
		create_qp(t, q);
		return;
	}
	static const char *const what[] = { "destroy_qp", "modify_qp",
		"modify_qp", "query_qp", "post_send", "post_send", "post_recv",
		"post_recv", "scribble", "mcast" };
	int k = pick(&t->r, 10);

	doing = what[k];
	switch (k) {
	case 0:
		pthread_mutex_lock(&maps_lock);
		if (!ibv_destroy_qp(q->qp))
			q->qp = NULL;
		pthread_mutex_unlock(&maps_lock);
		break;
	case 1:
	case 2:
		modify_qp(t, q);
		break;
	case 3:
		ibv_query_qp(q->qp, &a, (int)rnd(&t->r), &ia);
		break;
	case 4:
	case 5:
		post_send(t, q);
		break;
	case 6:
	case 7:
		post_recv(t, q);
		break;
	case 8:
		scribble(t, q);
		break;
	default: {
		union ibv_gid g = { .raw = { 0xff, 0x0e } };

		g.raw[15] = pick(&t->r, 8);
		if (pick(&t->r, 2))
			ibv_attach_mcast(q->qp, &g, 0);
		else
			ibv_detach_mcast(q->qp, &g, 0);
	}
	}
}

static void op_mr(struct th *t)
{
	struct ibv_mr **m = &t->mr[pick(&t->r, NMR)];
	struct ibv_pd *pd = any_pd(t);
	size_t off = pick(&t->r, BUF);
	int acc = pick(&t->r, 0x400);

	if (!*m) {
		if (!pd)
			return;
		if (pick(&t->r, 8) == 0)
			acc |= IBV_ACCESS_ON_DEMAND;
		if (pick(&t->r, 4))
			acc &= IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_ATOMIC |
			       IBV_ACCESS_MW_BIND | IBV_ACCESS_ON_DEMAND;
		*m = ibv_reg_mr(pd, t->buf + off,
				pick(&t->r, 4) ? pick(&t->r, BUF - off) + 1 :
						 val(&t->r, BUF), acc);
	} else if (!ibv_dereg_mr(*m)) {
		*m = NULL;
	}
}

static void op_mw(struct th *t)
{
	struct ibv_mw **w = &t->mw[pick(&t->r, NMW)];
	struct ibv_pd *pd = any_pd(t);

	if (!*w) {
		if (pd)
			*w = ibv_alloc_mw(pd, pick(&t->r, 2) ? IBV_MW_TYPE_2 :
							       IBV_MW_TYPE_1);
	} else if (!ibv_dealloc_mw(*w)) {
		*w = NULL;
	}
}

static void op_ah(struct th *t)
{
	struct ibv_ah **h = &t->ah[pick(&t->r, NAH)];
	struct ibv_pd *pd = any_pd(t);
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1, .sl = pick(&t->r, 16),
		.grh = { .hop_limit = pick(&t->r, 256),
			 .sgid_index = pick(&t->r, 4) ? (uint32_t)gid : pick(&t->r, 1100),
			 .traffic_class = pick(&t->r, 256) },
	};

	if (!*h) {
		ibv_query_gid(ctx, 1, gid, &a.grh.dgid);
		if (pick(&t->r, 4) == 0)
			a.grh.dgid.raw[15] ^= (uint8_t)rnd(&t->r);
		if (pd)
			*h = ibv_create_ah(pd, &a);
	} else if (!ibv_destroy_ah(*h)) {
		*h = NULL;
	}
}

static void on_crash(int sig)
{
	void *bt[32];
	int n = backtrace(bt, 32);

	dprintf(1, "# fuzzer crashed (signal %d) in %s:\n", sig,
		doing ? doing : "?");
	backtrace_symbols_fd(bt, n, 1);
	_exit(128 + sig);
}

static void *thread_main(void *arg)
{
	struct th *t = arg;

	while (now() < end) {
		switch (pick(&t->r, 16)) {
		case 0:
			doing = "op_pd";
			op_pd(t);
			break;
		case 1:
		case 2:
			doing = "op_cq";
			op_cq(t);
			break;
		case 3:
			doing = "op_srq";
			op_srq(t);
			break;
		case 4:
		case 5:
			doing = "op_mr";
			op_mr(t);
			break;
		case 6:
			doing = "op_mw";
			op_mw(t);
			break;
		case 7:
			doing = "op_ah";
			op_ah(t);
			break;
		default:
			op_qp(t);
		}
		t->ops++;
	}
	return NULL;
}

/* Destroy in dependency order, each kind until nothing more goes. */
static void teardown(struct th *t)
{
	int i, pass;

	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < NAH; i++)
			if (t->ah[i] && !ibv_destroy_ah(t->ah[i]))
				t->ah[i] = NULL;
		for (i = 0; i < NMW; i++)
			if (t->mw[i] && !ibv_dealloc_mw(t->mw[i]))
				t->mw[i] = NULL;
		for (i = 0; i < NQP; i++) {
			union ibv_gid g = { .raw = { 0xff, 0x0e } };

			if (!t->qp[i].qp)
				continue;
			/* uverbs refuses to destroy a QP still attached */
			for (g.raw[15] = 0; g.raw[15] < 8; g.raw[15]++)
				ibv_detach_mcast(t->qp[i].qp, &g, 0);
			if (!ibv_destroy_qp(t->qp[i].qp))
				t->qp[i].qp = NULL;
		}
		for (i = 0; i < NMR; i++)
			if (t->mr[i] && !ibv_dereg_mr(t->mr[i]))
				t->mr[i] = NULL;
		for (i = 0; i < NSRQ; i++)
			if (t->srq[i] && !ibv_destroy_srq(t->srq[i]))
				t->srq[i] = NULL;
		for (i = 0; i < NCQ; i++)
			if (t->cq[i] && !ibv_destroy_cq(t->cq[i]))
				t->cq[i] = NULL;
		for (i = 0; i < NPD; i++)
			if (t->pd[i] && !ibv_dealloc_pd(t->pd[i]))
				t->pd[i] = NULL;
	}
}

/* One round in this (child) process; exit status 0, or 3 if not torn down. */
static int round_main(const char *dev, uint64_t seed, double secs, int nth)
{
	struct th *t = calloc(nth, sizeof(*t));
	pthread_t *tid = calloc(nth, sizeof(*tid));
	long ops = 0;
	int i, left = 0;

	ctx = open_dev(dev);
	if (!ctx || !t || !tid || ibv_query_device(ctx, &da))
		return 2;
	gid = ipv4_gid(ctx);
	if (gid < 0)
		gid = 0;
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	end = now() + secs;
	for (i = 0; i < nth; i++) {
		t[i].r.s = seed * 0x9e3779b97f4a7c15ULL + i + 1;
		t[i].id = i;
		t[i].buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t[i].buf == MAP_FAILED)
			return 2;
		pthread_create(&tid[i], NULL, thread_main, &t[i]);
	}
	for (i = 0; i < nth; i++) {
		pthread_join(tid[i], NULL);
		ops += t[i].ops;
	}
	for (i = 0; i < nth; i++) {
		int k;

		teardown(&t[i]);
		for (k = 0; k < NPD; k++)
			left += !!t[i].pd[k];
		for (k = 0; k < NCQ; k++)
			left += !!t[i].cq[k];
	}
	printf("# round seed %llu: %ld operations, %d PDs and CQs left\n",
	       (unsigned long long)seed, ops, left);
	fflush(stdout);
	return ibv_close_device(ctx) || left ? 3 : 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 3 ? strtoull(argv[2], NULL, 0) : 0;
	double secs = argc > 3 ? atof(argv[3]) : 0;
	int nth = argc > 4 ? atoi(argv[4]) : 4;
	int rounds = argc > 5 ? atoi(argv[5]) : 6;
	int i, st, crashed = 0, killed = 0, clean = 0;
	struct rnd r;

	if (argc < 4 || secs <= 0 || nth < 1 || nth > 64 || rounds < 1) {
		fprintf(stderr, "usage: verbs_fuzz DEVICE SEED SECONDS [THREADS] [ROUNDS]\n");
		return 2;
	}
	printf("# verbs_fuzz: seed %llu, %.0f s, %d threads, %d rounds\n",
	       (unsigned long long)seed, secs, nth, rounds);
	fflush(stdout);
	r.s = seed + 0x1234567;
	for (i = 0; i < rounds; i++) {
		double share = secs / rounds;
		int kill_it = i % 2;
		pid_t pid;

		fflush(stdout);
		pid = fork();

		if (!pid)
			_exit(round_main(argv[1], seed + i, share, nth));
		if (kill_it) {
			usleep((useconds_t)(share * 1e6 * (pick(&r, 90) + 5) / 100));
			kill(pid, SIGKILL);
		}
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && kill_it) {
			killed++;
		} else if (WIFEXITED(st) && !WEXITSTATUS(st)) {
			clean++;
		} else {
			crashed++;
			printf("# round %d (seed %llu): %s %d\n", i,
			       (unsigned long long)(seed + i),
			       WIFSIGNALED(st) ? "signal" : "exit",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
	check(!crashed, "%d rounds: %d ended cleanly, %d killed, %d failed",
	      rounds, clean, killed, crashed);
	return nfail ? 1 : 0;
}
