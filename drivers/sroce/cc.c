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
 * sender, the reaction point (RP), cuts the QP's rate on a CNP and paces
 * its requests to it, then recovers, as DCQCN does (Zhu et al., SIGCOMM
 * 2015): rc, the rate, is cut by alpha / 2 and the rate before the cut
 * becomes the target rt; alpha, the estimate of how congested the path
 * is, moves towards 1 on every cut and decays by a factor of (1 - g)
 * every dce_tcp_rtt without one; every rpg_time_reset and every
 * rpg_byte_reset bytes sent, rc moves half-way to rt (fast recovery, the
 * first rpg_threshold times), then rt rises by rpg_ai_rate (additive) and
 * later by rpg_hai_rate (hyper) first. Once rc is back at rpg_max_rate the
 * QP is unpaced again. Alpha's decay and the timer's increases are worked
 * out when the QP next sends or is cut, from the time gone by: no timer
 * runs for them. The counters and parameters are named as RoCE NICs
 * (ConnectX) name theirs.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce.h"
#include "cc.h"
#include "hold.h"
#include "trace.h"
#include "xmit.h"

static bool ecn;
module_param(ecn, bool, 0644);
MODULE_PARM_DESC(ecn, "Send RoCEv2 packets ECN-capable, ECT(0) (default off)");

static unsigned int min_time_between_cnps = 4;
module_param(min_time_between_cnps, uint, 0644);
MODULE_PARM_DESC(min_time_between_cnps,
		 "Microseconds a QP waits before it sends another CNP (default 4)");

static bool rp_enable = true;
module_param(rp_enable, bool, 0644);
MODULE_PARM_DESC(rp_enable, "A CNP cuts the QP's rate, DCQCN (default on)");

static unsigned int rpg_max_rate = 10000;
module_param(rpg_max_rate, uint, 0644);
MODULE_PARM_DESC(rpg_max_rate,
		 "Mbit/s a QP's first cut starts from, and unpaced again at (10000)");

static unsigned int rpg_min_rate = 10;
module_param(rpg_min_rate, uint, 0644);
MODULE_PARM_DESC(rpg_min_rate, "Mbit/s no cut goes below (10)");

static unsigned int rpg_ai_rate = 5;
module_param(rpg_ai_rate, uint, 0644);
MODULE_PARM_DESC(rpg_ai_rate, "Mbit/s of additive increase (5)");

static unsigned int rpg_hai_rate = 50;
module_param(rpg_hai_rate, uint, 0644);
MODULE_PARM_DESC(rpg_hai_rate, "Mbit/s of hyper increase (50)");

static unsigned int rpg_threshold = 5;
module_param(rpg_threshold, uint, 0644);
MODULE_PARM_DESC(rpg_threshold,
		 "Increase events of fast recovery, and of additive increase, after a cut (5)");

static unsigned int rpg_time_reset = 300;
module_param(rpg_time_reset, uint, 0644);
MODULE_PARM_DESC(rpg_time_reset, "Microseconds between timer increase events (300)");

static unsigned int rpg_byte_reset = 32767;
module_param(rpg_byte_reset, uint, 0644);
MODULE_PARM_DESC(rpg_byte_reset, "Bytes sent between byte increase events (32767)");

static unsigned int rate_reduce_monitor_period = 4;
module_param(rate_reduce_monitor_period, uint, 0644);
MODULE_PARM_DESC(rate_reduce_monitor_period,
		 "Microseconds a QP's rate stays after a cut before CNPs cut it again (4)");

/*
 * A paced QP sends in bursts of up to this many KiB: it is woken once per
 * burst rather than once per packet, and a wake-up that comes late (by up
 * to a burst) costs it no rate.
 */
static unsigned int pacing_burst_kib = 16;
module_param(pacing_burst_kib, uint, 0644);
MODULE_PARM_DESC(pacing_burst_kib,
		 "KiB a paced QP sends at once, and may make up for (16)");

static unsigned int dce_tcp_g = 1019;
module_param(dce_tcp_g, uint, 0644);
MODULE_PARM_DESC(dce_tcp_g,
		 "Alpha keeps this many 1024ths of itself per update, g = (1024 - it) / 1024 (1019)");

static unsigned int dce_tcp_rtt = 55;
module_param(dce_tcp_rtt, uint, 0644);
MODULE_PARM_DESC(dce_tcp_rtt, "Microseconds between alpha's decays with no CNP (55)");

static unsigned int initial_alpha_value = 1023;
module_param(initial_alpha_value, uint, 0644);
MODULE_PARM_DESC(initial_alpha_value, "Alpha, in 1024ths, at a QP's first cut (1023)");

#define SROCE_CC_ONE		1024	/* alpha's 1.0 */
#define SROCE_CC_STEPS_MAX	64	/* catching up: past this many, start afresh */

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

	if (qp->cc.cnp_sent_ns && now - qp->cc.cnp_sent_ns < gap)
		return;
	skb = sroce_skb_alloc(qp, &qp->av, sizeof(*bth) + SROCE_CNP_RESV);
	if (!skb)
		return;
	qp->cc.cnp_sent_ns = now ?: 1;
	bth = (struct sroce_bth *)skb->data;
	sroce_bth_set_cnp(bth, qp->attr.dest_qp_num);
	memset(bth + 1, 0, SROCE_CNP_RESV);
	trace_sroce_cnp_sent(qp->ibqp.device->index, qp->ibqp.qp_num);
	if (!sroce_xmit(qp, &qp->av, qp->src_port, skb))
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_NP_CNP_SENT);
}

/* RP: a CNP for @qp arrived. Consumes @skb; true if @qp's run must see it. */
bool sroce_cc_rp_cnp(struct sroce_dev *sdev, struct sroce_qp *qp,
		     struct sk_buff *skb)
{
	bool react = READ_ONCE(rp_enable) && qp->ibqp.qp_type == IB_QPT_RC;

	trace_sroce_cnp_rcvd(sdev->ibdev.index, qp->ibqp.qp_num);
	consume_skb(skb);
	if (!react) {
		sroce_count(sdev, SROCE_CNT_RP_CNP_IGNORED);
		return false;
	}
	sroce_count(sdev, SROCE_CNT_RP_CNP_HANDLED);
	atomic_inc(&qp->cc.cnp_pending);
	return true;
}

static void sroce_cc_trace(struct sroce_qp *qp)
{
	trace_sroce_cc_rate(qp->ibqp.device->index, qp->ibqp.qp_num,
			    qp->cc.rc_mbps, qp->cc.rt_mbps, qp->cc.alpha);
}

/* Alpha's decays for the dce_tcp_rtt periods gone by without a cut. */
static void sroce_cc_alpha_decay(struct sroce_cc *cc, u64 now)
{
	u64 period = (u64)max(READ_ONCE(dce_tcp_rtt), 1U) * NSEC_PER_USEC;
	u32 g = min_t(u32, READ_ONCE(dce_tcp_g), SROCE_CC_ONE);
	unsigned int n = 0;

	while (now - cc->alpha_ns >= period && n++ < SROCE_CC_STEPS_MAX) {
		cc->alpha = cc->alpha * g / SROCE_CC_ONE;
		cc->alpha_ns += period;
	}
	if (n > SROCE_CC_STEPS_MAX)
		cc->alpha_ns = now;
}

/* One increase event (timer or bytes): rc half-way to a target that rises. */
static void sroce_cc_increase(struct sroce_qp *qp)
{
	struct sroce_cc *cc = &qp->cc;
	u32 max = max(READ_ONCE(rpg_max_rate), 1U);
	u32 thr = READ_ONCE(rpg_threshold);

	cc->stage++;
	if (cc->stage > 2 * thr)
		cc->rt_mbps += READ_ONCE(rpg_hai_rate);
	else if (cc->stage > thr)
		cc->rt_mbps += READ_ONCE(rpg_ai_rate);
	cc->rt_mbps = min(cc->rt_mbps, max);
	cc->rc_mbps = (cc->rc_mbps + cc->rt_mbps + 1) / 2;
	if (cc->rc_mbps >= max)
		cc->rc_mbps = 0;	/* recovered: unpaced */
	sroce_cc_trace(qp);
}

/* The timer's increase events for the rpg_time_reset periods gone by. */
static void sroce_cc_catch_up(struct sroce_qp *qp, u64 now)
{
	u64 period = (u64)max(READ_ONCE(rpg_time_reset), 1U) * NSEC_PER_USEC;
	struct sroce_cc *cc = &qp->cc;
	unsigned int n = 0;

	sroce_cc_alpha_decay(cc, now);
	while (cc->rc_mbps && now - cc->inc_ns >= period) {
		cc->inc_ns += period;
		sroce_cc_increase(qp);
		if (++n >= SROCE_CC_STEPS_MAX) {
			cc->inc_ns = now;
			break;
		}
	}
}

/* A cut for CNPs received, at most one per rate_reduce_monitor_period. */
static void sroce_cc_cut(struct sroce_qp *qp, u64 now)
{
	u64 hold = (u64)READ_ONCE(rate_reduce_monitor_period) * NSEC_PER_USEC;
	u32 g = SROCE_CC_ONE - min_t(u32, READ_ONCE(dce_tcp_g), SROCE_CC_ONE);
	struct sroce_cc *cc = &qp->cc;

	if (cc->rc_mbps && now - cc->cut_ns < hold)
		return;
	if (!cc->rc_mbps) {
		/* The first cut since the QP was unpaced */
		cc->rc_mbps = max(READ_ONCE(rpg_max_rate), 1U);
		cc->alpha = READ_ONCE(initial_alpha_value);
		cc->alpha = min_t(u32, cc->alpha, SROCE_CC_ONE);
		cc->next_ns = now;
	} else {
		cc->alpha = (cc->alpha * (SROCE_CC_ONE - g) +
			     SROCE_CC_ONE * g) / SROCE_CC_ONE;
	}
	cc->rt_mbps = cc->rc_mbps;
	cc->rc_mbps -= (u32)((u64)cc->rc_mbps * cc->alpha / (2 * SROCE_CC_ONE));
	cc->rc_mbps = max3(cc->rc_mbps, READ_ONCE(rpg_min_rate), 1U);
	cc->cut_ns = now;
	cc->alpha_ns = now;
	cc->inc_ns = now;
	cc->bytes = 0;
	cc->stage = 0;
	sroce_cc_trace(qp);
}

/* RP, in @qp's run: the CNPs handed over since it last looked. */
void sroce_cc_react(struct sroce_qp *qp)
{
	u64 now;

	if (likely(!atomic_read(&qp->cc.cnp_pending)) ||
	    !atomic_xchg(&qp->cc.cnp_pending, 0))
		return;
	now = ktime_get_ns();
	if (qp->cc.rc_mbps)
		sroce_cc_catch_up(qp, now);
	sroce_cc_cut(qp, now);
}

/* How long a burst takes at @qp's rate, in ns; its rate must not be 0. */
static u64 sroce_cc_burst_ns(const struct sroce_cc *cc)
{
	/* bits / (Mbit/s) = microseconds: times 1000 for ns */
	return div_u64((u64)READ_ONCE(pacing_burst_kib) * 1024 * 8 * NSEC_PER_USEC,
		       cc->rc_mbps);
}

/*
 * Whether @qp's next request may leave now: while its departure time is
 * at most a burst ahead. If not, its run is woken when the departure time
 * comes, with a whole burst to send. Called from @qp's run.
 */
bool sroce_cc_may_send(struct sroce_qp *qp)
{
	struct sroce_cc *cc = &qp->cc;
	u64 now;

	if (likely(!cc->rc_mbps))
		return true;
	now = ktime_get_ns();
	sroce_cc_catch_up(qp, now);
	if (!cc->rc_mbps || now + sroce_cc_burst_ns(cc) >= cc->next_ns)
		return true;
	sroce_qp_wake_at(qp, ns_to_ktime(cc->next_ns));
	return false;
}

/*
 * @qp's run sent a request of @bytes (headers included): the next one's
 * departure moves on by its time at the rate, from no earlier than a
 * burst ago (what a late wake-up may make up for; an idle QP banks no
 * more).
 */
void sroce_cc_sent(struct sroce_qp *qp, u32 bytes)
{
	struct sroce_cc *cc = &qp->cc;
	u64 now, from;

	if (likely(!cc->rc_mbps))
		return;
	now = ktime_get_ns();
	from = now - min(now, sroce_cc_burst_ns(cc));
	cc->next_ns = max(cc->next_ns, from) +
		      div_u64((u64)bytes * 8 * NSEC_PER_USEC, cc->rc_mbps);
	cc->bytes += bytes;
	if (cc->bytes >= READ_ONCE(rpg_byte_reset)) {
		cc->bytes = 0;
		sroce_cc_increase(qp);
	}
}

/* A QP that starts again (reset) starts unpaced, its CNPs forgotten. */
void sroce_cc_reset(struct sroce_qp *qp)
{
	struct sroce_cc *cc = &qp->cc;

	cc->next_ns = 0;
	cc->cut_ns = 0;
	cc->rc_mbps = 0;
	cc->rt_mbps = 0;
	cc->alpha = 0;
	cc->bytes = 0;
	cc->stage = 0;
	atomic_set(&cc->cnp_pending, 0);
}
