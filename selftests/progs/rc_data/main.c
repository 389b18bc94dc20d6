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
 *	(see wire() in wire.c)
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
#include "rc_data.h"

int ntests, nfail;

struct side A, B;

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

const struct qp_opts default_opts = {
	.timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .min_rnr_timer = 1,
	.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_ATOMIC,
};

struct ibv_qp *make_qp(struct side *s, int ex)
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

int connect_qp(struct side *s, struct ibv_qp *qp, struct side *peer,
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

int pair(struct ibv_qp **qa, struct ibv_qp **qb, const struct qp_opts *oa,
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
int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double timeout)
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

uint64_t rnd_state;

uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

void fill(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)rnd();
}

/* 1 B to 4 MiB, log-uniform. */
uint32_t rnd_size(void)
{
	int bits = rnd() % 23;

	return 1 + rnd() % (1u << bits);
}

void destroy_pair(struct ibv_qp *qa, struct ibv_qp *qb)
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

int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Wait up to @secs for @type on @ctx's async event queue (others skipped). */
int wait_event(struct ibv_context *ctx, enum ibv_event_type type,
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
