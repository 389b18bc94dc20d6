/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

/*
 * Protection domains, address handles and address vectors, and the
 * device's object tables (verbs.c).
 */
#include "sroce.h"

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_av_from_attr(struct sroce_dev *sdev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr);
void sroce_verbs_init(struct sroce_dev *sdev);
void sroce_verbs_cleanup(struct sroce_dev *sdev);

#endif /* SROCE_VERBS_H */
