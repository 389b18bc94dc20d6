// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ib_device: allocation, registration with the RDMA core, the device
 * and port queries, and the port state that follows the netdev.
 */
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/stringify.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "sroce.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "mad.h"
#include "main.h"
#include "mcast.h"
#include "mr.h"
#include "net.h"
#include "odp.h"
#include "post.h"
#include "qp.h"
#include "queue.h"
#include "rdma_user_sroce.h"
#include "restrack.h"
#include "srq.h"
#include "verbs.h"

/*
 * Object limits. The defaults are what the device advertises; an
 * administrator may lower them to cap what one host gives away (the limits
 * then reported by query_device follow).
 */
static unsigned int max_qp = SROCE_MAX_QP;
module_param(max_qp, uint, 0444);
MODULE_PARM_DESC(max_qp, "Maximum number of QPs per device, 1 to "
		 __stringify(SROCE_MAX_QP) " (the default)");
static unsigned int max_cq = SROCE_MAX_CQ;
module_param(max_cq, uint, 0444);
MODULE_PARM_DESC(max_cq, "Maximum number of CQs per device, 1 to "
		 __stringify(SROCE_MAX_CQ) " (the default)");
static unsigned int max_pd = SROCE_MAX_PD;
module_param(max_pd, uint, 0444);
MODULE_PARM_DESC(max_pd, "Maximum number of PDs per device, 1 to "
		 __stringify(SROCE_MAX_PD) " (the default)");
static unsigned int max_srq = SROCE_MAX_SRQ;
module_param(max_srq, uint, 0444);
MODULE_PARM_DESC(max_srq, "Maximum number of SRQs per device, 1 to "
		 __stringify(SROCE_MAX_SRQ) " (the default)");
static unsigned int max_mr = SROCE_MAX_MR;
module_param(max_mr, uint, 0444);
MODULE_PARM_DESC(max_mr, "Maximum number of MRs per device, 1 to "
		 __stringify(SROCE_MAX_MR) " (the default)");
static unsigned int max_mw = SROCE_MAX_MW;
module_param(max_mw, uint, 0444);
MODULE_PARM_DESC(max_mw, "Maximum number of MWs per device, 1 to "
		 __stringify(SROCE_MAX_MW) " (the default)");
static unsigned int max_ah = SROCE_MAX_AH;
module_param(max_ah, uint, 0444);
MODULE_PARM_DESC(max_ah, "Maximum number of AHs per device, 1 to "
		 __stringify(SROCE_MAX_AH) " (the default)");

static u32 sroce_limit(unsigned int param, u32 max)
{
	return clamp_t(u32, param, 1, max);
}

static void sroce_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;

	a->fw_ver = SROCE_FW_VER;
	a->sys_image_guid = sdev->ibdev.node_guid;
	a->max_mr_size = SROCE_MAX_MR_SIZE;
	a->page_size_cap = SROCE_PAGE_SIZE_CAP;
	a->vendor_id = SROCE_VENDOR_ID;
	a->max_qp = sroce_limit(max_qp, SROCE_MAX_QP);
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_UD_AV_PORT_ENFORCE |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_SRQ_RESIZE |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      SROCE_DEVICE_ATOMIC_WRITE |
			      SROCE_DEVICE_FLUSH;
	/* "rdma link delete" is only allowed with this flag. */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	sroce_odp_caps(a);
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE_RD;
	a->max_cq = sroce_limit(max_cq, SROCE_MAX_CQ);
	a->max_cqe = SROCE_MAX_CQE;
	a->max_mr = sroce_limit(max_mr, SROCE_MAX_MR);
	a->max_mw = sroce_limit(max_mw, SROCE_MAX_MW);
	a->max_pd = sroce_limit(max_pd, SROCE_MAX_PD);
	a->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_ah = sroce_limit(max_ah, SROCE_MAX_AH);
	a->max_srq = sroce_limit(max_srq, SROCE_MAX_SRQ);
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = SROCE_MAX_FMR_PAGE_LIST_LEN;
	a->max_pkeys = SROCE_PKEY_TABLE_LEN;
	a->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_TOT_MCAST_QP_ATTACH;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	/* Nothing driver-specific is exchanged: reject what we don't know. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = to_sdev(ibdev)->attr;
	return 0;
}

static enum ib_mtu sroce_mtu_from_netdev(struct net_device *ndev)
{
	enum ib_mtu mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));

	/* A netdev too small for even 256 B payloads still gets the floor. */
	return mtu ? mtu : IB_MTU_256;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	enum ib_port_state state = READ_ONCE(sdev->port_state);

	/* The core has zeroed *attr. */
	attr->state = state;
	attr->phys_state = state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = SROCE_PORT_MAX_MTU;
	attr->active_mtu = READ_ONCE(sdev->port_mtu);
	attr->phys_mtu = ib_mtu_enum_to_int(SROCE_PORT_MAX_MTU);
	attr->gid_tbl_len = SROCE_GID_TABLE_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SZ;
	attr->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	attr->max_vl_num = 1;
	attr->init_type_reply = 0;

	/* Speed and width come from ethtool; this takes RTNL. */
	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index >= SROCE_PKEY_TABLE_LEN)
		return -EINVAL;

	*pkey = SROCE_DEFAULT_PKEY;
	return 0;
}

static int sroce_modify_device(struct ib_device *ibdev, int mask,
			       struct ib_device_modify *attr)
{
	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;

	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, attr->node_desc,
		       sizeof(ibdev->node_desc));
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SROCE_PKEY_TABLE_LEN;
	immutable->gid_tbl_len = SROCE_GID_TABLE_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	/* The rxe ABI exchanges no driver data at context creation. */
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device is going away (rdma link delete, its netdev or namespace
 * removed, rmmod) while a process still holds it open. Having this op makes
 * the core disassociate the process instead of waiting for it to exit: it
 * destroys the process's objects through the usual destroy verbs, delivers
 * IB_EVENT_DEVICE_FATAL and fails its further calls with EIO; the ring
 * mappings keep their stale rings' pages (queue.c); nothing is left for
 * sroce to do here.
 * It also means uverbs holds no reference on the module for an open file.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * Called by the core once the device is unregistered and the last user is
 * gone, whoever started the unregistration, and by ib_dealloc_device() for
 * a device that never got registered. Everything the device holds is
 * released here, whatever stage it reached; the core frees the memory right
 * after.
 */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_table_del(sdev);
	sroce_verbs_cleanup(sdev);
	sroce_net_put(sdev);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);
	free_percpu(sdev->stats);
}

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.advise_mr = sroce_advise_mr,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.fill_res_mr_entry = sroce_fill_res_mr_entry,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.fill_res_qp_entry_raw = sroce_fill_res_qp_entry_raw,
	.fill_res_cq_entry_raw = sroce_fill_res_cq_entry_raw,
	.fill_res_mr_entry_raw = sroce_fill_res_mr_entry_raw,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_device = sroce_modify_device,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.process_mad = sroce_process_mad,
	.query_ah = sroce_query_ah,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.req_notify_cq = sroce_req_notify_cq,
	SROCE_COMPAT_OPS,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

/*
 * A device on a VLAN netdev is registered on the port under it: the core
 * finds GIDs for a port and the VLANs above it, never for a VLAN netdev
 * as a port. Of what it finds there, the device keeps its own VLAN's
 * GIDs; the core logs each one refused.
 */
static int sroce_add_vlan_gid(const struct ib_gid_attr *attr, void **context)
{
	/*
	 * The entry is not valid yet (no rdma_read_gid_attr_ndev_rcu()), but
	 * holds its netdev: only the pointer is compared.
	 */
	if (rcu_access_pointer(attr->ndev) != to_sdev(attr->device)->ndev)
		return -EADDRNOTAVAIL;
	return 0;
}

static int sroce_del_vlan_gid(const struct ib_gid_attr *attr, void **context)
{
	return 0;
}

static const struct ib_device_ops sroce_vlan_ops = {
	.add_gid = sroce_add_vlan_gid,
	.del_gid = sroce_del_vlan_gid,
};

/*
 * Recompute the port state and MTU from the netdev. With @notify, a change
 * of state is reported to RDMA consumers as a port event. Caller holds RTNL
 * (or owns the device exclusively, before registration).
 */
void sroce_port_update(struct sroce_dev *sdev, bool notify)
{
	struct net_device *ndev = sdev->ndev;
	enum ib_port_state old = sdev->port_state, new;
	struct ib_event ev;

	lockdep_assert(!notify || lockdep_rtnl_is_held());

	new = netif_running(ndev) && netif_carrier_ok(ndev) ?
	      IB_PORT_ACTIVE : IB_PORT_DOWN;
	WRITE_ONCE(sdev->port_mtu, sroce_mtu_from_netdev(ndev));
	if (new == old)
		return;

	WRITE_ONCE(sdev->port_state, new);
	if (old == IB_PORT_ACTIVE)
		sroce_count(sdev, SROCE_CNT_LINK_DOWNED);
	if (!notify)
		return;

	ev.device = &sdev->ibdev;
	ev.element.port_num = SROCE_PORT;
	ev.event = new == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					   IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

struct sroce_dev *sroce_dev_alloc(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return NULL;
	/* Zeroed; before the ops are set, so nothing else to undo. */
	sdev->stats = alloc_percpu(struct sroce_stats);
	if (!sdev->stats) {
		ib_dealloc_device(&sdev->ibdev);
		return NULL;
	}

	sdev->ndev = ndev;
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	INIT_HLIST_NODE(&sdev->table_node);
	sdev->port_state = IB_PORT_DOWN;
	sdev->port_mtu = sroce_mtu_from_netdev(ndev);
	sroce_verbs_init(sdev);
	/*
	 * From here on ib_dealloc_device() undoes everything through
	 * ->dealloc_driver, registered or not.
	 */
	ib_set_device_ops(&sdev->ibdev, &sroce_dev_ops);
	if (is_vlan_dev(ndev))
		ib_set_device_ops(&sdev->ibdev, &sroce_vlan_ops);

	return sdev;
}

int sroce_dev_register(struct sroce_dev *sdev, const char *name)
{
	struct ib_device *ibdev = &sdev->ibdev;
	struct net_device *ndev = sdev->ndev;
	int err;

	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	/*
	 * The rxe provider rings the send doorbell and arms CQs through these
	 * two legacy write() commands, which the core does not enable by
	 * default.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	sroce_init_attr(sdev);

	/*
	 * This makes the core fill the GID table from the netdev's addresses
	 * (a VLAN's: from its port's, sroce_add_vlan_gid()).
	 */
	err = ib_device_set_netdev(ibdev, is_vlan_dev(ndev) ?
				   vlan_dev_real_dev(ndev) : ndev, SROCE_PORT);
	if (err)
		return err;

	rtnl_lock();
	sroce_port_update(sdev, false);
	rtnl_unlock();

	/*
	 * As on RoCE hardware, the device is a child of the NIC's, so that
	 * /sys/class/infiniband/NAME/device/net/ names the netdev (rdma-core's
	 * tests and udev's naming look there). A veth or dummy has no parent:
	 * the device stays at the top, as rdma_rxe's always is. device_add()
	 * holds the parent for as long as the device exists.
	 */
	ibdev->dev.parent = ndev->dev.parent;

	/* No DMA device: the core then uses virtual DMA (CONFIG_INFINIBAND_VIRT_DMA). */
	err = ib_register_device(ibdev, name, NULL);
	/* The core says ENFILE for a name that is taken; say what it means. */
	if (err == -ENFILE)
		err = -EEXIST;
	return err;
}
