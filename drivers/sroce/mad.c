// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Performance Management class on the GSI (IBA 16.1): the port's
 * counters read as a subnet's performance manager reads them, so that
 * infiniband-diags' perfquery works as on a RoCE NIC. The MAD layer hands
 * every MAD that reaches QP1 to ->process_mad first; a GET of
 * ClassPortInfo, PortCounters or PortCountersExtended is answered here,
 * every other PerfMgmt method or attribute with an "unsupported" status,
 * and MADs of other classes go on to their agents (the CM's).
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "sroce.h"
#include "counters.h"
#include "mad.h"

/* Where the attribute starts in a PerfMgmt MAD (IBA 16.1.1: 40 reserved). */
#define SROCE_PMA_DATA_OFF	40

/* Counter @c of @sdev, stopped at @max (IBA 16.1.3.5: no wrapping). */
static u64 sroce_pma_read(struct sroce_dev *sdev, enum sroce_counter c,
			  unsigned int shift, u64 max)
{
	return min(sroce_counter_read(sdev, c) >> shift, max);
}

/* Data counts 4-byte words (shift 2), packets count packets. */
static void sroce_pma_counters(struct sroce_dev *sdev, struct ib_mad *out)
{
	struct ib_pma_portcounters *pc = (void *)(out->data + SROCE_PMA_DATA_OFF);
	u64 tx_data, rx_data, tx_pkts, rx_pkts;

	tx_data = sroce_pma_read(sdev, SROCE_CNT_SENT_BYTES, 2, U32_MAX);
	rx_data = sroce_pma_read(sdev, SROCE_CNT_RCVD_BYTES, 2, U32_MAX);
	tx_pkts = sroce_pma_read(sdev, SROCE_CNT_SENT_PKTS, 0, U32_MAX);
	rx_pkts = sroce_pma_read(sdev, SROCE_CNT_RCVD_PKTS, 0, U32_MAX);
	pc->link_downed_counter =
		sroce_pma_read(sdev, SROCE_CNT_LINK_DOWNED, 0, U8_MAX);
	pc->port_xmit_data = cpu_to_be32(tx_data);
	pc->port_rcv_data = cpu_to_be32(rx_data);
	pc->port_xmit_packets = cpu_to_be32(tx_pkts);
	pc->port_rcv_packets = cpu_to_be32(rx_pkts);
}

static void sroce_pma_counters_ext(struct sroce_dev *sdev, struct ib_mad *out)
{
	struct ib_pma_portcounters_ext *pc =
		(void *)(out->data + SROCE_PMA_DATA_OFF);
	u64 tx_data, rx_data, tx_pkts, rx_pkts;

	tx_data = sroce_pma_read(sdev, SROCE_CNT_SENT_BYTES, 2, U64_MAX);
	rx_data = sroce_pma_read(sdev, SROCE_CNT_RCVD_BYTES, 2, U64_MAX);
	tx_pkts = sroce_pma_read(sdev, SROCE_CNT_SENT_PKTS, 0, U64_MAX);
	rx_pkts = sroce_pma_read(sdev, SROCE_CNT_RCVD_PKTS, 0, U64_MAX);
	pc->port_xmit_data = cpu_to_be64(tx_data);
	pc->port_rcv_data = cpu_to_be64(rx_data);
	pc->port_xmit_packets = cpu_to_be64(tx_pkts);
	pc->port_rcv_packets = cpu_to_be64(rx_pkts);
}

/* A GET of @in's attribute into @out; false if it is not one we answer. */
static bool sroce_pma_get(struct sroce_dev *sdev, const struct ib_mad *in,
			  struct ib_mad *out)
{
	struct ib_class_port_info cpi = {
		.base_version = IB_MGMT_BASE_VERSION,
		.class_version = 1,
		/* The 64-bit PortCountersExtended are there. */
		.capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH,
	};

	switch (in->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		memcpy(out->data + SROCE_PMA_DATA_OFF, &cpi, sizeof(cpi));
		return true;
	case IB_PMA_PORT_COUNTERS:
		sroce_pma_counters(sdev, out);
		return true;
	case IB_PMA_PORT_COUNTERS_EXT:
		sroce_pma_counters_ext(sdev, out);
		return true;
	}
	return false;
}

int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_mad_hdr *hdr = &in->mad_hdr;

	/* Not ours: the MAD layer passes it on to the class's agent. */
	if (hdr->mgmt_class != IB_MGMT_CLASS_PERF_MGMT)
		return IB_MAD_RESULT_SUCCESS;
	/*
	 * Responses (to a GET a PerfMgmt agent of this host sent: perfquery,
	 * another host's PMA answering) and traps are not for the PMA: the
	 * MAD layer hands them to the agent.
	 */
	if (hdr->method != IB_MGMT_METHOD_GET && hdr->method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;

	/* The response: the request's header (TID, class, attribute). */
	*out = *in;
	memset(out->data, 0, sizeof(out->data));
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = 0;
	if (port_num != SROCE_PORT || hdr->class_version != 1)
		out->mad_hdr.status = cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION);
	else if (hdr->method != IB_MGMT_METHOD_GET)
		out->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD);
	else if (!sroce_pma_get(to_sdev(ibdev), in, out))
		out->mad_hdr.status =
			cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
