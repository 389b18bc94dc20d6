// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Not a feature: this must compile on every kernel. If it does not, the
 * probes cannot tell missing features from a broken toolchain or header tree,
 * and probe.sh stops with the compiler's messages.
 */
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
#include <net/udp_tunnel.h>

static int probe_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .post_send = probe_post_send };
