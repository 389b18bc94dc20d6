// SPDX-License-Identifier: GPL-2.0
/* rc_data hostile: garbage in the process's own rings. */
#include "rc_data.h"

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

void hostile(void)
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
