// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs raced against each other from two threads, each race looped for a
 * bounded time; one process drives two sroce devices.
 *
 *   races MODE DEV_A GID_A DEV_B GID_B [SECONDS]
 *
 *   mw_dereg	thread 1 deregisters an MR while thread 2 binds a type 1
 *		window to it. Dereg returning 0 while the bind succeeds is
 *		an impossible state (a window on a freed MR); each round
 *		ends with either EBUSY and a bound window or 0 and a failed
 *		bind. A WRITE through a window whose MR is gone fails with
 *		IBV_WC_REM_ACCESS_ERR.
 *   cq_resize	two threads resize one CQ; one passes a response buffer
 *		that faults (raw write() on the uverbs fd) and must get
 *		EFAULT; the other's resizes succeed, or fail with EINVAL
 *		when the faulting one replaced the new ring before it was
 *		mapped (its cookie is withdrawn then). Afterwards a resize
 *		works. A cookie removed twice or leaked shows in the kernel
 *		log (refcount underflow, or a WARN when the device closes).
 *   srq_resize	the same with modify_srq(IBV_SRQ_MAX_WR), the new ring's
 *		mminfo going to an address that faults.
 *   cq_poll	one thread resizes a CQ while another polls it and RDMA
 *		WRITEs complete into it: every completion arrives once, in
 *		order, successful.
 *   qp_fault	create_qp with a response buffer that faults fails with
 *		EFAULT, again and again, while a UD QP sprays packets at the
 *		QPNs those attempts take (the receive path must never hold
 *		a QP that the failed create frees).
 *   all	all of the above, SECONDS each.
 *
 * Prints TAP; exits non-zero if a check failed. The kernel log is checked
 * by the harness (a leaked mmap entry WARNs when the device is closed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../uapi/rdma_user_sroce.h"
#include "common.h"

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gid;
	union ibv_gid gidv;
	enum ibv_mtu mtu;
	char *buf;
	struct ibv_mr *mr;
};

#define BUFLEN	(1 << 20)

static struct side A, B;
static double seconds = 10;
static void *fault_page;	/* PROT_NONE: any copy to it faults */

static int side_init(struct side *s, const char *dev, int gid)
{
	struct ibv_port_attr pa;

	s->ctx = open_dev(dev);
	if (!s->ctx)
		return -1;
	s->gid = gid;
	if (ibv_query_gid(s->ctx, 1, gid, &s->gidv) ||
	    ibv_query_port(s->ctx, 1, &pa))
		return -1;
	s->mtu = pa.active_mtu;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 4096, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUFLEN);
	if (!s->pd || !s->cq || !s->buf)
		return -1;
	memset(s->buf, 0, BUFLEN);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUFLEN, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	return s->mr ? 0 : -1;
}

static struct ibv_qp *make_qp(struct side *s, struct ibv_cq *scq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq ? scq : s->cq, .recv_cq = s->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(s->pd, &a);
}

/* RESET -> INIT -> RTR -> RTS towards @dqpn on @peer. */
static int connect_qp(struct side *s, struct ibv_qp *qp, struct side *peer,
		      uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RESET,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = s->mtu, .dest_qp_num = dqpn,
		.rq_psn = 1000, .max_dest_rd_atomic = 16, .min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = peer->gidv, .sgid_index = s->gid,
				      .hop_limit = 64 } },
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = 1000, .max_rd_atomic = 16,
	};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double timeout)
{
	double end = now() + timeout;
	int got = 0, r;

	while (got < n && now() < end) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
		if (!r)
			usleep(100);
	}
	return got;
}

/* A fresh connected pair qa (on A) <-> qb (on B); NULLs on failure. */
static int make_pair(struct ibv_qp **qa, struct ibv_qp **qb)
{
	*qa = make_qp(&A, NULL);
	*qb = make_qp(&B, NULL);
	if (!*qa || !*qb)
		return -1;
	if (connect_qp(&A, *qa, &B, (*qb)->qp_num) ||
	    connect_qp(&B, *qb, &A, (*qa)->qp_num))
		return -1;
	return 0;
}

static void drop_pair(struct ibv_qp *qa, struct ibv_qp *qb)
{
	struct ibv_wc wc[64];

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	while (ibv_poll_cq(A.cq, 64, wc) > 0)
		;
	while (ibv_poll_cq(B.cq, 64, wc) > 0)
		;
}

/* One signalled RDMA WRITE of 64 bytes from qa to @raddr/@rkey. */
static enum ibv_wc_status write_through(struct ibv_qp *qa, uint64_t raddr,
					uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)A.buf, 64, A.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qa, &wr, &bad) || poll_n(A.cq, &wc, 1, 60) != 1)
		return IBV_WC_GENERAL_ERR;
	return wc.status;
}

/* ------------------------------------------------------------ mw_dereg */

struct binder {
	pthread_barrier_t go, done;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mw *mw;
	struct ibv_mr mr;	/* a copy: the real one may be freed meanwhile */
	uint32_t rkey;		/* the key to bind with */
	uint64_t addr, len;
	enum ibv_wc_status st;
	int stop;
};

/* Post BIND_MW (or unbind, @len 0) on the binder's QP; the status. */
static enum ibv_wc_status bind_once(struct binder *b)
{
	struct ibv_send_wr wr = { .wr_id = 1, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.bind_mw.mw = b->mw;
	wr.bind_mw.rkey = b->rkey;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = &b->mr, .addr = b->addr, .length = b->len,
		.mw_access_flags = b->len ? IBV_ACCESS_REMOTE_WRITE : 0 };
	if (ibv_post_send(b->qp, &wr, &bad) || poll_n(b->cq, &wc, 1, 30) != 1)
		return IBV_WC_GENERAL_ERR;
	return wc.status;
}

static void *binder_main(void *arg)
{
	struct binder *b = arg;

	for (;;) {
		pthread_barrier_wait(&b->go);
		if (b->stop)
			return NULL;
		b->st = bind_once(b);
		pthread_barrier_wait(&b->done);
	}
}

/* After a failed bind the binder's QP is in ERROR: back to RTS. */
static int binder_reset(struct binder *b, uint32_t dqpn)
{
	struct ibv_wc wc[8];

	while (ibv_poll_cq(b->cq, 8, wc) > 0)
		;
	return connect_qp(&B, b->qp, &A, dqpn);
}

static void mw_dereg(void)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_MW_BIND;
	unsigned int rounds = 0, busy = 0, gone = 0, impossible = 0, bad = 0;
	struct ibv_qp *qa, *qb, *qd;
	uint32_t key, dqpn;
	struct binder b = {};
	struct ibv_mr *mr;
	double end = now() + seconds;
	pthread_t t;
	char *wbuf = B.buf + 65536;
	int rc, first_busy = 1;
	enum ibv_wc_status st;

	/* qa -> qb carries the WRITEs; B's binder QP faces a dummy on A. */
	b.cq = ibv_create_cq(B.ctx, 64, NULL, NULL, 0);
	qd = make_qp(&A, NULL);
	b.qp = b.cq ? make_qp(&B, b.cq) : NULL;
	b.mw = ibv_alloc_mw(B.pd, IBV_MW_TYPE_1);
	if (!qd || !b.qp || !b.mw || make_pair(&qa, &qb) ||
	    connect_qp(&B, b.qp, &A, qd->qp_num) ||
	    connect_qp(&A, qd, &B, b.qp->qp_num)) {
		check(0, "mw_dereg: set up");
		return;
	}
	dqpn = qd->qp_num;
	key = b.mw->rkey;
	pthread_barrier_init(&b.go, NULL, 2);
	pthread_barrier_init(&b.done, NULL, 2);
	pthread_create(&t, NULL, binder_main, &b);

	while (now() < end && rounds < 20000) {
		mr = ibv_reg_mr(B.pd, wbuf, 4096, access);
		if (!mr) {
			check(0, "mw_dereg: reg_mr: %s", strerror(errno));
			break;
		}
		rounds++;
		b.mr = *mr;
		b.mw->rkey = key;
		b.rkey = ibv_inc_rkey(key);
		b.addr = (uintptr_t)wbuf;
		b.len = 4096;
		pthread_barrier_wait(&b.go);
		rc = ibv_dereg_mr(mr);
		pthread_barrier_wait(&b.done);

		if (rc == 0 && b.st == IBV_WC_SUCCESS) {
			/* The window is bound to a freed MR. */
			impossible++;
			printf("# round %u: RACE WON: dereg 0 and bind ok\n",
			       rounds);
			key = b.rkey;
			st = write_through(qa, (uintptr_t)wbuf, key);
			check(st == IBV_WC_REM_ACCESS_ERR,
			      "mw_dereg: WRITE through the window of a freed MR: %s",
			      ibv_wc_status_str(st));
			break;
		} else if (rc == 0) {
			gone++;
			if (binder_reset(&b, dqpn)) {
				check(0, "mw_dereg: binder QP back to RTS");
				break;
			}
		} else if (rc == EBUSY && b.st == IBV_WC_SUCCESS) {
			busy++;
			key = b.rkey;
			if (first_busy) {
				/* Once: the window works while bound. */
				first_busy = 0;
				st = write_through(qa, (uintptr_t)wbuf + 64, key);
				check(st == IBV_WC_SUCCESS,
				      "mw_dereg: WRITE through a bound window: %s",
				      ibv_wc_status_str(st));
			}
			/* Unbind (zero length, new key), then dereg works. */
			b.mw->rkey = key;
			b.rkey = ibv_inc_rkey(key);
			b.len = 0;
			b.addr = 0;
			st = bind_once(&b);
			if (st != IBV_WC_SUCCESS) {
				check(0, "mw_dereg: unbind: %s",
				      ibv_wc_status_str(st));
				break;
			}
			key = b.rkey;
			rc = ibv_dereg_mr(mr);
			if (rc) {
				check(0, "mw_dereg: dereg after unbind: %s",
				      strerror(rc));
				break;
			}
		} else {
			bad++;
			printf("# round %u: dereg %s, bind %s\n", rounds,
			       strerror(rc), ibv_wc_status_str(b.st));
			break;
		}
	}
	b.stop = 1;
	pthread_barrier_wait(&b.go);
	pthread_join(t, NULL);
	printf("# %u rounds: %u dereg first, %u bind first\n", rounds, gone,
	       busy);
	check(rounds > 0 && !impossible && !bad,
	      "mw_dereg: no round with dereg 0 and the bind ok (%u), none inconsistent (%u)",
	      impossible, bad);

	if (!impossible) {
		/* Deterministic: a bind to an MR that is gone fails... */
		mr = ibv_reg_mr(B.pd, wbuf, 4096, access);
		b.mr = mr ? *mr : b.mr;
		check(mr && !ibv_dereg_mr(mr), "mw_dereg: reg and dereg an MR");
		b.mw->rkey = key;
		b.rkey = ibv_inc_rkey(key);
		b.addr = (uintptr_t)wbuf;
		b.len = 4096;
		st = bind_once(&b);
		check(st == IBV_WC_MW_BIND_ERR,
		      "mw_dereg: bind to a deregistered MR: MW_BIND_ERR (%s)",
		      ibv_wc_status_str(st));
		/* ...and nothing is reachable through the key it tried. */
		st = write_through(qa, (uintptr_t)wbuf, b.rkey);
		check(st == IBV_WC_REM_ACCESS_ERR,
		      "mw_dereg: WRITE through that window: REM_ACCESS_ERR (%s)",
		      ibv_wc_status_str(st));
	}
	check(!ibv_dealloc_mw(b.mw), "mw_dereg: dealloc the window");
	drop_pair(qa, qb);
	ibv_destroy_qp(b.qp);
	ibv_destroy_qp(qd);
	ibv_destroy_cq(b.cq);
}

/* ------------------------------------------------------ resize races */

struct resizer {
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	double end;
	volatile int stop;
	unsigned int ok, fail, n;
	int last_err;
};

/* resize_cq through write(), the response (and so the driver's part of
 * it) in a page that faults. */
static int raw_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_resize_cq cmd;
	} c = {};

	c.hdr.command = IB_USER_VERBS_CMD_RESIZE_CQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = (sizeof(struct ib_uverbs_resize_cq_resp) +
			   sizeof(struct sroce_resize_cq_resp)) / 4;
	c.cmd.response = (uintptr_t)fault_page;
	c.cmd.cq_handle = cq->handle;
	c.cmd.cqe = cqe;
	return write(cq->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ?
	       0 : errno;
}

/* modify_srq(MAX_WR) through write(), mmap_info_addr in a page that
 * faults. */
static int raw_resize_srq(struct ibv_srq *srq, uint32_t max_wr)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_modify_srq cmd;
		struct sroce_modify_srq_cmd drv;
	} c = {};

	c.hdr.command = IB_USER_VERBS_CMD_MODIFY_SRQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.cmd.srq_handle = srq->handle;
	c.cmd.attr_mask = IBV_SRQ_MAX_WR;
	c.cmd.max_wr = max_wr;
	c.drv.mmap_info_addr = (uintptr_t)fault_page;
	return write(srq->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ?
	       0 : errno;
}

static void *faulty_main(void *arg)
{
	struct resizer *r = arg;
	int err;

	while (!r->stop && now() < r->end) {
		r->n++;
		err = r->cq ? raw_resize_cq(r->cq, r->n & 1 ? 100 : 300) :
			      raw_resize_srq(r->srq, r->n & 1 ? 100 : 300);
		if (err == EFAULT) {
			r->fail++;
		} else {
			r->ok++;
			r->last_err = err;
		}
	}
	return NULL;
}

static void resize_race(int srq_mode)
{
	const char *what = srq_mode ? "srq_resize" : "cq_resize";
	struct resizer f = {}, g = {};
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct ibv_wc wc;
	pthread_t t;
	int err;

	if (srq_mode)
		f.srq = g.srq = ibv_create_srq(A.pd, &si);
	else
		f.cq = g.cq = ibv_create_cq(A.ctx, 64, NULL, NULL, 0);
	if (!f.cq && !f.srq) {
		check(0, "%s: create", what);
		return;
	}
	f.end = g.end = now() + seconds;
	pthread_create(&t, NULL, faulty_main, &f);
	while (now() < g.end && g.n < 100000) {
		g.n++;
		if (srq_mode) {
			sa = (struct ibv_srq_attr){
				.max_wr = g.n & 1 ? 200 : 50 };
			err = ibv_modify_srq(g.srq, &sa, IBV_SRQ_MAX_WR);
		} else {
			err = ibv_resize_cq(g.cq, g.n & 1 ? 200 : 50);
		}
		if (err == EINVAL) {
			g.fail++;	/* its new ring was replaced already */
		} else if (err) {
			g.ok = 0;
			g.last_err = err;
			break;
		} else {
			g.ok++;
		}
	}
	f.stop = 1;
	pthread_join(t, NULL);
	printf("# %s: %u good resizes (%u lost their ring), %u faulting ones\n",
	       what, g.ok, g.fail, f.n);
	check(g.ok > 0 && !g.last_err,
	      "%s: resizes with a good buffer succeed or lose the race with EINVAL (%s)",
	      what, g.last_err ? strerror(g.last_err) : "yes");
	check(f.n > 0 && !f.ok,
	      "%s: every resize with a faulting buffer gets EFAULT (%u did not, last %s)",
	      what, f.ok, strerror(f.last_err));
	if (srq_mode) {
		sa = (struct ibv_srq_attr){ .max_wr = 100 };
		err = ibv_modify_srq(g.srq, &sa, IBV_SRQ_MAX_WR);
		check(!err && !ibv_query_srq(g.srq, &sa) && sa.max_wr >= 100 &&
		      !ibv_destroy_srq(g.srq),
		      "%s: then a resize alone works (%s), query, destroy",
		      what, strerror(err));
	} else {
		err = ibv_resize_cq(g.cq, 100);
		check(!err && g.cq->cqe >= 100 && ibv_poll_cq(g.cq, 1, &wc) == 0 &&
		      !ibv_destroy_cq(g.cq),
		      "%s: then a resize alone works (%s), poll, destroy",
		      what, strerror(err));
	}
}

/* ---------------------------------------------------- resize vs poll */

static void *cq_resizer_main(void *arg)
{
	struct resizer *r = arg;
	int err;

	while (!r->stop && now() < r->end) {
		r->n++;
		err = ibv_resize_cq(r->cq, r->n & 1 ? 256 : 64);
		if (err) {
			r->fail++;
			r->last_err = err;
		} else {
			r->ok++;
		}
	}
	return NULL;
}

static void cq_poll(void)
{
	struct ibv_sge sge = { (uintptr_t)A.buf, 64, A.mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *badwr;
	uint64_t posted = 0, next = 1, bad = 0;
	struct resizer r = {};
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[16];
	pthread_t t;
	int i, n;

	r.cq = ibv_create_cq(A.ctx, 64, NULL, NULL, 0);
	qa = r.cq ? make_qp(&A, r.cq) : NULL;
	qb = make_qp(&B, NULL);
	if (!qa || !qb || connect_qp(&A, qa, &B, qb->qp_num) ||
	    connect_qp(&B, qb, &A, qa->qp_num)) {
		check(0, "cq_poll: set up");
		return;
	}
	wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
	wr.wr.rdma.rkey = B.mr->rkey;
	r.end = now() + seconds;
	pthread_create(&t, NULL, cq_resizer_main, &r);
	/* At most 32 WRITEs in flight: a 64-entry ring always holds them. */
	while (now() < r.end + 30 && (now() < r.end || next <= posted)) {
		while (now() < r.end && posted - next + 1 < 32) {
			wr.wr_id = ++posted;
			if (ibv_post_send(qa, &wr, &badwr)) {
				posted--;
				break;
			}
		}
		n = ibv_poll_cq(r.cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id != next) {
				if (!bad++)
					printf("# completion %" PRIu64 ": wr_id %" PRIu64 " %s\n",
					       next, (uint64_t)wc[i].wr_id,
					       ibv_wc_status_str(wc[i].status));
			}
			next++;
		}
		if (n < 0)
			break;
	}
	r.stop = 1;
	pthread_join(t, NULL);
	printf("# cq_poll: %" PRIu64 " WRITEs, %u resizes\n", posted, r.ok);
	check(posted > 0 && next == posted + 1 && !bad,
	      "cq_poll: %" PRIu64 " completions of %" PRIu64 " arrived once, in order, successful (%" PRIu64 " wrong)",
	      next - 1, posted, bad);
	check(r.ok > 0 && !r.fail, "cq_poll: every resize succeeded (%u failed, last %s)",
	      r.fail, strerror(r.last_err));
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	check(!ibv_destroy_cq(r.cq), "cq_poll: destroy the CQ");
}

/* ----------------------------------------------------- create_qp fault */

struct sprayer {
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_cq *cq;
	volatile uint32_t qpn;	/* the QPN the next create will take */
	volatile int stop;
	unsigned int sent;
};

static void *spray_main(void *arg)
{
	struct sprayer *s = arg;
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct ibv_wc wc[32];
	unsigned int i = 0;

	wr.wr.ud.ah = s->ah;
	wr.wr.ud.remote_qkey = 0x1234;
	while (!s->stop) {
		wr.wr.ud.remote_qpn = s->qpn + (i & 1);
		wr.send_flags = (++i & 15) ? 0 : IBV_SEND_SIGNALED;
		if (ibv_post_send(s->qp, &wr, &bad) == 0)
			s->sent++;
		if (!(i & 15))
			poll_n(s->cq, wc, 1, 5);
	}
	return NULL;
}

static int raw_create_qp(struct ibv_qp *like)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_qp cmd;
	} c = {};

	c.hdr.command = IB_USER_VERBS_CMD_CREATE_QP;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = (sizeof(struct ib_uverbs_create_qp_resp) +
			   sizeof(struct sroce_create_qp_resp)) / 4;
	c.cmd.response = (uintptr_t)fault_page;
	c.cmd.pd_handle = like->pd->handle;
	c.cmd.send_cq_handle = like->send_cq->handle;
	c.cmd.recv_cq_handle = like->recv_cq->handle;
	c.cmd.max_send_wr = 4;
	c.cmd.max_recv_wr = 4;
	c.cmd.max_send_sge = 1;
	c.cmd.max_recv_sge = 1;
	c.cmd.qp_type = IBV_QPT_RC;
	return write(like->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ?
	       0 : errno;
}

static void qp_fault(void)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = A.gidv, .sgid_index = B.gid,
					   .hop_limit = 64 } };
	struct ibv_qp_init_attr ua = { .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x1234 };
	unsigned int tries = 0, efault = 0, other = 0;
	double end = now() + seconds;
	struct sprayer s = {};
	struct ibv_qp *q;
	pthread_t t;
	int err;

	s.cq = ibv_create_cq(B.ctx, 64, NULL, NULL, 0);
	ua.send_cq = ua.recv_cq = s.cq;
	s.qp = s.cq ? ibv_create_qp(B.pd, &ua) : NULL;
	s.ah = ibv_create_ah(B.pd, &aa);
	q = make_qp(&A, NULL);
	if (!s.qp || !s.ah || !q ||
	    ibv_modify_qp(s.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY)) {
		check(0, "qp_fault: set up");
		return;
	}
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(s.qp, &a, IBV_QP_STATE)) {
		check(0, "qp_fault: UD QP to RTR");
		return;
	}
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1 };
	if (ibv_modify_qp(s.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
		check(0, "qp_fault: UD QP to RTS");
		return;
	}
	/* QPNs are handed out in turn: the next attempt takes q's + 1. */
	s.qpn = q->qp_num + 1;
	pthread_create(&t, NULL, spray_main, &s);
	while (now() < end && tries < 5000) {
		tries++;
		err = raw_create_qp(q);
		if (err == EFAULT)
			efault++;
		else if (!other++)
			printf("# attempt %u: %s\n", tries, strerror(err));
		s.qpn++;
	}
	s.stop = 1;
	pthread_join(t, NULL);
	printf("# qp_fault: %u attempts, %u packets sprayed\n", tries, s.sent);
	check(tries > 0 && efault == tries,
	      "qp_fault: every create_qp with a faulting response: EFAULT (%u of %u)",
	      efault, tries);
	ibv_destroy_qp(q);
	q = make_qp(&A, NULL);
	check(q && !ibv_destroy_qp(q), "qp_fault: then a QP is created normally");
	ibv_destroy_qp(s.qp);
	ibv_destroy_ah(s.ah);
	ibv_destroy_cq(s.cq);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int all;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 6) {
		fprintf(stderr, "usage: races mw_dereg|cq_resize|srq_resize|cq_poll|qp_fault|all DEV_A GID_A DEV_B GID_B [SECONDS]\n");
		return 2;
	}
	if (argc > 6)
		seconds = atof(argv[6]);
	fault_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	if (fault_page == MAP_FAILED ||
	    side_init(&A, argv[2], atoi(argv[3])) ||
	    side_init(&B, argv[4], atoi(argv[5]))) {
		printf("Bail out! cannot set up the devices\n");
		return 1;
	}
	all = !strcmp(mode, "all");
	if (all || !strcmp(mode, "mw_dereg"))
		mw_dereg();
	if (all || !strcmp(mode, "cq_resize"))
		resize_race(0);
	if (all || !strcmp(mode, "srq_resize"))
		resize_race(1);
	if (all || !strcmp(mode, "cq_poll"))
		cq_poll();
	if (all || !strcmp(mode, "qp_fault"))
		qp_fault();
	if (!ntests)
		return 2;
	printf("1..%d\n# %d passed, %d failed\n", ntests, ntests - nfail, nfail);
	return nfail ? 1 : 0;
}
