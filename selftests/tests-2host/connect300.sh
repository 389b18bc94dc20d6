#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 300 back-to-back rdma_cm connections across the segment: each a fresh
# rping client on A (resolve, connect, one verified RDMA READ/WRITE ping,
# disconnect) against ONE persistent rping server (-P) on B that listens
# once, before the first client starts. No REJ is ever legitimate: every
# client must exit 0 with its ping, the server must see every disconnect,
# and neither device's IB CM counters may show a REJ. (The single-host
# version, tests/cm/connect300.sh, explains the one rping exit race that is
# forgiven; the same rule applies here.)
. /tests/2host/th.lib

N=300
LIMIT=400
modprobe rdma_ucm 2>/dev/null || true
cmc() { cat "/sys/class/infiniband/$TH_DEV/ports/1/$1/$2"; }
rej0="$(cmc cm_tx_msgs rej) $(cmc cm_rx_msgs rej)"

rc=0
th_sync start >/dev/null || fail "the peer did not start"
th_mark "connect300 start"
if [[ $TH_ROLE == b ]]; then
	bg_run srv rping -s -P -a "$TH_ME4" -V -S 64
	( wait_cm_listen ) || rc=125
	th_sync ready "$rc" >/dev/null
	res=$(th_sync clients - $((LIMIT + 60))) || res="no result"
	kill -0 "${_BG_PID[srv]}" 2>/dev/null || { bg_log srv | tail; rc=1; echo "the rping server died"; }
	bg_kill srv
	disc=$(bg_log srv | grep -c 'server DISCONNECT EVENT' || true)
	bad=$(bg_log srv | grep -v -e 'server DISCONNECT EVENT' -e '^wait for RDMA_READ_ADV state 10$' |
		grep -c . || true)
	log "clients: $res; server: $disc disconnects, $bad other lines"
	[[ $disc == "$N" ]] || { echo "the server saw $disc disconnects, not $N"; rc=1; }
	((bad == 0)) || { bg_log srv | sed -n 1,20p; rc=1; }
else
	[[ $(th_sync ready) == 0 ]] || fail "the rping server did not start"
	t0=$SECONDS ok=0 rejects=0 bad=0 i=0
	for ((i = 1; i <= N; i++)); do
		c=0
		out=$(timeout 30 rping -c -a "$TH_PEER4" -C 1 -v -V -S 64 2>&1) || c=$?
		pings=$(grep -c '^ping data: rdma-ping-0: ' <<<"$out" || true)
		r=$(grep -c 'REJECTED' <<<"$out" || true)
		rejects=$((rejects + r))
		if ((c == 255 && pings == 1)) &&
		   [[ $(grep -v -e '^ping data: ' -e '^client DISCONNECT EVENT...$' <<<"$out") == \
		      'rdma_get_cm_event: Bad file descriptor' ]]; then
			log "client $i: rping's own exit race, ignored"
			c=0
		fi
		if ((c == 0 && pings == 1)); then
			ok=$((ok + 1))
		else
			echo "client $i: exit $c, $pings pings:"; echo "$out" | sed -n 1,10p
			((++bad < 3)) || break
		fi
		((SECONDS - t0 <= LIMIT)) || { echo "only $i connections in ${LIMIT}s"; break; }
	done
	res="$ok of $N good, $rejects rejected, $((SECONDS - t0)) s"
	log "$res"
	((ok == N && rejects == 0)) || rc=1
	th_sync clients "$res" >/dev/null
fi
rej="$(cmc cm_tx_msgs rej) $(cmc cm_rx_msgs rej)"
log "$TH_DEV REJ sent/received before: $rej0, after: $rej"
[[ $rej == "$rej0" ]] || { echo "$TH_DEV: REJ counters moved: $rej0 -> $rej"; rc=1; }
prc=$(th_sync "done" "$rc") || prc="no barrier"
th_mark "connect300 done"
[[ $rc == 0 && $prc == 0 ]] ||
	TH_FAILS+=("connect300: $TH_ROLE ($TH_DRIVER) exit $rc, peer ($TH_PEER_DRIVER) exit $prc")
th_done
