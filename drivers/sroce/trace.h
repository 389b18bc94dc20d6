/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the sroce: system (tracefs events/sroce/, perf trace,
 * trace-cmd, bpftrace). Each costs a static branch while it is off. The
 * fields are numbers only: the device's index (as "rdma dev" prints it;
 * QPNs are per device), the QP number, the BTH opcode and PSN, an AETH
 * syndrome, a cause.
 *
 * Included by trace.c with CREATE_TRACE_POINTS, and by every file that
 * fires an event.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>

#include "counters.h"

/*
 * Why a resend starts (sroce_retransmit): the local ACK timer; a sequence
 * NAK, or a gap in READ responses; an RNR NAK (the resend waits its timer).
 */
#define SROCE_RETRY_TIMEOUT	0
#define SROCE_RETRY_NAK		1
#define SROCE_RETRY_RNR		2

/*
 * A packet handed to IP or loopback (sent); sroce_recv below: taken and
 * checked. qpn: the sending QP; dqpn: the BTH's destination; len: the IB
 * bytes.
 */
TRACE_EVENT(sroce_send,
	TP_PROTO(u32 dev, u32 qpn, u32 dqpn, u8 opcode, u32 psn, u32 len),
	TP_ARGS(dev, qpn, dqpn, opcode, psn, len),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->dqpn = dqpn;
		__entry->psn = psn;
		__entry->len = len;
		__entry->opcode = opcode;
	),
	TP_printk("dev=%u qpn=%u dqpn=%u opcode=0x%02x psn=%u len=%u",
		  __entry->dev, __entry->qpn, __entry->dqpn, __entry->opcode,
		  __entry->psn, __entry->len)
);

/*
 * No QPN: not known yet (the BTH's dqpn picks the QP). len: the payload;
 * paged: the bytes of the packet left in page fragments, not copied into
 * the linear part (recv.c: only the headers are).
 */
TRACE_EVENT(sroce_recv,
	TP_PROTO(u32 dev, u32 dqpn, u8 opcode, u32 psn, u32 len, u32 paged),
	TP_ARGS(dev, dqpn, opcode, psn, len, paged),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, dqpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u32, paged)
		__field(u8, opcode)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->dqpn = dqpn;
		__entry->psn = psn;
		__entry->len = len;
		__entry->paged = paged;
		__entry->opcode = opcode;
	),
	TP_printk("dev=%u dqpn=%u opcode=0x%02x psn=%u len=%u paged=%u",
		  __entry->dev, __entry->dqpn, __entry->opcode, __entry->psn,
		  __entry->len, __entry->paged)
);

TRACE_DEFINE_ENUM(SROCE_CNT_RCVD_ICRC_ERR);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_BAD_HDR);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_NO_QP);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_QP_STATE);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_ADDR);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_QUEUE_FULL);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_QKEY);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_NO_WQE);
TRACE_DEFINE_ENUM(SROCE_CNT_DROP_BAD_READ);

/* A received packet dropped; cause: its counter, named as in hw_counters. */
TRACE_EVENT(sroce_drop,
	TP_PROTO(u32 dev, int cause),
	TP_ARGS(dev, cause),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(int, cause)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->cause = cause;
	),
	TP_printk("dev=%u cause=%s", __entry->dev,
		__print_symbolic(__entry->cause,
			{ SROCE_CNT_RCVD_ICRC_ERR, "rcvd_icrc_err" },
			{ SROCE_CNT_DROP_BAD_HDR, "rcvd_drop_bad_hdr" },
			{ SROCE_CNT_DROP_NO_QP, "rcvd_drop_no_qp" },
			{ SROCE_CNT_DROP_QP_STATE, "rcvd_drop_qp_state" },
			{ SROCE_CNT_DROP_ADDR, "rcvd_drop_addr" },
			{ SROCE_CNT_DROP_QUEUE_FULL, "rcvd_drop_queue_full" },
			{ SROCE_CNT_DROP_QKEY, "rcvd_drop_qkey" },
			{ SROCE_CNT_DROP_NO_WQE, "rcvd_drop_no_wqe" },
			{ SROCE_CNT_DROP_BAD_READ, "rcvd_drop_bad_read" }))
);

/* An RNR NAK or NAK (AETH syndrome) sent by a responder or received. */
DECLARE_EVENT_CLASS(sroce_nak_class,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, psn)
		__field(u8, syndrome)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->syndrome = syndrome;
	),
	TP_printk("dev=%u qpn=%u psn=%u syndrome=0x%02x", __entry->dev,
		  __entry->qpn, __entry->psn, __entry->syndrome)
);

DEFINE_EVENT(sroce_nak_class, sroce_nak_send,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome));

DEFINE_EVENT(sroce_nak_class, sroce_nak_recv,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, u8 syndrome),
	TP_ARGS(dev, qpn, psn, syndrome));

/* The requester goes back to @psn, the oldest PSN not acknowledged. */
TRACE_EVENT(sroce_retransmit,
	TP_PROTO(u32 dev, u32 qpn, u32 psn, int cause),
	TP_ARGS(dev, qpn, psn, cause),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, psn)
		__field(int, cause)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->psn = psn;
		__entry->cause = cause;
	),
	TP_printk("dev=%u qpn=%u psn=%u cause=%s", __entry->dev,
		  __entry->qpn, __entry->psn,
		  __print_symbolic(__entry->cause,
				   { SROCE_RETRY_TIMEOUT, "timeout" },
				   { SROCE_RETRY_NAK, "nak" },
				   { SROCE_RETRY_RNR, "rnr" }))
);

/* A QP's state changes (enum ib_qp_state: 0 RESET ... 6 ERR). */
TRACE_EVENT(sroce_qp_state,
	TP_PROTO(u32 dev, u32 qpn, int from, int to),
	TP_ARGS(dev, qpn, from, to),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("dev=%u qpn=%u from=%d to=%d", __entry->dev, __entry->qpn,
		  __entry->from, __entry->to)
);

/* A completion of QP @qpn did not fit in a CQ of @cqe entries: lost. */
TRACE_EVENT(sroce_cq_overflow,
	TP_PROTO(u32 dev, u32 qpn, u32 cqe),
	TP_ARGS(dev, qpn, cqe),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, cqe)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->cqe = cqe;
	),
	TP_printk("dev=%u qpn=%u cqe=%u", __entry->dev, __entry->qpn,
		  __entry->cqe)
);

/* Congestion notification (cc.c): a CNP QP @qpn sent or received. */
DECLARE_EVENT_CLASS(sroce_cnp_class,
	TP_PROTO(u32 dev, u32 qpn),
	TP_ARGS(dev, qpn),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
	),
	TP_printk("dev=%u qpn=%u", __entry->dev, __entry->qpn)
);

DEFINE_EVENT(sroce_cnp_class, sroce_cnp_sent,
	TP_PROTO(u32 dev, u32 qpn),
	TP_ARGS(dev, qpn));

DEFINE_EVENT(sroce_cnp_class, sroce_cnp_rcvd,
	TP_PROTO(u32 dev, u32 qpn),
	TP_ARGS(dev, qpn));

/* A QP's rate (cc.c): rc Mbit/s (0: unpaced), target rt, alpha in 1024ths. */
TRACE_EVENT(sroce_cc_rate,
	TP_PROTO(u32 dev, u32 qpn, u32 rc, u32 rt, u32 alpha),
	TP_ARGS(dev, qpn, rc, rt, alpha),
	TP_STRUCT__entry(
		__field(u32, dev)
		__field(u32, qpn)
		__field(u32, rc)
		__field(u32, rt)
		__field(u32, alpha)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->qpn = qpn;
		__entry->rc = rc;
		__entry->rt = rt;
		__entry->alpha = alpha;
	),
	TP_printk("dev=%u qpn=%u rc=%u rt=%u alpha=%u", __entry->dev,
		  __entry->qpn, __entry->rc, __entry->rt, __entry->alpha)
);

#endif /* SROCE_TRACE_H */

/* The define_trace.h part: where to find this file again, out of tree. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
