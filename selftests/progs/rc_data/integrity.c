// SPDX-License-Identifier: GPL-2.0
/* rc_data integrity: random RC operations on several QPs, every byte compared. */
#include "rc_data.h"

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

int integrity(int nqp, int nops)
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
