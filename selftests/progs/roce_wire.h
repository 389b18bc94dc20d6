/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 on the wire, for the user-space tools: header layouts (all fields
 * big-endian), opcodes, and the ICRC. Used by roce_inject.c and by the
 * parser fuzzer (selftests/fuzz/), which checks the driver's ICRC against
 * this independent one. Header-only.
 */
#ifndef SROCE_ROCE_WIRE_H
#define SROCE_ROCE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RW_UDP_PORT		4791
#define RW_IP4_HLEN		20
#define RW_IP6_HLEN		40
#define RW_UDP_HLEN		8
#define RW_BTH_LEN		12
#define RW_ICRC_LEN		4

/* Offsets inside the headers (no structs: nothing here is aligned). */
#define RW_IP4_TOS		1
#define RW_IP4_TOTLEN		2
#define RW_IP4_ID		4
#define RW_IP4_FRAG		6
#define RW_IP4_TTL		8
#define RW_IP4_PROTO		9
#define RW_IP4_CSUM		10
#define RW_IP4_SADDR		12
#define RW_IP4_DADDR		16
#define RW_IP4_MF		0x2000
#define RW_IP4_DF		0x4000

#define RW_IP6_PLEN		4
#define RW_IP6_NEXT		6
#define RW_IP6_HOPS		7
#define RW_IP6_SADDR		8
#define RW_IP6_DADDR		24

#define RW_UDP_SPORT		0
#define RW_UDP_DPORT		2
#define RW_UDP_LEN		4
#define RW_UDP_CSUM		6

/* BTH: opcode, SE|M|PadCnt|TVer, P_Key, resv8a|QPN, AckReq|resv7|PSN */
#define RW_BTH_OPCODE		0
#define RW_BTH_FLAGS		1
#define RW_BTH_PKEY		2
#define RW_BTH_RESV8A		4
#define RW_BTH_QPN		5
#define RW_BTH_APSN		8
#define RW_BTH_SE		0x80
#define RW_BTH_MIG		0x40
#define RW_BTH_PAD_SHIFT	4
#define RW_BTH_ACKREQ		0x80000000u

/* Extension header sizes, in their order behind the BTH. */
#define RW_RETH_LEN		16	/* VA(64) R_Key(32) DMA length(32) */
#define RW_AETH_LEN		4	/* syndrome(8) MSN(24) */
#define RW_ATMETH_LEN		28	/* VA(64) R_Key(32) swap/add(64) compare(64) */
#define RW_ATMACK_LEN		8	/* original data(64) */
#define RW_DETH_LEN		8	/* Q_Key(32) resv(8) source QP(24) */
#define RW_IMM_LEN		4

/* Opcodes: transport class in the top 3 bits, operation below. */
enum {
	RW_RC = 0x00, RW_UC = 0x20, RW_UD = 0x60,
	RW_SEND_FIRST = 0x00, RW_SEND_MIDDLE = 0x01, RW_SEND_LAST = 0x02,
	RW_SEND_ONLY = 0x04, RW_WRITE_FIRST = 0x06, RW_WRITE_MIDDLE = 0x07,
	RW_WRITE_LAST = 0x08, RW_WRITE_ONLY = 0x0a, RW_READ_REQ = 0x0c,
	RW_READ_RESP_FIRST = 0x0d, RW_READ_RESP_MIDDLE = 0x0e,
	RW_READ_RESP_LAST = 0x0f, RW_READ_RESP_ONLY = 0x10, RW_ACK = 0x11,
	RW_ATOMIC_ACK = 0x12, RW_CMP_SWAP = 0x13, RW_FETCH_ADD = 0x14,
};

static inline void rw_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void rw_put32(uint8_t *p, uint32_t v)
{
	rw_put16(p, v >> 16);
	rw_put16(p + 2, v);
}

static inline uint16_t rw_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rw_get32(const uint8_t *p)
{
	return (uint32_t)rw_get16(p) << 16 | rw_get16(p + 2);
}

/* CRC-32 (reflected polynomial 0xEDB88320), bit by bit: small and slow. */
static inline uint32_t rw_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
	}
	return crc;
}

/*
 * The ICRC of a RoCEv2 datagram: @ip is the IP header (@iplen bytes: 20
 * for IPv4, 40 for IPv6, or more with IPv4 options), followed by the UDP
 * header, the BTH and @iblen - 12 more bytes of transport headers, payload
 * and pad. The CRC covers 8 bytes of 0xff (the LRH of IB), then all of
 * that with the fields a router may change set to all ones: IPv4 TOS, TTL
 * and header checksum, IPv6 traffic class, flow label and hop limit, the
 * UDP checksum, and the BTH byte that holds FECN/BECN. Returned as the
 * four bytes to put on the wire (little-endian order).
 */
static inline void rw_icrc(const uint8_t *ip, size_t iplen, int ipv6,
			   size_t iblen, uint8_t out[4])
{
	static const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 0xff, 0xff };
	uint8_t h[60 + RW_UDP_HLEN + RW_BTH_LEN];
	size_t hl = iplen + RW_UDP_HLEN + RW_BTH_LEN;
	uint32_t crc;

	memcpy(h, ip, hl);
	if (ipv6) {
		h[0] |= 0x0f;		/* traffic class, high nibble */
		h[1] = 0xff;		/* traffic class low, flow label */
		h[2] = 0xff;
		h[3] = 0xff;
		h[RW_IP6_HOPS] = 0xff;
	} else {
		h[RW_IP4_TOS] = 0xff;
		h[RW_IP4_TTL] = 0xff;
		h[RW_IP4_CSUM] = 0xff;
		h[RW_IP4_CSUM + 1] = 0xff;
	}
	h[iplen + RW_UDP_CSUM] = 0xff;
	h[iplen + RW_UDP_CSUM + 1] = 0xff;
	h[iplen + RW_UDP_HLEN + RW_BTH_RESV8A] = 0xff;

	crc = rw_crc32(0xffffffffu, ones, sizeof(ones));
	crc = rw_crc32(crc, h, hl);
	crc = rw_crc32(crc, ip + hl, iblen - RW_BTH_LEN);
	crc = ~crc;
	out[0] = crc;
	out[1] = crc >> 8;
	out[2] = crc >> 16;
	out[3] = crc >> 24;
}

#endif /* SROCE_ROCE_WIRE_H */
