// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* sroce's fault injection points (fault.h), with their debugfs files. */
#include <linux/debugfs.h>

#include "fault.h"

DECLARE_FAULT_ATTR(sroce_fail_skb);
DECLARE_FAULT_ATTR(sroce_fail_ring);

static struct dentry *sroce_fault_dir[2];

void sroce_fault_init(void)
{
	/* Quiet by default: /proc/self/fail-nth fails these points too. */
	sroce_fail_skb.verbose = 0;
	sroce_fail_ring.verbose = 0;
	if (!IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))
		return;
	sroce_fault_dir[0] = fault_create_debugfs_attr("fail_sroce_skb", NULL,
						       &sroce_fail_skb);
	sroce_fault_dir[1] = fault_create_debugfs_attr("fail_sroce_ring", NULL,
						       &sroce_fail_ring);
}

void sroce_fault_exit(void)
{
	debugfs_remove_recursive(sroce_fault_dir[0]);
	debugfs_remove_recursive(sroce_fault_dir[1]);
}
