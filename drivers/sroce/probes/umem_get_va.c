// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 7.2: ib_umem_get() was renamed ib_umem_get_va(); a function, not a macro. */
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>

struct ib_umem *probe_umem(struct ib_device *dev);
struct ib_umem *probe_umem(struct ib_device *dev)
{
	return ib_umem_get_va(dev, 0, 0, 0);
}
