#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# umap-priv.sh VMLINUZ IB_CORE_KO: does the kernel's struct rdma_umap_priv
# (private to ib_core) have the layout of sroce's copy in
# drivers/sroce/queue.h? Read from the BTF of ib_core.ko (split BTF, so the
# vmlinux BTF is its base: extracted from VMLINUZ as scripts/extract-vmlinux
# does).
# Exit 0: same layout; 1: different; 3: the kernel has no BTF to read.
set -eu

vmlinuz=$1 ko=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# try_decompress MAGIC TOOL: the vmlinux compressed at each offset of MAGIC
try_decompress() {
	local off
	# shellcheck disable=SC2013,SC2059  # byte offsets, one a line; $1 is a printf escape sequence to expand
	for off in $(LC_ALL=C grep -aboF "$(printf "$1")" "$vmlinuz" | cut -d: -f1); do
		tail -c +$((off + 1)) "$vmlinuz" | $2 >"$tmp/vmlinux" 2>/dev/null || true
		if [ "$(head -c 4 "$tmp/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			return 0
		fi
	done
	return 1
}

case $ko in
*.xz) xz -dc "$ko" >"$tmp/ib_core.ko" ;;
*.zst) zstd -qdc "$ko" >"$tmp/ib_core.ko" ;;
*) cp "$ko" "$tmp/ib_core.ko" ;;
esac
try_decompress '\3757zXZ' 'xz -dc' ||
	try_decompress '\050\265\057\375' 'zstd -qdc' ||
	try_decompress '\037\213\010' 'gunzip' ||
	{ echo "cannot extract vmlinux from $vmlinuz"; exit 1; }
if ! readelf -S "$tmp/vmlinux" | grep -q '\.BTF' ||
   ! readelf -S "$tmp/ib_core.ko" | grep -q '\.BTF'; then
	echo "no BTF in $vmlinuz or $ko"
	exit 3
fi

got=$(pahole --btf_base "$tmp/vmlinux" -C rdma_umap_priv "$tmp/ib_core.ko" 2>/dev/null |
	grep -E '^\s+struct .*/\*|size:' | sed -E 's/\s+/ /g')
echo "$got"
want=' struct vm_area_struct * vma; /* 0 8 */
 struct list_head list; /* 8 16 */
 struct rdma_user_mmap_entry * entry; /* 24 8 */
 /* size: 32, cachelines: 1, members: 3 */'
if [ "$got" != "$want" ]; then
	echo "struct rdma_umap_priv differs from sroce's copy; expected:"
	echo "$want"
	exit 1
fi
