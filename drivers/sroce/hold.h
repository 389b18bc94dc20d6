/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_HOLD_H
#define SROCE_HOLD_H

/*
 * Packets ahead of their turn, held back a moment in PSN order (hold.c),
 * and the timer that runs a QP when such a wait ends.
 */
#include "sroce.h"

void sroce_hold_init(struct sroce_qp *qp);
void sroce_hold_purge(struct sroce_hold *h);
bool sroce_hold(struct sroce_qp *qp, struct sroce_hold *h, struct sk_buff *skb,
		u32 expected);
struct sk_buff *sroce_hold_next(struct sroce_hold *h, u32 expected);
void sroce_hold_progress(struct sroce_hold *h);
void sroce_qp_wake_at(struct sroce_qp *qp, ktime_t until);
bool sroce_qp_wait_until(struct sroce_qp *qp, ktime_t until);
bool sroce_hold_expired(struct sroce_qp *qp, struct sroce_hold *h);
void sroce_hold_lost(struct sroce_hold *h, u32 psn);
void sroce_hold_dup(struct sroce_qp *qp, struct sroce_hold *h, u32 psn);

#endif /* SROCE_HOLD_H */
