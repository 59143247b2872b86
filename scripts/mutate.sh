#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make mutate: how many small faults do the tests catch?
#   1. builds everything (make all) against the test kernel;
#   2. for each line of scripts/mutations (the mutants: a file, a string
#      that occurs once in it, its replacement), builds the mutant in a
#      copy of the tree: Kbuild, kmod/ and uapi/ for a kmod/ file (etw.ko
#      and etw_test.ko), the Makefile, userlib/ and uapi/ for a userlib/
#      one (libetw.so);
#   3. boots the test VM and runs scripts/mutate-guest.sh: first the
#      unmutated build ("base", which must pass every suite: a failure
#      there is a broken or flaky test, not a kill), then each mutant with
#      the suites that cover its file (SUITES below), stopping at the first
#      that fails; a VM that stops early (a kernel report, a hang) is
#      booted again for the mutants left;
#   4. prints each mutant as killed (and by what) or SURVIVED, and the
#      kill rate.
# Passes when at least 90% are killed and every survivor is one the table
# marks "equivalent" (Documentation/testing.rst says why for each).
#   MUTANTS="N M ..." runs only those lines of the table (1-based, as
#   printed); MUTATE_TEST_TIMEOUT (default 300) limits one kselftest run.
# Logs in build/mutate/.
#
# scripts/mutate.sh --check (make mutate-check, part of make check) builds
# and boots nothing: it checks that every line of the table still applies
# (its ORIGINAL occurs exactly once in FILE, the mutant differs, SUITES
# covers FILE), so the table cannot fall behind the code unnoticed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/mutate
table=$top/scripts/mutations

# The suites that cover each file, cheapest and most telling first.
declare -A SUITES=(
	[kmod/etw_filter.c]="kunit routing_test group_test libetw_provider_test libetw_classic_test session_test"
	[kmod/etw_filter.h]="kunit routing_test group_test libetw_provider_test libetw_classic_test session_test notify_test"
	[kmod/etw_write.c]="kunit dev_test write_test routing_test libetw_provider_test session_test limits_test stress_test"
	[kmod/etw_buffer.c]="kunit session_test routing_test libetw_consumer_test limits_test write_test stress_test etwctl_test"
	[kmod/etw_consumer.c]="kunit session_test libetw_consumer_test limits_test write_test stress_test etwctl_test"
	[kmod/etw_route.c]="kunit routing_test group_test notify_test notify_queue_test security_test libetw_provider_test libetw_classic_test limits_test"
	[kmod/etw_enable.c]="kunit routing_test group_test notify_test notify_queue_test security_test libetw_provider_test libetw_classic_test limits_test"
	[kmod/etw_klogger.c]="klogger_test"
	[kmod/etw_session.c]="klogger_test"
	[userlib/etw_provider.c]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
	[userlib/etw_provider.h]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
	[userlib/etw_write.c]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
)

# mutant N: FILE, ORIGINAL, MUTANT, EQUIVALENT (the table's line N).
mapfile -t lines < <(grep -v '^#' "$table" | grep -v '^$')
[ ${#lines[@]} -gt 0 ] || { echo "mutate: $table lists no mutant" >&2; exit 1; }
field() { cut -f"$2" <<< "${lines[$1 - 1]}"; }

# occurs FILE STRING: how many times STRING occurs in FILE.
occurs() {
	python3 -c 'import sys; print(open(sys.argv[1]).read().count(sys.argv[2]))' "$1" "$2"
}

# apply FILE ORIGINAL MUTANT: replace the one occurrence, or fail.
apply() {
	local n
	n=$(occurs "$1" "$2")
	[ "$n" = 1 ] || { echo "mutate: $1: \"$2\" occurs $n times" >&2; return 1; }
	python3 -c 'import sys
path, old, new = sys.argv[1:]
src = open(path).read()
open(path, "w").write(src.replace(old, new))' "$@"
}

# check N: line N of the table applies to the source as it is (TAP).
check() {
	local file orig mutant why=
	file=$(field "$1" 1) orig=$(field "$1" 2) mutant=$(field "$1" 3)
	if [ ! -f "$file" ]; then
		why="$file does not exist"
	elif [ -z "${SUITES[$file]:-}" ]; then
		why="no suites for $file"
	elif [ -z "$orig" ] || [ "$orig" = "$mutant" ]; then
		why="the mutant is the original"
	elif [ "$(occurs "$file" "$orig")" != 1 ]; then
		why="the original occurs $(occurs "$file" "$orig") times"
	fi
	if [ -z "$why" ]; then
		echo "ok $1 mutant $1 ($file)"
	else
		echo "not ok $1 mutant $1 ($file): $why"
		return 1
	fi
}

if [ "${1:-}" = --check ]; then
	echo "TAP version 13"
	echo "1..${#lines[@]}"
	failed=0
	for n in $(seq 1 ${#lines[@]}); do
		check "$n" || failed=$((failed + 1))
	done
	echo "# Totals: pass:$((${#lines[@]} - failed)) fail:$failed xfail:0 xpass:0 skip:0 error:0"
	[ "$failed" -eq 0 ]
	exit
fi

rm -rf "$out"
mkdir -p "$out/stage" "$out/vm"

kdir=$(scripts/build-kernel.sh) || exit 1
export KDIR_TEST=$kdir
echo "== build" >&2
if ! make -s -j2 all KDIR="$kdir" > "$out/build.out" 2>&1; then
	cat "$out/build.out" >&2
	exit 1
fi

ids=${MUTANTS:-$(seq 1 ${#lines[@]})}

# The base: the unmutated module and library, every suite of the table.
mkdir -p "$out/stage/base"
cp kmod/etw.ko kmod/etw_test.ko userlib/libetw.so "$out/stage/base/"
for f in "${!SUITES[@]}"; do
	echo "${SUITES[$f]}"
done | tr ' ' '\n' | awk '!seen[$0]++' | tr '\n' ' ' > "$out/stage/base/suites"

# One copy of each tree, built unmutated once: for each mutant only the
# mutated file recompiles, and again when it is put back.
echo "== build ${#lines[@]} mutants" >&2
ktree=$out/tree/kmod
utree=$out/tree/userlib
mkdir -p "$ktree" "$utree"
cp -a Kbuild VERSION kmod uapi "$ktree/"
cp -a Makefile userlib uapi "$utree/"
find "$ktree" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name '*.a' -o -name 'modules.order' -o -name 'Module.symvers' \) -delete
build_tree() {	# build_tree kmod|userlib
	case $1 in
	kmod) make -s -C "$kdir" M="$ktree" modules ;;
	userlib) make -s -C "$utree" lib ;;
	esac > "$out/tree/$1.out" 2>&1
}
build_tree kmod && build_tree userlib ||
	{ cat "$out"/tree/*.out >&2; exit 1; }

for n in $ids; do
	file=$(field "$n" 1)
	id=$(printf 'm%02d' "$n")
	dir=$out/stage/$id
	suites=${SUITES[$file]:-}
	kind=${file%%/*}
	[ -n "$suites" ] || { echo "mutate: line $n: no suites for $file" >&2; exit 1; }
	mkdir -p "$dir"
	echo "$suites" > "$dir/suites"
	tree=$out/tree/$kind
	cp "$tree/$file" "$out/tree/original"
	apply "$tree/$file" "$(field "$n" 2)" "$(field "$n" 3)" || exit 1
	if ! build_tree "$kind"; then
		echo "mutate: mutant $n does not build (fix line $n):" >&2
		cat "$out/tree/$kind.out" >&2
		exit 1
	fi
	case $kind in
	kmod) cp "$tree/kmod/etw.ko" "$tree/kmod/etw_test.ko" "$dir/" ;;
	userlib) cp -L "$tree/userlib/libetw.so" "$dir/" ;;
	esac
	cp "$out/tree/original" "$tree/$file"
done

# Boot until every mutant has a result; a mutant that was running when the
# VM stopped without a result (a panic, a hang) is killed by that.
declare -A result
left="base"
for n in $ids; do left+=" $(printf 'm%02d' "$n")"; done
boot=0
while [ -n "$left" ]; do
	boot=$((boot + 1))
	set -- $left
	echo "== VM boot $boot: $# left" >&2
	scripts/vm-run --no-load --add "$out/stage" --add scripts/mutate-guest.sh \
		--log "$out/vm/console-$boot.log" --timeout $((600 + 900 * $#)) -- \
		env MUTATE_TEST_TIMEOUT="${MUTATE_TEST_TIMEOUT:-300}" \
		sh "$top/scripts/mutate-guest.sh" "$out/stage" $left \
		> "$out/vm/out-$boot.txt" 2>&1
	running=
	while read -r tag id rest; do
		case "$tag" in
		@@MUT-BEGIN@@) running=$id ;;
		@@MUT-RESULT@@) result[$id]=$rest; running= ;;
		esac
	done < <(grep '^@@MUT-' "$out/vm/out-$boot.txt")
	if [ -n "$running" ]; then
		why=$(grep -m1 -oE 'Kernel panic.*|BUG:.*|blocked for more than.*' \
			"$out/vm/console-$boot.log")
		result[$running]="killed VM stopped: ${why:-no result (timeout)}"
	fi
	next=
	for id in $left; do
		[ -n "${result[$id]:-}" ] || next+=" $id"
	done
	if [ "$next" = " $left" ] || [ "${next# }" = "$left" ]; then
		echo "mutate: boot $boot made no progress; see $out/vm/" >&2
		exit 1
	fi
	left=${next# }
done

case "${result[base]}" in
survived*) ;;
*)
	echo "mutate: the unmutated build fails a suite: ${result[base]#killed }" >&2
	exit 1 ;;
esac

for n in $ids; do
	id=$(printf 'm%02d' "$n")
	file=$(field "$n" 1)
	equiv=$(field "$n" 4)
	where="$file:$(grep -nF -- "$(field "$n" 2)" "$file" | cut -d: -f1)"
	case "${result[$id]}" in
	killed*)
		printf '%-3s killed    %s (%s)\n' "$n" "$where" "${result[$id]#killed }" ;;
	*)
		if [ -n "$equiv" ]; then
			printf '%-3s survived  %s, %s\n' "$n" "$where" "$equiv"
		else
			printf '%-3s SURVIVED  %s: "%s" -> "%s"\n' "$n" "$where" \
				"$(field "$n" 2)" "$(field "$n" 3)"
		fi ;;
	esac
done > "$out/results.txt"
cat "$out/results.txt"
total=$(wc -l < "$out/results.txt")
killed=$(grep -c ' killed ' "$out/results.txt")
gaps=$(grep -c ' SURVIVED ' "$out/results.txt")
echo "mutate: $killed of $total mutants killed ($((100 * killed / total))%)"
[ "$gaps" = 0 ] ||
	echo "mutate: $gaps survivors not marked equivalent: gaps in the tests" >&2
[ "$gaps" = 0 ] && [ $((100 * killed)) -ge $((90 * total)) ]
