/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rc_data: what its modes share (main.c: the two devices, QP pairs,
 * polling, random data; main() runs one mode, each in a file of its own).
 */
#ifndef RC_DATA_H
#define RC_DATA_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "../../../uapi/rdma_user_sroce.h"
/* One count of checks for the whole program (main.c defines it). */
#define TAP_SHARED_COUNTS
#include "../common.h"
#include "../ring.h"

#define SLICE (10u << 20)	/* per-QP share of each buffer */
#define MAXQP 8

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int gid;
	union ibv_gid gidv;
	enum ibv_mtu mtu;
	char *buf;
	size_t len;
	struct ibv_mr *mr;
};

struct qp_opts {
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	int access;
};

extern struct side A, B;
extern const struct qp_opts default_opts;
extern uint64_t rnd_state;

/* main.c */
struct ibv_qp *make_qp(struct side *s, int ex);
int connect_qp(struct side *s, struct ibv_qp *qp, struct side *peer,
	       uint32_t dqpn, const struct qp_opts *o);
int pair(struct ibv_qp **qa, struct ibv_qp **qb, const struct qp_opts *oa,
	 const struct qp_opts *ob, int ex);
int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double timeout);
uint64_t rnd(void);
void fill(char *p, size_t n);
uint32_t rnd_size(void);
void destroy_pair(struct ibv_qp *qa, struct ibv_qp *qb);
int qp_state(struct ibv_qp *qp);
int wait_event(struct ibv_context *ctx, enum ibv_event_type type, double secs);

/* integrity.c */
int integrity(int nqp, int nops);

/* errors.c */
void errors(void);

/* memwin.c */
void memwin(void);
int post1(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_cq *cq,
	  struct ibv_wc *wc);

/* events.c */
void events(void);

/* hostile.c */
void hostile(void);

/* ud.c */
void ud(void);
void ud_count(int n);

/* flush.c */
void flush_ops(void);

/* wire.c */
void wire(void);

#endif /* RC_DATA_H */
