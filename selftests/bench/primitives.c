// SPDX-License-Identifier: GPL-2.0
/*
 * The per-byte primitives of sroce's data path, timed natively on the host
 * CPU: payload copies and the CRC-32 of the RoCEv2 ICRC. The VM benchmark
 * (make bench) runs under TCG, where an emulated PCLMULQDQ or AVX2 load
 * costs nothing like it does on silicon; this says what is fast on the
 * real CPU, so that the kernel picks it (issue 12).
 *
 *   primitives [-c] [-t MS] [-r RUNS] [-m MIB]
 *	-c  the self-test only
 *	-t  CPU time per measurement in ms (default 8)
 *	-r  runs per measurement, the median is printed (default 5)
 *	-m  size in MiB of each out-of-cache pool (default 4x the LLC)
 *
 * Built by `make bench-host` with -O2 -march=x86-64-v2 -mpclmul -msse4.1;
 * the AVX2 copy has its own target attribute and runs only where
 * __builtin_cpu_supports("avx2") says so, PCLMUL variants only where the
 * CPU has PCLMULQDQ, so the binary runs on any x86-64-v2 CPU.
 *
 * The CRC is the kernel's crc32_le(): reflected CRC-32, polynomial
 * 0x04C11DB7 (IEEE 802.3), no inversion inside. drivers/sroce/parse.c
 * seeds it with SROCE_ICRC_SEED (the state after eight 0xff bytes, from
 * ~0) and inverts the result: the same function with a different seed.
 * Every variant is checked against a bytewise reference at startup, and
 * the program aborts on any difference.
 */
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if !defined(__x86_64__) || !defined(__PCLMUL__) || !defined(__SSE4_1__)
#error "build for x86-64 with -mpclmul -msse4.1 (make bench-host)"
#endif

#ifndef PRIM_CFLAGS
#define PRIM_CFLAGS "(not given)"
#endif

typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef __always_inline		/* glibc's sys/cdefs.h has one */
#define __always_inline	inline __attribute__((always_inline))
#endif

#define KIB		1024UL
#define MIB		(1024 * KIB)
#define MAX_RUNS	15

/* The polynomial, plain (x^32 implied) and bit-reflected. */
#define CRC32_POLY	0x04c11db7U
#define CRC32_POLY_REFL	0xedb88320U
/* parse.c's seed: crc32_le(~0, eight 0xff bytes). Checked below. */
#define SROCE_ICRC_SEED	0xdebb20e3U

/* ---- copies ---------------------------------------------------------- */

/* What the kernel's memcpy() is on CPUs with FSRM or ERMS. */
static void *copy_rep_movsb(void *dst, const void *src, size_t len)
{
	void *ret = dst;

	asm volatile("rep movsb"
		     : "+D" (dst), "+S" (src), "+c" (len) : : "memory");
	return ret;
}

/* A plain loop of 8-byte words, as generic C code would copy. */
static void *copy_words(void *dst, const void *src, size_t len)
{
	const u8 *s = src;
	u8 *d = dst;
	u64 w;

	for (; len >= 8; len -= 8, s += 8, d += 8) {
		memcpy(&w, s, 8);
		/* keep gcc from making this memcpy() or vectorizing it */
		asm("" : "+r" (w));
		memcpy(d, &w, 8);
	}
	for (; len; len--) {
		u8 b = *s++;

		asm("" : "+r" (b));
		*d++ = b;
	}
	return dst;
}

/*
 * 32-byte AVX2 loads and stores, four per iteration so that loads of the
 * next line overlap stores of the last; the tail is one overlapping
 * 32-byte move rather than a byte loop.
 */
__attribute__((target("avx2")))
static void *copy_avx2(void *dst, const void *src, size_t len)
{
	const u8 *s = src;
	u8 *d = dst;

	if (len < 32)
		return copy_words(dst, src, len);
	for (; len >= 128; len -= 128, s += 128, d += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_storeu_si256((__m256i *)d, a);
		_mm256_storeu_si256((__m256i *)(d + 32), b);
		_mm256_storeu_si256((__m256i *)(d + 64), c);
		_mm256_storeu_si256((__m256i *)(d + 96), e);
	}
	for (; len >= 32; len -= 32, s += 32, d += 32)
		_mm256_storeu_si256((__m256i *)d,
				    _mm256_loadu_si256((const __m256i *)s));
	if (len)	/* at least 32 bytes were copied: back up and overlap */
		_mm256_storeu_si256((__m256i *)(d + len - 32),
			_mm256_loadu_si256((const __m256i *)(s + len - 32)));
	return dst;
}

/* ---- CRC-32, tables -------------------------------------------------- */

/* crc_tab[0]: one byte; crc_tab[k]: one byte followed by k zero bytes. */
static u32 crc_tab[8][256];

/* The definition, one bit at a time: the reference for the tables. */
static u32 crc32_bitwise(u32 crc, const u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (CRC32_POLY_REFL & -(crc & 1));
	}
	return crc;
}

static void crc_init_tables(void)
{
	unsigned int i, t;

	for (i = 0; i < 256; i++) {
		u8 b = i;

		crc_tab[0][i] = crc32_bitwise(0, &b, 1);
	}
	for (i = 0; i < 256; i++)
		for (t = 1; t < 8; t++)
			crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^
					crc_tab[0][crc_tab[t - 1][i] & 0xff];
}

/* One table look-up per byte: lib/crc32.c's smallest variant. */
static u32 crc32_bytewise(u32 crc, const u8 *p, size_t len)
{
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return crc;
}

/*
 * Eight bytes at once, eight independent look-ups: byte 0 of the word
 * still has seven bytes to travel (table 7), byte 7 none (table 0).
 */
static inline u32 crc32_slice8_word(u32 crc, u64 w)
{
	u32 lo = (u32)w ^ crc, hi = w >> 32;

	return crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
	       crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
	       crc_tab[3][hi & 0xff] ^ crc_tab[2][(hi >> 8) & 0xff] ^
	       crc_tab[1][(hi >> 16) & 0xff] ^ crc_tab[0][hi >> 24];
}

/* Slice-by-8: the kernel's generic crc32_le() (CONFIG_CRC32_SLICEBY8). */
static u32 crc32_slice8(u32 crc, const u8 *p, size_t len)
{
	u64 w;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		crc = crc32_slice8_word(crc, w);
	}
	return crc32_bytewise(crc, p, len);
}

/* The same, storing each word to @dst as it goes: one pass over the data. */
static u32 copy_crc32_slice8(u8 *dst, const u8 *src, size_t len, u32 crc)
{
	u64 w;

	for (; len >= 8; len -= 8, src += 8, dst += 8) {
		memcpy(&w, src, 8);
		memcpy(dst, &w, 8);
		crc = crc32_slice8_word(crc, w);
	}
	memcpy(dst, src, len);
	return crc32_bytewise(crc, src, len);
}

/* ---- CRC-32, PCLMULQDQ folding --------------------------------------- */

/*
 * Notation (reflected CRC): a 16-byte block loaded little-endian into an
 * xmm register has bit k holding the coefficient of x^(127-k): the first
 * bit on the wire is the highest power. Carry-less multiplication of an
 * n-bit and an m-bit reflected value gives the (n+m-1)-bit reflection of
 * the product, so with a 64-bit half of the register and a constant K
 * stored as 33 bits (bit 0 always zero: K's reflection shifted left once)
 * the 96-bit product sits in bits 0..95 and stands for half * K * x^32.
 *
 * Folding a block A = H*x^64 + L forward over D bits (to xor it into the
 * block D bits later) needs A*x^D = H*x^(D+64) + L*x^D, that is
 * H*K1*x^32 + L*K2*x^32 with K1 = x^(D+32) mod P, K2 = x^(D-32) mod P.
 * D = 512 for four blocks in flight, D = 128 to fold one into the next.
 * The constants are derived again at startup (check_fold_consts()).
 */
#define K_X544	0x154442bd4ULL	/* x^(512+32) mod P, four-block stride */
#define K_X480	0x1c6e41596ULL	/* x^(512-32) mod P */
#define K_X160	0x1751997d0ULL	/* x^(128+32) mod P, one-block stride */
#define K_X96	0x0ccaa009eULL	/* x^(128-32) mod P, also x^96 below */
#define K_X64	0x163cd6124ULL	/* x^64 mod P */
#define K_MU	0x1f7011641ULL	/* floor(x^64 / P), for Barrett */
#define K_P	0x1db710641ULL	/* P itself, 33 bits reflected */

static inline __m128i fold_block(__m128i acc, __m128i k, __m128i next)
{
	__m128i hi = _mm_clmulepi64_si128(acc, k, 0x00);
	__m128i lo = _mm_clmulepi64_si128(acc, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(hi, lo), next);
}

/* Low 64 bits of the carry-less product of two 64-bit values. */
static inline u64 clmul_lo(u64 a, u64 b)
{
	return _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_cvtsi64_si128(a),
						      _mm_cvtsi64_si128(b),
						      0x00));
}

/*
 * The CRC state of the folded message: A*x^32 mod P for the 128-bit A.
 * A*x^32 = H*x^96 + L*x^32 becomes the 96-bit H*(x^96 mod P) + L*x^32;
 * its top 32 bits T go down the same way, T*(x^64 mod P), leaving a
 * 64-bit W; Barrett reduction takes W mod P with two more products:
 * q = floor(floor(W / x^32) * mu / x^32), W mod P = low 32 bits of W - qP.
 */
static u32 reduce128(__m128i a)
{
	__m128i t;
	u64 w, q;

	t = _mm_clmulepi64_si128(a, _mm_cvtsi64_si128(K_X96), 0x00);
	t = _mm_xor_si128(t, _mm_srli_si128(a, 8));
	w = clmul_lo((u32)_mm_cvtsi128_si32(t), K_X64) ^
	    (u64)_mm_cvtsi128_si64(_mm_srli_si128(t, 4));
	q = (u32)clmul_lo((u32)w, K_MU);
	return (clmul_lo(q, K_P) ^ w) >> 32;
}

/*
 * One 16-byte block at @off, stored to @dst on the way if @copy (a
 * constant once inlined, so the CRC-only loop has no stores).
 */
static __always_inline
__m128i load_block(const u8 *src, u8 *dst, size_t off, const bool copy)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(src + off));

	if (copy)
		_mm_storeu_si128((__m128i *)(dst + off), v);
	return v;
}

/*
 * crc32_le() over a multiple of 16 bytes, at least 64, copying to @dst if
 * @copy. Four blocks are in flight, so that four independent chains of
 * PCLMULQDQ hide its latency. The state is xored into the first 32 bits
 * of the message: S*x^(8n) is the state standing where those bits stand.
 */
static __always_inline
u32 pclmul_blocks(u8 *dst, const u8 *src, size_t len, u32 crc,
		  const bool copy)
{
	const __m128i k4 = _mm_set_epi64x(K_X480, K_X544);
	const __m128i k1 = _mm_set_epi64x(K_X96, K_X160);
	__m128i x[4];
	size_t off;
	int i;

#pragma GCC unroll 4
	for (i = 0; i < 4; i++)
		x[i] = load_block(src, dst, 16 * i, copy);
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128(crc));
	for (off = 64; off + 64 <= len; off += 64) {
#pragma GCC unroll 4
		for (i = 0; i < 4; i++)
			x[i] = fold_block(x[i], k4,
					  load_block(src, dst, off + 16 * i,
						     copy));
	}
	/* the four lanes into the last one, then the blocks left */
#pragma GCC unroll 3
	for (i = 1; i < 4; i++)
		x[i] = fold_block(x[i - 1], k1, x[i]);
	for (; off < len; off += 16)
		x[3] = fold_block(x[3], k1, load_block(src, dst, off, copy));
	return reduce128(x[3]);
}

/* Below this, setting up four lanes costs more than slice-by-8. */
#define PCLMUL_MIN	64

static u32 crc32_pclmul(u32 crc, const u8 *p, size_t len)
{
	size_t n = len & ~15UL;

	if (len < PCLMUL_MIN)
		return crc32_slice8(crc, p, len);
	crc = pclmul_blocks(NULL, p, n, crc, false);
	return crc32_slice8(crc, p + n, len - n);
}

static u32 copy_crc32_pclmul(u8 *dst, const u8 *src, size_t len, u32 crc)
{
	size_t n = len & ~15UL;

	if (len < PCLMUL_MIN)
		return copy_crc32_slice8(dst, src, len, crc);
	crc = pclmul_blocks(dst, src, n, crc, true);
	return copy_crc32_slice8(dst + n, src + n, len - n, crc);
}

/* ---- checks ---------------------------------------------------------- */

static void die(const char *what)
{
	fprintf(stderr, "primitives: %s\n", what);
	exit(1);
}

/* x^n mod P, plain (not reflected). */
static u32 xpow_mod(unsigned int n)
{
	u32 r = 1;

	while (n--)
		r = (r << 1) ^ ((r & 0x80000000U) ? CRC32_POLY : 0);
	return r;
}

static u64 reflect(u64 v, unsigned int bits)
{
	u64 r = 0;
	unsigned int i;

	for (i = 0; i < bits; i++)
		if (v & (1ULL << i))
			r |= 1ULL << (bits - 1 - i);
	return r;
}

/* floor(x^64 / P) by long division; P has degree 32. */
static u64 barrett_mu(void)
{
	unsigned __int128 rem = (unsigned __int128)1 << 64;
	u64 p = (1ULL << 32) | CRC32_POLY, q = 0;
	int i;

	for (i = 64; i >= 32; i--) {
		if (rem & ((unsigned __int128)1 << i)) {
			q |= 1ULL << (i - 32);
			rem ^= (unsigned __int128)p << (i - 32);
		}
	}
	return q;
}

/* The folding constants, from the polynomial rather than from memory. */
static void check_fold_consts(void)
{
	static const struct { unsigned int pow; u64 k; } fold[] = {
		{ 544, K_X544 }, { 480, K_X480 }, { 160, K_X160 },
		{ 96, K_X96 }, { 64, K_X64 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fold); i++)
		if (reflect(xpow_mod(fold[i].pow), 32) << 1 != fold[i].k)
			die("a PCLMUL folding constant is wrong");
	if (reflect(barrett_mu(), 33) != K_MU ||
	    reflect((1ULL << 32) | CRC32_POLY, 33) != K_P)
		die("a Barrett constant is wrong");
}

static u32 crc_variant(int v, u8 *dst, const u8 *src, size_t len, u32 crc)
{
	switch (v) {
	case 0: return crc32_slice8(crc, src, len);
	case 1: return crc32_pclmul(crc, src, len);
	case 2: return copy_crc32_slice8(dst, src, len, crc);
	default: return copy_crc32_pclmul(dst, src, len, crc);
	}
}

/* Every CRC variant against the bytewise table, every length to 4 KiB. */
static void check_crcs(const u8 *buf, u8 *dst, bool pclmul)
{
	size_t len, off;
	u32 seed, want;
	int v;

	for (len = 0; len <= 4096; len++) {
		off = 1 + len % 31;	/* odd and even misalignments */
		seed = (u32)rand() * 2654435761U;
		want = crc32_bytewise(seed, buf + off, len);
		for (v = 0; v < 4; v++) {
			if (!pclmul && (v & 1))
				continue;
			memset(dst, 0x5a, len + 2 * off);
			if (crc_variant(v, dst + off, buf + off, len,
					seed) != want)
				die("a CRC variant disagrees with the table");
			if (v >= 2 && memcmp(dst + off, buf + off, len))
				die("a copy-and-CRC variant copied wrongly");
			if (v >= 2 && (dst[off - 1] != 0x5a ||
				       dst[off + len] != 0x5a))
				die("a copy-and-CRC variant overran");
		}
	}
}

static void check_crc_basics(void)
{
	static const u8 ff[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	const u8 *v = (const u8 *)"123456789";
	u8 buf[300];
	unsigned int i;

	if (~crc32_bytewise(~0U, v, 9) != 0xcbf43926U)
		die("CRC-32 of \"123456789\" is not 0xcbf43926");
	if (crc32_bytewise(~0U, ff, 8) != SROCE_ICRC_SEED)
		die("the ICRC seed is not the state after eight 0xff bytes");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = rand();
	for (i = 0; i < sizeof(buf); i++)
		if (crc32_bitwise(i * 77, buf, i) !=
		    crc32_bytewise(i * 77, buf, i))
			die("the byte table disagrees with the bitwise CRC");
}

typedef void *(*copy_fn)(void *, const void *, size_t);

static void check_copies(const u8 *buf, u8 *dst, copy_fn *fns, int nfns)
{
	size_t len, off;
	int v;

	for (v = 0; v < nfns; v++) {
		for (len = 0; len <= 4096; len++) {
			off = 1 + len % 31;
			memset(dst, 0x5a, len + 2 * off);
			fns[v](dst + off, buf + off + 3, len);
			if (memcmp(dst + off, buf + off + 3, len) ||
			    dst[off - 1] != 0x5a || dst[off + len] != 0x5a)
				die("a copy variant is wrong");
		}
	}
}

/* ---- the benchmark --------------------------------------------------- */

enum family { F_COPY, F_CRC, F_COPY_CRC, F_NR };

static const char *const family_name[F_NR] = {
	"copy", "CRC", "copy+CRC"
};

struct variant {
	const char *name;
	enum family fam;
	bool avx2, pclmul;	/* needs */
	copy_fn copy;
	u32 (*crc)(u32 crc, const u8 *src, size_t len);
	u32 (*copy_crc)(u8 *dst, const u8 *src, size_t len, u32 crc);
};

/* The two-pass baselines: copy, then CRC the copy (still in cache). */
static u32 memcpy_then_slice8(u8 *dst, const u8 *src, size_t len, u32 crc)
{
	memcpy(dst, src, len);
	return crc32_slice8(crc, dst, len);
}

static u32 memcpy_then_pclmul(u8 *dst, const u8 *src, size_t len, u32 crc)
{
	memcpy(dst, src, len);
	return crc32_pclmul(crc, dst, len);
}

static const struct variant variants[] = {
	/* glibc's own, as its ifunc picked it for this CPU: no wrapper */
	{ "glibc memcpy", F_COPY, .copy = memcpy },
	{ "rep movsb", F_COPY, .copy = copy_rep_movsb },
	{ "8-byte words", F_COPY, .copy = copy_words },
	{ "avx2", F_COPY, .avx2 = true, .copy = copy_avx2 },
	{ "bytewise", F_CRC, .crc = crc32_bytewise },
	{ "slice-by-8", F_CRC, .crc = crc32_slice8 },
	{ "pclmul", F_CRC, .pclmul = true, .crc = crc32_pclmul },
	{ "slice-by-8", F_COPY_CRC, .copy_crc = copy_crc32_slice8 },
	{ "pclmul", F_COPY_CRC, .pclmul = true,
	  .copy_crc = copy_crc32_pclmul },
	{ "memcpy, slice-by-8", F_COPY_CRC, .copy_crc = memcpy_then_slice8 },
	{ "memcpy, pclmul", F_COPY_CRC, .pclmul = true,
	  .copy_crc = memcpy_then_pclmul },
};
#define NR_VARIANTS	ARRAY_SIZE(variants)

static const size_t sizes[] = {
	64, 256, 1 * KIB, 4 * KIB, 64 * KIB, 1 * MIB
};
#define NR_SIZES	ARRAY_SIZE(sizes)
/* Sizes from this one up are also measured out of cache. */
#define COLD_FROM	(64 * KIB)

struct row {
	const struct variant *v;
	size_t size;
	bool cold;
	double ns[MAX_RUNS];	/* per call, one per run */
	double median;
};

struct pool {
	u8 *src, *dst;
	size_t len;
};

static u32 sink;	/* results go here so that no call is dead code */

/*
 * Thread CPU time, not wall time: the machine may be shared, and time
 * spent descheduled is not the primitive's.
 */
static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void call(const struct variant *v, u8 *dst, const u8 *src, size_t n)
{
	if (v->copy)
		v->copy(dst, src, n);
	else if (v->crc)
		sink ^= v->crc(sink, src, n);
	else
		sink ^= v->copy_crc(dst, src, n, sink);
}

/*
 * Calls in batches of about 1 MiB between clock reads, until @budget ns
 * of CPU time are spent. Out of cache, each call takes the next slot of
 * the pool, so that nothing it touches was touched since the pool wrapped.
 */
static double measure(const struct row *r, const struct pool *hot,
		      const struct pool *cold, double budget)
{
	const struct pool *pl = r->cold ? cold : hot;
	size_t slots = pl->len / r->size, slot = 0, calls = 0, i;
	size_t batch = r->size < MIB ? MIB / r->size : 1;
	double t0, t;

	call(r->v, pl->dst, pl->src, r->size);	/* warm the code */
	t0 = cpu_ns();
	do {
		for (i = 0; i < batch; i++) {
			size_t off = r->cold ? slot * r->size : 0;

			call(r->v, pl->dst + off, pl->src + off, r->size);
			if (++slot == slots)
				slot = 0;
		}
		calls += batch;
		t = cpu_ns() - t0;
	} while (t < budget);
	return t / calls;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void row_median(struct row *r, int runs)
{
	double s[MAX_RUNS];

	memcpy(s, r->ns, runs * sizeof(s[0]));
	qsort(s, runs, sizeof(s[0]), cmp_double);
	r->median = runs & 1 ? s[runs / 2] :
		    (s[runs / 2 - 1] + s[runs / 2]) / 2;
}

static bool usable(const struct variant *v, bool avx2, bool pclmul)
{
	return (!v->avx2 || avx2) && (!v->pclmul || pclmul);
}

static int build_rows(struct row *rows, bool avx2, bool pclmul)
{
	size_t v, s;
	int n = 0, c;

	for (v = 0; v < NR_VARIANTS; v++) {
		if (!usable(&variants[v], avx2, pclmul))
			continue;
		for (s = 0; s < NR_SIZES; s++) {
			for (c = 0; c < 1 + (sizes[s] >= COLD_FROM); c++) {
				rows[n].v = &variants[v];
				rows[n].size = sizes[s];
				rows[n].cold = c;
				n++;
			}
		}
	}
	return n;
}

static const char *size_str(size_t size)
{
	static char buf[24];

	if (size >= MIB)
		snprintf(buf, sizeof(buf), "%zu MiB", size / MIB);
	else if (size >= KIB)
		snprintf(buf, sizeof(buf), "%zu KiB", size / KIB);
	else
		snprintf(buf, sizeof(buf), "%zu B", size);
	return buf;
}

static void print_table(const struct row *rows, int n)
{
	int i;

	printf("\n| family | primitive | size | data | GB/s | ns/call |\n");
	printf("|---|---|---|---|---:|---:|\n");
	for (i = 0; i < n; i++)
		printf("| %s | %s | %s | %s | %.2f | %.1f |\n",
		       family_name[rows[i].v->fam], rows[i].v->name,
		       size_str(rows[i].size),
		       rows[i].cold ? "out of cache" : "in cache",
		       rows[i].size / rows[i].median, rows[i].median);
}

/* The fastest and the runner-up of @fam at @size, in cache. */
static void best_two(const struct row *rows, int n, enum family fam,
		     size_t size, const struct row **b1, const struct row **b2)
{
	int i;

	*b1 = *b2 = NULL;
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		if (r->v->fam != fam || r->size != size || r->cold)
			continue;
		if (!*b1 || r->median < (*b1)->median) {
			*b2 = *b1;
			*b1 = r;
		} else if (!*b2 || r->median < (*b2)->median) {
			*b2 = r;
		}
	}
}

static void recommend(const struct row *rows, int n)
{
	const struct row *a1, *a2, *b1, *b2;
	int f;

	printf("\n");
	for (f = 0; f < F_NR; f++) {
		best_two(rows, n, f, 1 * KIB, &a1, &a2);
		best_two(rows, n, f, 4 * KIB, &b1, &b2);
		if (!a1 || !a2 || !b1 || !b2)
			continue;
		printf("fastest %s at 1 KiB: %s, %.1f GB/s; %.1fx %s "
		       "(at 4 KiB: %s, %.1fx %s)\n",
		       family_name[f], a1->v->name, a1->size / a1->median,
		       a2->median / a1->median, a2->v->name, b1->v->name,
		       b2->median / b1->median, b2->v->name);
	}
}

/* ---- setup ----------------------------------------------------------- */

static void print_cpu(bool avx2, bool pclmul)
{
	static const char *const want[] = {
		"sse4_1", "pclmulqdq", "avx2", "erms", "fsrm", "vpclmulqdq",
		"avx512f",
	};
	char line[8192], flags[8192] = "", *model = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r");
	unsigned int i;

	while (f && fgets(line, sizeof(line), f) && (!model || !flags[0])) {
		line[strcspn(line, "\n")] = 0;
		if (!model && !strncmp(line, "model name", 10))
			model = strdup(strchr(line, ':') + 2);
		else if (!flags[0] && !strncmp(line, "flags", 5))
			snprintf(flags, sizeof(flags), "%s ",
				 strchr(line, ':') + 1);
	}
	if (f)
		fclose(f);
	printf("cpu: %s\ncpu flags:", model ? model : "unknown");
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		char pat[32];

		snprintf(pat, sizeof(pat), " %s ", want[i]);
		if (strstr(flags, pat))	/* flags is " a b c ... " */
			printf(" %s", want[i]);
	}
	printf("\nbuilt with: %s\nruntime: avx2 %s, pclmul %s\n", PRIM_CFLAGS,
	       avx2 ? "yes" : "no (skipped)", pclmul ? "yes" : "no (skipped)");
	free(model);
}

/* The last-level cache, as the kernel reports it for CPU 0. */
static size_t llc_size(void)
{
	size_t best = 0;
	int i;

	for (i = 0; i < 8; i++) {
		char path[96];
		unsigned long kb;
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fscanf(f, "%luK", &kb) == 1 && kb * KIB > best)
			best = kb * KIB;
		fclose(f);
	}
	if (!best)
		best = sysconf(_SC_LEVEL3_CACHE_SIZE) > 0 ?
		       (size_t)sysconf(_SC_LEVEL3_CACHE_SIZE) : 32 * MIB;
	return best;
}

/* Page-aligned, filled by xorshift: rand() per byte is slow for pools. */
static u8 *alloc_filled(size_t len)
{
	static u64 x = 0x9e3779b97f4a7c15ULL;
	u8 *p = aligned_alloc(4096, len);
	size_t i;

	if (!p)
		die("out of memory");
	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
	return p;
}

static void usage(void)
{
	fprintf(stderr, "usage: primitives [-c] [-t MS] [-r RUNS] [-m MIB]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct row rows[NR_VARIANTS * NR_SIZES * 2];
	copy_fn copies[] = { copy_rep_movsb, copy_words, copy_avx2 };
	struct pool hot, cold;
	double ms = 8, t0;
	size_t llc, pool_mib = 0;
	bool avx2, pclmul, check_only = false;
	int runs = 5, opt, n, i, run;

	while ((opt = getopt(argc, argv, "ct:r:m:")) != -1) {
		switch (opt) {
		case 'c':
			check_only = true;
			break;
		case 't':
			ms = atof(optarg);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'm':
			pool_mib = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (ms <= 0 || runs < 1 || runs > MAX_RUNS)
		usage();

	__builtin_cpu_init();
	avx2 = __builtin_cpu_supports("avx2");
	pclmul = __builtin_cpu_supports("pclmul");
	if (!__builtin_cpu_supports("sse4.1"))
		die("this CPU lacks SSE4.1 (the build assumes x86-64-v2)");

	srand(12);
	crc_init_tables();
	check_crc_basics();
	check_fold_consts();
	hot.src = alloc_filled(2 * MIB);
	hot.dst = alloc_filled(2 * MIB);
	hot.len = 2 * MIB;
	check_crcs(hot.src, hot.dst, pclmul);
	check_copies(hot.src, hot.dst, copies, avx2 ? 3 : 2);
	if (check_only) {
		printf("self-test passed\n");
		return 0;
	}

	print_cpu(avx2, pclmul);
	llc = llc_size();
	cold.len = pool_mib ? pool_mib * MIB : 4 * llc;
	cold.src = alloc_filled(cold.len);
	cold.dst = alloc_filled(cold.len);
	printf("last-level cache %zu MiB; out-of-cache rows rotate through "
	       "2 x %zu MiB\n", llc / MIB, cold.len / MIB);
	printf("self-test passed: every CRC variant equals the bytewise table "
	       "for lengths 0..4096 at odd offsets; copies checked likewise\n");
	printf("median of %d runs, %.0f ms of CPU time each, indirect call "
	       "included in ns/call\n", runs, ms);

	n = build_rows(rows, avx2, pclmul);
	t0 = cpu_ns();
	for (run = 0; run < runs; run++)
		for (i = 0; i < n; i++)
			rows[i].ns[run] = measure(&rows[i], &hot, &cold,
						  ms * 1e6);
	for (i = 0; i < n; i++)
		row_median(&rows[i], runs);
	print_table(rows, n);
	recommend(rows, n);
	printf("\n(%.1f s of CPU time measuring; checksum %08x)\n",
	       (cpu_ns() - t0) / 1e9, sink);
	return 0;
}
