#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm across the segment: rping (RDMA READ/WRITE ping-pong, data
# verified) over IPv4 and IPv6, and perftest over rdma_cm (-R), with each
# VM as the server in turn.
. /tests/2host/th.lib

modprobe rdma_ucm 2>/dev/null || true

# rp FAM [PEER]: the rping server (no PEER) or client (the peer's IPv4
# address appended by th_run; FAM picks the address actually used).
rp() {
	local a out rc=0 n
	if (($# > 1)); then
		if [[ $1 == 6 ]]; then a=$TH_PEER6; else a=$TH_PEER4; fi
		out=$(rping -c -a "$a" -v -V -C 20 -S 100 2>&1) || rc=$?
		echo "$out"
		n=$(grep -c '^ping data: ' <<<"$out" || true)
		((rc == 0 && n >= 20)) || { echo "rping failed: exit $rc, $n pings verified"; return 1; }
	else
		if [[ $1 == 6 ]]; then a=$TH_ME6; else a=$TH_ME4; fi
		rping -s -a "$a" -v -V -C 20 -S 100
	fi
}

# rperf STEP SERVER_ROLE TOOL ARGS...: perftest with -R. perftest 4.5's
# client may connect its data connection before the server listens for it
# (a race in perftest, see tests/cm/perftest_cm.sh): only when the client
# reports exactly that reject are both sides started again, up to 3 times.
rperf() {
	local step=$1 srole=$2 try rc prc msg again
	shift 2
	for try in 1 2 3; do
		rc=0
		th_sync "$step-$try:start" >/dev/null || { TH_FAILS+=("$step: no peer"); return 0; }
		if [[ $TH_ROLE == "$srole" ]]; then
			bg_run "$step" th_cmd 150 "$@" -F -d "$TH_DEV" -R
			( wait_cm_listen ) || rc=125
			th_sync "$step-$try:ready" "$rc" >/dev/null
			msg=$(th_sync "$step-$try:client") || msg="126 0"
			if [[ ${msg#* } == 1 ]]; then
				log "$step: client rejected before the server listened (perftest race, try $try)"
				bg_kill "$step"
				th_sync "$step-$try:done" again >/dev/null
				continue
			fi
			((rc)) || bg_wait "$step" 60 || rc=$?
			prc=${msg% *}
			th_sync "$step-$try:done" "$rc" >/dev/null
		else
			prc=$(th_sync "$step-$try:ready")
			if [[ $prc == 0 ]]; then
				th_cmd 150 "$@" -F -d "$TH_DEV" -R "$TH_PEER4" >"$step.log" 2>&1 || rc=$?
			else
				rc=127
			fi
			again=0
			((rc == 0 || try == 3)) ||
				! grep -qx 'Event: RDMA_CM_EVENT_REJECTED; error: 8\.' "$step.log" || again=1
			th_sync "$step-$try:client" "$rc $again" >/dev/null
			prc=$(th_sync "$step-$try:done")
			[[ $prc == again ]] && continue
		fi
		break
	done
	log "$step: $TH_ROLE exit $rc, peer exit $prc"
	if [[ $rc != 0 || $prc != 0 ]]; then
		tail -n 6 "$step.log" 2>/dev/null | sed 's/^/  /'
		TH_FAILS+=("$step: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
	fi
}

g=$(th_gid4)
for srv in b a; do
	TH_READY=cm th_run "rping-v4-srv$srv" $srv 120 rp 4
	TH_READY=cm th_run "rping-v6-srv$srv" $srv 120 rp 6
	rperf "send_lat-R-srv$srv" $srv ib_send_lat -x "$g" -s 4096 -n 100
	rperf "write_bw-R-srv$srv" $srv ib_write_bw -x "$g" -s 65536 -n 200
done
th_done
