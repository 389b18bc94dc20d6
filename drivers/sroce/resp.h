/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

/*
 * The responder (resp.c): incoming requests executed and acknowledged.
 */
#include "sroce.h"

bool sroce_responder(struct sroce_qp *qp, int *budget);
void sroce_resp_reset(struct sroce_qp *qp);
int sroce_send_ack(struct sroce_qp *qp, u8 syndrome, u32 psn);

#endif /* SROCE_RESP_H */
