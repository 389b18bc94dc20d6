// SPDX-License-Identifier: GPL-2.0
/*
 * Build one RoCEv2 packet, any packet, with a correct ICRC (unless asked
 * otherwise) and send it through a raw IP socket; or watch the RoCEv2
 * packets on an interface. For the wire tests (selftests/tests/wire/).
 *
 *   roce_inject --dst ADDR [--src ADDR] --op OPCODE --qpn N --psn N
 *		[--pkey N] [--ackreq] [--se] [--mig] [--tver N] [--pad N]
 *		[--pad-bytes N] [--resv8a N] [--ext HEX] [--payload HEX]
 *		[--payload-len N] [--ip-opts HEX] [--udp-len N] [--trailer HEX]
 *		[--frag N] [--bad-icrc] [--sport N] [--tos N] [--ttl N]
 *		[--id N] [--count N] [--seed FILE] [--dry-run] [--paged]
 *		[--next ...]
 *	Addresses are IPv4 or IPv6 (both of one family). --ext is the raw
 *	extension headers (RETH, AETH, DETH, ImmDt...) behind the BTH,
 *	--payload the bytes after them (--payload-len N: N bytes 0, 1, 2...).
 *	The pad count is -payload & 3 and that many zero bytes follow, unless
 *	--pad sets the BTH field (and, without --pad-bytes, the bytes too).
 *	--ip-opts: IPv4 option bytes (a multiple of 4). --udp-len: the UDP
 *	length field (the ICRC covers the value sent). --trailer: bytes after
 *	the ICRC, inside the IP datagram but outside the UDP length.
 *	--frag N: send the IPv4 datagram as fragments of N payload bytes
 *	(a multiple of 8), last first; the ICRC is that of the whole datagram
 *	as the receiver reassembles it. --seed FILE writes the datagram,
 *	prefixed by the fuzzer's flag byte, instead of sending it. --next
 *	sends the packet so far and goes on: the options after it change
 *	that packet into the next one, sent right after (no process start
 *	between them, as for packets reordered on the way). --paged sends
 *	the UDP payload through a UDP socket instead (see udp_paged()).
 *
 *   roce_inject --sniff IFACE [--timeout SECS] [--max N]
 *	print one line per RoCEv2 packet seen on IFACE (both directions):
 *	"pkt dir=in|out op=0x.. qpn=.. psn=.. ackreq=0|1 aeth=0x.. len=N";
 *	prints "ready" once listening.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "roce_wire.h"

#define MAXPKT		65535

struct opts {
	int ipv6;
	uint8_t src[16], dst[16];
	int have_src;
	uint8_t op, tver, resv8a, tos, ttl;
	int ackreq, se, mig, pad, pad_bytes, bad_icrc, count, dry, udp_len;
	uint32_t qpn, psn, id;
	uint16_t pkey, sport;
	uint8_t ext[256], payload[MAXPKT], ipopt[40], trailer[256];
	size_t ext_len, pay_len, ipopt_len, trailer_len;
	int frag, paged;
	const char *seed;
};

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "roce_inject: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static unsigned long num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !*s || v > max)
		die("bad number '%s'", s);
	return v;
}

static size_t hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (*s) {
		if (*s == ' ' || *s == ':') {
			s++;
			continue;
		}
		if (n == max || sscanf(s, "%2x", &b) != 1 || !s[1])
			die("bad hex '%s'", s);
		out[n++] = b;
		s += 2;
	}
	return n;
}

static void addr(const char *s, uint8_t *out, int *ipv6)
{
	int v6 = strchr(s, ':') != NULL;

	if (inet_pton(v6 ? AF_INET6 : AF_INET, s, out) != 1)
		die("bad address '%s'", s);
	if (*ipv6 >= 0 && *ipv6 != v6)
		die("addresses of two families: '%s'", s);
	*ipv6 = v6;
}

static uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += rw_get16(p + i);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* The IP header, @iplen bytes, for a datagram of @total bytes. */
static void build_ip(const struct opts *o, uint8_t *p, size_t iplen, size_t total)
{
	if (o->ipv6) {
		p[0] = 0x60 | o->tos >> 4;
		p[1] = o->tos << 4;
		rw_put16(p + RW_IP6_PLEN, total - iplen);
		p[RW_IP6_NEXT] = IPPROTO_UDP;
		p[RW_IP6_HOPS] = o->ttl;
		memcpy(p + RW_IP6_SADDR, o->src, 16);
		memcpy(p + RW_IP6_DADDR, o->dst, 16);
		return;
	}
	p[0] = 0x40 | iplen / 4;
	p[RW_IP4_TOS] = o->tos;
	rw_put16(p + RW_IP4_TOTLEN, total);
	rw_put16(p + RW_IP4_ID, o->id);
	p[RW_IP4_TTL] = o->ttl;
	p[RW_IP4_PROTO] = IPPROTO_UDP;
	memcpy(p + RW_IP4_SADDR, o->src, 4);
	memcpy(p + RW_IP4_DADDR, o->dst, 4);
	memcpy(p + RW_IP4_HLEN, o->ipopt, o->ipopt_len);
	if (o->paged)
		rw_put16(p + RW_IP4_FRAG, RW_IP4_DF);
	rw_put16(p + RW_IP4_CSUM, ip_csum(p, iplen));
}

/* The whole datagram into @p; returns its length, *iplen the IP header's. */
static size_t build(const struct opts *o, uint8_t *p, size_t *iplen)
{
	int padcnt = o->pad >= 0 ? o->pad : (int)(-o->pay_len & 3);
	int padb = o->pad_bytes >= 0 ? o->pad_bytes : padcnt;
	size_t ip = o->ipv6 ? RW_IP6_HLEN : RW_IP4_HLEN + o->ipopt_len;
	size_t iblen = RW_BTH_LEN + o->ext_len + o->pay_len + padb;
	size_t udp = RW_UDP_HLEN + iblen + RW_ICRC_LEN;
	size_t total = ip + udp + o->trailer_len;
	uint8_t *u = p + ip, *b = u + RW_UDP_HLEN, *x;

	if (total > MAXPKT)
		die("%s: packet too long", "build");
	memset(p, 0, total);
	build_ip(o, p, ip, total);
	rw_put16(u + RW_UDP_SPORT, o->sport);
	rw_put16(u + RW_UDP_DPORT, RW_UDP_PORT);
	rw_put16(u + RW_UDP_LEN, o->udp_len >= 0 ? (size_t)o->udp_len : udp);

	b[RW_BTH_OPCODE] = o->op;
	b[RW_BTH_FLAGS] = (o->se ? RW_BTH_SE : 0) | (o->mig ? RW_BTH_MIG : 0) |
			  padcnt << RW_BTH_PAD_SHIFT | o->tver;
	rw_put16(b + RW_BTH_PKEY, o->pkey);
	rw_put32(b + RW_BTH_RESV8A, (uint32_t)o->resv8a << 24 | o->qpn);
	rw_put32(b + RW_BTH_APSN, (o->ackreq ? RW_BTH_ACKREQ : 0) | o->psn);
	x = b + RW_BTH_LEN;
	memcpy(x, o->ext, o->ext_len);
	memcpy(x + o->ext_len, o->payload, o->pay_len);
	/* pad bytes stay zero */

	rw_icrc(p, ip, o->ipv6, iblen, b + iblen);
	if (o->bad_icrc)
		b[iblen] ^= 0x01;
	memcpy(b + iblen + RW_ICRC_LEN, o->trailer, o->trailer_len);
	*iplen = ip;
	return total;
}

/*
 * @ss: @addr (16 bytes with @ipv6, else 4) and @port; returns its length.
 * A raw socket's destination takes port 0.
 */
static socklen_t fill_sockaddr(struct sockaddr_storage *ss, int ipv6,
			       const uint8_t *addr, uint16_t port)
{
	struct sockaddr_in *s4;

	memset(ss, 0, sizeof(*ss));
	if (ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, addr, 16);
		s6->sin6_port = htons(port);
		return sizeof(*s6);
	}
	s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET;
	memcpy(&s4->sin_addr, addr, 4);
	s4->sin_port = htons(port);
	return sizeof(*s4);
}

static int raw_socket(const struct opts *o, struct sockaddr_storage *ss,
		      socklen_t *sl)
{
	int fd = socket(o->ipv6 ? AF_INET6 : AF_INET, SOCK_RAW, IPPROTO_RAW);

	if (fd < 0) {
		perror("roce_inject: raw socket");
		exit(1);
	}
	*sl = fill_sockaddr(ss, o->ipv6, o->dst, 0);
	return fd;
}

static void send1(int fd, const uint8_t *p, size_t n,
		  const struct sockaddr_storage *ss, socklen_t sl)
{
	if (sendto(fd, p, n, 0, (const struct sockaddr *)ss, sl) != (ssize_t)n) {
		perror("roce_inject: sendto");
		exit(1);
	}
}

/*
 * IPv4 fragments of @p (header @iplen bytes, options copied into each):
 * the last one first, so that the receiver holds all of them in its
 * reassembly queue before the datagram can complete.
 */
static void send_frags(const struct opts *o, int fd, const uint8_t *p,
		       size_t total, size_t iplen,
		       const struct sockaddr_storage *ss, socklen_t sl)
{
	size_t data = total - iplen, nfrag = (data + o->frag - 1) / o->frag;
	uint8_t f[MAXPKT];
	size_t i;

	for (i = nfrag; i-- > 0;) {
		size_t off = i * o->frag;
		size_t n = data - off < (size_t)o->frag ? data - off : (size_t)o->frag;

		memcpy(f, p, iplen);
		memcpy(f + iplen, p + iplen + off, n);
		rw_put16(f + RW_IP4_TOTLEN, iplen + n);
		rw_put16(f + RW_IP4_FRAG, off / 8 | (i + 1 < nfrag ? RW_IP4_MF : 0));
		f[RW_IP4_CSUM] = 0;
		f[RW_IP4_CSUM + 1] = 0;
		rw_put16(f + RW_IP4_CSUM, ip_csum(f, iplen));
		send1(fd, f, iplen + n, ss, sl);
	}
}

#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif

/*
 * --paged: the UDP payload (BTH to ICRC, @n bytes at @u) sent from a UDP
 * socket with UDP_SEGMENT set. The kernel then puts the payload in page
 * fragments, only the IP and UDP headers in the skb's linear part, and a
 * veth hands it on so: the receiver's sroce gets the BTH and all behind
 * it in fragments, as from a NIC that receives into pages. The kernel
 * writes the IP header: DF and, from an unconnected socket, ID 0 (IPv4),
 * which build() put in the ICRC; TTL, TOS, flow label and the UDP
 * checksum are the ICRC's variant fields.
 */
static void udp_paged(const struct opts *o, const uint8_t *u, size_t n)
{
	struct sockaddr_storage src, dst;
	int fd = socket(o->ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	int seg = n, df = o->ipv6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	socklen_t sl = fill_sockaddr(&src, o->ipv6, o->src, o->sport);

	fill_sockaddr(&dst, o->ipv6, o->dst, RW_UDP_PORT);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sl) ||
	    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof(seg)) ||
	    setsockopt(fd, o->ipv6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       o->ipv6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER,
		       &df, sizeof(df))) {
		perror("roce_inject: --paged socket");
		exit(1);
	}
	if (sendto(fd, u, n, 0, (struct sockaddr *)&dst, sl) != (ssize_t)n) {
		perror("roce_inject: --paged sendto");
		exit(1);
	}
	close(fd);
}

static int inject(const struct opts *o)
{
	static uint8_t p[MAXPKT];
	struct sockaddr_storage ss;
	size_t iplen, n = build(o, p, &iplen);
	socklen_t sl;
	int fd, i;

	if (o->seed) {
		/*
		 * The fuzzer's input: a flag byte (bit 0: IPv6; bit 1: have
		 * the harness recompute the ICRC), then the datagram.
		 */
		FILE *f = fopen(o->seed, "wb");
		uint8_t flag = (o->ipv6 ? 1 : 0) | (o->bad_icrc ? 0 : 2);

		if (!f || fwrite(&flag, 1, 1, f) != 1 || fwrite(p, 1, n, f) != n ||
		    fclose(f))
			die("cannot write '%s'", o->seed);
		return 0;
	}
	if (o->dry) {
		for (i = 0; i < (int)n; i++)
			printf("%02x%s", p[i], i + 1 == (int)n ? "\n" : "");
		return 0;
	}
	if (o->paged) {
		for (i = 0; i < o->count; i++)
			udp_paged(o, p + iplen + RW_UDP_HLEN,
				  n - iplen - RW_UDP_HLEN);
		return 0;
	}
	fd = raw_socket(o, &ss, &sl);
	for (i = 0; i < o->count; i++) {
		if (o->frag)
			send_frags(o, fd, p, n, iplen, &ss, sl);
		else
			send1(fd, p, n, &ss, sl);
	}
	close(fd);
	return 0;
}

/* One line for a RoCEv2 packet (IP header at @p), nothing for others. */
static void show(const uint8_t *p, size_t n, int out)
{
	size_t ip, udp;
	const uint8_t *b;
	char aeth[16] = "-";
	uint8_t op;

	if (n >= RW_IP4_HLEN && p[0] >> 4 == 4 && p[RW_IP4_PROTO] == IPPROTO_UDP)
		ip = (p[0] & 15) * 4;
	else if (n >= RW_IP6_HLEN && p[0] >> 4 == 6 && p[RW_IP6_NEXT] == IPPROTO_UDP)
		ip = RW_IP6_HLEN;
	else
		return;
	if (n < ip + RW_UDP_HLEN + RW_BTH_LEN ||
	    rw_get16(p + ip + RW_UDP_DPORT) != RW_UDP_PORT)
		return;
	udp = rw_get16(p + ip + RW_UDP_LEN);
	b = p + ip + RW_UDP_HLEN;
	op = b[RW_BTH_OPCODE];
	if ((op & 0x1f) >= RW_READ_RESP_FIRST && (op & 0x1f) <= RW_ATOMIC_ACK &&
	    (op & 0x1f) != RW_READ_RESP_MIDDLE &&
	    n >= ip + RW_UDP_HLEN + RW_BTH_LEN + RW_AETH_LEN)
		snprintf(aeth, sizeof(aeth), "0x%02x", b[RW_BTH_LEN]);
	printf("pkt dir=%s op=0x%02x qpn=%u psn=%u ackreq=%d aeth=%s len=%zu\n",
	       out ? "out" : "in", op, rw_get32(b + RW_BTH_RESV8A) & 0xffffff,
	       rw_get32(b + RW_BTH_APSN) & 0xffffff,
	       !!(rw_get32(b + RW_BTH_APSN) & RW_BTH_ACKREQ), aeth, udp);
	fflush(stdout);
}

static int sniff(const char *ifname, double timeout, long max)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(ETH_P_ALL) };
	static uint8_t buf[MAXPKT];
	struct timespec t0, t;
	long seen = 0;
	int fd;

	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex)
		die("no interface '%s'", ifname);
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("roce_inject: packet socket");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (max < 0 || seen < max) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		double left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout - (t.tv_sec - t0.tv_sec) - (t.tv_nsec - t0.tv_nsec) / 1e9;
		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n <= 0)
			continue;
		if (from.sll_protocol != htons(ETH_P_IP) &&
		    from.sll_protocol != htons(ETH_P_IPV6))
			continue;
		show(buf, n, from.sll_pkttype == PACKET_OUTGOING);
		seen++;
	}
	close(fd);
	return 0;
}

/* The options make a whole packet: inject it (what inject() returns). */
static int ready(struct opts *o, const char *src, int have_op)
{
	if (o->ipv6 < 0 || !have_op)
		die("%s", "--dst and --op are needed");
	if (src)
		addr(src, o->src, &o->ipv6);
	if (o->ipv6 && (o->ipopt_len || o->frag))
		die("%s", "--ip-opts and --frag are IPv4 only");
	if (o->paged && (o->ipopt_len || o->frag || o->trailer_len ||
			 o->udp_len >= 0 || !src))
		die("%s", "--paged takes no IP or UDP header options; needs --src");
	/* 0 would let the kernel pick an ID after the ICRC was computed. */
	if (!o->ipv6 && !o->id && !o->paged)
		die("%s", "--id 0: the kernel would replace it");
	return inject(o);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "src", 1, 0, 's' }, { "dst", 1, 0, 'd' }, { "op", 1, 0, 'o' },
		{ "qpn", 1, 0, 'q' }, { "psn", 1, 0, 'p' }, { "pkey", 1, 0, 'k' },
		{ "ackreq", 0, 0, 'a' }, { "se", 0, 0, 'S' }, { "mig", 0, 0, 'M' },
		{ "tver", 1, 0, 'T' }, { "pad", 1, 0, 'P' },
		{ "pad-bytes", 1, 0, 'B' }, { "resv8a", 1, 0, 'r' },
		{ "ext", 1, 0, 'e' }, { "payload", 1, 0, 'y' },
		{ "payload-len", 1, 0, 'Y' }, { "ip-opts", 1, 0, 'O' },
		{ "udp-len", 1, 0, 'U' }, { "trailer", 1, 0, 'R' },
		{ "frag", 1, 0, 'f' }, { "bad-icrc", 0, 0, 'I' },
		{ "sport", 1, 0, 'u' }, { "tos", 1, 0, 't' }, { "ttl", 1, 0, 'L' },
		{ "id", 1, 0, 'i' }, { "count", 1, 0, 'c' }, { "seed", 1, 0, 'F' },
		{ "dry-run", 0, 0, 'D' }, { "sniff", 1, 0, 'N' },
		{ "timeout", 1, 0, 'W' }, { "max", 1, 0, 'X' },
		{ "paged", 0, 0, 'G' }, { "next", 0, 0, 'n' }, { 0 }
	};
	static struct opts o = {
		.pkey = 0xffff, .pad = -1, .pad_bytes = -1, .udp_len = -1,
		.sport = 0xc000, .ttl = 64, .id = 0x5eed, .count = 1,
	};
	const char *sniff_if = NULL, *src = NULL;
	double timeout = 10;
	long max = -1;
	int c, have_op = 0;
	size_t i;

	o.ipv6 = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': src = optarg; break;
		case 'd': addr(optarg, o.dst, &o.ipv6); break;
		case 'o': o.op = num(optarg, 0xff); have_op = 1; break;
		case 'q': o.qpn = num(optarg, 0xffffff); break;
		case 'p': o.psn = num(optarg, 0xffffff); break;
		case 'k': o.pkey = num(optarg, 0xffff); break;
		case 'a': o.ackreq = 1; break;
		case 'S': o.se = 1; break;
		case 'M': o.mig = 1; break;
		case 'T': o.tver = num(optarg, 15); break;
		case 'P': o.pad = num(optarg, 3); break;
		case 'B': o.pad_bytes = num(optarg, 255); break;
		case 'r': o.resv8a = num(optarg, 0xff); break;
		case 'e': o.ext_len = hex(optarg, o.ext, sizeof(o.ext)); break;
		case 'y': o.pay_len = hex(optarg, o.payload, sizeof(o.payload)); break;
		case 'Y':
			o.pay_len = num(optarg, 65000);
			for (i = 0; i < o.pay_len; i++)
				o.payload[i] = i;
			break;
		case 'O':
			o.ipopt_len = hex(optarg, o.ipopt, sizeof(o.ipopt));
			if (o.ipopt_len % 4)
				die("IPv4 options: %s is not a multiple of 4 bytes", optarg);
			break;
		case 'U': o.udp_len = num(optarg, 0xffff); break;
		case 'R': o.trailer_len = hex(optarg, o.trailer, sizeof(o.trailer)); break;
		case 'f':
			o.frag = num(optarg, 65000);
			if (!o.frag || o.frag % 8)
				die("--frag %s: not a positive multiple of 8", optarg);
			break;
		case 'I': o.bad_icrc = 1; break;
		case 'u': o.sport = num(optarg, 0xffff); break;
		case 't': o.tos = num(optarg, 0xff); break;
		case 'L': o.ttl = num(optarg, 0xff); break;
		case 'i': o.id = num(optarg, 0xffff); break;
		case 'c': o.count = num(optarg, 1000000); break;
		case 'F': o.seed = optarg; break;
		case 'D': o.dry = 1; break;
		case 'G': o.paged = 1; o.id = 0; break;
		case 'N': sniff_if = optarg; break;
		case 'W': timeout = num(optarg, 3600); break;
		case 'X': max = num(optarg, 1000000); break;
		case 'n':
			if (ready(&o, src, have_op))
				return 1;
			break;
		default: die("%s", "bad option (see the comment at the top of roce_inject.c)");
		}
	}
	if (optind != argc)
		die("unexpected argument '%s'", argv[optind]);
	if (sniff_if)
		return sniff(sniff_if, timeout, max);
	return ready(&o, src, have_op);
}
