#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The linters, each at zero findings: shellcheck on every shell script,
# flake8 on the Python, and the kernel's checkpatch.pl (--strict) on the
# driver's and uapi's C. Prints every finding and a count per linter; exit
# status non-zero if there is any finding or a linter is missing.
#
#   selftests/style.sh [checkpatch|shellcheck|python|all]...
#
# checkpatch.pl comes from a kernel source tree: $CHECKPATCH, else the debug
# kernel's source that selftests/kernels.sh unpacks into its cache
# ($SROCE_CACHE, default /var/cache/sroce). shellcheck reads .shellcheckrc,
# flake8 .flake8 and checkpatch.pl .checkpatch.conf, all at the top.
# Installs nothing: selftests/deps.sh does (make style runs it first).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
CACHE=${SROCE_CACHE:-/var/cache/sroce}

# files: the tree's files, one a line: git's list, or in a copy of the
# tree without git (make check's background lane) every file but build/
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files
	else
		find . -path ./build -prune -o -path ./.git -prune -o -type f -print |
			sed 's|^\./||' | sort
	fi
}

# shell_files: the .sh and .lib files, and those with a shell #! line
shell_files() {
	local f l
	while IFS= read -r f; do
		if [[ $f == *.sh || $f == *.lib ]]; then
			echo "$f"
			continue
		fi
		[ -f "$f" ] || continue
		IFS= read -r l <"$f" || continue
		[[ $l =~ ^#!(/usr)?/bin/(env\ )?(ba)?sh([[:space:]]|$) ]] && echo "$f"
	done < <(files)
}

# need TOOL: whether TOOL is installed, or a line saying how to get it
need() {
	command -v "$1" >/dev/null && return 0
	echo "style: $1 is not installed (run selftests/deps.sh)"
	return 1
}

# count NAME N: the count line of one linter; fails if N > 0
count() {
	echo "style: $1: $2 finding(s)"
	[ "$2" = 0 ]
}

run_shellcheck() {
	local out n
	local -a fs=()
	need shellcheck || return 1
	mapfile -t fs < <(shell_files)
	out=$(shellcheck -f gcc "${fs[@]}" 2>&1)
	out=$(grep -v '^$' <<<"$out")
	[ -z "$out" ] || echo "$out"
	n=$(grep -c . <<<"$out")
	count shellcheck "$n"
}

run_python() {
	local out n
	local -a fs=()
	need flake8 || return 1
	mapfile -t fs < <(files | grep '\.py$')
	[ ${#fs[@]} = 0 ] && { count python 0; return; }
	out=$(flake8 "${fs[@]}" 2>&1)
	[ -z "$out" ] || echo "$out"
	n=$(grep -c . <<<"$out")
	count python "$n"
}

# checkpatch_pl: $CHECKPATCH, or the newest complete debug kernel source's
checkpatch_pl() {
	local d
	if [ -n "${CHECKPATCH:-}" ]; then
		[ -f "$CHECKPATCH" ] && { echo "$CHECKPATCH"; return 0; }
		echo "style: CHECKPATCH=$CHECKPATCH: no such file" >&2
		return 1
	fi
	# shellcheck disable=SC2012  # the cache's directory names have no special characters
	for d in $(ls -d "$CACHE"/k-debug-*/ 2>/dev/null | sort -rV); do
		[ -f "$d/ready" ] && [ -f "$d/src/scripts/checkpatch.pl" ] &&
			{ echo "${d}src/scripts/checkpatch.pl"; return 0; }
	done
	echo "style: no checkpatch.pl: set CHECKPATCH=/path/to/linux/scripts/checkpatch.pl," \
		"or have 'selftests/kernels.sh env debug' unpack (and build) the debug" \
		"kernel's source into $CACHE" >&2
	return 1
}

run_checkpatch() {
	local cp out n rc=0
	local -a cf=() tr=() ua=()
	cp=$(checkpatch_pl) || return 1
	need perl || return 1
	local f
	while IFS= read -r f; do
		case $f in
		drivers/sroce/compat_probed.h | *.mod.c) ;;	# generated
		drivers/sroce/trace.h) tr+=("$f") ;;
		uapi/*.h) ua+=("$f") ;;
		*) cf+=("$f") ;;
		esac
	done < <(files | grep -E '^(drivers|uapi)/.*\.[ch]$')
	local -a args=(--strict --no-tree --terse --no-summary --show-types -f)
	out=""
	if [ ${#cf[@]} -gt 0 ]; then
		out+=$(perl "$cp" "${args[@]}" "${cf[@]}" 2>&1)$'\n'
	fi
	# trace.h: TRACE_EVENT macros laid out as the kernel's own trace
	# headers are (an open line before each argument, arguments aligned
	# on the macro's, not the parenthesis)
	if [ ${#tr[@]} -gt 0 ]; then
		out+=$(perl "$cp" "${args[@]}" --ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
			"${tr[@]}" 2>&1)$'\n'
	fi
	# uapi: BIT() is not available to user space
	if [ ${#ua[@]} -gt 0 ]; then
		out+=$(perl "$cp" "${args[@]}" --ignore BIT_MACRO "${ua[@]}" 2>&1)$'\n'
	fi
	out=$(grep -v '^$' <<<"$out")
	[ -z "$out" ] || echo "$out"
	n=$(grep -cE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out")
	# anything else checkpatch.pl says (it could not run) is a failure too
	[ -z "$out" ] || ! grep -qvE '^[^:]+:[0-9]+: (ERROR|WARNING|CHECK):' <<<"$out" || rc=1
	count checkpatch "$n" && return $rc
}

what=("$@")
[ ${#what[@]} -gt 0 ] || what=(all)
rc=0
for w in "${what[@]}"; do
	case $w in
	shellcheck) run_shellcheck || rc=1 ;;
	python) run_python || rc=1 ;;
	checkpatch) run_checkpatch || rc=1 ;;
	all)
		run_checkpatch || rc=1
		run_shellcheck || rc=1
		run_python || rc=1
		;;
	*) echo "usage: selftests/style.sh [checkpatch|shellcheck|python|all]..." >&2; exit 2 ;;
	esac
done
exit $rc
