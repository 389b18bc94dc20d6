/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_PARSE_H
#define SROCE_PARSE_H

/*
 * Checking a received RoCEv2 packet from its IP header to its ICRC. Pure
 * functions of the packet bytes, with no skb, so that the same source
 * builds in user space for the fuzzer (selftests/fuzz/).
 */
#include <linux/bits.h>
#include <linux/types.h>

#include "wire.h"

/*
 * What the receive path learned about a packet, kept in skb->cb. skb->data
 * points at the BTH; the ICRC has been checked and trimmed; the payload is
 * paylen bytes at hdr_len, followed by pad bytes.
 */
struct sroce_pkt {
	u32	flags;		/* sroce_opcodes[].flags */
	u32	psn;
	u32	paylen;
	u16	hdr_len;	/* BTH .. payload, DETH included */
	u8	opcode;		/* full opcode, transport bits included */
	u8	pad;
	bool	ackreq;
	bool	se;
	/*
	 * PSNs the packet covers: 1 from a wire. A packet looped back
	 * inside the device may carry several MTUs of a message (xmit.c).
	 */
	u16	span;
	bool	local;		/* looped back inside the device (xmit.c) */
	bool	has_vlan;	/* received on a VLAN netdev: vlan_id is its */
	bool	ce;		/* arrived CE-marked (cc.c) */
	u16	vlan_id;
};

/* What the checks make of a packet; the caller counts the last two. */
enum sroce_parse_result {
	SROCE_PARSE_OK,
	SROCE_PARSE_DROP,	/* malformed, or not RoCEv2 */
	SROCE_PARSE_BAD_ICRC,	/* well formed, but the ICRC does not match */
};

#define SROCE_IP4_HLEN		20	/* no options in RoCEv2 */
#define SROCE_IP6_HLEN		40	/* no extension headers either */
#define SROCE_UDP_HLEN		8

u32 sroce_icrc_head(const void *iph, unsigned int iplen, const u8 *ib);
__le32 sroce_icrc(const void *iph, unsigned int iplen, const u8 *ib,
		  unsigned int iblen);
/* The ICRC's CRC-32 is IEEE's, reflected: the kernel's crc32_le(). */
#define sroce_crc32(crc, p, len)	crc32_le(crc, (const unsigned char *)(p), len)

enum sroce_parse_result sroce_parse_bth(const u8 *ib, unsigned int iblen,
					struct sroce_pkt *pkt);
enum sroce_parse_result sroce_parse_hdrs(const u8 *nh, unsigned int len,
					 unsigned int l4off, bool ipv6,
					 struct sroce_pkt *pkt);
#ifndef __KERNEL__
enum sroce_parse_result sroce_parse(const u8 *nh, unsigned int len,
				    unsigned int l4off, bool ipv6,
				    struct sroce_pkt *pkt);
#endif

#endif /* SROCE_PARSE_H */
