/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for the kernel's <linux/types.h>, so that the
 * driver's parse.c and wire.c build under the fuzzer: the uapi types,
 * plus the kernel's short names and annotations.
 */
#ifndef SROCE_SHIM_TYPES_H
#define SROCE_SHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#define __force
#define __packed	__attribute__((packed))

#endif
