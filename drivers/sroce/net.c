// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RoCEv2 UDP sockets (port 4791), one IPv4 and one IPv6 socket per
 * network namespace. They are opened with the first sroce device of a
 * namespace and closed with its last, so that a namespace without sroce
 * devices leaves the port to whoever wants it. Packets leave through them
 * (xmit.c) and arrive in their receive callback (recv.c).
 */
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "compat.h"
#include "main.h"
#include "net.h"
#include "recv.h"

#define SROCE_ROCE_V2_PORT	SROCE_UDP_PORT

static unsigned int sroce_net_id __read_mostly;

static DEFINE_MUTEX(sroce_net_mutex);
/* Woken whenever a device drops its sockets (sroce_net_put). */
static DECLARE_WAIT_QUEUE_HEAD(sroce_net_wq);

static struct socket *sroce_sock_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg ucfg = {
		.local_udp_port = htons(SROCE_ROCE_V2_PORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		ucfg.family = AF_INET6;
		ucfg.ipv6_v6only = 1;
		/* RoCEv2 senders may leave the UDP checksum zero. */
		ucfg.use_udp6_rx_checksums = 0;
	} else {
		ucfg.family = AF_INET;
	}

	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);

	sroce_udp_tunnel_setup(net, sock, &tcfg);
	return sock;
}

static void sroce_net_close(struct sroce_net *sn)
{
	lockdep_assert_held(&sroce_net_mutex);
	if (sn->sock6)
		sroce_udp_tunnel_release(sn->sock6);
	if (sn->sock4)
		sroce_udp_tunnel_release(sn->sock4);
	sn->sock4 = NULL;
	sn->sock6 = NULL;
}

static int sroce_net_open(struct net *net, struct sroce_net *sn)
{
	struct socket *sock;

	lockdep_assert_held(&sroce_net_mutex);

	sock = sroce_sock_open(net, false);
	if (IS_ERR(sock))
		goto err;
	sn->sock4 = sock;

	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = sroce_sock_open(net, true);
		/* Without IPv6 in this kernel (ipv6.disable=1) go on with IPv4. */
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
			goto err;
		if (!IS_ERR(sock))
			sn->sock6 = sock;
	}
	return 0;

err:
	sroce_net_close(sn);
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("UDP port %d is already in use in this network namespace; rdma_rxe binds it too: sroce and rdma_rxe cannot be loaded together\n",
		       SROCE_ROCE_V2_PORT);
	else
		pr_err("cannot open the RoCEv2 UDP socket: %pe\n", sock);
	return PTR_ERR(sock);
}

/* Take a reference on the sockets of the device's namespace, opening them. */
int sroce_net_get(struct sroce_dev *sdev)
{
	struct net *net = dev_net(sdev->ndev);
	struct sroce_net *sn = net_generic(net, sroce_net_id);
	int err = 0;

	mutex_lock(&sroce_net_mutex);
	if (!sn->users)
		err = sroce_net_open(net, sn);
	if (!err) {
		sn->users++;
		sdev->sn = sn;
	}
	mutex_unlock(&sroce_net_mutex);
	return err;
}

/*
 * Drop the device's reference. The namespace is still alive here: a netdev
 * destroyed with its namespace is waited for (the device holds a netdev
 * reference until after this), and our pernet exit unregisters the devices
 * of netdevs that the namespace hands back to init_net.
 */
void sroce_net_put(struct sroce_dev *sdev)
{
	struct sroce_net *sn = sdev->sn;

	if (!sn)
		return;

	mutex_lock(&sroce_net_mutex);
	if (!--sn->users)
		sroce_net_close(sn);
	sdev->sn = NULL;
	mutex_unlock(&sroce_net_mutex);
	wake_up_all(&sroce_net_wq);
}

static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net *sn = net_generic(net, sroce_net_id);

	/*
	 * Devices on netdevs that left for init_net still hold @sn. Some may
	 * be half way through ->dealloc_driver already (out of the device
	 * table, not yet past sroce_net_put): wait for those too.
	 */
	sroce_unregister_net(sn);
	wait_event(sroce_net_wq, !READ_ONCE(sn->users));
	/* Normally a no-op: the last device closed the sockets already. */
	mutex_lock(&sroce_net_mutex);
	WARN_ON_ONCE(sn->users);
	sroce_net_close(sn);
	mutex_unlock(&sroce_net_mutex);
}

static struct pernet_operations sroce_net_ops = {
	.exit = sroce_net_ns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_net_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
