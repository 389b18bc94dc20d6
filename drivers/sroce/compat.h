/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

/*
 * Every difference between the kernels sroce builds on lives here, keyed on
 * feature probes, never on version numbers.
 */

#endif /* SROCE_COMPAT_H */
