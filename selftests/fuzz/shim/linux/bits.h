/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in for the kernel's <linux/bits.h> (see types.h). */
#ifndef SROCE_SHIM_BITS_H
#define SROCE_SHIM_BITS_H

#define BIT(n)		(1UL << (n))

#endif
