/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SROCE_DEVICE_H
#define SROCE_DEVICE_H

/*
 * The ib_device (device.c): allocation, registration, and the port state
 * that follows the netdev.
 */
#include "sroce.h"

struct sroce_dev *sroce_dev_alloc(struct net_device *ndev);
int sroce_dev_register(struct sroce_dev *sdev, const char *name);
void sroce_port_update(struct sroce_dev *sdev, bool notify);

#endif /* SROCE_DEVICE_H */
