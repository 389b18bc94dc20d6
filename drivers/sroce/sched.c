// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * When and where a QP's work runs: the run token (qp->run), which nobody
 * waits for; the doorbell, receive softirq and worker that run a QP; the
 * verbs that hold runs off; the batched kicks and inline runs between QPs
 * of one device; and the pass of completer, responder and requester with
 * its budget. What a run does is in comp.c, resp.c and req.c.
 */
#include <linux/sched/mm.h>

#include "sroce.h"
#include "comp.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "sched.h"

static struct workqueue_struct *sroce_wq;
static struct lock_class_key sroce_qp_run_key;

int sroce_wq_init(void)
{
	/*
	 * Unbound: the two ends of a connection on one host run on different
	 * CPUs. Not WQ_HIGHPRI: measured, a nice -20 worker streaming READ
	 * responses into a veth starved ksoftirqd, which delivers them, and
	 * the input backlog overflowed (tens of thousands of send errors).
	 */
	sroce_wq = alloc_workqueue("sroce", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

void sroce_wq_exit(void)
{
	destroy_workqueue(sroce_wq);
}

/* Other work of the module's (advise.c), drained before it unloads. */
void sroce_queue_work(struct work_struct *work)
{
	queue_work(sroce_wq, work);
}

/*
 * qp->run, the run token: BUSY while a run is under way, AGAIN when
 * someone asked that run to look again, HOLD while a verb keeps runs off.
 * Only a run that finds it 0 starts; everybody else leaves AGAIN for
 * whoever holds it, so nobody ever waits for a run, and a run may start
 * in any context but hard IRQ: a worker, a doorbell, another QP's run, the
 * receive softirq (sroce_udp_encap_recv()).
 */
#define SROCE_RUN_BUSY		1
#define SROCE_RUN_AGAIN		2
#define SROCE_RUN_HOLD		4

/*
 * A QP whose PD has an ODP MR may sleep in a fault (odp.c): it runs only in
 * its worker, never in a softirq, a doorbell or another QP's run.
 */
static bool sroce_qp_sleeps(struct sroce_qp *qp)
{
	return qp->ibqp.pd && READ_ONCE(to_spd(qp->ibqp.pd)->odp);
}

static void sroce_qp_queue(struct sroce_qp *qp)
{
	if (!READ_ONCE(qp->dying))
		queue_work(sroce_wq, &qp->work);
}

/*
 * Ask for a run of @qp, from any context. True: the token was free, and the
 * caller now holds it and must run (sroce_qp_run()). False: whoever holds
 * it looks again before it lets go. The cmpxchg is a full barrier: what the
 * caller stored before is seen by that run.
 */
static bool sroce_qp_claim(struct sroce_qp *qp)
{
	int old = atomic_read(&qp->run), new;

	do {
		new = old ? old | SROCE_RUN_AGAIN : SROCE_RUN_BUSY;
	} while (!atomic_try_cmpxchg(&qp->run, &old, new));
	if (old)
		return false;
	/*
	 * For sroce_qp_assert_run() only (check 0): a run may be in softirq
	 * and in process context with BHs on, which for a lock that is waited
	 * for would be a deadlock, but nobody waits for the token.
	 */
	lock_acquire(&qp->run_map, 0, 1, 0, 0, NULL, _THIS_IP_);
	return true;
}

/*
 * The end of a pass: true if asked again meanwhile (the caller keeps the
 * token and passes again), else (or if @stop) the token is let go. A verb
 * waiting to hold runs off is woken; the AGAIN it finds is its to act on.
 */
static bool sroce_qp_pass_done(struct sroce_qp *qp, bool stop)
{
	int old = atomic_read(&qp->run), new;

	do {
		if (old & SROCE_RUN_HOLD)
			new = old & ~SROCE_RUN_BUSY;
		else if ((old & SROCE_RUN_AGAIN) && !stop)
			new = SROCE_RUN_BUSY;
		else
			new = 0;
	} while (!atomic_try_cmpxchg(&qp->run, &old, new));
	if (new & SROCE_RUN_BUSY)
		return true;
	lock_map_release(&qp->run_map);
	if (new & SROCE_RUN_HOLD)
		wake_up_var(&qp->run);
	return false;
}

/*
 * The QP has something to do (a timer, a packet, a state change), from any
 * context, and the caller will not run it itself: if a run is under way it
 * looks again (no worker is woken for that), else the work is queued.
 */
void sroce_qp_sched(struct sroce_qp *qp)
{
	int old = atomic_read(&qp->run);

	do {
		if (!old) {
			sroce_qp_queue(qp);
			return;
		}
	} while (!atomic_try_cmpxchg(&qp->run, &old, old | SROCE_RUN_AGAIN));
}

/*
 * For modify and query: no run of @qp is under way or starts until
 * sroce_qp_unlock(); what is asked for meanwhile runs after. Sleeps.
 */
void sroce_qp_lock(struct sroce_qp *qp)
{
	mutex_lock(&qp->ctl);
	atomic_or(SROCE_RUN_HOLD, &qp->run);
	wait_var_event(&qp->run, !(atomic_read(&qp->run) & SROCE_RUN_BUSY));
	lock_map_acquire(&qp->run_map);
}

void sroce_qp_unlock(struct sroce_qp *qp)
{
	lock_map_release(&qp->run_map);
	if (atomic_xchg(&qp->run, 0) & SROCE_RUN_AGAIN)
		sroce_qp_queue(qp);
	mutex_unlock(&qp->ctl);
}

static void sroce_qp_run(struct sroce_qp *qp, int budgets);

/*
 * Loopback packets (to a QP of this device) are queued on their QP from
 * our own work, and that QP is told later, not once a packet: the packets
 * inside a message every SROCE_KICK_BATCH, so that its work takes them
 * as a batch on another CPU instead of being woken for each; a packet
 * that ends a message or answers one at once.
 */
#define SROCE_KICK_BATCH	16
/* At most so many runs of other QPs inside one run (each has its budget). */
#define SROCE_KICK_INLINE	8

/*
 * Tell qp->kick.qp that packets wait. If @may_run and its run token is
 * free, run it right here, in our context, as rdma_rxe did until 6.11: no
 * hand-off, no wake-up. Only one level deep: what it sends back to us our
 * own run takes (kick.back), what it sends elsewhere goes to the workqueue.
 * Taking a token never waits, so two QPs running each other cannot
 * deadlock.
 */
static void sroce_qp_kick_flush(struct sroce_qp *qp, bool may_run)
{
	struct sroce_qp *dst = qp->kick.qp;

	if (!dst)
		return;
	qp->kick.qp = NULL;
	qp->kick.pkts = 0;
	if (dst == qp || dst == qp->kick.outer) {
		/* Its run is on our stack: it looks again. */
		dst->kick.back = true;
	} else if (may_run && !qp->kick.outer &&
		   qp->kick.inlined < SROCE_KICK_INLINE &&
		   !sroce_qp_sleeps(dst)) {
		/* Not claimed: its run looks again. */
		if (sroce_qp_claim(dst)) {
			qp->kick.inlined++;
			dst->kick.outer = qp;
			sroce_qp_run(dst, 1);
			dst->kick.outer = NULL;
		}
	} else {
		sroce_qp_sched(dst);
	}
	sroce_qp_put(dst);
}

/* @qp's work queued a packet on @dst; takes over the reference on @dst. */
void sroce_qp_kick(struct sroce_qp *qp, struct sroce_qp *dst, bool urgent)
{
	sroce_qp_assert_run(qp);
	if (qp->kick.qp != dst) {
		sroce_qp_kick_flush(qp, false);
		qp->kick.qp = dst;
	} else {
		sroce_qp_put(dst);
	}
	if (urgent || ++qp->kick.pkts >= SROCE_KICK_BATCH)
		sroce_qp_kick_flush(qp, urgent);
}

/*
 * Completer, responder and requester in turn until there is nothing left
 * to do or the budget is spent. Whoever it sent loopback packets to is
 * told before it returns.
 */
static void sroce_qp_pass(struct sroce_qp *qp, int *budget)
{
	bool progress;

	if (qp->state == IB_QPS_ERR) {
		sroce_qp_flush(qp);
		return;
	}
	do {
		progress = sroce_completer(qp, budget);
		progress |= sroce_responder(qp, budget);
		progress |= sroce_requester(qp, budget);
		if (qp->state == IB_QPS_ERR)
			break;
		/* Nothing left here: the peer's turn, then look again. */
		if (!progress)
			sroce_qp_kick_flush(qp, true);
		progress |= qp->kick.back;
		qp->kick.back = false;
	} while (progress && *budget > 0);
	sroce_qp_kick_flush(qp, false);
	if (qp->state == IB_QPS_ERR)
		sroce_qp_flush(qp);
}

/* Packets (and passes) a run takes before it lets others have a turn. */
#define SROCE_RUN_BUDGET	256
/*
 * Budgets a user's doorbell may spend, with a reschedule point between
 * them: its caller's own time, which it would otherwise spend polling.
 */
#define SROCE_DOORBELL_BUDGETS	64

/*
 * The QP's work, with the token claimed: passes until nobody asks for
 * another (SROCE_RUN_AGAIN) or @budgets budgets are spent; then it lets go
 * of the token and requeues itself, so that other QPs get their turn. Each
 * pass costs budget, even one that finds nothing, so a flood of requests
 * cannot keep this caller here.
 */
static void sroce_qp_passes(struct sroce_qp *qp, int budgets)
{
	int budget = SROCE_RUN_BUDGET;

	sroce_qp_assert_run(qp);
	qp->kick.inlined = 0;
	do {
		sroce_qp_pass(qp, &budget);
		if (budget-- > 0)
			continue;
		if (--budgets <= 0) {
			sroce_qp_pass_done(qp, true);
			sroce_qp_queue(qp);
			return;
		}
		cond_resched();
		budget = SROCE_RUN_BUDGET;
		qp->kick.inlined = 0;
	} while (sroce_qp_pass_done(qp, false));
}

/*
 * A run may allocate (packets, ODP children) in a worker or a doorbell,
 * where reclaim could sleep on I/O that storage ULPs (NVMe, iSER, NFS)
 * send through this very QP: no I/O in reclaim while it runs.
 */
static void sroce_qp_run(struct sroce_qp *qp, int budgets)
{
	unsigned int noio = memalloc_noio_save();

	sroce_qp_passes(qp, budgets);
	memalloc_noio_restore(noio);
}

/*
 * Run @qp right here if nobody runs it (else whoever does looks again),
 * in any context but hard IRQ: the QP's worker, the receive softirq
 * (sroce_udp_encap_recv()). The caller holds a reference on @qp.
 */
void sroce_qp_run_here(struct sroce_qp *qp)
{
	if (sroce_qp_sleeps(qp))
		sroce_qp_sched(qp);
	else if (sroce_qp_claim(qp))
		sroce_qp_run(qp, 1);
}

/*
 * A user's doorbell (post_send), in its system call: as sroce_qp_run_here(),
 * but the run goes on for up to SROCE_DOORBELL_BUDGETS budgets before a
 * worker takes over. A worker competes for the CPU with the caller, who
 * polls its CQ in user space meanwhile: between two namespaces on two
 * CPUs, a 1 MiB SEND stream handed to the worker after one budget moved
 * half of what it moves in the caller's own time. The system call returns
 * once the QP waits for its peer (its window is full, or its send queue
 * is empty), as TCP's sendmsg() does once the socket's buffer is full.
 */
void sroce_qp_run_doorbell(struct sroce_qp *qp)
{
	might_sleep();
	if (sroce_qp_sleeps(qp))
		sroce_qp_sched(qp);
	else if (sroce_qp_claim(qp))
		sroce_qp_run(qp, SROCE_DOORBELL_BUDGETS);
}

static void sroce_qp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);

	if (sroce_qp_claim(qp))
		sroce_qp_run(qp, 1);
}

/* A new QP's run state: no run, none asked for. */
void sroce_qp_sched_init(struct sroce_qp *qp)
{
	atomic_set(&qp->run, 0);
	lockdep_init_map(&qp->run_map, "sroce_qp_run", &sroce_qp_run_key, 0);
	INIT_WORK(&qp->work, sroce_qp_work);
}
