// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compile-time checks of the user ABI: every size and offset that
 * rdma-core's rxe provider relies on (the values are those of the rxe ABI,
 * version 2). A mismatch fails the build. No code.
 */
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <rdma/ib_user_verbs.h>

#include "rdma_user_sroce.h"

#define CHECK_SIZE(type, size) static_assert(sizeof(type) == (size))
#define CHECK_OFF(type, member, off) \
	static_assert(offsetof(type, member) == (off))

CHECK_SIZE(struct sroce_mminfo, 16);
CHECK_OFF(struct sroce_mminfo, size, 8);

/* Ring header: the two indices on their own cache lines, slots at 384. */
CHECK_OFF(struct sroce_queue_buf, log2_elem_size, 0);
CHECK_OFF(struct sroce_queue_buf, index_mask, 4);
CHECK_OFF(struct sroce_queue_buf, producer_index, 128);
CHECK_OFF(struct sroce_queue_buf, consumer_index, 256);
CHECK_OFF(struct sroce_queue_buf, data, 384);
CHECK_SIZE(struct sroce_queue_buf, 384);

CHECK_SIZE(struct sroce_sge, 16);
CHECK_OFF(struct sroce_sge, length, 8);
CHECK_OFF(struct sroce_sge, lkey, 12);

CHECK_SIZE(struct sroce_dma_info, 24);
CHECK_OFF(struct sroce_dma_info, length, 0);
CHECK_OFF(struct sroce_dma_info, resid, 4);
CHECK_OFF(struct sroce_dma_info, cur_sge, 8);
CHECK_OFF(struct sroce_dma_info, num_sge, 12);
CHECK_OFF(struct sroce_dma_info, sge_offset, 16);
CHECK_OFF(struct sroce_dma_info, sge, 24);
CHECK_OFF(struct sroce_dma_info, inline_data, 24);
CHECK_OFF(struct sroce_dma_info, atomic_wr, 24);

CHECK_SIZE(struct sroce_global_route, 24);
CHECK_OFF(struct sroce_global_route, flow_label, 16);
CHECK_OFF(struct sroce_global_route, sgid_index, 20);
CHECK_OFF(struct sroce_global_route, hop_limit, 21);
CHECK_OFF(struct sroce_global_route, traffic_class, 22);

CHECK_SIZE(struct sroce_uav, 88);
CHECK_OFF(struct sroce_uav, network_type, 1);
CHECK_OFF(struct sroce_uav, dmac, 2);
CHECK_OFF(struct sroce_uav, grh, 8);
CHECK_OFF(struct sroce_uav, sgid_addr, 32);
CHECK_OFF(struct sroce_uav, dgid_addr, 60);

CHECK_SIZE(struct sroce_send_wr, 144);
CHECK_OFF(struct sroce_send_wr, wr_id, 0);
CHECK_OFF(struct sroce_send_wr, opcode, 12);
CHECK_OFF(struct sroce_send_wr, send_flags, 16);
CHECK_OFF(struct sroce_send_wr, ex.imm_data, 20);
CHECK_OFF(struct sroce_send_wr, ex.invalidate_rkey, 20);
CHECK_OFF(struct sroce_send_wr, wr.rdma.remote_addr, 24);
CHECK_OFF(struct sroce_send_wr, wr.rdma.rkey, 32);
CHECK_OFF(struct sroce_send_wr, wr.atomic.remote_addr, 24);
CHECK_OFF(struct sroce_send_wr, wr.atomic.compare_add, 32);
CHECK_OFF(struct sroce_send_wr, wr.atomic.swap, 40);
CHECK_OFF(struct sroce_send_wr, wr.atomic.rkey, 48);
CHECK_OFF(struct sroce_send_wr, wr.flush.remote_addr, 24);
CHECK_OFF(struct sroce_send_wr, wr.flush.length, 32);
CHECK_OFF(struct sroce_send_wr, wr.flush.rkey, 36);
CHECK_OFF(struct sroce_send_wr, wr.flush.type, 40);
CHECK_OFF(struct sroce_send_wr, wr.flush.level, 41);
CHECK_OFF(struct sroce_send_wr, wr.ud.remote_qpn, 24);
CHECK_OFF(struct sroce_send_wr, wr.ud.remote_qkey, 28);
CHECK_OFF(struct sroce_send_wr, wr.ud.pkey_index, 32);
CHECK_OFF(struct sroce_send_wr, wr.ud.ah_num, 36);
CHECK_OFF(struct sroce_send_wr, wr.ud.av, 56);
CHECK_OFF(struct sroce_send_wr, wr.mw.addr, 24);
CHECK_OFF(struct sroce_send_wr, wr.mw.length, 32);
CHECK_OFF(struct sroce_send_wr, wr.mw.mr_lkey, 40);
CHECK_OFF(struct sroce_send_wr, wr.mw.mw_rkey, 44);
CHECK_OFF(struct sroce_send_wr, wr.mw.rkey, 48);
CHECK_OFF(struct sroce_send_wr, wr.mw.access, 52);

CHECK_SIZE(struct sroce_send_wqe, 208);
CHECK_OFF(struct sroce_send_wqe, status, 144);
CHECK_OFF(struct sroce_send_wqe, state, 148);
CHECK_OFF(struct sroce_send_wqe, iova, 152);
CHECK_OFF(struct sroce_send_wqe, mask, 160);
CHECK_OFF(struct sroce_send_wqe, ssn, 176);
CHECK_OFF(struct sroce_send_wqe, dma, 184);
CHECK_OFF(struct sroce_send_wqe, dma.sge, 208);

CHECK_SIZE(struct sroce_recv_wqe, 40);
CHECK_OFF(struct sroce_recv_wqe, dma, 16);
CHECK_OFF(struct sroce_recv_wqe, dma.sge, 40);

CHECK_SIZE(struct sroce_create_ah_resp, 8);
CHECK_SIZE(struct sroce_create_cq_resp, 16);
CHECK_SIZE(struct sroce_resize_cq_resp, 16);
CHECK_SIZE(struct sroce_create_qp_resp, 32);
CHECK_OFF(struct sroce_create_qp_resp, sq_mi, 16);
CHECK_SIZE(struct sroce_create_srq_resp, 24);
CHECK_OFF(struct sroce_create_srq_resp, srq_num, 16);
CHECK_SIZE(struct sroce_modify_srq_cmd, 8);

/* CQ slots: user space copies the first 48 bytes as its work completion. */
CHECK_SIZE(struct ib_uverbs_wc, 48);
