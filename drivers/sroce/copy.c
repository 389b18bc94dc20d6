// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The copy of payload bytes between packets and memory, the one per-byte
 * cost of the data path left on the loopback branch. memcpy() is right on
 * hardware; under emulation it need not be: QEMU's TCG runs the guest's
 * "rep movsb" (6.1's memcpy on a CPU with ERMS) a byte at a time, 5 to 10
 * times slower than a loop of 8-byte moves. So at load both are timed on
 * this machine and the faster one is used, as the RAID6 and XOR code
 * choose their routines: on real CPUs that is memcpy().
 */
#include <linux/jump_label.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "sroce.h"

static DEFINE_STATIC_KEY_FALSE(sroce_copy_words_key);

/* One unaligned 8-byte move: a constant-size builtin is a plain mov. */
static __always_inline void sroce_move8(u8 *d, const u8 *s)
{
	u64 w;

	__builtin_memcpy(&w, s, sizeof(w));
	__builtin_memcpy(d, &w, sizeof(w));
}

/*
 * 8-byte moves, four at a time; the barrier() keeps the compiler from
 * turning the loop back into a call to memcpy.
 */
static void sroce_copy_words(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	for (; n >= 32; n -= 32, d += 32, s += 32) {
		sroce_move8(d, s);
		sroce_move8(d + 8, s + 8);
		sroce_move8(d + 16, s + 16);
		sroce_move8(d + 24, s + 24);
		barrier();
	}
	for (; n >= 8; n -= 8, d += 8, s += 8) {
		sroce_move8(d, s);
		barrier();
	}
	while (n--)
		*d++ = *s++;
}

void sroce_copy(void *dst, const void *src, size_t n)
{
	if (static_branch_unlikely(&sroce_copy_words_key))
		sroce_copy_words(dst, src, n);
	else
		memcpy(dst, src, n);
}

#define SROCE_COPY_PROBE	(64 * 1024)

/* The best of a few runs of @copy over @len bytes, in ns. */
static u64 sroce_copy_time(void (*copy)(void *, const void *, size_t),
			   void *dst, const void *src, size_t len)
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < 5; i++) {
		t = local_clock();
		copy(dst, src, len);
		t = local_clock() - t;
		best = min(best, t);
	}
	return best;
}

static void sroce_memcpy(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

/* Time both copies at load and keep the faster; memcpy if in doubt. */
void sroce_copy_init(void)
{
	u64 tm, tw;
	u8 *buf;

	buf = kmalloc(2 * SROCE_COPY_PROBE, GFP_KERNEL);
	if (!buf)
		return;
	memset(buf, 0x5a, 2 * SROCE_COPY_PROBE);
	tm = sroce_copy_time(sroce_memcpy, buf, buf + SROCE_COPY_PROBE,
			     SROCE_COPY_PROBE);
	tw = sroce_copy_time(sroce_copy_words, buf, buf + SROCE_COPY_PROBE,
			     SROCE_COPY_PROBE);
	kfree(buf);
	/* Only a clear win: within noise, memcpy stays. */
	if (tw * 2 < tm)
		static_branch_enable(&sroce_copy_words_key);
	pr_info("sroce: payload copy: %s (64 KiB: memcpy %llu ns, 8-byte loop %llu ns)\n",
		static_branch_unlikely(&sroce_copy_words_key) ? "8-byte loop" :
								 "memcpy",
		tm, tw);
}
