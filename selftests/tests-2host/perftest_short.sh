#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# perftest.sh with the latency tests at 2 B only (the bandwidth tests still
# run every size, 2 B to 8 MiB): the pairings of the kernels after 6.1,
# where -a latency (about 20 s a run; 35 s over the TCP link's 45 ms round
# trip) adds no code path the bandwidth runs do not take.
# shellcheck disable=SC2034  # PT_SHORT is read by the sourced perftest.sh
PT_SHORT=1
. /tests/2host/perftest.sh
