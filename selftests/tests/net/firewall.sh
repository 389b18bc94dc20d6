#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 7.2
# (not debug: that kernel lacks what half of net/ puts on the path)
# A firewall (nftables) on the hosts, under RC traffic by IPv4 and IPv6 GID
# (rc_data integrity, every byte compared):
#   - a rule dropping RoCEv2 (UDP port 4791) on the sender's output for a
#     moment: the IP layer refuses our packets (send_err_ip counts them),
#     the QPs send them again on their ACK timeout and carry on;
#   - the same on the receiver's input: the QPs carry on;
#   - a rule that rewrites the DSCP of RoCEv2 packets: traffic passes (the
#     ICRC leaves the traffic class out), and the rule's counter saw it;
#   - a rule that rewrites their UDP source port: the receiver drops every
#     packet, as an ICRC error (the ICRC covers the port) or, where the
#     rewrite gave the UDP header a checksum, as a UDP checksum error
#     (nftables writes one into a zero checksum), and the QPs end with a
#     retry error;
#   - a rule that redirects them to another UDP port: the receiver's UDP
#     counts them as sent to no port (or as checksum errors, as above),
#     and the QPs end with a retry error.
# After each rule, new QPs work.
. /tests/lib.sh
. /tests/net/traffic.lib

command -v nft >/dev/null || skip "no nft in the image"
modprobe nf_tables 2>/dev/null || skip "no nf_tables in this kernel"
rdma_pair
pin_neighbours
# An empty chain stays on each hook from before the traffic on: the first
# hook of a kind and the last one gone flip a static key, whose code
# patching under traffic 7.2 under TCG has met with an int3 oops
# (Documentation/testing.md); the tests' rules come and go beside it.
for ns in ha hb; do
	ip netns exec "$ns" nft -f - <<-EOT || fail "nft base chains in $ns"
		table inet keep {
			chain i { type filter hook input priority 10; }
			chain o { type filter hook output priority 10; }
		}
	EOT
done

# rule NS HOOK STATEMENT...: the only rule of table inet t in NS, on HOOK
# (output or input), for UDP to port 4791, with a counter
rule() {
	local ns=$1 hook=$2
	shift 2
	ip netns exec "$ns" nft -f - <<-EOT || fail "nft rule in $ns: $*"
		table inet t {
			chain c { type filter hook $hook priority 0; udp dport 4791 counter $*; }
		}
	EOT
}
unrule() { ip netns exec "$1" nft delete table inet t || fail "nft delete table in $1"; }
# matched NS: packets the rule's counter saw
matched() {
	ip netns exec "$1" nft list table inet t | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}
# udp NS FAM FIELD: a UDP counter of NS (/proc/net/snmp, snmp6)
udp() {
	if [ "$2" = 4 ]; then
		ip netns exec "$1" awk -v f="$3" '$1 == "Udp:" {
			if (!n) { for (i = 2; i <= NF; i++) k[i] = $i; n = 1 }
			else for (i = 2; i <= NF; i++) if (k[i] == f) print $i }' /proc/net/snmp
	else
		ip netns exec "$1" awk -v f="Udp6$3" '$1 == f { print $2 }' /proc/net/snmp6
	fi
}
after() {
	traffic "after$1" "$1"
	traffic_ok "after$1" "new QPs, IPv$1, after the rule"
}

for fam in 4 6; do
	log "IPv$fam: drop on the sender's output for 0.3 s: counted"
	brief_drop "$fam" send_err_ip "IPv$fam output drop" "rule ha output drop" "unrule ha"

	log "IPv$fam: drop on the receiver's input for 0.3 s: ACK timeouts"
	brief_drop "$fam" completer_retry_err "IPv$fam input drop" "rule hb input drop" "unrule hb"

	log "IPv$fam: DSCP rewritten"
	i0=$(cnt sroce_b rcvd_icrc_err)
	if [ "$fam" = 4 ]; then rule ha output ip dscp set cs3; else rule ha output ip6 dscp set cs3; fi
	traffic dscp "$fam"
	traffic_ok dscp "IPv$fam DSCP rewritten"
	n=$(matched ha)
	((n > 100)) || fail "the DSCP rule saw $n packets"
	unrule ha
	assert_eq "$(cnt sroce_b rcvd_icrc_err)" "$i0" "no ICRC error for a rewritten DSCP"

	log "IPv$fam: UDP source port rewritten"
	c0=$(udp hb "$fam" InCsumErrors)
	rule ha output udp sport set 1234
	traffic sport "$fam"
	traffic_retry_err sport "IPv$fam source port rewritten"
	n=$(($(cnt sroce_b rcvd_icrc_err) - i0 + $(udp hb "$fam" InCsumErrors) - c0))
	log "rewritten source port: rcvd_icrc_err +$(($(cnt sroce_b rcvd_icrc_err) - i0)), UDP InCsumErrors +$(($(udp hb "$fam" InCsumErrors) - c0))"
	((n >= $(matched ha))) || fail "$(matched ha) rewritten, $n counted as ICRC or UDP checksum errors"
	unrule ha
	after "$fam"

	log "IPv$fam: redirected to UDP port 4792"
	p0=$(udp hb "$fam" NoPorts)
	c0=$(udp hb "$fam" InCsumErrors)
	rule ha output udp dport set 4792
	traffic port "$fam"
	traffic_retry_err port "IPv$fam redirected"
	p1=$(($(udp hb "$fam" NoPorts) - p0))
	c1=$(($(udp hb "$fam" InCsumErrors) - c0))
	log "redirected: UDP NoPorts +$p1, InCsumErrors +$c1"
	((p1 + c1 >= $(matched ha))) || fail "$(matched ha) redirected, UDP NoPorts +$p1, InCsumErrors +$c1"
	unrule ha
	after "$fam"
done
pass
