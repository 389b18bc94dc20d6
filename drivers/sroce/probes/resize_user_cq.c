// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 7.1: resize_cq became resize_user_cq, with an unsigned CQE count. */
#include <rdma/ib_verbs.h>

static int probe_resize(struct ib_cq *cq, unsigned int cqe, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .resize_user_cq = probe_resize };
