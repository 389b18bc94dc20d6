// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCEv2 congestion notification (IBA Annex A17.9): ECN on the wire and
 * the CNP that answers it.
 *
 * A congestion point on the way (a switch, a qdisc) marks an ECN-capable
 * packet CE (RFC 3168) instead of dropping it. The receiver, the
 * notification point (NP), counts the mark and tells the sending QP with a
 * Congestion Notification Packet: BTH opcode 0x81 to that QP, BECN set, 16
 * reserved bytes, at most one per QP every min_time_between_cnps. The
 * sender, the reaction point (RP), counts the CNPs it gets; it has no rate
 * limiter to cut yet, so it counts them as ignored (rp_cnp_ignored), as a
 * RoCE NIC with its reaction point off does. The counters are named as
 * those NICs name them.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "trace.h"

static bool ecn;
module_param(ecn, bool, 0644);
MODULE_PARM_DESC(ecn, "Send RoCEv2 packets ECN-capable, ECT(0) (default off)");

static unsigned int min_time_between_cnps = 4;
module_param(min_time_between_cnps, uint, 0644);
MODULE_PARM_DESC(min_time_between_cnps,
		 "Microseconds a QP waits before it sends another CNP (default 4)");

/* The traffic class a packet leaves with: ECT(0) added when asked to. */
u8 sroce_cc_tclass(u8 tclass)
{
	if (READ_ONCE(ecn) && INET_ECN_is_not_ect(tclass))
		tclass |= INET_ECN_ECT_0;
	return tclass;
}

/* A congestion point on the way marked the packet at skb's IP header. */
bool sroce_cc_rcvd_ce(const struct sk_buff *skb)
{
	u8 ds;

	if (ip_hdr(skb)->version == 6)
		ds = ipv6_get_dsfield(ipv6_hdr(skb));
	else
		ds = ipv4_get_dsfield(ip_hdr(skb));
	return INET_ECN_is_ce(ds);
}

/*
 * NP: @qp received a CE-marked request; send its peer QP a CNP unless one
 * left less than min_time_between_cnps ago. Called from @qp's run.
 */
void sroce_cc_np_marked(struct sroce_qp *qp)
{
	u64 gap = (u64)READ_ONCE(min_time_between_cnps) * NSEC_PER_USEC;
	u64 now = ktime_get_ns();
	struct sroce_bth *bth;
	struct sk_buff *skb;

	if (qp->cnp_sent_ns && now - qp->cnp_sent_ns < gap)
		return;
	skb = sroce_skb_alloc(qp, &qp->av, sizeof(*bth) + SROCE_CNP_RESV);
	if (!skb)
		return;
	qp->cnp_sent_ns = now ?: 1;
	bth = (struct sroce_bth *)skb->data;
	bth->opcode = SROCE_OP_CNP;
	bth->flags = 0;
	bth->pkey = SROCE_DEFAULT_PKEY_BE;
	bth->qpn = cpu_to_be32(SROCE_BTH_BECN |
			       (qp->attr.dest_qp_num & SROCE_QPN_MASK));
	bth->apsn = 0;
	memset(bth + 1, 0, SROCE_CNP_RESV);
	trace_sroce_cnp_sent(qp->ibqp.device->index, qp->ibqp.qp_num);
	if (!sroce_xmit(qp, &qp->av, qp->src_port, skb))
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_NP_CNP_SENT);
}

/* RP: a CNP for @qp arrived. Consumes @skb. */
void sroce_cc_rp_cnp(struct sroce_dev *sdev, struct sroce_qp *qp,
		     struct sk_buff *skb)
{
	trace_sroce_cnp_rcvd(sdev->ibdev.index, qp->ibqp.qp_num);
	sroce_count(sdev, SROCE_CNT_RP_CNP_IGNORED);
	consume_skb(skb);
}
