/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_ODP_H
#define SROCE_ODP_H

/*
 * On-demand paging (odp.c): user MRs whose pages are not pinned.
 */
#include "sroce.h"

struct ib_umem *sroce_odp_get(struct sroce_mr *mr, struct ib_pd *ibpd,
			      u64 start, int access);
int sroce_odp_hold(struct sroce_mr *mr, u64 iova, u32 len, bool write);
void sroce_odp_unhold(struct sroce_mr *mr, u64 iova);
void sroce_odp_release(struct sroce_mr *mr);
void sroce_odp_copy_held(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
			 bool to_mr);
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   bool to_mr);
int sroce_odp_store64(struct sroce_mr *mr, u64 iova, u64 val);
int sroce_odp_prefetch(struct sroce_mr *mr, u64 iova, u32 len, bool write,
		       bool fault);
void sroce_odp_caps(struct ib_device_attr *a);

/* advise_mr (advise.c) */
int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);

#endif /* SROCE_ODP_H */
