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
 * The index protocol. A ring has one producer and one consumer, and each
 * owns one index of the header, which only it writes: the producer
 * producer_index, the slot it fills next; the consumer consumer_index, the
 * slot it reads next. The entries are the slots from consumer_index up to
 * producer_index; one slot always stays free, so equal indices mean empty
 * and producer + 1 == consumer full. Each side reads the other's index with
 * smp_load_acquire() before it touches the slots that index hands over, and
 * writes its own with smp_store_release() once it is done with the slots it
 * hands back (an entry written, or read).
 *
 * sroce is one side of every ring, and dir says which: it consumes
 * SROCE_Q_FROM_USER rings (SQ, RQ, SRQ) and produces into SROCE_Q_TO_USER
 * rings (CQ). It keeps the index it owns in q->index and the geometry in
 * q->index_mask and q->log2_elem_size, and never reads them back from the
 * header. The other side, the peer, is user space for a user object, which
 * may write any value there: sroce_queue_peer_index() reads the peer's index
 * once and masks it, so it names a slot of the ring and a count made from it
 * is at most sroce_queue_size(). Each helper below reads it once.
 *
 * sroce's side:
 *   sroce_queue_count()         entries produced and not consumed yet
 *   sroce_queue_consume_slot()  FROM_USER: the entry to consume, or NULL
 *   sroce_queue_produce_slot()  TO_USER: the slot to fill, or NULL (full)
 *   sroce_queue_advance()       that entry consumed, that slot produced
 *   sroce_queue_consume_all()   FROM_USER: every entry consumed, unread
 *
 * A kernel object's rings are never mapped, and the kernel verbs are the
 * peer, in user space's place. They keep their index in the header, which
 * nothing else writes, and call under the object's lock (the QP's sq_lock,
 * the RQ's or SRQ's lock, the CQ's; sroce_queue_poll_slot() compares with
 * sroce's copy of its producer index, which that lock protects):
 *   sroce_queue_post_slot()     FROM_USER: the slot for a WQE, or NULL (full)
 *   sroce_queue_post_advance()  that WQE posted
 *   sroce_queue_poll_slot()     TO_USER: the entry to poll, or NULL (empty)
 *   sroce_queue_poll_advance()  that entry polled
 *
 * sroce_queue_resize() moves the entries of a CQ or SRQ into a new ring;
 * the new ring's consumer index is 0 and its producer index their number.
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
int sroce_queue_resize(struct sroce_queue *q, spinlock_t *lock,
		       unsigned int num_elem, struct ib_ucontext *uctx,
		       struct sroce_mminfo *mi, struct sroce_queue *old);
int sroce_queue_resize_end(struct sroce_queue *q, struct sroce_queue *old,
			   int err);

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

/* The index the peer owns, read once and masked: whatever the peer wrote. */
static inline u32 sroce_queue_peer_index(const struct sroce_queue *q)
{
	const u32 *p = q->dir == SROCE_Q_FROM_USER ? &q->buf->producer_index :
						     &q->buf->consumer_index;

	/* Pairs with the peer's release: the slots it hands over are ready. */
	return smp_load_acquire(p) & q->index_mask;
}

static inline void sroce_queue_publish(struct sroce_queue *q)
{
	u32 *p = q->dir == SROCE_Q_FROM_USER ? &q->buf->consumer_index :
					       &q->buf->producer_index;

	/* Orders our slot accesses before the index the peer acts on. */
	smp_store_release(p, q->index);
}

/* Entries produced and not consumed, given the peer's index as read. */
static inline u32 sroce_queue_count_at(const struct sroce_queue *q, u32 peer)
{
	if (q->dir == SROCE_Q_FROM_USER)
		return (peer - q->index) & q->index_mask;
	return (q->index - peer) & q->index_mask;
}

static inline u32 sroce_queue_count(const struct sroce_queue *q)
{
	return sroce_queue_count_at(q, sroce_queue_peer_index(q));
}

/* FROM_USER: the entry to consume next, or NULL when the ring is empty. */
static inline void *sroce_queue_consume_slot(const struct sroce_queue *q)
{
	if (sroce_queue_peer_index(q) == q->index)
		return NULL;
	return sroce_queue_slot(q, q->index);
}

/* TO_USER: the slot to fill next, or NULL when the ring is full. */
static inline void *sroce_queue_produce_slot(const struct sroce_queue *q)
{
	if (sroce_queue_next(q, q->index) == sroce_queue_peer_index(q))
		return NULL;
	return sroce_queue_slot(q, q->index);
}

/* The entry at our index consumed (FROM_USER) or produced (TO_USER). */
static inline void sroce_queue_advance(struct sroce_queue *q)
{
	q->index = sroce_queue_next(q, q->index);
	sroce_queue_publish(q);
}

/* FROM_USER: every entry produced so far consumed, unread. */
static inline void sroce_queue_consume_all(struct sroce_queue *q)
{
	q->index = sroce_queue_peer_index(q);
	sroce_queue_publish(q);
}

/* FROM_USER, kernel verbs: the slot for the next WQE, or NULL when full. */
static inline void *sroce_queue_post_slot(const struct sroce_queue *q)
{
	u32 prod = q->buf->producer_index & q->index_mask;
	/* Pairs with sroce's release: the slots it consumed are free. */
	u32 cons = smp_load_acquire(&q->buf->consumer_index) & q->index_mask;

	if (sroce_queue_next(q, prod) == cons)
		return NULL;
	return sroce_queue_slot(q, prod);
}

static inline void sroce_queue_post_advance(struct sroce_queue *q)
{
	u32 prod = q->buf->producer_index;

	/* The WQE before its index: sroce reads the index with acquire. */
	smp_store_release(&q->buf->producer_index, sroce_queue_next(q, prod));
}

/*
 * TO_USER, kernel verbs: the entry to poll next, or NULL when the ring is
 * empty. It compares with sroce's own producer index, so the caller holds
 * the lock sroce produces under (the CQ's).
 */
static inline void *sroce_queue_poll_slot(const struct sroce_queue *q)
{
	u32 cons = q->buf->consumer_index & q->index_mask;

	if (cons == q->index)
		return NULL;
	return sroce_queue_slot(q, cons);
}

static inline void sroce_queue_poll_advance(struct sroce_queue *q)
{
	u32 cons = q->buf->consumer_index;

	/* The entry read before its slot goes back to sroce. */
	smp_store_release(&q->buf->consumer_index, sroce_queue_next(q, cons));
}

#endif /* SROCE_QUEUE_H */
