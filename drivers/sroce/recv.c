// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From a checked packet to its QP: the checks that need the QP (type,
 * state, addresses, P_Key), then the packet is queued for the QP's work.
 * Runs in softirq (or with BHs off for loopback); touches no user memory.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "sroce.h"
#include "cc.h"
#include "counters.h"
#include "mcast.h"
#include "qp.h"
#include "recv.h"

/* Packets queued on one QP before the receive path drops (and counts). */
#define SROCE_QP_RX_MAX		4096
/*
 * Responses our requester asked for may queue up to this many more: one
 * READ asks for up to a packet per PSN of its span, and a responder sends
 * them back to back. Without this, a READ larger than SROCE_QP_RX_MAX
 * packets would overrun its own requester whenever the QP's work falls
 * behind, and ask again, and overrun again.
 */
#define SROCE_QP_RX_MAX_READ	65536

/* May one more response be queued on @qp? */
static bool sroce_resp_room(struct sroce_qp *qp, struct sroce_pkt *pkt)
{
	u32 len = skb_queue_len(&qp->resp_pkts);
	u32 acked = READ_ONCE(qp->comp.psn), next = READ_ONCE(qp->req.psn_max);
	u32 expected = sroce_psn_diff(next, acked);

	if (len < SROCE_QP_RX_MAX)
		return true;
	/* Beyond the base share, only PSNs still outstanding are taken. */
	return sroce_psn_cmp(pkt->psn, acked) >= 0 &&
	       sroce_psn_cmp(pkt->psn, next) < 0 &&
	       len < SROCE_QP_RX_MAX + min_t(u32, expected, SROCE_QP_RX_MAX_READ);
}

/* RC and UC packets must come from the QP's peer, to the QP's address. */
static bool sroce_addr_match(struct sroce_qp *qp, struct sk_buff *skb)
{
	const struct sroce_av *av = &qp->av;

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV4 &&
		       iph->saddr == av->daddr.in4.sin_addr.s_addr &&
		       iph->daddr == av->saddr.in4.sin_addr.s_addr;
	}
	if (skb->protocol == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		return av->network_type == RDMA_NETWORK_IPV6 &&
		       ipv6_addr_equal(&ip6->saddr, &av->daddr.in6.sin6_addr) &&
		       ipv6_addr_equal(&ip6->daddr, &av->saddr.in6.sin6_addr);
	}
	return false;
}

/* The opcode class (BTH opcode bits 7:5) the QP's type takes; 0xff for none. */
static u8 sroce_qp_class(struct sroce_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return SROCE_OP_RC;
	case IB_QPT_UC:
		return SROCE_OP_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return SROCE_OP_UD;
	default:
		return 0xff;
	}
}

/*
 * Queue @skb on @qp if the QP may take it (type, state, addresses); true
 * if queued, and then the caller schedules the QP's work. Consumes @skb;
 * the caller keeps its QP reference.
 */
bool sroce_qp_deliver(struct sroce_dev *sdev, struct sroce_qp *qp,
		      struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	enum sroce_counter cause = SROCE_CNT_DROP_QP_STATE;
	struct sk_buff_head *q;
	enum ib_qp_state state;
	u8 class = sroce_op_class(pkt->opcode);

	if (class != sroce_qp_class(qp))
		goto drop;
	state = READ_ONCE(qp->state);
	if (pkt->flags & SROCE_F_REQ) {
		if (state != IB_QPS_RTR && state != IB_QPS_RTS &&
		    state != IB_QPS_SQD && state != IB_QPS_SQE)
			goto drop;
		q = &qp->req_pkts;
	} else {
		if (state != IB_QPS_RTS && state != IB_QPS_SQD)
			goto drop;
		q = &qp->resp_pkts;
	}
	cause = SROCE_CNT_DROP_ADDR;
	if (class != SROCE_OP_UD && !sroce_addr_match(qp, skb))
		goto drop;
	cause = SROCE_CNT_DROP_QUEUE_FULL;
	if (q == &qp->req_pkts ? skb_queue_len(q) >= SROCE_QP_RX_MAX :
				 !sroce_resp_room(qp, pkt))
		goto drop;

	skb_queue_tail(q, skb);
	return true;

drop:
	sroce_count_drop(sdev, cause);
	kfree_skb(skb);
	return false;
}

/*
 * Find the QP of a checked packet and queue it there. Returns that QP, with
 * a reference, or NULL when the packet was dropped or was multicast.
 */
struct sroce_qp *sroce_qp_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_bth *bth = sroce_bth(skb);
	u32 qpn = sroce_bth_qpn(bth);
	struct sroce_qp *qp;

	if (!qpn || bth->pkey != SROCE_DEFAULT_PKEY_BE)
		goto drop;	/* QP0, foreign partitions */
	if (qpn == SROCE_MCAST_QPN) {
		if (sroce_op_class(sroce_pkt(skb)->opcode) != SROCE_OP_UD)
			goto drop;
		sroce_mcast_rcv(sdev, skb);
		return NULL;
	}
	if (qpn == 1) {
		/* The GSI QP (MADs for the connection manager). */
		qpn = READ_ONCE(sdev->gsi_index);
		if (!qpn)
			goto drop;
	}
	qp = sroce_qp_get(sdev, qpn);
	if (!qp) {
		sroce_count_drop(sdev, SROCE_CNT_DROP_NO_QP);
		kfree_skb(skb);
		return NULL;
	}
	if (unlikely(sroce_pkt(skb)->flags & SROCE_F_CNP)) {
		/* Only the QP's peer may slow it down */
		if (!sroce_addr_match(qp, skb)) {
			sroce_count_drop(sdev, SROCE_CNT_DROP_ADDR);
			kfree_skb(skb);
		} else if (sroce_cc_rp_cnp(sdev, qp, skb)) {
			return qp;
		}
		sroce_qp_put(qp);
		return NULL;
	}
	if (sroce_qp_deliver(sdev, qp, skb))
		return qp;
	sroce_qp_put(qp);
	return NULL;

drop:
	sroce_count_drop(sdev, SROCE_CNT_DROP_BAD_HDR);
	kfree_skb(skb);
	return NULL;
}
