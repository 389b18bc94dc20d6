// SPDX-License-Identifier: GPL-2.0
/* rc_data memwin: memory windows and local operations. */
#include "rc_data.h"

int post1(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_cq *cq,
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

void memwin(void)
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
