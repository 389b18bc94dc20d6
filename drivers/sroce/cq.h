/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

/*
 * Completion queues (cq.c): their verbs, and posting a completion.
 *
 * This header does not include sroce.h: compat.h, which sroce.h includes
 * first, wraps sroce_create_cq() and sroce_resize_cq() for each kernel's
 * signature and includes this header for them.
 */
#include <rdma/ib_verbs.h>

struct sroce_cq;

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited);

#endif /* SROCE_CQ_H */
