// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets that never leave the device: between two QPs of one sroce
 * device, a SEND or WRITE of several MTUs (or a READ reply) goes as chunks
 * of up to SROCE_LOCAL_CHUNK bytes, each one packet that covers as many
 * PSNs as it has MTUs (pkt->span), whose payload is not copied into the
 * packet but referenced: page fragments of the sender's registered memory
 * (user MRs, whose pages are pinned; a fragment holds its own page
 * reference, so a deregistration meanwhile frees nothing the packet still
 * points at). The receiver copies once, from those pages into its own
 * memory. So a 64 KiB message is one packet instead of 64, and one copy
 * per byte instead of two. On a wire every packet is still one MTU, built
 * linear; sroce_xmit() refuses a fragmented packet that would go there.
 *
 * PSNs, ACKs, NAKs and retransmission work as for single packets: a chunk
 * is acknowledged by its last PSN, a resend starts at any PSN of it, and a
 * chunk is cut at MTU boundaries only, so either end can resume at any
 * PSN a wire packet could have.
 */
#include <linux/highmem.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "local.h"
#include "mr.h"

/*
 * Whether packets to @av stay inside this device: to one of its GIDs, at
 * its own MAC. The MAC alone is not enough: the ipvlan slaves of one port
 * share it, and a link without ARP (ipvlan L3) resolves every address to it.
 */
bool sroce_av_local(struct sroce_qp *qp, const struct sroce_av *av)
{
	return av->dgid_ours &&
	       ether_addr_equal(av->dmac, to_sdev(qp->ibqp.device)->ndev->dev_addr);
}

/*
 * Add up to @len bytes of user MR @mr from @iova (inside it); returns how
 * many were added, fewer once every fragment slot is taken.
 */
static u32 sroce_frags_add(struct sroce_frags *f, struct sroce_mr *mr,
			   u64 iova, u32 len)
{
	u64 off = iova - mr->iova + ib_umem_offset(mr->umem);
	u32 added = 0;

	while (added < len) {
		u64 idx = off >> PAGE_SHIFT;
		u32 in = off & ~PAGE_MASK;
		u32 n = min_t(u64, len - added, PAGE_SIZE - in);
		struct page *page;

		if (idx >= mr->npages)
			break;
		page = mr->pages[idx];
		if (f->n && f->v[f->n - 1].page == page &&
		    f->v[f->n - 1].off + f->v[f->n - 1].len == in) {
			f->v[f->n - 1].len += n;
		} else {
			if (f->n == MAX_SKB_FRAGS)
				break;
			get_page(page);
			f->v[f->n].page = page;
			f->v[f->n].off = in;
			f->v[f->n].len = n;
			f->n++;
		}
		f->bytes += n;
		added += n;
		off += n;
	}
	return added;
}

/* Keep the first @keep bytes gathered; the pages of the rest are let go. */
static void sroce_frags_trim(struct sroce_frags *f, u32 keep)
{
	u32 i, n = 0, seen = 0;

	for (i = 0; i < f->n; i++) {
		if (seen >= keep) {
			put_page(f->v[i].page);
			continue;
		}
		f->v[i].len = min(f->v[i].len, keep - seen);
		seen += f->v[i].len;
		n++;
	}
	f->n = n;
	f->bytes = seen;
}

/*
 * What a chunk may carry of the @f->bytes gathered towards @want: all of
 * it if that is everything, else whole units of @mtu. Trims @f to it.
 */
static u32 sroce_frags_fit(struct sroce_frags *f, u32 want, u32 mtu)
{
	sroce_frags_trim(f, f->bytes == want ? want :
			 rounddown(f->bytes, mtu));
	return f->bytes;
}

void sroce_frags_release(struct sroce_frags *f)
{
	sroce_frags_trim(f, 0);
}

/* Hang the gathered pages on @skb, behind its linear headers. */
void sroce_frags_attach(struct sk_buff *skb, struct sroce_frags *f)
{
	u32 i;

	for (i = 0; i < f->n; i++)
		skb_fill_page_desc(skb, i, f->v[i].page, f->v[i].off,
				   f->v[i].len);
	skb->len += f->bytes;
	skb->data_len += f->bytes;
	skb->truesize += f->bytes;
	f->n = 0;
	f->bytes = 0;
}

/*
 * The requester: gather up to @want bytes of the memory @sge describes,
 * from @offset on, for a chunk to a QP of this device. Returns the bytes
 * gathered in @f: @want, or whole MTUs of it, or 0 when this part of the
 * message cannot go as a chunk (not a user MR, a bad key: the one-MTU
 * path then copies, and reports the error if there is one).
 */
u32 sroce_frags_from_sge(struct sroce_qp *qp, struct sroce_frags *f,
			 const struct sroce_sge *sge, u32 num_sge, u32 offset,
			 u32 want)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mr *mr;
	u32 i, n, got;

	f->n = 0;
	f->bytes = 0;
	for (i = 0; i < num_sge && f->bytes < want; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(want - f->bytes, sge[i].length - offset);
		mr = sroce_mr_get(sdev, sge[i].lkey, qp->ibqp.pd, 0);
		if (!mr)
			break;
		got = 0;
		if (mr->type == SROCE_MR_USER &&
		    sroce_mr_covers(mr, sge[i].addr, sge[i].length))
			got = sroce_frags_add(f, mr, sge[i].addr + offset, n);
		sroce_mr_put(mr);
		if (got < n)
			break;
		offset = 0;
	}
	return sroce_frags_fit(f, want, qp->mtu);
}

/*
 * The responder, for a READ reply: up to @want bytes of @mr (a reference
 * the caller holds, its range checked) from @iova. As above.
 */
u32 sroce_frags_from_mr(struct sroce_qp *qp, struct sroce_frags *f,
			struct sroce_mr *mr, u64 iova, u32 want)
{
	f->n = 0;
	f->bytes = 0;
	if (mr->type == SROCE_MR_USER)
		sroce_frags_add(f, mr, iova, want);
	return sroce_frags_fit(f, want, qp->mtu);
}
