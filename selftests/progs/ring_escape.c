// SPDX-License-Identifier: GPL-2.0
/*
 * ring_escape DEVICE DONEFILE [NQP] [NCHILD]: can a ring mapping escape the
 * core's bookkeeping while the device goes away, and then reach pages the
 * kernel freed?
 *
 * The core tracks each mapping of a ring so that it can zap it on
 * disassociate. A mapping made by fork() or mremap() while the device's
 * objects are being destroyed is not tracked (rdma_umap_open() cannot take
 * the file's lock then), and its PTEs are copied or moved after that. If
 * the PTEs hold no page references, the ring is freed under them.
 *
 * So: a CQ with the largest ring, NQP (1000) UD QPs to make the removal
 * take a while, a pattern written into the ring's slot pages. When the
 * device stops answering (its objects are about to be destroyed), one
 * thread moves the ring back and forth with mremap() and another forks up
 * to NCHILD (96) children, until the test creates DONEFILE (the removal is
 * over). Then the parent fills most of free memory with another pattern,
 * so that pages the kernel freed are used again, and the parent and every
 * child look at every ring-sized mapping they have: its slot pages must
 * all still hold the pattern (the mapping kept the ring's pages), or be
 * the one page the core substitutes when it zaps a mapping. Anything else
 * is a page freed under the mapping. (/proc/self/pagemap cannot tell: it
 * shows a VM_PFNMAP mapping as a hole.) TAP lines; exit 0 when all pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define PATTERN		0x5ca1ab1e00000000ULL
#define MAX_CHILD	256
#define RUN_LIMIT	400.0		/* s: any wait here ends by then */

static size_t ring_len;
static volatile int go, stop, fatal;
static char *volatile ring_at;
static long nremap;

/*
 * Call @fn for each uverbs mapping of this process (read line by line: a
 * thousand QPs' rings are more than common.h's uverbs_maps() holds).
 */
static void each_map(void (*fn)(uintptr_t a, uintptr_t b, void *arg),
		     void *arg)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long a, b;
	char line[512];

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2)
			fn(a, b, arg);
	if (f)
		fclose(f);
}

struct largest {
	uintptr_t at;
	size_t len;
};

static void take_largest(uintptr_t a, uintptr_t b, void *arg)
{
	struct largest *l = arg;

	if (b - a > l->len) {
		l->len = b - a;
		l->at = a;
	}
}

/* The largest uverbs mapping: the CQ's ring. */
static char *find_ring(size_t *len)
{
	struct largest l = { 0, 0 };

	each_map(take_largest, &l);
	*len = l.len;
	return (char *)l.at;
}

static void fill(char *ring)
{
	size_t off;

	for (off = 4096; off < ring_len; off += 8)
		*(uint64_t *)(ring + off) = PATTERN | (off >> 12);
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

static void poke(char *p, uint64_t v)
{
	if (!sigsetjmp(bus_jmp, 1))
		*(volatile uint64_t *)p = v;
}

static __attribute__((noinline)) int matches(const char *at, size_t off)
{
	const volatile uint64_t *p = (const void *)(at + off);
	size_t w;

	for (w = 0; w < 4096 / 8; w++)
		if (p[w] != (PATTERN | ((off + w * 8) >> 12)))
			return 0;
	return 1;
}

/*
 * Does slot page @off of the mapping at @at hold the pattern, whole? Not
 * if reading it raises SIGBUS (no page there).
 */
static int intact(const char *at, size_t off)
{
	if (sigsetjmp(bus_jmp, 1))
		return 0;
	return matches(at, off);
}

/* The word at @p, or @dflt on SIGBUS. */
static uint64_t peek(const char *p, uint64_t dflt)
{
	if (sigsetjmp(bus_jmp, 1))
		return dflt;
	return *(volatile const uint64_t *)p;
}

/*
 * Are the slot pages of the mapping at @at one page? What a zapped mapping
 * shows after disassociate: the core's single substitute page (or nothing:
 * SIGBUS). A mark written through one slot page reads back through others.
 */
static int aliased(char *at)
{
	uint64_t mark = 0xa11a5ed000000000ULL | (uint32_t)getpid();

	if (ring_len < 4 * 4096)
		return 0;
	poke(at + 4096 + 64, mark);
	return peek(at + 2 * 4096 + 64, mark) == mark &&
	       peek(at + 3 * 4096 + 64, mark) == mark;
}

struct scan {
	int nmaps, kept, zapped, bad;
};

/* For the log: what the first changed slot page of @at holds, and where. */
static void describe(char *at)
{
	int pm = open("/proc/self/pagemap", O_RDONLY), kc = open("/proc/kpagecount", O_RDONLY);
	uint64_t ent = 0, cnt = 0, w0;
	size_t off;

	for (off = 4096; off < ring_len; off += 4096)
		if (!intact(at, off))
			break;
	w0 = peek(at + off, 0);
	if (pm >= 0 && pread(pm, &ent, 8, ((uintptr_t)at + off) / 4096 * 8) == 8 &&
	    (ent >> 63) && kc >= 0)
		pread(kc, &cnt, 8, (ent & ((1ULL << 55) - 1)) * 8);
	printf("# %d: mapping %p page %zu: first word %#llx (want %#llx), pagemap %#llx, mapcount %llu\n",
	       getpid(), at, off >> 12, (unsigned long long)w0,
	       (unsigned long long)(PATTERN | (off >> 12)),
	       (unsigned long long)ent, (unsigned long long)cnt);
	if (pm >= 0)
		close(pm);
	if (kc >= 0)
		close(kc);
}

/*
 * One mapping of the ring's size. Its slot pages must all still hold the
 * pattern (the mapping kept the ring's pages), or be the one page the core
 * puts in a zapped mapping; a page of any other content is one the kernel
 * freed under the mapping and gave to someone else.
 */
static void scan_one(uintptr_t a, uintptr_t b, void *arg)
{
	struct scan *sc = arg;
	char *at = (char *)a;
	int changed = 0;
	size_t off;

	if (b - a != ring_len)
		return;
	sc->nmaps++;
	for (off = 4096; off < ring_len; off += 4096)
		changed += !intact(at, off);
	if (!changed) {
		sc->kept++;
	} else if (aliased(at)) {
		sc->zapped++;
	} else {
		sc->bad += changed;
		describe(at);
	}
}

/* Every ring-sized mapping of this process; returns the bad pages. */
static int check_all(struct scan *sc)
{
	struct sigaction sa = { .sa_handler = on_bus };

	memset(sc, 0, sizeof(*sc));
	sigaction(SIGBUS, &sa, NULL);
	each_map(scan_one, sc);
	return sc->bad;
}

/*
 * Reuse what the kernel freed: fill most of the free memory with another
 * pattern, then give it back. A ring page freed under a mapping is then
 * very likely someone else's, with other content.
 */
static void pressure(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long avail = 0, v;
	char line[128];
	size_t len;
	char *m;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld", &v) == 1)
			avail = v * 1024;
	if (f)
		fclose(f);
	if (avail < (384L << 20))
		return;
	len = avail - (256L << 20);
	/*
	 * The pages freed last are the first handed out again (the per-CPU
	 * free lists), so 512 MiB reuses them; more only costs minutes
	 * under emulation.
	 */
	if (len > (512UL << 20))
		len = 512UL << 20;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	memset(m, 0x77, len);
	munmap(m, len);
}

static int wait_file(const char *path)
{
	double end = now() + RUN_LIMIT;

	while (access(path, F_OK) && now() < end)
		usleep(10000);
	return !access(path, F_OK);
}

/* Moves the ring between its place and another, until stopped. */
static void *mover(void *arg)
{
	char *other = arg, *to;
	double end = now() + RUN_LIMIT;

	while (!go && !stop && now() < end)
		usleep(1000);
	while (!stop && now() < end) {
		to = mremap(ring_at, ring_len, ring_len,
			    MREMAP_MAYMOVE | MREMAP_FIXED, other);
		if (to == MAP_FAILED)
			break;
		other = ring_at;
		ring_at = to;
		nremap++;
	}
	return NULL;
}

/*
 * Sets go when the device stops answering (EIO): the core then destroys
 * the file's objects, newest first, holding the lock rdma_umap_open()
 * tries; the fatal event comes only with the last object (the async
 * file), too late to race with. Then waits for that event.
 */
static void *watcher(void *arg)
{
	struct ibv_context *ctx = arg;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_device_attr da;
	struct ibv_async_event ev;
	double end = now() + RUN_LIMIT;

	while (!stop && now() < end && !ibv_query_device(ctx, &da))
		usleep(200);
	go = 1;
	while (!stop && now() < end) {
		if (poll(&pfd, 1, 100) != 1 || ibv_get_async_event(ctx, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
			fatal = 1;
		ibv_ack_async_event(&ev);
		if (fatal)
			break;
	}
	return NULL;
}

/*
 * A child checks its mappings once the parent has put the freed pages to
 * other uses: it sleeps in a read of @gate until the parent closes its
 * end, as long as the parent lives, not for a time of its own (the
 * removal and the pressure before it may take minutes under emulation on
 * a loaded host, and a child that gave up would be a failure that says
 * nothing about the rings). Not a poll: 96 children waking 100 times a
 * second each slowed the whole VM, the parent's pressure with it.
 */
static void child(const int gate[2])
{
	struct scan sc;
	char c;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	close(gate[1]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	if (getppid() == 1)	/* the parent died before the pressure */
		_exit(2);
	if (check_all(&sc))
		printf("# child %d: %d ring pages freed under its %d mappings (%d kept, %d zapped)\n",
		       getpid(), sc.bad, sc.nmaps, sc.kept, sc.zapped);
	fflush(stdout);
	_exit(sc.bad ? 1 : 0);
}

static struct ibv_cq *setup(struct ibv_context *ctx, int nqp)
{
	struct ibv_device_attr da;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq;
	int i;

	if (!pd || ibv_query_device(ctx, &da))
		return NULL;
	cq = ibv_create_cq(ctx, da.max_cqe, NULL, NULL, 0);
	for (i = 0; cq && i < nqp; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		if (!ibv_create_qp(pd, &a))
			return NULL;
	}
	return cq;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx = argc > 2 ? open_dev(argv[1]) : NULL;
	int nqp = argc > 3 ? atoi(argv[3]) : 1000;
	int nchild = argc > 4 ? atoi(argv[4]) : 96;
	pid_t pids[MAX_CHILD];
	int i, n = 0, failed = 0, st, gate[2];
	pthread_t tm, tw;
	struct scan sc;
	char *other;
	double end;

	if (!ctx || nchild > MAX_CHILD || pipe(gate)) {
		fprintf(stderr, "usage: ring_escape DEVICE DONEFILE [NQP] [NCHILD<=%d]\n",
			MAX_CHILD);
		return 2;
	}
	end = now();
	if (!check(setup(ctx, nqp) != NULL, "a CQ of the largest size, %d UD QPs",
		   nqp))
		return 1;
	printf("# set up in %.1f s\n", now() - end);
	ring_at = find_ring(&ring_len);
	other = mmap(NULL, ring_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!check(ring_at && ring_len >= (1 << 20) && other != MAP_FAILED,
		   "the CQ ring mapped: %zu KiB", ring_len >> 10))
		return 1;
	fill(ring_at);
	pthread_create(&tm, NULL, mover, other);
	pthread_create(&tw, NULL, watcher, ctx);
	printf("holding\n");
	fflush(stdout);

	end = now() + RUN_LIMIT;
	while (!go && now() < end)
		usleep(1000);
	while (go && n < nchild && access(argv[2], F_OK) && now() < end) {
		pids[n] = fork();
		if (!pids[n])
			child(gate);
		if (pids[n] > 0)
			n++;
	}
	check(go, "the device stopped answering");
	check(wait_file(argv[2]), "the removal ended");
	for (end = now() + 10; !fatal && now() < end;)
		usleep(10000);
	stop = 1;
	pthread_join(tm, NULL);
	pthread_join(tw, NULL);
	check(fatal, "IBV_EVENT_DEVICE_FATAL");
	printf("# %d children forked and %ld mremaps during the removal\n",
	       n, nremap);
	check(n > 0 && nremap > 0, "forks and mremaps raced the removal");

	pressure();
	close(gate[1]);		/* the children's turn */
	check_all(&sc);
	check(!sc.bad && sc.nmaps,
	      "parent: %d ring pages freed under its %d mappings (%d kept, %d zapped)",
	      sc.bad, sc.nmaps, sc.kept, sc.zapped);
	for (i = 0; i < n; i++)
		if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			failed++;
	check(!failed, "children: %d of %d found a ring page freed or changed",
	      failed, n);
	return nfail ? 1 : 0;
}
