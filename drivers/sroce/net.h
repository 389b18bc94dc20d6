/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_NET_H
#define SROCE_NET_H

/*
 * The RoCEv2 UDP sockets of each network namespace, and the packets sent
 * through them (net.c).
 */
#include "sroce.h"

/* Packets */
struct sk_buff *sroce_skb_alloc(struct sroce_qp *qp, const struct sroce_av *av,
				unsigned int iblen);
void sroce_skb_done(struct sroce_qp *qp, struct sk_buff *skb);
int sroce_xmit(struct sroce_qp *qp, const struct sroce_av *av, u16 sport,
	       struct sk_buff *skb);

/* Sockets */
int sroce_net_get(struct sroce_dev *sdev);
void sroce_net_put(struct sroce_dev *sdev);
int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* SROCE_NET_H */
