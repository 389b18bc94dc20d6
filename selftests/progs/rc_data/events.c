// SPDX-License-Identifier: GPL-2.0
/* rc_data events: asynchronous events. */
#include "rc_data.h"

void events(void)
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
