#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1500
# 1,000 rdma_cm connections from every other node at once to node 1: each a
# fresh rping client (resolve, connect, one verified RDMA READ/WRITE ping,
# disconnect) against a persistent rping server (-P) on node 1 that
# listens once, before the first client starts. No REJ is legitimate: every
# client must exit 0 with its ping, the servers must see every disconnect,
# and no node's IB CM counters may show a REJ. Each client node prints its
# connection rate, node 1 the cluster's (rping's one exit race is
# forgiven, as in tests/cm/connect300.sh).
#
# Node 1 runs one server per client node, each on its own port: rdma-core
# 44's rping (bookworm's) loses a connect request when a persistent server
# gets two before its main thread has taken the first (its CM event thread
# overwrites the one child cm_id it keeps; rdma-core later made that thread
# wait for the main one). Seen with sroce and with rdma_rxe alike, and in
# node 1's capture: REQs from two nodes 2 ms apart, the second answered with
# a REP, the first only with an MRA when sent again 6 s later, then the
# client's REJ when it gave up at 30 s. One client node per listener keeps
# its requests apart; node 1's CM still takes three streams at once.
. /tests/cluster/cl.lib

TOTAL=1000
LIMIT=1200
PORT=7180
modprobe rdma_ucm 2>/dev/null || true
cmc() { cat "/sys/class/infiniband/$TH_DEV/ports/1/$1/$2"; }
rej0="$(cmc cm_tx_msgs rej) $(cmc cm_rx_msgs rej)"

# this client node's share of TOTAL
share() {
	local c=$((TH_NODES - 1)) i=$((TH_NODE - 2))
	echo $((TOTAL / c + (i < TOTAL % c ? 1 : 0)))
}

# connect_n N: N clients one after the other; prints "OK REJECTS SECONDS"
connect_n() {
	local n=$1 t0=$SECONDS ok=0 rejects=0 bad=0 i c out pings
	for ((i = 1; i <= n; i++)); do
		c=0
		out=$(timeout 30 rping -c -a "$(cl_addr4 1)" -p $((PORT + TH_NODE)) -C 1 -v -V -S 64 2>&1) ||
			c=$?
		pings=$(grep -c '^ping data: rdma-ping-0: ' <<<"$out" || true)
		rejects=$((rejects + $(grep -c 'REJECTED' <<<"$out" || true)))
		if ((c == 255 && pings == 1)) &&
		   [[ $(grep -v -e '^ping data: ' -e '^client DISCONNECT EVENT...$' <<<"$out") == \
		      'rdma_get_cm_event: Bad file descriptor' ]]; then
			c=0	# rping's own exit race (tests/cm/connect300.sh)
		fi
		if ((c == 0 && pings == 1)); then
			ok=$((ok + 1))
		else
			echo "client $i: exit $c, $pings pings:" >&2
			head -n 10 <<<"$out" >&2
			((++bad < 3)) || break
		fi
		((SECONDS - t0 <= LIMIT)) || { echo "only $i connections in ${LIMIT}s" >&2; break; }
	done
	echo "$ok $rejects $((SECONDS - t0))"
}

cl_sync start >/dev/null || fail "the nodes did not meet"
if ((TH_NODE == 1)); then
	for ((k = 2; k <= TH_NODES; k++)); do
		bg_run "srv$k" rping -s -P -a "$TH_ME4" -p $((PORT + k)) -V -S 64
	done
	wait_for 30 "$((TH_NODES - 1)) rping listeners" eval \
		'(($(rdma resource show cm_id 2>/dev/null | grep -c "state LISTEN") >= TH_NODES - 1))' ||
		cl_fail "no rping listeners"
	sleep 0.3	# see lib.sh: wait_cm_listen
	t0=${EPOCHREALTIME/./}
	cl_sync ready >/dev/null || cl_fail "the nodes did not meet"
	res=$(cl_sync clients - $((LIMIT + 120))) || cl_fail "the clients did not report"
	ms=$(((${EPOCHREALTIME/./} - t0) / 1000))
	disc=0 bad=0
	for ((k = 2; k <= TH_NODES; k++)); do
		kill -0 "${_BG_PID[srv$k]}" 2>/dev/null ||
			cl_fail "the rping server for node $k died: $(bg_log "srv$k" | tail -n 3)"
		bg_kill "srv$k"
		disc=$((disc + $(bg_log "srv$k" | grep -c 'server DISCONNECT EVENT' || true)))
		other=$(bg_log "srv$k" | grep -v -e 'server DISCONNECT EVENT' \
			-e '^wait for RDMA_READ_ADV state 10$' || true)
		[[ -z $other ]] || { echo "server for node $k: $other" | sed -n 1,10p; bad=$((bad + 1)); }
	done
	log "clients (node:good,rejected,seconds): $res"
	rate=$((disc * 10000 / (ms + 1)))
	log "servers: $disc disconnects in $ms ms ($((rate / 10)).$((rate % 10)) a second), $bad with other lines"
	echo "SUMMARY connect1000 $TH_DRIVERS: $disc connections from $((TH_NODES - 1)) nodes in $ms ms, $((rate / 10)).$((rate % 10)) a second"
	((disc == TOTAL)) || cl_fail "the servers saw $disc disconnects, not $TOTAL"
	((bad == 0)) || cl_fail "$bad servers printed more than disconnects"
else
	cl_sync ready >/dev/null || fail "the nodes did not meet"
	n=$(share)
	read -r ok rejects secs < <(connect_n "$n")
	log "$ok of $n good, $rejects rejected, $secs s"
	((ok == n && rejects == 0)) || cl_fail "$ok of $n connections good, $rejects rejected"
	cl_sync clients "$ok,$rejects,$secs" $((LIMIT + 120)) >/dev/null || cl_fail "the nodes did not meet"
fi
rej="$(cmc cm_tx_msgs rej) $(cmc cm_rx_msgs rej)"
log "$TH_DEV REJ sent/received before: $rej0, after: $rej"
[[ $rej == "$rej0" ]] || cl_fail "$TH_DEV: REJ counters moved: $rej0 -> $rej"
cl_done
