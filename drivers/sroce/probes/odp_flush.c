// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * 6.16: the ODP capability bits for RDMA FLUSH and ATOMIC WRITE, which
 * ibv_query_device_ex() reports in rc_odp_caps.
 */
#include <rdma/ib_verbs.h>

int probe_odp_flush(void);
int probe_odp_flush(void)
{
	return IB_ODP_SUPPORT_FLUSH | IB_ODP_SUPPORT_ATOMIC_WRITE;
}
