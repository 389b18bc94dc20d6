/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_RESTRACK_H
#define SROCE_RESTRACK_H

/*
 * Driver details for "rdma resource show ... -dd" and its raw dump
 * (restrack.c).
 */
#include "sroce.h"

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int sroce_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int sroce_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int sroce_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq);
int sroce_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr);

#endif /* SROCE_RESTRACK_H */
