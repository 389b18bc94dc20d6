// SPDX-License-Identifier: GPL-2.0
/* rc_data wire: QP pairs held open for the wire tests, driven from stdin. */
#include "rc_data.h"

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

void wire(void)
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
