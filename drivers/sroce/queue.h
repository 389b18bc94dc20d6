/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/kref.h>
#include <rdma/ib_verbs.h>

#include "rdma_user_sroce.h"

/*
 * A ring shared with user space (or private to a kernel consumer): the
 * layout is the rxe ABI's (uapi/rdma_user_sroce.h).
 *
 * The buffer is reference counted on its own, because a process may keep
 * it mapped after the object that owned it was destroyed or resized.
 */
struct sroce_ring {
	struct kref		ref;
	struct sroce_queue_buf	*buf;		/* vmalloc, accounted */
	size_t			size;		/* page aligned */
};

/* One-shot mmap cookie for a ring (see queue.c). */
struct sroce_mmap {
	struct rdma_user_mmap_entry	rdma;
	struct sroce_ring		*ring;
	unsigned long			used;
};

/*
 * Who produces: SROCE_Q_FROM_USER rings (SQ, RQ, SRQ) are produced by the
 * consumer of the verbs and consumed by sroce; SROCE_Q_TO_USER rings (CQ)
 * the other way round. sroce keeps a private copy of the index it owns and
 * of the geometry, and never reads them back from the shared header; the
 * other side's index is masked on every read.
 */
enum sroce_queue_dir {
	SROCE_Q_FROM_USER,
	SROCE_Q_TO_USER,
};

struct sroce_queue {
	struct sroce_ring	*ring;
	struct sroce_queue_buf	*buf;
	struct sroce_mmap	*mm;		/* NULL for kernel consumers */
	enum sroce_queue_dir	dir;
	u32			index_mask;
	u32			log2_elem_size;
	u32			index;		/* the index sroce owns */
};

int sroce_queue_init(struct sroce_queue *q, enum sroce_queue_dir dir,
		     unsigned int num_elem, size_t elem_size);
void sroce_queue_cleanup(struct sroce_queue *q);
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       struct sroce_mminfo *mi);
void sroce_queue_unexport(struct sroce_queue *q);

/*
 * The core's record of a mapping (struct rdma_umap_priv in the core's
 * private core_priv.h): allocated by the driver, initialised, listed and
 * freed by the core (rdma_umap_priv_init(), rdma_umap_close()). Its layout
 * has been these three members since 5.6; host/umap-priv checks it against
 * the BTF of each kernel we build for.
 */
struct rdma_umap_priv {
	struct vm_area_struct		*vma;
	struct list_head		list;
	struct rdma_user_mmap_entry	*entry;
};

void rdma_umap_priv_init(struct rdma_umap_priv *priv,
			 struct vm_area_struct *vma,
			 struct rdma_user_mmap_entry *entry);

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

static inline u32 sroce_queue_size(const struct sroce_queue *q)
{
	return q->index_mask;	/* usable slots: one always stays empty */
}

static inline size_t sroce_queue_elem_size(const struct sroce_queue *q)
{
	return (size_t)1 << q->log2_elem_size;
}

/* The bytes of all slots (a shadow copy of the ring has this size). */
static inline size_t sroce_queue_data_size(const struct sroce_queue *q)
{
	return (size_t)(q->index_mask + 1) << q->log2_elem_size;
}

/* Where slot @index lies in the data (or in a shadow copy of it). */
static inline size_t sroce_queue_offset(const struct sroce_queue *q, u32 index)
{
	return (size_t)(index & q->index_mask) << q->log2_elem_size;
}

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->buf->data + sroce_queue_offset(q, index);
}

/* The index after and the one before @index, wrapped. */
static inline u32 sroce_queue_next(const struct sroce_queue *q, u32 index)
{
	return (index + 1) & q->index_mask;
}

static inline u32 sroce_queue_prev(const struct sroce_queue *q, u32 index)
{
	return (index - 1) & q->index_mask;
}

/* The index the other side owns, read once, masked. */
static inline u32 sroce_queue_peer_index(const struct sroce_queue *q)
{
	const u32 *p = q->dir == SROCE_Q_FROM_USER ? &q->buf->producer_index :
						     &q->buf->consumer_index;

	return smp_load_acquire(p) & q->index_mask;
}

static inline void sroce_queue_publish(struct sroce_queue *q)
{
	u32 *p = q->dir == SROCE_Q_FROM_USER ? &q->buf->consumer_index :
					       &q->buf->producer_index;

	/* Orders our slot accesses before the index the peer acts on. */
	smp_store_release(p, q->index);
}

/* Entries waiting to be consumed, as seen from sroce's side. */
static inline u32 sroce_queue_count(const struct sroce_queue *q)
{
	u32 peer = sroce_queue_peer_index(q);

	if (q->dir == SROCE_Q_FROM_USER)
		return (peer - q->index) & q->index_mask;
	return (q->index - peer) & q->index_mask;
}

/* FROM_USER: the next slot to consume, or NULL when the ring is empty. */
static inline void *sroce_queue_head(const struct sroce_queue *q)
{
	if (sroce_queue_peer_index(q) == q->index)
		return NULL;
	return sroce_queue_slot(q, q->index);
}

/* TO_USER: true when no slot is free for the next entry. */
static inline bool sroce_queue_full(const struct sroce_queue *q)
{
	return ((q->index + 1) & q->index_mask) == sroce_queue_peer_index(q);
}

static inline void sroce_queue_advance(struct sroce_queue *q)
{
	q->index = (q->index + 1) & q->index_mask;
	sroce_queue_publish(q);
}

#endif /* SROCE_QUEUE_H */
