// SPDX-License-Identifier: GPL-2.0
/*
 * vlan_cap IFNAME SECONDS: count the RoCEv2 frames (UDP to port 4791, IPv4
 * or IPv6) that IFNAME sends or receives, by VLAN and 802.1p priority,
 * until SECONDS pass or SIGTERM/SIGINT comes; then print one line per
 * class seen:
 *
 *   untagged N
 *   vlan VID pcp PCP N
 *
 * The tag is read from the frame or, where the NIC (a veth) carries it
 * beside the frame, from the packet socket's auxiliary data. Prints
 * "ready" on stderr once capturing. Exit 0, or 1 on a setup error.
 */
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROCE_PORT	4791

static unsigned long untagged, tagged[4096][8];

/* Whether the L3 packet at @p (@len bytes, ethertype @type) is RoCEv2. */
static int is_roce(const unsigned char *p, size_t len, unsigned short type)
{
	size_t l4;

	if (type == ETH_P_IP) {
		if (len < 20 || p[9] != 17)
			return 0;
		l4 = (p[0] & 0xf) * 4;
	} else if (type == ETH_P_IPV6) {
		if (len < 40 || p[6] != 17)
			return 0;
		l4 = 40;
	} else {
		return 0;
	}
	return len >= l4 + 4 && (p[l4 + 2] << 8 | p[l4 + 3]) == ROCE_PORT;
}

static void count(const unsigned char *f, size_t len, const struct tpacket_auxdata *aux)
{
	unsigned short type, tci = 0;
	int has_tag = 0;
	size_t off = 12;

	if (len < 14)
		return;
	type = f[off] << 8 | f[off + 1];
	if (aux && (aux->tp_status & TP_STATUS_VLAN_VALID)) {
		has_tag = 1;
		tci = aux->tp_vlan_tci;
	} else if (type == ETH_P_8021Q && len >= 18) {
		has_tag = 1;
		tci = f[14] << 8 | f[15];
		off += 4;
		type = f[off] << 8 | f[off + 1];
	}
	off += 2;
	if (!is_roce(f + off, len - off, type))
		return;
	if (has_tag)
		tagged[tci & 0xfff][tci >> 13]++;
	else
		untagged++;
}

static int open_socket(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	int fd, one = 1;

	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		perror(ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (fd < 0 || setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one,
				 sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("packet socket");
		return -1;
	}
	return fd;
}

static void receive_one(int fd)
{
	static unsigned char frame[2048];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct iovec iov = { frame, sizeof(frame) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = &ctl, .msg_controllen = sizeof(ctl) };
	struct tpacket_auxdata *aux = NULL;
	struct cmsghdr *c;
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n <= 0)
		return;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA)
			aux = (struct tpacket_auxdata *)CMSG_DATA(c);
	count(frame, n, aux);
}

int main(int argc, char **argv)
{
	struct timespec now, end;
	struct pollfd pfd[2];
	sigset_t sigs;
	int v, p;

	if (argc != 3) {
		fprintf(stderr, "usage: vlan_cap IFNAME SECONDS\n");
		return 1;
	}
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	pfd[1].fd = signalfd(-1, &sigs, 0);
	pfd[0].fd = open_socket(argv[1]);
	if (pfd[0].fd < 0 || pfd[1].fd < 0)
		return 1;
	pfd[0].events = POLLIN;
	pfd[1].events = POLLIN;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atoi(argv[2]);
	fprintf(stderr, "ready\n");
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		if (poll(pfd, 2, 100) <= 0)
			continue;
		if (pfd[1].revents)
			break;
		receive_one(pfd[0].fd);
	}
	/* What is queued already was seen on the link: count it too. */
	while (poll(pfd, 1, 0) > 0 && !(pfd[0].revents & POLLERR))
		receive_one(pfd[0].fd);
	printf("untagged %lu\n", untagged);
	for (v = 0; v < 4096; v++)
		for (p = 0; p < 8; p++)
			if (tagged[v][p])
				printf("vlan %d pcp %d %lu\n", v, p, tagged[v][p]);
	return 0;
}
