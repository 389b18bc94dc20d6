// SPDX-License-Identifier: GPL-2.0
/* rc_data ud: UD sizes up to the MTU, oversized sends, Q_Keys; numbered datagrams. */
#include "rc_data.h"

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

void ud(void)
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

void ud_count(int n)
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
