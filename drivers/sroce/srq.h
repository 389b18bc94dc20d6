/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

/*
 * Shared receive queues (srq.c): their verbs, and posting receive WQEs
 * into a ring for kernel consumers.
 */
#include "sroce.h"

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int sroce_post_recv_ring(struct sroce_queue *q, spinlock_t *lock,
			 u32 max_sge, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr);

#endif /* SROCE_SRQ_H */
