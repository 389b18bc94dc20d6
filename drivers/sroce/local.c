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

/*
 * @n bytes of @frag, which begin @off bytes into the payload, to @fn. A
 * fragment may span pages (a compound page): each is mapped on its own,
 * which matters where pages may be in high memory.
 */
static int sroce_frag_walk(const skb_frag_t *frag, u32 n, u32 off,
			   int (*fn)(void *arg, void *buf, u32 len, u32 off),
			   void *arg)
{
	u32 p_off, p_len, done;
	struct page *p;
	void *va;
	int err;

	skb_frag_foreach_page(frag, skb_frag_off(frag), n, p, p_off, p_len,
			      done) {
		va = kmap_local_page(p);
		err = fn(arg, va + p_off, p_len, off + done);
		kunmap_local(va);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The payload of a received packet, linear or in page fragments, piece by
 * piece: @fn(@arg, bytes, length, offset into the payload). Stops at the
 * first error and returns it.
 */
static int sroce_payload_walk(struct sk_buff *skb,
			      int (*fn)(void *arg, void *buf, u32 len, u32 off),
			      void *arg)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 head = skb_headlen(skb) - min_t(u32, skb_headlen(skb),
					    pkt->hdr_len);
	u32 off = 0, i;
	int err = 0;

	head = min(head, pkt->paylen);
	if (head) {
		err = fn(arg, sroce_payload(skb), head, 0);
		off = head;
	}
	for (i = 0; !err && off < pkt->paylen &&
	     i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 n = min(skb_frag_size(frag), pkt->paylen - off);

		err = sroce_frag_walk(frag, n, off, fn, arg);
		off += n;
	}
	if (!err && off != pkt->paylen)
		err = -EFAULT;
	return err;
}

struct sroce_to_mr {
	struct sroce_mr	*mr;
	u64		iova;
};

static int sroce_piece_to_mr(void *arg, void *buf, u32 len, u32 off)
{
	struct sroce_to_mr *t = arg;

	return sroce_mr_copy(t->mr, t->iova + off, buf, len, true);
}

/* Copy the payload of @skb into @mr at @iova (the range checked). */
int sroce_payload_to_mr(struct sk_buff *skb, struct sroce_mr *mr, u64 iova)
{
	struct sroce_to_mr t = { .mr = mr, .iova = iova };

	return sroce_payload_walk(skb, sroce_piece_to_mr, &t);
}

struct sroce_to_sge {
	struct sroce_qp		*qp;
	const struct sroce_sge	*sge;
	u32			num_sge;
	u32			offset;
};

static int sroce_piece_to_sge(void *arg, void *buf, u32 len, u32 off)
{
	struct sroce_to_sge *t = arg;

	return sroce_sge_copy(t->qp, t->sge, t->num_sge, t->offset + off,
			      buf, len, true);
}

/* Copy the payload of @skb into the memory @sge describes, @offset on. */
int sroce_payload_to_sge(struct sk_buff *skb, struct sroce_qp *qp,
			 const struct sroce_sge *sge, u32 num_sge, u32 offset)
{
	struct sroce_to_sge t = {
		.qp = qp, .sge = sge, .num_sge = num_sge, .offset = offset,
	};

	return sroce_payload_walk(skb, sroce_piece_to_sge, &t);
}
