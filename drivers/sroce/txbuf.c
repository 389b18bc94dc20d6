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
 * ring is emptied when the QP is destroyed.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/skbuff.h>

#include "sroce.h"

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

/* Drop the ring's references; packets still in flight keep theirs. */
void sroce_txbuf_free(struct sroce_qp *qp)
{
	struct sroce_txbuf *tb = &qp->txbuf;
	unsigned int i;

	for (i = 0; tb->page && i < SROCE_TXBUF_SLOTS; i++)
		if (tb->page[i])
			put_page(tb->page[i]);
	kfree(tb->page);
	tb->page = NULL;
}
