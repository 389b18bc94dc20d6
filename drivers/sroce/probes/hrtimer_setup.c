// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.13: hrtimer_setup() sets the callback with the clock and mode. */
#include <linux/hrtimer.h>

static enum hrtimer_restart probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void probe_hrtimer(struct hrtimer *t);
void probe_hrtimer(struct hrtimer *t)
{
	hrtimer_setup(t, probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
}
