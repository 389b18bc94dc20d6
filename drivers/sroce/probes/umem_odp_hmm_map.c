// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.15: an ODP umem keeps its pages in an hmm_dma_map (map.pfn_list). */
#include <rdma/ib_umem_odp.h>

unsigned long *probe_odp_pfns(struct ib_umem_odp *odp);
unsigned long *probe_odp_pfns(struct ib_umem_odp *odp)
{
	return odp->map.pfn_list;
}
