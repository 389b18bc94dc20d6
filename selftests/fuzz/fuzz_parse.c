// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer harness for the driver's receive-side packet checks,
 * sroce_parse() in drivers/sroce/parse.c, built from the same source.
 *
 * Input: one flag byte, then the packet from its IP header on, as the UDP
 * socket would hand it over. Flag bit 0: received as IPv6. Bits 2-3: for
 * IPv6, 8-byte extension headers before UDP (which the parser must
 * refuse). Bit 1: replace the last 4 bytes with the ICRC computed by the
 * independent implementation in selftests/progs/roce_wire.h, so that the
 * fuzzer gets past the ICRC and the two implementations are compared.
 * For IPv4 the UDP header starts where the IHL says, as in the stack.
 *
 * Crashes, sanitizer reports and broken invariants abort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "../progs/roce_wire.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "broken: %s\n", #c); abort(); } } while (0)

static void check_ok(const struct sroce_pkt *pkt, size_t len, unsigned int l4off,
		     int ipv6, const uint8_t *buf)
{
	u8 class = pkt->opcode & 0xe0;

	CHECK(l4off == (ipv6 ? SROCE_IP6_HLEN : SROCE_IP4_HLEN));
	CHECK(l4off + SROCE_UDP_HLEN + pkt->hdr_len + pkt->paylen + pkt->pad +
	      SROCE_ICRC_SIZE == len);
	CHECK(pkt->hdr_len >= sizeof(struct sroce_bth));
	CHECK(class == SROCE_OP_RC || class == SROCE_OP_UC || class == SROCE_OP_UD);
	CHECK(pkt->flags == sroce_opcodes[pkt->opcode & 0x1f].flags);
	CHECK(pkt->flags != 0);
	CHECK((pkt->flags & SROCE_F_PAYLOAD) || !pkt->paylen);
	CHECK(pkt->pad <= 3 && pkt->psn <= SROCE_PSN_MASK);
	CHECK(buf[l4off + SROCE_UDP_HLEN] == pkt->opcode);
	CHECK(!(buf[l4off + SROCE_UDP_HLEN + 1] & SROCE_BTH_TVER_MASK));
	CHECK(rw_get16(buf + l4off + RW_UDP_DPORT) == SROCE_UDP_PORT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum sroce_parse_result r;
	struct sroce_pkt pkt;
	unsigned int l4off;
	uint8_t *buf;
	size_t len;
	int ipv6;

	if (size < 2)
		return 0;
	ipv6 = data[0] & 1;
	len = size - 1;
	/* An exact-size copy: any read past the packet is an ASan report. */
	buf = malloc(len);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	if (ipv6)
		l4off = SROCE_IP6_HLEN + 8 * ((data[0] >> 2) & 3);
	else
		l4off = (buf[0] & 15) * 4;
	if (l4off > len) {
		/* The stack hands over no packet shorter than its IP header. */
		free(buf);
		return 0;
	}
	if ((data[0] & 2) && l4off <= 60 &&
	    len >= l4off + RW_UDP_HLEN + RW_BTH_LEN + RW_ICRC_LEN)
		rw_icrc(buf, l4off, ipv6,
			len - l4off - RW_UDP_HLEN - RW_ICRC_LEN, buf + len - RW_ICRC_LEN);

	memset(&pkt, 0xa5, sizeof(pkt));
	r = sroce_parse(buf, len, l4off, ipv6, &pkt);
	CHECK(r == SROCE_PARSE_OK || r == SROCE_PARSE_DROP || r == SROCE_PARSE_BAD_ICRC);
	if (r == SROCE_PARSE_OK)
		check_ok(&pkt, len, l4off, ipv6, buf);
	/* Both ICRCs agree on every packet that gets as far as the ICRC. */
	if (data[0] & 2)
		CHECK(r != SROCE_PARSE_BAD_ICRC);
	free(buf);
	return 0;
}
