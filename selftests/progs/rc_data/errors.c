// SPDX-License-Identifier: GPL-2.0
/* rc_data errors: error paths, each with its exact work completion status. */
#include "rc_data.h"

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

void errors(void)
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
