// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets of one QP that arrive out of order. A requester sends in PSN
 * order, but the way there may reorder: a NIC's transmit queues drain in
 * parallel, and a veth delivers into the input backlog of the CPU that
 * sent, so two packets a QP sent from two CPUs may be taken in either
 * order. A gap is otherwise a loss, answered at once (a PSN sequence NAK,
 * or a READ asked again from the gap), and the requester sends the whole
 * window again. So a request (responder) or READ response (completer, or
 * an ACK that passed one) ahead of its turn is first held back, in PSN
 * order, and taken when the gap fills; only when reorder_wait_us pass
 * with packets held and none taken in its turn (a gap that moves on as
 * packets come is still being filled), or a packet finds reorder_max_pkts
 * waiting or is as many PSNs ahead, is it a loss (that packet is dropped).
 * What is held stays through the loss: once the packets sent again fill
 * the gap, it is taken, and its own copies are duplicates; a different
 * packet at a held PSN is a forgery's sign, and neither is taken.
 * Only the QP's run touches a hold; hold_timer runs the QP when a wait
 * ends.
 */
#include <linux/module.h>

#include "sroce.h"
#include "hold.h"
#include "sched.h"

#define SROCE_HOLD_WINDOW	512U	/* reorder_max_pkts at most */

/*
 * How many packets a QP holds per direction, and so how far ahead of the
 * expected PSN a packet may be held. RoCEv2 has no authentication: a
 * blind injector on the segment who knows a QPN must also guess the PSN,
 * and the hold widens the target from one PSN to this many. So small by
 * default; 0 holds nothing (every gap is a loss at once, as in rdma_rxe).
 * Tests under emulation, where QEMU lets more than 64 frames pass one,
 * set it higher.
 */
static unsigned int reorder_max_pkts = 64;
module_param(reorder_max_pkts, uint, 0644);
MODULE_PARM_DESC(reorder_max_pkts,
		 "How many packets, and PSNs, ahead of a PSN gap a QP holds, per direction (default 64, at most 512, 0: none)");

/*
 * How long a gap may last before it is a loss. Reordering on a NIC is a
 * matter of microseconds; the wait is an hrtimer's, so it is what it says
 * and not rounded to the jiffy. Tests under emulation,
 * where a vCPU may stall for tens of milliseconds, set it longer. A path
 * that reorders by more shows it in gap_spurious (sroce_hold_dup()). The
 * wait is not lengthened by that: a requester that resends a gap both on
 * the NAK and on its timeout (rdma_rxe does) sends the lost packet twice
 * too, and a wait doubled on that can grow past the requester's timeout
 * (tried: the one run with it had rxe time out 20 times in a two-VM
 * perftest, the pairing 668 s where it took 437 s before).
 */
static unsigned int reorder_wait_us = 1000;
module_param(reorder_wait_us, uint, 0644);
MODULE_PARM_DESC(reorder_wait_us,
		 "How long a PSN gap is waited for before it counts as a loss, in us (default 1000)");

/* When a gap that opens now becomes a loss. */
static ktime_t sroce_hold_until(void)
{
	return ktime_add_us(ktime_get(), READ_ONCE(reorder_wait_us));
}

static enum hrtimer_restart sroce_hold_timeout(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, hold_timer);

	sroce_qp_sched(qp);
	return HRTIMER_NORESTART;
}

void sroce_hold_init(struct sroce_qp *qp)
{
	memset(&qp->req_held, 0, sizeof(qp->req_held));
	memset(&qp->resp_held, 0, sizeof(qp->resp_held));
	__skb_queue_head_init(&qp->req_held.q);
	__skb_queue_head_init(&qp->resp_held.q);
	hrtimer_setup(&qp->hold_timer, sroce_hold_timeout, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
}

/* Drop what @h holds: the gap was a loss, or the QP stops. */
void sroce_hold_purge(struct sroce_hold *h)
{
	__skb_queue_purge(&h->q);
}

/*
 * Run @qp at @until (hold_timer, which only runs the QP): for a hold's wait,
 * READ responses waiting for a full qdisc, the requester's back-off or its
 * pacing. A timer set for later is
 * brought forward; one set for sooner stays, and the run it makes sets it
 * again for what is still to wait. Only the QP's run calls this.
 */
void sroce_qp_wake_at(struct sroce_qp *qp, ktime_t until)
{
	struct hrtimer *t = &qp->hold_timer;

	if (READ_ONCE(qp->dying))
		return;
	if (!hrtimer_is_queued(t) || ktime_before(until, hrtimer_get_expires(t)))
		hrtimer_start(t, until, HRTIMER_MODE_ABS_SOFT);
}

/*
 * Whether @qp must still wait for @until; if so, it runs then. Only the
 * QP's run calls this.
 */
bool sroce_qp_wait_until(struct sroce_qp *qp, ktime_t until)
{
	if (!ktime_before(ktime_get(), until))
		return false;
	sroce_qp_wake_at(qp, until);
	return true;
}

/*
 * Two packets at one PSN: is @a the same as @b, headers and payload? A
 * requester sends a packet again as it was (its data read again from the
 * same memory), so a copy that differs was not sent by the peer.
 */
static bool sroce_hold_same(struct sk_buff *a, struct sk_buff *b)
{
	u8 x[64], y[64];
	unsigned int off, n;

	if (a->len != b->len)
		return false;
	for (off = 0; off < a->len; off += n) {
		n = min_t(unsigned int, sizeof(x), a->len - off);
		if (skb_copy_bits(a, off, x, n) || skb_copy_bits(b, off, y, n) ||
		    memcmp(x, y, n))
			return false;
	}
	return true;
}

/*
 * @skb has the PSN of @at, held already. A copy of it is dropped. One
 * that differs means someone else sends with the peer's QPN and PSNs:
 * which of the two is the peer's cannot be told, so neither runs (the
 * held one is dropped too, and counted); the gap it leaves is NAKed and
 * sent again by the peer.
 */
static void sroce_hold_twin(struct sroce_qp *qp, struct sroce_hold *h,
			    struct sk_buff *at, struct sk_buff *skb)
{
	if (!sroce_hold_same(at, skb)) {
		__skb_unlink(at, &h->q);
		kfree_skb(at);
		sroce_count(to_sdev(qp->ibqp.device),
			    SROCE_CNT_HOLD_CONFLICT);
	}
	kfree_skb(skb);
}

/* Too many held, or @psn too far ahead of @expected: a loss now. */
static bool sroce_hold_full(struct sroce_qp *qp, struct sroce_hold *h,
			    u32 psn, u32 expected)
{
	u32 max = min(READ_ONCE(reorder_max_pkts), SROCE_HOLD_WINDOW);

	if (skb_queue_len(&h->q) < max &&
	    sroce_psn_cmp(psn, sroce_psn_add(expected, max)) <= 0)
		return false;
	/* Counted once per gap, as the caller NAKs or asks once. */
	if (max && (!h->lost || h->full_at != expected)) {
		h->lost = true;
		h->full_at = expected;
		sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_GAP_LOST_FULL);
	}
	return true;
}

/*
 * Hold @skb, which is ahead of the @expected PSN; true if taken. False
 * when it cannot wait (reorder_max_pkts held, or as many PSNs ahead):
 * then the gap is a loss now.
 */
bool sroce_hold(struct sroce_qp *qp, struct sroce_hold *h, struct sk_buff *skb,
		u32 expected)
{
	u32 psn = sroce_pkt(skb)->psn;
	struct sk_buff *at;
	int c;

	sroce_qp_assert_run(qp);
	if (sroce_hold_full(qp, h, psn, expected))
		return false;
	skb_queue_reverse_walk(&h->q, at) {
		c = sroce_psn_cmp(sroce_pkt(at)->psn, psn);
		if (!c) {
			sroce_hold_twin(qp, h, at, skb);
			return true;
		}
		if (c < 0) {
			__skb_queue_after(&h->q, at, skb);
			return true;
		}
	}
	if (skb_queue_empty(&h->q)) {
		h->until = sroce_hold_until();
		h->lost = false;
		sroce_qp_wake_at(qp, h->until);
	}
	__skb_queue_head(&h->q, skb);
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_REORDER_HELD);
	return true;
}

/*
 * A packet was taken in its turn: the gap before what @h holds moves on,
 * and its wait starts again. Measured under QEMU: a NIC whose receive
 * ring was full takes one new frame ahead of the queued ones each time
 * it finds room, so one packet after another jumps a queue that drains
 * in order; a wait counted from the first of them ran out while the
 * gap was filling, and every packet taken then was a loss of its own,
 * one NAK each (rc/nic).
 */
void sroce_hold_progress(struct sroce_hold *h)
{
	if (!skb_queue_empty(&h->q)) {
		h->until = sroce_hold_until();
		h->lost = false;
	}
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
 * it for a loss (told once per gap: a gap that moves on is a new one).
 * Else the timer runs the QP at its end.
 */
bool sroce_hold_expired(struct sroce_qp *qp, struct sroce_hold *h)
{
	if (skb_queue_empty(&h->q) || h->lost)
		return false;
	if (ktime_before(ktime_get(), h->until)) {
		sroce_qp_wake_at(qp, h->until);
		return false;
	}
	h->lost = true;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_GAP_LOST_WAIT);
	return true;
}

/* The gap at @psn was taken for a loss: NAKed, or a READ asked again. */
void sroce_hold_lost(struct sroce_hold *h, u32 psn)
{
	h->check = true;
	h->lost_psn = psn;
}

/*
 * A packet at @psn came again, taken already. If it is the one last taken
 * for lost, that one was late rather than lost (the copy sent again is the
 * second), or its sender resent it twice: counted, for the user to judge
 * the wait by.
 */
void sroce_hold_dup(struct sroce_qp *qp, struct sroce_hold *h, u32 psn)
{
	if (!h->check || psn != h->lost_psn)
		return;
	h->check = false;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_GAP_SPURIOUS);
}
