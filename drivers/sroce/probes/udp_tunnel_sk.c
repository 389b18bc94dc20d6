// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* 7.x: UDP tunnel socket setup and release take the struct sock. */
#include <net/udp_tunnel.h>

void probe_udp(struct net *net, struct socket *sock, struct udp_tunnel_sock_cfg *cfg);
void probe_udp(struct net *net, struct socket *sock, struct udp_tunnel_sock_cfg *cfg)
{
	setup_udp_tunnel_sock(net, sock->sk, cfg);
	udp_tunnel_sock_release(sock->sk);
}
