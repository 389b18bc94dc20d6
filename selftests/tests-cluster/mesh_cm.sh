#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm between every pair of nodes, both ways, IPv4 and IPv6: each node
# serves rping (persistent: one thread per connection) while it connects to
# every other node in turn, so each node serves up to N-1 clients at once.
# Every connection must verify its 20 pings (-V: the client checks the data
# that the server read from it and wrote back) and end cleanly.
. /tests/cluster/cl.lib

modprobe rdma_ucm 2>/dev/null || true

# ping_all FAM: this node's rping client to every other node over FAM
ping_all() {
	local fam=$1 k a out rc n
	for ((k = 1; k <= TH_NODES; k++)); do
		((k == TH_NODE)) && continue
		if [[ $fam == 6 ]]; then a=$(cl_addr6 "$k"); else a=$(cl_addr4 "$k"); fi
		rc=0
		out=$(timeout -s KILL 120 rping -c -a "$a" -v -V -C 20 -S 100 2>&1) || rc=$?
		if ((rc == 255)) && rping_exit_race "$out" 20; then
			log "rping to $a: its own exit race after 20 verified pings, ignored"
			rc=0
		fi
		n=$(grep -c '^ping data: ' <<<"$out" || true)
		log "rping $TH_NODE ($TH_DRIVER) -> $k ($(cl_driver "$k")) $a: exit $rc, $n verified"
		if ((rc != 0 || n < 20)); then
			tail -n 4 <<<"$out" | sed 's/^/  /'
			cl_fail "rping to node $k ($a): exit $rc, $n of 20 pings verified"
		fi
	done
}

for fam in 4 6; do
	if [[ $fam == 6 ]]; then me=$TH_ME6; else me=$TH_ME4; fi
	cl_sync "v$fam:start" >/dev/null || { cl_fail "v$fam: the nodes did not meet"; break; }
	bg_run "srv$fam" timeout -s KILL 600 rping -s -P -a "$me" -v -V -C 20 -S 100
	( wait_cm_listen "$TH_DEV" ) || cl_fail "v$fam: no rping listener"
	cl_sync "v$fam:listening" >/dev/null || { cl_fail "v$fam: the nodes did not meet"; break; }
	ping_all "$fam"
	# every client of this node's server is done once all nodes are
	cl_sync "v$fam:pinged" >/dev/null || cl_fail "v$fam: the nodes did not meet after the pings"
	# a persistent server serves until killed: gone now means it failed
	# (its output is block-buffered and lost with it, so the clients'
	# verified pings are what counts: each came back through a server)
	kill -0 "${_BG_PID[srv$fam]}" 2>/dev/null ||
		cl_fail "v$fam: this node's rping server exited: $(bg_log "srv$fam" | tail -n 3)"
	bg_kill "srv$fam"
done
cl_done
