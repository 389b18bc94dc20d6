/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_LOCAL_H
#define SROCE_LOCAL_H

/*
 * Packets that never leave the device (local.c): chunks between QPs of
 * one device, whose payload is pages of registered memory (each
 * referenced) gathered into struct sroce_frags.
 */
#include "sroce.h"

#define SROCE_LOCAL_CHUNK	(64 * 1024)	/* payload bytes at most */
struct sroce_frags {
	u32	n;
	u32	bytes;
	struct {
		struct page	*page;
		u32		off;
		u32		len;
	} v[MAX_SKB_FRAGS];
};

bool sroce_av_local(struct sroce_qp *qp, const struct sroce_av *av);
u32 sroce_frags_from_sge(struct sroce_qp *qp, struct sroce_frags *f,
			 const struct sroce_sge *sge, u32 num_sge, u32 offset,
			 u32 want);
u32 sroce_frags_from_mr(struct sroce_qp *qp, struct sroce_frags *f,
			struct sroce_mr *mr, u64 iova, u32 want);
void sroce_frags_attach(struct sk_buff *skb, struct sroce_frags *f);
void sroce_frags_release(struct sroce_frags *f);

#endif /* SROCE_LOCAL_H */
