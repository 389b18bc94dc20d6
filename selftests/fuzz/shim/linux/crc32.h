/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for the kernel's crc32_le(): the reflected CRC-32
 * (polynomial 0xEDB88320) with no initial or final inversion, bit by bit.
 */
#ifndef SROCE_SHIM_CRC32_H
#define SROCE_SHIM_CRC32_H

#include <linux/types.h>

static inline u32 crc32_le(u32 crc, const unsigned char *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

#endif
