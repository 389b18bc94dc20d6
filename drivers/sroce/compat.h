/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

/*
 * Every difference between the kernels sroce builds on (6.1 to 7.2) lives
 * here, keyed on the HAVE_* feature probes in probes/, which the top-level
 * Makefile compiles against the target kernel's headers before the module.
 * Distribution kernels backport RDMA changes, so version numbers would lie.
 */

#include "compat_probed.h"	/* generated; drivers/sroce/Kbuild insists on it */

#include <linux/hmm.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/uverbs_ioctl.h>

/* The verbs adapters at the end wrap functions of cq.c and mr.c. */
#include "cq.h"
#include "mr.h"

/* timer_container_of() replaced from_timer() (6.16). */
#ifndef HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, t, field) from_timer(var, t, field)
#endif

/* hrtimer_setup() replaced hrtimer_init() and setting ->function (6.13). */
#ifndef HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *t,
				 enum hrtimer_restart (*fn)(struct hrtimer *),
				 clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
#endif

/* del_timer{,_sync}() became timer_delete{,_sync}() (6.2; in later 6.1 stables). */
#ifndef HAVE_TIMER_DELETE
#define timer_delete(t) del_timer(t)
#define timer_delete_sync(t) del_timer_sync(t)
#endif

/*
 * RDMA FLUSH (6.2): the MR access bit the core lets through, and the device
 * capability that says so; none before (sroce.h, SROCE_ACCESS_FLUSH_GLOBAL).
 */
#ifdef HAVE_FLUSH_ACCESS
#define SROCE_ACCESS_FLUSH	SROCE_ACCESS_FLUSH_GLOBAL
#define SROCE_DEVICE_FLUSH	SROCE_DEVICE_FLUSH_GLOBAL
#else
#define SROCE_ACCESS_FLUSH	0
#define SROCE_DEVICE_FLUSH	0
#endif

/* ODP capability bits for RDMA FLUSH and ATOMIC WRITE (6.16); none before. */
#ifdef HAVE_ODP_FLUSH
#define SROCE_ODP_SUPPORT_FLUSH_AW (IB_ODP_SUPPORT_FLUSH | IB_ODP_SUPPORT_ATOMIC_WRITE)
#else
#define SROCE_ODP_SUPPORT_FLUSH_AW 0
#endif

/* ib_umem_get() was renamed ib_umem_get_va() (7.2). */
#ifndef HAVE_UMEM_GET_VA
#define ib_umem_get_va(dev, addr, size, access) ib_umem_get(dev, addr, size, access)
#endif

/* vm_flags_set() (6.3); before it the flags were written directly. */
#ifndef HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * Where an ODP umem keeps the state of its pages (one entry per PAGE_SIZE
 * page while its page_shift is PAGE_SHIFT, which sroce asks for): 6.15 put
 * pfns and permissions in one hmm_dma_map; before, hmm pfns sat in
 * pfn_list and the permissions in the low bits of dma_list.
 */
#ifdef HAVE_UMEM_ODP_HMM_MAP
static inline bool sroce_odp_present(struct ib_umem_odp *odp, u64 idx,
				     bool write)
{
	unsigned long pfn = odp->map.pfn_list[idx];

	return (pfn & HMM_PFN_VALID) && (!write || (pfn & HMM_PFN_WRITE));
}

static inline struct page *sroce_odp_page(struct ib_umem_odp *odp, u64 idx)
{
	return hmm_pfn_to_page(odp->map.pfn_list[idx]);
}

static inline u64 sroce_odp_access(bool write)
{
	return HMM_PFN_REQ_FAULT | (write ? HMM_PFN_WRITE : 0);
}
#else
static inline bool sroce_odp_present(struct ib_umem_odp *odp, u64 idx,
				     bool write)
{
	return odp->dma_list[idx] &
	       (write ? ODP_WRITE_ALLOWED_BIT : ODP_READ_ALLOWED_BIT);
}

static inline struct page *sroce_odp_page(struct ib_umem_odp *odp, u64 idx)
{
	return hmm_pfn_to_page(odp->pfn_list[idx]);
}

static inline u64 sroce_odp_access(bool write)
{
	return ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
}
#endif

/* UDP tunnel sockets are set up and released through their struct sock (7.x). */
static inline void sroce_udp_tunnel_setup(struct net *net, struct socket *sock,
					  struct udp_tunnel_sock_cfg *cfg)
{
#ifdef HAVE_UDP_TUNNEL_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void sroce_udp_tunnel_release(struct socket *sock)
{
#ifdef HAVE_UDP_TUNNEL_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

/*
 * The verbs whose prototypes changed get a thin adapter with the kernel's
 * signature around sroce's own implementation, which keeps one signature.
 * SROCE_COMPAT_OPS() names the adapters in the ops table.
 */

/* create_cq gets the whole uverbs attribute bundle (6.11). */
#ifdef HAVE_CREATE_CQ_ATTRS
static inline int sroce_compat_create_cq(struct ib_cq *ibcq,
					 const struct ib_cq_init_attr *attr,
					 struct uverbs_attr_bundle *attrs)
{
	return sroce_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
#define sroce_compat_create_cq sroce_create_cq
#endif

/* reg_user_mr gets a DMA handle (6.17); sroce has no DMA handles to honour. */
#ifdef HAVE_REG_USER_MR_DMAH
static inline struct ib_mr *sroce_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
						     u64 length, u64 iova, int access,
						     struct ib_dmah *dmah,
						     struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return sroce_reg_user_mr(ibpd, start, length, iova, access, udata);
}
#else
#define sroce_compat_reg_user_mr sroce_reg_user_mr
#endif

/* resize_cq became resize_user_cq with an unsigned count (7.1). */
#ifdef HAVE_RESIZE_USER_CQ
static inline int sroce_compat_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
					 struct ib_udata *udata)
{
	if (cqe > INT_MAX)
		return -EINVAL;
	return sroce_resize_cq(ibcq, cqe, udata);
}

#define SROCE_COMPAT_OP_RESIZE_CQ .resize_user_cq = sroce_compat_resize_cq
#else
#define SROCE_COMPAT_OP_RESIZE_CQ .resize_cq = sroce_resize_cq
#endif

#define SROCE_COMPAT_OPS					\
	.create_cq = sroce_compat_create_cq,			\
	.reg_user_mr = sroce_compat_reg_user_mr,		\
	SROCE_COMPAT_OP_RESIZE_CQ

#endif /* SROCE_COMPAT_H */
