/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

/*
 * Multicast for UD QPs (mcast.c): the attach and detach verbs, and the
 * delivery of a packet to every QP of its group.
 */
#include "sroce.h"

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mcast_detach_qp(struct sroce_qp *qp);
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* SROCE_MCAST_H */
