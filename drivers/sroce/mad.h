/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_MAD_H
#define SROCE_MAD_H

/*
 * PerfMgmt MADs answered on the GSI: the port counters for perfquery
 * (mad.c).
 */
#include "sroce.h"

int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

#endif /* SROCE_MAD_H */
