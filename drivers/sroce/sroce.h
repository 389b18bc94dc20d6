/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce: a software RoCEv2 RDMA device.
 *
 * Core structures shared by every file of the driver, with their constants
 * and small helpers. Each file owns one role (device, net, counters, ...),
 * and its functions are declared in the header of its name: qp.h for qp.c,
 * net.h for net.c, and so on.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/netdevice.h>
#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "compat.h"
#include "counters.h"
#include "params.h"
#include "queue.h"
#include "pkt.h"

struct sroce_net;

/*
 * One sroce device: an ib_device with one RoCEv2 port on top of one
 * Ethernet netdev.
 *
 * Lifetime: created by the rdma link "newlink" callback, destroyed by the
 * RDMA core through ->dealloc_driver once it has been unregistered (by
 * "rdma link delete", by the netdev going away, or at module unload).
 */
struct sroce_dev {
	struct ib_device	ibdev;

	/* Our own reference on the netdev; dropped in ->dealloc_driver. */
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;

	/* Netdev -> device table entry (RCU readers, sroce_table_lock). */
	struct hlist_node	table_node;
	/* Set under sroce_table_lock; see main.c for the handshake. */
	bool			registered;
	bool			ndev_gone;

	/* The RoCEv2 UDP sockets of the netdev's namespace (net.c). */
	struct sroce_net	*sn;

	/* Port state, written under RTNL by the netdev notifier. */
	enum ib_port_state	port_state;
	enum ib_mtu		port_mtu;

	struct ib_device_attr	attr;

	/*
	 * Object tables. Each xarray's index range is the object limit, so
	 * allocation enforces it: QPNs, SRQ numbers, AH numbers, and the
	 * index part of MR and MW keys.
	 */
	struct xarray		qp_xa;
	u32			qp_next;
	atomic64_t		qp_serial;	/* QPNs come back; serials do not */
	struct xarray		srq_xa;
	u32			srq_next;
	struct xarray		ah_xa;
	u32			ah_next;
	struct xarray		mr_xa;		/* MR key index: 1..max_mr */
	u32			mr_next;
	u32			gsi_index;	/* xarray index of QP1, or 0 */
	struct list_head	mcast_list;	/* mcast.c: the groups */
	DECLARE_HASHTABLE(mcast_hash, 10);	/* the same, by MGID */
	u32			mcast_seed;	/* of that hash: random */
	struct mutex		mcast_mutex;
	u32			mcast_attached;
	u32			mcast_groups;
	struct xarray		mw_xa;		/* MW key index: above MRs' */
	u32			mw_next;
	atomic_t		num_pd;
	atomic_t		num_cq;
	atomic_t		num_odp_mr;	/* odp.c */
	atomic_t		num_odp_children;

	/* Port counters, per CPU: the data path bumps them on every packet. */
	struct sroce_stats __percpu *stats;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

struct sroce_ucontext {
	struct ib_ucontext	ibuc;
};

struct sroce_pd {
	struct ib_pd		ibpd;
	bool			odp;	/* has had an ODP MR: QPs sleep (odp.c) */
};

/* A resolved RoCEv2 address vector. */
struct sroce_av {
	enum rdma_network_type	network_type;	/* RDMA_NETWORK_IPV4 or _IPV6 */
	u8			dmac[ETH_ALEN];
	u8			sgid_index;
	u8			hop_limit;
	u8			traffic_class;
	u8			sl;
	bool			dgid_ours;	/* a GID of this device's */
	u32			flow_label;
	/* The source GID's netdev: the port's, or a VLAN above it (xmit.c) */
	int			ifindex;
	union ib_gid		dgid;
	union {
		struct sockaddr_in	in4;
		struct sockaddr_in6	in6;
	} saddr, daddr;
};

struct sroce_ah {
	struct ib_ah		ibah;
	struct sroce_av		av;
	u32			ah_num;
};

struct sroce_cq {
	struct ib_cq		ibcq;
	spinlock_t		lock;		/* producer side of the ring */
	struct sroce_queue	queue;
	struct mutex		resize_mutex;	/* one resize at a time */
	u8			notify;		/* IB_CQ_NEXT_COMP/SOLICITED armed */
	bool			overrun;	/* CQ_ERR raised (once), under lock */
	bool			is_user;
};

struct sroce_srq {
	struct ib_srq		ibsrq;
	spinlock_t		lock;		/* consumer side of the ring */
	struct sroce_queue	queue;
	struct mutex		resize_mutex;	/* one resize at a time */
	u32			srq_num;
	u32			max_sge;
	u32			limit;
	bool			is_user;
};

/*
 * A responder resource: an RDMA READ, atomic, ATOMIC WRITE or FLUSH kept
 * for replay.
 */
struct sroce_res {
	bool		valid;
	bool		atomic;
	bool		empty_resp;	/* answered by an empty READ response */
	u32		first_psn;
	u32		last_psn;
	u64		va;
	u32		rkey;
	u32		length;
	u64		orig;		/* atomic: the value returned */
	/* READ: what is being sent now, a packet per responder step. */
	u32		cur_psn;
	u32		cur_off;	/* from va */
	u32		end_off;
	bool		cur_first;	/* the next packet opens a reply */
};

/* Send WQE states, kept in the kernel's copy of the WQE (wqe->state). */
enum sroce_wqe_state {
	SROCE_WQE_POSTED,	/* copied, to be sent */
	SROCE_WQE_SENT,		/* all sent; waiting for the ACK/response */
	/* sent before a rewind (its PSNs known): again unless an ACK comes */
	SROCE_WQE_RESEND,
	SROCE_WQE_DONE,		/* finished: complete when at the head */
};

/*
 * IBA 1.5's RDMA ATOMIC WRITE as the user ABI numbers it (work request 15,
 * completion 9, device capability bit 40: IB_UVERBS_WR_ATOMIC_WRITE and
 * friends); the kernel's own enums have it only from 6.2.
 */
#define SROCE_WR_ATOMIC_WRITE		15
#define SROCE_WC_ATOMIC_WRITE		9
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)

/*
 * IBA 1.5's RDMA FLUSH as the user ABI numbers it: device capability bits
 * 38 and 39, MR access bits 8 and 9 (IB_UVERBS_DEVICE_FLUSH_GLOBAL,
 * IB_UVERBS_ACCESS_FLUSH_GLOBAL and their PERSISTENT twins), work request
 * 14 and completion 8 (IB_UVERBS_WR_FLUSH, IB_UVERBS_WC_FLUSH). The kernel
 * has them from 6.2; before, its core rejects MR access bits it does not
 * know, so no region can allow a FLUSH and none is advertised (the probe
 * flush_access). Only global visibility is offered: the memory is plain
 * RAM, which no flush makes persistent.
 */
#define SROCE_WR_FLUSH			14
#define SROCE_WC_FLUSH			8
#define SROCE_ACCESS_FLUSH_GLOBAL	BIT(8)
#define SROCE_ACCESS_FLUSH_PERSISTENT	BIT(9)
#define SROCE_DEVICE_FLUSH_GLOBAL	BIT_ULL(38)

/*
 * RC PSNs a requester may have unacknowledged: at most 512 (rdma_rxe's
 * limit too), at least 16; halved at each loss (comp.c).
 */
#define SROCE_WINDOW_MAX	512
#define SROCE_WINDOW_MIN	16

/*
 * How long a QP that found the netdev's queue full waits before it sends
 * again, in us: about what a gigabit link takes to drain a 64 KiB burst,
 * and far under a jiffy, which would leave a fast link idle.
 */
#define SROCE_BACKOFF_US	100

static inline ktime_t sroce_us(u64 us)
{
	return ns_to_ktime(us * NSEC_PER_USEC);
}

/*
 * Pages a QP builds its wire packets in, used again once the netdev is
 * done with them (txbuf.c): as many as two 64 KiB messages take at a
 * 1024-byte MTU; order 1 holds a 4096-byte MTU's packet. The array is
 * allocated with the first wire packet.
 */
#define SROCE_TXBUF_SLOTS	128
#define SROCE_TXBUF_ORDER	1

/*
 * Bounds of the high mark of a QP's packets in the netdev's hands (qdisc,
 * device ring) at once: a QP stops sending data there and goes on at a
 * quarter of it (txbuf.c: tx_queue_kib).
 */
#define SROCE_TX_INFLIGHT_MIN	16
#define SROCE_TX_INFLIGHT_MAX	4096

/*
 * A QP's part in congestion control (cc.c, DCQCN). As the notification
 * point: when it last sent a CNP. As the reaction point: its rate, rc,
 * 0 while no CNP has cut it (unpaced); the target it recovers towards;
 * alpha, its estimate of congestion (1024 is 1.0); the increase events
 * since the last cut; when the next packet may leave; and when alpha and
 * the rate were last brought up to date. cnp_pending counts the CNPs the
 * receive path handed over (atomic); the rest is the run's.
 */
struct sroce_cc {
	u64		cnp_sent_ns;
	u64		next_ns;
	u64		cut_ns;
	u64		alpha_ns;
	u64		inc_ns;
	u32		rc_mbps;
	u32		rt_mbps;
	u32		alpha;
	u32		bytes;
	u32		stage;
	atomic_t	cnp_pending;
};

/*
 * What a QP's packets in the netdev's hands point to (txbuf.c): it counts
 * them, and outlives the QP until the last one is freed, so that
 * destroying a QP never waits for a netdev or a qdisc to let go.
 */
struct sroce_txq {
	refcount_t	ref;		/* the QP's, and one per packet */
	atomic_t	inflight;	/* packets not yet freed by the netdev */
	atomic_t	wait;		/* the run stopped at the high mark */
	spinlock_t	lock;		/* qp */
	struct sroce_qp	*qp;		/* NULL once the QP is being destroyed */
	u32		low;		/* the QP goes on at this many */
};

struct sroce_txbuf {
	struct page	**page;		/* SROCE_TXBUF_SLOTS of them */
	unsigned int	next;		/* the slot the next packet takes */
	struct sroce_txq *txq;
};

struct sroce_qp {
	struct ib_qp		ibqp;
	u32			index;		/* in qp_xa: the QPN, but 1 for GSI */
	u64			serial;		/* unique per device, never reused */
	struct sroce_queue	sq;
	struct sroce_queue	rq;		/* unused with an SRQ */
	spinlock_t		sq_lock;	/* kernel consumers: producer */
	spinlock_t		rq_lock;
	u32			sq_max_sge;
	u32			sq_max_inline;
	u32			rq_max_sge;
	bool			is_user;
	bool			sq_sig_all;

	/*
	 * The QP's work (requester, completer, responder) runs only with the
	 * run token, qp->run: in a worker, a doorbell, the receive softirq or
	 * another QP's run (any context but hard IRQ), whoever takes it
	 * first; nobody waits for it (sched.c, sroce_qp_claim()). modify and
	 * query take ctl, then keep runs off until they are done
	 * (sroce_qp_lock()).
	 */
	struct mutex		ctl;
	atomic_t		run;
	struct lockdep_map	run_map;	/* "held" by the run or ctl */
	enum ib_qp_state	state;		/* also read locklessly */
	struct ib_qp_attr	attr;		/* what query_qp reports */
	struct sroce_av		av;
	/* The route to av, per CPU; used in the run, reset under ctl (xmit.c) */
	struct dst_cache	dst_cache;
	u16			src_port;
	u32			mtu;		/* path MTU in bytes */
	/* When the netdev started to drop our packets, or 0 (xmit.c); run */
	unsigned long		xmit_drop_since;
	/* Congestion notification and rate (cc.c); run, but cnp_pending */
	struct sroce_cc		cc;
	/*
	 * Where the last wire packet left from (xmit.c: sroce_tx_order_ok()):
	 * the CPU, or -1, that CPU's input backlog tail after it, and when;
	 * and the CPU whose transmit queue XPS gives the QP's packets. Run.
	 */
	int			tx_cpu;
	unsigned int		tx_qtail;
	unsigned long		tx_at;
	int			tx_xps_cpu;

	refcount_t		ref;		/* lookups, wire packets, + 1 */
	struct completion	released;
	struct work_struct	work;
	bool			dying;
	/*
	 * A packet our run took from this device's loopback and is done
	 * with, kept for the next one it builds (xmit.c, sroce_skb_done()).
	 */
	struct sk_buff		*spare;
	struct sroce_txbuf	txbuf;		/* wire packet buffers (txbuf.c) */
	struct sk_buff_head	req_pkts;	/* requests for our responder */
	struct sk_buff_head	resp_pkts;	/* responses for our completer */
	/*
	 * Packets that came ahead of their turn, held back a moment in PSN
	 * order (hold.c): requests for the responder, READ responses for the
	 * completer. Only the run touches them.
	 */
	struct sroce_hold {
		struct sk_buff_head	q;
		ktime_t			until;	/* a gap after this is a loss */
		bool			lost;	/* and it was said so */
		u32			full_at; /* the gap found full, if lost */
		bool			check;	/* a copy of lost_psn shows... */
		u32			lost_psn; /* ...the last loss was none */
	} req_held, resp_held;
	struct hrtimer		hold_timer;	/* runs the QP at a hold's end */

	/*
	 * The kernel's copy of each send WQE, taken once from the ring and
	 * validated; the ring slot is never read again. Same geometry.
	 */
	u8			*sq_copy;

	/*
	 * Loopback (sched.c, sroce_qp_kick()): the QP of this device that our
	 * work queued packets on and has not told yet, with a reference.
	 */
	struct {
		struct sroce_qp	*qp;
		struct sroce_qp	*outer;	/* running us inline, in its run */
		u32		pkts;	/* queued on qp since its last kick */
		bool		back;	/* a QP we ran queued packets on us */
		u8		inlined; /* QPs this run ran inline */
	} kick;

	struct {
		u32	fetched;	/* next ring index to copy */
		u32	wqe_index;	/* next WQE to send (or resume) */
		u32	psn;		/* next PSN */
		u32	psn_max;	/* the PSN after the newest ever sent */
		u32	offset;		/* bytes of that WQE already sent */
		u32	noack;		/* packets since the last AckReq */
		u32	ask_psn;	/* the newest PSN that asked for an ACK */
		u32	probe_psn;	/* psn_max when the probe timer was set */
		bool	probe_due;	/* the probe timer ran out */
		bool	dense;		/* a stream: unsignaled messages do not ask */
		struct timer_list probe_timer;
		u32	window;		/* PSNs that may be unacknowledged */
		u32	rd_atomic;	/* reads/atomics outstanding */
		bool	need_retry;
		bool	backoff;	/* nothing is sent before resume */
		ktime_t	resume;
	} req;

	struct {
		u32	psn;		/* oldest PSN not acknowledged */
		u8	retry_left;
		u8	rnr_left;
		bool	timed_out;
		bool	armed;		/* the ACK timeout runs, to deadline */
		unsigned long deadline;
		bool	rnr_wait;
		bool	gap_valid;	/* a retry for gap_psn is under way */
		u32	gap_psn;
		struct timer_list retrans_timer;
		struct hrtimer rnr_timer;	/* an RNR wait */
	} comp;

	struct {
		u32	psn;		/* expected */
		u32	msn;
		bool	nak_sent;	/* a NAK for psn: no other till it comes */
		u32	prev_flags;	/* op of an unfinished message, or 0 */
		bool	has_wqe;
		u8	*wqe;		/* copy of the receive WQE in use */
		u32	offset;		/* bytes placed into it */
		u32	length;		/* its buffer size */
		u64	va;		/* WRITE in progress */
		u32	rkey;
		u32	resid;
		u32	write_len;
		struct sroce_res *res;	/* saved READ and atomic replies */
		u32	nres;		/* ...allocated: max_dest_rd_atomic, 1+ */
		struct sroce_res *read;	/* READ responses still to send */
		bool	read_wait;	/* ...from read_resume on */
		ktime_t	read_resume;
		u32	res_next;
		bool	drop_msg;	/* UC: drop until the next first */
		bool	comm_est;	/* first packet seen in RTR reported */
	} resp;
};

enum sroce_mr_type {
	SROCE_MR_DMA,		/* all of kernel memory */
	SROCE_MR_USER,		/* pinned user pages */
	SROCE_MR_FAST,		/* fast registration by kernel consumers */
	SROCE_MR_ODP,		/* user pages on demand (odp.c) */
};

enum sroce_mr_state {
	SROCE_MR_INVALID,
	SROCE_MR_VALID,
};

/*
 * Memory regions and windows. Both are found by key: bits 31:8 are an
 * index (MRs below SROCE_MW_INDEX_BASE, MWs above), bits 7:0 the key byte,
 * and the whole key is compared on every lookup.
 */
#define SROCE_MW_INDEX_BASE	0x100000
struct sroce_mr {
	struct ib_mr		ibmr;
	enum sroce_mr_type	type;
	enum sroce_mr_state	state;
	int			access;
	struct ib_umem		*umem;
	struct page		**pages;	/* SROCE_MR_USER */
	u64			*page_list;	/* SROCE_MR_FAST: DMA addresses */
	u32			max_pages;
	u32			npages;
	u32			page_shift;
	u64			iova;
	u64			length;
	refcount_t		ref;		/* lookups in flight + 1 */
	struct completion	released;
	atomic_t		num_mw;		/* windows bound to it */
	bool			dead;		/* dereg under way: no binds */
	struct xarray		odp_children;	/* ODP (odp.c) */
	atomic_t		odp_nchildren;
	u64			odp_va;		/* ODP: user address of iova */
};

/* A memory window; bound state changes under the mw_xa lock. */
struct sroce_mw {
	struct ib_mw		ibmw;
	enum sroce_mr_state	state;
	struct sroce_mr		*mr;		/* bound to */
	u64			addr;
	u64			length;
	int			access;
	u64			qp_serial;	/* type 2: the QP it is bound to */
};

static inline struct sroce_pd *to_spd(struct ib_pd *pd)
{
	return container_of(pd, struct sroce_pd, ibpd);
}

static inline struct sroce_ah *to_sah(struct ib_ah *ah)
{
	return container_of(ah, struct sroce_ah, ibah);
}

static inline struct sroce_cq *to_scq(struct ib_cq *cq)
{
	return container_of(cq, struct sroce_cq, ibcq);
}

static inline struct sroce_srq *to_ssrq(struct ib_srq *srq)
{
	return container_of(srq, struct sroce_srq, ibsrq);
}

static inline struct sroce_qp *to_sqp(struct ib_qp *qp)
{
	return container_of(qp, struct sroce_qp, ibqp);
}

static inline struct sroce_mr *to_smr(struct ib_mr *mr)
{
	return container_of(mr, struct sroce_mr, ibmr);
}

static inline struct sroce_mw *to_smw(struct ib_mw *mw)
{
	return container_of(mw, struct sroce_mw, ibmw);
}

static inline struct ib_ucontext *sroce_udata_uctx(struct ib_udata *udata)
{
	return &rdma_udata_to_drv_context(udata, struct sroce_ucontext,
					  ibuc)->ibuc;
}

/* Whether a udata carries no driver input, or only zeros. */
static inline bool sroce_udata_in_empty(struct ib_udata *udata)
{
	return !udata || !udata->inlen ||
	       ib_is_udata_cleared(udata, 0, udata->inlen);
}

/* Any context: this_cpu_*() is safe against interrupts and migration. */
static inline void sroce_count_add(struct sroce_dev *sdev,
				   enum sroce_counter c, u64 n)
{
	this_cpu_add(sdev->stats->v[c], n);
}

static inline void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	this_cpu_inc(sdev->stats->v[c]);
}

#endif /* SROCE_H */
