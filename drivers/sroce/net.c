// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RoCEv2 UDP sockets (port 4791), one IPv4 and one IPv6 socket per
 * network namespace. They are opened with the first sroce device of a
 * namespace and closed with its last, so that a namespace without sroce
 * devices leaves the port to whoever wants it.
 */
#include <linux/crc32.h>
#include <linux/error-injection.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "cc.h"
#include "comp.h"
#include "counters.h"
#include "fault.h"
#include "local.h"
#include "main.h"
#include "net.h"
#include "parse.h"
#include "qp.h"
#include "recv.h"
#include "sched.h"
#include "txbuf.h"
#include "trace.h"

#define SROCE_ROCE_V2_PORT	SROCE_UDP_PORT

struct sroce_net {
	struct socket	*sock4;
	struct socket	*sock6;
	unsigned int	users;		/* devices in this namespace */
};

static unsigned int sroce_net_id __read_mostly;

/* See sroce_udp_encap_recv(); off: every received packet goes to a worker. */
static bool rx_softirq = true;
module_param(rx_softirq, bool, 0644);
MODULE_PARM_DESC(rx_softirq,
		 "Run a QP in the receive softirq, not in a worker (default on)");
static DEFINE_MUTEX(sroce_net_mutex);
/* Woken whenever a device drops its sockets (sroce_net_put). */
static DECLARE_WAIT_QUEUE_HEAD(sroce_net_wq);

static struct sroce_qp *sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);
static struct sroce_qp *sroce_rcv_checked(struct sroce_dev *sdev,
					  struct sk_buff *skb);

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

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
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

/*
 * What is read in place of a received packet: the UDP header, the BTH and
 * its extension headers, and a payload up to this size (an ATOMIC WRITE's
 * 8 bytes are read there; a short copy costs less than a walk). A larger
 * payload stays in the page fragments the NIC received it in: the ICRC
 * and the placement (local.c: sroce_payload_walk()) read it piece by
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

/*
 * A packet that passed the checks, skb->data at its BTH, BHs off: count
 * it, find its QP and queue it there, as sroce_rcv() says.
 */
static struct sroce_qp *sroce_rcv_checked(struct sroce_dev *sdev,
					  struct sk_buff *skb)
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

static struct socket *sroce_sock_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg ucfg = {
		.local_udp_port = htons(SROCE_ROCE_V2_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		ucfg.family = AF_INET6;
		ucfg.ipv6_v6only = 1;
		/* RoCEv2 senders may leave the UDP checksum zero. */
		ucfg.use_udp6_rx_checksums = 0;
	} else {
		ucfg.family = AF_INET;
	}

	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);

	sroce_udp_tunnel_setup(net, sock, &tcfg);
	return sock;
}

static void sroce_net_close(struct sroce_net *sn)
{
	lockdep_assert_held(&sroce_net_mutex);
	if (sn->sock6)
		sroce_udp_tunnel_release(sn->sock6);
	if (sn->sock4)
		sroce_udp_tunnel_release(sn->sock4);
	sn->sock4 = NULL;
	sn->sock6 = NULL;
}

static int sroce_net_open(struct net *net, struct sroce_net *sn)
{
	struct socket *sock;

	lockdep_assert_held(&sroce_net_mutex);

	sock = sroce_sock_open(net, false);
	if (IS_ERR(sock))
		goto err;
	sn->sock4 = sock;

	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = sroce_sock_open(net, true);
		/* Without IPv6 in this kernel (ipv6.disable=1) go on with IPv4. */
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
			goto err;
		if (!IS_ERR(sock))
			sn->sock6 = sock;
	}
	return 0;

err:
	sroce_net_close(sn);
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("UDP port %d is already in use in this network namespace; rdma_rxe binds it too: sroce and rdma_rxe cannot be loaded together\n",
		       SROCE_ROCE_V2_PORT);
	else
		pr_err("cannot open the RoCEv2 UDP socket: %pe\n", sock);
	return PTR_ERR(sock);
}

/* Take a reference on the sockets of the device's namespace, opening them. */
int sroce_net_get(struct sroce_dev *sdev)
{
	struct net *net = dev_net(sdev->ndev);
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	int err = 0;

	mutex_lock(&sroce_net_mutex);
	if (!sn->users)
		err = sroce_net_open(net, sn);
	if (!err) {
		sn->users++;
		sdev->sn = sn;
	}
	mutex_unlock(&sroce_net_mutex);
	return err;
}

/*
 * Drop the device's reference. The namespace is still alive here: a netdev
 * destroyed with its namespace is waited for (the device holds a netdev
 * reference until after this), and our pernet exit unregisters the devices
 * of netdevs that the namespace hands back to init_net.
 */
void sroce_net_put(struct sroce_dev *sdev)
{
	struct sroce_net *sn = sdev->sn;

	if (!sn)
		return;

	mutex_lock(&sroce_net_mutex);
	if (!--sn->users)
		sroce_net_close(sn);
	sdev->sn = NULL;
	mutex_unlock(&sroce_net_mutex);
	wake_up_all(&sroce_net_wq);
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	/*
	 * Devices on netdevs that left for init_net still hold @sn. Some may
	 * be half way through ->dealloc_driver already (out of the device
	 * table, not yet past sroce_net_put): wait for those too.
	 */
	sroce_unregister_net(sn);
	wait_event(sroce_net_wq, !READ_ONCE(sn->users));
	/* Normally a no-op: the last device closed the sockets already. */
	mutex_lock(&sroce_net_mutex);
	WARN_ON_ONCE(sn->users);
	sroce_net_close(sn);
	mutex_unlock(&sroce_net_mutex);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
