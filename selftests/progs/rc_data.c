// SPDX-License-Identifier: GPL-2.0
/*
 * RC data path tests, one process driving two sroce devices (RDMA devices
 * are visible from every network namespace; the traffic still crosses the
 * veth pair between the devices' namespaces).
 *
 *   rc_data integrity DEV_A GID_A DEV_B GID_B [QPS [OPS [SEED]]]
 *	random SEND / WRITE / WRITE_IMM / READ / CMP_SWAP / FETCH_ADD, 1 B to
 *	4 MiB, random offsets, several SGEs, on several QPs at once; every
 *	byte compared, every completion checked; the QPs' local ACK timeout
 *	is 14 (67 ms), or $RC_DATA_TIMEOUT; while the file $RC_DATA_HOLD
 *	exists, rounds go on past OPS (a test ends the traffic when what it
 *	does under it is over, however fast the operations ran)
 *   rc_data errors DEV_A GID_A DEV_B GID_B
 *	remote access errors, invalid requests, RNR and retry exhaustion,
 *	flush, each with its exact work completion status
 *   rc_data memwin DEV_A GID_A DEV_B GID_B
 *	memory windows (types 1 and 2), BIND_MW, LOCAL_INV, SEND_WITH_INV
 *   rc_data events DEV_A GID_A DEV_B GID_B
 *	asynchronous events: COMM_EST, QP_FATAL, QP_ACCESS_ERR, CQ_ERR,
 *	SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED
 *   rc_data hostile DEV_A GID_A DEV_B GID_B
 *	garbage in the process's own send, receive and completion rings
 *   rc_data wire DEV_A GID_A DEV_B GID_B
 *	QP pairs held open for the wire tests, driven by commands on stdin
 *	(see wire() below)
 *   rc_data ud DEV_A GID_A DEV_B GID_B
 *	UD sends up to the MTU compared byte for byte behind their GRH; a
 *	send larger than the MTU completes without emitting a packet
 *	(IBA C10-93.1.1); a Q_Key mismatch is dropped; the QP carries on
 *   rc_data flush DEV_A GID_A DEV_B GID_B
 *	RDMA FLUSH as the requester, written into the send ring: completions
 *	and their statuses where the device offers FLUSH and where not
 *
 * Prints TAP; exits non-zero if a check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../uapi/rdma_user_sroce.h"
#include "common.h"
#include "ring.h"

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gid;
	union ibv_gid gidv;
	enum ibv_mtu mtu;
	char *buf;
	size_t len;
	struct ibv_mr *mr;
};

static struct side A, B;

static int side_init(struct side *s, const char *dev, int gid, size_t len)
{
	struct ibv_port_attr pa;

	s->ctx = open_dev(dev);
	if (!s->ctx)
		return -1;
	s->gid = gid;
	if (ibv_query_gid(s->ctx, 1, gid, &s->gidv) || ibv_query_port(s->ctx, 1, &pa))
		return -1;
	s->mtu = pa.active_mtu;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 4096, NULL, NULL, 0);
	s->len = len;
	s->buf = aligned_alloc(4096, len);
	if (!s->pd || !s->cq || !s->buf)
		return -1;
	memset(s->buf, 0, len);
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	return s->mr ? 0 : -1;
}

struct qp_opts {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	int access;
};

static const struct qp_opts default_opts = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_ATOMIC,
};

static struct ibv_qp *make_qp(struct side *s, int ex)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256,
			 .max_send_sge = 4, .max_recv_sge = 4 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = s->pd,
	};

	if (ex) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				   IBV_QP_EX_WITH_ATOMIC_WRITE |
				   IBV_QP_EX_WITH_SEND;
	}
	return ibv_create_qp_ex(s->ctx, &a);
}

static int connect_qp(struct side *s, struct ibv_qp *qp, struct side *peer,
		      uint32_t dqpn, const struct qp_opts *o)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = o->access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = s->mtu, .dest_qp_num = dqpn,
		.rq_psn = 1000, .max_dest_rd_atomic = 16,
		.min_rnr_timer = o->min_rnr_timer,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = peer->gidv, .sgid_index = s->gid,
				      .hop_limit = 64 } },
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = o->timeout,
		.retry_cnt = o->retry_cnt, .rnr_retry = o->rnr_retry,
		.sq_psn = 1000, .max_rd_atomic = 16,
	};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int pair(struct ibv_qp **qa, struct ibv_qp **qb, const struct qp_opts *oa,
		const struct qp_opts *ob, int ex)
{
	*qa = make_qp(&A, ex);
	*qb = make_qp(&B, 0);
	if (!*qa || !*qb)
		return -1;
	if (connect_qp(&A, *qa, &B, (*qb)->qp_num, oa) ||
	    connect_qp(&B, *qb, &A, (*qa)->qp_num, ob))
		return -1;
	return 0;
}

/* Wait for @n completions on @cq (timeout in seconds); returns how many. */
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
			usleep(200);
	}
	return got;
}

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void fill(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)rnd();
}

/* 1 B to 4 MiB, log-uniform. */
static uint32_t rnd_size(void)
{
	int bits = rnd() % 23;

	return 1 + rnd() % (1u << bits);
}

/* Split [base, base+len) into 1..4 SGEs with 64-byte gaps between them. */
static int make_sges(struct side *s, char *base, uint32_t len,
		     struct ibv_sge *sge)
{
	int n = 1 + rnd() % 4, i;
	uint32_t left = len, off = 0;

	if ((uint32_t)n > len)
		n = 1;
	for (i = 0; i < n; i++) {
		uint32_t l = i == n - 1 ? left : 1 + rnd() % (left - (n - 1 - i));

		sge[i].addr = (uintptr_t)(base + off);
		sge[i].length = l;
		sge[i].lkey = s->mr->lkey;
		left -= l;
		off += l + 64;
	}
	return n;
}

/* Concatenate what @sge describes into @out. */
static void gather(const struct ibv_sge *sge, int n, char *out)
{
	int i;

	for (i = 0; i < n; i++) {
		memcpy(out, (void *)(uintptr_t)sge[i].addr, sge[i].length);
		out += sge[i].length;
	}
}

/* The 64-byte gaps after each SGE must be untouched (zero). */
static int gaps_clean(const struct ibv_sge *sge, int n)
{
	static const char zero[64];
	int i;

	for (i = 0; i < n; i++)
		if (memcmp((char *)(uintptr_t)sge[i].addr + sge[i].length, zero, 64))
			return 0;
	return 1;
}

#define SLICE (10u << 20)	/* per-QP share of each buffer */
#define MAXQP 8

struct op {
	int kind;
	uint32_t len;
	struct ibv_sge sge[4];		/* local (A) */
	int ns;
	struct ibv_sge rsge[4];		/* B's receive buffers (SEND) */
	int rns;
	char *remote;			/* B's region (WRITE/READ) */
	uint64_t before, cmp, swp;	/* atomics */
	char *aremote, *ares;
};

static const char *kind_names[] = { "SEND", "WRITE", "WRITE_IMM", "READ",
				    "CMP_SWAP", "FETCH_ADD" };

static int post_op(struct ibv_qp *qa, struct ibv_qp *qb, int q, struct op *t)
{
	char *abase = A.buf + q * SLICE, *bbase = B.buf + q * SLICE;
	struct ibv_send_wr wr = { .wr_id = q, .sg_list = t->sge,
				  .send_flags = IBV_SEND_SIGNALED }, *bad_s;
	struct ibv_recv_wr rwr = { .wr_id = 100 + q, .sg_list = t->rsge }, *bad_r;
	uint32_t aoff = rnd() % 4096, boff = rnd() % 4096;
	int i;

	t->kind = rnd() % 6;
	t->len = rnd_size();
	if (t->kind >= 4) {
		t->aremote = bbase + (rnd() % 1024) * 8;
		t->ares = abase + 64;
		t->before = rnd();
		t->cmp = (rnd() & 1) ? t->before : rnd();
		t->swp = rnd();
		memcpy(t->aremote, &t->before, 8);
		memset(t->ares, 0, 8);
		t->sge[0] = (struct ibv_sge){ (uintptr_t)t->ares, 8, A.mr->lkey };
		wr.num_sge = 1;
		wr.opcode = t->kind == 4 ? IBV_WR_ATOMIC_CMP_AND_SWP :
					   IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = (uintptr_t)t->aremote;
		wr.wr.atomic.rkey = B.mr->rkey;
		wr.wr.atomic.compare_add = t->kind == 4 ? t->cmp : t->swp;
		wr.wr.atomic.swap = t->swp;
		return ibv_post_send(qa, &wr, &bad_s);
	}

	/* Clear both sides' areas (gaps included), then fill the source. */
	memset(abase, 0, t->len + 8192);
	memset(bbase, 0, t->len + 8192);
	t->ns = make_sges(&A, abase + aoff, t->len, t->sge);
	wr.num_sge = t->ns;
	t->remote = bbase + boff;
	if (t->kind == 3) {
		fill(t->remote, t->len);
	} else {
		for (i = 0; i < t->ns; i++)
			fill((char *)(uintptr_t)t->sge[i].addr, t->sge[i].length);
	}
	wr.opcode = t->kind == 0 ? IBV_WR_SEND :
		    t->kind == 1 ? IBV_WR_RDMA_WRITE :
		    t->kind == 2 ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = (uintptr_t)t->remote;
	wr.wr.rdma.rkey = B.mr->rkey;
	wr.imm_data = htobe32(0x1000 + q);
	t->rns = 0;
	if (t->kind == 0 || t->kind == 2) {
		if (t->kind == 0)
			t->rns = make_sges(&B, t->remote, t->len, t->rsge);
		rwr.num_sge = t->rns;
		if (ibv_post_recv(qb, &rwr, &bad_r))
			return -1;
	}
	return ibv_post_send(qa, &wr, &bad_s);
}

static int check_op(struct op *t, char *tmp1, char *tmp2)
{
	uint64_t got, after, want;

	switch (t->kind) {
	case 0:	/* SEND: A's SGEs -> B's receive SGEs */
		gather(t->sge, t->ns, tmp1);
		gather(t->rsge, t->rns, tmp2);
		return !memcmp(tmp1, tmp2, t->len) && gaps_clean(t->rsge, t->rns);
	case 1:
	case 2:	/* WRITE: A's SGEs -> B's region */
		gather(t->sge, t->ns, tmp1);
		return !memcmp(tmp1, t->remote, t->len) &&
		       !t->remote[t->len] && !t->remote[t->len + 63];
	case 3:	/* READ: B's region -> A's SGEs */
		gather(t->sge, t->ns, tmp1);
		return !memcmp(tmp1, t->remote, t->len) && gaps_clean(t->sge, t->ns);
	default:
		memcpy(&got, t->ares, 8);
		memcpy(&after, t->aremote, 8);
		want = t->kind == 4 ? (t->before == t->cmp ? t->swp : t->before) :
				      t->before + t->swp;
		return got == t->before && after == want;
	}
}

/* held: the test wants the traffic to go on ($RC_DATA_HOLD exists) */
static int held(void)
{
	const char *hold = getenv("RC_DATA_HOLD");

	return hold && !access(hold, F_OK);
}

static int integrity(int nqp, int nops)
{
	struct ibv_qp *qa[MAXQP], *qb[MAXQP];
	char *tmp1 = malloc(5 << 20), *tmp2 = malloc(5 << 20);
	struct op t[MAXQP];
	struct ibv_wc wc[MAXQP];
	int i, n, round, want, bad = 0, done = 0, count[6] = { 0 };
	const char *timeout = getenv("RC_DATA_TIMEOUT");
	struct qp_opts o = default_opts;
	uint64_t bytes = 0;

	if (timeout)
		o.timeout = atoi(timeout);
	for (i = 0; i < nqp; i++)
		if (pair(&qa[i], &qb[i], &o, &o, 0)) {
			check(0, "connect QP pair %d", i);
			return 1;
		}
	check(1, "%d QP pairs connected", nqp);

	for (round = 0; round * nqp < nops || held(); round++) {
		for (i = 0; i < nqp; i++)
			if (post_op(qa[i], qb[i], i, &t[i])) {
				check(0, "post %s on QP %d", kind_names[t[i].kind], i);
				return 1;
			}
		n = poll_n(A.cq, wc, nqp, 120);
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id >= (uint64_t)nqp) {
				int q = wc[i].wr_id < (uint64_t)nqp ? (int)wc[i].wr_id : 0;

				check(0, "round %d: requester completion %s (QP %d: %s of %u bytes)",
				      round, ibv_wc_status_str(wc[i].status), q,
				      kind_names[t[q].kind], t[q].len);
				return 1;
			}
		if (n != nqp) {
			check(0, "round %d: %d of %d requester completions", round, n, nqp);
			return 1;
		}
		for (want = 0, i = 0; i < nqp; i++)
			want += t[i].kind == 0 || t[i].kind == 2;
		n = poll_n(B.cq, wc, want, 60);
		for (i = 0; i < n; i++) {
			int q = wc[i].wr_id - 100;

			if (wc[i].status != IBV_WC_SUCCESS || q < 0 || q >= nqp ||
			    wc[i].byte_len != t[q].len || wc[i].qp_num != qb[q]->qp_num ||
			    (t[q].kind == 2 &&
			     (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
			      !(wc[i].wc_flags & IBV_WC_WITH_IMM) ||
			      be32toh(wc[i].imm_data) != 0x1000u + q)) ||
			    (t[q].kind == 0 && wc[i].opcode != IBV_WC_RECV)) {
				check(0, "round %d: receive completion (%s, len %u)",
				      round, ibv_wc_status_str(wc[i].status),
				      wc[i].byte_len);
				return 1;
			}
		}
		if (n != want) {
			check(0, "round %d: %d of %d receive completions", round, n, want);
			return 1;
		}
		for (i = 0; i < nqp; i++) {
			count[t[i].kind]++;
			done++;
			bytes += t[i].kind >= 4 ? 8 : t[i].len;
			if (!check_op(&t[i], tmp1, tmp2)) {
				bad++;
				printf("# mismatch: %s of %u bytes on QP %d\n",
				       kind_names[t[i].kind], t[i].len, i);
			}
		}
	}
	check(!bad, "%d operations (%" PRIu64 " bytes): every byte as expected (%d bad)",
	      done, bytes, bad);
	for (i = 0; i < 6; i++)
		printf("# %s: %d\n", kind_names[i], count[i]);
	for (i = 0; i < nqp; i++) {
		check(!ibv_destroy_qp(qa[i]) && !ibv_destroy_qp(qb[i]), "destroy pair %d", i);
	}
	free(tmp1);
	free(tmp2);
	return 0;
}

/* ---- error paths ---- */

static void destroy_pair(struct ibv_qp *qa, struct ibv_qp *qb)
{
	struct ibv_wc wc[64];

	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	/* drop completions left behind */
	while (ibv_poll_cq(A.cq, 64, wc) > 0)
		;
	while (ibv_poll_cq(B.cq, 64, wc) > 0)
		;
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Post one RDMA op on a fresh pair; check the requester's completion. */
static void one_error(const char *what, enum ibv_wr_opcode opc, uint64_t raddr,
		      uint32_t rkey, uint32_t len, enum ibv_wc_status want)
{
	struct ibv_qp *qa, *qb;
	struct ibv_sge sge = { (uintptr_t)A.buf, len, A.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = opc, .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;

	if (pair(&qa, &qb, &default_opts, &default_opts, 0)) {
		check(0, "%s: connect", what);
		return;
	}
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qa, &wr, &bad)) {
		check(0, "%s: post", what);
	} else {
		int n = poll_n(A.cq, &wc, 1, 30);

		check(n == 1 && wc.status == want && wc.wr_id == 7,
		      "%s: %s (got %s)", what, ibv_wc_status_str(want),
		      n ? ibv_wc_status_str(wc.status) : "nothing");
		if (want != IBV_WC_SUCCESS)
			check(qp_state(qa) == IBV_QPS_ERR &&
			      qp_state(qb) == IBV_QPS_ERR,
			      "%s: both QPs in the error state", what);
	}
	destroy_pair(qa, qb);
}

/* One RDMA ATOMIC WRITE of @val on a fresh pair: 0 and its completion. */
static int atomic_write1(uint64_t raddr, uint32_t rkey, uint64_t val,
			 struct ibv_wc *wc)
{
	struct ibv_qp *qa, *qb;
	struct ibv_qp_ex *qx;
	int n = 0;

	if (pair(&qa, &qb, &default_opts, &default_opts, 1))
		return -1;
	qx = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(qx);
	qx->wr_id = 13;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, rkey, raddr, &val);
	if (!ibv_wr_complete(qx))
		n = poll_n(A.cq, wc, 1, 30);
	destroy_pair(qa, qb);
	return n == 1 ? 0 : -1;
}

/*
 * RDMA ATOMIC WRITE (IBA 1.5): 8 bytes placed and nothing around them,
 * completed as IBV_WC_ATOMIC_WRITE; misaligned: remote invalid request;
 * to an MR without remote write: remote access error.
 */
static void atomic_writes(void)
{
	uint64_t rbase = (uintptr_t)B.buf, val = 0x0123456789abcdefULL, got;
	struct ibv_wc wc;
	struct ibv_mr *ro;
	int r;

	memset(B.buf, 0x5a, 24);
	r = atomic_write1(rbase + 8, B.mr->rkey, val, &wc);
	check(!r && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_ATOMIC_WRITE && wc.byte_len == 8,
	      "ATOMIC WRITE completes (got %s, opcode %d, %u bytes)",
	      r ? "nothing" : ibv_wc_status_str(wc.status),
	      r ? -1 : (int)wc.opcode, r ? 0 : wc.byte_len);
	memcpy(&got, (char *)B.buf + 8, 8);
	check(got == val && ((unsigned char *)B.buf)[7] == 0x5a &&
	      ((unsigned char *)B.buf)[16] == 0x5a,
	      "ATOMIC WRITE placed its 8 bytes and nothing else");
	r = atomic_write1(rbase + 4, B.mr->rkey, val, &wc);
	check(!r && wc.status == IBV_WC_REM_INV_REQ_ERR,
	      "misaligned ATOMIC WRITE: %s (got %s)",
	      ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR),
	      r ? "nothing" : ibv_wc_status_str(wc.status));
	ro = ibv_reg_mr(B.pd, B.buf, 4096, IBV_ACCESS_REMOTE_READ);
	if (!ro)
		return;
	r = atomic_write1(rbase, ro->rkey, val, &wc);
	check(!r && wc.status == IBV_WC_REM_ACCESS_ERR,
	      "ATOMIC WRITE to an MR without remote write: %s (got %s)",
	      ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
	      r ? "nothing" : ibv_wc_status_str(wc.status));
	ibv_dereg_mr(ro);
}

static void errors(void)
{
	uint64_t rbase = (uintptr_t)B.buf;
	struct ibv_mr *ro;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[16];
	struct qp_opts o, o2;
	int i, n;
	double t0;

	one_error("WRITE with a bad rkey", IBV_WR_RDMA_WRITE, rbase,
		  B.mr->rkey ^ 0x80, 64, IBV_WC_REM_ACCESS_ERR);
	one_error("READ with a bad rkey", IBV_WR_RDMA_READ, rbase,
		  B.mr->rkey + 0x100, 64, IBV_WC_REM_ACCESS_ERR);
	one_error("WRITE past the end of the MR", IBV_WR_RDMA_WRITE,
		  rbase + B.len - 4, B.mr->rkey, 8, IBV_WC_REM_ACCESS_ERR);
	one_error("READ before the start of the MR", IBV_WR_RDMA_READ,
		  rbase - 8, B.mr->rkey, 16, IBV_WC_REM_ACCESS_ERR);

	ro = ibv_reg_mr(B.pd, B.buf, 4096, IBV_ACCESS_REMOTE_READ);
	if (ro) {
		one_error("WRITE to an MR without remote write", IBV_WR_RDMA_WRITE,
			  rbase, ro->rkey, 64, IBV_WC_REM_ACCESS_ERR);
		one_error("READ of that MR works", IBV_WR_RDMA_READ, rbase,
			  ro->rkey, 64, IBV_WC_SUCCESS);
		ibv_dereg_mr(ro);
	}

	/* Misaligned atomic, through the ibv_wr_* API (the legacy path refuses it). */
	if (!pair(&qa, &qb, &default_opts, &default_opts, 1)) {
		struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qa);

		ibv_wr_start(qx);
		qx->wr_id = 9;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_fetch_add(qx, B.mr->rkey, rbase + 4, 1);
		ibv_wr_set_sge(qx, A.mr->lkey, (uintptr_t)A.buf, 8);
		check(!ibv_wr_complete(qx), "post a misaligned FETCH_ADD");
		n = poll_n(A.cq, wc, 1, 30);
		check(n == 1 && wc[0].status == IBV_WC_REM_INV_REQ_ERR,
		      "misaligned atomic: %s (got %s)",
		      ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR),
		      n ? ibv_wc_status_str(wc[0].status) : "nothing");
		destroy_pair(qa, qb);
	}

	atomic_writes();

	/* RNR: no receive posted, rnr_retry 0. */
	o = default_opts;
	o.rnr_retry = 0;
	if (!pair(&qa, &qb, &o, &default_opts, 0)) {
		struct ibv_sge sge = { (uintptr_t)A.buf, 16, A.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 11, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		ibv_post_send(qa, &wr, &bad);
		n = poll_n(A.cq, wc, 1, 30);
		check(n == 1 && wc[0].status == IBV_WC_RNR_RETRY_EXC_ERR,
		      "SEND without a receive, rnr_retry 0: %s (got %s)",
		      ibv_wc_status_str(IBV_WC_RNR_RETRY_EXC_ERR),
		      n ? ibv_wc_status_str(wc[0].status) : "nothing");
		check(qp_state(qb) == IBV_QPS_RTS, "the responder stays in RTS after an RNR");
		destroy_pair(qa, qb);
	}

	/* RNR then a receive shows up: the send gets through. */
	o = default_opts;
	o.rnr_retry = 7;
	if (!pair(&qa, &qb, &o, &default_opts, 0)) {
		struct ibv_sge sge = { (uintptr_t)A.buf, 16, A.mr->lkey };
		struct ibv_sge rsge = { (uintptr_t)B.buf, 16, B.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 12, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct ibv_recv_wr rwr = { .wr_id = 13, .sg_list = &rsge,
					   .num_sge = 1 }, *rbad;

		ibv_post_send(qa, &wr, &bad);
		usleep(100000);
		ibv_post_recv(qb, &rwr, &rbad);
		n = poll_n(A.cq, wc, 1, 30);
		check(n == 1 && wc[0].status == IBV_WC_SUCCESS,
		      "SEND waits out RNR NAKs until a receive is posted (got %s)",
		      n ? ibv_wc_status_str(wc[0].status) : "nothing");
		n = poll_n(B.cq, wc, 1, 10);
		check(n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 13,
		      "and the receive completes");
		destroy_pair(qa, qb);
	}

	/*
	 * An RNR wait longer than the ACK timeout: the responder's RNR timer
	 * is 163.84 ms (28), the requester's ACK timeout 16.8 ms (12) with 3
	 * retries. Waiting out RNR NAKs is no loss: no ACK timeout may count
	 * against the retries meanwhile, so the SEND gets through once a
	 * receive is posted, 300 ms on.
	 */
	o = default_opts;
	o.timeout = 12;
	o.retry_cnt = 3;
	o2 = default_opts;
	o2.min_rnr_timer = 28;
	if (!pair(&qa, &qb, &o, &o2, 0)) {
		struct ibv_sge sge = { (uintptr_t)A.buf, 16, A.mr->lkey };
		struct ibv_sge rsge = { (uintptr_t)B.buf, 16, B.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 15, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct ibv_recv_wr rwr = { .wr_id = 16, .sg_list = &rsge,
					   .num_sge = 1 }, *rbad;

		ibv_post_send(qa, &wr, &bad);
		usleep(300000);
		ibv_post_recv(qb, &rwr, &rbad);
		n = poll_n(A.cq, wc, 1, 30);
		check(n == 1 && wc[0].status == IBV_WC_SUCCESS,
		      "a 164 ms RNR wait with a 16.8 ms ACK timeout and 3 retries: the SEND gets through (got %s)",
		      n ? ibv_wc_status_str(wc[0].status) : "nothing");
		n = poll_n(B.cq, wc, 1, 10);
		check(n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 16,
		      "and the receive completes");
		destroy_pair(qa, qb);
	}

	/* The peer QP disappears: retries run out after the local ACK timeout. */
	o = default_opts;
	o.timeout = 12;		/* 16.8 ms */
	o.retry_cnt = 3;
	if (!pair(&qa, &qb, &o, &default_opts, 0)) {
		struct ibv_sge sge = { (uintptr_t)A.buf, 100000, A.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 14, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		double el;

		wr.wr.rdma.remote_addr = rbase;
		wr.wr.rdma.rkey = B.mr->rkey;
		ibv_destroy_qp(qb);
		qb = NULL;
		t0 = now();
		ibv_post_send(qa, &wr, &bad);
		n = poll_n(A.cq, wc, 1, 30);
		el = now() - t0;
		check(n == 1 && wc[0].status == IBV_WC_RETRY_EXC_ERR,
		      "WRITE to a destroyed QP: %s (got %s)",
		      ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR),
		      n ? ibv_wc_status_str(wc[0].status) : "nothing");
		/* 4 tries of 16.8 ms: at least ~67 ms, and well under 5 s. */
		check(el >= 0.06 && el < 5.0, "after %.3f s (4 x 16.8 ms timeouts)", el);
		destroy_pair(qa, qb);
	}

	/* Moving to ERROR flushes what is outstanding. */
	o = default_opts;
	o.rnr_retry = 7;
	if (!pair(&qa, &qb, &o, &default_opts, 0)) {
		struct ibv_sge sge = { (uintptr_t)A.buf, 16, A.mr->lkey };
		struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
		int ok = 1;

		for (i = 0; i < 5; i++) {
			wr.wr_id = 20 + i;
			ibv_post_send(qa, &wr, &bad);	/* stuck on RNR */
		}
		usleep(50000);
		check(!ibv_modify_qp(qa, &a, IBV_QP_STATE), "move the requester to ERROR");
		n = poll_n(A.cq, wc, 5, 10);
		for (i = 0; i < n; i++) {
			if (wc[i].status == IBV_WC_WR_FLUSH_ERR &&
			    wc[i].wr_id == 20u + i)
				continue;
			printf("# completion %d: wr_id %llu, %s\n", i,
			       (unsigned long long)wc[i].wr_id,
			       ibv_wc_status_str(wc[i].status));
			ok = 0;
		}
		check(n == 5 && ok, "5 outstanding SENDs flushed in order (%d)", n);
		destroy_pair(qa, qb);
	}
}

/* ---- memory windows and local operations ---- */

static int post1(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_cq *cq,
		 struct ibv_wc *wc)
{
	struct ibv_send_wr *bad;
	int err;

	memset(wc, 0, sizeof(*wc));
	wc->status = IBV_WC_GENERAL_ERR;
	wr->send_flags |= IBV_SEND_SIGNALED;
	err = ibv_post_send(qp, wr, &bad);
	if (err) {
		printf("# post_send: %s\n", strerror(err));
		return -1;
	}
	if (poll_n(cq, wc, 1, 30) != 1) {
		printf("# no completion\n");
		return -1;
	}
	return 0;
}

/*
 * Post BIND_MW of @mw (key @rk, 4 KiB at @addr of B's MR, @access) on @qp;
 * the status.
 */
static enum ibv_wc_status bind_mw_st(struct ibv_qp *qp, struct ibv_mw *mw,
				     uint32_t rk, uint64_t addr, int access)
{
	struct ibv_send_wr wr = { .wr_id = 12, .opcode = IBV_WR_BIND_MW };
	struct ibv_wc wc;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rk;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = B.mr, .addr = addr, .length = 4096,
		.mw_access_flags = access };
	if (post1(qp, &wr, B.cq, &wc))
		return IBV_WC_GENERAL_ERR;
	return wc.status;
}

/*
 * A type 2 window is bound to a QP, not to its number: once the QP is
 * destroyed, a new QP that gets the same QPN (memwin.sh loads sroce with
 * max_qp=16, so numbers come back soon) has no access through it.
 */
static void memwin_qpn_reuse(struct ibv_mw *mw2, const struct qp_opts *mw_opts,
			     uint64_t win)
{
	struct ibv_sge sge = { (uintptr_t)A.buf, 64, A.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 30, .opcode = IBV_WR_BIND_MW };
	struct ibv_qp *qa, *qb, *q = NULL;
	uint32_t rk = ibv_inc_rkey(mw2->rkey), qpn;
	struct ibv_wc wc;
	int i;

	if (pair(&qa, &qb, &default_opts, mw_opts, 0)) {
		check(0, "QPN reuse: connect");
		return;
	}
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = rk;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = B.mr, .addr = win, .length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
	check(!post1(qb, &wr, B.cq, &wc) && wc.status == IBV_WC_SUCCESS,
	      "QPN reuse: bind the type 2 window (%s)", ibv_wc_status_str(wc.status));
	mw2->rkey = rk;
	wr = (struct ibv_send_wr){ .wr_id = 31, .opcode = IBV_WR_RDMA_WRITE,
				   .sg_list = &sge, .num_sge = 1 };
	wr.wr.rdma.remote_addr = win;
	wr.wr.rdma.rkey = rk;
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_SUCCESS,
	      "QPN reuse: WRITE through the window of QP %u (%s)", qb->qp_num,
	      ibv_wc_status_str(wc.status));
	qpn = qb->qp_num;
	destroy_pair(qa, qb);
	for (i = 0; i < 64 && !q; i++) {
		q = make_qp(&B, 0);
		if (q && q->qp_num != qpn) {
			ibv_destroy_qp(q);
			q = NULL;
		}
	}
	qa = make_qp(&A, 0);
	if (!check(q && qa, "QPN reuse: QPN %u comes back (after %d QPs)", qpn, i) ||
	    connect_qp(&A, qa, &B, q->qp_num, &default_opts) ||
	    connect_qp(&B, q, &A, qa->qp_num, mw_opts)) {
		destroy_pair(qa, q);
		return;
	}
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_REM_ACCESS_ERR,
	      "QPN reuse: WRITE through it to the new QP %u: REM_ACCESS_ERR (%s)",
	      q->qp_num, ibv_wc_status_str(wc.status));
	destroy_pair(qa, q);
}

/*
 * Bind @mw1 on @qb (a QP without MW_BIND access) over a new MR of B with
 * only LOCAL_WRITE | MW_BIND, WRITE through it from @qa; then a zero-based
 * bind, which sroce does not support: MW_BIND_ERR. Destroys the pair; @mw1
 * is left unbound.
 */
static void memwin_plain_qp(struct ibv_qp *qa, struct ibv_qp *qb,
			    struct ibv_mw *mw1)
{
	struct ibv_sge sge = { (uintptr_t)A.buf, 64, A.mr->lkey };
	unsigned char *buf = calloc(1, 4096);
	enum ibv_wc_status st;
	struct ibv_send_wr wr;
	struct ibv_mw_bind b1;
	struct ibv_mr *mr;
	struct ibv_wc wc;

	mr = buf ? ibv_reg_mr(B.pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_MW_BIND) : NULL;
	check(mr != NULL, "register an MR with LOCAL_WRITE | MW_BIND only");
	if (!mr)
		goto out;
	b1 = (struct ibv_mw_bind){ .wr_id = 14, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)buf, .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
						  IBV_ACCESS_LOCAL_WRITE } };
	check(!ibv_bind_mw(qb, mw1, &b1) && poll_n(B.cq, &wc, 1, 30) == 1 &&
	      wc.status == IBV_WC_SUCCESS,
	      "bind REMOTE_WRITE | LOCAL_WRITE on a QP without MW_BIND (%s)",
	      ibv_wc_status_str(wc.status));
	memset(A.buf, 0x6b, 64);
	wr = (struct ibv_send_wr){ .wr_id = 15, .opcode = IBV_WR_RDMA_WRITE,
				   .sg_list = &sge, .num_sge = 1 };
	wr.wr.rdma.remote_addr = (uintptr_t)buf + 200;
	wr.wr.rdma.rkey = mw1->rkey;
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      buf[199] == 0 && buf[200] == 0x6b && buf[263] == 0x6b &&
	      buf[264] == 0, "WRITE through that window lands (%s)",
	      ibv_wc_status_str(wc.status));
	st = bind_mw_st(qb, mw1, ibv_inc_rkey(mw1->rkey), (uintptr_t)B.buf + 8192,
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED);
	check(st == IBV_WC_MW_BIND_ERR, "a zero-based bind: MW_BIND_ERR (%s)",
	      ibv_wc_status_str(st));
	destroy_pair(qa, qb);
	/* unbind (length 0) on a fresh pair before the MR goes */
	if (!pair(&qa, &qb, &default_opts, &default_opts, 0)) {
		b1.bind_info = (struct ibv_mw_bind_info){ .mr = mr };
		check(!ibv_bind_mw(qb, mw1, &b1) && poll_n(B.cq, &wc, 1, 30) == 1 &&
		      wc.status == IBV_WC_SUCCESS, "unbind the type 1 window (%s)",
		      ibv_wc_status_str(wc.status));
		destroy_pair(qa, qb);
	}
	check(!ibv_dereg_mr(mr), "dereg the LOCAL_WRITE | MW_BIND MR");
	free(buf);
	return;
out:
	free(buf);
	destroy_pair(qa, qb);
}

static void memwin(void)
{
	/* B's QPs bind windows: they need the MW_BIND access flag. */
	struct qp_opts mw_opts = default_opts;
	enum ibv_wc_status st;
	struct ibv_qp *qa, *qb;
	struct ibv_mw *mw2, *mw1;
	struct ibv_wc wc;
	struct ibv_sge sge = { (uintptr_t)A.buf, 64, A.mr->lkey };
	struct ibv_send_wr wr;
	struct ibv_mw_bind b1;
	uint64_t win = (uintptr_t)B.buf + 8192;
	uint32_t rk;

	mw_opts.access |= IBV_ACCESS_MW_BIND;
	if (pair(&qa, &qb, &default_opts, &mw_opts, 0)) {
		check(0, "memwin: connect");
		return;
	}
	mw2 = ibv_alloc_mw(B.pd, IBV_MW_TYPE_2);
	mw1 = ibv_alloc_mw(B.pd, IBV_MW_TYPE_1);
	check(mw1 && mw2, "alloc type 1 and type 2 windows");
	if (!mw1 || !mw2)
		return;

	/* Bind the type 2 window on B's QP to 4 KiB of B's MR. */
	rk = ibv_inc_rkey(mw2->rkey);
	wr = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_BIND_MW };
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = rk;
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = B.mr, .addr = win, .length = 4096,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ };
	check(!post1(qb, &wr, B.cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_BIND_MW, "BIND_MW type 2 (%s)",
	      ibv_wc_status_str(wc.status));
	mw2->rkey = rk;
	check(ibv_dereg_mr(B.mr) == EBUSY, "dereg of an MR with a bound window: EBUSY");

	/* A writes through the window, then reads back through it. */
	memset(A.buf, 0x5a, 64);
	wr = (struct ibv_send_wr){ .wr_id = 2, .opcode = IBV_WR_RDMA_WRITE,
				   .sg_list = &sge, .num_sge = 1 };
	wr.wr.rdma.remote_addr = win + 100;
	wr.wr.rdma.rkey = rk;
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_SUCCESS,
	      "WRITE through the type 2 window (%s)", ibv_wc_status_str(wc.status));
	check(((unsigned char *)B.buf)[8192 + 100] == 0x5a &&
	      ((unsigned char *)B.buf)[8192 + 163] == 0x5a &&
	      ((unsigned char *)B.buf)[8192 + 164] == 0, "data landed in the window");

	/* Type 1, bound with ibv_bind_mw on B's QP, read by A. */
	b1 = (struct ibv_mw_bind){ .wr_id = 3, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = B.mr, .addr = win, .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ } };
	check(!ibv_bind_mw(qb, mw1, &b1) && poll_n(B.cq, &wc, 1, 30) == 1 &&
	      wc.status == IBV_WC_SUCCESS, "ibv_bind_mw type 1 (%s)",
	      ibv_wc_status_str(wc.status));
	memset(A.buf, 0, 64);
	wr = (struct ibv_send_wr){ .wr_id = 4, .opcode = IBV_WR_RDMA_READ,
				   .sg_list = &sge, .num_sge = 1 };
	wr.wr.rdma.remote_addr = win + 100;
	wr.wr.rdma.rkey = mw1->rkey;
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	      ((unsigned char *)A.buf)[0] == 0x5a && ((unsigned char *)A.buf)[63] == 0x5a,
	      "READ through the type 1 window (%s)", ibv_wc_status_str(wc.status));

	/* SEND with invalidate of the type 2 window. */
	{
		struct ibv_sge rsge = { (uintptr_t)B.buf, 64, B.mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 5, .sg_list = &rsge, .num_sge = 1 }, *rbad;

		ibv_post_recv(qb, &rwr, &rbad);
		wr = (struct ibv_send_wr){ .wr_id = 6, .opcode = IBV_WR_SEND_WITH_INV,
					   .sg_list = &sge, .num_sge = 1,
					   .invalidate_rkey = rk };
		check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_SUCCESS,
		      "SEND_WITH_INV (%s)", ibv_wc_status_str(wc.status));
		check(poll_n(B.cq, &wc, 1, 10) == 1 && wc.status == IBV_WC_SUCCESS &&
		      (wc.wc_flags & IBV_WC_WITH_INV) && wc.invalidated_rkey == rk,
		      "the receive reports the invalidated rkey");
	}
	/* The window is gone: a WRITE through it fails. */
	wr = (struct ibv_send_wr){ .wr_id = 7, .opcode = IBV_WR_RDMA_WRITE,
				   .sg_list = &sge, .num_sge = 1 };
	wr.wr.rdma.remote_addr = win;
	wr.wr.rdma.rkey = rk;
	check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_REM_ACCESS_ERR,
	      "WRITE through an invalidated window: REM_ACCESS_ERR (%s)",
	      ibv_wc_status_str(wc.status));
	destroy_pair(qa, qb);

	/* LOCAL_INV of a bound type 2 window, then access beyond a window. */
	if (!pair(&qa, &qb, &default_opts, &mw_opts, 0)) {
		rk = ibv_inc_rkey(rk);
		wr = (struct ibv_send_wr){ .wr_id = 8, .opcode = IBV_WR_BIND_MW };
		wr.bind_mw.mw = mw2;
		wr.bind_mw.rkey = rk;
		wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
			.mr = B.mr, .addr = win, .length = 4096,
			.mw_access_flags = IBV_ACCESS_REMOTE_WRITE };
		check(!post1(qb, &wr, B.cq, &wc) && wc.status == IBV_WC_SUCCESS,
		      "rebind the type 2 window (%s)", ibv_wc_status_str(wc.status));
		mw2->rkey = rk;
		wr = (struct ibv_send_wr){ .wr_id = 9, .opcode = IBV_WR_RDMA_WRITE,
					   .sg_list = &sge, .num_sge = 1 };
		wr.wr.rdma.remote_addr = win + 4096 - 32;
		wr.wr.rdma.rkey = rk;
		check(!post1(qa, &wr, A.cq, &wc) && wc.status == IBV_WC_REM_ACCESS_ERR,
		      "WRITE across the window's end: REM_ACCESS_ERR (%s)",
		      ibv_wc_status_str(wc.status));
		destroy_pair(qa, qb);
	}
	if (!pair(&qa, &qb, &default_opts, &mw_opts, 0)) {
		wr = (struct ibv_send_wr){ .wr_id = 10, .opcode = IBV_WR_LOCAL_INV,
					   .invalidate_rkey = rk };
		check(!post1(qb, &wr, B.cq, &wc) && wc.status == IBV_WC_SUCCESS,
		      "LOCAL_INV of the window (%s)", ibv_wc_status_str(wc.status));
		wr = (struct ibv_send_wr){ .wr_id = 11, .opcode = IBV_WR_LOCAL_INV,
					   .invalidate_rkey = B.mr->rkey };
		check(!post1(qb, &wr, B.cq, &wc) && wc.status == IBV_WC_LOC_QP_OP_ERR,
		      "LOCAL_INV of a registered (not fast) MR fails (%s)",
		      ibv_wc_status_str(wc.status));
		destroy_pair(qa, qb);
	}
	/* A bind must change the key: the old rkey must not reach the new range. */
	if (!pair(&qa, &qb, &default_opts, &mw_opts, 0)) {
		st = bind_mw_st(qb, mw1, mw1->rkey, win, IBV_ACCESS_REMOTE_READ);
		check(st == IBV_WC_MW_BIND_ERR,
		      "BIND_MW with the window's current key: MW_BIND_ERR (%s)",
		      ibv_wc_status_str(st));
		destroy_pair(qa, qb);
	}
	/* The refused bind left the window as it was: still readable. */
	if (!pair(&qa, &qb, &default_opts, &mw_opts, 0)) {
		struct ibv_send_wr rd = { .wr_id = 13, .opcode = IBV_WR_RDMA_READ,
					  .sg_list = &sge, .num_sge = 1 };

		rd.wr.rdma.remote_addr = win;
		rd.wr.rdma.rkey = mw1->rkey;
		check(!post1(qa, &rd, A.cq, &wc) && wc.status == IBV_WC_SUCCESS,
		      "READ through the type 1 window after the refused binds (%s)",
		      ibv_wc_status_str(wc.status));
		destroy_pair(qa, qb);
	}
	/*
	 * As rdma-core's MW tests bind, and rdma_rxe and RoCE hardware accept:
	 * on a QP without IBV_ACCESS_MW_BIND (IBA has no such QP attribute),
	 * REMOTE_WRITE with LOCAL_WRITE (ignored) onto an MR registered with
	 * only LOCAL_WRITE | MW_BIND. A's WRITE through it lands.
	 */
	if (!pair(&qa, &qb, &default_opts, &default_opts, 0))
		memwin_plain_qp(qa, qb, mw1);
	memwin_qpn_reuse(mw2, &mw_opts, win);
	check(!ibv_dealloc_mw(mw1) && !ibv_dealloc_mw(mw2), "dealloc the windows");
}

/* ---- asynchronous events ---- */

/* Wait up to @secs for @type on @ctx's async event queue (others skipped). */
static int wait_event(struct ibv_context *ctx, enum ibv_event_type type,
		      double secs)
{
	double end = now() + secs;
	struct ibv_async_event ev;
	int flags = fcntl(ctx->async_fd, F_GETFL);

	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	while (now() < end) {
		if (ibv_get_async_event(ctx, &ev)) {
			usleep(2000);
			continue;
		}
		ibv_ack_async_event(&ev);
		if (ev.event_type == type) {
			fcntl(ctx->async_fd, F_SETFL, flags);
			return 1;
		}
		printf("# (event %s)\n", ibv_event_type_str(ev.event_type));
	}
	fcntl(ctx->async_fd, F_SETFL, flags);
	return 0;
}

static void events(void)
{
	struct ibv_sge sge = { (uintptr_t)A.buf, 16, A.mr->lkey };
	struct ibv_send_wr wr, *bad;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[16];
	int i;

	/* COMM_EST: a packet reaches a QP still in RTR. */
	qa = make_qp(&A, 0);
	qb = make_qp(&B, 0);
	if (qa && qb && !connect_qp(&A, qa, &B, qb->qp_num, &default_opts)) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
					 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
		struct ibv_qp_attr r = {
			.qp_state = IBV_QPS_RTR, .path_mtu = B.mtu,
			.dest_qp_num = qa->qp_num, .rq_psn = 1000,
			.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
			.ah_attr = { .is_global = 1, .port_num = 1,
				     .grh = { .dgid = A.gidv, .sgid_index = B.gid,
					      .hop_limit = 64 } } };

		ibv_modify_qp(qb, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		ibv_modify_qp(qb, &r, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
		wr = (struct ibv_send_wr){ .wr_id = 1, .opcode = IBV_WR_RDMA_WRITE,
					   .sg_list = &sge, .num_sge = 1,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
		wr.wr.rdma.rkey = B.mr->rkey;
		ibv_post_send(qa, &wr, &bad);
		check(wait_event(B.ctx, IBV_EVENT_COMM_EST, 10),
		      "IBV_EVENT_COMM_EST on a QP in RTR");
		check(poll_n(A.cq, wc, 1, 10) == 1 && wc[0].status == IBV_WC_SUCCESS,
		      "and the WRITE completes");
	} else {
		check(0, "COMM_EST setup");
	}
	destroy_pair(qa, qb);

	/* QP_FATAL: an invalid WQE. */
	if (!pair(&qa, &qb, &default_opts, &default_opts, 0)) {
		wr = (struct ibv_send_wr){ .wr_id = 2, .opcode = IBV_WR_SEND,
					   .sg_list = &sge, .num_sge = 1,
					   .send_flags = IBV_SEND_SIGNALED };
		sge.lkey = 0xdead00;	/* no such MR: local protection error */
		ibv_post_send(qa, &wr, &bad);
		sge.lkey = A.mr->lkey;
		check(poll_n(A.cq, wc, 1, 10) == 1 && wc[0].status == IBV_WC_LOC_PROT_ERR,
		      "SEND from a bad lkey: LOC_PROT_ERR");
		check(wait_event(A.ctx, IBV_EVENT_QP_FATAL, 10), "IBV_EVENT_QP_FATAL");
		destroy_pair(qa, qb);
	}

	/* QP_ACCESS_ERR on the responder: a WRITE with a bad rkey. */
	if (!pair(&qa, &qb, &default_opts, &default_opts, 0)) {
		wr = (struct ibv_send_wr){ .wr_id = 3, .opcode = IBV_WR_RDMA_WRITE,
					   .sg_list = &sge, .num_sge = 1,
					   .send_flags = IBV_SEND_SIGNALED };
		wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
		wr.wr.rdma.rkey = B.mr->rkey ^ 1;
		ibv_post_send(qa, &wr, &bad);
		poll_n(A.cq, wc, 1, 10);
		check(wait_event(B.ctx, IBV_EVENT_QP_ACCESS_ERR, 10),
		      "IBV_EVENT_QP_ACCESS_ERR on the responder");
		destroy_pair(qa, qb);
	}

	/* CQ overflow: IBV_EVENT_CQ_ERR. */
	{
		struct ibv_cq *small = ibv_create_cq(A.ctx, 1, NULL, NULL, 0);
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = small, .recv_cq = A.cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 8, .max_recv_wr = 8,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = A.pd };

		qa = small ? ibv_create_qp_ex(A.ctx, &ia) : NULL;
		qb = make_qp(&B, 0);
		if (qa && qb && !connect_qp(&A, qa, &B, qb->qp_num, &default_opts) &&
		    !connect_qp(&B, qb, &A, qa->qp_num, &default_opts)) {
			for (i = 0; i < 4; i++) {
				wr = (struct ibv_send_wr){ .wr_id = 10 + i,
					.opcode = IBV_WR_RDMA_WRITE, .sg_list = &sge,
					.num_sge = 1, .send_flags = IBV_SEND_SIGNALED };
				wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
				wr.wr.rdma.rkey = B.mr->rkey;
				ibv_post_send(qa, &wr, &bad);
			}
			check(wait_event(A.ctx, IBV_EVENT_CQ_ERR, 10),
			      "IBV_EVENT_CQ_ERR on a CQ overrun");
		} else {
			check(0, "CQ overflow setup");
		}
		destroy_pair(qa, qb);
		if (small)
			ibv_destroy_cq(small);
	}

	/* SRQ limit, then last WQE reached. */
	{
		struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
		struct ibv_srq *srq = ibv_create_srq(B.pd, &si);
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = B.cq, .recv_cq = B.cq, .srq = srq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 8, .max_send_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = B.pd };
		struct ibv_sge rsge = { (uintptr_t)B.buf, 64, B.mr->lkey };
		struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
		struct ibv_srq_attr sa = { .srq_limit = 4 };
		struct ibv_qp_attr ea = { .qp_state = IBV_QPS_ERR };

		qa = make_qp(&A, 0);
		qb = srq ? ibv_create_qp_ex(B.ctx, &ia) : NULL;
		if (qa && qb && !connect_qp(&A, qa, &B, qb->qp_num, &default_opts) &&
		    !connect_qp(&B, qb, &A, qa->qp_num, &default_opts)) {
			for (i = 0; i < 8; i++) {
				rwr.wr_id = 100 + i;
				ibv_post_srq_recv(srq, &rwr, &rbad);
			}
			check(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "arm the SRQ limit at 4");
			for (i = 0; i < 5; i++) {
				wr = (struct ibv_send_wr){ .wr_id = 20 + i,
					.opcode = IBV_WR_SEND, .sg_list = &sge,
					.num_sge = 1, .send_flags = IBV_SEND_SIGNALED };
				ibv_post_send(qa, &wr, &bad);
			}
			check(poll_n(A.cq, wc, 5, 10) == 5, "5 SENDs into the SRQ");
			check(wait_event(B.ctx, IBV_EVENT_SRQ_LIMIT_REACHED, 10),
			      "IBV_EVENT_SRQ_LIMIT_REACHED below 4 WQEs");
			ibv_modify_srq(srq, &(struct ibv_srq_attr){ .srq_limit = 0 },
				       IBV_SRQ_LIMIT);
			ibv_query_srq(srq, &sa);
			check(sa.srq_limit == 0, "the limit disarmed after the event");
			check(!ibv_modify_qp(qb, &ea, IBV_QP_STATE), "the SRQ's QP to ERROR");
			check(wait_event(B.ctx, IBV_EVENT_QP_LAST_WQE_REACHED, 10),
			      "IBV_EVENT_QP_LAST_WQE_REACHED");
		} else {
			check(0, "SRQ events setup");
		}
		destroy_pair(qa, qb);
		if (srq)
			ibv_destroy_srq(srq);
	}
}

/* ---- hostile rings ---- */

/*
 * The uverbs mappings not in @before: the largest in *big, the next one in
 * *small. Of a new QP's two rings (make_qp), the send queue is the larger
 * (its slots are bigger).
 */
static void hostile_case(const char *what, int mode)
{
	struct ibv_qp *qa, *qb;
	struct sroce_queue_buf *sq;
	struct sroce_send_wqe *w;
	struct ibv_wc wc[300];
	char *before = strdup(uverbs_maps());
	int n, i, k, errs = 0;
	struct qp_opts o = default_opts;
	double t0;

	/*
	 * Under the scribbled header the kernel's view of the ring starts
	 * with a SEND, and B has no receive posted: with rnr_retry 0 the RNR
	 * NAK fails it, and the flush the rest. With 7 (forever) it would
	 * wait for good; only a PSN sequence NAK for a packet sent behind it
	 * before the RNR NAK came back would end it (RETRY_EXC_ERR): a race.
	 */
	if (mode == 4)
		o.rnr_retry = 0;
	/* The provider maps the RQ, then the SQ: the last mapping is the SQ. */
	qa = make_qp(&A, 0);
	sq = new_sq_ring(before);
	free(before);
	qb = make_qp(&B, 0);
	if (!qa || !qb || !sq || connect_qp(&A, qa, &B, qb->qp_num, &o) ||
	    connect_qp(&B, qb, &A, qa->qp_num, &default_opts)) {
		check(0, "%s: connect", what);
		return;
	}
	w = (struct sroce_send_wqe *)(sq->data);
	switch (mode) {
	case 0:	/* an opcode that does not exist */
		memset(w, 0xa5, 1u << sq->log2_elem_size);
		w->wr.opcode = 0xdead;
		w->wr.send_flags = IBV_SEND_SIGNALED;
		__atomic_store_n(&sq->producer_index, 1, __ATOMIC_RELEASE);
		break;
	case 1:	/* num_sge far past the limit */
		memset(w, 0, sizeof(*w));
		w->wr.opcode = IBV_WR_SEND;
		w->dma.num_sge = 100000;
		__atomic_store_n(&sq->producer_index, 1, __ATOMIC_RELEASE);
		break;
	case 2:	/* a producer index past the mask, over garbage slots */
		for (i = 0; i <= (int)sq->index_mask; i++)
			memset(sq->data + ((size_t)i << sq->log2_elem_size),
			       i * 37, 1u << sq->log2_elem_size);
		__atomic_store_n(&sq->producer_index, 0xfffffff7, __ATOMIC_RELEASE);
		break;
	case 3:	/* a garbage lkey and an inline length past the limit */
		memset(w, 0, 2 * sizeof(*w) + 64);
		w->wr.opcode = IBV_WR_RDMA_WRITE;
		w->dma.num_sge = 1;
		w->dma.sge[0].lkey = 0x12345678;
		w->dma.sge[0].length = 100;
		w->wr.wr.rdma.rkey = B.mr->rkey;
		w->wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
		w = (struct sroce_send_wqe *)(sq->data + (1u << sq->log2_elem_size));
		memset(w, 0, sizeof(*w));
		w->wr.opcode = IBV_WR_SEND;
		w->wr.send_flags = IBV_SEND_INLINE;
		w->dma.length = 1u << 20;
		__atomic_store_n(&sq->producer_index, 2, __ATOMIC_RELEASE);
		break;
	case 4:	/* the header scribbled on: geometry is the kernel's own */
		sq->index_mask = 0xffffffff;
		sq->log2_elem_size = 30;
		sq->consumer_index = 0x7777777;
		memset(w, 0, sizeof(*w));
		w->wr.opcode = IBV_WR_SEND;
		__atomic_store_n(&sq->producer_index, 0xffffff, __ATOMIC_RELEASE);
		break;
	}
	check(!doorbell(qa) || errno, "%s: doorbell answered", what);
	/*
	 * Until the first error completion (30 s: a debug kernel under
	 * emulation is slow), then what the flush adds, and the QP's state,
	 * which follows the completion.
	 */
	for (n = 0, t0 = now(); !errs && n < 300 && now() - t0 < 30; n += k) {
		k = poll_n(A.cq, wc + n, 300 - n, 0.2);
		for (i = n; i < n + k; i++)
			errs += wc[i].status != IBV_WC_SUCCESS;
	}
	n += poll_n(A.cq, wc + n, 300 - n, 0.5);
	for (t0 = now(); qp_state(qa) != IBV_QPS_ERR && now() - t0 < 10;)
		usleep(10000);
	check(n > 0 && errs > 0 && qp_state(qa) == IBV_QPS_ERR,
	      "%s: error completions (%d of %d), QP in ERROR", what, errs, n);
	destroy_pair(qa, qb);
}

/*
 * A producer index moved backwards, then forwards again, while a WQE is
 * in flight (its peer QPN does not exist: it waits for an ACK). The
 * requester must not fetch over the kernel's copy of that WQE: flushed, it
 * still carries its own wr_id, not that of what the ring holds now.
 */
static void hostile_prod_back(void)
{
	const char *what = "producer index moved backwards";
	struct qp_opts slow = default_opts;
	char *before = strdup(uverbs_maps());
	struct sroce_queue_buf *sq;
	struct sroce_send_wqe *w;
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc[600];
	struct ibv_qp *qa;
	int n;

	slow.timeout = 20;	/* 4 s: no retry during the test */
	qa = make_qp(&A, 0);
	sq = new_sq_ring(before);
	free(before);
	if (!qa || !sq || connect_qp(&A, qa, &B, 0xfff0f0, &slow)) {
		check(0, "%s: connect", what);
		return;
	}
	w = (struct sroce_send_wqe *)sq->data;
	memset(w, 0, sizeof(*w));
	w->wr.wr_id = 0x600d;
	w->wr.opcode = IBV_WR_SEND;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	__atomic_store_n(&sq->producer_index, 1, __ATOMIC_RELEASE);
	check(!doorbell(qa), "%s: doorbell", what);
	usleep(300000);
	/* Slot 0 now says something else; the index goes round. */
	w->wr.wr_id = 0xbad;
	__atomic_store_n(&sq->producer_index, 0, __ATOMIC_RELEASE);
	doorbell(qa);
	usleep(500000);
	__atomic_store_n(&sq->producer_index, 1, __ATOMIC_RELEASE);
	doorbell(qa);
	usleep(500000);
	check(!ibv_modify_qp(qa, &attr, IBV_QP_STATE), "%s: to ERROR", what);
	n = poll_n(A.cq, wc, 600, 3);
	check(n >= 1 && wc[0].wr_id == 0x600d &&
	      wc[0].status == IBV_WC_WR_FLUSH_ERR && n <= (int)sq->index_mask,
	      "%s: the WQE in flight flushed as itself (%d completions, first wr_id %#llx %s)",
	      what, n, n ? (unsigned long long)wc[0].wr_id : 0ULL,
	      n ? ibv_wc_status_str(wc[0].status) : "-");
	check(!ibv_destroy_qp(qa), "%s: destroy", what);
}

/* A QP on B with an SRQ, connected to a QP on A. */
static int srq_pair(struct ibv_srq *srq, struct ibv_qp **qa, struct ibv_qp **qb)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = B.cq, .recv_cq = B.cq, .qp_type = IBV_QPT_RC,
		.srq = srq, .cap = { .max_send_wr = 16, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD, .pd = B.pd,
	};

	*qa = make_qp(&A, 0);
	*qb = ibv_create_qp_ex(B.ctx, &ia);
	if (!*qa || !*qb)
		return -1;
	if (connect_qp(&A, *qa, &B, (*qb)->qp_num, &default_opts) ||
	    connect_qp(&B, *qb, &A, (*qa)->qp_num, &default_opts))
		return -1;
	return 0;
}

/*
 * Garbage in B's receive ring (its RQ, or its SRQ for mode 4), then A
 * SENDs @len bytes: the receive completes with an error (@want if not
 * 0), B's QP goes to ERROR, and A's SEND does not succeed.
 */
static void hostile_recv_case(const char *what, int mode, uint32_t len,
			      enum ibv_wc_status want)
{
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_sge sge = { (uintptr_t)A.buf, len, A.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x5e, .sg_list = &sge,
				  .num_sge = len ? 1 : 0, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	char *before = strdup(uverbs_maps());
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_srq *srq = NULL;
	struct sroce_queue_buf *rq = NULL;
	struct sroce_recv_wqe *w;
	struct ibv_wc wa, wb[600];
	void *sqr;
	int i, na, nb, ok;

	if (mode == 4) {
		srq = ibv_create_srq(B.pd, &si);
		if (srq)
			new_rings(before, (void **)&rq, NULL);
		ok = srq && rq && !srq_pair(srq, &qa, &qb);
	} else {
		qb = make_qp(&B, 0);
		if (qb)
			new_rings(before, &sqr, (void **)&rq);
		qa = make_qp(&A, 0);
		ok = qa && qb && rq &&
		     !connect_qp(&A, qa, &B, qb->qp_num, &default_opts) &&
		     !connect_qp(&B, qb, &A, qa->qp_num, &default_opts);
	}
	free(before);
	if (!ok) {
		check(0, "%s: set up", what);
		goto out;
	}
	w = (struct sroce_recv_wqe *)rq->data;
	memset(w, 0, sizeof(*w) + 4 * sizeof(struct sroce_sge));
	w->wr_id = 0x5151;
	switch (mode) {
	case 0:
	case 4:	/* num_sge past the limit */
		w->dma.num_sge = 1000;
		break;
	case 2:	/* SGE lengths summing past 2^32 */
		w->dma.num_sge = 4;
		for (i = 0; i < 4; i++)
			w->dma.sge[i] = (struct sroce_sge){
				.addr = (uintptr_t)B.buf, .length = 0xc0000000,
				.lkey = B.mr->lkey };
		break;
	case 3:	/* a producer index past the mask, over garbage slots */
		for (i = 0; i <= (int)rq->index_mask; i++)
			memset(rq->data + ((size_t)i << rq->log2_elem_size),
			       i * 37 + 1, 1u << rq->log2_elem_size);
		break;
	}
	__atomic_store_n(&rq->producer_index, mode == 3 ? 0xfffffff7 : 1,
			 __ATOMIC_RELEASE);
	if (ibv_post_send(qa, &wr, &bad)) {
		check(0, "%s: post", what);
		goto out;
	}
	na = poll_n(A.cq, &wa, 1, 30);
	nb = poll_n(B.cq, wb, 600, 2);
	check(nb > 0 && wb[0].status != IBV_WC_SUCCESS &&
	      (!want || (wb[0].status == want && wb[0].wr_id == 0x5151)),
	      "%s: the receive completes with %s (got %s)", what,
	      want ? ibv_wc_status_str(want) : "an error",
	      nb ? ibv_wc_status_str(wb[0].status) : "nothing");
	check(qp_state(qb) == IBV_QPS_ERR, "%s: B's QP in ERROR", what);
	check(na == 1 && wa.status != IBV_WC_SUCCESS,
	      "%s: the SEND does not succeed (%s)", what,
	      na ? ibv_wc_status_str(wa.status) : "no completion");
out:
	destroy_pair(qa, qb);
	if (srq)
		check(!ibv_destroy_srq(srq), "%s: destroy the SRQ", what);
}

/*
 * A CQ consumer index moved ahead of the producer: sroce sees the CQ full,
 * loses the completion and reports the overrun (IBV_EVENT_CQ_ERR); the
 * peer is not affected; everything is destroyed normally.
 */
static void hostile_cq_ahead(void)
{
	const char *what = "CQ consumer index ahead of the producer";
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_sge sa = { (uintptr_t)A.buf, 64, A.mr->lkey };
	struct ibv_sge sb = { (uintptr_t)B.buf, 64, B.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sa, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sb, .num_sge = 1 },
			   *rbad;
	char *before = strdup(uverbs_maps());
	struct sroce_queue_buf *cr = NULL;
	struct ibv_qp *qa = NULL, *qb;
	struct ibv_cq *cq;
	struct ibv_wc wc;
	uint32_t prod;

	cq = ibv_create_cq(A.ctx, 64, NULL, NULL, 0);
	if (cq)
		new_rings(before, (void **)&cr, NULL);
	free(before);
	ia.send_cq = ia.recv_cq = cq;
	if (cq)
		qa = ibv_create_qp(A.pd, &ia);
	qb = make_qp(&B, 0);
	if (!cr || !qa || !qb ||
	    connect_qp(&A, qa, &B, qb->qp_num, &default_opts) ||
	    connect_qp(&B, qb, &A, qa->qp_num, &default_opts) ||
	    ibv_post_recv(qb, &rwr, &rbad)) {
		check(0, "%s: set up", what);
		return;
	}
	prod = __atomic_load_n(&cr->producer_index, __ATOMIC_ACQUIRE);
	__atomic_store_n(&cr->consumer_index, (prod + 1) & cr->index_mask,
			 __ATOMIC_RELEASE);
	check(!ibv_post_send(qa, &wr, &bad), "%s: post", what);
	check(wait_event(A.ctx, IBV_EVENT_CQ_ERR, 20),
	      "%s: the overrun is reported (IBV_EVENT_CQ_ERR)", what);
	check(poll_n(B.cq, &wc, 1, 10) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.wr_id == 2, "%s: the peer's receive succeeds", what);
	/* Each event is kernel memory until read: one per CQ, not per post. */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
	wr.wr.rdma.rkey = B.mr->rkey;
	for (int k = 0; k < 8; k++)
		check(!ibv_post_send(qa, &wr, &bad), "%s: post WRITE %d", what, k);
	check(!wait_event(A.ctx, IBV_EVENT_CQ_ERR, 3),
	      "%s: 8 more lost completions raise no second CQ_ERR", what);
	check(!ibv_destroy_qp(qa) && !ibv_destroy_qp(qb) && !ibv_destroy_cq(cq),
	      "%s: QPs and CQ destroyed", what);
}

/*
 * B's QP destroyed while A floods it with WRITEs: the destroy returns,
 * A's QP ends in errors (or completes), and B's device carries on.
 */
static void hostile_destroy_flood(void)
{
	const char *what = "destroy_qp while the peer floods";
	struct ibv_sge sge = { (uintptr_t)A.buf, 65536, A.mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE }, *bad;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc[256];
	double t0;
	int i, n, posted = 0, errs = 0;

	if (pair(&qa, &qb, &default_opts, &default_opts, 0)) {
		check(0, "%s: connect", what);
		return;
	}
	wr.wr.rdma.remote_addr = (uintptr_t)B.buf;
	wr.wr.rdma.rkey = B.mr->rkey;
	for (i = 0; i < 200; i++) {
		wr.wr_id = i;
		wr.send_flags = i == 199 ? IBV_SEND_SIGNALED : 0;
		if (ibv_post_send(qa, &wr, &bad))
			break;
		posted++;
	}
	t0 = now();
	check(posted == 200 && !ibv_destroy_qp(qb) && now() - t0 < 30,
	      "%s: %d WRITEs posted, destroy returned in %.1f s", what, posted,
	      now() - t0);
	/* The last WRITE completes, or everything from the first lost one fails. */
	n = poll_n(A.cq, wc, 1, 60);
	for (i = 0; i < n; i++)
		errs += wc[i].status != IBV_WC_SUCCESS;
	n += poll_n(A.cq, wc + n, 256 - n, 1);
	check(n >= 1 && (errs || wc[0].wr_id == 199),
	      "%s: A's QP finished (%d completions, first %s)", what, n,
	      n ? ibv_wc_status_str(wc[0].status) : "-");
	check(!ibv_destroy_qp(qa), "%s: destroy A's QP", what);
}

/* After all that, a fresh pair moves data as if nothing had happened. */
static void hostile_after(void)
{
	struct ibv_sge sa = { (uintptr_t)A.buf, 4096, A.mr->lkey };
	struct ibv_sge sb = { (uintptr_t)B.buf + 8192, 4096, B.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sa, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sb, .num_sge = 1 },
			   *rbad;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wa, wb;

	fill(A.buf, 4096);
	if (pair(&qa, &qb, &default_opts, &default_opts, 0) ||
	    ibv_post_recv(qb, &rwr, &rbad) || ibv_post_send(qa, &wr, &bad)) {
		check(0, "after the hostile cases: connect and post");
		return;
	}
	check(poll_n(A.cq, &wa, 1, 30) == 1 && wa.status == IBV_WC_SUCCESS &&
	      poll_n(B.cq, &wb, 1, 30) == 1 && wb.status == IBV_WC_SUCCESS &&
	      !memcmp(A.buf, B.buf + 8192, 4096),
	      "after the hostile cases: a new pair's SEND arrives intact");
	destroy_pair(qa, qb);
}

static void hostile(void)
{
	hostile_case("bad opcode", 0);
	hostile_case("num_sge past the limit", 1);
	hostile_case("producer index past the mask", 2);
	hostile_case("bad lkey, oversized inline", 3);
	hostile_case("scribbled ring header", 4);
	hostile_prod_back();
	hostile_recv_case("RQ: num_sge past the limit", 0, 64,
			  IBV_WC_LOC_QP_OP_ERR);
	hostile_recv_case("RQ: num_sge past the limit, 0-byte SEND", 0, 0,
			  IBV_WC_LOC_QP_OP_ERR);
	hostile_recv_case("RQ: SGE lengths past 2^32", 2, 64,
			  IBV_WC_LOC_LEN_ERR);
	hostile_recv_case("RQ: producer index past the mask", 3, 64, 0);
	hostile_recv_case("SRQ: num_sge past the limit", 4, 64,
			  IBV_WC_LOC_QP_OP_ERR);
	hostile_cq_ahead();
	hostile_destroy_flood();
	hostile_after();
}

/* ------------------------------------------------------------------ UD */
#define UD_QKEY 0x11111111

static struct ibv_qp *ud_qp(struct side *s)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};
	struct ibv_qp_attr m = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &a);

	if (!qp || ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY))
		return NULL;
	m = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE))
		return NULL;
	m = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 7 };
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return NULL;
	return qp;
}

/* Post one receive of @len bytes at B's offset @off (40 bytes of GRH first). */
static int ud_recv(struct ibv_qp *qp, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)B.buf + off, .length = len, .lkey = B.mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = off, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		   uint32_t qkey, size_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)A.buf + off, .length = len, .lkey = A.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = off, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static void ud(void)
{
	uint32_t mtu = 128u << A.mtu, sizes[] = { 0, 1, 100, mtu - 1, mtu };
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = B.gidv, .sgid_index = A.gid, .hop_limit = 64 },
	};
	struct ibv_qp *qa = ud_qp(&A), *qb = ud_qp(&B);
	struct ibv_ah *ah = ibv_create_ah(A.pd, &aa);
	struct ibv_wc wc[4];
	unsigned int i;
	int n;

	check(qa && qb && ah, "UD QPs in RTS and an AH to B");
	if (!qa || !qb || !ah)
		return;
	fill(A.buf, 2 * mtu + 64);

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t len = sizes[i];

		memset(B.buf, 0xee, 2 * mtu + 64);
		ud_recv(qb, 0, 40 + mtu);
		check(!ud_send(qa, ah, qb->qp_num, UD_QKEY, 8, len),
		      "post a %u-byte UD send", len);
		n = poll_n(A.cq, wc, 1, 10) + poll_n(B.cq, wc + 1, 1, 10);
		check(n == 2 && wc[0].status == IBV_WC_SUCCESS &&
		      wc[1].status == IBV_WC_SUCCESS && wc[1].opcode == IBV_WC_RECV &&
		      wc[1].byte_len == 40 + len && wc[1].src_qp == qa->qp_num &&
		      (wc[1].wc_flags & IBV_WC_GRH),
		      "%u bytes: send and receive complete, byte_len %u = 40 + %u, src_qp, GRH",
		      len, n == 2 ? wc[1].byte_len : 0, len);
		check(!memcmp(B.buf + 40, A.buf + 8, len) &&
		      (unsigned char)B.buf[40 + len] == 0xee,
		      "%u bytes: data after the GRH equal, nothing written past it", len);
	}

	/* Larger than the MTU: success, and no packet (C10-93.1.1). */
	ud_recv(qb, 0, 40 + mtu);
	check(!ud_send(qa, ah, qb->qp_num, UD_QKEY, 8, mtu + 1),
	      "post a UD send of MTU + 1 bytes");
	n = poll_n(A.cq, wc, 1, 10);
	check(n == 1 && wc[0].status == IBV_WC_SUCCESS,
	      "MTU + 1: the send completes successfully (status %d)",
	      n == 1 ? (int)wc[0].status : -1);
	/* A wrong Q_Key: dropped by B, the send still succeeds. */
	check(!ud_send(qa, ah, qb->qp_num, UD_QKEY + 1, 8, 64),
	      "post a UD send with the wrong Q_Key");
	n = poll_n(A.cq, wc, 1, 10);
	check(n == 1 && wc[0].status == IBV_WC_SUCCESS, "wrong Q_Key: the send completes");
	n = poll_n(B.cq, wc, 1, 1);
	check(n == 0, "B received neither (%d completions)", n);

	/* The same receive now takes the next good message. */
	check(!ud_send(qa, ah, qb->qp_num, UD_QKEY, 16, 200), "post a 200-byte UD send");
	n = poll_n(A.cq, wc, 1, 10) + poll_n(B.cq, wc + 1, 1, 10);
	check(n == 2 && wc[1].status == IBV_WC_SUCCESS && wc[1].byte_len == 240 &&
	      !memcmp(B.buf + 40, A.buf + 16, 200),
	      "afterwards a good message arrives intact in the waiting receive");

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_ah(ah);
}

/*
 * UD datagrams counted, under fault injection: @n MTU-sized sends, each
 * tagged with its number and a pattern of it, one in flight at a time.
 * Every send must complete successfully; what arrives must be intact,
 * each number once, in order. Prints "received=M" for the caller.
 */
#define UD_SLOTS 16

static uint8_t ud_pat(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + 1);
}

static void ud_tag(uint32_t seq, uint32_t len)
{
	uint32_t i;

	memcpy(A.buf, &seq, sizeof(seq));
	for (i = sizeof(seq); i < len; i++)
		A.buf[i] = (char)ud_pat(seq, i);
}

/* A datagram in B's slot at @off: its number if intact, else -1. */
static int64_t ud_untag(size_t off, uint32_t len)
{
	const uint8_t *p = (const uint8_t *)B.buf + off + 40;
	uint32_t seq, i;

	memcpy(&seq, p, sizeof(seq));
	for (i = sizeof(seq); i < len; i++)
		if (p[i] != ud_pat(seq, i))
			return -1;
	return seq;
}

/* Take what B received within @timeout; false on a bad datagram. */
static bool ud_take(struct ibv_qp *qb, uint32_t len, double timeout,
		    int64_t *last, unsigned int *got)
{
	struct ibv_wc wc;
	int64_t seq;

	while (poll_n(B.cq, &wc, 1, timeout) == 1) {
		seq = wc.status == IBV_WC_SUCCESS && wc.byte_len == 40 + len ?
		      ud_untag(wc.wr_id, len) : -1;
		if (seq <= *last) {
			check(0, "datagram after %lld: status %d, %u bytes, number %lld",
			      (long long)*last, wc.status, wc.byte_len, (long long)seq);
			return false;
		}
		*last = seq;
		(*got)++;
		ud_recv(qb, wc.wr_id, 40 + len);
		timeout = 0.001;	/* then only what is there already */
	}
	return true;
}

static void ud_count(int n)
{
	uint32_t len = 128u << A.mtu;
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = B.gidv, .sgid_index = A.gid, .hop_limit = 64 },
	};
	struct ibv_qp *qa = ud_qp(&A), *qb = ud_qp(&B);
	struct ibv_ah *ah = ibv_create_ah(A.pd, &aa);
	unsigned int got = 0, sent = 0, i;
	int64_t last = -1;
	struct ibv_wc wc;
	bool ok = true;

	check(qa && qb && ah, "UD QPs in RTS and an AH to B");
	if (!qa || !qb || !ah)
		return;
	for (i = 0; i < UD_SLOTS; i++)
		ud_recv(qb, i * (40 + len), 40 + len);
	for (i = 0; ok && i < (unsigned int)n; i++) {
		ud_tag(i, len);
		if (ud_send(qa, ah, qb->qp_num, UD_QKEY, 0, len) ||
		    poll_n(A.cq, &wc, 1, 10) != 1 || wc.status != IBV_WC_SUCCESS) {
			check(0, "send %u: posted and completed successfully", i);
			break;
		}
		sent++;
		ok = ud_take(qb, len, 0.05, &last, &got);
	}
	if (ok)
		ok = ud_take(qb, len, 1, &last, &got);
	check(sent == (unsigned int)n, "%u of %d datagrams sent", sent, n);
	check(ok && got > 0, "what arrived is intact, in order, once: %u", got);
	printf("# received=%u\n", got);
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_ah(ah);
}

/* ---- RDMA FLUSH, posted through the ring ---- */

/*
 * One FLUSH from a new pair's A to @rkey at @addr (@len bytes; placement
 * @type, selectivity @level), written into A's send ring, since librxe 44
 * has no verb for it; first, if @wlen, a WRITE of A's first @wlen bytes
 * there. Checks the FLUSH's completion against @want, and that A's QP is
 * in ERROR after a failure.
 */
static void flush_case(const char *what, uint32_t rkey, uint64_t addr,
		       uint32_t len, int type, int level, uint32_t wlen,
		       enum ibv_wc_status want)
{
	char *before = strdup(uverbs_maps());
	struct ibv_qp *qa = make_qp(&A, 0), *qb;
	struct sroce_queue_buf *sq = new_sq_ring(before);	/* A's, the newest */
	struct ibv_sge sge = { (uintptr_t)A.buf, wlen, A.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = addr, .rkey = rkey },
	};
	struct ibv_wc wc;
	int n;

	free(before);
	qb = make_qp(&B, 0);
	if (!qa || !qb || !sq ||
	    connect_qp(&A, qa, &B, qb->qp_num, &default_opts) ||
	    connect_qp(&B, qb, &A, qa->qp_num, &default_opts)) {
		check(0, "%s: connect", what);
		destroy_pair(qa, qb);
		return;
	}
	if (wlen && (post1(qa, &wr, A.cq, &wc) || wc.status != IBV_WC_SUCCESS))
		check(0, "%s: the WRITE before (%s)", what,
		      ibv_wc_status_str(wc.status));
	check(!ring_post_flush(qa, sq, 0xf1, addr, len, rkey, type, level),
	      "%s: doorbell", what);
	n = poll_n(A.cq, &wc, 1, 30);
	check(n == 1 && wc.wr_id == 0xf1 && wc.status == want &&
	      (want != IBV_WC_SUCCESS || wc.opcode == WC_FLUSH),
	      "%s: %s (got %s, opcode %d)", what, ibv_wc_status_str(want),
	      n ? ibv_wc_status_str(wc.status) : "nothing",
	      n ? (int)wc.opcode : -1);
	if (want != IBV_WC_SUCCESS)
		check(qp_state(qa) == IBV_QPS_ERR, "%s: A's QP in ERROR", what);
	destroy_pair(qa, qb);
}

/*
 * RDMA FLUSH as the requester (wire/flush crafts the responder's cases):
 * where the device offers global visibility (6.2 on; before, the core
 * refuses the MR access bit), a FLUSH of a range just written, of the
 * whole MR and of no bytes completes as IB_UVERBS_WC_FLUSH; a persistent
 * one, or one past the MR, gets a remote access error. On every kernel a
 * FLUSH to an MR without the access gets a remote access error, and one
 * with no placement type or a reserved selectivity level fails before it
 * is sent.
 */
static void flush_ops(void)
{
	char *buf = aligned_alloc(4096, 8192);
	uint64_t va = (uintptr_t)buf, bva = (uintptr_t)B.buf;
	struct ibv_device_attr_ex da;
	struct ibv_mr *mr;
	int known;

	if (!check(buf && !ibv_query_device_ex(B.ctx, NULL, &da),
		   "query_device_ex"))
		return;
	known = (da.device_cap_flags_ex >> 38) & 1;
	memset(buf, 0, 8192);
	mr = ibv_reg_mr(B.pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | FLUSH_GLOBAL_ACCESS);
	check(!!mr == known, "an MR allowing FLUSH_GLOBAL %s, capability bit 38 %d",
	      mr ? "registered" : "refused", known);
	fill(A.buf, 4096);
	if (mr) {
		flush_case("a range just written", mr->rkey, va + 4096, 4096,
			   1, 0, 4096, IBV_WC_SUCCESS);
		check(!memcmp(buf + 4096, A.buf, 4096) && !buf[4095],
		      "the WRITE before the FLUSH placed, nothing else");
		flush_case("the whole MR", mr->rkey, 0, 0, 1, 1, 0,
			   IBV_WC_SUCCESS);
		flush_case("no bytes", mr->rkey, va, 0, 1, 0, 0, IBV_WC_SUCCESS);
		flush_case("persistence", mr->rkey, va, 64, 2, 0, 0,
			   IBV_WC_REM_ACCESS_ERR);
		flush_case("past the MR", mr->rkey, va + 4096, 8192, 1, 0, 0,
			   IBV_WC_REM_ACCESS_ERR);
		ibv_dereg_mr(mr);
	}
	flush_case("an MR without the access", B.mr->rkey, bva, 64, 1, 0, 0,
		   IBV_WC_REM_ACCESS_ERR);
	flush_case("no placement type", B.mr->rkey, bva, 64, 0, 0, 0,
		   IBV_WC_LOC_QP_OP_ERR);
	flush_case("a reserved selectivity level", B.mr->rkey, bva, 64, 1, 2, 0,
		   IBV_WC_LOC_QP_OP_ERR);
	free(buf);
}

/*
 * wire: QP pairs held open for the wire tests, which inject crafted
 * packets (roce_inject) between commands read from stdin, one per line,
 * each answered by one line on stdout ("ERR ..." if it could not be done):
 *   new rc|uc [TIMEOUT]  a connected pair (both PSNs start at 1000), RC
 *                        with that local ACK timeout (default 14; retry
 *                        count 7): "pair=P qpa=N qpb=N"
 *   post P a|b OP LEN [LOFF [ROFF [ADD_OR_SWAP [COMPARE]]]]
 *                        OP send|write|read|fadd|cswap from that side's QP
 *                        of pair P, local buffer at LOFF, the peer's at
 *                        ROFF: "psn=FIRST npkts=N"
 *   uwrites P a|b N LEN  N unsignaled WRITEs of LEN bytes (the i-th at
 *                        i * LEN on both sides) in one post_send:
 *                        "psn=FIRST npkts=N"
 *   recv P a|b N LEN     N receives of LEN bytes at offset 0: "ok"
 *   psn P a|b            the next PSN that side sends: "psn=N"
 *   poll a|b SECS N      up to N completions of that side within SECS:
 *                        "wc n=K STATUS:OPCODE:BYTE_LEN..." (numbers)
 *   state P a|b          "state=RTS" (RESET INIT RTR RTS SQD SQE ERR)
 *   dump a|b OFF LEN     the buffer bytes in hex: "hex=..."
 *   fill a|b OFF LEN B   set bytes: "ok"
 *   mr a|b ACCESS        register that side's whole buffer once more, with
 *                        ACCESS (raw IBV_ACCESS_* bits, also ones this
 *                        libibverbs has no name for): "rkey=N", or
 *                        "rkey=- errno=E" if the kernel refuses
 *   caps a|b             the device's capability flags, all 64 bits of
 *                        ibv_query_device_ex(): "caps=0x..."
 * At start: "va_a=0x.. rkey_a=N va_b=0x.. rkey_b=N mtu=BYTES".
 */
#define WIRE_PAIRS 16

static struct {
	struct ibv_qp *q[2];
	uint32_t psn[2];
} wp[WIRE_PAIRS];
static int nwp;

static struct ibv_qp *wire_qp(struct side *s, enum ibv_qp_type t)
{
	struct ibv_qp_init_attr a = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = t,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(s->pd, &a);
}

/* UC: as connect_qp() without the RC-only attributes. */
static int wire_connect_uc(struct side *s, struct ibv_qp *qp,
			   struct side *peer, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR, .path_mtu = s->mtu, .dest_qp_num = dqpn,
		.rq_psn = 1000,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = peer->gidv, .sgid_index = s->gid,
				      .hop_limit = 64 } },
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN))
		return -1;
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1000 };
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void wire_new(const char *type, long long timeout)
{
	struct qp_opts o = default_opts;
	int uc = !strcmp(type, "uc");
	struct ibv_qp *qa, *qb;
	int err;

	if (timeout)
		o.timeout = timeout;
	if (nwp == WIRE_PAIRS || (!uc && strcmp(type, "rc")) || timeout < 0 ||
	    timeout > 31) {
		printf("ERR new %s\n", type);
		return;
	}
	qa = wire_qp(&A, uc ? IBV_QPT_UC : IBV_QPT_RC);
	qb = wire_qp(&B, uc ? IBV_QPT_UC : IBV_QPT_RC);
	if (!qa || !qb) {
		printf("ERR create_qp: %s\n", strerror(errno));
		return;
	}
	if (uc)
		err = wire_connect_uc(&A, qa, &B, qb->qp_num) ||
		      wire_connect_uc(&B, qb, &A, qa->qp_num);
	else
		err = connect_qp(&A, qa, &B, qb->qp_num, &o) ||
		      connect_qp(&B, qb, &A, qa->qp_num, &o);
	if (err) {
		printf("ERR modify_qp: %s\n", strerror(errno));
		return;
	}
	wp[nwp].q[0] = qa;
	wp[nwp].q[1] = qb;
	wp[nwp].psn[0] = wp[nwp].psn[1] = 1000;
	printf("pair=%d qpa=%u qpb=%u\n", nwp, qa->qp_num, qb->qp_num);
	nwp++;
}

static void wire_post(int p, int sd, const char *op, uint32_t len,
		      uint64_t loff, uint64_t roff, uint64_t arg1, uint64_t arg2)
{
	struct side *s = sd ? &B : &A, *peer = sd ? &A : &B;
	uint32_t mtu = 128u << s->mtu, npkts = 1;
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf + loff, .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (!strcmp(op, "send")) {
		wr.opcode = IBV_WR_SEND;
	} else if (!strcmp(op, "write")) {
		wr.opcode = IBV_WR_RDMA_WRITE;
	} else if (!strcmp(op, "read")) {
		wr.opcode = IBV_WR_RDMA_READ;
	} else if (!strcmp(op, "fadd") || !strcmp(op, "cswap")) {
		wr.opcode = op[0] == 'f' ? IBV_WR_ATOMIC_FETCH_AND_ADD :
					   IBV_WR_ATOMIC_CMP_AND_SWP;
		sge.length = len = 8;
		wr.wr.atomic.remote_addr = (uintptr_t)peer->buf + roff;
		wr.wr.atomic.rkey = peer->mr->rkey;
		wr.wr.atomic.compare_add = op[0] == 'f' ? arg1 : arg2;
		wr.wr.atomic.swap = arg1;
	} else {
		printf("ERR op %s\n", op);
		return;
	}
	if (wr.opcode == IBV_WR_RDMA_WRITE || wr.opcode == IBV_WR_RDMA_READ) {
		wr.wr.rdma.remote_addr = (uintptr_t)peer->buf + roff;
		wr.wr.rdma.rkey = peer->mr->rkey;
	}
	if (wr.opcode != IBV_WR_ATOMIC_FETCH_AND_ADD &&
	    wr.opcode != IBV_WR_ATOMIC_CMP_AND_SWP && len > mtu)
		npkts = (len + mtu - 1) / mtu;
	if (loff > s->len || len > s->len - loff || roff > peer->len ||
	    len > peer->len - roff) {
		printf("ERR out of the buffer\n");
		return;
	}
	if (ibv_post_send(wp[p].q[sd], &wr, &bad)) {
		printf("ERR post_send: %s\n", strerror(errno));
		return;
	}
	printf("psn=%u npkts=%u\n", wp[p].psn[sd], npkts);
	wp[p].psn[sd] = (wp[p].psn[sd] + npkts) & 0xffffff;
}

static void wire_uwrites(int p, int sd, uint32_t n, uint32_t len)
{
	struct side *s = sd ? &B : &A, *peer = sd ? &A : &B;
	struct ibv_send_wr wr[16], *bad;
	struct ibv_sge sge[16];
	uint32_t i;

	if (!n || n > 16 || len > 128u << s->mtu || n * len > s->len ||
	    n * len > peer->len) {
		printf("ERR uwrites %u %u\n", n, len);
		return;
	}
	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)s->buf + i * len,
					   .length = len, .lkey = s->mr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = 2, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.wr.rdma = { .remote_addr = (uintptr_t)peer->buf + i * len,
				     .rkey = peer->mr->rkey },
		};
	}
	if (ibv_post_send(wp[p].q[sd], wr, &bad)) {
		printf("ERR post_send: %s\n", strerror(errno));
		return;
	}
	printf("psn=%u npkts=%u\n", wp[p].psn[sd], n);
	wp[p].psn[sd] = (wp[p].psn[sd] + n) & 0xffffff;
}

static void wire_recv(int p, int sd, int n, uint32_t len)
{
	struct side *s = sd ? &B : &A;
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	while (n-- > 0)
		if (len > s->len || ibv_post_recv(wp[p].q[sd], &wr, &bad)) {
			printf("ERR post_recv\n");
			return;
		}
	printf("ok\n");
}

static void wire_poll(int sd, double secs, int n)
{
	struct ibv_wc wc[64];
	int got, i;

	if (n < 0 || n > 64)
		n = 64;
	got = poll_n(sd ? B.cq : A.cq, wc, n, secs);
	printf("wc n=%d", got);
	for (i = 0; i < got; i++)
		printf(" %d:%d:%u", wc[i].status, wc[i].opcode, wc[i].byte_len);
	printf("\n");
}

static void wire_state(int p, int sd)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD", "SQE", "ERR" };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(wp[p].q[sd], &a, IBV_QP_STATE, &ia) ||
	    a.qp_state > IBV_QPS_ERR)
		printf("ERR query_qp\n");
	else
		printf("state=%s\n", names[a.qp_state]);
}

static void wire_dump(int sd, uint64_t off, uint64_t len, int fill, int byte)
{
	struct side *s = sd ? &B : &A;
	uint64_t i;

	if (off > s->len || len > s->len - off || len > 4096) {
		printf("ERR out of the buffer\n");
		return;
	}
	if (fill) {
		memset(s->buf + off, byte, len);
		printf("ok\n");
		return;
	}
	printf("hex=");
	for (i = 0; i < len; i++)
		printf("%02x", (unsigned char)s->buf[off + i]);
	printf("\n");
}

static void wire_mr(int sd, int access)
{
	struct side *s = sd ? &B : &A;
	struct ibv_mr *mr = ibv_reg_mr(s->pd, s->buf, s->len, access);

	if (mr)
		printf("rkey=%u\n", mr->rkey);
	else
		printf("rkey=- errno=%d\n", errno);
}

static void wire_caps(int sd)
{
	struct ibv_device_attr_ex a;

	if (ibv_query_device_ex(sd ? B.ctx : A.ctx, NULL, &a))
		printf("ERR query_device_ex\n");
	else
		printf("caps=0x%" PRIx64 "\n", (uint64_t)a.device_cap_flags_ex);
}

static void wire(void)
{
	char line[512], cmd[16], a1[16], a2[16];
	long long n[5];	/* %lli: decimal, or hex with 0x */
	int p, sd, k;

	printf("va_a=0x%" PRIxPTR " rkey_a=%u va_b=0x%" PRIxPTR " rkey_b=%u mtu=%u\n",
	       (uintptr_t)A.buf, A.mr->rkey, (uintptr_t)B.buf, B.mr->rkey,
	       128u << A.mtu);
	while (fgets(line, sizeof(line), stdin)) {
		memset(n, 0, sizeof(n));
		a1[0] = a2[0] = 0;
		if (sscanf(line, "%15s %15s", cmd, a1) < 1)
			continue;
		if (!strcmp(cmd, "quit"))
			break;
		if (!strcmp(cmd, "new")) {
			sscanf(line, "%*s %15s %lli", a1, &n[0]);
			wire_new(a1, n[0]);
			continue;
		}
		if (!strcmp(cmd, "poll") || !strcmp(cmd, "dump") ||
		    !strcmp(cmd, "fill") || !strcmp(cmd, "mr") ||
		    !strcmp(cmd, "caps")) {
			/* CMD a|b NUM... */
			sscanf(line, "%*s %15s %lli %lli %lli", a1, &n[0], &n[1], &n[2]);
			sd = a1[0] == 'b';
			if (!strcmp(cmd, "mr"))
				wire_mr(sd, n[0]);
			else if (!strcmp(cmd, "caps"))
				wire_caps(sd);
			else if (!strcmp(cmd, "poll"))
				wire_poll(sd, n[0], n[1]);
			else
				wire_dump(sd, n[0], n[1], cmd[0] == 'f', n[2]);
			continue;
		}
		/* CMD P a|b [WORD [NUM...]] */
		k = sscanf(line, "%*s %d %15s %15s %lli %lli %lli %lli %lli", &p, a1,
			   a2, &n[0], &n[1], &n[2], &n[3], &n[4]);
		if (k < 2 || p < 0 || p >= nwp) {
			printf("ERR bad command: %s", line);
			continue;
		}
		sd = a1[0] == 'b';
		if (!strcmp(cmd, "post"))
			wire_post(p, sd, a2, n[0], n[1], n[2], n[3], n[4]);
		else if (!strcmp(cmd, "recv"))
			wire_recv(p, sd, atoi(a2), n[0]);
		else if (!strcmp(cmd, "uwrites"))
			wire_uwrites(p, sd, atoi(a2), n[0]);
		else if (!strcmp(cmd, "psn"))
			printf("psn=%u\n", wp[p].psn[sd]);
		else if (!strcmp(cmd, "state"))
			wire_state(p, sd);
		else
			printf("ERR unknown command %s\n", cmd);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int nqp = argc > 6 ? atoi(argv[6]) : 4;
	int nops = argc > 7 ? atoi(argv[7]) : 200;

	rnd_state = argc > 8 ? strtoull(argv[8], NULL, 0) : 0x9e3779b97f4a7c15ull;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 6 || nqp < 1 || nqp > MAXQP) {
		fprintf(stderr, "usage: rc_data integrity|errors|memwin|events|hostile|ud|ud_count|flush|wire DEV_A GID_A DEV_B GID_B [QPS [OPS [SEED]]]\n");
		return 2;
	}
	if (side_init(&A, argv[2], atoi(argv[3]), MAXQP * SLICE) ||
	    side_init(&B, argv[4], atoi(argv[5]), MAXQP * SLICE)) {
		printf("Bail out! cannot set up the devices\n");
		return 1;
	}
	if (!strcmp(mode, "integrity"))
		integrity(nqp, nops);
	else if (!strcmp(mode, "errors"))
		errors();
	else if (!strcmp(mode, "hostile"))
		hostile();
	else if (!strcmp(mode, "memwin"))
		memwin();
	else if (!strcmp(mode, "events"))
		events();
	else if (!strcmp(mode, "ud"))
		ud();
	else if (!strcmp(mode, "ud_count"))
		ud_count(nops);
	else if (!strcmp(mode, "flush"))
		flush_ops();
	else if (!strcmp(mode, "wire")) {
		wire();
		return 0;
	}
	else
		return 2;
	printf("1..%d\n# %d passed, %d failed\n", ntests, ntests - nfail, nfail);
	return nfail ? 1 : 0;
}
