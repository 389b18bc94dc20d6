// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CRC-32 of the ICRC (IEEE, reflected: crc32_le()), the other
 * per-byte cost of the wire path beside the payload copy. The kernel's
 * crc32_le() is a slice-by-8 table walk on 6.1 and 6.12 and a PCLMULQDQ
 * fold from 7.1 on, which is what a real CPU wants; but an emulator may
 * run that instruction bit by bit (QEMU 7.2's TCG does, 3 to 10 times
 * slower than the tables). So at load a slice-by-8 of our own is checked
 * against crc32_le() and both are timed, and the faster is used, as
 * copy.c picks the payload copy and the RAID6 and XOR code their
 * routines. dmesg says which ("sroce: ICRC: ...").
 */
#include <linux/crc32.h>
#include <linux/jump_label.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>

#include "sroce.h"

#define SROCE_CRC_POLY		0xedb88320	/* reflected 0x04c11db7 */

static u32 sroce_crc_tab[8][256] __ro_after_init;
static DEFINE_STATIC_KEY_FALSE(sroce_crc_own_key);

static void __init sroce_crc_tables(void)
{
	u32 i, k, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (c & 1 ? SROCE_CRC_POLY : 0);
		sroce_crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			sroce_crc_tab[k][i] = (sroce_crc_tab[k - 1][i] >> 8) ^
				sroce_crc_tab[0][sroce_crc_tab[k - 1][i] & 0xff];
}

static inline u32 sroce_crc_byte(u32 crc, u8 b)
{
	return sroce_crc_tab[0][(crc ^ b) & 0xff] ^ (crc >> 8);
}

/* Eight bytes a step: one table look-up per byte, no carry between them. */
static u32 sroce_crc32_slice8(u32 crc, const u8 *p, size_t len)
{
	const u32 (*t)[256] = sroce_crc_tab;
	u64 w;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, sizeof(w));	/* a plain load */
		w = le64_to_cpu((__force __le64)w) ^ crc;
		crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^
		      t[5][(w >> 16) & 0xff] ^ t[4][(w >> 24) & 0xff] ^
		      t[3][(w >> 32) & 0xff] ^ t[2][(w >> 40) & 0xff] ^
		      t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
	}
	while (len--)
		crc = sroce_crc_byte(crc, *p++);
	return crc;
}

u32 sroce_crc32(u32 crc, const void *p, size_t len)
{
	if (static_branch_unlikely(&sroce_crc_own_key))
		return sroce_crc32_slice8(crc, p, len);
	return crc32_le(crc, p, len);
}

#define SROCE_CRC_PROBE		(16 * 1024)

static u64 __init sroce_crc_time(u32 (*crc)(u32, const u8 *, size_t),
				 const u8 *buf, u32 *out)
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < 5; i++) {
		t = local_clock();
		*out = crc(~0, buf, SROCE_CRC_PROBE);
		t = local_clock() - t;
		best = min(best, t);
	}
	return best;
}

static u32 __init sroce_crc32_kernel(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

/*
 * Ours only if it agrees with crc32_le() (every length up to 64 at odd
 * offsets, and the whole probe) and is clearly faster: within noise,
 * crc32_le() stays.
 */
void __init sroce_crc_init(void)
{
	u32 a, b, i;
	u64 tk, to;
	u8 *buf;

	sroce_crc_tables();
	buf = kmalloc(SROCE_CRC_PROBE + 8, GFP_KERNEL);
	if (!buf)
		return;
	for (i = 0; i < SROCE_CRC_PROBE + 8; i++)
		buf[i] = i * 131 + (i >> 8);
	for (i = 0; i < 64 * 8; i++) {
		if (crc32_le(i, buf + i % 8, i / 8) !=
		    sroce_crc32_slice8(i, buf + i % 8, i / 8)) {
			pr_warn("sroce: ICRC: own CRC-32 differs from crc32_le(), not used\n");
			goto out;
		}
	}
	tk = sroce_crc_time(sroce_crc32_kernel, buf, &a);
	to = sroce_crc_time(sroce_crc32_slice8, buf, &b);
	if (a != b) {
		pr_warn("sroce: ICRC: own CRC-32 differs from crc32_le(), not used\n");
		goto out;
	}
	if (to * 3 < tk * 2)
		static_branch_enable(&sroce_crc_own_key);
	pr_info("sroce: ICRC: %s (16 KiB: crc32_le %llu ns, slice-by-8 %llu ns)\n",
		static_branch_unlikely(&sroce_crc_own_key) ? "slice-by-8" :
							     "crc32_le",
		tk, to);
out:
	kfree(buf);
}
