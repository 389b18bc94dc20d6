/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_NET_H
#define SROCE_NET_H

/*
 * The RoCEv2 UDP sockets of each network namespace (net.c).
 */
#include "sroce.h"

struct sroce_net {
	struct socket	*sock4;
	struct socket	*sock6;
	unsigned int	users;		/* devices in this namespace */
};

int sroce_net_get(struct sroce_dev *sdev);
void sroce_net_put(struct sroce_dev *sdev);
int sroce_net_init(void);
void sroce_net_exit(void);

#endif /* SROCE_NET_H */
