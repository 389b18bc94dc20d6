// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The opcode table: which headers each RoCEv2 opcode carries and what it
 * does (IBA Table 38, restricted to RC, UC and UD).
 */
#include <linux/bits.h>

#include "wire.h"

#define BTH	sizeof(struct sroce_bth)
#define RETH	sizeof(struct sroce_reth)
#define AETH	sizeof(struct sroce_aeth)
#define IMM	sizeof(struct sroce_immdt)
#define IETH	sizeof(struct sroce_ieth)
#define FETH	sizeof(struct sroce_feth)

#define REQ_SEND	(SROCE_F_REQ | SROCE_F_SEND | SROCE_F_PAYLOAD | SROCE_F_UC_OK)
#define REQ_WRITE	(SROCE_F_REQ | SROCE_F_WRITE | SROCE_F_PAYLOAD | SROCE_F_UC_OK)

const struct sroce_opcode_info sroce_opcodes[SROCE_OP_NUM] = {
	[SROCE_OP_SEND_FIRST] = { REQ_SEND | SROCE_F_FIRST | SROCE_F_RWR, BTH },
	[SROCE_OP_SEND_MIDDLE] = { REQ_SEND | SROCE_F_MIDDLE, BTH },
	[SROCE_OP_SEND_LAST] = { REQ_SEND | SROCE_F_LAST | SROCE_F_COMP, BTH },
	[SROCE_OP_SEND_LAST_IMM] = { REQ_SEND | SROCE_F_LAST | SROCE_F_COMP |
				     SROCE_F_IMM, BTH + IMM },
	[SROCE_OP_SEND_ONLY] = { REQ_SEND | SROCE_F_ONLY | SROCE_F_RWR |
				 SROCE_F_COMP | SROCE_F_UD_OK, BTH },
	[SROCE_OP_SEND_ONLY_IMM] = { REQ_SEND | SROCE_F_ONLY | SROCE_F_RWR |
				     SROCE_F_COMP | SROCE_F_IMM |
				     SROCE_F_UD_OK, BTH + IMM },
	[SROCE_OP_WRITE_FIRST] = { REQ_WRITE | SROCE_F_FIRST | SROCE_F_RETH,
				   BTH + RETH },
	[SROCE_OP_WRITE_MIDDLE] = { REQ_WRITE | SROCE_F_MIDDLE, BTH },
	[SROCE_OP_WRITE_LAST] = { REQ_WRITE | SROCE_F_LAST, BTH },
	[SROCE_OP_WRITE_LAST_IMM] = { REQ_WRITE | SROCE_F_LAST | SROCE_F_IMM |
				      SROCE_F_RWR | SROCE_F_COMP, BTH + IMM },
	[SROCE_OP_WRITE_ONLY] = { REQ_WRITE | SROCE_F_ONLY | SROCE_F_RETH,
				  BTH + RETH },
	[SROCE_OP_WRITE_ONLY_IMM] = { REQ_WRITE | SROCE_F_ONLY | SROCE_F_RETH |
				      SROCE_F_IMM | SROCE_F_RWR | SROCE_F_COMP,
				      BTH + RETH + IMM },
	[SROCE_OP_READ_REQ] = { SROCE_F_REQ | SROCE_F_READ | SROCE_F_ONLY |
				SROCE_F_RETH, BTH + RETH },
	[SROCE_OP_READ_RESP_FIRST] = { SROCE_F_RESP | SROCE_F_READ |
				       SROCE_F_FIRST | SROCE_F_AETH |
				       SROCE_F_PAYLOAD, BTH + AETH },
	[SROCE_OP_READ_RESP_MIDDLE] = { SROCE_F_RESP | SROCE_F_READ |
					SROCE_F_MIDDLE | SROCE_F_PAYLOAD, BTH },
	[SROCE_OP_READ_RESP_LAST] = { SROCE_F_RESP | SROCE_F_READ |
				      SROCE_F_LAST | SROCE_F_AETH |
				      SROCE_F_PAYLOAD, BTH + AETH },
	[SROCE_OP_READ_RESP_ONLY] = { SROCE_F_RESP | SROCE_F_READ |
				      SROCE_F_ONLY | SROCE_F_AETH |
				      SROCE_F_PAYLOAD, BTH + AETH },
	[SROCE_OP_ACK] = { SROCE_F_RESP | SROCE_F_AETH, BTH + AETH },
	[SROCE_OP_ATOMIC_ACK] = { SROCE_F_RESP | SROCE_F_ATOMIC | SROCE_F_AETH |
				  SROCE_F_ATMACK,
				  BTH + AETH + sizeof(struct sroce_atmack) },
	[SROCE_OP_CMP_SWAP] = { SROCE_F_REQ | SROCE_F_ATOMIC | SROCE_F_ONLY |
				SROCE_F_ATMETH,
				BTH + sizeof(struct sroce_atmeth) },
	[SROCE_OP_FETCH_ADD] = { SROCE_F_REQ | SROCE_F_ATOMIC | SROCE_F_ONLY |
				 SROCE_F_ATMETH,
				 BTH + sizeof(struct sroce_atmeth) },
	[SROCE_OP_SEND_LAST_INV] = { SROCE_F_REQ | SROCE_F_SEND |
				     SROCE_F_PAYLOAD | SROCE_F_LAST |
				     SROCE_F_COMP | SROCE_F_IETH, BTH + IETH },
	[SROCE_OP_SEND_ONLY_INV] = { SROCE_F_REQ | SROCE_F_SEND |
				     SROCE_F_PAYLOAD | SROCE_F_ONLY |
				     SROCE_F_RWR | SROCE_F_COMP | SROCE_F_IETH,
				     BTH + IETH },
	/*
	 * RDMA FLUSH (IBA 1.5, A19.4): no payload; RC only; the FETH comes
	 * before the RETH. Answered like a READ of nothing.
	 */
	[SROCE_OP_FLUSH] = { SROCE_F_REQ | SROCE_F_ONLY | SROCE_F_RETH |
			     SROCE_F_FLUSH, BTH + FETH + RETH },
	/*
	 * RDMA ATOMIC WRITE (IBA 1.5, A19.4): a WRITE ONLY of exactly 8
	 * aligned bytes, stored at once; RC only; answered by an empty RDMA
	 * READ response.
	 */
	[SROCE_OP_ATOMIC_WRITE] = { SROCE_F_REQ | SROCE_F_WRITE |
				    SROCE_F_PAYLOAD | SROCE_F_ONLY |
				    SROCE_F_RETH | SROCE_F_ATOMIC_WRITE,
				    BTH + RETH },
};
