// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Buffers for packets that go to a wire, kept per QP and used again.
 *
 * alloc_skb() takes each packet's buffer from kmalloc, and a kernel that
 * zeroes every allocation (init_on_alloc, on by default in Debian's) then
 * clears it: 8 KiB per packet at a 4096-byte MTU, on a path that writes
 * every byte of it anyway. A QP's run instead builds its wire packets in
 * pages of a small ring it keeps a reference on (build_skb(): the skb's
 * head is a page fragment, freed with put_page()). Once the netdev is done
 * with a packet, only the ring holds its page, and the next packet the
 * ring's cursor reaches is built there: a page is zeroed when allocated,
 * not per packet.
 *
 * Only the QP's run touches its ring (one at a time: sched.c), and the
 * ring is emptied when the QP is destroyed; packets still in flight keep
 * their pages, and a counter of their own (struct sroce_txq), not the QP.
 *
 * The same packets are counted while the netdev holds them, so that a QP
 * puts no more of them in its queues than a high mark: a qdisc
 * such as fq_codel drops packets that wait too long in it, and a stream
 * that fills it faster than the device drains it then resends what it
 * lost there (measured, two VMs at MTU 9000: 1 to 18 resends per run of
 * the bench, each one a qdisc drop; rdma_rxe, which caps its QPs so, had
 * none).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/wait_bit.h>

#include "sroce.h"
#include "sched.h"
#include "txbuf.h"

/*
 * The high mark, in bytes of payload (a packet counts as a path MTU): at
 * the default, 64 packets at a 4096-byte MTU (where fq_codel dropped
 * packets of a QP that had no mark at all) and 256 at 1024 bytes. A mark
 * of 64 packets there, as rdma_rxe has, stopped a QP every 18 packets
 * between two VMs (7.2, MTU 1500) and cost it a third of its bandwidth:
 * the emulated NIC frees what it sent in batches. A stopped QP goes on at
 * a quarter of its mark.
 */
static unsigned int tx_queue_kib = 256;
module_param(tx_queue_kib, uint, 0644);
MODULE_PARM_DESC(tx_queue_kib,
		 "How many KiB of a QP's packets the netdev may hold at once (default 256; 16 to 4096 packets)");

static int sroce_txbuf_high(const struct sroce_qp *qp)
{
	u64 pkts = (u64)READ_ONCE(tx_queue_kib) * SZ_1K / max(qp->mtu, 256U);

	return clamp_t(u64, pkts, SROCE_TX_INFLIGHT_MIN, SROCE_TX_INFLIGHT_MAX);
}

/* Smaller packets (ACKs) come from alloc_skb(): zeroing them is cheap. */
#define SROCE_TXBUF_MIN		512

/* The buffer a packet of @size bytes takes, with its skb_shared_info. */
static unsigned int sroce_txbuf_truesize(unsigned int size)
{
	return SKB_DATA_ALIGN(size) +
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
}

/*
 * The page at the cursor if nothing but the ring holds it and it fits, a
 * new one (zeroed once) if the slot is empty; NULL if it is still in
 * flight: the netdev's queues hold more of our packets than the ring has
 * slots, and the packet is built as before, in a buffer of its own (a page
 * allocated here would be zeroed whole, for the one packet).
 */
static struct page *sroce_txbuf_page(struct sroce_txbuf *tb,
				     unsigned int truesize, gfp_t gfp)
{
	struct page **slot;

	if (!tb->page) {
		tb->page = kcalloc(SROCE_TXBUF_SLOTS, sizeof(*tb->page),
				   gfp | __GFP_NOWARN);
		if (!tb->page)
			return NULL;
	}
	slot = &tb->page[tb->next];
	/*
	 * A count of 1 is the ring's own reference: every skb built in the
	 * page has dropped its own (after the netdev's last look at the
	 * data: the put is a full barrier), and none can take one again.
	 */
	if (*slot && page_ref_count(*slot) != 1)
		return NULL;
	if (*slot && page_size(*slot) < truesize) {
		put_page(*slot);	/* the path MTU grew */
		*slot = NULL;
	}
	if (!*slot)
		*slot = alloc_pages(gfp | __GFP_COMP | __GFP_NOWARN,
				    get_order(truesize));
	return *slot;
}

/*
 * A packet of @size bytes (all headroom included) in a buffer of @qp's
 * ring; NULL if it is too small to be worth it, or out of memory (the
 * caller then takes alloc_skb()).
 */
struct sk_buff *sroce_txbuf_skb(struct sroce_qp *qp, unsigned int size,
				gfp_t gfp)
{
	unsigned int truesize = sroce_txbuf_truesize(size);
	struct sroce_txbuf *tb = &qp->txbuf;
	struct sk_buff *skb;
	struct page *page;

	if (size < SROCE_TXBUF_MIN || get_order(truesize) > SROCE_TXBUF_ORDER)
		return NULL;
	page = sroce_txbuf_page(tb, truesize, gfp);
	if (!page)
		return NULL;
	skb = build_skb(page_address(page), page_size(page));
	if (!skb)
		return NULL;
	get_page(page);			/* the skb's, put when it is freed */
	tb->next = (tb->next + 1) % SROCE_TXBUF_SLOTS;
	return skb;
}

/* Live sroce_txq objects: module unload waits for the last one. */
static atomic_t sroce_txq_live = ATOMIC_INIT(0);

int sroce_txbuf_init(struct sroce_qp *qp)
{
	struct sroce_txq *txq = kzalloc(sizeof(*txq), GFP_KERNEL_ACCOUNT);

	if (!txq)
		return -ENOMEM;
	refcount_set(&txq->ref, 1);
	spin_lock_init(&txq->lock);
	txq->qp = qp;
	atomic_inc(&sroce_txq_live);
	qp->txbuf.txq = txq;
	return 0;
}

static void sroce_txq_put(struct sroce_txq *txq)
{
	if (!refcount_dec_and_test(&txq->ref))
		return;
	kfree(txq);
	if (atomic_dec_and_test(&sroce_txq_live))
		wake_up_var(&sroce_txq_live);
}

/*
 * The QP is being destroyed: its packets' destructors no longer schedule
 * it. Packets sent after this (a run's last) are still counted.
 */
void sroce_txbuf_detach(struct sroce_qp *qp)
{
	struct sroce_txq *txq = qp->txbuf.txq;
	unsigned long flags;

	if (!txq)
		return;
	spin_lock_irqsave(&txq->lock, flags);
	txq->qp = NULL;
	spin_unlock_irqrestore(&txq->lock, flags);
}

/*
 * Drop the ring's references, and the QP's on its counter, once no run is
 * left; packets still in flight keep theirs.
 */
void sroce_txbuf_free(struct sroce_qp *qp)
{
	struct sroce_txbuf *tb = &qp->txbuf;
	unsigned int i;

	for (i = 0; tb->page && i < SROCE_TXBUF_SLOTS; i++)
		if (tb->page[i])
			put_page(tb->page[i]);
	kfree(tb->page);
	tb->page = NULL;
	if (tb->txq)
		sroce_txq_put(tb->txq);
	tb->txq = NULL;
}

/* Module unload: the destructors of packets still in a netdev are ours. */
void sroce_txbuf_exit(void)
{
	wait_var_event(&sroce_txq_live, !atomic_read(&sroce_txq_live));
}

/*
 * The netdev is done with a packet sroce_txbuf_track() counted (it freed
 * it, or orphaned it on the way to a peer: veth): a QP that stopped at the
 * high mark runs again once its count is down to the low one. Runs in any
 * context.
 */
static void sroce_txbuf_skb_done(struct sk_buff *skb)
{
	struct sroce_txq *txq = skb_shinfo(skb)->destructor_arg;
	unsigned long flags;

	/* Fully ordered, as against the store and load in _room(). */
	if (atomic_dec_return(&txq->inflight) <= READ_ONCE(txq->low) &&
	    atomic_read(&txq->wait) && atomic_xchg(&txq->wait, 0)) {
		spin_lock_irqsave(&txq->lock, flags);
		if (txq->qp)
			sroce_qp_sched(txq->qp);
		spin_unlock_irqrestore(&txq->lock, flags);
	}
	sroce_txq_put(txq);
}

/*
 * Count @skb, one of @qp's packets that goes to the netdev, until it is
 * freed. The skb has no socket: its destructor finds the counter in
 * destructor_arg, which only zerocopy skbs (SKBFL_ZEROCOPY_ENABLE, never
 * set here) use otherwise, and which a copy of the head keeps. It holds a
 * reference on the counter, not on the QP: destroying the QP does not
 * wait for a netdev or a qdisc that holds packets (a paused NIC, a long
 * netem delay).
 */
void sroce_txbuf_track(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_txq *txq = qp->txbuf.txq;

	skb_orphan(skb);
	refcount_inc(&txq->ref);
	atomic_inc(&txq->inflight);
	skb_shinfo(skb)->destructor_arg = txq;
	skb->destructor = sroce_txbuf_skb_done;
}

/*
 * Whether @qp may hand the netdev another data packet. If not, the run
 * stops, and the destructor of one of the packets in flight schedules it
 * again (counted in tx_wait). ACKs are never held back, only counted.
 */
bool sroce_txbuf_room(struct sroce_qp *qp)
{
	struct sroce_txq *txq = qp->txbuf.txq;
	int high = sroce_txbuf_high(qp);

	if (likely(atomic_read(&txq->inflight) < high))
		return true;
	WRITE_ONCE(txq->low, high / 4);
	atomic_set(&txq->wait, 1);
	smp_mb();	/* the stores before the load: see _skb_done() */
	if (atomic_read(&txq->inflight) < high)
		return true;
	sroce_count(to_sdev(qp->ibqp.device), SROCE_CNT_TX_WAIT);
	return false;
}
