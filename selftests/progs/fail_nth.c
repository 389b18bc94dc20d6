// SPDX-License-Identifier: GPL-2.0
/*
 * fail_nth DEVICE: every uverbs command sroce implements, with the kernel's
 * fault injection (/proc/thread-self/fail-nth) failing its 1st, 2nd, ...
 * allocation in turn, until the command runs with none failed.
 *
 * Each failed allocation must surface as a clean error: the verb returns
 * an errno (or the provider NULL with errno set), or succeeds anyway (an
 * allocation with a fallback). Whatever it made is destroyed; after the
 * walk the same verb succeeds once more without injection. The test
 * behind this (verbs/fail_nth.sh) then checks that no object is left and
 * the harness that the kernel logged nothing and kmemleak found nothing.
 * The test sets failslab to fail sleeping allocations too.
 *
 * Commands: open_device (alloc_ucontext), alloc_pd, create_cq, resize_cq,
 * create_qp (RC and UD), modify_qp (INIT, RTR, RTS), query_qp,
 * create_srq, modify_srq, reg_mr (pinned and ODP), alloc_mw, bind_mw (a
 * post_send doorbell), create_ah, attach_mcast, post_send (an RDMA WRITE
 * through the doorbell); then dereg_mr, destroy_srq, destroy_qp,
 * destroy_cq, dealloc_mw, destroy_ah and dealloc_pd, each of which must
 * succeed, or fail with an errno and succeed when called again.
 *
 * TAP lines; exit 0 when all pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"

#define MAX_NTH		400
#define BUF		65536

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;		/* an RC pair, connected */
static struct ibv_mr *mr;
static char *buf;
static const char *devname;
static int gid, nthfd = -1;

static void arm(int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%d", n);

	if (pwrite(nthfd, s, len, 0) != len)
		abort();
}

/* Whether the armed failure happened; disarms. */
static int fired(void)
{
	char s[16] = "";
	int left;

	if (pread(nthfd, s, sizeof(s) - 1, 0) <= 0)
		abort();
	left = atoi(s);
	arm(0);
	return left == 0;
}

/*
 * One verb under test: do() returns an object (or (void *)1 for a verb
 * that makes none) or NULL with errno; undo() takes back what do() made.
 */
struct verb {
	const char *name;
	void *(*run)(void);
	void (*undo)(void *obj);
	void (*prep)(void);	/* before each run, not under injection */
};

/*
 * A clean failure sets errno. (Which one is the provider's and the core's
 * choice: libibverbs reports a failed open_device as ENOENT or ENOSYS.)
 */
static int errno_ok(int e)
{
	return e != 0;
}

/* Fail each allocation of @v in turn; TAP line. */
static void walk(const struct verb *v)
{
	int n, points = 0, errs = 0, ok_anyway = 0, bad_errno = 0, last = 0;
	void *obj;

	for (n = 1; n <= MAX_NTH; n++) {
		if (v->prep)
			v->prep();
		arm(n);
		errno = 0;
		obj = v->run();
		last = errno;
		if (!fired()) {
			/* the verb made fewer allocations than n */
			if (obj)
				v->undo(obj);
			break;
		}
		points++;
		if (obj) {
			ok_anyway++;
			v->undo(obj);
		} else if (errno_ok(last)) {
			errs++;
		} else {
			bad_errno++;
			printf("# %s: allocation %d failed, and no errno\n",
			       v->name, n);
		}
	}
	if (v->prep)
		v->prep();
	errno = 0;
	obj = v->run();
	check(n <= MAX_NTH && !bad_errno && obj,
	      "%s: %d allocations failed in turn: %d errors, %d succeeded anyway; then it works (%s)",
	      v->name, points, errs, ok_anyway, obj ? "yes" : strerror(errno));
	if (obj)
		v->undo(obj);
}

/*
 * A destroy under injection: it succeeds, or fails with an errno and
 * succeeds when called again without it (the object is still whole).
 */
static void walk_destroy(const char *name, void *(*make)(void),
			 int (*destroy)(void *))
{
	int n, points = 0, errs = 0, bad = 0, err;
	void *obj;

	for (n = 1; n <= MAX_NTH; n++) {
		obj = make();
		if (!obj) {
			bad++;
			break;
		}
		arm(n);
		err = destroy(obj);
		if (!fired()) {
			bad += !!err;
			break;
		}
		points++;
		if (err) {
			errs++;
			if (!errno_ok(err) || destroy(obj)) {
				printf("# %s: failed at allocation %d with %d, and again\n",
				       name, n, err);
				bad++;
			}
		}
	}
	check(n <= MAX_NTH && !bad,
	      "%s: %d allocations failed in turn: %d errors, each destroyed when called again",
	      name, points, errs);
}

/* ------------------------------------------------------------- the verbs */

static void *run_open(void)
{
	return open_dev(devname);
}

static void undo_open(void *o)
{
	ibv_close_device(o);
}

static void *run_pd(void)
{
	return ibv_alloc_pd(ctx);
}

static void undo_pd(void *o)
{
	ibv_dealloc_pd(o);
}

static void *run_cq(void)
{
	return ibv_create_cq(ctx, 256, NULL, NULL, 0);
}

static void undo_cq(void *o)
{
	ibv_destroy_cq(o);
}

static struct ibv_cq *rcq;

static void *run_resize(void)
{
	static int sz = 300;

	sz = sz == 300 ? 600 : 300;	/* a different size each time */
	errno = ibv_resize_cq(rcq, sz);
	return errno ? NULL : (void *)1;
}

static void undo_none(void *o)
{
	(void)o;
}

static struct ibv_qp *make_qp(enum ibv_qp_type t, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t, .srq = srq,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 2, .max_recv_sge = srq ? 0 : 2,
			 .max_inline_data = 64 },
	};

	return ibv_create_qp(pd, &a);
}

static void *run_qp_rc(void)
{
	return make_qp(IBV_QPT_RC, NULL);
}

static void *run_qp_ud(void)
{
	return make_qp(IBV_QPT_UD, NULL);
}

static void undo_qp(void *o)
{
	ibv_destroy_qp(o);
}

static int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .hop_limit = 1, .sgid_index = gid } },
	};

	ibv_query_gid(ctx, 1, gid, &a.ah_attr.grh.dgid);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

static int to_rts(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* modify_qp to RTS from RESET, each step under injection in turn. */
static void *run_modify(void)
{
	struct ibv_qp *qp = make_qp(IBV_QPT_RC, NULL);
	int err;

	if (!qp)
		return NULL;
	err = to_init(qp) ?: to_rtr(qp, qp->qp_num) ?: to_rts(qp);
	if (err) {
		ibv_destroy_qp(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

static void *run_query_qp(void)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	errno = ibv_query_qp(qa, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_CAP, &ia);
	return errno ? NULL : (void *)1;
}

static void *run_srq(void)
{
	struct ibv_srq_init_attr a = { .attr = { .max_wr = 64, .max_sge = 2 } };

	return ibv_create_srq(pd, &a);
}

static void undo_srq(void *o)
{
	ibv_destroy_srq(o);
}

static struct ibv_srq *msrq;

static void *run_modify_srq(void)
{
	struct ibv_srq_attr a = { .max_wr = 200, .srq_limit = 4 };

	errno = ibv_modify_srq(msrq, &a, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT);
	return errno ? NULL : (void *)1;
}

static void *run_mr(void)
{
	return ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
}

static void *run_odp_mr(void)
{
	return ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
}

static void undo_mr(void *o)
{
	ibv_dereg_mr(o);
}

static void *run_mw(void)
{
	return ibv_alloc_mw(pd, IBV_MW_TYPE_2);
}

static void undo_mw(void *o)
{
	ibv_dealloc_mw(o);
}

static int to_init(struct ibv_qp *qp);
static int to_rtr(struct ibv_qp *qp, uint32_t dqpn);
static int to_rts(struct ibv_qp *qp);

/* The RC pair, reset and connected again (after an error). */
static int rebuild_pair(void)
{
	struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc;

	ibv_modify_qp(qa, &r, IBV_QP_STATE);
	ibv_modify_qp(qb, &r, IBV_QP_STATE);
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;
	return to_init(qa) || to_init(qb) || to_rtr(qa, qb->qp_num) ||
	       to_rtr(qb, qa->qp_num) || to_rts(qa) || to_rts(qb);
}

/* Wait for one completion on cq; its status, or -1. */
static int one_wc(void)
{
	struct ibv_wc wc;
	double end = now() + 10;
	int n = 0;

	while (!n && now() < end)
		n = ibv_poll_cq(cq, 1, &wc);
	return n == 1 ? (int)wc.status : -1;
}

/*
 * The RC pair in RTS with nothing outstanding, before a doorbell verb: a
 * failed doorbell leaves its WQE in the ring (the provider moved the
 * producer index before the call), to run with the next one.
 */
static void prep_pair(void)
{
	rebuild_pair();
}

/* A doorbell (post_send) carrying a type 2 bind of a new window. */
static void *run_bind(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_send_wr wr = {
		.opcode = IBV_WR_BIND_MW, .send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .bind_info = { .mr = mr, .addr = (uintptr_t)buf,
					    .length = 4096,
					    .mw_access_flags = IBV_ACCESS_REMOTE_WRITE } },
	}, *bad;
	int st, err;

	if (!mw)
		return NULL;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	err = ibv_post_send(qa, &wr, &bad);
	st = err ? -1 : one_wc();
	if (!err && st == IBV_WC_SUCCESS)
		return mw;
	if (!err)
		printf("# bind: completion %d\n", st);
	ibv_dealloc_mw(mw);
	errno = err ?: EIO;
	return NULL;
}

static void undo_bind(void *o)
{
	ibv_dealloc_mw(o);
}

static void *run_ah(void)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1,
		.grh = { .hop_limit = 1, .sgid_index = gid },
	};

	ibv_query_gid(ctx, 1, gid, &a.grh.dgid);
	return ibv_create_ah(pd, &a);
}

static void undo_ah(void *o)
{
	ibv_destroy_ah(o);
}

static struct ibv_qp *mqp;
static union ibv_gid mgid = { .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff, 239, 1, 2, 3 } };

static void *run_attach(void)
{
	errno = ibv_attach_mcast(mqp, &mgid, 0);
	return errno ? NULL : (void *)1;
}

static void undo_attach(void *o)
{
	(void)o;
	ibv_detach_mcast(mqp, &mgid, 0);
}

/*
 * post_send: an RDMA WRITE between the RC pair. The doorbell itself may
 * fail, or the packet's allocation: then the WRITE still completes (sent
 * again) or completes in error, and the pair is rebuilt.
 */
static void *run_write(void)
{
	struct ibv_sge sge = { (uintptr_t)buf, 1024, mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr = { .rdma = { (uintptr_t)buf + BUF / 2, mr->rkey } },
	}, *bad;
	int st;

	errno = ibv_post_send(qa, &wr, &bad);
	if (errno)
		return NULL;
	st = one_wc();
	if (st == IBV_WC_SUCCESS && !memcmp(buf, buf + BUF / 2, 1024))
		return (void *)1;
	printf("# write: completion %d\n", st);
	errno = EIO;
	return NULL;
}

static int destroy_mr(void *o) { return ibv_dereg_mr(o); }
static int destroy_srq(void *o) { return ibv_destroy_srq(o); }
static int destroy_qp(void *o) { return ibv_destroy_qp(o); }
static int destroy_cq(void *o) { return ibv_destroy_cq(o); }
static int destroy_mw(void *o) { return ibv_dealloc_mw(o); }
static int destroy_ah(void *o) { return ibv_destroy_ah(o); }
static int destroy_pd(void *o) { return ibv_dealloc_pd(o); }

static const struct verb verbs[] = {
	{ "open_device", run_open, undo_open, NULL },
	{ "alloc_pd", run_pd, undo_pd, NULL },
	{ "create_cq", run_cq, undo_cq, NULL },
	{ "resize_cq", run_resize, undo_none, NULL },
	{ "create_qp RC", run_qp_rc, undo_qp, NULL },
	{ "create_qp UD", run_qp_ud, undo_qp, NULL },
	{ "modify_qp to RTS", run_modify, undo_qp, NULL },
	{ "query_qp", run_query_qp, undo_none, NULL },
	{ "create_srq", run_srq, undo_srq, NULL },
	{ "modify_srq", run_modify_srq, undo_none, NULL },
	{ "reg_mr", run_mr, undo_mr, NULL },
	{ "reg_mr ODP", run_odp_mr, undo_mr, NULL },
	{ "alloc_mw", run_mw, undo_mw, NULL },
	{ "bind_mw", run_bind, undo_bind, prep_pair },
	{ "create_ah", run_ah, undo_ah, NULL },
	{ "attach_mcast", run_attach, undo_attach, NULL },
	{ "post_send RDMA WRITE", run_write, undo_none, prep_pair },
};

static int setup(void)
{
	buf = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, 300, NULL, NULL, 0);
	gid = ipv4_gid(ctx);
	if (buf == MAP_FAILED || !pd || !cq || !rcq || gid < 0)
		return -1;
	mr = run_mr();
	msrq = run_srq();
	qa = make_qp(IBV_QPT_RC, NULL);
	qb = make_qp(IBV_QPT_RC, NULL);
	mqp = make_qp(IBV_QPT_UD, NULL);
	if (!mr || !msrq || !qa || !qb || !mqp)
		return -1;
	memset(buf, 0x5a, 1024);
	return to_init(qa) || to_init(qb) || to_rtr(qa, qb->qp_num) ||
	       to_rtr(qb, qa->qp_num) || to_rts(qa) || to_rts(qb);
}

int main(int argc, char **argv)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111 };
	unsigned int i;

	devname = argc > 1 ? argv[1] : NULL;
	ctx = devname ? open_dev(devname) : NULL;
	nthfd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (!ctx || nthfd < 0) {
		fprintf(stderr, "usage: fail_nth DEVICE (on a kernel with fault injection)\n");
		return 2;
	}
	if (!check(!setup(), "objects to work on, an RC pair in RTS"))
		return 1;
	check(!ibv_modify_qp(mqp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY), "a UD QP in INIT");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		walk(&verbs[i]);
	}
	walk_destroy("dereg_mr", run_mr, destroy_mr);
	walk_destroy("destroy_srq", run_srq, destroy_srq);
	walk_destroy("destroy_qp", run_qp_rc, destroy_qp);
	walk_destroy("destroy_cq", run_cq, destroy_cq);
	walk_destroy("dealloc_mw", run_mw, destroy_mw);
	walk_destroy("destroy_ah", run_ah, destroy_ah);
	walk_destroy("dealloc_pd", run_pd, destroy_pd);
	ibv_destroy_qp(mqp);
	ibv_destroy_qp(qb);
	ibv_destroy_qp(qa);
	ibv_destroy_srq(msrq);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(rcq);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return nfail ? 1 : 0;
}
