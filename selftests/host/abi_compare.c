// SPDX-License-Identifier: GPL-2.0
/*
 * Host test: our uapi header describes the same layout as the rxe ABI
 * header that the installed rdma-core (whose rxe provider drives sroce) was
 * built with. Any difference fails the compile.
 */
#include <stddef.h>
#include <rdma/rdma_user_rxe.h>
#include "../../uapi/rdma_user_sroce.h"

#define SAME_SIZE(a, b) _Static_assert(sizeof(struct a) == sizeof(struct b), #a)
#define SAME_OFF(a, b, m) \
	_Static_assert(offsetof(struct a, m) == offsetof(struct b, m), #a "." #m)

SAME_SIZE(sroce_mminfo, mminfo);
SAME_OFF(sroce_mminfo, mminfo, size);
SAME_SIZE(sroce_queue_buf, rxe_queue_buf);
SAME_OFF(sroce_queue_buf, rxe_queue_buf, index_mask);
SAME_OFF(sroce_queue_buf, rxe_queue_buf, producer_index);
SAME_OFF(sroce_queue_buf, rxe_queue_buf, consumer_index);
SAME_OFF(sroce_queue_buf, rxe_queue_buf, data);
SAME_SIZE(sroce_sge, rxe_sge);
SAME_OFF(sroce_sge, rxe_sge, lkey);
SAME_SIZE(sroce_dma_info, rxe_dma_info);
SAME_OFF(sroce_dma_info, rxe_dma_info, resid);
SAME_OFF(sroce_dma_info, rxe_dma_info, cur_sge);
SAME_OFF(sroce_dma_info, rxe_dma_info, num_sge);
SAME_OFF(sroce_dma_info, rxe_dma_info, sge_offset);
SAME_OFF(sroce_dma_info, rxe_dma_info, sge);
SAME_OFF(sroce_dma_info, rxe_dma_info, inline_data);
SAME_SIZE(sroce_global_route, rxe_global_route);
SAME_OFF(sroce_global_route, rxe_global_route, flow_label);
SAME_OFF(sroce_global_route, rxe_global_route, traffic_class);
SAME_SIZE(sroce_uav, rxe_av);
SAME_OFF(sroce_uav, rxe_av, grh);
SAME_OFF(sroce_uav, rxe_av, sgid_addr);
SAME_OFF(sroce_uav, rxe_av, dgid_addr);
SAME_SIZE(sroce_send_wr, rxe_send_wr);
SAME_OFF(sroce_send_wr, rxe_send_wr, opcode);
SAME_OFF(sroce_send_wr, rxe_send_wr, send_flags);
SAME_OFF(sroce_send_wr, rxe_send_wr, ex);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.rdma.rkey);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.atomic.compare_add);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.atomic.swap);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.atomic.rkey);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.ud.remote_qkey);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.ud.ah_num);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.ud.av);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.mw.mr_lkey);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.mw.rkey);
SAME_OFF(sroce_send_wr, rxe_send_wr, wr.mw.access);
SAME_SIZE(sroce_send_wqe, rxe_send_wqe);
SAME_OFF(sroce_send_wqe, rxe_send_wqe, iova);
SAME_OFF(sroce_send_wqe, rxe_send_wqe, ssn);
SAME_OFF(sroce_send_wqe, rxe_send_wqe, dma);
SAME_SIZE(sroce_recv_wqe, rxe_recv_wqe);
SAME_OFF(sroce_recv_wqe, rxe_recv_wqe, dma);
SAME_SIZE(sroce_create_ah_resp, rxe_create_ah_resp);
SAME_SIZE(sroce_create_cq_resp, rxe_create_cq_resp);
SAME_SIZE(sroce_resize_cq_resp, rxe_resize_cq_resp);
SAME_SIZE(sroce_create_qp_resp, rxe_create_qp_resp);
SAME_OFF(sroce_create_qp_resp, rxe_create_qp_resp, sq_mi);
SAME_SIZE(sroce_create_srq_resp, rxe_create_srq_resp);
SAME_OFF(sroce_create_srq_resp, rxe_create_srq_resp, srq_num);
SAME_SIZE(sroce_modify_srq_cmd, rxe_modify_srq_cmd);
_Static_assert((int)SROCE_NETWORK_TYPE_IPV4 == (int)RXE_NETWORK_TYPE_IPV4, "ipv4");
_Static_assert((int)SROCE_NETWORK_TYPE_IPV6 == (int)RXE_NETWORK_TYPE_IPV6, "ipv6");

#include <infiniband/verbs.h>
_Static_assert(SROCE_UWC_GRH == IBV_WC_GRH, "wc GRH");
_Static_assert(SROCE_UWC_WITH_IMM == IBV_WC_WITH_IMM, "wc IMM");
_Static_assert(SROCE_UWC_WITH_INV == IBV_WC_WITH_INV, "wc INV");

int main(void)
{
	return 0;
}
