// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The checks of a received RoCEv2 packet that need only its bytes: the IP
 * and UDP headers, the BTH, the extension headers of its opcode, the pad
 * and the ICRC. Everything here reads the packet and nothing else, so the
 * same source also builds in user space under the fuzzer
 * (selftests/fuzz/), with a shim for the kernel headers.
 */
#include <asm/byteorder.h>
#include <linux/crc32.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/string.h>
#include <linux/udp.h>

#include "parse.h"

/* IPv4 "more fragments" and fragment offset: only whole datagrams here. */
#define SROCE_IP_FRAG		0x3fff

/*
 * ICRC (IBA Annex A17): CRC-32 over 8 bytes of 0xff, the IP and UDP headers
 * with their variant fields set to all ones, the BTH with its FECN/BECN
 * byte set to all ones, and the rest of the packet up to the ICRC. The
 * seed below is the CRC state after the eight 0xff bytes. @iplen is
 * SROCE_IP4_HLEN or SROCE_IP6_HLEN and says which IP header @iph is.
 * sroce_icrc_head() returns the CRC state after the BTH at @ib, for the
 * rest of the packet to continue, wherever its bytes are (recv.c reads a
 * received packet's payload from its page fragments).
 */
#define SROCE_ICRC_SEED		0xdebb20e3

u32 sroce_icrc_head(const void *iph, unsigned int iplen, const u8 *ib)
{
	u8 hdr[SROCE_IP6_HLEN + SROCE_UDP_HLEN];
	struct sroce_bth bth;
	struct udphdr *uh;
	u32 crc;

	if (iplen != SROCE_IP6_HLEN)
		iplen = SROCE_IP4_HLEN;
	memcpy(hdr, iph, iplen + SROCE_UDP_HLEN);
	if (iplen == SROCE_IP6_HLEN) {
		struct ipv6hdr *h = (struct ipv6hdr *)hdr;

		/* traffic class and flow label */
		h->priority = 0xf;
		h->flow_lbl[0] = 0xff;
		h->flow_lbl[1] = 0xff;
		h->flow_lbl[2] = 0xff;
		h->hop_limit = 0xff;
	} else {
		struct iphdr *h = (struct iphdr *)hdr;

		h->tos = 0xff;
		h->ttl = 0xff;
		h->check = (__force __sum16)0xffff;
	}
	uh = (struct udphdr *)(hdr + iplen);
	uh->check = (__force __sum16)0xffff;

	memcpy(&bth, ib, sizeof(bth));
	sroce_bth_icrc_mask(&bth);

	crc = sroce_crc32(SROCE_ICRC_SEED, hdr, iplen + SROCE_UDP_HLEN);
	return sroce_crc32(crc, (u8 *)&bth, sizeof(bth));
}

/* The ICRC of @iblen bytes from the BTH at @ib, all in one buffer. */
__le32 sroce_icrc(const void *iph, unsigned int iplen, const u8 *ib,
		  unsigned int iblen)
{
	u32 crc = sroce_icrc_head(iph, iplen, ib);

	crc = sroce_crc32(crc, ib + sizeof(struct sroce_bth),
			  iblen - sizeof(struct sroce_bth));
	return cpu_to_le32(~crc);
}

/*
 * The IP header: of the family the stack received it as, without options
 * or extension headers (RoCEv2 has none; F14: an IPv4 header with 20 bytes
 * of options is as long as an IPv6 header), carrying UDP, and as long as
 * the bytes we have (no trailer behind the UDP datagram).
 */
static bool sroce_parse_ip(const u8 *nh, unsigned int len, unsigned int l4off,
			   bool ipv6)
{
	if (ipv6) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)nh;

		return l4off == SROCE_IP6_HLEN && len >= l4off &&
		       ip6->version == 6 && ip6->nexthdr == IPPROTO_UDP &&
		       be16_to_cpu(ip6->payload_len) == len - l4off;
	} else {
		const struct iphdr *iph = (const struct iphdr *)nh;

		return l4off == SROCE_IP4_HLEN && len >= l4off &&
		       iph->version == 4 && iph->ihl == SROCE_IP4_HLEN / 4 &&
		       iph->protocol == IPPROTO_UDP &&
		       be16_to_cpu(iph->tot_len) == len &&
		       !(be16_to_cpu(iph->frag_off) & SROCE_IP_FRAG);
	}
}

/* The opcode: RC, UC or UD, known, and valid on that transport. */
static bool sroce_parse_opcode(u8 op, const struct sroce_bth *bth)
{
	const struct sroce_opcode_info *info = sroce_op_info(op);
	u8 class = sroce_op_class(op);

	if (class != SROCE_OP_RC && class != SROCE_OP_UC && class != SROCE_OP_UD)
		return false;
	if (!info->flags || sroce_bth_tver(bth))
		return false;
	if (class == SROCE_OP_UC && !(info->flags & SROCE_F_UC_OK))
		return false;
	if (class == SROCE_OP_UD && !(info->flags & SROCE_F_UD_OK))
		return false;
	return true;
}

/* A CNP: a BTH and its reserved bytes, nothing more (IBA A17.9.2). */
static enum sroce_parse_result sroce_parse_cnp(const struct sroce_bth *bth,
					       unsigned int iblen,
					       struct sroce_pkt *pkt)
{
	if (iblen != sizeof(*bth) + SROCE_CNP_RESV ||
	    !sroce_bth_cnp_flags_ok(bth))
		return SROCE_PARSE_DROP;
	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = SROCE_OP_CNP;
	pkt->flags = SROCE_F_CNP;
	pkt->hdr_len = iblen;
	pkt->span = 1;
	return SROCE_PARSE_OK;
}

/*
 * The transport part of a packet: @iblen bytes from the BTH at @bth to the
 * end of the pad (no ICRC). Checks the opcode and that its headers and pad
 * fit; fills @pkt, as one packet (span 1). Also what a packet looped back
 * inside the device passes (xmit.c), which has no IP layer to check.
 */
enum sroce_parse_result sroce_parse_bth(const u8 *ib, unsigned int iblen,
					struct sroce_pkt *pkt)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)ib;
	u8 op;

	if (iblen < sizeof(*bth))
		return SROCE_PARSE_DROP;
	op = bth->opcode;
	if (op == SROCE_OP_CNP)
		return sroce_parse_cnp(bth, iblen, pkt);
	if (!sroce_parse_opcode(op, bth))
		return SROCE_PARSE_DROP;
	pkt->opcode = op;
	pkt->flags = sroce_op_info(op)->flags;
	pkt->hdr_len = sroce_op_info(op)->hdr_len;
	if (sroce_op_class(op) == SROCE_OP_UD)
		pkt->hdr_len += sizeof(struct sroce_deth);
	pkt->pad = sroce_bth_pad(bth);
	if (iblen < pkt->hdr_len + pkt->pad)
		return SROCE_PARSE_DROP;
	pkt->paylen = iblen - pkt->hdr_len - pkt->pad;
	if (!(pkt->flags & SROCE_F_PAYLOAD) && pkt->paylen)
		return SROCE_PARSE_DROP;
	pkt->psn = sroce_bth_psn(bth);
	pkt->ackreq = sroce_bth_ackreq(bth);
	pkt->se = sroce_bth_se(bth);
	pkt->span = 1;
	pkt->local = false;
	pkt->has_vlan = false;
	pkt->ce = false;
	return SROCE_PARSE_OK;
}

/*
 * Check the packet at @nh, @len bytes from its IP header to its ICRC, the
 * UDP header at @l4off, received as IPv6 if @ipv6; fill @pkt. On success
 * the transport headers, payload and pad are pkt->hdr_len + pkt->paylen +
 * pkt->pad bytes from the BTH, which is right behind the UDP header. The
 * ICRC is not looked at: see sroce_rcv_parse() in recv.c.
 */
enum sroce_parse_result sroce_parse_hdrs(const u8 *nh, unsigned int len,
					 unsigned int l4off, bool ipv6,
					 struct sroce_pkt *pkt)
{
	const struct udphdr *uh;

	if (!sroce_parse_ip(nh, len, l4off, ipv6))
		return SROCE_PARSE_DROP;
	if (len - l4off < SROCE_UDP_HLEN + sizeof(struct sroce_bth) +
			  SROCE_ICRC_SIZE)
		return SROCE_PARSE_DROP;
	uh = (const struct udphdr *)(nh + l4off);
	if (be16_to_cpu(uh->len) != len - l4off ||
	    be16_to_cpu(uh->dest) != SROCE_UDP_PORT)
		return SROCE_PARSE_DROP;
	return sroce_parse_bth(nh + l4off + SROCE_UDP_HLEN,
			       len - l4off - SROCE_UDP_HLEN - SROCE_ICRC_SIZE,
			       pkt);
}

#ifndef __KERNEL__
/*
 * sroce_parse_hdrs(), then the ICRC: what a packet from a wire must pass,
 * all in one buffer. For user space (the fuzzer, the checker's tests); the
 * kernel does the same on an skb whose payload may be in page fragments
 * (recv.c: sroce_rcv_parse()).
 */
enum sroce_parse_result sroce_parse(const u8 *nh, unsigned int len,
				    unsigned int l4off, bool ipv6,
				    struct sroce_pkt *pkt)
{
	enum sroce_parse_result r = sroce_parse_hdrs(nh, len, l4off, ipv6, pkt);
	const u8 *bth = nh + l4off + SROCE_UDP_HLEN;
	unsigned int iblen;
	__le32 icrc;

	if (r != SROCE_PARSE_OK)
		return r;
	iblen = len - l4off - SROCE_UDP_HLEN - SROCE_ICRC_SIZE;
	memcpy(&icrc, bth + iblen, sizeof(icrc));
	if (icrc != sroce_icrc(nh, l4off, bth, iblen))
		return SROCE_PARSE_BAD_ICRC;
	return SROCE_PARSE_OK;
}
#endif
