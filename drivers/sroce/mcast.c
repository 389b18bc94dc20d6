// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast for UD QPs: attach/detach record (group, QP) pairs; a packet to
 * QPN 0xFFFFFF goes, cloned, to every UD QP attached to the group named by
 * its destination IP address. The first attachment to a group adds its MAC
 * to the netdev's multicast filter, the last detachment removes it; joining
 * the IP group (IGMP) is the RDMA CM's part, as for RoCE hardware.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "sroce.h"

struct sroce_mca {
	struct list_head	node;		/* sdev->mcast_list, RCU */
	union ib_gid		mgid;
	struct sroce_qp		*qp;
	struct rcu_head		rcu;
};

static u32 sroce_mcast_count(struct sroce_dev *sdev, const union ib_gid *mgid,
			     struct sroce_qp *qp, bool *dup)
{
	struct sroce_mca *m;
	u32 n = 0;

	list_for_each_entry(m, &sdev->mcast_list, node) {
		if (memcmp(&m->mgid, mgid, sizeof(*mgid)))
			continue;
		n++;
		if (m->qp == qp)
			*dup = true;
	}
	return n;
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

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mca *m;
	bool dup = false;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD)
		return -EINVAL;
	/* A multicast IPv6 address, or an IPv4-mapped multicast one. */
	if (!rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->mgid = *gid;
	m->qp = qp;

	mutex_lock(&sdev->mcast_mutex);
	if (sroce_mcast_count(sdev, gid, qp, &dup) >=
	    sdev->attr.max_mcast_qp_attach ||
	    sdev->mcast_attached >= sdev->attr.max_total_mcast_qp_attach)
		err = -ENOMEM;
	else if (!dup) {
		if (!sroce_mcast_count(sdev, gid, NULL, &dup))
			sroce_mcast_filter(sdev, gid, true);
		list_add_tail_rcu(&m->node, &sdev->mcast_list);
		sdev->mcast_attached++;
		m = NULL;
	}
	mutex_unlock(&sdev->mcast_mutex);
	kfree(m);	/* refused, or already attached (not an error) */
	return err;
}

static void sroce_mcast_del(struct sroce_dev *sdev, struct sroce_mca *m)
{
	bool dup = false;

	list_del_rcu(&m->node);
	sdev->mcast_attached--;
	if (!sroce_mcast_count(sdev, &m->mgid, NULL, &dup))
		sroce_mcast_filter(sdev, &m->mgid, false);
	kfree_rcu(m, rcu);
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mca *m, *tmp;
	int err = -EINVAL;

	mutex_lock(&sdev->mcast_mutex);
	list_for_each_entry_safe(m, tmp, &sdev->mcast_list, node) {
		if (m->qp == to_sqp(ibqp) &&
		    !memcmp(&m->mgid, gid, sizeof(*gid))) {
			sroce_mcast_del(sdev, m);
			err = 0;
		}
	}
	mutex_unlock(&sdev->mcast_mutex);
	return err;
}

/* A QP being destroyed leaves every group (kernel consumers may not). */
void sroce_mcast_detach_qp(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sroce_mca *m, *tmp;

	mutex_lock(&sdev->mcast_mutex);
	list_for_each_entry_safe(m, tmp, &sdev->mcast_list, node)
		if (m->qp == qp)
			sroce_mcast_del(sdev, m);
	mutex_unlock(&sdev->mcast_mutex);
	/* Receive paths still walking the list see the QP's last entries. */
	synchronize_rcu();
}

/* Softirq (or BHs off): fan a QPN 0xFFFFFF packet out. Consumes @skb. */
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
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
	list_for_each_entry_rcu(m, &sdev->mcast_list, node) {
		if (memcmp(&m->mgid, &dgid, sizeof(dgid)))
			continue;
		c = skb_clone(skb, GFP_ATOMIC);
		if (!c)
			break;
		any = true;
		sroce_qp_deliver(sdev, m->qp, c);
	}
	rcu_read_unlock();
out:
	if (!any)
		sroce_count(sdev, SROCE_CNT_RCVD_DROPPED);
	kfree_skb(skb);
}
