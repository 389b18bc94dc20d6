// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rings and their mapping into user space.
 *
 * A ring is one vmalloc buffer, charged to the memory cgroup of the
 * process that creates it. For user objects it is exported through an
 * rdma_user_mmap_entry whose offset is the cookie returned in struct
 * sroce_mminfo. A cookie maps once: a second mmap of it fails.
 *
 * A mapping keeps the core's vm_ops (no sroce code runs for it after the
 * mmap call, so the module may go while it exists) and is recorded with
 * the core: it holds a reference on its entry, and through it on the
 * buffer, so the buffer outlives its object while it is mapped.
 *
 * Its PTEs hold page references too (vm_insert_page(), not PFNs), because
 * the core does not see every mapping: one made by fork() or mremap()
 * while the device goes away (disassociate) is left untracked, with its
 * PTEs copied or moved after the core gave up on it. With references, such
 * a mapping keeps the ring's pages to itself until it is unmapped, and can
 * never reach a page the kernel freed. The price: where the core's zap
 * acts only on VM_PFNMAP mappings (6.1, 6.12), a process still sees its
 * stale rings after disassociate, which nothing else uses any more; every
 * call into the device fails with EIO, as the core promises.
 */
#include <linux/error-injection.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "fault.h"
#include "sroce.h"
#include "queue.h"

#define SROCE_MIN_ELEM_SIZE	64

static void sroce_ring_release(struct kref *ref)
{
	struct sroce_ring *ring = container_of(ref, struct sroce_ring, ref);

	vfree(ring->buf);
	kfree(ring);
}

static void sroce_ring_put(struct sroce_ring *ring)
{
	kref_put(&ring->ref, sroce_ring_release);
}

int sroce_queue_init(struct sroce_queue *q, enum sroce_queue_dir dir,
		     unsigned int num_elem, size_t elem_size)
{
	unsigned int slots;
	struct sroce_ring *ring;
	size_t size;

	/* Callers bound num_elem by the device limits (at most 2^15). */
	if (num_elem > (1U << 16))
		return -EINVAL;
	slots = roundup_pow_of_two(num_elem + 1);
	elem_size = roundup_pow_of_two(max_t(size_t, elem_size,
					     SROCE_MIN_ELEM_SIZE));
	size = PAGE_ALIGN(sizeof(struct sroce_queue_buf) + slots * elem_size);
	if (sroce_should_fail(sroce_fail_ring, size))
		return -ENOMEM;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return -ENOMEM;
	/*
	 * Zeroed: the whole buffer may be mapped into user space. A memory
	 * cgroup at its limit fails the create with ENOMEM rather than
	 * calling its OOM killer (__GFP_RETRY_MAYFAIL).
	 */
	ring->buf = __vmalloc(size, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
			      __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!ring->buf) {
		kfree(ring);
		return -ENOMEM;
	}
	kref_init(&ring->ref);
	ring->size = size;

	q->ring = ring;
	q->buf = ring->buf;
	q->mm = NULL;
	q->dir = dir;
	q->index_mask = slots - 1;
	q->log2_elem_size = order_base_2(elem_size);
	q->index = 0;
	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;
	return 0;
}

ALLOW_ERROR_INJECTION(sroce_queue_init, ERRNO);

/* Export the ring to @uctx; fill @mi with the cookie and size to map. */
int sroce_queue_export(struct sroce_queue *q, struct ib_ucontext *uctx,
		       struct sroce_mminfo *mi)
{
	struct sroce_mmap *mm;
	int err;

	mm = kzalloc(sizeof(*mm), GFP_KERNEL);
	if (!mm)
		return -ENOMEM;
	kref_get(&q->ring->ref);
	mm->ring = q->ring;

	err = rdma_user_mmap_entry_insert(uctx, &mm->rdma, q->ring->size);
	if (err) {
		sroce_ring_put(mm->ring);
		kfree(mm);
		return err;
	}
	q->mm = mm;
	mi->offset = rdma_user_mmap_get_offset(&mm->rdma);
	mi->size = q->ring->size;
	mi->pad = 0;
	return 0;
}

ALLOW_ERROR_INJECTION(sroce_queue_export, ERRNO);

/* Withdraw the cookie; existing mappings stay valid. */
void sroce_queue_unexport(struct sroce_queue *q)
{
	if (q->mm)
		rdma_user_mmap_entry_remove(&q->mm->rdma);
	q->mm = NULL;
}

void sroce_queue_cleanup(struct sroce_queue *q)
{
	sroce_queue_unexport(q);
	if (q->ring)
		sroce_ring_put(q->ring);
	q->ring = NULL;
	q->buf = NULL;
}

/*
 * Copy the entries of @oq, produced and not consumed, to the first slots
 * of @nq, an empty ring of the same direction and slot size, and set the
 * producer index of @nq after them. The peer's index in @oq is read once.
 * -EINVAL, with nothing changed, when they do not fit.
 */
static int sroce_queue_move(struct sroce_queue *nq,
			    const struct sroce_queue *oq)
{
	u32 peer = sroce_queue_peer_index(oq);
	u32 n = sroce_queue_count_at(oq, peer);
	u32 first = oq->dir == SROCE_Q_FROM_USER ? oq->index : peer;
	u32 i;

	if (n > sroce_queue_size(nq))
		return -EINVAL;
	for (i = 0; i < n; i++)
		memcpy(sroce_queue_slot(nq, i), sroce_queue_slot(oq, first + i),
		       sroce_queue_elem_size(oq));
	if (nq->dir == SROCE_Q_TO_USER)
		nq->index = n;
	/* The entries before the index that hands them over. */
	smp_store_release(&nq->buf->producer_index, n);
	return 0;
}

/* Under @lock: move the entries of @q into @nq, and swap the two. */
static int sroce_queue_swap(struct sroce_queue *q, struct sroce_queue *nq,
			    spinlock_t *lock)
{
	int err;

	spin_lock_irq(lock);
	err = sroce_queue_move(nq, q);
	if (!err)
		swap(*q, *nq);
	spin_unlock_irq(lock);
	return err;
}

/*
 * Replace the ring of @q by one of @num_elem slots, of the same direction
 * and slot size, holding the entries not consumed yet, and export it to
 * @uctx (kernel objects: NULL), filling @mi. The entries move under @lock,
 * the object's lock under which everyone else reaches the ring (the CQ's,
 * the SRQ's). The old ring goes to @old: the caller tells the process about
 * the new one and then calls sroce_queue_resize_end(). The caller
 * serializes the resizes of one object (uverbs only read-locks it).
 * -EINVAL if the entries do not fit; @q is unchanged on any error.
 */
int sroce_queue_resize(struct sroce_queue *q, spinlock_t *lock,
		       unsigned int num_elem, struct ib_ucontext *uctx,
		       struct sroce_mminfo *mi, struct sroce_queue *old)
{
	struct sroce_queue nq;
	int err;

	err = sroce_queue_init(&nq, q->dir, num_elem, sroce_queue_elem_size(q));
	if (err)
		return err;
	if (uctx)
		err = sroce_queue_export(&nq, uctx, mi);
	if (!err)
		err = sroce_queue_swap(q, &nq, lock);
	if (err)
		sroce_queue_cleanup(&nq);
	else
		*old = nq;
	return err;
}

/*
 * The process was told about the new ring, or @err says it could not be.
 * Too late to go back then: the entries moved, and the process lost the
 * ring as if it had unmapped it; nothing leaks. Resizes being serialized,
 * @q is still the new ring: withdraw exactly its cookie. Frees @old (its
 * mappings keep its buffer). Returns @err.
 */
int sroce_queue_resize_end(struct sroce_queue *q, struct sroce_queue *old,
			   int err)
{
	if (err)
		sroce_queue_unexport(q);
	sroce_queue_cleanup(old);
	return err;
}

void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap *mm = container_of(entry, struct sroce_mmap, rdma);

	sroce_ring_put(mm->ring);
	kfree(mm);
}

/*
 * Map the ring's pages with references (see the top of this file). Not
 * remap_vmalloc_range(): that wants a vmalloc_user() buffer, which cannot
 * be charged to a memory cgroup on the kernels we build for.
 */
static int sroce_map_ring(struct vm_area_struct *vma, struct sroce_ring *ring)
{
	unsigned long off;
	int err;

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	for (off = 0; off < ring->size; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((char *)ring->buf + off));
		if (err)
			return err;
	}
	return 0;
}

int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct rdma_umap_priv *priv;
	struct sroce_mmap *mm;
	int err;

	/* A private (copy-on-write) mapping would not be shared with us. */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	/* Also checks that the length is the exported size. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	mm = container_of(entry, struct sroce_mmap, rdma);

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv) {
		err = -ENOMEM;
		goto out;
	}
	if (test_and_set_bit(0, &mm->used)) {
		err = -EBUSY;
		goto out;
	}
	err = sroce_map_ring(vma, mm->ring);
	if (err)
		goto out;
	/* Takes its own reference on the entry; the core frees priv. */
	rdma_umap_priv_init(priv, vma, entry);
	priv = NULL;
out:
	kfree(priv);
	rdma_user_mmap_entry_put(entry);
	return err;
}

ALLOW_ERROR_INJECTION(sroce_mmap, ERRNO);
