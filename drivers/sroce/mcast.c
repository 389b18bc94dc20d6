// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast for UD QPs: attach/detach record (group, QP) pairs; a packet to
 * QPN 0xFFFFFF goes, cloned, to every UD QP attached to the group named by
 * its destination IP address. The first attachment to a group adds its MAC
 * to the netdev's multicast filter, the last detachment removes it; joining
 * the IP group (IGMP) is the RDMA CM's part, as for RoCE hardware.
 *
 * Groups live in a hash table keyed by MGID (the receive path looks them up
 * in softirq, under RCU) and on a list (for a QP leaving all of them); both
 * change under mcast_mutex. At most max_mcast_grp groups,
 * max_mcast_qp_attach QPs per group and max_total_mcast_qp_attach pairs.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "counters.h"
#include "mcast.h"
#include "recv.h"
#include "sched.h"

struct sroce_mcg {
	struct hlist_node	hnode;		/* sdev->mcast_hash, RCU */
	struct list_head	node;		/* sdev->mcast_list */
	union ib_gid		mgid;
	struct list_head	qps;		/* struct sroce_mca, RCU */
	u32			nqp;
	struct rcu_head		rcu;
};

struct sroce_mca {
	struct list_head	node;		/* mcg->qps, RCU */
	struct sroce_qp		*qp;
	struct rcu_head		rcu;
};

/*
 * Seeded per device at random: MGIDs are the user's choice, and with a
 * known seed 8192 groups could be put in one bucket, for every multicast
 * packet to walk in softirq.
 */
static u32 sroce_mgid_hash(const struct sroce_dev *sdev,
			   const union ib_gid *mgid)
{
	return jhash(mgid->raw, sizeof(mgid->raw), sdev->mcast_seed);
}

/* Under mcast_mutex or rcu_read_lock. */
static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev,
					const union ib_gid *mgid)
{
	struct sroce_mcg *g;

	hash_for_each_possible_rcu(sdev->mcast_hash, g, hnode,
				   sroce_mgid_hash(sdev, mgid),
				   lockdep_is_held(&sdev->mcast_mutex))
		if (!memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

/* The group's Ethernet address in (or out of) the netdev's filter. */
static void sroce_mcast_filter(struct sroce_dev *sdev, const union ib_gid *gid,
			       bool add)
{
	u8 mac[ETH_ALEN];

	rdma_get_mcast_mac((struct in6_addr *)gid->raw, mac);
	if (add)
		dev_mc_add(sdev->ndev, mac);
	else
		dev_mc_del(sdev->ndev, mac);
}

/* @g, or a new group made of @ng. NULL: too many groups. */
static struct sroce_mcg *sroce_mcg_get(struct sroce_dev *sdev,
				       struct sroce_mcg *g,
				       struct sroce_mcg *ng,
				       const union ib_gid *mgid)
{
	lockdep_assert_held(&sdev->mcast_mutex);
	if (g)
		return g;
	if (sdev->mcast_groups >= sdev->attr.max_mcast_grp)
		return NULL;
	ng->mgid = *mgid;
	INIT_LIST_HEAD(&ng->qps);
	hash_add_rcu(sdev->mcast_hash, &ng->hnode,
		     sroce_mgid_hash(sdev, mgid));
	list_add_tail(&ng->node, &sdev->mcast_list);
	sdev->mcast_groups++;
	sroce_mcast_filter(sdev, mgid, true);
	return ng;
}

static bool sroce_mcg_has(struct sroce_mcg *g, struct sroce_qp *qp)
{
	struct sroce_mca *m;

	list_for_each_entry(m, &g->qps, node)
		if (m->qp == qp)
			return true;
	return false;
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mcg *g, *ng;
	struct sroce_mca *m;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	/* A multicast IPv6 address, or an IPv4-mapped multicast one. */
	if (!rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	ng = kzalloc(sizeof(*ng), GFP_KERNEL_ACCOUNT);
	if (!m || !ng) {
		err = -ENOMEM;
		goto out;
	}
	m->qp = qp;

	mutex_lock(&sdev->mcast_mutex);
	g = sroce_mcg_find(sdev, gid);
	if (g && sroce_mcg_has(g, qp)) {
		/* Already attached: not an error. */
	} else if ((g && g->nqp >= sdev->attr.max_mcast_qp_attach) ||
		   sdev->mcast_attached >=
		   sdev->attr.max_total_mcast_qp_attach) {
		err = -ENOMEM;
	} else {
		g = sroce_mcg_get(sdev, g, ng, gid);
		if (!g) {
			err = -ENOMEM;
		} else {
			if (g == ng)
				ng = NULL;
			list_add_tail_rcu(&m->node, &g->qps);
			g->nqp++;
			sdev->mcast_attached++;
			m = NULL;
		}
	}
	mutex_unlock(&sdev->mcast_mutex);
out:
	kfree(ng);
	kfree(m);
	return err;
}

/* Readers may still walk @m (and @g): freed after RCU. */
static void sroce_mcast_del(struct sroce_dev *sdev, struct sroce_mcg *g,
			    struct sroce_mca *m)
{
	lockdep_assert_held(&sdev->mcast_mutex);
	list_del_rcu(&m->node);
	kfree_rcu(m, rcu);
	sdev->mcast_attached--;
	if (--g->nqp)
		return;
	hash_del_rcu(&g->hnode);
	list_del(&g->node);
	sdev->mcast_groups--;
	sroce_mcast_filter(sdev, &g->mgid, false);
	kfree_rcu(g, rcu);
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcg *g;
	struct sroce_mca *m;
	int err = -EINVAL;

	mutex_lock(&sdev->mcast_mutex);
	g = sroce_mcg_find(sdev, gid);
	if (g) {
		list_for_each_entry(m, &g->qps, node) {
			if (m->qp == to_sqp(ibqp)) {
				sroce_mcast_del(sdev, g, m);
				err = 0;
				break;
			}
		}
	}
	mutex_unlock(&sdev->mcast_mutex);
	return err;
}

/* A QP being destroyed leaves every group (kernel consumers may not). */
void sroce_mcast_detach_qp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mcg *g, *gtmp;
	struct sroce_mca *m;

	mutex_lock(&sdev->mcast_mutex);
	list_for_each_entry_safe(g, gtmp, &sdev->mcast_list, node) {
		list_for_each_entry(m, &g->qps, node) {
			if (m->qp == qp) {
				sroce_mcast_del(sdev, g, m);
				break;
			}
		}
	}
	mutex_unlock(&sdev->mcast_mutex);
	/* Receive paths still walking a group see the QP's last entries. */
	synchronize_rcu();
}

/* Softirq (or BHs off): fan a QPN 0xFFFFFF packet out. Consumes @skb. */
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_mcg *g;
	struct sroce_mca *m;
	struct sk_buff *c;
	union ib_gid dgid;
	bool any = false;

	if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dgid.raw);
	else if (skb->protocol == htons(ETH_P_IPV6))
		memcpy(dgid.raw, &ipv6_hdr(skb)->daddr, sizeof(dgid));
	else
		goto out;

	rcu_read_lock();
	g = sroce_mcg_find(sdev, &dgid);
	if (g) {
		list_for_each_entry_rcu(m, &g->qps, node) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (!c)
				break;
			any = true;
			if (sroce_qp_deliver(sdev, m->qp, c))
				sroce_qp_sched(m->qp);
		}
	}
	rcu_read_unlock();
out:
	if (!any)
		sroce_count_drop(sdev, SROCE_CNT_DROP_NO_QP);
	kfree_skb(skb);
}
