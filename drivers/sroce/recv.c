// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets in: from the RoCEv2 socket's receive callback (net.c opens the
 * socket) through the header and ICRC checks (parse.c), then the checks
 * that need the QP (type, state, addresses, P_Key), to the QP's queue and
 * its work. Packets looped back inside the device (xmit.c) join at
 * sroce_rcv_checked(). Runs in softirq (or with BHs off for loopback);
 * touches no user memory.
 */
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <net/udp.h>

#include "sroce.h"
#include "cc.h"
#include "counters.h"
#include "main.h"
#include "mcast.h"
#include "parse.h"
#include "qp.h"
#include "recv.h"
#include "sched.h"
#include "trace.h"

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

/*
 * What is read in place of a received packet: the UDP header, the BTH and
 * its extension headers, and a payload up to this size (an ATOMIC WRITE's
 * 8 bytes are read there; a short copy costs less than a walk). A larger
 * payload stays in the page fragments the NIC received it in: the ICRC
 * and the placement (copy.c: sroce_payload_walk()) read it piece by
 * piece. Linearizing it would cost an allocation, zeroed under
 * init_on_alloc, and a copy of every byte.
 */
#define SROCE_RX_PULL_PAYLOAD	64

/* The largest payload of a wire packet: the largest RoCE MTU. */
#define SROCE_MAX_WIRE_PAYLOAD	4096

/*
 * The CRC of @skb from byte @from to @to, going on from @crc. A block
 * skb_seq_read() returns may run past @to: only @to - @from bytes count.
 */
static u32 sroce_crc_skb(struct sk_buff *skb, unsigned int from,
			 unsigned int to, u32 crc)
{
	unsigned int n, done = 0, len = to - from;
	struct skb_seq_state st;
	const u8 *data;

	skb_prepare_seq_read(skb, from, to, &st);
	while (done < len && (n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);
		crc = sroce_crc32(crc, data, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return crc;
}

/*
 * sroce_parse() on @skb, skb->data at its UDP header, its payload maybe in
 * page fragments: the headers are pulled into the linear part and checked
 * there, then the ICRC is computed across the fragments.
 */
static enum sroce_parse_result sroce_rcv_parse(struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	unsigned int l4off = skb->data - skb_network_header(skb);
	bool v6 = skb->protocol == htons(ETH_P_IPV6);
	unsigned int iblen, pull;
	enum sroce_parse_result r;
	__le32 buf, *icrc;
	u32 crc;

	if (!pskb_may_pull(skb, SROCE_UDP_HLEN + sizeof(struct sroce_bth)))
		return SROCE_PARSE_DROP;
	r = sroce_parse_hdrs(skb_network_header(skb), l4off + skb->len, l4off,
			     v6, pkt);
	if (r != SROCE_PARSE_OK)
		return r;
	/*
	 * No RoCE MTU carries more, and nothing larger is read, joined or
	 * summed: a reassembled datagram of up to 64 KiB costs no more than
	 * its headers.
	 */
	if (pkt->paylen > SROCE_MAX_WIRE_PAYLOAD)
		return SROCE_PARSE_DROP;
	/* The walks read page fragments, not a chain of skbs: rare, joined. */
	if (unlikely(skb_has_frag_list(skb)) && skb_linearize(skb))
		return SROCE_PARSE_DROP;
	iblen = pkt->hdr_len + pkt->paylen + pkt->pad;
	pull = SROCE_UDP_HLEN + pkt->hdr_len;
	if (pkt->paylen <= SROCE_RX_PULL_PAYLOAD)
		pull = SROCE_UDP_HLEN + iblen;
	if (!pskb_may_pull(skb, pull))
		return SROCE_PARSE_DROP;
	icrc = skb_header_pointer(skb, SROCE_UDP_HLEN + iblen, sizeof(buf),
				  &buf);
	if (!icrc)
		return SROCE_PARSE_DROP;
	crc = sroce_icrc_head(skb_network_header(skb), l4off,
			      skb->data + SROCE_UDP_HLEN);
	crc = sroce_crc_skb(skb, SROCE_UDP_HLEN + sizeof(struct sroce_bth),
			    SROCE_UDP_HLEN + iblen, crc);
	return *icrc == cpu_to_le32(~crc) ? SROCE_PARSE_OK :
					    SROCE_PARSE_BAD_ICRC;
}

/*
 * A packet that passed the checks, skb->data at its BTH, BHs off: count
 * it, find its QP and queue it there, as sroce_rcv() says. Also the way
 * in for a packet looped back inside the device (xmit.c).
 */
struct sroce_qp *sroce_rcv_checked(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	if (trace_sroce_recv_enabled()) {
		const struct sroce_bth *bth = (const void *)skb->data;
		u32 dqpn = sroce_bth_qpn(bth);

		trace_sroce_recv(sdev->ibdev.index, dqpn, pkt->opcode,
				 pkt->psn, pkt->paylen, skb->data_len);
	}

	sroce_count_add(sdev, SROCE_CNT_RCVD_PKTS, pkt->span);
	sroce_count_add(sdev, SROCE_CNT_RCVD_BYTES, skb->len);
	return sroce_qp_rcv(sdev, skb);
}

/*
 * Receive one packet from a wire, skb->data at its UDP header, in softirq:
 * check it, its ICRC too, find its QP and queue it there. Consumes @skb.
 * Returns the QP it was queued on, with a reference, for the caller to
 * schedule; NULL if dropped, or if multicast (scheduled already).
 */
static struct sroce_qp *sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	switch (sroce_rcv_parse(skb)) {
	case SROCE_PARSE_OK:
		break;
	case SROCE_PARSE_BAD_ICRC:
		sroce_count(sdev, SROCE_CNT_RCVD_ICRC_ERR);
		trace_sroce_drop(sdev->ibdev.index, SROCE_CNT_RCVD_ICRC_ERR);
		kfree_skb(skb);
		return NULL;
	default:
		sroce_count_drop(sdev, SROCE_CNT_DROP_BAD_HDR);
		kfree_skb(skb);
		return NULL;
	}
	if (sroce_cc_rcvd_ce(skb)) {
		pkt->ce = true;
		sroce_count(sdev, SROCE_CNT_NP_ECN_MARKED);
	}
	/* A datagram's work completion names its VLAN (resp.c). */
	if (is_vlan_dev(skb->dev)) {
		pkt->has_vlan = true;
		pkt->vlan_id = vlan_dev_vlan_id(skb->dev);
	}
	__skb_pull(skb, SROCE_UDP_HLEN);
	/* Drops the ICRC; fails only to unshare a cloned head (a tap). */
	if (pskb_trim(skb, pkt->hdr_len + pkt->paylen + pkt->pad)) {
		sroce_count_drop(sdev, SROCE_CNT_DROP_BAD_HDR);
		kfree_skb(skb);
		return NULL;
	}
	return sroce_rcv_checked(sdev, skb);
}

/* See sroce_udp_encap_recv(); off: every received packet goes to a worker. */
static bool rx_softirq = true;
module_param(rx_softirq, bool, 0644);
MODULE_PARM_DESC(rx_softirq,
		 "Run a QP in the receive softirq, not in a worker (default on)");

/* The RoCEv2 socket's receive callback: skb->data at the UDP header. */
int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev;
	struct sroce_qp *qp;

	/* Our own multicast, looped back by IP: delivered already. */
	if (unlikely(skb->pkt_type == PACKET_LOOPBACK)) {
		kfree_skb(skb);
		return 0;
	}
	sdev = sroce_dev_get_by_netdev(skb->dev);
	/* Tagged for a VLAN above a device's port: that device's. */
	if (!sdev && is_vlan_dev(skb->dev))
		sdev = sroce_dev_get_by_netdev(vlan_dev_real_dev(skb->dev));
	if (!sdev) {
		kfree_skb(skb);
		return 0;
	}
	/*
	 * skb->data is at the UDP header. The QP runs right here, in the
	 * receive softirq (or its run under way looks again), as
	 * rdma_rxe did until 6.11: no hand-off, no wake-up. A veth
	 * delivers in the sender's softirq, so there both ends of a
	 * connection between two namespaces run on the sender's CPU;
	 * what such a run sends waits in that CPU's backlog, and
	 * sroce_tx_order_ok() keeps other CPUs from passing it.
	 */
	qp = sroce_rcv(sdev, skb);
	if (qp) {
		if (READ_ONCE(rx_softirq))
			sroce_qp_run_here(qp);
		else
			sroce_qp_sched(qp);
		sroce_qp_put(qp);
	}
	ib_device_put(&sdev->ibdev);
	return 0;
}
