#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the sroce selftests. A test is /tests/GROUP/NAME.sh:
#
#	#!/bin/bash
#	# SPDX-License-Identifier: GPL-2.0
#	. /tests/lib.sh
#	sroce_load
#	two_hosts
#	link_add sa va ha
#	...
#	pass
#
# Exit status: 0 pass, 4 skip (use skip "why"), anything else fails.
# Sourcing this file turns on `set -eEuo pipefail`: any unchecked failing
# command fails the test (its line is printed). An exit status of 4 that does
# not come from skip() is turned into a failure.
#
# Cleanup is automatic (EXIT trap): background jobs are killed, at_exit
# commands run (last registered first), the rdma links made by link_add are
# deleted, the netns/veths made here are deleted, and sroce is unloaded if it
# was not loaded when the test started. Do not install your own EXIT trap; use
# at_exit "command string" instead.

[[ -n ${_SROCE_LIB_SH:-} ]] && return 0
_SROCE_LIB_SH=1

set -eEuo pipefail
shopt -s inherit_errexit

# ------------------------------------------------------------------ tools
# busybox has applets named ip/tc with no netns support: use the real ones
_lib_find_bin() {
	local p
	for p in "$@"; do
		if [[ -x $p && $(readlink -f "$p") != */busybox ]]; then
			echo "$p"
			return 0
		fi
	done
	return 1
}
IP=$(_lib_find_bin /usr/sbin/ip /usr/bin/ip /sbin/ip /bin/ip) || IP=ip
RDMA=$(_lib_find_bin /usr/bin/rdma /usr/sbin/rdma /bin/rdma /sbin/rdma) || RDMA=rdma
TC=$(_lib_find_bin /usr/sbin/tc /usr/bin/tc /sbin/tc /bin/tc) || TC=tc
export IP RDMA TC

ip() { "$IP" "$@"; }
rdma() { "$RDMA" "$@"; }
tc() { "$TC" "$@"; }

# ------------------------------------------------------------------ results
log() { printf '[%s] %s\n' "${EPOCHREALTIME%???}" "$*"; }
skip() { _LIB_SKIPPING=1; echo "SKIP: $*"; exit 4; }
fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { exit 0; }

_lib_on_err() {
	local rc=$?
	echo "FAIL: '${BASH_COMMAND}' exited with status $rc" \
		"(${BASH_SOURCE[1]:-?}:${BASH_LINENO[0]})" >&2
}
trap _lib_on_err ERR

# ------------------------------------------------------------------ asserts
# assert_eq ACTUAL EXPECTED "what"
assert_eq() {
	[[ $1 == "$2" ]] || fail "${3:-assert_eq}: got '$1', expected '$2'"
}

# assert_match "string" "regex" "what"
assert_match() {
	[[ $1 =~ $2 ]] || fail "${3:-assert_match}: '$1' does not match /$2/"
}

# assert_nomatch "string" "regex" "what"
assert_nomatch() {
	if [[ $1 =~ $2 ]]; then
		fail "${3:-assert_nomatch}: '$1' matches /$2/"
	fi
}

# assert_rc EXPECTED_RC "what" CMD [ARGS...]: output (stdout+stderr) in $OUT
OUT=""
assert_rc() {
	local exp=$1 what=$2 rc=0
	shift 2
	OUT=$("$@" 2>&1) || rc=$?
	((rc == exp)) || fail "$what: '$*' exited $rc, expected $exp; output:"$'\n'"$OUT"
}

# assert_fail_errno "ERRSTR" "what" CMD [ARGS...]: CMD must fail and print
# ERRSTR (e.g. "File exists"); output in $OUT
assert_fail_errno() {
	local err=$1 what=$2 rc=0
	shift 2
	OUT=$("$@" 2>&1) || rc=$?
	((rc != 0)) || fail "$what: '$*' succeeded, expected failure with '$err'; output:"$'\n'"$OUT"
	[[ $OUT == *"$err"* ]] ||
		fail "$what: '$*' failed (rc=$rc) without '$err'; output:"$'\n'"$OUT"
}

_lib_now_us() { echo "${EPOCHREALTIME/./}"; }

# wait_for TIMEOUT_S "description" CMD [ARGS...]: poll CMD every 0.2 s
wait_for() {
	local t=$1 desc=$2 end
	shift 2
	end=$(($(_lib_now_us) + t * 1000000))
	until "$@" >/dev/null 2>&1; do
		if (($(_lib_now_us) > end)); then
			local out rc=0
			out=$("$@" 2>&1) || rc=$?
			fail "timed out after ${t}s waiting for $desc ('$*' rc=$rc: $out)"
		fi
		sleep 0.2
	done
}

# ------------------------------------------------------------------ processes
declare -gA _BG_PID=()

# pids of all descendants of $1
_lib_descendants() {
	local -A kids=()
	local st line p ppid rest queue
	for st in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$st" || continue
		p=${line%% *}
		rest=${line##*) }
		ppid=${rest#* }
		ppid=${ppid%% *}
		kids[$ppid]+="$p "
	done
	queue=$1
	while [[ -n ${queue// /} ]]; do
		read -r p queue <<<"$queue" || true
		[[ -n ${kids[$p]:-} ]] || continue
		echo "${kids[$p]}"
		queue+=" ${kids[$p]}"
	done
}

_lib_kill_tree() {
	local pid=$1 d
	d=$(_lib_descendants "$pid" | tr '\n' ' ') || true
	# shellcheck disable=SC2086
	kill -KILL "$pid" $d 2>/dev/null || true
}

# bg_run NAME CMD [ARGS...]: start CMD in the background, output in $PWD/NAME.log
bg_run() {
	local name=$1
	shift
	(
		trap - ERR
		set +e
		"$@"
	) </dev/null >"$PWD/$name.log" 2>&1 &
	_BG_PID[$name]=$!
}

# bg_wait NAME TIMEOUT_S: wait for NAME, return its exit status (124 on timeout,
# after killing it). Use as `bg_wait srv 30` (fails the test on non-zero) or
# `rc=0; bg_wait srv 30 || rc=$?`.
bg_wait() {
	local name=$1 t=$2 pid end rc=0
	pid=${_BG_PID[$name]:?bg_wait: unknown job $name}
	end=$(($(_lib_now_us) + t * 1000000))
	while kill -0 "$pid" 2>/dev/null; do
		if (($(_lib_now_us) > end)); then
			echo "bg_wait: $name still running after ${t}s, killing it; its output:" >&2
			_lib_kill_tree "$pid"
			wait "$pid" 2>/dev/null || true
			unset "_BG_PID[$name]"
			bg_log "$name" >&2
			return 124
		fi
		sleep 0.1
	done
	wait "$pid" || rc=$?
	unset "_BG_PID[$name]"
	return "$rc"
}

# bg_kill NAME: kill NAME and its children
bg_kill() {
	local pid=${_BG_PID[$1]:-}
	[[ -n $pid ]] || return 0
	_lib_kill_tree "$pid"
	wait "$pid" 2>/dev/null || true
	unset "_BG_PID[$1]"
}

bg_log() { cat "$PWD/$1.log" 2>/dev/null || true; }

# Traffic that must outlast what a test does under it: rc_data integrity
# started with RC_DATA_HOLD=$(hold_file NAME) goes on past its OPS while
# NAME is held, so it cannot end early however fast it runs.
# hold NAME / release NAME / hold_file NAME
hold_file() { echo "$PWD/$1.hold"; }
hold() { : >"$(hold_file "$1")"; }
release() { rm -f "$(hold_file "$1")"; }

# bg_alive NAME WHAT: NAME still runs, else fail with its exit status and
# output (a held rc_data ends early only on an error)
bg_alive() {
	local rc=0
	kill -0 "${_BG_PID[$1]:?bg_alive: unknown job $1}" 2>/dev/null && return 0
	bg_wait "$1" 1 || rc=$?
	bg_log "$1" | grep -v "^ok "
	fail "$2: the traffic ended early (exit $rc)"
}

# _lib_bounded SECS CMD...: run CMD (output discarded) but stop waiting after
# SECS; a command stuck in the kernel (e.g. "ip link del" of a netdev whose
# refcount leaked) is left behind. Returns CMD's status, 124 if still running.
_lib_bounded() {
	local t=$1 pid end rc=0
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	end=$(($(_lib_now_us) + t * 1000000))
	while kill -0 "$pid" 2>/dev/null; do
		if (($(_lib_now_us) > end)); then
			echo "cleanup: '$*' still blocked after ${t}s" >&2
			return 124
		fi
		sleep 0.1
	done
	wait "$pid" || rc=$?
	return "$rc"
}

_AT_EXIT=()
# at_exit "command string": run (eval) at exit, before the automatic cleanup
at_exit() { _AT_EXIT+=("$*"); }

# ------------------------------------------------------------------ sroce module
SROCE_LINKS=()

sroce_loaded() { [[ -e /sys/module/sroce/initstate ]]; }

_SROCE_WAS_LOADED=0
if sroce_loaded; then _SROCE_WAS_LOADED=1; fi

sroce_load() {
	sroce_loaded && return 0
	local out
	out=$(modprobe sroce 2>&1) || fail "modprobe sroce failed: $out"
}

# link_add NAME NETDEV [NETNS]
link_add() {
	local name=$1 dev=$2 ns=${3:-}
	SROCE_LINKS+=("$name")
	if [[ -n $ns ]]; then
		"$IP" netns exec "$ns" "$RDMA" link add "$name" type sroce netdev "$dev"
	else
		"$RDMA" link add "$name" type sroce netdev "$dev"
	fi
}

# one_device: sroce0 on a veth end with 192.0.2.1, port ACTIVE; its IPv4
# GID index in G (the loopback tests: both QPs on this one device)
one_device() {
	veth_pair v0 v1
	ip addr add 192.0.2.1/24 dev v0
	link_add sroce0 v0
	wait_for 10 "port active" port_state_is sroce0 ACTIVE
	wait_for 10 "IPv4 GID" gid_index sroce0 192.0.2.1
	# shellcheck disable=SC2034  # G is read by the tests that source this file
	G=$(gid_index sroce0 192.0.2.1)
}

# link_del NAME
link_del() {
	local n keep=()
	"$RDMA" link delete "$1"
	for n in "${SROCE_LINKS[@]}"; do
		[[ $n == "$1" ]] || keep+=("$n")
	done
	SROCE_LINKS=("${keep[@]}")
}

_lib_del_links() {
	local n rc=0
	for n in "${SROCE_LINKS[@]}"; do
		if [[ -e /sys/class/infiniband/$n ]]; then
			_lib_bounded 20 "$RDMA" link delete "$n" || {
				echo "cleanup: rdma link delete $n failed" >&2
				rc=1
			}
		fi
	done
	SROCE_LINKS=()
	return "$rc"
}

# sroce_unload: delete our links, then rmmod sroce (retried for 30 s)
sroce_unload() {
	local end
	_lib_del_links || true
	end=$((SECONDS + 30))
	while sroce_loaded; do
		if ! _lib_bounded 30 rmmod sroce; then
			((SECONDS <= end)) || {
				echo "sroce_unload: rmmod sroce still failing after 30s:" \
					"$(rmmod sroce 2>&1)" >&2
				return 1
			}
			sleep 0.2
		fi
	done
}

# port_state_is DEV STATE [PORT]: port PORT (default 1) of DEV is in STATE
# (DOWN, INIT, ARMED, ACTIVE, ...), as shown in sysfs
port_state_is() {
	local st
	read -r st 2>/dev/null <"/sys/class/infiniband/$1/ports/${3:-1}/state" || return 1
	[[ $st == *": $2" ]]
}

# udp_port_bound [NETNS] [PORT]: print "yes" if a UDP socket (kernel sockets
# included) is bound to PORT (default 4791, RoCEv2) in NETNS (default: the
# initial namespace), else "no"
udp_port_bound() {
	local ns=${1:-} port=${2:-4791} hex tables
	printf -v hex ':%04X' "$port"
	if [[ -n $ns ]]; then
		tables=$("$IP" netns exec "$ns" cat /proc/net/udp /proc/net/udp6 2>/dev/null) || true
	else
		tables=$(cat /proc/1/net/udp /proc/1/net/udp6 2>/dev/null) || true
	fi
	awk -v p="$hex" '$1 ~ /^[0-9]+:$/ && substr($2, length($2) - 4) == p { f = 1 }
		END { print (f ? "yes" : "no") }' <<<"$tables"
}

# ------------------------------------------------------------------ topology
_TOPO_NETNS=()
_TOPO_LINKS=()

# in_ns NS CMD...: CMD in network namespace NS; inside the userland
# (userland_mount) when SROCE_USERLAND is 1: tests/userland/tools.sh runs
# tool tests so, with trixie's or sid's binaries
in_ns() {
	local ns=$1
	shift
	if [[ ${SROCE_USERLAND:-0} == 1 ]]; then
		"$IP" netns exec "$ns" "$UL_EXEC" "$@"
	else
		"$IP" netns exec "$ns" "$@"
	fi
}
in_a() { in_ns ha "$@"; }
in_b() { in_ns hb "$@"; }

# ------------------------------------------------------------------ userland
# A newer distribution's RDMA user space, which vm.sh --userland hands the
# guest read-only over 9p (selftests/kernels.sh userland: trixie's on 6.12,
# sid's on 7.2), at /userland with the guest's /dev and /proc, tmpfs on
# /tmp and /run, and /tests at /sroce-tests; UL_NAME is its codename.
# cache=loose: the root does not change under the guest, which may keep
# what it read (sid's suite on 7.2 with a Python started for each module:
# 559 s; 1,843 s without, each start reading hundreds of files from the
# host again).
UL=/userland
UL_EXEC=/tests/userland/ul-exec
userland_mount() {
	if ! grep -qs " $UL " /proc/mounts; then
		# vm.sh --userland says so on the command line; a VM without
		# one (make check's lead kernel runs every test) skips
		[[ " $(cat /proc/cmdline) " == *" sroce_harness.userland="* ]] ||
			skip "no userland in this VM (check.sh gives one to 6.12 and 7.2)"
		modprobe -a 9pnet_virtio 9p 2>/dev/null || true
		mkdir -p "$UL"
		mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=524288,cache=loose userland "$UL" ||
			fail "no userland in this VM (vm.sh --userland; check.sh: 6.12 and 7.2)"
		mount -t proc proc "$UL"/proc
		mount --rbind /dev "$UL"/dev
		mount -t tmpfs tmpfs "$UL"/tmp
		mount -t tmpfs tmpfs "$UL"/run
		mount --bind /tests "$UL"/sroce-tests
	fi
	# shellcheck disable=SC1091  # the userland's, read in a subshell
	UL_NAME=$(. "$UL"/etc/os-release && echo "$VERSION_CODENAME")
	export UL_NAME
}
# in_userland CMD...: CMD inside the userland, in the caller's netns
in_userland() { "$UL_EXEC" "$@"; }

_lib_ns_nodad() {  # no DAD in netns $1 (set before its links come up)
	"$IP" netns exec "$1" sysctl -q -w net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 >/dev/null
}

_lib_link_ready() {  # NETNS DEV: carrier up and no tentative IPv6 address
	local l
	l=$("$IP" -n "$1" -o link show dev "$2") || return 1
	[[ $l == *LOWER_UP* ]] || return 1
	[[ -z $("$IP" -n "$1" -6 -o addr show dev "$2" tentative) ]]
}

# two_hosts: netns ha (va: 192.0.2.1/24, 2001:db8::1/64) and hb (vb: .2, ::2)
# joined by a veth pair
two_hosts() {
	local ns
	for ns in ha hb; do
		_TOPO_NETNS+=("$ns")
		"$IP" netns add "$ns"
		"$IP" -n "$ns" link set lo up
		_lib_ns_nodad "$ns"
	done
	"$IP" link add va netns ha type veth peer name vb netns hb
	"$IP" -n ha addr add 192.0.2.1/24 dev va
	"$IP" -n ha addr add 2001:db8::1/64 dev va nodad
	"$IP" -n hb addr add 192.0.2.2/24 dev vb
	"$IP" -n hb addr add 2001:db8::2/64 dev vb nodad
	"$IP" -n ha link set va up
	"$IP" -n hb link set vb up
	wait_for 10 "va up in ha" _lib_link_ready ha va
	wait_for 10 "vb up in hb" _lib_link_ready hb vb
}

# iperf3_mbs <JSON: the bytes per second the receiver counted over a
# whole "iperf3 -J" run (all streams), in MB/s of 2^20 bytes as perftest
# counts them; nothing if there is no such figure.
iperf3_mbs() {
	awk '/"sum_received"/ { f = 1 }
	f && /"bits_per_second"/ {
		v = $2; gsub(/[^0-9.e+]/, "", v)
		printf "%.1f\n", v / 8 / 1048576; exit
	}'
}

# veth_in_order: in the two_hosts topology, each end's packets of one flow
# reach the other end in the order sent, as on a wire (a NIC's RSS keeps
# a flow on one receive queue), even with a qdisc on the veth. A veth
# delivers a packet into the input backlog of the CPU that hands it to
# the veth. sroce keeps a QP's own sends in order across CPUs (xmit.c:
# sroce_tx_order_ok()), but a qdisc (netem, say) hands packets to the veth
# from whichever CPU dequeues them, and when one vCPU stalls, the other
# CPU's packets pass the stalled backlog's: sequence NAKs and duplicate
# requests on a link that lost nothing. A test with a qdisc that asserts
# nothing is sent twice needs a link that does not reorder. RPS on every
# CPU steers each flow (a QP's own UDP source port) to one CPU's backlog,
# whichever CPU sent it.
veth_in_order() {
	local ns dev mask
	mask=$(printf '%x' $(((1 << $(nproc)) - 1)))
	for ns in ha:va hb:vb; do
		dev=${ns#*:}
		"$IP" netns exec "${ns%%:*}" bash -c \
			"echo $mask >/sys/class/net/$dev/queues/rx-0/rps_cpus" ||
			fail "rps_cpus on $dev"
	done
}

# pin_neighbours: in the two_hosts topology, each end's neighbour entries
# for the other (IPv4 and IPv6), permanent. For tests that lose or refuse
# packets with a qdisc (netem loss, a drop filter): ARP and ND go too.
# An entry that goes stale during the test then fails its probes, and the
# neighbour layer holds our next packets in its own queue, reports them
# sent, drops the oldest once the queue is full and sends the rest when
# the qdisc goes; and modify_qp to RTR resolves the peer's MAC address with
# a 1 s timeout (rdma_addr_find_l2_eth_by_grh()), which one lost ARP packet
# exceeds (rc/lossy: "connect QP pair 0" failed once at 2 % loss). Outside
# sroce; with fixed entries every packet meets the test's qdisc.
pin_neighbours() {
	local ma mb
	ma=$("$IP" -n ha -br link show dev va | awk '{ print $3 }')
	mb=$("$IP" -n hb -br link show dev vb | awk '{ print $3 }')
	[[ $ma =~ ^[0-9a-f:]{17}$ && $mb =~ ^[0-9a-f:]{17}$ ]] ||
		fail "MAC addresses of va, vb: '$ma' '$mb'"
	"$IP" -n ha neigh replace 192.0.2.2 lladdr "$mb" dev va nud permanent
	"$IP" -n ha neigh replace 2001:db8::2 lladdr "$mb" dev va nud permanent
	"$IP" -n hb neigh replace 192.0.2.1 lladdr "$ma" dev vb nud permanent
	"$IP" -n hb neigh replace 2001:db8::1 lladdr "$ma" dev vb nud permanent
}

# veth_pair A B: a veth pair in the initial netns, both up, no addresses
veth_pair() {
	_TOPO_LINKS+=("$1")
	"$IP" link add "$1" type veth peer name "$2"
	"$IP" link set "$1" up
	"$IP" link set "$2" up
}

# topo_cleanup: delete what two_hosts/veth_pair made (missing ones are fine);
# fails if a deletion blocks for 20 s (netdev reference leak)
topo_cleanup() {
	local x r rc=0
	for x in "${_TOPO_NETNS[@]}"; do
		if [[ -e /run/netns/$x ]]; then
			_lib_bounded 20 "$IP" netns delete "$x" || rc=1
		fi
	done
	for x in "${_TOPO_LINKS[@]}"; do
		if [[ -e /sys/class/net/$x ]]; then
			r=0
			_lib_bounded 20 "$IP" link delete "$x" || r=$?
			if ((r == 124)) || { ((r != 0)) && [[ -e /sys/class/net/$x ]]; }; then
				rc=1
			fi
		fi
	done
	_TOPO_NETNS=()
	_TOPO_LINKS=()
	return "$rc"
}

# ------------------------------------------------------------------ exit
_lib_exit() {
	local rc=$? i name
	trap - ERR
	set +eu
	if ((rc == 4)) && [[ -z ${_LIB_SKIPPING:-} ]]; then
		echo "FAIL: exit status 4 not from skip(); counted as a failure" >&2
		rc=1
	fi
	for name in "${!_BG_PID[@]}"; do
		bg_kill "$name"
	done
	for ((i = ${#_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${_AT_EXIT[i]}" || echo "cleanup: '${_AT_EXIT[i]}' failed" >&2
	done
	local bad=""
	if sroce_loaded; then
		_lib_del_links || bad="deleting the rdma links failed"
	fi
	topo_cleanup || bad="${bad:+$bad; }deleting the netns/veths failed"
	if ((!_SROCE_WAS_LOADED)) && sroce_loaded; then
		sroce_unload || bad="${bad:+$bad; }could not unload sroce"
	fi
	if [[ -n $bad ]]; then
		echo "FAIL: cleanup: $bad" >&2
		((rc == 0 || rc == 4)) && rc=1
	fi
	exit "$rc"
}
trap _lib_exit EXIT

# ------------------------------------------------------------------ RDMA helpers
# _lib_ip6_exploded ADDR: 2001:db8::1 -> 2001:0db8:0000:...:0001
_lib_ip6_exploded() {
	local a=$1 head tail out="" g n i x
	local -a hg=() tg=()
	if [[ $a == *::* ]]; then
		head=${a%%::*} tail=${a#*::}
	else
		head=$a tail=""
	fi
	IFS=: read -r -a hg <<<"$head"
	IFS=: read -r -a tg <<<"$tail"
	n=$((8 - ${#hg[@]} - ${#tg[@]}))
	# printf -v: no subshell per group (each one costs on the debug kernel)
	for g in "${hg[@]}"; do printf -v x '%04x:' "0x$g"; out+=$x; done
	for ((i = 0; i < n; i++)); do out+="0000:"; done
	for g in "${tg[@]}"; do printf -v x '%04x:' "0x$g"; out+=$x; done
	echo "${out%:}"
}

# gid_index DEV ADDR: the GID table index of ADDR (an IPv4 or IPv6 address)
gid_index() {
	local dev=$1 addr=$2 want f g i
	if [[ $addr == *.* ]]; then
		local IFS=.
		# shellcheck disable=SC2086
		set -- $addr
		printf -v want '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4"
	else
		want=$(_lib_ip6_exploded "$addr")
	fi
	# In index order, read by the shell itself: a glob sorts 2 after 199,
	# and a cat per entry took minutes on the debug kernel
	f=/sys/class/infiniband/$dev/ports/1/gids
	for ((i = 0; i < 4096; i++)); do
		[[ -e $f/$i ]] || return 1
		read -r g 2>/dev/null <"$f/$i" || continue
		if [[ $g == "$want" ]]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# rdma_pair: two_hosts with sroce_a on va (ha) and sroce_b on vb (hb),
# ports active and the IPv4 and IPv6 GIDs present
rdma_pair() {
	two_hosts
	link_add sroce_a va ha
	link_add sroce_b vb hb
	wait_for 10 "sroce_a active" port_state_is sroce_a ACTIVE
	wait_for 10 "sroce_b active" port_state_is sroce_b ACTIVE
	wait_for 10 "IPv4 GIDs" eval 'gid_index sroce_a 192.0.2.1 && gid_index sroce_b 192.0.2.2'
	wait_for 10 "IPv6 GIDs" eval 'gid_index sroce_a 2001:db8::1 && gid_index sroce_b 2001:db8::2'
}

# user_objects DEV: how many QPs, CQs, PDs, MRs and contexts of DEV belong to
# processes (kernel users, shown as "comm [name]", such as the MAD layer's
# GSI QP, do not count)
user_objects() {
	local n=0 kind
	for kind in qp cq pd mr; do
		if [[ $kind == qp ]]; then
			set -- "$1" link "$1/1"
		else
			set -- "$1" dev "$1"
		fi
		n=$((n + $("$RDMA" resource show $kind "$2" "$3" 2>/dev/null |
			grep -c -v 'comm \[' || true)))
	done
	echo "$n"
}

# wait_tcp_listen NETNS|"" PORT: until a TCP socket listens on PORT there
# (the out-of-band exchange of perftest and the ibv_*_pingpong tools)
wait_tcp_listen() {
	local hex
	printf -v hex '%04X' "$2"
	# shellcheck disable=SC2317  # called by wait_for below
	_lib_tcp_listening() {
		local t
		if [[ -n $1 ]]; then
			t=$("$IP" netns exec "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
		else
			t=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
		fi
		awk -v p=":$2" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
			END { exit !f }' <<<"$t"
	}
	wait_for 30 "a TCP listener on port $2 ${1:+in $1}" _lib_tcp_listening "$1" "$hex"
}

# rping_exit_race OUTPUT PINGS: whether an rping that exited 255 hit its
# own exit race, and only that: Debian's rping (rdma-core 44) destroys the
# CM event channel in main() while its cm_thread may still be reading it,
# and that thread then exits the process with 255 and "rdma_get_cm_event:
# Bad file descriptor" (later rdma-core stops the thread first, through an
# eventfd). OUTPUT must show PINGS verified pings and a clean disconnect
# (a server's wait for the next ping ended by it: state 10 is
# DISCONNECTED), and nothing else. Outside sroce; see cm/connect300.
rping_exit_race() {
	local n
	n=$(grep -cE '^(server )?ping data: ' <<<"$1" || true)
	((n >= $2)) || return 1
	[[ $(grep -vE -e '^(server )?ping data: ' -e '^(client|server) DISCONNECT EVENT...$' \
		-e '^wait for RDMA_READ_ADV state 10$' <<<"$1") == \
		'rdma_get_cm_event: Bad file descriptor' ]]
}

# rping_verified NS_SERVER NS_CLIENT DEV_SERVER ADDR WHAT: rping from
# NS_CLIENT to ADDR, served in NS_SERVER on DEV_SERVER: both ends exit 0
# (or with rping's own exit race, exactly, which is said) and 20 pings
# are verified (-V), else fail, naming WHAT
rping_verified() {
	local rc=0 src=0 out n
	bg_run rping_srv in_ns "$1" timeout 120 rping -s -a "$4" -V -v -C 20 -S 100
	wait_cm_listen "$3"
	out=$(in_ns "$2" timeout 120 rping -c -a "$4" -V -v -C 20 -S 100 2>&1) || rc=$?
	bg_wait rping_srv 60 || src=$?
	if [ $src = 255 ] && rping_exit_race "$(bg_log rping_srv)" 20; then
		log "rping server: its own exit race after 20 verified pings, ignored"
		src=0
	fi
	if [ $rc = 255 ] && rping_exit_race "$out" 20; then
		log "rping client: its own exit race after 20 verified pings, ignored"
		rc=0
	fi
	# shellcheck disable=SC2015  # C is meant to run when either A or B fails
	[ $rc = 0 ] && [ $src = 0 ] ||
		{ echo "$out"; bg_log rping_srv; fail "$5: rping $4: exit $rc, server $src"; }
	n=$(grep -c "ping data" <<<"$out" || true)
	[ "$n" -ge 20 ] || { echo "$out"; fail "$5: rping $4: $n pings verified"; }
}

# perftest_cm_race: stdin is a perftest -R client's output showing its own
# race, and nothing sroce did: its data connection rejected by the IB CM
# before the server listened for it (traced in cm/perftest_cm.sh)
perftest_cm_race() {
	grep -qx 'Event: RDMA_CM_EVENT_REJECTED; error: 8\.'
}

# wait_cm_listen [DEV]: until an RDMA CM ID listens (on DEV, if given): rping,
# rdmacm-utils, perftest -R
wait_cm_listen() {
	local re="state LISTEN"
	# shellcheck disable=SC2034  # re is read by the eval'd string below
	[[ -n ${1:-} ]] && re="^link $1/.* state LISTEN"
	wait_for 30 "an RDMA CM listener${1:+ on $1}" eval \
		'"$RDMA" resource show cm_id 2>/dev/null | grep -qE "$re"'
	# The core shows a listener as LISTEN a moment before the IB CM has it.
	sleep 0.3
}
