/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for the kernel's <asm/byteorder.h>: the uapi one
 * (bitfield order, for struct iphdr) and the conversion helpers.
 */
#ifndef SROCE_SHIM_BYTEORDER_H
#define SROCE_SHIM_BYTEORDER_H

#include_next <asm/byteorder.h>
#include <endian.h>

#define be16_to_cpu(x)	be16toh(x)
#define be32_to_cpu(x)	be32toh(x)
#define cpu_to_be16(x)	htobe16(x)
#define cpu_to_be32(x)	htobe32(x)
#define be64_to_cpu(x)	be64toh(x)
#define cpu_to_be64(x)	htobe64(x)
#define cpu_to_le32(x)	htole32(x)

#endif
