/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing send WQEs into a QP's ring behind the provider's back, as the
 * hostile tests do, and for work requests librxe 44 has no verb for
 * (RDMA FLUSH): find the ring among the process's uverbs mappings, fill
 * the next slot, move the producer index, ring the doorbell (the post_send
 * command, as the provider does). Include after common.h, with
 * rdma/ib_user_verbs.h and the sroce uapi header.
 */
#ifndef SROCE_TEST_RING_H
#define SROCE_TEST_RING_H

#include <stdlib.h>
#include <unistd.h>

/*
 * The largest and the second largest uverbs mappings made since @before
 * (uverbs_maps() then): the rings of a QP just created.
 */
static void __attribute__((unused))
new_rings(const char *before, void **big, void **small)
{
	char *maps = strdup(uverbs_maps()), *line, *save = NULL;
	unsigned long s, e, best = 0, blen = 0, next = 0, nlen = 0;
	char key[64];

	for (line = strtok_r(maps, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		snprintf(key, sizeof(key), "%lx-%lx", s, e);
		if (strstr(before, key))
			continue;
		if (e - s > blen) {
			next = best;
			nlen = blen;
			best = s;
			blen = e - s;
		} else if (e - s > nlen) {
			next = s;
			nlen = e - s;
		}
	}
	free(maps);
	*big = (void *)best;
	if (small)
		*small = (void *)next;
}

static __attribute__((unused)) void *new_sq_ring(const char *before)
{
	void *sq;

	new_rings(before, &sq, NULL);
	return sq;
}

static int __attribute__((unused)) doorbell(struct ibv_qp *qp)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} c = {};
	struct ib_uverbs_post_send_resp resp;

	c.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.qp_handle = qp->handle;
	c.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	return write(qp->context->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

/*
 * The next free slot of send ring @sq, zeroed; ring_post() hands it to the
 * kernel. The provider keeps its producer index in the ring's header only,
 * so verbs may post before and after.
 */
static __attribute__((unused)) struct sroce_send_wqe *
ring_slot(struct sroce_queue_buf *sq)
{
	uint32_t p = __atomic_load_n(&sq->producer_index, __ATOMIC_ACQUIRE);
	struct sroce_send_wqe *w = (struct sroce_send_wqe *)
		(sq->data + ((size_t)(p & sq->index_mask) << sq->log2_elem_size));

	memset(w, 0, 1u << sq->log2_elem_size);
	return w;
}

static int __attribute__((unused))
ring_post(struct ibv_qp *qp, struct sroce_queue_buf *sq)
{
	uint32_t p = __atomic_load_n(&sq->producer_index, __ATOMIC_ACQUIRE);

	__atomic_store_n(&sq->producer_index, (p + 1) & sq->index_mask,
			 __ATOMIC_RELEASE);
	return doorbell(qp);
}

/* RDMA FLUSH as the user ABI numbers it; libibverbs 44 has no names. */
#define FLUSH_GLOBAL_ACCESS	(1 << 8)	/* IB_UVERBS_ACCESS_FLUSH_GLOBAL */
#define WR_FLUSH		14		/* IB_UVERBS_WR_FLUSH */
#define WC_FLUSH		8		/* IB_UVERBS_WC_FLUSH */

/*
 * Post an RDMA FLUSH (signaled, @wr_id) of @len bytes at @addr under
 * @rkey, placement @type, selectivity @level. The range goes in iova and
 * dma (rdma_rxe sends dma.resid), and in wr.flush too.
 */
static int __attribute__((unused))
ring_post_flush(struct ibv_qp *qp, struct sroce_queue_buf *sq, uint64_t wr_id,
		uint64_t addr, uint32_t len, uint32_t rkey, int type, int level)
{
	struct sroce_send_wqe *f = ring_slot(sq);

	f->wr.wr_id = wr_id;
	f->wr.opcode = WR_FLUSH;
	f->wr.send_flags = IBV_SEND_SIGNALED;
	f->wr.wr.flush.remote_addr = f->iova = addr;
	f->wr.wr.flush.length = len;
	f->dma.length = f->dma.resid = len;
	f->wr.wr.flush.rkey = rkey;
	f->wr.wr.flush.type = type;
	f->wr.wr.flush.level = level;
	return ring_post(qp, sq);
}

#endif /* SROCE_TEST_RING_H */
