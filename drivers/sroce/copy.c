// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Data movement: the bytes a QP reads or writes in registered memory.
 * Copies between a buffer and an MR (user pages, fast-registration pages,
 * a DMA MR's kernel addresses; ODP MRs through odp.c), between a buffer
 * and a WQE's scatter/gather list, 64-bit stores an atomic or ATOMIC
 * WRITE makes visible whole, and a received packet's payload placed
 * piece by piece from wherever its bytes are (the linear part, page
 * fragments) without linearizing it.
 */
#include <linux/highmem.h>
#include <rdma/ib_umem.h>

#include "sroce.h"
#include "copy.h"
#include "mr.h"
#include "odp.h"

/*
 * Where @iova lies in a user or fast-registration MR's pages: bytes from
 * the start of its first page (page index = offset >> page_shift).
 */
static u64 sroce_mr_offset(const struct sroce_mr *mr, u64 iova)
{
	u64 pgsz = 1ULL << mr->page_shift;

	if (mr->type == SROCE_MR_USER)
		return iova - mr->iova + ib_umem_offset(mr->umem);
	return iova - mr->ibmr.iova + (mr->ibmr.iova & (pgsz - 1));
}

/*
 * Copy between @buf and the memory an MR maps at @iova (to_mr: into the
 * MR). The caller has checked that [iova, iova + len) lies in the MR.
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  bool to_mr)
{
	u64 off, pgsz;
	u32 n;
	void *va;

	if (mr->type == SROCE_MR_DMA) {
		/* Kernel consumers only: the iova is a kernel address. */
		va = (void *)(uintptr_t)iova;
		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return 0;
	}
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_copy(mr, iova, buf, len, to_mr);

	pgsz = 1ULL << mr->page_shift;
	off = sroce_mr_offset(mr, iova);
	while (len) {
		u64 idx = off >> mr->page_shift;
		u32 in = off & (pgsz - 1);

		if (idx >= mr->npages)
			return -EFAULT;
		n = min_t(u64, len, pgsz - in);
		if (mr->type == SROCE_MR_USER) {
			/* User pages are pinned; map each PAGE_SIZE page. */
			va = kmap_local_page(mr->pages[idx]);
			if (to_mr)
				memcpy(va + in, buf, n);
			else
				memcpy(buf, va + in, n);
			kunmap_local(va);
		} else {
			va = (void *)(uintptr_t)(mr->page_list[idx] + in);
			if (to_mr)
				memcpy(va, buf, n);
			else
				memcpy(buf, va, n);
		}
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * For an access that must not sleep once started (an atomic, under a
 * spinlock): sroce_mr_hold() makes [iova, iova + len) present and keeps it
 * so (it may sleep), sroce_mr_copy_held() copies inside it, and
 * sroce_mr_unhold() lets go. Only ODP MRs have anything to hold.
 */
int sroce_mr_hold(struct sroce_mr *mr, u64 iova, u32 len)
{
	return mr->type == SROCE_MR_ODP ? sroce_odp_hold(mr, iova, len, true) : 0;
}

void sroce_mr_unhold(struct sroce_mr *mr, u64 iova)
{
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_unhold(mr, iova);
}

int sroce_mr_copy_held(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		       bool to_mr)
{
	if (mr->type != SROCE_MR_ODP)
		return sroce_mr_copy(mr, iova, buf, len, to_mr);
	sroce_odp_copy_held(mr, iova, buf, len, to_mr);
	return 0;
}

/*
 * Copy @len bytes between @buf and the local memory described by @sge,
 * starting @offset bytes into it (to_sge: into the SGEs). Each SGE's lkey
 * must name a valid MR of the QP's PD that covers it, with local write
 * access when written to.
 */
int sroce_sge_copy(struct sroce_qp *qp, const struct sroce_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len, bool to_sge)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	int access = to_sge ? IB_ACCESS_LOCAL_WRITE : 0;
	struct sroce_mr *mr;
	u32 i, n;
	int err;

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		mr = sroce_mr_get(sdev, sge[i].lkey, qp->ibqp.pd, access);
		if (!mr)
			return -EFAULT;
		if (!sroce_mr_covers(mr, sge[i].addr, sge[i].length) ||
		    (mr->type == SROCE_MR_DMA && qp->is_user))
			err = -EFAULT;
		else
			err = sroce_mr_copy(mr, sge[i].addr + offset, buf, n,
					    to_sge);
		sroce_mr_put(mr);
		if (err)
			return err;
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EFAULT : 0;
}

static void sroce_store64_release(u8 *va, u64 val)
{
	/*
	 * Release: whoever sees the new value sees every earlier write of
	 * the QP to memory too (the payloads ATOMIC WRITE publishes).
	 */
	smp_store_release((u64 *)va, val);
}

/*
 * RDMA ATOMIC WRITE's store: the 8 bytes at @iova in one store, ordered
 * after every earlier write to memory (a release). -EINVAL if they are
 * not aligned in memory (an MR's iova need not be aligned like its pages),
 * -EFAULT outside the MR.
 */
int sroce_mr_store64(struct sroce_mr *mr, u64 iova, u64 val)
{
	u64 off, idx;
	u32 in;
	u8 *va;

	if (mr->type == SROCE_MR_DMA) {
		va = (u8 *)(uintptr_t)iova;
		if ((uintptr_t)va & 7)
			return -EINVAL;
		sroce_store64_release(va, val);
		return 0;
	}
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_store64(mr, iova, val);
	off = sroce_mr_offset(mr, iova);
	idx = off >> mr->page_shift;
	in = off & ((1ULL << mr->page_shift) - 1);
	if (idx >= mr->npages)
		return -EFAULT;
	if (in & 7)
		return -EINVAL;
	if (mr->type == SROCE_MR_USER) {
		va = kmap_local_page(mr->pages[idx]);
		sroce_store64_release(va + in, val);
		kunmap_local(va);
	} else {
		va = (u8 *)(uintptr_t)(mr->page_list[idx] + in);
		sroce_store64_release(va, val);
	}
	return 0;
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
