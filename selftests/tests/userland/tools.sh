#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.12 7.2
# timeout: 1200
# The RDMA tools of a newer distribution (trixie's rdma-core 56.1 and
# perftest 25.01 on 6.12, sid's rdma-core 65 on 7.2; userland_mount), run
# inside its userland between two hosts over sroce, each case once and
# short: the ibv_* pingpongs (buffers validated), perftest's RC tests with
# its own connection setup and over rdma_cm (-R), its UD SENDs and UC
# SENDs and WRITEs, rping (pings verified),
# rdmacm-utils (ucmatose, udaddy, rstream and riostream with data
# verified, mckey, rdma_server/rdma_client, cmtime) and ibv_devices and
# ibv_devinfo. ibv_xsrq_pingpong must fail cleanly (librxe has no XRC),
# perfquery where Documentation/interop.md says.
# Each failure is reported; the test fails on any.
. /tests/lib.sh

userland_mount
export SROCE_USERLAND=1
modprobe rdma_ucm || true
rdma_pair
ga=$(gid_index sroce_a 192.0.2.1)
gb=$(gid_index sroce_b 192.0.2.2)
log "userland $UL_NAME: rdma-core $(in_a dpkg-query -W -f='${Version}' rdma-core)," \
	"perftest $(in_a dpkg-query -W -f='${Version}' perftest)"
ncase=0
bad=()

# tool NAME LISTEN SERVER CLIENT [PATTERN]: SERVER in hb, once it listens
# (LISTEN: tcp, cm, oob for cmtime's own TCP port, or none), CLIENT in ha;
# both must exit 0 within 120 s and the client's output match PATTERN.
# Outputs of a failure are shown.
tool() {
	local name=$1 listen=$2 srv=$3 cli=$4 pat=${5:-} rc=0 src=0 out try
	ncase=$((ncase + 1))
	for try in 1 2 3; do
		rc=0 src=0
		# shellcheck disable=SC2086  # srv is a command line, split on purpose
		bg_run srv in_b timeout 120 $srv
		case $listen in
		tcp) wait_tcp_listen hb 18515 ;;
		cm) wait_cm_listen sroce_b ;;
		oob) wait_tcp_listen hb 7471 ;;
		esac
		# shellcheck disable=SC2086  # cli is a command line, split on purpose
		out=$(in_a timeout 120 $cli 2>&1) || rc=$?
		if ((rc != 0 && try < 3)) && [[ $cli == *" -R "* ]] &&
		   perftest_cm_race <<<"$out"; then
			log "$name: perftest's rdma_cm race (try $try), both sides again"
			bg_kill srv
			sleep 1
			continue
		fi
		bg_wait srv 60 || src=$?
		break
	done
	if [[ $rc != 0 || $src != 0 ]] || ! grep -qE -- "${pat:-.}" <<<"${out:-.}"; then
		bad+=("$name (client $rc, server $src)")
		echo "--- $name: client: $cli"
		tail -n 15 <<<"$out"
		echo "--- $name: server: $srv"
		bg_log srv | tail -n 15
	fi
	log "$name: client $rc, server $src"
}

# perftest's rdma_cm race, traced in cm/perftest_cm.sh: with -R its data
# connection's REQ can reach the server before the server listens for
# it, and the IB CM rejects it (reason 8); the client prints exactly
# "Event: RDMA_CM_EVENT_REJECTED; error: 8." and crashes. Only that starts
# both sides again (tool(), up to three times); any other failure counts.
for t in ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw ib_send_lat ib_write_lat \
	ib_read_lat ib_atomic_lat; do
	tool "$t" tcp "$t -F -d sroce_b -x $gb -n 50" "$t -F -d sroce_a -x $ga -n 50 192.0.2.2"
	tool "$t -R" cm "$t -F -R -d sroce_b -x $gb -n 50" \
		"$t -F -R -d sroce_a -x $ga -n 50 192.0.2.2"
done
# the unreliable transports: UD SENDs of 1024 bytes (the path MTU of a
# 1500-byte link), UC SENDs and WRITEs
for t in ib_send_bw ib_send_lat; do
	tool "$t -c UD" tcp "$t -F -c UD -s 1024 -d sroce_b -x $gb -n 50" \
		"$t -F -c UD -s 1024 -d sroce_a -x $ga -n 50 192.0.2.2"
done
for t in ib_send_bw ib_write_bw ib_send_lat ib_write_lat; do
	tool "$t -c UC" tcp "$t -F -c UC -d sroce_b -x $gb -n 50" \
		"$t -F -c UC -d sroce_a -x $ga -n 50 192.0.2.2"
done
for ev in "" "-e"; do
	tool "ibv_rc_pingpong $ev" tcp "ibv_rc_pingpong -d sroce_b -g $gb -n 100 -c $ev" \
		"ibv_rc_pingpong -d sroce_a -g $ga -n 100 -c $ev 192.0.2.2" "iters in"
	tool "ibv_uc_pingpong $ev" tcp "ibv_uc_pingpong -d sroce_b -g $gb -n 100 -c $ev" \
		"ibv_uc_pingpong -d sroce_a -g $ga -n 100 -c $ev 192.0.2.2" "iters in"
	tool "ibv_ud_pingpong $ev" tcp "ibv_ud_pingpong -d sroce_b -g $gb -s 512 -n 100 -c $ev" \
		"ibv_ud_pingpong -d sroce_a -g $ga -s 512 -n 100 -c $ev 192.0.2.2" "iters in"
	tool "ibv_srq_pingpong $ev" tcp "ibv_srq_pingpong -d sroce_b -g $gb -q 4 -n 100 -c $ev" \
		"ibv_srq_pingpong -d sroce_a -g $ga -q 4 -n 100 -c $ev 192.0.2.2" "iters in"
done
for b in 192.0.2.2 2001:db8::2; do
	tool "ucmatose $b" cm "ucmatose -b $b -c 2 -C 10" "ucmatose -s $b -c 2 -C 10" "test complete"
	tool "udaddy $b" cm "udaddy -b $b -c 2 -C 10" "udaddy -s $b -c 2 -C 10" "test complete"
	tool "rstream $b" cm "rstream -b $b -S 4096 -C 100 -T v" "rstream -s $b -S 4096 -C 100 -T v"
	tool "riostream $b" cm "riostream -b $b -S 4096 -C 100 -T v" \
		"riostream -s $b -S 4096 -C 100 -T v"
	tool "rdma_server $b" cm "rdma_server -s $b" "rdma_client -s $b" "rdma_client: end 0"
	ncase=$((ncase + 1))
	( rping_verified hb ha sroce_b "$b" "rping" ) || bad+=("rping $b")
done
# cmtime: connections with QPs, then (two peers) with made-up QPNs and
# none. rdma-core 65's takes a controller address for its out-of-band
# setup (-C) and a role (-L), the older ones the server's address (-s).
# The newer listens for RDMA CM connections only once its peers have met
# it on its TCP port (7471).
if grep -q controller_address "$UL/usr/bin/cmtime"; then
	tool cmtime oob "cmtime -b 192.0.2.2 -C 192.0.2.2 -L -c 20" \
		"cmtime -b 192.0.2.1 -C 192.0.2.2 -c 20" "no QPs"
else
	tool cmtime cm "cmtime -b 192.0.2.2 -c 20" "cmtime -s 192.0.2.2 -b 192.0.2.1 -c 20" \
		"no QPs"
fi

# mckey: the receiver joins first (it does not synchronise with the sender)
ncase=$((ncase + 1))
bg_run rcv in_b timeout 60 mckey -m 239.1.2.3 -b 192.0.2.2 -C 10
wait_for 30 "mckey's join" eval '"$IP" -n hb maddr show dev vb | grep -q 239.1.2.3'
rc=0 src=0
out=$(in_a timeout 60 mckey -m 239.1.2.3 -b 192.0.2.1 -s -C 10 2>&1) || rc=$?
bg_wait rcv 60 || src=$?
[[ $rc == 0 && $src == 0 ]] || { echo "$out"; bg_log rcv; bad+=("mckey ($rc, $src)"); }

ncase=$((ncase + 2))
out=$(in_a ibv_devices 2>&1) || bad+=("ibv_devices")
grep -q sroce_a <<<"$out" || bad+=("ibv_devices lists no sroce_a")
in_a ibv_devinfo -v -d sroce_a >devinfo.log 2>&1 || bad+=("ibv_devinfo -v")
grep -q 'transport:.*InfiniBand' devinfo.log || bad+=("ibv_devinfo: no transport line")

# perfquery: it registers the SMI class too, on QP0, which the RDMA core
# gives no RoCE port; that is where 56 must stop, if it does not answer
# (device/pma sends its GETs without that class). libibumad 65 stops
# before: its SMI/GSI pairing (umad_get_smi_gsi_pairs) skips every port
# whose link layer is not InfiniBand, so on RoCE it finds no port at all
# and libibmad opens the empty name ":0" (Documentation/interop.md)
ncase=$((ncase + 1))
modprobe ib_umad
rc=0
out=$(in_a timeout 30 perfquery -x -C sroce_a -P 1 2>&1) || rc=$?
log "perfquery -x: exit $rc: $out"
if ((rc == 0)); then
	grep -q PortXmitData <<<"$out" || bad+=("perfquery: exit 0 without counters")
elif ! grep -qE 'register agent for class 1|client_register for mgmt 1 |open GSI UMAD port .*\(:0\)' <<<"$out"; then
	bad+=("perfquery: exit $rc, not at the SMI class or libibumad's pairing")
fi

# XRC: refused, cleanly and at once
ncase=$((ncase + 1))
rc=0
out=$(in_b timeout 30 ibv_xsrq_pingpong -d sroce_b -g "$gb" 2>&1) || rc=$?
log "ibv_xsrq_pingpong: exit $rc: $out"
[[ $rc != 0 && $rc != 124 ]] || bad+=("ibv_xsrq_pingpong exit $rc, not a clean refusal")

log "$ncase cases, ${#bad[@]} failed"
((${#bad[@]} == 0)) || fail "${bad[*]}"
pass
