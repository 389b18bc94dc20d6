/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_CC_H
#define SROCE_CC_H

/*
 * Congestion control (cc.c): ECN marks, CNPs, and DCQCN's pacing of a
 * QP's sending rate.
 */
#include "sroce.h"

u8 sroce_cc_tclass(u8 tclass);
bool sroce_cc_rcvd_ce(const struct sk_buff *skb);
void sroce_cc_np_marked(struct sroce_qp *qp);
bool sroce_cc_rp_cnp(struct sroce_dev *sdev, struct sroce_qp *qp,
		     struct sk_buff *skb);
void sroce_cc_react(struct sroce_qp *qp);
bool sroce_cc_may_send(struct sroce_qp *qp);
void sroce_cc_sent(struct sroce_qp *qp, u32 bytes);
void sroce_cc_reset(struct sroce_qp *qp);

#endif /* SROCE_CC_H */
