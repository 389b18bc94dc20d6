#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz the driver's packet checks (drivers/sroce/parse.c) in user space:
# build the libFuzzer harness fuzz_parse.c with ASan and UBSan, generate a
# seed corpus with roce_inject, and run. Any crash, sanitizer report or
# broken invariant fails (exit status non-zero, the input kept in
# build/fuzz/).
#
#   selftests/fuzz/run.sh [--runs N] [--seed S] [--keep]
#
# --keep grows the corpus in build/fuzz/corpus across runs (make fuzz);
# without it each run starts from the seeds alone, which with a fixed
# --seed makes the run repeatable (make check).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/fuzz
runs=1000000
seed=0
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
	esac
done
command -v clang >/dev/null || { echo "fuzz: clang is missing (make deps)" >&2; exit 1; }
mkdir -p "$out/seeds" "$out/corpus"
cd "$top"

clang -g -O1 -Wall -Wextra -Werror \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I selftests/fuzz/shim -I drivers/sroce -o "$out/fuzz_parse" \
	selftests/fuzz/fuzz_parse.c drivers/sroce/parse.c drivers/sroce/wire.c
gcc -Wall -Wextra -Werror -O2 -o "$out/roce_inject" selftests/progs/roce_inject.c

# Seeds: one well-formed packet per header layout, IPv4 and IPv6, and a few
# of the malformed kinds the wire tests send.
seeds() {
	local reth atm aeth deth
	reth=00007f0000001000000012340000002c
	atm=00007f000000100000001234000000000000000100000000000000ff
	aeth=1f0003e8
	deth=800100000000000a
	echo "--op 0x04 --payload-len 13"
	echo "--op 0x00 --payload-len 256"
	echo "--op 0x01 --payload-len 256"
	echo "--op 0x03 --ext 0badcafe --payload-len 7"
	echo "--op 0x0a --ext $reth --payload-len 44"
	echo "--op 0x0b --ext ${reth}0badcafe --payload-len 1"
	echo "--op 0x0c --ext $reth"
	echo "--op 0x10 --ext $aeth --payload-len 44"
	echo "--op 0x0e --payload-len 1024"
	echo "--op 0x11 --ext $aeth"
	echo "--op 0x12 --ext ${aeth}0000000000000005"
	echo "--op 0x13 --ext $atm"
	echo "--op 0x14 --ext $atm"
	echo "--op 0x17 --ext 00001234 --payload-len 3"
	echo "--op 0x1c --ext 00000011$reth"
	echo "--op 0x24 --payload-len 9 --ackreq"
	echo "--op 0x2a --ext $reth --payload-len 44"
	echo "--op 0x64 --ext $deth --payload-len 20"
	echo "--op 0x65 --ext ${deth}0badcafe"
	echo "--op 0x04 --payload abcd --pad 3 --pad-bytes 0"
	echo "--op 0x0a --ext $reth --payload-len 44 --tver 1"
	echo "--op 0x0a --ext ${reth:0:16}"
	echo "--op 0x13 --ext ${atm:0:40}"
	echo "--op 0x04 --payload-len 8 --bad-icrc"
	echo "--op 0x04 --payload-len 8 --trailer 00000000"
	echo "--op 0x04 --payload-len 8 --udp-len 20"
}
i=0
while read -r args; do
	for fam in 4 6; do
		if [ $fam = 4 ]; then a="--src 192.0.2.1 --dst 192.0.2.2"; else a="--src 2001:db8::1 --dst 2001:db8::2"; fi
		# shellcheck disable=SC2086
		"$out/roce_inject" $a --qpn 17 --psn 1000 $args --seed "$out/seeds/$i-v$fam"
	done
	i=$((i + 1))
done < <(seeds)
for n in 4 20 40; do
	"$out/roce_inject" --src 192.0.2.1 --dst 192.0.2.2 --qpn 17 --psn 1 --op 0x04 \
		--payload-len 8 --ip-opts "$(printf '01%.0s' $(seq "$n"))" --seed "$out/seeds/opts$n"
done

if [ $keep = 1 ]; then
	corpus=$out/corpus
else
	corpus=$(mktemp -d)
	trap 'rm -rf "$corpus"' EXIT
fi
cd "$out"
./fuzz_parse -seed="$seed" -runs="$runs" -max_len=4096 -print_final_stats=1 \
	"$corpus" "$out/seeds"
