/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

/*
 * Every difference between the kernels sroce builds on lives here, keyed on
 * feature probes, never on version numbers.
 */

#include <linux/timer.h>

/* timer_container_of() replaced from_timer() (6.16); both are macros. */
#ifndef timer_container_of
#define timer_container_of(var, t, field) from_timer(var, t, field)
#endif

#endif /* SROCE_COMPAT_H */
