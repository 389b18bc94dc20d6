/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_MR_H
#define SROCE_MR_H

/*
 * Memory regions and windows (mr.c): their verbs, their lookup by key and
 * the work requests that act on them. Data movement to and from them is
 * in copy.c.
 *
 * This header does not include sroce.h: compat.h, which sroce.h includes
 * first, wraps sroce_reg_user_mr() for each kernel's signature and
 * includes this header for it.
 */
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_mr;
struct sroce_qp;
struct sroce_send_wqe;
struct sroce_sge;

/* Data movement */

/* Remote keys, and the send work requests on MRs and MWs */
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, u64 va,
				u32 len, int access);
bool sroce_rkey_allows(struct sroce_qp *qp, u32 rkey, int access);
bool sroce_mr_covers(struct sroce_mr *mr, u64 va, u32 len);
enum ib_wc_status sroce_bind_mw(struct sroce_qp *qp,
				const struct sroce_send_wqe *wqe);
int sroce_invalidate(struct sroce_qp *qp, u32 key, bool remote);
enum ib_wc_status sroce_reg_mr(struct sroce_qp *qp,
			       const struct sroce_send_wqe *wqe);

/* Verbs */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key,
			      struct ib_pd *pd, int access);
void sroce_mr_put(struct sroce_mr *mr);

#endif /* SROCE_MR_H */
