/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_TXBUF_H
#define SROCE_TXBUF_H

/*
 * Buffers for a QP's wire packets, used again, and the count of its
 * packets the netdev holds (txbuf.c).
 */
#include "sroce.h"

struct sk_buff *sroce_txbuf_skb(struct sroce_qp *qp, unsigned int size,
				gfp_t gfp);
int sroce_txbuf_init(struct sroce_qp *qp);
void sroce_txbuf_detach(struct sroce_qp *qp);
void sroce_txbuf_free(struct sroce_qp *qp);
void sroce_txbuf_exit(void);
void sroce_txbuf_track(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_txbuf_room(struct sroce_qp *qp);

#endif /* SROCE_TXBUF_H */
