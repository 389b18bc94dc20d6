// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: matches ACKs, NAKs, read responses and atomic ACKs to the
 * oldest outstanding send WQEs, places read and atomic results, completes
 * WQEs in order, and drives retransmission (local ACK timeout, PSN sequence
 * NAK) and RNR waits.
 */
#include "sroce.h"
#include "comp.h"
#include "copy.h"
#include "counters.h"
#include "cq.h"
#include "hold.h"
#include "local.h"
#include "mr.h"
#include "qp.h"
#include "req.h"
#include "sched.h"
#include "trace.h"
#include "xmit.h"

/* RNR NAK timer codes (IBA Table 45), in microseconds. */
static const u32 sroce_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The local ACK timer runs to a deadline (comp.deadline, while
 * comp.armed) that the data path moves without touching the timer: a
 * response only pushes the deadline out, and the end of all outstanding
 * packets only disarms it. So a QP trading small messages costs no timer
 * operation per message. Fired early (the deadline moved), the timer
 * waits for the rest; disarmed, it does nothing.
 */
static void sroce_retrans_timeout(struct timer_list *t)
{
	struct sroce_qp *qp = timer_container_of(qp, t, comp.retrans_timer);
	unsigned long deadline = READ_ONCE(qp->comp.deadline);

	if (!READ_ONCE(qp->comp.armed))
		return;
	if (time_before(jiffies, deadline)) {
		if (!READ_ONCE(qp->dying))
			mod_timer(&qp->comp.retrans_timer, deadline);
		return;
	}
	/* Run out: the completer decides, and arms it again if need be. */
	WRITE_ONCE(qp->comp.armed, false);
	WRITE_ONCE(qp->comp.timed_out, true);
	sroce_qp_sched(qp);
}

static enum hrtimer_restart sroce_rnr_timeout(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, comp.rnr_timer);

	WRITE_ONCE(qp->comp.rnr_wait, false);
	sroce_qp_sched(qp);
	return HRTIMER_NORESTART;
}

void sroce_comp_timers_init(struct sroce_qp *qp)
{
	timer_setup(&qp->comp.retrans_timer, sroce_retrans_timeout, 0);
	hrtimer_setup(&qp->comp.rnr_timer, sroce_rnr_timeout, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * A floor under every QP's local ACK timeout, for hosts where sroce runs
 * far slower than the peer's timeout assumes (a KASAN and lockdep kernel
 * under emulation is 10 to 50 times slower): there a short timeout expires
 * while the responder is still working, and the retransmissions it starts
 * only add to the backlog.
 */
static unsigned int min_ack_timeout_ms;
module_param(min_ack_timeout_ms, uint, 0644);
MODULE_PARM_DESC(min_ack_timeout_ms,
		 "Lower bound of the local ACK timeout in ms (default 0: none)");

/*
 * Local ACK timeout: 4.096 us * 2^timeout; 0 disables it. Never shorter:
 * rounded up to whole jiffies, plus one for the jiffy under way when the
 * timer is set (at HZ=250, timeout 14 is 67.1 ms: 18 jiffies, 68-72 ms;
 * nsecs_to_jiffies() rounded it down to 16, which fired after 60-64 ms and
 * resent to a peer still within its 67 ms).
 */
unsigned long sroce_comp_ack_timeout(struct sroce_qp *qp)
{
	u8 t = qp->attr.timeout;

	if (!t)
		return 0;
	return max((unsigned long)DIV_ROUND_UP_ULL(4096ULL << t,
						   NSEC_PER_SEC / HZ) + 1,
		   msecs_to_jiffies(READ_ONCE(min_ack_timeout_ms)));
}

/*
 * How long packets sent without asking for an ACK wait for a packet that
 * asks before the requester probes (req.c): a quarter of the ACK timeout,
 * so that the probe comes well before it, and long enough that a vCPU
 * stopped for a few ms by its host does not make one.
 */
unsigned long sroce_comp_probe_delay(struct sroce_qp *qp)
{
	unsigned long t = sroce_comp_ack_timeout(qp);

	return max(t ? t / 4 : msecs_to_jiffies(16), 2UL);
}

/* The timeout runs out @t jiffies from now; the timer is started if idle. */
static void sroce_comp_deadline(struct sroce_qp *qp, unsigned long t)
{
	unsigned long deadline = jiffies + t;

	WRITE_ONCE(qp->comp.deadline, deadline);
	WRITE_ONCE(qp->comp.armed, true);
	if (!timer_pending(&qp->comp.retrans_timer) && !READ_ONCE(qp->dying))
		mod_timer(&qp->comp.retrans_timer, deadline);
}

/* The completer's state for a QP entering RTS, or sent back to its start. */
void sroce_comp_reset(struct sroce_qp *qp)
{
	qp->comp.psn = qp->attr.sq_psn;
	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.timed_out = false;
	WRITE_ONCE(qp->comp.armed, false);
	qp->comp.rnr_wait = false;
	qp->comp.gap_valid = false;
}

/* Packets are outstanding: start the timeout unless it is running. */
void sroce_comp_arm(struct sroce_qp *qp)
{
	unsigned long t = sroce_comp_ack_timeout(qp);

	if (t && !READ_ONCE(qp->comp.armed))
		sroce_comp_deadline(qp, t);
}

/*
 * Packets from the oldest unacknowledged one are being sent again: their
 * timeout starts now.
 */
void sroce_comp_restart(struct sroce_qp *qp)
{
	unsigned long t = sroce_comp_ack_timeout(qp);

	if (t)
		sroce_comp_deadline(qp, t);
}

/* A response came: the timeout starts again, or stops when all is acked. */
static void sroce_comp_rearm(struct sroce_qp *qp)
{
	unsigned long t = sroce_comp_ack_timeout(qp);

	if (qp->comp.psn == qp->req.psn_max || !t)
		WRITE_ONCE(qp->comp.armed, false);
	else
		sroce_comp_deadline(qp, t);
}

static enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case SROCE_WR_ATOMIC_WRITE:
		return (enum ib_wc_opcode)SROCE_WC_ATOMIC_WRITE;
	case SROCE_WR_FLUSH:
		return (enum ib_wc_opcode)SROCE_WC_FLUSH;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Complete the WQE at the head of the send queue: release its slot, post
 * a completion if it was signaled or failed. A failure puts the QP in the
 * error state, which flushes the rest.
 */
void sroce_send_wqe_complete(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			     enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = wqe->wr.wr_id,
		.status = status,
		.qp = &qp->ibqp,
		.port_num = SROCE_PORT,
	};
	bool sig = qp->sq_sig_all || (wqe->wr.send_flags & IB_SEND_SIGNALED);

	sroce_req_completing(qp, wqe);
	sroce_queue_advance(&qp->sq);

	if (status == IB_WC_SUCCESS) {
		wc.opcode = sroce_wc_opcode(wqe->wr.opcode);
		wc.byte_len = wqe->dma.length;
		if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM ||
		    wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			wc.wc_flags = IB_WC_WITH_IMM;
	} else {
		wc.opcode = sroce_wc_opcode(wqe->wr.opcode);
		sig = true;
	}
	if (sig)
		sroce_cq_post(to_scq(qp->ibqp.send_cq), &wc, false);
	if (status == IB_WC_LOC_QP_OP_ERR || status == IB_WC_LOC_LEN_ERR ||
	    status == IB_WC_LOC_PROT_ERR || status == IB_WC_MW_BIND_ERR)
		/* A local work queue error: "QP fatal" (IBA 11.6.3.3). */
		sroce_qp_error(qp, IB_EVENT_QP_FATAL);
	else if (status != IB_WC_SUCCESS)
		sroce_qp_error(qp, 0);
}

/* Has @wqe been given its PSNs: sent, in part at least? */
static bool sroce_wqe_has_psns(struct sroce_qp *qp, struct sroce_send_wqe *wqe)
{
	return wqe->state == SROCE_WQE_SENT ||
	       wqe->state == SROCE_WQE_RESEND ||
	       (wqe->state == SROCE_WQE_POSTED && qp->req.offset &&
		sroce_sq_copy(qp, qp->req.wqe_index) == wqe);
}

/* The oldest WQE not completed, or NULL. Only fetched WQEs count. */
static struct sroce_send_wqe *sroce_comp_head(struct sroce_qp *qp)
{
	if (qp->sq.index == qp->req.fetched)
		return NULL;
	return sroce_sq_copy(qp, qp->sq.index);
}

/*
 * Move the acknowledged point forward to just after @psn. A late ACK may
 * cover packets that a rewind is sending again: the requester then skips
 * forward to the new point instead of resending what has arrived.
 */
static void sroce_comp_ack_to(struct sroce_qp *qp, u32 psn)
{
	u32 next = sroce_psn_add(psn, 1);

	if (sroce_psn_cmp(next, qp->comp.psn) > 0 &&
	    sroce_psn_cmp(next, qp->req.psn_max) <= 0) {
		qp->comp.psn = next;
		sroce_req_acked(qp);
		qp->comp.gap_valid = false;
		qp->comp.retry_left = qp->attr.retry_cnt;
		qp->comp.rnr_left = qp->attr.rnr_retry;
		/* Past a packet not yet sent again: sroce_req_step() resumes. */
	}
}

/*
 * Complete WQEs that need no response: finished, failed, or acked by @psn.
 * The acknowledged point moves past each WQE acked, whatever the caller
 * does next, so that the requester never goes on from a PSN inside a
 * message completed under it (one being sent again).
 */
static bool sroce_comp_done(struct sroce_qp *qp, bool have_psn, u32 psn)
{
	struct sroce_send_wqe *wqe;
	bool progress = false;

	while ((wqe = sroce_comp_head(qp))) {
		if (wqe->state == SROCE_WQE_DONE) {
			sroce_send_wqe_complete(qp, wqe, wqe->status);
		} else if (have_psn && (wqe->state == SROCE_WQE_SENT ||
					wqe->state == SROCE_WQE_RESEND) &&
			   !(wqe->mask & SROCE_F_RD_ATOMIC) &&
			   sroce_psn_cmp(wqe->last_psn, psn) <= 0) {
			sroce_comp_ack_to(qp, wqe->last_psn);
			sroce_send_wqe_complete(qp, wqe, IB_WC_SUCCESS);
		} else {
			break;
		}
		progress = true;
		if (qp->state == IB_QPS_ERR)
			break;
	}
	return progress;
}

/*
 * An ACK or NAK that acknowledges up to @psn: complete the sends and writes
 * it covers and move the acknowledged point, but never past a read or
 * atomic at the head: an ACK covering its PSNs says only that the responder
 * executed it, and its data are still missing (lost, or behind the ACK).
 * The point then stays at the first response missing, where a rewind asks
 * again. Returns true when such a request holds the point back.
 */
static bool sroce_comp_ack_covering(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send_wqe *wqe;

	sroce_comp_done(qp, true, psn);
	wqe = sroce_comp_head(qp);
	if (wqe && (wqe->mask & SROCE_F_RD_ATOMIC) &&
	    sroce_wqe_has_psns(qp, wqe) &&
	    sroce_psn_cmp(wqe->first_psn, psn) <= 0) {
		sroce_comp_ack_to(qp, sroce_psn_add(wqe->first_psn, -1));
		return true;
	}
	sroce_comp_ack_to(qp, psn);
	return false;
}

static void sroce_comp_retry(struct sroce_qp *qp, bool timeout)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_send_wqe *wqe = sroce_comp_head(qp);

	if (!wqe)
		return;
	if (!qp->comp.retry_left) {
		sroce_count(sdev, SROCE_CNT_RETRY_EXCEEDED);
		sroce_send_wqe_complete(qp, wqe, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_left--;
	/* By cause: a timeout, or a NAK (sequence, or a response missing). */
	sroce_count(sdev, timeout ? SROCE_CNT_COMP_RETRY :
				    SROCE_CNT_RETRANS_NAK);
	sroce_count(sdev, SROCE_CNT_RETRANSMITS);
	trace_sroce_retransmit(qp->ibqp.device->index, qp->ibqp.qp_num,
			       qp->comp.psn,
			       timeout ? SROCE_RETRY_TIMEOUT : SROCE_RETRY_NAK);
	sroce_req_retry(qp, true);
}

/*
 * A response is missing: ask again from the gap, once. What is held stays
 * and is taken when the answer fills the gap (the rest of the replay then
 * comes before the expected PSN and is ignored).
 */
static void sroce_comp_gap(struct sroce_qp *qp)
{
	if (!qp->comp.gap_valid || qp->comp.gap_psn != qp->comp.psn) {
		qp->comp.gap_valid = true;
		qp->comp.gap_psn = qp->comp.psn;
		sroce_hold_lost(&qp->resp_held, qp->comp.psn);
		sroce_comp_retry(qp, false);
	}
}

/*
 * An ACK past a read or atomic at the head whose response has not come:
 * lost, or overtaken by the ACK on the way (QEMU's queue in front of a
 * full NIC ring lets a frame pass the ones queued: rc/nic, where asking
 * again at once resent 31 READs of 4 MiB with no frame lost). The ACK
 * waits in the hold like a response ahead of its turn, and is taken once
 * the responses before it came; the gap is a loss only when the hold gives
 * up (its wait runs out, or it is full). True if @skb was kept.
 */
static bool sroce_comp_ack_ahead(struct sroce_qp *qp, struct sk_buff *skb,
				 u32 psn)
{
	struct sroce_send_wqe *wqe = sroce_comp_head(qp);

	/* Never at a PSN of the request itself: the hold keeps one per PSN. */
	if (sroce_psn_cmp(psn, wqe->last_psn) > 0 &&
	    sroce_hold(qp, &qp->resp_held, skb, qp->comp.psn))
		return true;
	sroce_comp_gap(qp);
	return false;
}

static enum ib_wc_status sroce_nak_status(u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REMOTE_ACCESS:
		return IB_WC_REM_ACCESS_ERR;
	default:
		return IB_WC_REM_OP_ERR;
	}
}

/* True if @skb was kept (held: an ACK ahead of its turn). */
static bool sroce_comp_aeth(struct sroce_qp *qp, struct sk_buff *skb, u32 psn)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_aeth *aeth = sroce_ext(skb, 0);
	u8 syn = sroce_aeth_syndrome(aeth);
	u8 value = sroce_syndrome_value(syn);	/* RNR timer, NAK code */
	struct sroce_send_wqe *wqe;

	/*
	 * A NAK older than the oldest PSN not yet acknowledged is a
	 * duplicate or a forgery: ignore it (IBA 9.7.5.1.1, as rxe does).
	 */
	if (sroce_syndrome_is_nak(syn) && sroce_psn_cmp(psn, qp->comp.psn) < 0)
		return false;
	if (sroce_syndrome_is_nak(syn))
		trace_sroce_nak_recv(qp->ibqp.device->index, qp->ibqp.qp_num,
				     psn, syn);

	switch (sroce_syndrome_type(syn)) {
	case SROCE_AETH_ACK:
		/*
		 * An ACK past a read or atomic we have no answer for: its
		 * response was lost, or is behind.
		 */
		if (sroce_comp_ack_covering(qp, psn) &&
		    sroce_comp_head(qp)->state == SROCE_WQE_SENT)
			return sroce_comp_ack_ahead(qp, skb, psn);
		break;
	case SROCE_AETH_RNR_NAK:
		sroce_count(sdev, SROCE_CNT_RCV_RNR);
		/* Everything before the NAKed PSN is acknowledged. */
		sroce_comp_ack_covering(qp, sroce_psn_add(psn, -1));
		wqe = sroce_comp_head(qp);
		if (!wqe)
			break;
		if (!qp->comp.rnr_left) {
			sroce_count(sdev, SROCE_CNT_RNR_RETRY_EXCEEDED);
			sroce_send_wqe_complete(qp, wqe, IB_WC_RNR_RETRY_EXC_ERR);
			return false;
		}
		if (qp->comp.rnr_left != 7)	/* 7 means retry forever */
			qp->comp.rnr_left--;
		sroce_count(sdev, SROCE_CNT_RETRANS_RNR);
		trace_sroce_retransmit(qp->ibqp.device->index,
				       qp->ibqp.qp_num, qp->comp.psn,
				       SROCE_RETRY_RNR);
		sroce_req_retry(qp, false);
		qp->comp.rnr_wait = true;
		if (!qp->dying)
			hrtimer_start(&qp->comp.rnr_timer,
				      sroce_us(sroce_rnr_usecs[value]),
				      HRTIMER_MODE_REL_SOFT);
		break;
	case SROCE_AETH_NAK:
		sroce_count(sdev, sroce_nak_counter(value, false));
		if (value == SROCE_NAK_PSN_SEQ) {
			/*
			 * The requests before @psn arrived; a read among them
			 * whose responses did not is asked again from its gap.
			 */
			sroce_comp_ack_covering(qp, sroce_psn_add(psn, -1));
			sroce_comp_retry(qp, false);
			break;
		}
		sroce_comp_done(qp, true, sroce_psn_add(psn, -1));
		wqe = sroce_comp_head(qp);
		/* Only the request the NAK names fails. */
		if (wqe && sroce_wqe_has_psns(qp, wqe) &&
		    sroce_psn_cmp(psn, wqe->first_psn) >= 0 &&
		    sroce_psn_cmp(psn, wqe->last_psn) <= 0)
			sroce_send_wqe_complete(qp, wqe,
						sroce_nak_status(value));
		return false;
	default:
		return false;
	}
	return false;
}

/* An atomic's ACKNOWLEDGE: the original value, into the WQE's buffer. */
static void sroce_comp_atomic(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			      struct sk_buff *skb, u32 psn)
{
	struct sroce_atmack *ack = sroce_ext(skb, sizeof(struct sroce_aeth));
	u64 orig = sroce_atmack_orig(ack);
	int err;

	if (!(wqe->mask & SROCE_F_ATOMIC))
		return;
	err = sroce_sge_copy(qp, wqe->dma.sge, 1, 0, &orig, 8, true);
	if (err == -EAGAIN)
		return;	/* an ODP page on its way: the ACK's resend will do */
	if (err) {
		sroce_send_wqe_complete(qp, wqe, IB_WC_LOC_PROT_ERR);
		return;
	}
	sroce_comp_ack_to(qp, psn);
	sroce_send_wqe_complete(qp, wqe, IB_WC_SUCCESS);
}

/* ATOMIC WRITE's and FLUSH's answer: an RDMA READ response of no payload. */
static void sroce_comp_empty_read(struct sroce_qp *qp,
				  struct sroce_send_wqe *wqe,
				  const struct sroce_pkt *pkt, u32 psn)
{
	if ((pkt->flags & SROCE_F_ONLY) != SROCE_F_ONLY || pkt->paylen ||
	    !(pkt->flags & SROCE_F_READ)) {
		sroce_send_wqe_complete(qp, wqe, IB_WC_BAD_RESP_ERR);
		return;
	}
	sroce_comp_ack_to(qp, psn);
	sroce_send_wqe_complete(qp, wqe, IB_WC_SUCCESS);
}

/* An RDMA READ response: its payload placed where the WQE says. */
static void sroce_comp_read(struct sroce_qp *qp, struct sroce_send_wqe *wqe,
			    struct sk_buff *skb, u32 psn)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 off, last;
	int err;

	if (!(wqe->mask & SROCE_F_READ))
		return;
	off = sroce_psn_diff(psn, wqe->first_psn) * qp->mtu;
	last = sroce_psn_add(psn, pkt->span - 1);
	/* Full-MTU responses but the last, which brings the exact total. */
	if (off > wqe->dma.length ||
	    pkt->paylen > wqe->dma.length - off ||
	    !sroce_pkt_len_ok(pkt, qp->mtu) ||
	    ((pkt->flags & SROCE_F_LAST) &&
	     (last != wqe->last_psn || off + pkt->paylen != wqe->dma.length))) {
		sroce_send_wqe_complete(qp, wqe, IB_WC_BAD_RESP_ERR);
		return;
	}
	err = pkt->paylen ?
	      sroce_payload_to_sge(skb, qp, wqe->dma.sge, wqe->dma.num_sge,
				   off) : 0;
	/*
	 * An ODP page on its way: taken as lost, the READ is asked again
	 * from here (a gap, or the timeout).
	 */
	if (err == -EAGAIN)
		return;
	if (err) {
		sroce_send_wqe_complete(qp, wqe, IB_WC_LOC_PROT_ERR);
		return;
	}
	sroce_comp_ack_to(qp, last);
	if (pkt->flags & SROCE_F_LAST)
		sroce_send_wqe_complete(qp, wqe, IB_WC_SUCCESS);
}

/*
 * A read response or atomic ACK for the WQE at the head; true if @skb was
 * kept (held: ahead of its turn, hold.c).
 */
static bool sroce_comp_data(struct sroce_qp *qp, struct sk_buff *skb, u32 psn)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_send_wqe *wqe;

	/* Earlier sends and writes are acknowledged by this response. */
	sroce_comp_done(qp, true, sroce_psn_add(psn, -1));
	/* Placed already: a replay from a gap sends again what came after. */
	if (sroce_psn_cmp(psn, qp->comp.psn) < 0) {
		sroce_hold_dup(qp, &qp->resp_held, psn);
		return false;
	}
	wqe = sroce_comp_head(qp);
	/*
	 * Not while the request waits to be sent again (RESEND): its
	 * answer then comes from the new request, which a response taken
	 * now would move, and the responder restart, again and again.
	 */
	if (!wqe || wqe->state != SROCE_WQE_SENT ||
	    sroce_psn_cmp(psn, wqe->first_psn) < 0 ||
	    sroce_psn_cmp(psn, wqe->last_psn) > 0)
		return false;	/* stale or unexpected: ignore */
	if (psn != qp->comp.psn) {
		/* Ahead of the one expected: reordered on the way, perhaps. */
		if (sroce_hold(qp, &qp->resp_held, skb, qp->comp.psn))
			return true;
		sroce_comp_gap(qp);
		return false;
	}
	sroce_hold_progress(&qp->resp_held);

	if (pkt->flags & SROCE_F_ATOMIC)
		sroce_comp_atomic(qp, wqe, skb, psn);
	else if (wqe->mask & (SROCE_F_ATOMIC_WRITE | SROCE_F_FLUSH))
		sroce_comp_empty_read(qp, wqe, pkt, psn);
	else
		sroce_comp_read(qp, wqe, skb, psn);
	return false;
}

/*
 * A response whose AETH carries an RNR or NAK syndrome. Read responses and
 * atomic ACKs carry an AETH too; a NAK there is honoured like in an ACK.
 */
static bool sroce_comp_is_nak(struct sroce_pkt *pkt, struct sk_buff *skb)
{
	struct sroce_aeth *aeth = sroce_ext(skb, 0);

	if (!(pkt->flags & SROCE_F_AETH))
		return false;
	return sroce_syndrome_is_nak(sroce_aeth_syndrome(aeth));
}

/* The next response: a held one whose turn has come, then the queue's. */
static struct sk_buff *sroce_comp_next(struct sroce_qp *qp)
{
	struct sk_buff *skb = sroce_hold_next(&qp->resp_held, qp->comp.psn);

	/* Not even the queue's lock when it is empty. */
	if (!skb && !skb_queue_empty_lockless(&qp->resp_pkts))
		skb = skb_dequeue(&qp->resp_pkts);
	return skb;
}

bool sroce_completer(struct sroce_qp *qp, int *budget)
{
	bool progress = false, responded = false;
	struct sk_buff *skb;
	u32 psn;

	sroce_qp_assert_run(qp);

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD &&
	    qp->state != IB_QPS_SQE)
		return false;

	progress |= sroce_comp_done(qp, false, 0);
	while (*budget > 0 && qp->state != IB_QPS_ERR &&
	       (skb = sroce_comp_next(qp))) {
		struct sroce_pkt *pkt = sroce_pkt(skb);
		bool kept = false;

		(*budget)--;
		progress = true;
		psn = pkt->psn;
		if (sroce_psn_cmp(psn, qp->req.psn_max) >= 0) {
			/*
			 * A response to something never sent: no sign of a
			 * responder at work, and no reason to skip a timeout.
			 */
			kfree_skb(skb);
			continue;
		}
		responded = true;
		if (sroce_comp_is_nak(pkt, skb))
			kept = sroce_comp_aeth(qp, skb, psn);
		else if (pkt->flags & (SROCE_F_READ | SROCE_F_ATOMIC))
			kept = sroce_comp_data(qp, skb, psn);
		else if (pkt->flags & SROCE_F_AETH)
			kept = sroce_comp_aeth(qp, skb, psn);
		if (!kept)
			sroce_skb_done(qp, skb);
		/*
		 * Any response to what was sent shows a responder at work,
		 * even one that acknowledges nothing new: a responder reads a
		 * READ that resends from a gap only after the responses it is
		 * streaming, and replays from there; timing out meanwhile
		 * would only queue more replays behind it.
		 */
		sroce_comp_rearm(qp);
	}
	/* Not while responses wait to be read: one of them may fill the gap. */
	if (qp->state != IB_QPS_ERR && skb_queue_empty_lockless(&qp->resp_pkts) &&
	    sroce_hold_expired(qp, &qp->resp_held))
		sroce_comp_gap(qp);

	if (READ_ONCE(qp->comp.timed_out) && qp->state != IB_QPS_ERR) {
		WRITE_ONCE(qp->comp.timed_out, false);
		/*
		 * Responses read in this pass, or waiting to be read: the
		 * timer fired while they sat in the queue (this QP's work was
		 * busy sending), so nothing was lost; the loop above has
		 * restarted the timer from them. Retrying here resent a long
		 * message's unacknowledged tail 67 ms after its first packet
		 * whatever the ACKs in between said (two-VM run, MTU 9000).
		 */
		if (!responded && !skb_queue_empty(&qp->resp_pkts))
			sroce_comp_arm(qp);
		/*
		 * Waiting out an RNR NAK (or a back-off) is no loss: the
		 * responder answered, and an RNR timer longer than the ACK
		 * timeout must not use up the retries meanwhile.
		 */
		else if (!responded &&
			 (READ_ONCE(qp->comp.rnr_wait) || qp->req.backoff))
			sroce_comp_arm(qp);
		else if (!responded && qp->comp.psn != qp->req.psn_max &&
			 sroce_comp_head(qp))
			sroce_comp_retry(qp, true);
		progress = true;
	}
	if (qp->state != IB_QPS_ERR)
		progress |= sroce_comp_done(qp, false, 0);
	return progress;
}
