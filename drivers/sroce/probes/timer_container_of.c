// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.16: from_timer() became timer_container_of(). */
#include <linux/timer.h>

struct probe_s { struct timer_list t; };

struct probe_s *probe_timer(struct timer_list *t);
struct probe_s *probe_timer(struct timer_list *t)
{
	struct probe_s *s = timer_container_of(s, t, t);

	return s;
}
