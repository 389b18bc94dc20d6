/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_REQ_H
#define SROCE_REQ_H

/*
 * The requester (req.c): send WQEs turned into request packets.
 */
#include "sroce.h"

bool sroce_requester(struct sroce_qp *qp, int *budget);
void sroce_req_reset(struct sroce_qp *qp);
void sroce_req_timer_init(struct sroce_qp *qp);
struct sroce_send_wqe *sroce_sq_copy(struct sroce_qp *qp, u32 index);
void sroce_req_acked(struct sroce_qp *qp);
void sroce_req_retry(struct sroce_qp *qp, bool lost);
void sroce_req_completing(struct sroce_qp *qp, struct sroce_send_wqe *wqe);

#endif /* SROCE_REQ_H */
