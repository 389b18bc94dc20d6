// SPDX-License-Identifier: GPL-2.0
/*
 * Object churn: create and destroy N verbs objects of mixed kinds (PD, CQ,
 * QP of each type, SRQ, MR, MW, AH), a few alive at a time.
 *
 *   verbs_churn DEVICE COUNT          churn, then exit 0 if all went well
 *   verbs_churn DEVICE COUNT hold     create COUNT objects, print "holding",
 *                                     and wait to be killed
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "common.h"

int main(int argc, char **argv)
{
	struct ibv_context *ctx = argc > 2 ? open_dev(argv[1]) : NULL;
	long count = argc > 2 ? atol(argv[2]) : 0;
	int hold = argc > 3 && !strcmp(argv[3], "hold");
	static char buf[1 << 16];
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh.hop_limit = 1 };
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	long i, made = 0, failed = 0;
	int gid;

	if (!ctx) {
		fprintf(stderr, "usage: verbs_churn DEVICE COUNT [hold]\n");
		return 2;
	}
	gid = ipv4_gid(ctx);
	aa.grh.sgid_index = gid;
	ibv_query_gid(ctx, 1, gid, &aa.grh.dgid);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq || gid < 0) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}

	for (i = 0; i < count; i++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4,
							  .max_sge = 1 } };
		void *obj = NULL;
		int kind = i % 9, err = 0;

		switch (kind) {
		case 0: obj = ibv_alloc_pd(ctx); break;
		case 1: obj = ibv_create_cq(ctx, 1 + i % 64, NULL, NULL, 0); break;
		case 2: qa.qp_type = IBV_QPT_RC; obj = ibv_create_qp(pd, &qa); break;
		case 3: qa.qp_type = IBV_QPT_UC; obj = ibv_create_qp(pd, &qa); break;
		case 4: qa.qp_type = IBV_QPT_UD; obj = ibv_create_qp(pd, &qa); break;
		case 5: obj = ibv_create_srq(pd, &sa); break;
		case 6: obj = ibv_reg_mr(pd, buf, 1 + i % sizeof(buf),
					 IBV_ACCESS_LOCAL_WRITE); break;
		case 7: obj = ibv_alloc_mw(pd, IBV_MW_TYPE_2); break;
		case 8: obj = ibv_create_ah(pd, &aa); break;
		}
		if (!obj) {
			fprintf(stderr, "object %ld (kind %d): %s\n", i, kind,
				strerror(errno));
			failed++;
			continue;
		}
		made++;
		if (hold)
			continue;
		switch (kind) {
		case 0: err = ibv_dealloc_pd(obj); break;
		case 1: err = ibv_destroy_cq(obj); break;
		case 2: case 3: case 4: err = ibv_destroy_qp(obj); break;
		case 5: err = ibv_destroy_srq(obj); break;
		case 6: err = ibv_dereg_mr(obj); break;
		case 7: err = ibv_dealloc_mw(obj); break;
		case 8: err = ibv_destroy_ah(obj); break;
		}
		if (err) {
			fprintf(stderr, "destroy %ld (kind %d): %s\n", i, kind,
				strerror(err));
			failed++;
		}
	}
	printf("%ld objects created, %ld failures\n", made, failed);
	fflush(stdout);
	if (hold) {
		printf("holding\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return failed ? 1 : 0;
}
