// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Module entry points, the "sroce" rdma link type, and the netdev notifier
 * that ties each device's life and port state to its netdev.
 *
 * sroce keeps its own netdev -> device table. It never looks devices up by
 * driver id: it shares RDMA_DRIVER_RXE with rdma_rxe (so that rdma-core's rxe
 * provider binds), and a lookup by that id could return rxe's devices.
 */
#include <linux/module.h>
#include <linux/hashtable.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "device.h"
#include "fault.h"
#include "main.h"
#include "net.h"
#include "sched.h"
#include "txbuf.h"

/*
 * The table maps a netdev to its sroce device. Readers (packet receive,
 * the notifier) use RCU; writers hold sroce_table_lock. sroce_link_mutex
 * serialises newlink so "one device per netdev" is checked race-free.
 */
static DEFINE_HASHTABLE(sroce_table, 6);
static DEFINE_SPINLOCK(sroce_table_lock);
static DEFINE_MUTEX(sroce_link_mutex);

static struct sroce_dev *sroce_table_find(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	hash_for_each_possible_rcu(sroce_table, sdev, table_node,
				   (unsigned long)ndev)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

/*
 * The device that serves @ndev's traffic already: one on it, on the port
 * under it if it is a VLAN, or on a VLAN above it. A device on a port has
 * the GIDs of its VLANs as well, so two such devices would share them.
 */
static struct sroce_dev *sroce_table_find_near(struct net_device *ndev)
{
	struct sroce_dev *sdev = sroce_table_find(ndev);
	struct net_device *upper;
	struct list_head *iter;

	if (!sdev && is_vlan_dev(ndev))
		sdev = sroce_table_find(vlan_dev_real_dev(ndev));
	if (sdev)
		return sdev;
	netdev_for_each_upper_dev_rcu(ndev, upper, iter) {
		sdev = is_vlan_dev(upper) ? sroce_table_find(upper) : NULL;
		if (sdev)
			return sdev;
	}
	return NULL;
}

/*
 * Find the device on @ndev and take a reference on it, or return NULL.
 * The reference is refused once unregistration has started. Release it
 * with ib_device_put().
 */
struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	rcu_read_lock();
	sdev = sroce_table_find(ndev);
	if (sdev && (!READ_ONCE(sdev->registered) ||
		     READ_ONCE(sdev->ndev_gone) ||
		     !ib_device_try_get(&sdev->ibdev)))
		sdev = NULL;
	rcu_read_unlock();
	return sdev;
}

void sroce_table_del(struct sroce_dev *sdev)
{
	spin_lock(&sroce_table_lock);
	hash_del_rcu(&sdev->table_node);
	spin_unlock(&sroce_table_lock);
	/* RCU readers may still be looking at the entry. */
	synchronize_rcu();
}

/* Whether a device may sit on @ndev at all: Ethernet, a VLAN at home. */
static bool sroce_netdev_usable(struct net_device *ndev)
{
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN) {
		pr_info("%s is not an Ethernet device\n", ndev->name);
		return false;
	}
	/* Its port's GIDs are found in the port's namespace (device.c). */
	if (is_vlan_dev(ndev) &&
	    !net_eq(dev_net(ndev), dev_net(vlan_dev_real_dev(ndev)))) {
		pr_info("VLAN %s is not in its port's network namespace\n",
			ndev->name);
		return false;
	}
	return true;
}

/* Whether a device serves @ndev's traffic already (said why, if so). */
static bool sroce_netdev_taken(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	lockdep_assert_held(&sroce_link_mutex);
	rcu_read_lock();
	sdev = sroce_table_find_near(ndev);
	if (sdev && sdev->ndev == ndev)
		pr_info("%s already carries device %s\n",
			ndev->name, dev_name(&sdev->ibdev.dev));
	else if (sdev)
		pr_info("%s: device %s on %s serves its traffic\n",
			ndev->name, dev_name(&sdev->ibdev.dev),
			sdev->ndev->name);
	rcu_read_unlock();
	return sdev;
}

static int sroce_newlink(const char *name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool gone;
	int err;

	if (!sroce_netdev_usable(ndev))
		return -EOPNOTSUPP;

	mutex_lock(&sroce_link_mutex);
	if (sroce_netdev_taken(ndev)) {
		err = -EEXIST;
		goto out_unlock;
	}

	sdev = sroce_dev_alloc(ndev);
	if (!sdev) {
		err = -ENOMEM;
		goto out_unlock;
	}

	err = sroce_net_get(sdev);
	if (err)
		goto out_dealloc;

	/*
	 * Enter the table under RTNL, so that the netdev cannot start going
	 * away in between: from here on the notifier sees the device. Until
	 * it is registered the notifier only flags it (ndev_gone).
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED) {
		rtnl_unlock();
		err = -ENODEV;
		goto out_dealloc;
	}
	spin_lock(&sroce_table_lock);
	hash_add_rcu(sroce_table, &sdev->table_node, (unsigned long)ndev);
	spin_unlock(&sroce_table_lock);
	rtnl_unlock();

	err = sroce_dev_register(sdev, name);

	spin_lock(&sroce_table_lock);
	gone = sdev->ndev_gone;
	if (!err)
		WRITE_ONCE(sdev->registered, true);
	spin_unlock(&sroce_table_lock);

	if (err)
		goto out_dealloc;
	/* The netdev started unregistering while we registered: follow it. */
	if (gone)
		ib_unregister_device(&sdev->ibdev);

	mutex_unlock(&sroce_link_mutex);
	return 0;

out_dealloc:
	/* ->dealloc_driver releases the table entry, sockets and netdev. */
	ib_dealloc_device(&sdev->ibdev);
out_unlock:
	mutex_unlock(&sroce_link_mutex);
	return err;
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	ASSERT_RTNL();
	rcu_read_lock();
	sdev = sroce_table_find(ndev);
	if (!sdev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Also sent when the netdev merely leaves its namespace (a
		 * dying namespace hands NICs back to init_net): from now on
		 * the device neither sends nor takes packets.
		 */
		spin_lock(&sroce_table_lock);
		WRITE_ONCE(sdev->ndev_gone, true);
		if (sdev->registered)
			ib_unregister_device_queued(&sdev->ibdev);
		spin_unlock(&sroce_table_lock);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sroce_port_update(sdev, READ_ONCE(sdev->registered));
		break;
	default:
		break;
	}
out:
	rcu_read_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

static int __init sroce_init(void)
{
	int err;

	err = sroce_wq_init();
	if (err)
		return err;

	err = sroce_net_init();
	if (err)
		goto err_wq;

	err = register_netdevice_notifier(&sroce_netdev_notifier);
	if (err)
		goto err_net;

	sroce_fault_init();
	rdma_link_register(&sroce_link_ops);
	pr_info("loaded\n");
	return 0;

err_net:
	sroce_net_exit();
err_wq:
	sroce_wq_exit();
	return err;
}

/*
 * Unregister every sroce device whose sockets are @sn's (every device for
 * NULL), synchronously. ib_unregister_driver() is not usable: it selects
 * devices by driver id, which would take rdma_rxe's too.
 */
static void sroce_unregister_matching(const struct sroce_net *sn)
{
	struct ib_device *ibdev;
	struct sroce_dev *sdev;
	int bkt;

	for (;;) {
		ibdev = NULL;
		rcu_read_lock();
		hash_for_each_rcu(sroce_table, bkt, sdev, table_node) {
			if (sn && READ_ONCE(sdev->sn) != sn)
				continue;
			ibdev = &sdev->ibdev;
			get_device(&ibdev->dev);
			break;
		}
		rcu_read_unlock();
		if (!ibdev)
			return;
		/*
		 * Waits for a concurrent unregistration (from the notifier)
		 * too; either way ->dealloc_driver removes the entry.
		 */
		ib_unregister_device(ibdev);
		put_device(&ibdev->dev);
	}
}

/*
 * A namespace is going away while devices still use its sockets: their
 * netdevs were handed back to init_net (NICs, VFs, virtio-net, netdevsim
 * are moved, not destroyed), so nothing else waits for them. Unregister
 * them now, before the sockets close. Newlink is held off meanwhile, so
 * every device found is a registered one.
 */
void sroce_unregister_net(const struct sroce_net *sn)
{
	mutex_lock(&sroce_link_mutex);
	sroce_unregister_matching(sn);
	mutex_unlock(&sroce_link_mutex);
}

static void __exit sroce_exit(void)
{
	/* Waits for newlink calls in flight; no new device after this. */
	rdma_link_unregister(&sroce_link_ops);
	sroce_unregister_matching(NULL);
	unregister_netdevice_notifier(&sroce_netdev_notifier);
	sroce_net_exit();
	sroce_wq_exit();
	sroce_txbuf_exit();
	sroce_fault_exit();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce developers");
MODULE_DESCRIPTION("sroce: software RoCEv2 RDMA device");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("sroce");
/* Since 7.2 nothing else pulls in ib_uverbs, which user verbs need. */
MODULE_SOFTDEP("post: ib_uverbs");
