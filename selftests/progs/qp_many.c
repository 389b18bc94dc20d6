// SPDX-License-Identifier: GPL-2.0
/*
 * qp_many DEV GID_INDEX NQP [SERVER_IPV4]: NQP RC QPs between two hosts,
 * every one of them moving data that is checked.
 *
 * Both sides create NQP QPs (one send and one receive CQ, one MR), swap
 * their QP numbers over TCP (port 18515; the server is the side without
 * an address), connect QP i to the peer's QP i and meet. Then each side,
 * on every QP i, writes SLOT bytes of its own pattern into the peer's slot
 * i with an RDMA WRITE and sends a message naming i behind it. A side
 * passes when every send completes successfully and every QP i receives
 * exactly one message, naming i, with slot i holding the peer's pattern
 * for i byte for byte (the WRITE is ordered before the SEND on an RC QP).
 *
 * It also prints the kernel memory the QPs took (VmallocUsed + Slab of
 * /proc/meminfo, before the QPs and after all are in RTS) divided by NQP,
 * as a line "SUMMARY kernel memory per QP: ...".
 *
 * TAP lines; exit 0 when both sides passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#define PORT	18515
#define SLOT	2048	/* two packets at path MTU 1024 */
#define MSG	64
#define MAXQP	65536
#define SECS	300	/* for all completions: NQP of each under TCG */

struct hello {
	uint32_t nqp;
	uint32_t rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct note {
	uint32_t magic;
	uint32_t index;
};

#define MAGIC	0x51504d4eu

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *scq, *rcq;
static struct ibv_mr *mr;
static struct ibv_qp **qps;
static uint32_t *peer_qpn;
static uint8_t *buf;	/* NQP slots written by the peer, NQP to write, msgs */
static int nqp, gidx;

static uint8_t *in_slot(int i) { return buf + (size_t)i * SLOT; }
static uint8_t *out_slot(int i) { return buf + (size_t)(nqp + i) * SLOT; }
static uint8_t *rmsg(int i) { return buf + (size_t)2 * nqp * SLOT + (size_t)i * MSG; }
static uint8_t *smsg(int i) { return rmsg(nqp + i); }

/* Byte @j of slot @i as side @side writes it. */
static uint8_t pattern(int side, int i, int j)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (uint32_t)side << 28 ^ (uint32_t)j;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	return (uint8_t)(x ^ x >> 12);
}

static int setup(const char *dev)
{
	size_t len = (size_t)nqp * (2 * SLOT + 2 * MSG);

	ctx = open_dev(dev);
	if (!ctx)
		return -1;
	pd = ibv_alloc_pd(ctx);
	scq = ibv_create_cq(ctx, nqp, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, nqp, NULL, NULL, 0);
	buf = calloc(1, len);
	qps = calloc(nqp, sizeof(*qps));
	peer_qpn = calloc(nqp, sizeof(*peer_qpn));
	if (!pd || !scq || !rcq || !buf || !qps || !peer_qpn)
		return -1;
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE);
	return mr ? 0 : -1;
}

/* The QPs. The number created. */
static int create_qps(void)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	for (i = 0; i < nqp; i++) {
		qps[i] = ibv_create_qp(pd, &ia);
		if (!qps[i]) {
			fprintf(stderr, "QP %d: %s\n", i, strerror(errno));
			break;
		}
	}
	return i;
}

/* QP @i's one receive, for the peer's note (a QP takes it from INIT on). */
static int post_note_recv(int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)rmsg(i), .length = MSG,
			       .lkey = mr->lkey };
	struct ibv_recv_wr *bad, wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	return ibv_post_recv(qps[i], &wr, &bad);
}

static int xfer(int s, void *p, size_t len, int out)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = out ? write(s, (char *)p + done, len - done) :
			  recv(s, (char *)p + done, len - done, MSG_WAITALL);
		if (r <= 0)
			return -1;
		done += r;
	}
	return 0;
}

/* Swap hello and QP numbers with the peer over @s; the peer's hello in @ph. */
static int swap_qpns(int s, struct hello *ph)
{
	struct hello h = { .nqp = nqp, .rkey = mr->rkey, .addr = (uintptr_t)buf };
	uint32_t *mine = calloc(nqp, sizeof(*mine));
	union ibv_gid g;
	int i, r;

	if (!mine || ibv_query_gid(ctx, 1, gidx, &g))
		return -1;
	memcpy(h.gid, g.raw, 16);
	for (i = 0; i < nqp; i++)
		mine[i] = qps[i]->qp_num;
	r = xfer(s, &h, sizeof(h), 1) || xfer(s, ph, sizeof(*ph), 0) ||
	    ph->nqp != (uint32_t)nqp ||
	    xfer(s, mine, nqp * sizeof(*mine), 1) ||
	    xfer(s, peer_qpn, nqp * sizeof(*peer_qpn), 0);
	free(mine);
	return r ? -1 : 0;
}

static int connect_qp(int i, uint32_t dqpn, const struct hello *ph)
{
	struct ibv_qp *qp = qps[i];
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) || post_note_recv(i))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.min_rnr_timer = 16;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.sgid_index = gidx;
	memcpy(a.ah_attr.grh.dgid.raw, ph->gid, 16);
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 18;		/* 1 s: thousands of QPs share one emulated link */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* On every QP, our pattern into the peer's slot, then a note behind it. */
static int post_all(int side, const struct hello *ph)
{
	struct ibv_sge ws = { .length = SLOT }, ns = { .length = sizeof(struct note) };
	struct ibv_send_wr w = { .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE };
	struct ibv_send_wr n = { .num_sge = 1, .opcode = IBV_WR_SEND,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	struct note *nt;
	int i, j;

	ws.lkey = ns.lkey = mr->lkey;
	w.sg_list = &ws;
	n.sg_list = &ns;
	w.next = &n;
	for (i = 0; i < nqp; i++) {
		for (j = 0; j < SLOT; j++)
			out_slot(i)[j] = pattern(side, i, j);
		nt = (struct note *)smsg(i);
		nt->magic = MAGIC;
		nt->index = i;
		ws.addr = (uintptr_t)out_slot(i);
		w.wr.rdma.remote_addr = ph->addr + (uint64_t)i * SLOT;
		w.wr.rdma.rkey = ph->rkey;
		ns.addr = (uintptr_t)smsg(i);
		w.wr_id = n.wr_id = i;
		if (ibv_post_send(qps[i], &w, &bad))
			return i;
	}
	return nqp;
}

static int qp_index(uint32_t qpn, const uint32_t *sorted, const int *idx)
{
	int lo = 0, hi = nqp - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (sorted[mid] == qpn)
			return idx[mid];
		if (sorted[mid] < qpn)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static uint32_t *qpn_sort_key;
static int by_qpn(const void *a, const void *b)
{
	uint32_t x = qpn_sort_key[*(const int *)a], y = qpn_sort_key[*(const int *)b];

	return x < y ? -1 : x > y;
}

/* A received note: 1 if it is QP @q's first and its slot is right. */
static int check_note(int q, const struct ibv_wc *wc, int peer_side, char *seen)
{
	const struct note *nt = (const struct note *)rmsg(q);
	int j;

	if (wc->wr_id != (uint64_t)q || wc->byte_len != sizeof(*nt) ||
	    nt->magic != MAGIC || nt->index != (uint32_t)q || seen[q])
		return 0;
	seen[q] = 1;
	for (j = 0; j < SLOT; j++)
		if (in_slot(q)[j] != pattern(peer_side, q, j))
			return 0;
	return 1;
}

/* Every send completion and every note, checked. 0 when all are right. */
static int reap(int peer_side)
{
	int *idx = calloc(nqp, sizeof(int)), sent = 0, got = 0, bad = 0, n, i, q;
	uint32_t *sorted = calloc(nqp, sizeof(uint32_t));
	char *seen = calloc(nqp, 1);
	double end = now() + SECS;
	struct ibv_wc wc[64];

	if (!idx || !sorted || !seen)
		return -1;
	for (i = 0; i < nqp; i++)
		idx[i] = i;
	qpn_sort_key = (uint32_t *)malloc(nqp * sizeof(uint32_t));
	for (i = 0; i < nqp && qpn_sort_key; i++)
		qpn_sort_key[i] = qps[i]->qp_num;
	if (!qpn_sort_key)
		return -1;
	qsort(idx, nqp, sizeof(int), by_qpn);
	for (i = 0; i < nqp; i++)
		sorted[i] = qpn_sort_key[idx[i]];
	while ((sent < nqp || got < nqp) && now() < end) {
		n = ibv_poll_cq(scq, 64, wc);
		for (i = 0; i < n; i++, sent++)
			if (wc[i].status != IBV_WC_SUCCESS && bad++ < 5)
				fprintf(stderr, "send on QP %" PRIu64 ": %s\n", wc[i].wr_id,
					ibv_wc_status_str(wc[i].status));
		n = ibv_poll_cq(rcq, 64, wc);
		for (i = 0; i < n; i++, got++) {
			q = qp_index(wc[i].qp_num, sorted, idx);
			if (wc[i].status == IBV_WC_SUCCESS && q >= 0 &&
			    check_note(q, &wc[i], peer_side, seen))
				continue;
			if (bad++ < 5)
				fprintf(stderr, "receive on QPN %u (QP %d): %s\n",
					wc[i].qp_num, q, ibv_wc_status_str(wc[i].status));
		}
	}
	check(sent == nqp, "%d of %d sends completed", sent, nqp);
	check(got == nqp, "%d of %d notes received", got, nqp);
	check(!bad, "every completion successful, every slot right (%d wrong)", bad);
	free(idx);
	free(sorted);
	free(seen);
	free(qpn_sort_key);
	return sent == nqp && got == nqp && !bad ? 0 : -1;
}

/* The server's listening socket, made before the QPs so the client finds it. */
static int listen_sock(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (ls < 0)
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (void *)&sa, sizeof(sa)) || listen(ls, 1)) {
		close(ls);
		return -1;
	}
	return ls;
}

/* Connected to the peer: accepted on @ls, or connected to @ip. */
static int sock(int ls, const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int s, i;

	if (!ip)
		return accept(ls, NULL, NULL);
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return -1;
	s = socket(AF_INET, SOCK_STREAM, 0);
	for (i = 0; s >= 0 && i < 100 && connect(s, (void *)&sa, sizeof(sa)); i++)
		usleep(100000);
	return i < 100 ? s : -1;
}

/* Everything after the QPs exist: connect, move, check, agree. */
static int run(int s, int side, long k0)
{
	struct hello ph;
	char up = 1, mine, theirs = 0;
	double t0;
	int i;

	if (!check(!swap_qpns(s, &ph), "%d QP numbers swapped with the peer", nqp))
		return 1;
	t0 = now();
	for (i = 0; i < nqp && !connect_qp(i, peer_qpn[i], &ph); i++)
		;
	if (!check(i == nqp, "%d of %d QPs connected to RTS, a receive posted on each, in %.1f s",
		   i, nqp, now() - t0))
		return 1;
	printf("SUMMARY kernel memory per QP: %ld bytes (%d RC QPs in RTS, one receive each)\n",
	       (kmem() - k0) / nqp, nqp);
	if (!check(!xfer(s, &up, 1, 1) && !xfer(s, &up, 1, 0), "the peer is ready"))
		return 1;
	t0 = now();
	i = post_all(side, &ph);
	check(i == nqp, "a WRITE and a SEND posted on %d of %d QPs", i, nqp);
	mine = !reap(3 - side) && i == nqp;
	printf("# %d QPs: %d KiB each way in %.1f s\n", nqp, nqp * SLOT / 1024, now() - t0);
	if (xfer(s, &mine, 1, 1) || xfer(s, &theirs, 1, 0))
		theirs = 0;
	check(theirs == 1, "the peer found every QP's data right");
	return nfail;
}

int main(int argc, char **argv)
{
	const char *ip = argc > 4 ? argv[4] : NULL;
	int ls = -1, s, n, rc, i, side = ip ? 2 : 1;
	long k0;
	double t0;

	if (argc < 4) {
		fprintf(stderr, "usage: qp_many DEV GID_INDEX NQP [SERVER_IPV4]\n");
		return 2;
	}
	gidx = atoi(argv[2]);
	nqp = atoi(argv[3]);
	if (!ip && !check((ls = listen_sock()) >= 0, "listening on port %d", PORT))
		return 1;
	if (nqp < 1 || nqp > MAXQP || !check(!setup(argv[1]), "%s set up for %d QPs", argv[1], nqp))
		return 1;
	k0 = kmem();
	t0 = now();
	n = create_qps();
	if (!check(n == nqp, "%d of %d RC QPs created in %.1f s", n, nqp, now() - t0))
		return 1;
	s = sock(ls, ip);
	if (!check(s >= 0, "connected to the peer (%s)", ip ? ip : "we listen"))
		return 1;
	rc = run(s, side, k0);
	close(s);
	if (ls >= 0)
		close(ls);
	for (i = 0; i < nqp; i++)
		if (ibv_destroy_qp(qps[i]) && check(0, "QP %d destroyed", i))
			break;
	ibv_dereg_mr(mr);
	ibv_destroy_cq(scq);
	ibv_destroy_cq(rcq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return rc || nfail;
}
