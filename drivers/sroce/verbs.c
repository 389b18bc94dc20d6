// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains, address handles and address vectors, and the object
 * tables they and the other verbs objects live in.
 */
#include <linux/random.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "sroce.h"
#include "verbs.h"

/*
 * xa_init_flags() is inline, so every table initialised from one function
 * would share one lockdep class: the AH table, IRQ-safe, would look like
 * the BH-safe ones, and mw_xa held around an mr_xa update like a recursive
 * lock. Each table gets a class of its own.
 */
static struct lock_class_key sroce_qp_xa_key, sroce_srq_xa_key,
			     sroce_ah_xa_key, sroce_mr_xa_key, sroce_mw_xa_key;

static void sroce_xa_init(struct xarray *xa, gfp_t flags,
			  struct lock_class_key *key)
{
	xa_init_flags(xa, flags);
	lockdep_set_class(&xa->xa_lock, key);
}

void sroce_verbs_init(struct sroce_dev *sdev)
{
	sroce_xa_init(&sdev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH,
		      &sroce_qp_xa_key);
	sroce_xa_init(&sdev->srq_xa, XA_FLAGS_ALLOC, &sroce_srq_xa_key);
	/*
	 * The QP's run, which looks up AHs, MRs and MWs, may be in softirq;
	 * AHs may be created and destroyed with IRQs off.
	 */
	sroce_xa_init(&sdev->ah_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ,
		      &sroce_ah_xa_key);
	sroce_xa_init(&sdev->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH,
		      &sroce_mr_xa_key);
	sroce_xa_init(&sdev->mw_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH,
		      &sroce_mw_xa_key);
	INIT_LIST_HEAD(&sdev->mcast_list);
	mutex_init(&sdev->mcast_mutex);
	sdev->mcast_seed = get_random_u32();
	atomic_set(&sdev->num_pd, 0);
	atomic_set(&sdev->num_cq, 0);
	atomic_set(&sdev->num_odp_mr, 0);
	atomic_set(&sdev->num_odp_children, 0);
}

/* All objects are gone by now: the core destroys them before ->dealloc_driver. */
void sroce_verbs_cleanup(struct sroce_dev *sdev)
{
	WARN_ON(!xa_empty(&sdev->qp_xa));
	WARN_ON(!xa_empty(&sdev->srq_xa));
	WARN_ON(!xa_empty(&sdev->ah_xa));
	WARN_ON(!xa_empty(&sdev->mr_xa));
	WARN_ON(!xa_empty(&sdev->mw_xa));
	WARN_ON(atomic_read(&sdev->num_pd));
	WARN_ON(atomic_read(&sdev->num_cq));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->srq_xa);
	xa_destroy(&sdev->ah_xa);
	xa_destroy(&sdev->mr_xa);
	xa_destroy(&sdev->mw_xa);
}

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	if (atomic_inc_return(&sdev->num_pd) > sdev->attr.max_pd) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->num_pd);
	return 0;
}

/*
 * Resolve an address vector from the core's ah_attr. The core has already
 * found the source GID entry and, for RoCE, the destination MAC. sroce
 * speaks RoCEv2 only, so the source GID must be a RoCEv2 one; its network
 * type tells IPv4 from IPv6.
 */
int sroce_av_from_attr(struct sroce_dev *sdev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr, *dgid_attr;
	struct net_device *ndev;
	enum rdma_network_type type;
	bool v4;
	int ifindex;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != SROCE_PORT)
		return -EINVAL;

	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	type = rdma_gid_attr_network_type(sgid_attr);
	if (type != RDMA_NETWORK_IPV4 && type != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* An IPv4 source needs an IPv4-mapped destination, and vice versa. */
	v4 = type == RDMA_NETWORK_IPV4;
	if (v4 != ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw))
		return -EINVAL;

	/*
	 * The packets leave through the GID's netdev: a VLAN's GID sends
	 * tagged on that VLAN, as a RoCE NIC does (xmit.c routes by it).
	 */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	ifindex = IS_ERR(ndev) ? 0 : ndev->ifindex;
	rcu_read_unlock();
	if (!ifindex)
		return -ENODEV;

	memset(av, 0, sizeof(*av));
	av->network_type = type;
	av->ifindex = ifindex;
	av->sl = rdma_ah_get_sl(attr);
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = grh->flow_label;
	av->dgid = grh->dgid;
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	dgid_attr = rdma_find_gid_by_port(&sdev->ibdev, &grh->dgid,
					  IB_GID_TYPE_ROCE_UDP_ENCAP,
					  SROCE_PORT, NULL);
	if (!IS_ERR(dgid_attr)) {
		av->dgid_ours = true;
		rdma_put_gid_attr(dgid_attr);
	}
	rdma_gid2ip((struct sockaddr *)&av->saddr, &sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&av->daddr, &grh->dgid);
	return 0;
}

/*
 * Without RDMA_CREATE_AH_SLEEPABLE the caller may have IRQs off: then the
 * table is updated with them kept off and nothing that sleeps.
 */
static int sroce_ah_add(struct sroce_dev *sdev, struct sroce_ah *ah,
			bool sleepable)
{
	unsigned long flags;
	int err;

	if (sleepable)
		return xa_alloc_cyclic_irq(&sdev->ah_xa, &ah->ah_num, ah,
					   XA_LIMIT(1, sdev->attr.max_ah),
					   &sdev->ah_next, GFP_KERNEL);
	xa_lock_irqsave(&sdev->ah_xa, flags);
	err = __xa_alloc_cyclic(&sdev->ah_xa, &ah->ah_num, ah,
				XA_LIMIT(1, sdev->attr.max_ah), &sdev->ah_next,
				GFP_ATOMIC);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
	return err;
}

static void sroce_ah_remove(struct sroce_dev *sdev, struct sroce_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&sdev->ah_xa, flags);
	__xa_erase(&sdev->ah_xa, ah->ah_num);
	xa_unlock_irqrestore(&sdev->ah_xa, flags);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_resp resp = {};
	int err;

	err = sroce_av_from_attr(sdev, &ah->av, init_attr->ah_attr);
	if (err)
		return err;

	err = sroce_ah_add(sdev, ah,
			   init_attr->flags & RDMA_CREATE_AH_SLEEPABLE);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	if (udata && udata->outlen) {
		/* The provider sends ah_num in UD WQEs to name this AH. */
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err) {
			sroce_ah_remove(sdev, ah);
			return err;
		}
	}
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct sroce_ah *ah = to_sah(ibah);

	memset(attr, 0, sizeof(*attr));
	attr->type = ibah->type;
	rdma_ah_set_port_num(attr, SROCE_PORT);
	rdma_ah_set_grh(attr, &ah->av.dgid, ah->av.flow_label,
			ah->av.sgid_index, ah->av.hop_limit,
			ah->av.traffic_class);
	rdma_ah_set_sl(attr, ah->av.sl);
	memcpy(attr->roce.dmac, ah->av.dmac, ETH_ALEN);
	return 0;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_ah *ah = to_sah(ibah);

	sroce_ah_remove(to_sdev(ibah->device), ah);
	return 0;
}
