#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# timeout: 2400
# rdma-core's own test suite (pyverbs.lib), bookworm's, from the image
# (mkinitramfs.sh puts it in /usr/share/rdma-core-tests); trixie's and
# sid's run on 6.12 and 7.2 (userland/pyverbs). Fails on fewer passes than
# PYVERBS_MIN_PASS.
. /tests/lib.sh
. /tests/rdmacore/pyverbs.lib

pyverbs_setup "${PYVERBS_MIN_PASS:-107}"
pyverbs_suite "" "$PY_MIN"
pass
