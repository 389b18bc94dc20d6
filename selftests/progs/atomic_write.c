// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA ATOMIC WRITE (IBA 1.5) between two hosts: the client writes 64
 * 8-byte values to every other slot of the server's buffer, each completed
 * as IBV_WC_ATOMIC_WRITE, reads the buffer back with an RDMA READ, and
 * ends with a misaligned ATOMIC WRITE, which must complete with
 * IBV_WC_REM_INV_REQ_ERR. The server checks its buffer itself: the values
 * placed, the slots between untouched. QP details go over TCP port 18515.
 *
 * Before that, where the server's device offers RDMA FLUSH (capability bit
 * 38: sroce from 6.2 on) and registers a region that allows it (not with
 * AW_NO_FLUSH set), the client FLUSHes a range of it and the whole region, each
 * completed as IB_UVERBS_WC_FLUSH. librxe 44 has no verb for FLUSH: the
 * WQE is written into the send ring (ring.h), as a newer provider would.
 *
 *   atomic_write DEV GID_INDEX              server
 *   atomic_write DEV GID_INDEX SERVER_IPV4  client
 *
 * TAP lines; the exit status is the number of failed checks (capped).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "../../uapi/rdma_user_sroce.h"
#include "common.h"
#include "ring.h"

#define PORT	18515
#define NVAL	64
#define BUFSZ	4096
#define FILL	0x5a

struct info {
	uint32_t qpn, psn, rkey;
	uint32_t fkey;		/* a region that allows FLUSH, or 0 */
	uint64_t addr, faddr;
	uint8_t gid[16];
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr, *fmr;
static struct sroce_queue_buf *sq;
static unsigned char *buf;

static uint64_t value(int i)
{
	return 0x0101010101010101ULL * (i + 1) ^ 0xa5a5000000000000ULL;
}

static int setup(const char *dev)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = NVAL + 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	struct ibv_device_attr_ex da;
	char *before;

	ctx = open_dev(dev);
	if (!ctx || ibv_query_device_ex(ctx, NULL, &da))
		return -1;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 2 * NVAL, NULL, NULL, 0) : NULL;
	buf = aligned_alloc(4096, BUFSZ);
	if (!cq || !buf)
		return -1;
	memset(buf, FILL, BUFSZ);
	mr = ibv_reg_mr(pd, buf, BUFSZ, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	/*
	 * The second half allows FLUSH, where the device offers it, unless
	 * AW_NO_FLUSH is set (atomic_write.sh: a pairing with rdma_rxe).
	 */
	if (((da.device_cap_flags_ex >> 38) & 1) && !getenv("AW_NO_FLUSH"))
		fmr = ibv_reg_mr(pd, buf + BUFSZ / 2, BUFSZ / 2,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 FLUSH_GLOBAL_ACCESS);
	a.send_cq = a.recv_cq = cq;
	a.pd = pd;
	before = strdup(uverbs_maps());
	qp = mr ? ibv_create_qp_ex(ctx, &a) : NULL;
	sq = new_sq_ring(before);	/* the larger of the QP's two rings */
	free(before);
	return qp && sq ? 0 : -1;
}

static int connect_qp(int gidx, const struct info *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   (fmr ? FLUSH_GLOBAL_ACCESS : 0),	/* rxe asks */
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = gidx;
	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 18;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Send ours, receive theirs, over the connected socket @s; then connect
 * the QP and wait until the peer has connected its own. Without that
 * last step the client's first ATOMIC WRITE could reach the server's QP
 * before RTR and be dropped, and rdma_rxe (7.2) resends an ATOMIC WRITE
 * with address 0 (Documentation/interop.md): the CI of e89a9b6 failed so.
 */
static int exchange(int s, int gidx, struct info *peer)
{
	struct info me = { .qpn = qp->qp_num, .psn = 0, .rkey = mr->rkey,
			   .addr = (uintptr_t)buf, .fkey = fmr ? fmr->rkey : 0,
			   .faddr = (uintptr_t)buf + BUFSZ / 2 };
	union ibv_gid g;
	char up = 1;

	if (ibv_query_gid(ctx, 1, gidx, &g))
		return -1;
	memcpy(me.gid, g.raw, 16);
	if (write(s, &me, sizeof(me)) != sizeof(me) ||
	    recv(s, peer, sizeof(*peer), MSG_WAITALL) != sizeof(*peer))
		return -1;
	if (connect_qp(gidx, peer) || write(s, &up, 1) != 1 ||
	    recv(s, &up, 1, MSG_WAITALL) != 1)
		return -1;
	return 0;
}

/* Up to @n completions within 30 s. */
static int poll_n(struct ibv_wc *wc, int n)
{
	double end = now() + 30;
	int got = 0, r;

	while (got < n && now() < end) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return got;
		got += r;
	}
	return got;
}

static int server(int gidx)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int ls, s, one = 1, i, placed = 1, kept = 1;
	struct info peer;
	char done, verdict;
	uint64_t v;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (void *)&sa, sizeof(sa)) || listen(ls, 1))
		return check(0, "listen on %d", PORT), 1;
	s = accept(ls, NULL, NULL);
	if (!check(s >= 0 && !exchange(s, gidx, &peer), "connected"))
		return 1;
	if (!check(recv(s, &done, 1, MSG_WAITALL) == 1, "the client is done"))
		return 1;
	for (i = 0; i < NVAL; i++) {
		memcpy(&v, buf + 16 * i, 8);
		placed &= v == value(i);
		kept &= buf[16 * i + 8] == FILL && buf[16 * i + 15] == FILL;
	}
	check(placed, "the %d values are in place", NVAL);
	check(kept, "the slots between them are untouched");
	verdict = !nfail;
	if (write(s, &verdict, 1) != 1)
		check(0, "verdict sent");
	close(s);
	close(ls);
	return nfail;
}

static void writes(const struct info *peer)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct ibv_wc wc[NVAL];
	int i, n, ok = 1;
	uint64_t v;

	ibv_wr_start(qx);
	for (i = 0; i < NVAL; i++) {
		v = value(i);
		qx->wr_id = i;
		qx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qx, peer->rkey, peer->addr + 16 * i, &v);
	}
	if (!check(!ibv_wr_complete(qx), "%d ATOMIC WRITEs posted", NVAL))
		return;
	n = poll_n(wc, NVAL);
	for (i = 0; i < n; i++)
		ok &= wc[i].status == IBV_WC_SUCCESS &&
		      wc[i].opcode == IBV_WC_ATOMIC_WRITE && wc[i].wr_id == (uint64_t)i;
	check(n == NVAL && ok, "%d of %d completed in order as IBV_WC_ATOMIC_WRITE (first: %s, opcode %d)",
	      n, NVAL, n ? ibv_wc_status_str(wc[0].status) : "none", n ? (int)wc[0].opcode : -1);
}

static void read_back(const struct info *peer)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	struct ibv_wc wc;
	int i, ok = 1;
	uint64_t v;

	memset(buf, 0, BUFSZ);
	ibv_wr_start(qx);
	qx->wr_id = 100;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qx, peer->rkey, peer->addr);
	ibv_wr_set_sge(qx, mr->lkey, (uintptr_t)buf, 16 * NVAL);
	if (ibv_wr_complete(qx) || poll_n(&wc, 1) != 1 || wc.status != IBV_WC_SUCCESS) {
		check(0, "RDMA READ of the server's buffer");
		return;
	}
	for (i = 0; i < NVAL; i++) {
		memcpy(&v, buf + 16 * i, 8);
		ok &= v == value(i) && buf[16 * i + 8] == FILL;
	}
	check(ok, "the buffer read back holds the values, and only them");
}

/* One FLUSH (global visibility) of @len bytes at @addr, or of the region. */
static void flush1(const struct info *peer, const char *what, uint64_t addr,
		   uint32_t len, int level)
{
	struct ibv_wc wc;
	int n;

	/* type 1: IB_FLUSH_GLOBAL */
	n = ring_post_flush(qp, sq, 300 + level, addr, len, peer->fkey, 1,
			    level) ? 0 : poll_n(&wc, 1);
	check(n == 1 && wc.status == IBV_WC_SUCCESS && wc.opcode == WC_FLUSH &&
	      wc.wr_id == 300u + level,
	      "a FLUSH of %s: completed as IB_UVERBS_WC_FLUSH (got %s, opcode %d)",
	      what, n ? ibv_wc_status_str(wc.status) : "nothing",
	      n ? (int)wc.opcode : -1);
}

static void flushes(const struct info *peer)
{
	if (!peer->fkey) {
		printf("# the server offers no RDMA FLUSH: none sent\n");
		return;
	}
	flush1(peer, "a range", peer->faddr + 64, 1024, 0);	/* IB_FLUSH_RANGE */
	flush1(peer, "the region", 0, 0, 1);			/* IB_FLUSH_MR */
}

static void misaligned(const struct info *peer)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);
	uint64_t v = 1;
	struct ibv_wc wc;
	int n;

	ibv_wr_start(qx);
	qx->wr_id = 200;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, peer->rkey, peer->addr + 16 * NVAL + 4, &v);
	n = ibv_wr_complete(qx) ? 0 : poll_n(&wc, 1);
	check(n == 1 && wc.status == IBV_WC_REM_INV_REQ_ERR,
	      "a misaligned ATOMIC WRITE: %s (got %s)",
	      ibv_wc_status_str(IBV_WC_REM_INV_REQ_ERR),
	      n ? ibv_wc_status_str(wc.status) : "nothing");
}

static int client(int gidx, const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	struct info peer;
	char done = 1, verdict = 0;
	int s, i;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return check(0, "address %s", ip), 1;
	for (i = 0; i < 100 && connect(s, (void *)&sa, sizeof(sa)); i++)
		usleep(100000);
	if (!check(i < 100 && !exchange(s, gidx, &peer), "connected to %s", ip))
		return 1;
	writes(&peer);
	read_back(&peer);
	flushes(&peer);
	misaligned(&peer);
	if (write(s, &done, 1) != 1 || recv(s, &verdict, 1, MSG_WAITALL) != 1)
		verdict = 0;
	check(verdict == 1, "the server found its buffer right");
	close(s);
	return nfail;
}

int main(int argc, char **argv)
{
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: atomic_write DEV GID_INDEX [SERVER_IPV4]\n");
		return 2;
	}
	if (setup(argv[1])) {
		check(0, "setting up %s", argv[1]);
		return 1;
	}
	r = argc > 3 ? client(atoi(argv[2]), argv[3]) : server(atoi(argv[2]));
	return r > 100 ? 100 : r;
}
