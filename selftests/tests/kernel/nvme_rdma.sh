#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA, both ends in the kernel on one sroce device: nvmet-rdma
# exports a file-backed namespace, nvme-rdma connects through rdma_cm and
# moves data with fast-registration MRs (REG_MR, LOCAL_INV, SEND with
# invalidate). 1 MiB written and read back, byte for byte.
. /tests/lib.sh
. /tests/kernel/nvme.lib

nvme_loop_up
nvme_roundtrip "1 MiB"
cfg=$NVME_CFG nqn=$NVME_NQN
# The host goes first; then the device, from under nvmet's listener.
for c in /sys/class/nvme/nvme*; do
	[ -e "$c/delete_controller" ] && echo 1 > "$c/delete_controller"
done
link_del sroce0 || fail "rdma link delete under nvmet's listener"
[ -e /sys/class/infiniband/sroce0 ] && fail "sroce0 still registered"
rm -f "$cfg/ports/1/subsystems/$nqn" || fail "remove the port"

# With lockdep (the debug kernel): removing the port took no handler_mutex
# under nvmet_config_sem, the half of the cycle the teardown avoids.
if [ -r /proc/lockdep ]; then
	deps=$(awk '/^[^ ]/ { f = / nvmet_config_sem$/; next } f' /proc/lockdep)
	grep handler_mutex <<<"$deps" &&
		fail "lockdep recorded nvmet_config_sem -> handler_mutex"
fi
pass
