#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# 300 back-to-back rdma_cm connections from ha to hb, each a fresh rping
# client (resolve, connect, one RDMA READ/WRITE ping with data validation,
# disconnect) against ONE persistent rping server (-P) that listens once,
# before the first client starts, and never re-listens. So no REJ is ever
# legitimate here: every client must exit 0 with its ping data, the server
# must see every disconnect, and the IB CM counters must show no REJ on
# either device, no REQ on sroce_a's GSI QP (a MAD delivered to the wrong
# device) and exactly one new (non-duplicate) REQ per connection on
# sroce_b's. 145 to 230 s under TCG (a rping process per connection); the
# loop fails past 270 s, inside the harness's 300 s per test.
. /tests/lib.sh

N=300
LIMIT=270
modprobe rdma_ucm || true
rdma_pair

cmc() { cat "/sys/class/infiniband/$1/ports/1/$2/$3"; }

bg_run srv in_b rping -s -P -a 192.0.2.2 -V -S 64
wait_cm_listen sroce_b

# The loop runs inside ha (one netns entry, not 300): per connection, a
# line "i rc pings rejects" and the full output of any client that failed.
cat > loop.sh <<'EOF'
n=$1 limit=$2 start=$SECONDS bad=0
for ((i = 1; i <= n; i++)); do
	rc=0
	out=$(timeout 30 rping -c -a 192.0.2.2 -C 1 -v -V -S 64 2>&1) || rc=$?
	pings=$(grep -c '^ping data: rdma-ping-0: ' <<<"$out")
	rej=$(grep -c 'REJECTED' <<<"$out")
	# Debian's rping (rdma-core 44) has an exit race: main() destroys the
	# CM event channel while its cm_thread may still be reading it, and
	# that thread then exits 255 with "rdma_get_cm_event: Bad file
	# descriptor" (later rdma-core stops the thread first, through an
	# eventfd). Seen once in 300 here, after a verified ping and a clean
	# disconnect; only that exact case is forgiven.
	if ((rc == 255 && pings == 1)) &&
	   [[ $(grep -v -e '^ping data: ' -e '^client DISCONNECT EVENT...$' <<<"$out") == \
	      'rdma_get_cm_event: Bad file descriptor' ]]; then
		echo "client $i: rping's own exit race (rdma_get_cm_event EBADF after the disconnect), ignored" >&2
		rc=0
	fi
	echo "$i $rc $pings $rej"
	if ((rc != 0 || pings != 1)); then
		echo "client $i failed (exit $rc):" >&2
		echo "$out" >&2
		((++bad < 3)) || exit 1
	fi
	if ((SECONDS - start > limit)); then
		echo "only $i connections in ${limit}s" >&2
		exit 1
	fi
done
EOF
t0=$SECONDS
rc=0
in_a bash loop.sh $N $LIMIT > conn.log 2> fail.log || rc=$?
secs=$((SECONDS - t0))
ign=$(grep -c "rping's own exit race" fail.log || true)
log "$(wc -l < conn.log) connections in ${secs}s (loop exit $rc; rping exit races forgiven: $ign)"

ok=$(awk '$2 == 0 && $3 == 1 && $4 == 0' conn.log | wc -l)
rejects=$(awk '{ s += $4 } END { print s + 0 }' conn.log)
kill -0 "${_BG_PID[srv]}" 2>/dev/null || { bg_log srv | tail; fail "the rping server died"; }
disc=$(bg_log srv | grep -c 'server DISCONNECT EVENT' || true)
# rping -P prints this for each normal end too: the disconnect ends its wait
# for the next ping (10 is DISCONNECTED)
srvout() { bg_log srv | grep -v -e 'server DISCONNECT EVENT' -e '^wait for RDMA_READ_ADV state 10$' || true; }
srv_err=$(srvout | grep -c . || true)

for d in sroce_a sroce_b; do
	for g in cm_tx_msgs cm_rx_msgs cm_tx_retries cm_rx_duplicates; do
		log "$d $g: req $(cmc $d $g req) rej $(cmc $d $g rej) rep $(cmc $d $g rep) rtu $(cmc $d $g rtu) dreq $(cmc $d $g dreq)"
	done
done
if ((rc != 0 || ok != N || rejects != 0)); then
	head -c 4000 fail.log
	fail "$ok of $N connections good, $rejects rejected (loop exit $rc)"
fi
assert_eq "$disc" "$N" "disconnects seen by the server"
if ((srv_err != 0)); then
	srvout | sed -n 1,20p
	fail "the server reported errors"
fi
for d in sroce_a sroce_b; do
	assert_eq "$(cmc $d cm_tx_msgs rej)" 0 "REJs sent by $d"
	assert_eq "$(cmc $d cm_rx_msgs rej)" 0 "REJs received by $d"
done
assert_eq "$(cmc sroce_a cm_rx_msgs req)" 0 "REQs received by sroce_a (the client side)"
assert_eq "$(($(cmc sroce_b cm_rx_msgs req) - $(cmc sroce_b cm_rx_duplicates req)))" "$N" \
	"new REQs received by sroce_b"
((secs <= LIMIT)) || fail "$N connections took ${secs}s (limit ${LIMIT}s)"
pass
