/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_FAULT_H
#define SROCE_FAULT_H

/*
 * sroce's own fault injection points, for kernels built with
 * CONFIG_FAULT_INJECTION (the test suite's debug kernel): each is a
 * fault_attr with its debugfs directory (probability, interval, times,
 * ...), as fail_make_request and failslab have.
 *
 *   /sys/kernel/debug/fail_sroce_skb	a packet's buffer (sroce_skb_alloc())
 *   /sys/kernel/debug/fail_sroce_ring	a ring (sroce_queue_init())
 *
 * Not fail_function, although those helpers are on its list too: on 6.1
 * its decision runs in the kprobe's int3 handler and takes the random
 * pool's lock there, which lockdep reports as NMI use of that lock.
 */
#include <linux/fault-inject.h>

#ifdef CONFIG_FAULT_INJECTION
extern struct fault_attr sroce_fail_skb;
extern struct fault_attr sroce_fail_ring;
#define sroce_should_fail(attr, size)	should_fail(&(attr), (size))
void sroce_fault_init(void);
void sroce_fault_exit(void);
#else
#define sroce_should_fail(attr, size)	false
static inline void sroce_fault_init(void) {}
static inline void sroce_fault_exit(void) {}
#endif

#endif /* SROCE_FAULT_H */
