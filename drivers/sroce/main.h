/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_MAIN_H
#define SROCE_MAIN_H

/*
 * The module's netdev -> device table (main.c).
 */
#include "sroce.h"

struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev);
void sroce_table_del(struct sroce_dev *sdev);
void sroce_unregister_net(const struct sroce_net *sn);

#endif /* SROCE_MAIN_H */
