/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

/*
 * Port counters, shown by "rdma statistic" and in
 * /sys/class/infiniband/DEV/ports/1/hw_counters. The names of the first
 * fifteen match rdma_rxe's so existing monitoring keeps working.
 */
enum sroce_counter {
	SROCE_CNT_SENT_PKTS,
	SROCE_CNT_RCVD_PKTS,
	SROCE_CNT_DUP_REQ,
	SROCE_CNT_OUT_OF_SEQ_REQ,
	SROCE_CNT_RCV_RNR,
	SROCE_CNT_SND_RNR,
	SROCE_CNT_RCV_SEQ_ERR,
	SROCE_CNT_ACK_DEFERRED,
	SROCE_CNT_RETRY_EXCEEDED,
	SROCE_CNT_RNR_RETRY_EXCEEDED,
	SROCE_CNT_COMP_RETRY,
	SROCE_CNT_SEND_ERR,
	SROCE_CNT_LINK_DOWNED,
	SROCE_CNT_RDMA_SENDS,
	SROCE_CNT_RDMA_RECVS,
	SROCE_CNT_SENT_BYTES,
	SROCE_CNT_RCVD_BYTES,
	SROCE_CNT_RETRANSMITS,
	SROCE_CNT_RCVD_DROPPED,
	SROCE_CNT_RCVD_ICRC_ERR,
	SROCE_CNT_RETRANS_NAK,
	SROCE_CNT_RETRANS_RNR,
	SROCE_CNT_ACK_PROBES,
	/* rcvd_dropped by cause: each drop counts there and in one of these */
	SROCE_CNT_DROP_BAD_HDR,
	SROCE_CNT_DROP_NO_QP,
	SROCE_CNT_DROP_QP_STATE,
	SROCE_CNT_DROP_ADDR,
	SROCE_CNT_DROP_QUEUE_FULL,
	SROCE_CNT_DROP_QKEY,
	SROCE_CNT_DROP_NO_WQE,
	SROCE_CNT_DROP_BAD_READ,
	/* Packets ahead of a PSN gap (hold.c), and how each gap ended as a loss */
	SROCE_CNT_REORDER_HELD,
	SROCE_CNT_GAP_LOST_WAIT,
	SROCE_CNT_GAP_LOST_FULL,
	SROCE_CNT_GAP_SPURIOUS,
	/* A held packet and another, different, at its PSN: both dropped */
	SROCE_CNT_HOLD_CONFLICT,
	/*
	 * NAKs by syndrome (IBA 9.7.5.2.4); send_rnr_err and rcvd_rnr_err
	 * count RNR NAKs, rcvd_seq_err the sequence NAKs received.
	 */
	SROCE_CNT_SENT_NAK_SEQ,
	SROCE_CNT_SENT_NAK_INV_REQ,
	SROCE_CNT_SENT_NAK_REM_ACCESS,
	SROCE_CNT_SENT_NAK_REM_OP,
	SROCE_CNT_RCVD_NAK_INV_REQ,
	SROCE_CNT_RCVD_NAK_REM_ACCESS,
	SROCE_CNT_RCVD_NAK_REM_OP,
	/* A QP stopped sending until the netdev freed its packets (txbuf.c) */
	SROCE_CNT_TX_WAIT,
	/* A packet waited for the QP's last CPU's backlog to deliver (xmit.c) */
	SROCE_CNT_TX_ORDER_WAIT,
	/* An access to an ODP page not there yet, tried again later (odp.c) */
	SROCE_CNT_ODP_WAIT,
	/* send_err by cause: each counts there and in one of these */
	SROCE_CNT_SEND_ERR_ROUTE,	/* no route to the peer */
	SROCE_CNT_SEND_ERR_QDISC,	/* a qdisc or tc dropped it */
	SROCE_CNT_SEND_ERR_IP,		/* the IP layer: netfilter, MTU, down */
	SROCE_CNT_SEND_ERR_OTHER,	/* netdev leaving, stale chunk, memory */
	/* Congestion notification (cc.c), named as RoCE NICs name them */
	SROCE_CNT_NP_ECN_MARKED,	/* packets that arrived CE-marked */
	SROCE_CNT_NP_CNP_SENT,
	SROCE_CNT_RP_CNP_HANDLED,	/* CNPs received for a QP's rate */
	SROCE_CNT_RP_CNP_IGNORED,	/* CNPs received, reaction point off */
	SROCE_NUM_COUNTERS
};

/* One CPU's share of the counters; the port's value is the sum. */
struct sroce_stats {
	u64	v[SROCE_NUM_COUNTERS];
};

struct ib_device;
struct rdma_hw_stats;
struct sroce_dev;

/* A received packet dropped for @cause (one of SROCE_CNT_DROP_*). */
void sroce_count_drop(struct sroce_dev *sdev, enum sroce_counter cause);
/* A packet not sent for @cause (one of SROCE_CNT_SEND_ERR_*). */
void sroce_count_send_err(struct sroce_dev *sdev, enum sroce_counter cause);
enum sroce_counter sroce_nak_counter(u8 code, bool sent);

/* The RDMA core's ->alloc_hw_port_stats and ->get_hw_stats */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port_num, int index);
u64 sroce_counter_read(struct sroce_dev *sdev, enum sroce_counter c);

#endif /* SROCE_COUNTERS_H */
