#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The module that the Debian package (make deb) built and installed through
# DKMS for this kernel (selftests/deb-test.sh, on 6.1 and 6.12) loads, brings
# up a device and carries a validated ping-pong, then unloads.
. /tests/lib.sh

ko=/lib/sroce-deb/sroce.ko
[ -f $ko ] || skip "no packaged module for this kernel in the initramfs"
vm=$(modinfo -F vermagic $ko)
[[ $vm == "$(uname -r) "* ]] || fail "vermagic '$vm' is not this kernel's ($(uname -r))"

# sroce's dependencies (ib_core, ib_uverbs, the UDP tunnel helpers) by the
# in-tree module's entry, then the packaged one in its place
sroce_load
sroce_unload || fail "unloading the in-tree sroce"
at_exit sroce_unload
sroce_loaded && fail "sroce still loaded"
assert_rc 0 "insmod the packaged module" insmod $ko
sroce_loaded || fail "the packaged module is not loaded"

one_device
bg_run srv ibv_rc_pingpong -d sroce0 -g "$G" -s 4096 -n 100 -c
wait_tcp_listen "" 18515
assert_rc 0 "pingpong client" timeout 120 ibv_rc_pingpong -d sroce0 -g "$G" -s 4096 -n 100 -c 192.0.2.1
bg_wait srv 30 || fail "pingpong server"
assert_match "$OUT" "100 iters in" "client finished 100 iterations"
link_del sroce0
sroce_unload || fail "unloading the packaged module"
pass
