// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 6.2: del_timer{,_sync}() became timer_delete{,_sync}() (some 6.1 stables have both). */
#include <linux/timer.h>

void probe_timer_delete(struct timer_list *t);
void probe_timer_delete(struct timer_list *t)
{
	timer_delete(t);
	timer_delete_sync(t);
}
