// SPDX-License-Identifier: GPL-2.0
/*
 * Drives every verbs object through the distribution's libibverbs and its
 * stock rxe provider: success paths with values read back, error paths with
 * the exact errno, and the ring layout the provider sees.
 *
 *   verbs_objects DEVICE
 *   verbs_objects DEVICE limits N [KPD KCQ KQP KMR]
 *	(module loaded with every max_*=N; the kernel holds K* objects);
 *	then queues of the largest advertised sizes
 *   verbs_objects DEVICE mcast
 *	max_mcast_grp groups, one more fails with ENOMEM, detach them all
 *
 * Prints TAP; exits non-zero if any check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../uapi/rdma_user_sroce.h"
#include "common.h"

/* A call that must fail with @want: ret is the call's result (0 = success). */
static void check_err(int ret, int want, const char *what)
{
	int got = ret ? (ret > 0 ? ret : errno) : 0;

	check(got == want, "%s fails with %s (got %s)", what, strerrorname_np(want),
	      got ? strerrorname_np(got) : "success");
}

static void check_null_err(void *p, int want, const char *what)
{
	check(!p && errno == want, "%s fails with %s (got %s)", what,
	      strerrorname_np(want), p ? "success" : strerrorname_np(errno));
}

static struct ibv_context *ctx;
static struct ibv_device_attr dattr;
static struct ibv_port_attr pattr;
static int gid_index = -1;

/* The index of the device's IPv4-mapped (RoCE v2) GID. */
static int find_ipv4_gid(void)
{
	union ibv_gid gid;
	int i;

	for (i = 0; i < pattr.gid_tbl_len && i < 64; i++) {
		if (ibv_query_gid(ctx, 1, i, &gid))
			continue;
		if (!gid.raw[0] && !gid.raw[9] && gid.raw[10] == 0xff &&
		    gid.raw[11] == 0xff)
			return i;
	}
	return -1;
}

/* ---- device ---- */

static void test_device(void)
{
	check(!ibv_query_device(ctx, &dattr), "query_device");
	check(dattr.max_qp > 0 && dattr.max_cqe >= 32767 && dattr.max_sge == 32,
	      "advertised limits (max_qp %d, max_cqe %d, max_sge %d)",
	      dattr.max_qp, dattr.max_cqe, dattr.max_sge);
	check(!ibv_query_port(ctx, 1, &pattr), "query_port");
	check(pattr.link_layer == IBV_LINK_LAYER_ETHERNET, "link layer Ethernet");
	gid_index = find_ipv4_gid();
	check(gid_index >= 0, "an IPv4 RoCE v2 GID (index %d)", gid_index);
}

/* ---- PD ---- */

static void test_pd(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_mr *mr;
	char buf[64];

	check(pd != NULL, "alloc_pd");
	if (!pd)
		return;
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	check(mr != NULL, "reg_mr on the PD");
	check_err(ibv_dealloc_pd(pd), EBUSY, "dealloc_pd with an MR");
	check(mr && !ibv_dereg_mr(mr), "dereg_mr");
	check(!ibv_dealloc_pd(pd), "dealloc_pd once empty");
}

/* ---- CQ and ring layout ---- */

/* The mapping librxe made for the last ring: the uverbs mapping not in @before. */
static int find_new_uverbs_map(const char *before, unsigned long *start,
			       unsigned long *len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long s, e;
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx", &s, &e) != 2)
			continue;
		snprintf(line, sizeof(line), "%lx-%lx", s, e);
		if (before && strstr(before, line))
			continue;
		*start = s;
		*len = e - s;
		found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

static unsigned long ring_bytes(unsigned int slots, unsigned int elem)
{
	long pg = sysconf(_SC_PAGESIZE);

	return (384 + (unsigned long)slots * elem + pg - 1) & ~(pg - 1);
}

static void test_cq(void)
{
	struct sroce_queue_buf *hdr;
	unsigned long start, len;
	struct ibv_cq *cq;
	char *before;
	int i;

	before = strdup(uverbs_maps());
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	check(cq != NULL, "create_cq(100)");
	if (!cq)
		return;
	check(cq->cqe == 127, "cqe rounded to 2^n-1 (%d)", cq->cqe);
	check(find_new_uverbs_map(before, &start, &len),
	      "the provider mapped the CQ ring");
	free(before);
	hdr = (struct sroce_queue_buf *)start;
	check(len == ring_bytes(128, 128), "CQ ring mapping size %lu", len);
	check(hdr->log2_elem_size == 7, "CQ slot 128 B (log2 %u)",
	      hdr->log2_elem_size);
	check(hdr->index_mask == 127, "CQ index_mask %u", hdr->index_mask);
	check(hdr->producer_index == 0 && hdr->consumer_index == 0,
	      "CQ indices start at 0");
	check(!ibv_req_notify_cq(cq, 0), "req_notify_cq(next)");
	check(!ibv_req_notify_cq(cq, 1), "req_notify_cq(solicited)");
	check(!ibv_resize_cq(cq, 1000), "resize_cq grow");
	check(cq->cqe == 1023, "resized cqe %d", cq->cqe);
	check(!ibv_resize_cq(cq, 10), "resize_cq shrink");
	check(cq->cqe == 15, "resized cqe %d", cq->cqe);
	check_err(ibv_resize_cq(cq, dattr.max_cqe + 1), EINVAL,
		  "resize_cq past max_cqe");
	check(!ibv_destroy_cq(cq), "destroy_cq");

	check_null_err(ibv_create_cq(ctx, 0, NULL, NULL, 0), EINVAL,
		       "create_cq(0)");
	check_null_err(ibv_create_cq(ctx, dattr.max_cqe + 1, NULL, NULL, 0),
		       EINVAL, "create_cq(max_cqe + 1)");
	check_null_err(ibv_create_cq(ctx, 10, NULL, NULL, 4096), EINVAL,
		       "create_cq on a comp vector that does not exist");
	cq = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	check(cq && cq->cqe == dattr.max_cqe, "create_cq(max_cqe)");
	if (cq)
		ibv_destroy_cq(cq);

	for (i = 0; i < 3; i++) {
		struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);

		cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
		check(cq != NULL, "create_cq with a completion channel (%d)", i);
		if (cq)
			ibv_destroy_cq(cq);
		if (ch)
			ibv_destroy_comp_channel(ch);
	}
}

/* Raw uverbs commands, to see the driver's mmap cookies. */
struct raw_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq cmd;
};

struct raw_create_cq_resp {
	struct ib_uverbs_create_cq_resp core;
	struct sroce_create_cq_resp drv;
};

static int raw_create_cq(int cqe, struct raw_create_cq_resp *resp)
{
	struct raw_create_cq c = {};

	c.hdr.command = IB_USER_VERBS_CMD_CREATE_CQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(*resp) / 4;
	c.cmd.response = (uintptr_t)resp;
	c.cmd.cqe = cqe;
	c.cmd.comp_channel = -1;
	return write(ctx->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

static int raw_destroy_cq(uint32_t handle)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_destroy_cq cmd;
	} c = {};
	struct ib_uverbs_destroy_cq_resp resp;

	c.hdr.command = IB_USER_VERBS_CMD_DESTROY_CQ;
	c.hdr.in_words = sizeof(c) / 4;
	c.hdr.out_words = sizeof(resp) / 4;
	c.cmd.response = (uintptr_t)&resp;
	c.cmd.cq_handle = handle;
	return write(ctx->cmd_fd, &c, sizeof(c)) == sizeof(c) ? 0 : -1;
}

static void test_mmap_cookies(void)
{
	struct raw_create_cq_resp r = {};
	struct sroce_queue_buf *q;
	void *p, *p2;
	size_t sz;

	check(!raw_create_cq(31, &r), "raw CREATE_CQ");
	sz = r.drv.mi.size;
	check(sz == ring_bytes(32, 128),
	      "mminfo: cookie %#llx size %zu", (unsigned long long)r.drv.mi.offset, sz);

	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE, ctx->cmd_fd,
		 r.drv.mi.offset);
	check(p == MAP_FAILED && errno == EINVAL, "MAP_PRIVATE is refused");
	p = mmap(NULL, sz + 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, r.drv.mi.offset);
	check(p == MAP_FAILED && errno == EINVAL, "a longer mapping is refused");
	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 r.drv.mi.offset + 4096 * 1024);
	check(p == MAP_FAILED && errno == EINVAL, "an unknown cookie is refused");

	p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 r.drv.mi.offset);
	check(p != MAP_FAILED, "the cookie maps");
	p2 = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		  r.drv.mi.offset);
	check(p2 == MAP_FAILED && errno == EBUSY, "a cookie maps only once");
	if (p == MAP_FAILED)
		return;
	q = p;
	check(q->log2_elem_size == 7 && q->index_mask == 31,
	      "header seen through the mapping (log2 %u, mask %u)",
	      q->log2_elem_size, q->index_mask);
	/* Scribble over the header: the kernel keeps its own copies. */
	q->index_mask = 0xffffffff;
	q->log2_elem_size = 31;
	q->producer_index = 0xdeadbeef;
	check(!raw_destroy_cq(r.core.cq_handle), "destroy the raw CQ");
	/* The core answers for a stale handle (EBUSY on 6.1). */
	check(raw_destroy_cq(r.core.cq_handle) && errno,
	      "double destroy fails (%s)", strerrorname_np(errno));
	/* The buffer stays valid while mapped, after the CQ is gone. */
	q->consumer_index = 1;
	check(!munmap(p, sz), "unmap after destroy");
}

/* ---- QP ---- */

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      enum ibv_qp_type type, struct ibv_qp_cap *cap,
			      struct ibv_srq *srq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = *cap,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (qp)
		*cap = a.cap;
	return qp;
}

static int to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

static int to_rtr(struct ibv_qp *qp, uint32_t dqpn, enum ibv_mtu mtu,
		  int extra_mask, struct ibv_qp_attr *over)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = mtu, .dest_qp_num = dqpn,
		.rq_psn = 0x123456, .max_dest_rd_atomic = 4,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .sgid_index = gid_index, .hop_limit = 64 } },
	};

	ibv_query_gid(ctx, 1, gid_index, &a.ah_attr.grh.dgid);
	if (over)
		a = *over;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
			     extra_mask);
}

static int to_rts(struct ibv_qp *qp, struct ibv_qp_attr *over)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = 0x654321, .max_rd_atomic = 4,
	};

	if (over)
		a = *over;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void test_qp_create(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	const char *names[] = { "RC", "UC", "UD" };
	int i;

	for (i = 0; i < 3; i++) {
		cap = (struct ibv_qp_cap){ .max_send_wr = 10, .max_recv_wr = 20,
					   .max_send_sge = 3, .max_recv_sge = 2 };
		qp = make_qp(pd, cq, types[i], &cap, NULL);
		check(qp != NULL, "create %s QP", names[i]);
		if (!qp)
			continue;
		check(qp->qp_num >= 16 && qp->qp_num <= 0xffffff,
		      "%s QPN %#x", names[i], qp->qp_num);
		check(cap.max_send_wr == 15 && cap.max_recv_wr == 31,
		      "%s rounded queue sizes (%u, %u)", names[i],
		      cap.max_send_wr, cap.max_recv_wr);
		check(cap.max_send_sge == 3 && cap.max_recv_sge == 2 &&
		      cap.max_inline_data == 48,
		      "%s reported sge/inline (%u, %u, %u)", names[i],
		      cap.max_send_sge, cap.max_recv_sge, cap.max_inline_data);
		check(!ibv_destroy_qp(qp), "destroy %s QP", names[i]);
	}

	cap = (struct ibv_qp_cap){ .max_send_wr = 4, .max_recv_wr = 4,
				   .max_send_sge = 1, .max_recv_sge = 1,
				   .max_inline_data = 200 };
	qp = make_qp(pd, cq, IBV_QPT_RC, &cap, NULL);
	check(qp && cap.max_inline_data == 200 && cap.max_send_sge == 12,
	      "inline 200 gives sge %u inline %u", cap.max_send_sge,
	      cap.max_inline_data);
	if (qp)
		ibv_destroy_qp(qp);

	cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
				   .max_send_sge = 33, .max_recv_sge = 1 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "create_qp with 33 send SGEs");
	cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
				   .max_send_sge = 1, .max_recv_sge = 33 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "create_qp with 33 receive SGEs");
	cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
				   .max_send_sge = 1, .max_recv_sge = 1,
				   .max_inline_data = 513 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "create_qp with 513 B inline");
	cap = (struct ibv_qp_cap){ .max_send_wr = dattr.max_qp_wr + 1,
				   .max_recv_wr = 1, .max_send_sge = 1,
				   .max_recv_sge = 1 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "create_qp with max_qp_wr + 1 send WRs");
	cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1,
				   .max_send_sge = 1, .max_recv_sge = 1 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RAW_PACKET, &cap, NULL),
		       EOPNOTSUPP, "create a raw packet QP");
}

static void check_modify_err(struct ibv_qp *qp, struct ibv_qp_attr *a,
			     int mask, const char *what)
{
	check_err(ibv_modify_qp(qp, a, mask), EINVAL, what);
}

static void test_qp_modify(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a, q;
	struct ibv_qp *qp, *peer;
	enum ibv_mtu mtu = pattr.active_mtu;

	qp = make_qp(pd, cq, IBV_QPT_RC, &cap, NULL);
	peer = make_qp(pd, cq, IBV_QPT_RC, &cap, NULL);
	check(qp && peer, "two RC QPs");
	if (!qp || !peer)
		return;

	/* Wrong transitions and values, each with EINVAL, from RESET. */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	check_modify_err(qp, &a, IBV_QP_STATE, "RESET -> RTR");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1 };
	check_modify_err(qp, &a, IBV_QP_STATE | IBV_QP_PORT,
			 "RESET -> INIT without the required attributes");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .pkey_index = 1 };
	check_modify_err(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
			 IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS,
			 "pkey_index 1");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qp_access_flags = 1 << 12 };
	check_modify_err(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
			 IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS,
			 "unknown access flag");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .port_num = 2 };
	check_modify_err(qp, &a, IBV_QP_STATE | IBV_QP_PORT |
			 IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS, "port 2");

	check(!to_init(qp, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		       IBV_ACCESS_REMOTE_ATOMIC), "RESET -> INIT");
	check(!to_init(peer, 0), "peer RESET -> INIT");
	check_err(ibv_post_send(qp, &(struct ibv_send_wr){
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
			&(struct ibv_send_wr *){ NULL }),
		  EINVAL, "post_send doorbell before RTS");

	/* RTR attribute checks. */
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR, .path_mtu = mtu,
				  .dest_qp_num = peer->qp_num,
				  .ah_attr = { .is_global = 1, .port_num = 1,
					       .grh.sgid_index = gid_index,
					       .grh.hop_limit = 64 } };
	ibv_query_gid(ctx, 1, gid_index, &a.ah_attr.grh.dgid);
	q = a;
	q.path_mtu = mtu + 1;
	check_err(to_rtr(qp, peer->qp_num, mtu, 0, &q), EINVAL,
		  "path MTU above the port's active MTU");
	q = a;
	q.dest_qp_num = 0x1000000;
	check_err(to_rtr(qp, 0, mtu, 0, &q), EINVAL, "dest QPN of 25 bits");
	q = a;
	q.max_dest_rd_atomic = dattr.max_qp_rd_atom + 1;
	check_err(to_rtr(qp, 0, mtu, 0, &q), EINVAL,
		  "max_dest_rd_atomic above the device limit");
	q = a;
	q.min_rnr_timer = 32;
	check_err(to_rtr(qp, 0, mtu, 0, &q), EINVAL, "min_rnr_timer 32");
	q = a;
	q.ah_attr.is_global = 0;
	check(to_rtr(qp, 0, mtu, 0, &q) != 0, "an AV without GRH is refused");
	q = a;
	q.alt_ah_attr = a.ah_attr;
	q.alt_port_num = 1;
	check_err(to_rtr(qp, 0, mtu, IBV_QP_ALT_PATH, &q), EINVAL,
		  "an alternate path");

	check(!to_rtr(qp, peer->qp_num, mtu, 0, NULL), "INIT -> RTR");

	/* RTS attribute checks. */
	q = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .timeout = 32,
				  .retry_cnt = 7, .rnr_retry = 7 };
	check_err(to_rts(qp, &q), EINVAL, "timeout 32");
	q.timeout = 14;
	q.retry_cnt = 8;
	check_err(to_rts(qp, &q), EINVAL, "retry_cnt 8");
	q.retry_cnt = 7;
	q.rnr_retry = 8;
	check_err(to_rts(qp, &q), EINVAL, "rnr_retry 8");
	q.rnr_retry = 7;
	q.max_rd_atomic = dattr.max_qp_init_rd_atom + 1;
	check_err(to_rts(qp, &q), EINVAL, "max_rd_atomic above the limit");
	check(!to_rts(qp, NULL), "RTR -> RTS");

	memset(&q, 0, sizeof(q));
	check(!ibv_query_qp(qp, &q, IBV_QP_STATE | IBV_QP_CUR_STATE |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
			    IBV_QP_ACCESS_FLAGS | IBV_QP_AV | IBV_QP_CAP, &init),
	      "query_qp");
	check(q.qp_state == IBV_QPS_RTS, "state RTS (%d)", q.qp_state);
	check(q.path_mtu == mtu, "path MTU");
	check(q.dest_qp_num == peer->qp_num, "dest QPN");
	check(q.rq_psn == 0x123456 && q.sq_psn == 0x654321, "PSNs");
	check(q.timeout == 14 && q.retry_cnt == 7 && q.rnr_retry == 7 &&
	      q.min_rnr_timer == 12, "timers and retry counts");
	check(q.max_rd_atomic == 4 && q.max_dest_rd_atomic == 4, "rd_atomic");
	check(q.qp_access_flags == (IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC), "access flags");
	check(q.ah_attr.is_global && q.ah_attr.grh.sgid_index == gid_index &&
	      q.ah_attr.grh.hop_limit == 64, "address vector");
	check(q.cap.max_send_wr == 15 && q.cap.max_recv_wr == 15, "caps");
	check(init.qp_type == IBV_QPT_RC && init.send_cq == cq, "init attr");

	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT };
	check_modify_err(qp, &a, IBV_QP_STATE, "RTS -> INIT");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_SQD };
	check(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "RTS -> SQD");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS };
	check(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "SQD -> RTS");
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET };
	check(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "RTS -> RESET");
	check(!to_init(qp, 0), "RESET -> INIT again");

	check(!ibv_destroy_qp(qp), "destroy QP");
	check(!ibv_destroy_qp(peer), "destroy peer QP");
}

/* Poll until @n completions arrived or 5 s passed; returns how many. */
static int poll_wait(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0, r, tries;

	for (tries = 0; got < n && tries < 5000; tries++) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			break;
		got += r;
		if (got < n)
			usleep(1000);
	}
	return got;
}

/* Moving to ERROR flushes posted WRs with IBV_WC_WR_FLUSH_ERR, in order. */
static void test_qp_flush(struct ibv_pd *pd)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_recv_wr rwr, *bad_r;
	struct ibv_send_wr swr, *bad_s;
	struct ibv_qp_attr a;
	struct ibv_wc wc[16];
	struct ibv_qp *qp;
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8,
			       .lkey = mr ? mr->lkey : 0 };
	int i, n, ok;

	qp = cq ? make_qp(pd, cq, IBV_QPT_RC, &cap, NULL) : NULL;
	check(qp && mr && !to_init(qp, 0), "QP in INIT for the flush test");
	if (!qp || !mr)
		return;
	for (i = 0; i < 3; i++) {
		rwr = (struct ibv_recv_wr){ .wr_id = 100 + i, .sg_list = &sge,
					    .num_sge = 1 };
		check(!ibv_post_recv(qp, &rwr, &bad_r), "post_recv %d", i);
	}
	a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_ERR };
	check(!ibv_modify_qp(qp, &a, IBV_QP_STATE), "INIT -> ERROR");
	n = poll_wait(cq, 3, wc);
	ok = n == 3;
	for (i = 0; ok && i < 3; i++)
		ok = wc[i].wr_id == 100 + (unsigned)i &&
		     wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[i].qp_num == qp->qp_num;
	check(ok, "3 receives flushed in order (%d completions)", n);

	swr = (struct ibv_send_wr){ .wr_id = 7, .opcode = IBV_WR_SEND,
				    .sg_list = &sge, .num_sge = 1 };
	check(!ibv_post_send(qp, &swr, &bad_s), "post_send in ERROR");
	n = poll_wait(cq, 1, wc);
	check(n == 1 && wc[0].wr_id == 7 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
	      "an unsignaled send is flushed with an error completion");

	/* Unread completions survive a resize. */
	for (i = 0; i < 5; i++) {
		swr.wr_id = 200 + i;
		ibv_post_send(qp, &swr, &bad_s);
	}
	usleep(100000);
	check(!ibv_resize_cq(cq, 200), "resize a CQ holding 5 entries");
	n = poll_wait(cq, 5, wc);
	ok = n == 5;
	for (i = 0; ok && i < 5; i++)
		ok = wc[i].wr_id == 200 + (unsigned)i;
	check(ok, "the 5 entries are kept, in order, after the resize (%d)", n);
	for (i = 0; i < 5; i++) {
		swr.wr_id = 300 + i;
		ibv_post_send(qp, &swr, &bad_s);
	}
	usleep(100000);
	check_err(ibv_resize_cq(cq, 2), EINVAL,
		  "resize below the number of unread entries");
	n = poll_wait(cq, 5, wc);
	check(n == 5 && wc[0].wr_id == 300, "entries intact after a refused resize");

	check(!ibv_destroy_qp(qp), "destroy");
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
}

/* ---- SRQ ---- */

static void test_srq(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = 100, .max_sge = 2,
						    .srq_limit = 0 } };
	struct ibv_qp_cap cap = { .max_send_wr = 4, .max_send_sge = 1 };
	struct ibv_srq_attr sa;
	struct ibv_recv_wr wr, *bad;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int i;

	srq = ibv_create_srq(pd, &init);
	check(srq != NULL, "create_srq");
	if (!srq)
		return;
	check(init.attr.max_wr == 127, "SRQ max_wr rounded (%u)", init.attr.max_wr);
	check(!ibv_query_srq(srq, &sa) && sa.max_wr == 127 && sa.max_sge == 2,
	      "query_srq (max_wr %u, max_sge %u)", sa.max_wr, sa.max_sge);
	for (i = 0; i < 10; i++) {
		wr = (struct ibv_recv_wr){ .wr_id = i, .num_sge = 0 };
		ibv_post_srq_recv(srq, &wr, &bad);
	}
	sa = (struct ibv_srq_attr){ .srq_limit = 5 };
	check(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), "arm the SRQ limit");
	check(!ibv_query_srq(srq, &sa) && sa.srq_limit == 5, "limit reads back");
	sa = (struct ibv_srq_attr){ .srq_limit = 500 };
	check_err(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT), EINVAL,
		  "a limit above max_wr");
	sa = (struct ibv_srq_attr){ .max_wr = 1000 };
	check(!ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), "resize the SRQ");
	check(!ibv_query_srq(srq, &sa) && sa.max_wr == 1023, "resized max_wr %u",
	      sa.max_wr);
	sa = (struct ibv_srq_attr){ .max_wr = 5 };
	check_err(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), EINVAL,
		  "shrink below the 10 posted WQEs");
	sa = (struct ibv_srq_attr){ .max_wr = dattr.max_srq_wr + 1 };
	check_err(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), EINVAL,
		  "resize past max_srq_wr");
	for (i = 0; i < 10; i++) {
		wr = (struct ibv_recv_wr){ .wr_id = 10 + i, .num_sge = 0 };
		check(!ibv_post_srq_recv(srq, &wr, &bad),
		      "post_srq_recv into the resized ring (%d)", i);
	}

	qp = make_qp(pd, cq, IBV_QPT_RC, &cap, srq);
	check(qp != NULL, "a QP on the SRQ");
	check_err(ibv_destroy_srq(srq), EBUSY, "destroy an SRQ in use");
	if (qp)
		ibv_destroy_qp(qp);
	check(!ibv_destroy_srq(srq), "destroy_srq");

	init.attr = (struct ibv_srq_attr){ .max_wr = 10, .max_sge = 28 };
	check_null_err(ibv_create_srq(pd, &init), EINVAL, "SRQ with 28 SGEs");
	init.attr = (struct ibv_srq_attr){ .max_wr = dattr.max_srq_wr + 1,
					   .max_sge = 1 };
	check_null_err(ibv_create_srq(pd, &init), EINVAL,
		       "SRQ past max_srq_wr");
	init.attr = (struct ibv_srq_attr){ .max_wr = 0, .max_sge = 1 };
	check_null_err(ibv_create_srq(pd, &init), EINVAL, "SRQ of 0 WRs");
}

/* ---- MR and MW ---- */

static void test_mr(struct ibv_pd *pd)
{
	static const struct { int acc; const char *name; } good[] = {
		{ 0, "no access" },
		{ IBV_ACCESS_LOCAL_WRITE, "LOCAL_WRITE" },
		{ IBV_ACCESS_REMOTE_READ, "REMOTE_READ" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC" },
		{ IBV_ACCESS_MW_BIND, "MW_BIND" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING, "RELAXED_ORDERING" },
		{ IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
		  IBV_ACCESS_MW_BIND, "all" },
	};
	size_t len = 1 << 20;
	char *buf = aligned_alloc(4096, len);
	struct ibv_mr *mr[8], *m;
	struct ibv_pd *pd2;
	unsigned int i, j, distinct = 1;

	memset(buf, 0, len);
	for (i = 0; i < 8; i++) {
		mr[i] = ibv_reg_mr(pd, buf + i * 1000, 100000, good[i].acc);
		check(mr[i] != NULL, "reg_mr %s", good[i].name);
		if (!mr[i])
			continue;
		check(mr[i]->lkey == mr[i]->rkey && (mr[i]->lkey >> 8) != 0,
		      "%s: lkey %#x == rkey, index %#x", good[i].name,
		      mr[i]->lkey, mr[i]->lkey >> 8);
	}
	for (i = 0; i < 8; i++)
		for (j = 0; j < i; j++)
			if (mr[i] && mr[j] && mr[i]->lkey == mr[j]->lkey)
				distinct = 0;
	check(distinct, "all keys distinct");
	for (i = 0; i < 8; i++)
		if (mr[i])
			check(!ibv_dereg_mr(mr[i]), "dereg_mr %s", good[i].name);

	m = ibv_reg_mr_iova(pd, buf, 4096, 0x100000000ull, IBV_ACCESS_LOCAL_WRITE);
	check(m != NULL, "reg_mr_iova with iova != address");
	if (m)
		ibv_dereg_mr(m);

	check_null_err(ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE), EINVAL,
		       "REMOTE_WRITE without LOCAL_WRITE");
	check_null_err(ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_ATOMIC), EINVAL,
		       "REMOTE_ATOMIC without LOCAL_WRITE");
	check_null_err(ibv_reg_mr(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE), EINVAL,
		       "a zero-length MR");
	check_null_err(ibv_reg_mr(pd, (void *)0x10000, 4096, IBV_ACCESS_LOCAL_WRITE),
		       EFAULT, "an MR over unmapped memory");
	/*
	 * On-demand paging (odp.c; progs/odp.c uses it), implicit too: the
	 * whole address space (NULL, SIZE_MAX), at iova 0 and on demand only.
	 */
	m = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_ON_DEMAND);
	check(m && !ibv_dereg_mr(m), "an on-demand-paging MR");
	m = ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND);
	check(m && !ibv_dereg_mr(m), "an implicit on-demand-paging MR");
	check_null_err(ibv_reg_mr_iova(pd, NULL, SIZE_MAX, 1ULL << 20,
				       IBV_ACCESS_ON_DEMAND), EINVAL,
		       "an implicit MR at an iova other than 0");
	check_null_err(ibv_reg_mr(pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE),
		       EINVAL, "the whole address space, not on demand");

	pd2 = ibv_alloc_pd(ctx);
	m = pd2 ? ibv_reg_mr(pd2, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	check(m && m->pd == pd2, "an MR in a second PD");
	if (m)
		ibv_dereg_mr(m);
	if (pd2)
		ibv_dealloc_pd(pd2);
	free(buf);
}

static void test_mw(struct ibv_pd *pd)
{
	struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);

	check(mw1 && mw1->rkey && mw1->type == IBV_MW_TYPE_1, "alloc_mw type 1");
	check(mw2 && mw2->rkey && mw2->type == IBV_MW_TYPE_2, "alloc_mw type 2");
	check(mw1 && mw2 && mw1->rkey != mw2->rkey, "distinct rkeys");
	if (mw1)
		check(!ibv_dealloc_mw(mw1), "dealloc_mw type 1");
	if (mw2)
		check(!ibv_dealloc_mw(mw2), "dealloc_mw type 2");
}

/* ---- AH ---- */

/* librxe keeps the kernel's ah_num right after its ibv_ah and rxe_av. */
struct provider_ah {
	struct ibv_ah ibv_ah;
	struct sroce_uav av;
	int ah_num;
};

static void test_ah(struct ibv_pd *pd)
{
	struct ibv_ah_attr a = { .is_global = 1, .port_num = 1,
				 .grh = { .sgid_index = gid_index, .hop_limit = 64 } };
	struct ibv_ah *ah, *ah2;

	ibv_query_gid(ctx, 1, gid_index, &a.grh.dgid);
	ah = ibv_create_ah(pd, &a);
	check(ah != NULL, "create_ah to our own IPv4 GID");
	ah2 = ibv_create_ah(pd, &a);
	check(ah2 != NULL, "a second AH");
	if (ah && ah2)
		check(((struct provider_ah *)ah)->ah_num > 0 &&
		      ((struct provider_ah *)ah2)->ah_num > 0 &&
		      ((struct provider_ah *)ah)->ah_num !=
		      ((struct provider_ah *)ah2)->ah_num,
		      "non-zero, distinct ah_num (%d, %d)",
		      ((struct provider_ah *)ah)->ah_num,
		      ((struct provider_ah *)ah2)->ah_num);
	if (ah)
		check(!ibv_destroy_ah(ah), "destroy_ah");
	if (ah2)
		check(!ibv_destroy_ah(ah2), "destroy second AH");
	a.is_global = 0;
	check(ibv_create_ah(pd, &a) == NULL, "an AH without GRH is refused");
}

/* ---- lifetimes across contexts ---- */

static void test_contexts(const char *name, struct ibv_pd *pd)
{
	struct ibv_context *ctx2 = open_dev(name);
	struct ibv_cq *cq;
	struct ibv_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp *qp;

	check(ctx2 != NULL, "a second context");
	if (!ctx2)
		return;
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	qp = cq ? make_qp(pd, cq, IBV_QPT_RC, &cap, NULL) : NULL;
	check(qp != NULL, "a QP in the first context");
	check_err(ibv_destroy_cq(cq), EBUSY, "destroy a CQ used by a QP");
	if (qp)
		ibv_destroy_qp(qp);
	check(cq && !ibv_destroy_cq(cq), "destroy the CQ once free");
	/* Closing with objects open releases them. */
	ibv_alloc_pd(ctx2);
	ibv_create_cq(ctx2, 4, NULL, NULL, 0);
	check(!ibv_close_device(ctx2), "close a context with objects open");
}

/*
 * With the module loaded with every max_* parameter set to @n: the device
 * reports n, n objects of each kind can be made, and the next one fails with
 * ENOMEM (the PD and CQ the QPs need count too).
 */
static int kpd, kcq, kqp, kmr;	/* objects the kernel holds already */

static void test_limits(int n)
{
	struct ibv_pd *pds[64] = {};
	struct ibv_cq *cqs[64] = {};
	struct ibv_qp *qps[64] = {};
	struct ibv_mr *mrs[64] = {};
	struct ibv_mw *mws[64] = {};
	struct ibv_srq *srqs[64] = {};
	struct ibv_ah *ahs[64] = {};
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = gid_index, .hop_limit = 1 } };
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 2, .max_sge = 1 } };
	static char buf[4096];
	int i;

	check(dattr.max_pd == n && dattr.max_cq == n && dattr.max_qp == n &&
	      dattr.max_mr == n && dattr.max_mw == n && dattr.max_srq == n &&
	      dattr.max_ah == n, "query_device reports the limits of %d", n);
	for (i = 0; i < n - kpd; i++)
		pds[i] = ibv_alloc_pd(ctx);
	check(pds[n - kpd - 1] != NULL, "%d PDs (and %d of the kernel)", n - kpd, kpd);
	check_null_err(ibv_alloc_pd(ctx), ENOMEM, "one PD too many");
	for (i = 0; i < n - kcq; i++)
		cqs[i] = ibv_create_cq(ctx, 1, NULL, NULL, 0);
	check(cqs[n - kcq - 1] != NULL, "%d CQs (and %d of the kernel)", n - kcq, kcq);
	check_null_err(ibv_create_cq(ctx, 1, NULL, NULL, 0), ENOMEM,
		       "one CQ too many");
	for (i = 0; i < n - kqp; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = cqs[0], .recv_cq = cqs[0], .qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 } };

		qps[i] = ibv_create_qp(pds[0], &qa);
		if (i == n - kqp - 1) {
			check(qps[i] != NULL, "%d QPs (and %d of the kernel)", n - kqp, kqp);
			check_null_err(ibv_create_qp(pds[0], &qa), ENOMEM,
				       "one QP too many");
		}
	}
	for (i = 0; i < n - kmr; i++)
		mrs[i] = ibv_reg_mr(pds[0], buf, sizeof(buf), 0);
	check(mrs[n - kmr - 1] != NULL, "%d MRs (and %d of the kernel)", n - kmr, kmr);
	check_null_err(ibv_reg_mr(pds[0], buf, sizeof(buf), 0), ENOMEM,
		       "one MR too many");
	for (i = 0; i < n; i++)
		mws[i] = ibv_alloc_mw(pds[0], IBV_MW_TYPE_2);
	check(mws[n - 1] != NULL, "%d MWs", n);
	check_null_err(ibv_alloc_mw(pds[0], IBV_MW_TYPE_2), ENOMEM,
		       "one MW too many");
	for (i = 0; i < n; i++)
		srqs[i] = ibv_create_srq(pds[0], &sa);
	check(srqs[n - 1] != NULL, "%d SRQs", n);
	check_null_err(ibv_create_srq(pds[0], &sa), ENOMEM, "one SRQ too many");
	ibv_query_gid(ctx, 1, gid_index, &aa.grh.dgid);
	for (i = 0; i < n; i++)
		ahs[i] = ibv_create_ah(pds[0], &aa);
	check(ahs[n - 1] != NULL, "%d AHs", n);
	check_null_err(ibv_create_ah(pds[0], &aa), ENOMEM, "one AH too many");

	/* Freeing one makes room for one. */
	check(!ibv_destroy_qp(qps[0]), "destroy one QP");
	{
		struct ibv_qp_init_attr qa = {
			.send_cq = cqs[0], .recv_cq = cqs[0], .qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 } };

		qps[0] = ibv_create_qp(pds[0], &qa);
		check(qps[0] != NULL, "and create one again");
	}
	for (i = 0; i < n; i++) {
		if (ahs[i])
			ibv_destroy_ah(ahs[i]);
		if (srqs[i])
			ibv_destroy_srq(srqs[i]);
		if (mws[i])
			ibv_dealloc_mw(mws[i]);
		if (mrs[i])
			ibv_dereg_mr(mrs[i]);
		if (qps[i])
			ibv_destroy_qp(qps[i]);
	}
	for (i = 0; i < n; i++) {
		if (cqs[i])
			ibv_destroy_cq(cqs[i]);
		if (pds[i])
			ibv_dealloc_pd(pds[i]);
	}
}

/* Created, or refused with ENOMEM (memory is short); nothing else. */
static void check_made_or_enomem(void *p, const char *what)
{
	check(p || errno == ENOMEM, "%s: %s", what,
	      p ? "created" : strerrorname_np(errno));
}

/*
 * The largest queues query_device advertises are created, or refused
 * cleanly with ENOMEM; one more entry is EINVAL. None of it may splat
 * (the harness checks the kernel log) or take gigabytes.
 */
static void test_sizes(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0), *big;
	struct ibv_srq_init_attr si = { .attr = {
		.max_wr = dattr.max_srq_wr, .max_sge = dattr.max_srq_sge } };
	struct ibv_srq_attr sa = { .max_wr = dattr.max_srq_wr };
	struct ibv_qp_cap cap;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int err;

	if (!pd || !cq) {
		check(0, "sizes: PD and CQ");
		return;
	}
	/* rdma_rxe 6.1's depths; more cost too much kernel memory per queue. */
	check(dattr.max_qp_wr == 16384 && dattr.max_srq_wr == 16384 &&
	      dattr.max_cqe == 32767,
	      "sizes: max_qp_wr %d, max_srq_wr %d, max_cqe %d", dattr.max_qp_wr,
	      dattr.max_srq_wr, dattr.max_cqe);

	cap = (struct ibv_qp_cap){ .max_send_wr = dattr.max_qp_wr,
				   .max_recv_wr = dattr.max_qp_wr,
				   .max_send_sge = 1, .max_recv_sge = 1,
				   .max_inline_data = 512 };
	qp = make_qp(pd, cq, IBV_QPT_RC, &cap, NULL);
	check_made_or_enomem(qp, "sizes: QP of max_qp_wr WRs, 512 B inline");
	check(!qp || (cap.max_send_wr >= (uint32_t)dattr.max_qp_wr &&
		      cap.max_inline_data >= 512),
	      "sizes: it holds what was asked (%u WRs, %u B inline)",
	      cap.max_send_wr, cap.max_inline_data);
	if (qp)
		ibv_destroy_qp(qp);
	cap = (struct ibv_qp_cap){ .max_send_wr = dattr.max_qp_wr,
				   .max_recv_wr = dattr.max_qp_wr,
				   .max_send_sge = dattr.max_sge,
				   .max_recv_sge = dattr.max_sge };
	qp = make_qp(pd, cq, IBV_QPT_RC, &cap, NULL);
	check_made_or_enomem(qp, "sizes: QP of max_qp_wr WRs, max_sge SGEs");
	if (qp)
		ibv_destroy_qp(qp);
	cap = (struct ibv_qp_cap){ .max_send_wr = 1,
				   .max_recv_wr = dattr.max_qp_wr + 1,
				   .max_send_sge = 1, .max_recv_sge = 1 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "sizes: QP of max_qp_wr + 1 receive WRs");
	cap = (struct ibv_qp_cap){ .max_send_wr = dattr.max_qp_wr + 1,
				   .max_recv_wr = 1, .max_send_sge = 1,
				   .max_recv_sge = 1, .max_inline_data = 512 };
	check_null_err(make_qp(pd, cq, IBV_QPT_RC, &cap, NULL), EINVAL,
		       "sizes: QP of max_qp_wr + 1 send WRs, 512 B inline");

	srq = ibv_create_srq(pd, &si);
	check_made_or_enomem(srq, "sizes: SRQ of max_srq_wr WRs, max_srq_sge SGEs");
	if (srq)
		ibv_destroy_srq(srq);
	si.attr.max_wr = dattr.max_srq_wr + 1;
	check_null_err(ibv_create_srq(pd, &si), EINVAL,
		       "sizes: SRQ of max_srq_wr + 1 WRs");
	si.attr = (struct ibv_srq_attr){ .max_wr = 1, .max_sge = 1 };
	srq = ibv_create_srq(pd, &si);
	if (srq) {
		err = ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR);
		check(!err || err == ENOMEM, "sizes: SRQ resized to max_srq_wr: %s",
		      err ? strerrorname_np(err) : "done");
		sa.max_wr = dattr.max_srq_wr + 1;
		check_err(ibv_modify_srq(srq, &sa, IBV_SRQ_MAX_WR), EINVAL,
			  "sizes: SRQ resized to max_srq_wr + 1");
		ibv_destroy_srq(srq);
	}

	big = ibv_create_cq(ctx, dattr.max_cqe, NULL, NULL, 0);
	check_made_or_enomem(big, "sizes: CQ of max_cqe entries");
	if (big)
		ibv_destroy_cq(big);
	check(!ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "sizes: clean up");
}

/*
 * Multicast: one UD QP attaches to max_mcast_grp groups; one group more is
 * refused with ENOMEM, a second QP joining an existing group is not a new
 * group; after detaching everything a new group can be attached again.
 */
static void test_mcast(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = 1,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp *q1 = NULL, *q2 = NULL;
	union ibv_gid g = { .raw = { 0xff, 0x12 } };
	int i, n = dattr.max_mcast_grp, bad = 0, err;

	if (pd && cq) {
		q1 = make_qp(pd, cq, IBV_QPT_UD, &cap, NULL);
		q2 = make_qp(pd, cq, IBV_QPT_UD, &cap, NULL);
	}
	if (!q1 || !q2 || n < 2 || n > (1 << 20)) {
		check(0, "mcast: set up (max_mcast_grp %d)", n);
		return;
	}
	/* ff12::1:N, N = 0..n-1: n groups, n distinct Ethernet addresses. */
	for (i = 0; i < n; i++) {
		g.raw[13] = 1;
		g.raw[14] = i >> 8;
		g.raw[15] = i;
		g.raw[12] = i >> 16;
		err = ibv_attach_mcast(q1, &g, 0);
		if (err && !bad++)
			printf("# attach %d: %s\n", i, strerror(err));
	}
	check(!bad, "mcast: %d groups attached (%d failed)", n, bad);
	g.raw[11] = 1;	/* a group not yet known */
	check_err(ibv_attach_mcast(q1, &g, 0), ENOMEM,
		  "mcast: group max_mcast_grp + 1");
	check_err(ibv_attach_mcast(q2, &g, 0), ENOMEM,
		  "mcast: that group from another QP");
	g.raw[11] = 0;
	check(!ibv_attach_mcast(q2, &g, 0),
	      "mcast: a second QP joins an existing group");
	check(!ibv_attach_mcast(q1, &g, 0), "mcast: attaching twice is no error");
	for (i = 0, bad = 0; i < n; i++) {
		g.raw[14] = i >> 8;
		g.raw[15] = i;
		g.raw[12] = i >> 16;
		bad += !!ibv_detach_mcast(q1, &g, 0);
	}
	check(!bad, "mcast: all %d detached (%d failed)", n, bad);
	check_err(ibv_detach_mcast(q1, &g, 0), EINVAL,
		  "mcast: detach of a group the QP left");
	g.raw[11] = 1;
	check(!ibv_attach_mcast(q1, &g, 0) && !ibv_detach_mcast(q1, &g, 0),
	      "mcast: room for a new group again");
	/* uverbs refuses to destroy a QP still attached to a group. */
	check_err(ibv_destroy_qp(q2), EBUSY, "mcast: destroy of an attached QP");
	g.raw[11] = 0;
	check(!ibv_detach_mcast(q2, &g, 0) && !ibv_destroy_qp(q2) &&
	      !ibv_destroy_qp(q1) && !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd),
	      "mcast: detach the last group, destroy");
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "sroce0";
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(name);
	if (!ctx) {
		printf("Bail out! cannot open %s\n", name);
		return 1;
	}
	test_device();
	if (argc > 3 && !strcmp(argv[2], "limits")) {
		int n = atoi(argv[3]);

		if (argc > 7) {
			kpd = atoi(argv[4]);
			kcq = atoi(argv[5]);
			kqp = atoi(argv[6]);
			kmr = atoi(argv[7]);
		}

		if (n >= 2 && n <= 64 && gid_index >= 0)
			test_limits(n);
		else
			check(0, "limits test needs 2..64 and an IPv4 GID");
		test_sizes();
		goto out;
	}
	if (argc > 2 && !strcmp(argv[2], "mcast")) {
		test_mcast();
		goto out;
	}
	test_pd();
	test_cq();
	test_mmap_cookies();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!pd || !cq) {
		printf("Bail out! no PD or CQ\n");
		return 1;
	}
	if (gid_index >= 0) {
		test_qp_create(pd, cq);
		test_qp_modify(pd, cq);
		test_ah(pd);
	}
	test_qp_flush(pd);
	test_srq(pd, cq);
	test_mr(pd);
	test_mw(pd);
	test_contexts(name, pd);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
out:
	check(!ibv_close_device(ctx), "close_device");
	printf("1..%d\n# %d passed, %d failed\n", ntests, ntests - nfail, nfail);
	return nfail ? 1 : 0;
}
