#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module loads and unloads cleanly, and says so.
. /tests/lib.sh

modprobe sroce || fail "modprobe sroce"
grep -q '^sroce ' /proc/modules || fail "sroce not in /proc/modules"
assert_match "$(dmesg | tail -n 20)" "sroce: loaded" "load message"
rmmod sroce || fail "rmmod sroce"
grep -q '^sroce ' /proc/modules && fail "sroce still loaded"
assert_match "$(dmesg | tail -n 20)" "sroce: unloaded" "unload message"
# A second cycle works as well as the first.
# shellcheck disable=SC2015  # C is meant to run when either A or B fails
modprobe sroce && rmmod sroce || fail "second load/unload cycle"
pass
