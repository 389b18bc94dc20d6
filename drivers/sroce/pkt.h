/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_PKT_H
#define SROCE_PKT_H

#include <linux/skbuff.h>

#include "parse.h"

static_assert(sizeof(struct sroce_pkt) <= sizeof_field(struct sk_buff, cb));

static inline struct sroce_pkt *sroce_pkt(struct sk_buff *skb)
{
	return (struct sroce_pkt *)skb->cb;
}

static inline struct sroce_bth *sroce_bth(struct sk_buff *skb)
{
	return (struct sroce_bth *)skb->data;
}

/* The extension headers follow the BTH in a fixed order per opcode. */
static inline void *sroce_ext(struct sk_buff *skb, size_t off)
{
	return skb->data + sizeof(struct sroce_bth) + off;
}

static inline void *sroce_payload(struct sk_buff *skb)
{
	return skb->data + sroce_pkt(skb)->hdr_len;
}

/*
 * The payload length of a SEND, WRITE or READ response packet against the
 * path MTU: nothing larger than the MTU, and full MTUs but at the end of a
 * message. A chunk (pkt->span MTUs, only from this device: local.c) is
 * checked as the packets it stands for.
 */
static inline bool sroce_pkt_len_ok(const struct sroce_pkt *pkt, u32 mtu)
{
	u32 full = pkt->span * mtu;

	if (pkt->paylen > full)
		return false;
	if ((pkt->flags & SROCE_F_PAYLOAD) && !(pkt->flags & SROCE_F_LAST) &&
	    pkt->paylen != full)
		return false;
	return pkt->span == 1 || pkt->paylen > full - mtu;
}

#endif /* SROCE_PKT_H */
