#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1800
# Open MPI over UCX across the cluster, launched by mpirun as a user
# would, one rank per node: our own job (selftests/mpi/mpi_check.c:
# allreduce, alltoall and point-to-point between every pair of ranks, every
# result checked), then ucx_perftest between node 1 and each other node
# (tag-matched bandwidth and latency over the RDMA device). mpirun starts
# its daemons on the other nodes with rexec (selftests/progs/rexec.c) where
# it would use ssh, which the VMs have not. UCX uses the node's own device
# (UCX_NET_DEVICES, from each rexec server's environment) and only verbs
# transports: RC, UD (UCX_TLS), nothing over TCP or shared memory between
# nodes. UCX's UD transport drops every packet whose destination GID it
# cannot find by the receive completion's sl (the L3 type, as RoCE NICs
# and sroce give it); rdma_rxe gives sl 0, so where a node runs rdma_rxe
# that check is off (UCX_UD_VERBS_ETH_DGID_CHECK=n). Node 1 prints the
# job's figures and its wall time (SUMMARY lines); the others wait for it.
. /tests/cluster/cl.lib

# shellcheck disable=SC2015  # C is meant to run when either A or B fails
command -v mpirun >/dev/null && command -v mpi_check >/dev/null ||
	skip "no Open MPI in this image (mkinitramfs.sh --mpi)"
# every VM is "vm": Open MPI tells nodes apart by name
hostname "node$TH_NODE"
for ((k = 1; k <= TH_NODES; k++)); do
	grep -q " node$k\$" /etc/hosts 2>/dev/null || echo "$(cl_addr4 "$k") node$k" >>/etc/hosts
done
export UCX_NET_DEVICES=$TH_DEV:1 UCX_TLS=rc_verbs,ud_verbs,self
[[ $TH_DRIVERS != *rxe* ]] || export UCX_UD_VERBS_ETH_DGID_CHECK=n
export OMPI_MCA_plm_rsh_agent=rexec OMPI_MCA_oob_tcp_if_include=$TH_NETDEV
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bg_run rexecd rexec serve
wait_tcp_listen "" 18602 || fail "rexec did not listen"
cl_sync ready >/dev/null || fail "the nodes did not meet"

if ((TH_NODE == 1)); then
	hosts=$(for ((k = 1; k <= TH_NODES; k++)); do printf 'node%d,' "$k"; done)
	rc=0
	t0=${EPOCHREALTIME/./}
	out=$(timeout -s KILL 600 mpirun -H "${hosts%,}" -np "$TH_NODES" --map-by node \
		--mca pml ucx --mca btl ^openib,tcp,vader --mca osc ^ucx \
		-x UCX_TLS ${UCX_UD_VERBS_ETH_DGID_CHECK:+-x UCX_UD_VERBS_ETH_DGID_CHECK} mpi_check 1048576 3 2>&1) || rc=$?
	grep '^mpi_check:' <<<"$out" | sed 's/^/SUMMARY /'
	echo "SUMMARY mpirun ($TH_DRIVERS): exit $rc in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
	if ((rc)) || ! grep -q '^mpi_check: all checks passed$' <<<"$out"; then
		grep -v '^mpi_check:' <<<"$out" | grep -vE '^\s*$' | head -n 25 | sed 's/^/MPIOUT /' | sed 's/^/SUMMARY /'
		ucx_info -d 2>&1 | grep -E 'Transport|Device|error|ERROR' | head -n 12 | sed 's/^/SUMMARY ucx_info /'
		cl_fail "mpirun mpi_check: exit $rc"
	fi
	for ((k = 2; k <= TH_NODES; k++)); do
		for t in tag_bw tag_lat; do
			bg_run "perf$k" rexec "$(cl_addr4 "$k")" \
				"UCX_NET_DEVICES=$(cl_driver "$k" | sed 's/sroce/sroce0/; s/^rxe$/rxe0/'):1 UCX_TLS=$UCX_TLS ${UCX_UD_VERBS_ETH_DGID_CHECK:+UCX_UD_VERBS_ETH_DGID_CHECK=n} timeout 120 ucx_perftest -p 13337"
			sleep 2
			rc=0
			out=$(timeout -s KILL 150 ucx_perftest "$(cl_addr4 "$k")" -p 13337 -t "$t" \
				-s 65536 -n 2000 2>&1) || rc=$?
			bg_wait "perf$k" 30 || true
			res=$(awk '/^Final:/ { print }' <<<"$out")
			echo "SUMMARY ucx_perftest $t node 1 ($TH_DRIVER) -> $k ($(cl_driver "$k")): ${res:-none}"
			# shellcheck disable=SC2015  # C is meant to run when either A or B fails
			((rc == 0)) && [[ -n $res ]] || { tail -n 10 <<<"$out"; cl_fail "ucx_perftest $t to node $k: exit $rc"; }
		done
	done
fi
# node 1's job and perftests take up to 25 minutes; the others wait
cl_done 1700
