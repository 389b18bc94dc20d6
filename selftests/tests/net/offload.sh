#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12
# The offloads of the netdev beneath (ethtool -K on both ends of the veth):
# GRO, with UDP GRO forwarding and fraglist GRO; GSO, TSO and UDP
# segmentation; scatter-gather; transmit and receive checksumming. With
# each switched away from the veth's default, RC traffic by IPv4 and by
# IPv6 GID (rc_data integrity, every byte compared) passes, and neither
# device drops a packet, fails to send one or sees a bad ICRC; then all of
# them are switched on and off under traffic, which carries on to the end.
. /tests/lib.sh
. /tests/net/traffic.lib

command -v ethtool >/dev/null || skip "no ethtool in the image"
rdma_pair

# feat ON|OFF FEATURE...: on both ends, one ethtool -K each, and checked
# (a feature the veth does not offer in this kernel is left out, and said)
declare -A OFFERED=()
for ns in ha:va hb:vb; do
	OFFERED[$ns]=" $(ip netns exec "${ns%%:*}" ethtool -k "${ns#*:}" |
		sed -n 's/^\([a-z0-9-]*\): [a-z]*$/\1/p' | tr '\n' ' ')"
done
feat() {
	local v=$1 f ns dev out args shown
	shift
	for ns in ha:va hb:vb; do
		args=()
		for f in "$@"; do
			if [[ ${OFFERED[$ns]} == *" $f "* ]]; then
				args+=("$f" "$v")
			else
				log "$f: not a feature of this kernel's veth, left out"
			fi
		done
		((${#args[@]})) || continue
		dev=${ns#*:}
		ns=${ns%%:*}
		# it lists what else changed, and what could not
		out=$(ip netns exec "$ns" ethtool -K "$dev" "${args[@]}" 2>&1) ||
			{ echo "$out"; fail "ethtool -K $dev ${args[*]}"; }
		shown=$(ip netns exec "$ns" ethtool -k "$dev")
		for ((f = 0; f < ${#args[@]}; f += 2)); do
			assert_match "$(grep "^${args[f]}:" <<<"$shown")" \
				"^${args[f]}: $v" "$dev: ${args[f]} $v"
		done
	done
}

GRO=(generic-receive-offload rx-udp-gro-forwarding rx-gro-list)
SEG=(generic-segmentation-offload tcp-segmentation-offload tx-udp-segmentation)
SG=(scatter-gather)
TXCSUM=(tx-checksumming)
RXCSUM=(rx-checksumming)

# each away from the veth's default (GRO and its kind off, the rest on:
# what every other test runs on), the others at theirs
for group in GRO SEG SG TXCSUM RXCSUM; do
	declare -n fs=$group
	v=off
	[[ $group != GRO ]] || v=on
	feat $v "${fs[@]}"
	e0=$(lost)
	traffic "t4" 4
	traffic_ok t4 "$group $v, IPv4"
	traffic "t6" 6
	traffic_ok t6 "$group $v, IPv6"
	lost_none "$group $v" "$e0"
	if [[ $v == on ]]; then
		feat off "${fs[@]}"
	else
		feat on "${fs[@]}"
	fi
	unset -n fs
done

log "all switched under traffic"
hold t4
traffic t4 4 4 60
traffic_busy
# five rounds of switches, each begun and ended under traffic
for r in 1 2 3 4 5; do
	feat on "${GRO[@]}"
	feat off "${SEG[@]}" "${SG[@]}" "${TXCSUM[@]}" "${RXCSUM[@]}"
	feat off "${GRO[@]}"
	feat on "${SG[@]}" "${TXCSUM[@]}" "${SEG[@]}" "${RXCSUM[@]}"
	bg_alive t4 "round $r of switches"
done
release t4
traffic_ok t4 "switched under traffic"
pass
