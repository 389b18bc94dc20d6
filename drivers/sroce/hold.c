// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets of one QP that arrive out of order. A requester sends in PSN
 * order, but the way there may reorder: a NIC's transmit queues drain in
 * parallel, and a veth delivers into the input backlog of the CPU that
 * sent, so two packets a QP sent from two CPUs may be taken in either
 * order. A gap is otherwise a loss, answered at once (a PSN sequence NAK,
 * or a READ asked again from the gap), and the requester sends the whole
 * window again. So a request (responder) or READ response (completer)
 * ahead of its turn is first held back, in PSN order, and taken when the
 * gap fills; only when SROCE_HOLD_MAX packets wait, or the gap is still
 * there SROCE_HOLD_JIFFIES later, is it a loss. Only the QP's run touches
 * a hold; hold_timer runs the QP when a wait ends.
 */
#include "sroce.h"

#define SROCE_HOLD_MAX		64
#define SROCE_HOLD_JIFFIES	2	/* a whole jiffy, whatever the phase */
#define SROCE_HOLD_WINDOW	512	/* PSNs ahead: beyond, not a reordering */

static void sroce_hold_timeout(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, hold_timer);

	sroce_qp_sched(qp);
}

void sroce_hold_init(struct sroce_qp *qp)
{
	__skb_queue_head_init(&qp->req_held.q);
	__skb_queue_head_init(&qp->resp_held.q);
	timer_setup(&qp->hold_timer, sroce_hold_timeout, 0);
}

/* Drop what @h holds: the gap was a loss, or the QP stops. */
void sroce_hold_purge(struct sroce_hold *h)
{
	__skb_queue_purge(&h->q);
}

static void sroce_hold_wake(struct sroce_qp *qp, unsigned long until)
{
	if (!timer_pending(&qp->hold_timer) && !READ_ONCE(qp->dying))
		mod_timer(&qp->hold_timer, until);
}

/*
 * Hold @skb, which is ahead of the @expected PSN; true if taken. False
 * when it cannot wait (SROCE_HOLD_MAX held, or too far ahead): then the
 * gap is a loss now.
 */
bool sroce_hold(struct sroce_qp *qp, struct sroce_hold *h, struct sk_buff *skb,
		u32 expected)
{
	u32 psn = sroce_pkt(skb)->psn;
	struct sk_buff *at;
	int c;

	sroce_qp_assert_run(qp);
	if (skb_queue_len(&h->q) >= SROCE_HOLD_MAX ||
	    sroce_psn_cmp(psn, sroce_psn_add(expected, SROCE_HOLD_WINDOW)) >= 0)
		return false;
	skb_queue_reverse_walk(&h->q, at) {
		c = sroce_psn_cmp(sroce_pkt(at)->psn, psn);
		if (!c) {
			kfree_skb(skb);		/* held already */
			return true;
		}
		if (c < 0) {
			__skb_queue_after(&h->q, at, skb);
			return true;
		}
	}
	if (skb_queue_empty(&h->q)) {
		h->until = jiffies + SROCE_HOLD_JIFFIES;
		sroce_hold_wake(qp, h->until);
	}
	__skb_queue_head(&h->q, skb);
	return true;
}

/* The held packet whose turn has come (PSN up to @expected), or NULL. */
struct sk_buff *sroce_hold_next(struct sroce_hold *h, u32 expected)
{
	struct sk_buff *skb = skb_peek(&h->q);

	if (skb && sroce_psn_cmp(sroce_pkt(skb)->psn, expected) <= 0)
		return __skb_dequeue(&h->q);
	return NULL;
}

/*
 * Has the gap before what @h holds lasted its time? Then the caller takes
 * it for a loss (and purges @h). Else the timer runs the QP at its end.
 */
bool sroce_hold_expired(struct sroce_qp *qp, struct sroce_hold *h)
{
	if (skb_queue_empty(&h->q))
		return false;
	if (time_before(jiffies, h->until)) {
		sroce_hold_wake(qp, h->until);
		return false;
	}
	return true;
}

u32 sroce_hold_len(struct sroce_hold *h)
{
	return skb_queue_len(&h->q);
}
