/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_SCHED_H
#define SROCE_SCHED_H

/*
 * When and where a QP's work runs (sched.c): the run token, the worker,
 * doorbell and kicks that run a QP, and the verbs' hold on runs.
 */
#include "sroce.h"

/* In the QP's run, or in a verb that keeps runs off (sroce_qp_lock()). */
#define sroce_qp_assert_run(qp)	lockdep_assert(lock_is_held(&(qp)->run_map))
void sroce_qp_sched_init(struct sroce_qp *qp);
void sroce_qp_sched(struct sroce_qp *qp);
void sroce_qp_run_here(struct sroce_qp *qp);
void sroce_qp_run_doorbell(struct sroce_qp *qp);
void sroce_qp_kick(struct sroce_qp *qp, struct sroce_qp *dst, bool urgent);
void sroce_qp_lock(struct sroce_qp *qp);
void sroce_qp_unlock(struct sroce_qp *qp);
int sroce_wq_init(void);
void sroce_wq_exit(void);
void sroce_queue_work(struct work_struct *work);

#endif /* SROCE_SCHED_H */
