// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets out: the buffer a packet is built in, then its UDP and IP
 * headers, its route, and the way it leaves: onto the wire through the
 * namespace's RoCEv2 socket (net.c), back into this device's own receive
 * path (recv.c) when the destination is a QP of the same device, or both
 * for multicast.
 */
#include <linux/crc32.h>
#include <linux/error-injection.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "fault.h"
#include "local.h"
#include "net.h"
#include "parse.h"
#include "qp.h"
#include "recv.h"
#include "sched.h"
#include "txbuf.h"
#include "trace.h"
#include "xmit.h"

static bool sroce_av_ipv6(const struct sroce_av *av)
{
	return av->network_type == RDMA_NETWORK_IPV6;
}

/*
 * @qp's spare packet, if it has room for @size bytes, made empty again:
 * as alloc_skb() left it, but for the fields every packet sroce builds
 * sets anyway (headers, device, protocol, packet type).
 */
static struct sk_buff *sroce_skb_reuse(struct sroce_qp *qp, unsigned int size)
{
	struct sk_buff *skb = qp->spare;

	if (!skb || skb_end_offset(skb) < size)
		return NULL;
	qp->spare = NULL;
	skb->data = skb->head;
	skb_reset_tail_pointer(skb);
	skb->len = 0;
	memset(skb->cb, 0, sizeof(skb->cb));
	return skb;
}

/*
 * A packet of @iblen bytes of transport (BTH to pad) that @qp builds, with
 * room behind for the ICRC that sroce_xmit() adds if it goes to a wire;
 * skb->data points at where the BTH goes.
 */
struct sk_buff *sroce_skb_alloc(struct sroce_qp *qp, const struct sroce_av *av,
				unsigned int iblen)
{
	struct net_device *ndev = to_sdev(qp->ibqp.device)->ndev;
	/* A VLAN above the port (the AV's netdev) adds its tag. */
	unsigned int room = LL_RESERVED_SPACE(ndev) + VLAN_HLEN +
			    sizeof(struct udphdr) +
			    (sroce_av_ipv6(av) ? sizeof(struct ipv6hdr) :
						 sizeof(struct iphdr));
	unsigned int size = room + iblen + SROCE_ICRC_SIZE;
	/* The run token lets a run be in softirq (sched.c). */
	gfp_t gfp = in_softirq() ? GFP_ATOMIC : GFP_KERNEL;
	struct sk_buff *skb;

	if (sroce_should_fail(sroce_fail_skb, size))
		return NULL;
	skb = sroce_skb_reuse(qp, size);
	if (!skb && !sroce_av_local(qp, av))
		skb = sroce_txbuf_skb(qp, size, gfp);
	if (!skb)
		skb = alloc_skb(size, gfp | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	skb_put(skb, iblen);
	return skb;
}

ALLOW_ERROR_INJECTION(sroce_skb_alloc, NULL);

/*
 * @qp's run is done with a packet it took. One that came through this
 * device's loopback whole (linear, not cloned: not multicast), which
 * nothing but sroce ever held, is kept as @qp's spare instead of freed:
 * a QP answering a request then builds its ACK in the request's buffer,
 * and two QPs of one device trading messages allocate and zero no packet
 * memory for them (with init_on_alloc, a memset of every buffer).
 */
void sroce_skb_done(struct sroce_qp *qp, struct sk_buff *skb)
{
	if (sroce_pkt(skb)->local && !qp->spare && !skb_is_nonlinear(skb) &&
	    !skb_cloned(skb) && refcount_read(&skb->users) == 1 &&
	    !skb->destructor && !skb->sk && !skb_dst(skb)) {
		qp->spare = skb;
		return;
	}
	consume_skb(skb);
}

/*
 * The routes: looked up per packet, but for the QP's own address vector
 * (RC, UC) kept in its dst_cache, which checks the entry is still valid
 * (dst_check) and is reset when the AV changes. With BHs off, as the
 * per-CPU cache needs. The output device is the source GID's netdev: the
 * port's, or a VLAN above it, whose GIDs the core puts in our table too.
 */
static int sroce_route4(struct net *net, struct sroce_dev *sdev,
			const struct sroce_av *av, struct dst_cache *cache,
			struct sk_buff *skb)
{
	struct flowi4 fl = {
		.flowi4_oif = av->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.in4.sin_addr.s_addr,
		.saddr = av->saddr.in4.sin_addr.s_addr,
	};
	struct rtable *rt;
	__be32 saddr;

	if (cache) {
		rt = dst_cache_get_ip4(cache, &saddr);
		if (rt) {
			skb_dst_set(skb, &rt->dst);
			return 0;
		}
	}
	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (cache)
		dst_cache_set_ip4(cache, &rt->dst, fl.saddr);
	skb_dst_set(skb, &rt->dst);
	return 0;
}

static int sroce_route6(struct net *net, struct sroce_dev *sdev,
			const struct sroce_av *av, struct dst_cache *cache,
			struct sk_buff *skb)
{
	struct flowi6 fl = {
		.flowi6_oif = av->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.in6.sin6_addr,
		.saddr = av->saddr.in6.sin6_addr,
	};
	struct dst_entry *dst;
	struct sock *sk = sdev->sn && sdev->sn->sock6 ? sdev->sn->sock6->sk : NULL;
	struct in6_addr saddr;

	if (!sk)
		return -EAFNOSUPPORT;
	if (IS_ENABLED(CONFIG_IPV6) && cache) {
		dst = dst_cache_get_ip6(cache, &saddr);
		if (dst) {
			skb_dst_set(skb, dst);
			return 0;
		}
	}
	dst = ip6_dst_lookup_flow(dev_net(sdev->ndev), sk, &fl, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	if (IS_ENABLED(CONFIG_IPV6) && cache)
		dst_cache_set_ip6(cache, dst, &fl.saddr);
	skb_dst_set(skb, dst);
	return 0;
}

/*
 * Whether a looped-back packet should reach its QP's work now: it ends a
 * message, or is a response. The packets inside a message are told in
 * batches (sroce_qp_kick()).
 */
static bool sroce_loop_urgent(const struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;

	return !(sroce_op_info(bth->opcode)->flags &
		 (SROCE_F_FIRST | SROCE_F_MIDDLE));
}

/* The packet @qp sends, skb->data at its BTH, @iblen bytes from there. */
static void sroce_trace_send(const struct sroce_qp *qp,
			     const struct sk_buff *skb, unsigned int iblen)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;

	if (trace_sroce_send_enabled())
		trace_sroce_send(qp->ibqp.device->index, qp->ibqp.qp_num,
				 sroce_bth_qpn(bth), bth->opcode,
				 sroce_bth_psn(bth), iblen);
}

/*
 * Hand a packet @qp sends, its headers built, to this device's own receive
 * path: no route, no qdisc, no wire, and so no ICRC either (it guards
 * against corruption on a link; this packet goes from our memory to our
 * memory), and no IP or UDP header check: we wrote them. It may be a
 * chunk of several MTUs (local.c): its builder said how many PSNs it
 * covers in pkt->span. Consumes @skb.
 */
static void sroce_loop_rcv(struct sroce_qp *qp, struct sk_buff *skb,
			   bool urgent)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u16 span = max_t(u16, pkt->span, 1);
	struct sroce_qp *dst = NULL;

	skb->pkt_type = PACKET_HOST;
	skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	local_bh_disable();
	if (sroce_parse_bth(skb->data, skb->len, pkt) == SROCE_PARSE_OK) {
		pkt->span = span;
		pkt->local = true;
		dst = sroce_rcv_checked(sdev, skb);
	} else {
		sroce_count_drop(sdev, SROCE_CNT_DROP_BAD_HDR);
		kfree_skb(skb);
	}
	local_bh_enable();
	if (dst)
		sroce_qp_kick(qp, dst, urgent);
}

/*
 * Push the UDP and IP headers in front of the BTH of @skb. Their lengths
 * count the ICRC, which follows on a wire (a packet looped back inside the
 * device has none, and a chunk of it may be longer than an IP length can
 * say: nobody reads them there).
 */
static void sroce_push_headers(struct sk_buff *skb, const struct sroce_av *av,
			       u16 sport)
{
	u8 tclass = sroce_cc_tclass(av->traffic_class);
	unsigned int len = min_t(unsigned int, U16_MAX,
				 skb->len + sizeof(struct udphdr) +
				 SROCE_ICRC_SIZE);
	struct udphdr *uh;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh->source = htons(sport);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(len);
	uh->check = 0;

	if (sroce_av_ipv6(av)) {
		struct ipv6hdr *ip6 = skb_push(skb, sizeof(*ip6));

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6, tclass, 0);
		ip6->payload_len = htons(len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = av->hop_limit ?: 64;
		ip6->saddr = av->saddr.in6.sin6_addr;
		ip6->daddr = av->daddr.in6.sin6_addr;
		skb->protocol = htons(ETH_P_IPV6);
	} else {
		struct iphdr *iph = skb_push(skb, sizeof(*iph));

		skb_reset_network_header(skb);
		iph->version = 4;
		iph->ihl = sizeof(*iph) / 4;
		iph->tos = tclass;
		iph->tot_len = htons(min_t(unsigned int, U16_MAX,
					   len + sizeof(*iph)));
		iph->id = 0;	/* what ip_select_ident() gives DF packets */
		iph->frag_off = htons(IP_DF);
		iph->ttl = av->hop_limit ?: 64;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = av->saddr.in4.sin_addr.s_addr;
		iph->daddr = av->daddr.in4.sin_addr.s_addr;
		iph->check = 0;
		skb->protocol = htons(ETH_P_IP);
	}
}

/*
 * A qdisc dropped a packet of @qp (NET_XMIT_DROP): a full queue, which
 * drains, so the packet is built and sent again after a back-off (-EAGAIN). A tc
 * filter or policer that drops everything would make that a loop without
 * end: once the drops have lasted an ACK timeout, the packet counts as sent
 * and lost (0), for the retransmission timer and the retry count to end,
 * as for a loss on the wire. A QP without a timeout (UD, UC, or an RC QP
 * that waits for ever) gives it 100 ms.
 */
static int sroce_xmit_dropped(struct sroce_qp *qp)
{
	unsigned long now = jiffies;
	unsigned long patience;

	if (!qp->xmit_drop_since) {
		qp->xmit_drop_since = now ?: 1;
		return -EAGAIN;
	}
	patience = sroce_comp_ack_timeout(qp) ?: msecs_to_jiffies(100);
	return time_before(now, qp->xmit_drop_since + patience) ? -EAGAIN : 0;
}

/*
 * The transmit queue of a NIC with several: XPS picks it by the sending
 * CPU (skb->sender_cpu), and the queues drain in parallel, so a QP that
 * sent from two CPUs could see its packets overtake each other. As for a
 * socket, whose queue changes only while none of its packets is in
 * flight (ooo_okay), a QP keeps the CPU XPS sees until the netdev has
 * freed all of its packets (txbuf.c counts them).
 */
static void sroce_tx_queue(struct sroce_qp *qp, struct sk_buff *skb, int cpu)
{
#ifdef CONFIG_XPS
	if (qp->tx_xps_cpu < 0 || !atomic_read(&qp->txbuf.txq->inflight))
		qp->tx_xps_cpu = cpu;
	skb->sender_cpu = qp->tx_xps_cpu + 1;
#endif
}

/*
 * @skb, whose IP and UDP headers are pushed, onto the wire: its ICRC after
 * @iblen bytes of IB headers and payload, a route (cached per QP for its
 * own AV), the IP layer. Returns -EAGAIN if a qdisc dropped it and it is
 * to be sent again, else 0: sent, or lost for good (counted in send_err).
 */
static int sroce_xmit_wire(struct sroce_qp *qp, const struct sroce_av *av,
			   struct sk_buff *skb, unsigned int iblen, int cpu)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct net *net = dev_net(sdev->ndev);
	bool v6 = sroce_av_ipv6(av);
	struct dst_cache *cache;
	__le32 icrc;
	int err;

	icrc = sroce_icrc(skb_network_header(skb),
			  skb_transport_offset(skb) - skb_network_offset(skb),
			  skb_transport_header(skb) + sizeof(struct udphdr),
			  iblen);
	skb_put_data(skb, &icrc, sizeof(icrc));

	cache = av == &qp->av ? &qp->dst_cache : NULL;
	local_bh_disable();
	err = v6 ? sroce_route6(net, sdev, av, cache, skb) :
		   sroce_route4(net, sdev, av, cache, skb);
	local_bh_enable();
	if (err) {
		/* No route (the netdev down, its address gone): lost, as below. */
		sroce_count_send_err(sdev, SROCE_CNT_SEND_ERR_ROUTE);
		kfree_skb(skb);
		return 0;
	}

	/*
	 * The priority a VLAN's egress QoS map turns into the 802.1p bits
	 * (and a qdisc's priority map into a traffic class): the SL, which
	 * rdma_cm derives from the ToS through that map as RoCE NICs do,
	 * or else the traffic class's, as for a socket's IP_TOS.
	 */
	skb->priority = av->sl ?: rt_tos2priority(av->traffic_class);
	sroce_tx_queue(qp, skb, cpu);
	sroce_txbuf_track(qp, skb);
	if (v6) {
		memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
		err = ip6_local_out(net, sdev->sn->sock6->sk, skb);
	} else {
		memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
		err = ip_local_out(net, sdev->sn->sock4->sk, skb);
	}
	err = net_xmit_eval(err);
	if (unlikely(err > 0)) {
		sroce_count_send_err(sdev, SROCE_CNT_SEND_ERR_QDISC);
		return sroce_xmit_dropped(qp);
	}
	if (unlikely(err)) {
		/*
		 * An error that lasts (a firewall's drop, larger than the path
		 * MTU, the netdev down): the packet counts as sent and lost on
		 * the way, for the retransmission timer and the QP's retry
		 * count to decide; retried at once, it would never end.
		 */
		sroce_count_send_err(sdev, SROCE_CNT_SEND_ERR_IP);
		return 0;
	}
	if (unlikely(qp->xmit_drop_since))
		qp->xmit_drop_since = 0;
	return 0;
}

/*
 * A multicast packet also goes to this device's own QPs attached to the
 * group, as RoCE hardware loops multicast back: a copy, since the IP layer
 * still writes the original's headers. Its own loopback copy is dropped on
 * receive (sroce_udp_encap_recv()), so that nothing arrives twice.
 */
static void sroce_xmit_mcast_loop(struct sroce_qp *qp, struct sk_buff *skb,
				  bool urgent)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (copy)
		sroce_loop_rcv(qp, copy, urgent);
	else
		sroce_count_send_err(to_sdev(qp->ibqp.device),
				     SROCE_CNT_SEND_ERR_OTHER);
}

/*
 * Whether @qp may send from @cpu now without its packets overtaking each
 * other. A virtual link (a veth) puts a packet into the input backlog of
 * the CPU that sent it, and each CPU's backlog drains on its own: what
 * the QP sent from one CPU, still queued there, would be passed by what
 * it sends from another (seen as sequence NAKs on a lossless veth). So a
 * QP moves its sending to another CPU only once the backlog of the last
 * one has delivered its last packet, as RFS moves a flow: the backlog's
 * head counts the packets it has delivered (handed to us), its tail those
 * queued. The counts wrap: after 2^31 more packets the comparison would
 * say "not yet" again, so a packet sent over a second ago counts as
 * delivered (no backlog keeps one that long). A kernel without RPS keeps
 * no such count.
 */
static bool sroce_tx_order_ok(const struct sroce_qp *qp, int cpu)
{
#ifdef CONFIG_RPS
	int last = qp->tx_cpu;

	return last < 0 || last == cpu ||
	       time_after(jiffies, qp->tx_at + HZ) ||
	       (int)(READ_ONCE(per_cpu(softnet_data, last).input_queue_head) -
		     qp->tx_qtail) >= 0;
#else
	return true;
#endif
}

/* @qp sent from @cpu: where its last packet is (sroce_tx_order_ok()). */
static void sroce_tx_sent(struct sroce_qp *qp, int cpu)
{
#ifdef CONFIG_RPS
	qp->tx_cpu = cpu;
	qp->tx_qtail = READ_ONCE(per_cpu(softnet_data, cpu).input_queue_tail);
	qp->tx_at = jiffies;
#endif
}

/*
 * Whether the sender of this packet of @qp sends it again later if it may
 * not go now (-EAGAIN): an RC or UC request, or a READ response. An ACK
 * (or NAK) always goes: an ACK that is not sent is lost, and costs the
 * peer an ACK timeout. Nor does a datagram wait: UD keeps no order.
 */
static bool sroce_tx_may_wait(struct sroce_qp *qp, const struct sk_buff *skb)
{
	u8 op = ((const struct sroce_bth *)skb->data)->opcode;

	return op != SROCE_OP_ACK && op != SROCE_OP_ATOMIC_ACK &&
	       !sroce_qp_is_ud(qp);
}

/*
 * Send @skb of @qp, whose BTH is at skb->data, out through the netdev, in
 * order (sroce_tx_order_ok()): BHs stay off from the check until the
 * packet is queued, so that the CPU is the one checked. -EAGAIN: not
 * sent, to be sent again after a back-off.
 */
static int sroce_xmit_out(struct sroce_qp *qp, const struct sroce_av *av,
			  u16 sport, struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	unsigned int iblen = skb->len;
	bool urgent = sroce_loop_urgent(skb);
	int cpu, err;

	local_bh_disable();
	cpu = smp_processor_id();
	if (sroce_tx_may_wait(qp, skb) && !sroce_tx_order_ok(qp, cpu)) {
		local_bh_enable();
		sroce_count(sdev, SROCE_CNT_TX_ORDER_WAIT);
		kfree_skb(skb);
		return -EAGAIN;
	}
	sroce_trace_send(qp, skb, iblen);
	sroce_push_headers(skb, av, sport);
	sroce_count_add(sdev, SROCE_CNT_SENT_PKTS, 1);
	sroce_count_add(sdev, SROCE_CNT_SENT_BYTES, iblen);
	if (unlikely(is_multicast_ether_addr(av->dmac)))
		sroce_xmit_mcast_loop(qp, skb, urgent);
	err = sroce_xmit_wire(qp, av, skb, iblen, cpu);
	sroce_tx_sent(qp, cpu);
	local_bh_enable();
	return err;
}

/*
 * Add UDP and IP headers and the ICRC to a packet built by
 * sroce_skb_alloc() for @qp, and send it through the netdev, or straight
 * to our own receive path when it is addressed to this device. Consumes
 * @skb. Called from @qp's run (any context but hard IRQ).
 */
int sroce_xmit(struct sroce_qp *qp, const struct sroce_av *av, u16 sport,
	       struct sk_buff *skb)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	unsigned int iblen = skb->len;
	bool loop = sroce_av_local(qp, av);
	bool urgent;

	if (unlikely(READ_ONCE(sdev->ndev_gone))) {
		/* The netdev is leaving: its namespace's sockets may go. */
		sroce_count_send_err(sdev, SROCE_CNT_SEND_ERR_OTHER);
		kfree_skb(skb);
		return -ENODEV;
	}
	if (unlikely(skb_is_nonlinear(skb) && !loop)) {
		/*
		 * A chunk of registered pages (local.c) for a peer no longer
		 * on this device (our MAC changed since it was built): it
		 * may not reach a wire. Built again, as packets, soon.
		 */
		sroce_count_send_err(sdev, SROCE_CNT_SEND_ERR_OTHER);
		kfree_skb(skb);
		return -EAGAIN;
	}
	skb->dev = sdev->ndev;
	if (!loop)
		return sroce_xmit_out(qp, av, sport, skb);
	urgent = sroce_loop_urgent(skb);
	sroce_trace_send(qp, skb, iblen);
	sroce_push_headers(skb, av, sport);
	/* A chunk counts as the packets it stands for. */
	sroce_count_add(sdev, SROCE_CNT_SENT_PKTS,
			max_t(u16, sroce_pkt(skb)->span, 1));
	sroce_count_add(sdev, SROCE_CNT_SENT_BYTES, iblen);
	sroce_loop_rcv(qp, skb, urgent);
	return 0;
}
