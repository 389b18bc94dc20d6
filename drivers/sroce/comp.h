/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COMP_H
#define SROCE_COMP_H

/*
 * The completer (comp.c): ACKs and responses matched to send WQEs, their
 * completions, and the retransmission timers.
 */
#include "sroce.h"

bool sroce_completer(struct sroce_qp *qp, int *budget);
void sroce_comp_timers_init(struct sroce_qp *qp);
unsigned long sroce_comp_probe_delay(struct sroce_qp *qp);
unsigned long sroce_comp_ack_timeout(struct sroce_qp *qp);
void sroce_comp_reset(struct sroce_qp *qp);
void sroce_comp_arm(struct sroce_qp *qp);
void sroce_comp_restart(struct sroce_qp *qp);
void sroce_send_wqe_complete(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			     enum ib_wc_status status);

#endif /* SROCE_COMP_H */
