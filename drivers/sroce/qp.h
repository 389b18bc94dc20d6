/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_QP_H
#define SROCE_QP_H

/*
 * Queue pairs (qp.c): their verbs, lookup by QPN, and the state changes
 * other files make.
 */
#include "sroce.h"

void sroce_qp_flush(struct sroce_qp *qp);
void sroce_qp_error(struct sroce_qp *qp, enum ib_event_type why);
void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type);
void sroce_qp_put(struct sroce_qp *qp);
bool sroce_qp_is_ud(struct sroce_qp *qp);
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);

/* Verbs */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

#endif /* SROCE_QP_H */
