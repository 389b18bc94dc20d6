// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * 6.2: RDMA FLUSH. The core knows the FLUSH access bits of an MR (and lets
 * ib_check_mr_access() pass them when the device advertises the matching
 * capability); before, it rejects them as unknown.
 */
#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

void probe_flush_access(void);
void probe_flush_access(void)
{
	BUILD_BUG_ON(!(IB_ACCESS_SUPPORTED & IB_ACCESS_FLUSH_GLOBAL));
	BUILD_BUG_ON(IB_ACCESS_FLUSH_GLOBAL != 1 << 8);
	BUILD_BUG_ON(IB_DEVICE_FLUSH_GLOBAL != 1ULL << 38);
}
