/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test programs: TAP checks, opening a device by
 * name, connecting two RC QPs of one device. Header-only; each program
 * includes it once.
 */
#ifndef SROCE_TEST_COMMON_H
#define SROCE_TEST_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

/*
 * The checks' counts: one per program; a program of several files defines
 * TAP_SHARED_COUNTS and the counts in one of them.
 */
#ifdef TAP_SHARED_COUNTS
extern int ntests, nfail;
#else
static int ntests, nfail;
#endif

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

static __attribute__((unused)) struct ibv_context *open_dev(const char *name)
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

/* VmallocUsed + Slab from /proc/meminfo, in bytes. */
static long __attribute__((unused)) kmem(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v, sum = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld", &v) == 1 ||
		    sscanf(line, "Slab: %ld", &v) == 1)
			sum += v * 1024;
	if (f)
		fclose(f);
	return sum;
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

/*
 * Connect RC QP @qp of @c to QP @dqpn of the same device (GID index
 * @gidx), through RTR to RTS: MTU 1024, every remote access, RNR timer
 * 2.56 ms, retries for ever on RNR. 0 on success.
 */
static int __attribute__((unused))
rc_connect(struct ibv_context *c, struct ibv_qp *qp, uint32_t dqpn, int gidx)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 16;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = gidx;
	if (ibv_query_gid(c, 1, gidx, &a.ah_attr.grh.dgid) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif /* SROCE_TEST_COMMON_H */
