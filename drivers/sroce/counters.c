// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Port hardware counters. The data path bumps per-CPU counters in the
 * device, so that no cache line is shared between the CPUs that send and
 * receive; the RDMA core reads their sums through ->get_hw_stats.
 */
#include "sroce.h"
#include "counters.h"
#include "trace.h"

static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_SENT_PKTS].name		= "sent_pkts",
	[SROCE_CNT_RCVD_PKTS].name		= "rcvd_pkts",
	[SROCE_CNT_DUP_REQ].name		= "duplicate_request",
	[SROCE_CNT_OUT_OF_SEQ_REQ].name		= "out_of_seq_request",
	[SROCE_CNT_RCV_RNR].name		= "rcvd_rnr_err",
	[SROCE_CNT_SND_RNR].name		= "send_rnr_err",
	[SROCE_CNT_RCV_SEQ_ERR].name		= "rcvd_seq_err",
	[SROCE_CNT_ACK_DEFERRED].name		= "ack_deferred",
	[SROCE_CNT_RETRY_EXCEEDED].name		= "retry_exceeded_err",
	[SROCE_CNT_RNR_RETRY_EXCEEDED].name	= "retry_rnr_exceeded_err",
	[SROCE_CNT_COMP_RETRY].name		= "completer_retry_err",
	[SROCE_CNT_SEND_ERR].name		= "send_err",
	[SROCE_CNT_LINK_DOWNED].name		= "link_downed",
	[SROCE_CNT_RDMA_SENDS].name		= "rdma_sends",
	[SROCE_CNT_RDMA_RECVS].name		= "rdma_recvs",
	[SROCE_CNT_SENT_BYTES].name		= "sent_bytes",
	[SROCE_CNT_RCVD_BYTES].name		= "rcvd_bytes",
	[SROCE_CNT_RETRANSMITS].name		= "retransmits",
	[SROCE_CNT_RCVD_DROPPED].name		= "rcvd_dropped",
	[SROCE_CNT_RCVD_ICRC_ERR].name		= "rcvd_icrc_err",
	/* Retransmissions by cause: completer_retry_err counts timeouts. */
	[SROCE_CNT_RETRANS_NAK].name		= "retrans_nak",
	[SROCE_CNT_RETRANS_RNR].name		= "retrans_rnr",
	/* Packets sent again only to ask for an ACK (req.c, probe). */
	[SROCE_CNT_ACK_PROBES].name		= "ack_probes",
	[SROCE_CNT_DROP_BAD_HDR].name		= "rcvd_drop_bad_hdr",
	[SROCE_CNT_DROP_NO_QP].name		= "rcvd_drop_no_qp",
	[SROCE_CNT_DROP_QP_STATE].name		= "rcvd_drop_qp_state",
	[SROCE_CNT_DROP_ADDR].name		= "rcvd_drop_addr",
	[SROCE_CNT_DROP_QUEUE_FULL].name	= "rcvd_drop_queue_full",
	[SROCE_CNT_DROP_QKEY].name		= "rcvd_drop_qkey",
	[SROCE_CNT_DROP_NO_WQE].name		= "rcvd_drop_no_wqe",
	[SROCE_CNT_DROP_BAD_READ].name		= "rcvd_drop_bad_read",
	[SROCE_CNT_REORDER_HELD].name		= "reorder_held",
	[SROCE_CNT_GAP_LOST_WAIT].name		= "gap_lost_wait",
	[SROCE_CNT_GAP_LOST_FULL].name		= "gap_lost_full",
	[SROCE_CNT_GAP_SPURIOUS].name		= "gap_spurious",
	[SROCE_CNT_HOLD_CONFLICT].name		= "hold_conflict",
	[SROCE_CNT_SENT_NAK_SEQ].name		= "sent_nak_seq_err",
	[SROCE_CNT_SENT_NAK_INV_REQ].name	= "sent_nak_inv_req",
	[SROCE_CNT_SENT_NAK_REM_ACCESS].name	= "sent_nak_rem_access",
	[SROCE_CNT_SENT_NAK_REM_OP].name	= "sent_nak_rem_op",
	[SROCE_CNT_RCVD_NAK_INV_REQ].name	= "rcvd_nak_inv_req",
	[SROCE_CNT_RCVD_NAK_REM_ACCESS].name	= "rcvd_nak_rem_access",
	[SROCE_CNT_RCVD_NAK_REM_OP].name	= "rcvd_nak_rem_op",
	[SROCE_CNT_TX_WAIT].name		= "tx_wait",
	[SROCE_CNT_TX_ORDER_WAIT].name		= "tx_order_wait",
	[SROCE_CNT_ODP_WAIT].name		= "odp_wait",
	[SROCE_CNT_SEND_ERR_ROUTE].name		= "send_err_route",
	[SROCE_CNT_SEND_ERR_QDISC].name		= "send_err_qdisc",
	[SROCE_CNT_SEND_ERR_IP].name		= "send_err_ip",
	[SROCE_CNT_SEND_ERR_OTHER].name		= "send_err_other",
	[SROCE_CNT_NP_ECN_MARKED].name		= "np_ecn_marked_roce_packets",
	[SROCE_CNT_NP_CNP_SENT].name		= "np_cnp_sent",
	[SROCE_CNT_RP_CNP_HANDLED].name		= "rp_cnp_handled",
	[SROCE_CNT_RP_CNP_IGNORED].name		= "rp_cnp_ignored",
};

/*
 * The counter of a NAK's code (the low five bits of its syndrome), sent
 * (@sent) or received; a code IBA reserves counts as a remote operational
 * error, which is how the completer takes it.
 */
enum sroce_counter sroce_nak_counter(u8 code, bool sent)
{
	switch (code) {
	case SROCE_NAK_PSN_SEQ:
		return sent ? SROCE_CNT_SENT_NAK_SEQ : SROCE_CNT_RCV_SEQ_ERR;
	case SROCE_NAK_INVALID_REQ:
		return sent ? SROCE_CNT_SENT_NAK_INV_REQ :
			      SROCE_CNT_RCVD_NAK_INV_REQ;
	case SROCE_NAK_REMOTE_ACCESS:
		return sent ? SROCE_CNT_SENT_NAK_REM_ACCESS :
			      SROCE_CNT_RCVD_NAK_REM_ACCESS;
	default:
		return sent ? SROCE_CNT_SENT_NAK_REM_OP :
			      SROCE_CNT_RCVD_NAK_REM_OP;
	}
}

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_NUM_COUNTERS);

void sroce_count_drop(struct sroce_dev *sdev, enum sroce_counter cause)
{
	sroce_count(sdev, SROCE_CNT_RCVD_DROPPED);
	sroce_count(sdev, cause);
	trace_sroce_drop(sdev->ibdev.index, cause);
}

void sroce_count_send_err(struct sroce_dev *sdev, enum sroce_counter cause)
{
	sroce_count(sdev, SROCE_CNT_SEND_ERR);
	sroce_count(sdev, cause);
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int cpu, i;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = 0;
	/* Each CPU's u64 is written by that CPU alone; a 64-bit read is whole. */
	for_each_possible_cpu(cpu) {
		const struct sroce_stats *s = per_cpu_ptr(sdev->stats, cpu);

		for (i = 0; i < SROCE_NUM_COUNTERS; i++)
			stats->value[i] += READ_ONCE(s->v[i]);
	}

	return SROCE_NUM_COUNTERS;
}

/* The sum of one counter over the CPUs (see sroce_get_hw_stats()). */
u64 sroce_counter_read(struct sroce_dev *sdev, enum sroce_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(sdev->stats, cpu)->v[c]);
	return sum;
}
