/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

/*
 * Packets in: from the RoCEv2 socket to their QP (recv.c).
 */
#include "sroce.h"

int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
struct sroce_qp *sroce_rcv_checked(struct sroce_dev *sdev, struct sk_buff *skb);
struct sroce_qp *sroce_qp_rcv(struct sroce_dev *sdev, struct sk_buff *skb);
bool sroce_qp_deliver(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb);

#endif /* SROCE_RECV_H */
