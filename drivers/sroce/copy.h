/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COPY_H
#define SROCE_COPY_H

/*
 * Data movement between packets, buffers and registered memory (copy.c).
 */
#include "sroce.h"

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  bool to_mr);
int sroce_mr_store64(struct sroce_mr *mr, u64 iova, u64 val);
int sroce_mr_hold(struct sroce_mr *mr, u64 iova, u32 len);
void sroce_mr_unhold(struct sroce_mr *mr, u64 iova);
int sroce_mr_copy_held(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		       bool to_mr);
int sroce_sge_copy(struct sroce_qp *qp, const struct sroce_sge *sge,
		   u32 num_sge, u32 offset, void *buf, u32 len, bool to_sge);
int sroce_payload_to_mr(struct sk_buff *skb, struct sroce_mr *mr, u64 iova);
int sroce_payload_to_sge(struct sk_buff *skb, struct sroce_qp *qp,
			 const struct sroce_sge *sge, u32 num_sge, u32 offset);

#endif /* SROCE_COPY_H */
