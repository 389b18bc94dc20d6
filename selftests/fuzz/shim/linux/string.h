/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in for the kernel's <linux/string.h> (see types.h). */
#include <string.h>
