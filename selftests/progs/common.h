/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test programs: TAP checks and opening a device by
 * name. Header-only; each program includes it once.
 */
#ifndef SROCE_TEST_COMMON_H
#define SROCE_TEST_COMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

static int ntests, nfail;

/* One TAP line; a failure is counted for the exit status. Returns @ok. */
static int __attribute__((format(printf, 2, 3), unused))
check(int ok, const char *fmt, ...)
{
	va_list ap;

	ntests++;
	printf("%s %d - ", ok ? "ok" : "not ok", ntests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		nfail++;
	return ok;
}

static double __attribute__((unused)) now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *c = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			c = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return c;
}

/* The index of port 1's first IPv4-mapped GID, or -1. */
static int __attribute__((unused)) ipv4_gid(struct ibv_context *ctx)
{
	union ibv_gid g;
	int i;

	for (i = 0; i < 64; i++)
		if (!ibv_query_gid(ctx, 1, i, &g) && g.raw[10] == 0xff &&
		    g.raw[11] == 0xff && !g.raw[0])
			return i;
	return -1;
}

/* This process's uverbs mappings (the rings), as lines of /proc/self/maps. */
static __attribute__((unused)) char *uverbs_maps(void)
{
	static char buf[65536];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = 0;
	char line[512];

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    n + strlen(line) < sizeof(buf) - 1) {
			strcpy(buf + n, line);
			n += strlen(line);
		}
	if (f)
		fclose(f);
	return buf;
}

#endif /* SROCE_TEST_COMMON_H */
