/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_XMIT_H
#define SROCE_XMIT_H

/*
 * Packets out: built, routed and sent, or looped back (xmit.c).
 */
#include "sroce.h"

struct sk_buff *sroce_skb_alloc(struct sroce_qp *qp, const struct sroce_av *av,
				unsigned int iblen);
void sroce_skb_done(struct sroce_qp *qp, struct sk_buff *skb);
int sroce_xmit(struct sroce_qp *qp, const struct sroce_av *av, u16 sport,
	       struct sk_buff *skb);

#endif /* SROCE_XMIT_H */
