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
void sroce_odp_caps(struct ib_device_attr *a);

#endif /* SROCE_ODP_H */
