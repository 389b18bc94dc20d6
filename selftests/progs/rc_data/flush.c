// SPDX-License-Identifier: GPL-2.0
/* rc_data flush: RDMA FLUSH as the requester, posted through the ring. */
#include "rc_data.h"

/*
 * One FLUSH from a new pair's A to @rkey at @addr (@len bytes; placement
 * @type, selectivity @level), written into A's send ring, since librxe 44
 * has no verb for it; first, if @wlen, a WRITE of A's first @wlen bytes
 * there. Checks the FLUSH's completion against @want, and that A's QP is
 * in ERROR after a failure.
 */
static void flush_case(const char *what, uint32_t rkey, uint64_t addr,
		       uint32_t len, int type, int level, uint32_t wlen,
		       enum ibv_wc_status want)
{
	char *before = strdup(uverbs_maps());
	struct ibv_qp *qa = make_qp(&A, 0), *qb;
	struct sroce_queue_buf *sq = new_sq_ring(before);	/* A's, the newest */
	struct ibv_sge sge = { (uintptr_t)A.buf, wlen, A.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = addr, .rkey = rkey },
	};
	struct ibv_wc wc;
	int n;

	free(before);
	qb = make_qp(&B, 0);
	if (!qa || !qb || !sq ||
	    connect_qp(&A, qa, &B, qb->qp_num, &default_opts) ||
	    connect_qp(&B, qb, &A, qa->qp_num, &default_opts)) {
		check(0, "%s: connect", what);
		destroy_pair(qa, qb);
		return;
	}
	if (wlen && (post1(qa, &wr, A.cq, &wc) || wc.status != IBV_WC_SUCCESS))
		check(0, "%s: the WRITE before (%s)", what,
		      ibv_wc_status_str(wc.status));
	check(!ring_post_flush(qa, sq, 0xf1, addr, len, rkey, type, level),
	      "%s: doorbell", what);
	n = poll_n(A.cq, &wc, 1, 30);
	check(n == 1 && wc.wr_id == 0xf1 && wc.status == want &&
	      (want != IBV_WC_SUCCESS || wc.opcode == WC_FLUSH),
	      "%s: %s (got %s, opcode %d)", what, ibv_wc_status_str(want),
	      n ? ibv_wc_status_str(wc.status) : "nothing",
	      n ? (int)wc.opcode : -1);
	if (want != IBV_WC_SUCCESS)
		check(qp_state(qa) == IBV_QPS_ERR, "%s: A's QP in ERROR", what);
	destroy_pair(qa, qb);
}

/*
 * RDMA FLUSH as the requester (wire/flush crafts the responder's cases):
 * where the device offers global visibility (6.2 on; before, the core
 * refuses the MR access bit), a FLUSH of a range just written, of the
 * whole MR and of no bytes completes as IB_UVERBS_WC_FLUSH; a persistent
 * one, or one past the MR, gets a remote access error. On every kernel a
 * FLUSH to an MR without the access gets a remote access error, and one
 * with no placement type or a reserved selectivity level fails before it
 * is sent.
 */
void flush_ops(void)
{
	char *buf = aligned_alloc(4096, 8192);
	uint64_t va = (uintptr_t)buf, bva = (uintptr_t)B.buf;
	struct ibv_device_attr_ex da;
	struct ibv_mr *mr;
	int known;

	if (!check(buf && !ibv_query_device_ex(B.ctx, NULL, &da),
		   "query_device_ex"))
		return;
	known = (da.device_cap_flags_ex >> 38) & 1;
	memset(buf, 0, 8192);
	mr = ibv_reg_mr(B.pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | FLUSH_GLOBAL_ACCESS);
	check(!!mr == known, "an MR allowing FLUSH_GLOBAL %s, capability bit 38 %d",
	      mr ? "registered" : "refused", known);
	fill(A.buf, 4096);
	if (mr) {
		flush_case("a range just written", mr->rkey, va + 4096, 4096,
			   1, 0, 4096, IBV_WC_SUCCESS);
		check(!memcmp(buf + 4096, A.buf, 4096) && !buf[4095],
		      "the WRITE before the FLUSH placed, nothing else");
		flush_case("the whole MR", mr->rkey, 0, 0, 1, 1, 0,
			   IBV_WC_SUCCESS);
		flush_case("no bytes", mr->rkey, va, 0, 1, 0, 0, IBV_WC_SUCCESS);
		flush_case("persistence", mr->rkey, va, 64, 2, 0, 0,
			   IBV_WC_REM_ACCESS_ERR);
		flush_case("past the MR", mr->rkey, va + 4096, 8192, 1, 0, 0,
			   IBV_WC_REM_ACCESS_ERR);
		ibv_dereg_mr(mr);
	}
	flush_case("an MR without the access", B.mr->rkey, bva, 64, 1, 0, 0,
		   IBV_WC_REM_ACCESS_ERR);
	flush_case("no placement type", B.mr->rkey, bva, 64, 0, 0, 0,
		   IBV_WC_LOC_QP_OP_ERR);
	flush_case("a reserved selectivity level", B.mr->rkey, bva, 64, 1, 2, 0,
		   IBV_WC_LOC_QP_OP_ERR);
	free(buf);
}

/*
 * wire: QP pairs held open for the wire tests, which inject crafted
 * packets (roce_inject) between commands read from stdin, one per line,
 * each answered by one line on stdout ("ERR ..." if it could not be done):
 *   new rc|uc [TIMEOUT]  a connected pair (both PSNs start at 1000), RC
 *                        with that local ACK timeout (default 14; retry
 *                        count 7): "pair=P qpa=N qpb=N"
 *   post P a|b OP LEN [LOFF [ROFF [ADD_OR_SWAP [COMPARE]]]]
 *                        OP send|write|read|fadd|cswap from that side's QP
 *                        of pair P, local buffer at LOFF, the peer's at
 *                        ROFF: "psn=FIRST npkts=N"
 *   uwrites P a|b N LEN  N unsignaled WRITEs of LEN bytes (the i-th at
 *                        i * LEN on both sides) in one post_send:
 *                        "psn=FIRST npkts=N"
 *   recv P a|b N LEN     N receives of LEN bytes at offset 0: "ok"
 *   psn P a|b            the next PSN that side sends: "psn=N"
 *   poll a|b SECS N      up to N completions of that side within SECS:
 *                        "wc n=K STATUS:OPCODE:BYTE_LEN..." (numbers)
 *   state P a|b          "state=RTS" (RESET INIT RTR RTS SQD SQE ERR)
 *   dump a|b OFF LEN     the buffer bytes in hex: "hex=..."
 *   fill a|b OFF LEN B   set bytes: "ok"
 *   mr a|b ACCESS        register that side's whole buffer once more, with
 *                        ACCESS (raw IBV_ACCESS_* bits, also ones this
 *                        libibverbs has no name for): "rkey=N", or
 *                        "rkey=- errno=E" if the kernel refuses
 *   caps a|b             the device's capability flags, all 64 bits of
 *                        ibv_query_device_ex(): "caps=0x..."
 * At start: "va_a=0x.. rkey_a=N va_b=0x.. rkey_b=N mtu=BYTES".
 */
