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
#   3. runs the host suites of a userlib/ mutant ("host:NAME" in SUITES:
#      userlib/tests/NAME.c, built in that copy against the mutated
#      libetw.a, run on the host), the unmutated copy's first;
#   4. boots the test VM and runs scripts/mutate-guest.sh: first the
#      unmutated build ("base", which must pass every suite: a failure
#      there is a broken or flaky test, not a kill), then each mutant with
#      the suites that cover its file (SUITES below), stopping at the first
#      that fails; a VM that stops early (a kernel report, a hang) is
#      booted again for the mutants left; a mutant a host suite killed,
#      or whose suites are all host ones, boots no VM;
#   5. prints each mutant as killed (and by what) or SURVIVED, the kill
#      rate of each file and the total.
# Passes when at least 90% are killed and every survivor is one the table
# marks "equivalent" (Documentation/testing.rst says why for each).
#   MUTANTS="N M ..." runs only those lines of the table (1-based, as
#   printed); MUTATE_TEST_TIMEOUT (default 300) limits one kselftest run.
# Logs in build/mutate/.
#
# scripts/mutate.sh --check (make mutate-check, part of make check) builds
# and boots nothing: it checks that every line of the table still applies
# (its ORIGINAL occurs exactly once in FILE, the mutant differs, SUITES
# covers FILE with suites that exist), so the table cannot fall behind the
# code unnoticed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/mutate
table=$top/scripts/mutations

# The suites that cover each file, cheapest and most telling first:
# "kunit" (the KUnit module), a kselftest of selftests/, or "host:NAME",
# a host test of userlib/tests/ (for userlib/ files only; run first).
declare -A SUITES=(
	[kmod/etw_filter.c]="kunit routing_test group_test libetw_provider_test libetw_classic_test session_test"
	[kmod/etw_payload_filter.c]="kunit payload_filter_test"
	[kmod/etw_payload_filter.h]="kunit payload_filter_test"
	[userlib/etw_tdh_payload.c]="host:tdh_payload_test payload_filter_test"
	[kmod/etw_filter.h]="kunit routing_test group_test libetw_provider_test libetw_classic_test session_test notify_test"
	[kmod/etw_write.c]="kunit dev_test write_test routing_test libetw_provider_test session_test limits_test stress_test payload_filter_test"
	[kmod/etw_buffer.c]="kunit session_test routing_test libetw_consumer_test limits_test write_test stress_test etwctl_test trace_test klogger_sched_test"
	[kmod/etw_consumer.c]="kunit session_test libetw_consumer_test limits_test write_test stress_test etwctl_test"
	[kmod/etw_route.c]="kunit routing_test group_test notify_test notify_queue_test security_test libetw_provider_test libetw_classic_test limits_test payload_filter_test"
	[kmod/etw_enable.c]="kunit routing_test group_test notify_test notify_queue_test security_test libetw_provider_test libetw_classic_test limits_test"
	[kmod/etw_klogger.c]="klogger_test kunit"
	[kmod/etw_klogger_sched.c]="kunit klogger_sched_test"
	[kmod/etw_klogger_stacks.c]="klogger_sched_test klogger_profile_test klogger_syscall_test"
	[kmod/etw_klogger_syscall.c]="klogger_syscall_test"
	[kmod/etw_session.c]="kunit session_start_test session_update_test klogger_test session_test limits_test"
	[kmod/etw_batch.c]="kunit batch_test libetw_batch_test batch_security_test"
	[kmod/etw_change.c]="kunit notify_test notify_queue_test routing_test group_test libetw_provider_test"
	[kmod/etw_dev.c]="kunit dev_test limits_test abi_size_test notify_test session_test security_test fault_test"
	[kmod/etw_exec.c]="security_test batch_security_test libetw_provider_test session_test"
	[kmod/etw_ext_items.c]="kunit ext_items_test stack_symbols_test"
	[kmod/etw_file.c]="kunit abi_size_test limits_test dev_test fault_test"
	[kmod/etw_kapi.c]="kunit"
	[kmod/etw_main.c]="kunit security_test list_visibility_test ext_items_test klogger_test fault_test"
	[kmod/etw_notify.c]="kunit notify_queue_test notify_test libetw_provider_test fault_test"
	[kmod/etw_provider.c]="kunit limits_test group_test session_test libetw_provider_test security_test"
	[kmod/etw_provider_list.c]="libetw_enum_test list_visibility_test limits_test abi_size_test"
	[kmod/etw_traits.c]="kunit group_test libetw_provider_test"
	[userlib/etw_batch.h]="host:batch_ring_test libetw_batch_test batch_test"
	[userlib/etw_batch.c]="libetw_batch_test"
	[userlib/etw_etl_reader.c]="host:etl_header_test host:etl_hostile_test host:etl_compress_test host:etl_writer_test host:etl_windows_test host:consumer_files_test"
	[userlib/etw_tdh.c]="host:tdh_event_info_test host:tracelogging_etl_test host:tdh_layout_test host:consumer_files_test tdh_test"
	[userlib/etw_tdh_format.c]="host:tdh_format_test host:tdh_primitive_test host:tdh_manifest_decode_test tdh_test"
	[userlib/etw_provider.c]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
	[userlib/etw_provider.h]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
	[userlib/etw_write.c]="libetw_provider_test libetw_classic_test libetw_promises_test write_test etwctl_test"
)

# mutant N: FILE, ORIGINAL, MUTANT, EQUIVALENT (the table's line N).
mapfile -t lines < <(grep -v '^#' "$table" | grep -v '^$')
[ ${#lines[@]} -gt 0 ] || { echo "mutate: $table lists no mutant" >&2; exit 1; }
field() { cut -f"$2" <<< "${lines[$1 - 1]}"; }

# host_suites FILE, vm_suites FILE: FILE's suites of each kind.
host_suites() {
	local s

	for s in ${SUITES[$1]:-}; do
		[ "${s#host:}" != "$s" ] && echo -n "${s#host:} "
	done
}
vm_suites() {
	local s

	for s in ${SUITES[$1]:-}; do
		[ "${s#host:}" = "$s" ] && echo -n "$s "
	done
}

# missing_suite FILE: the first suite of FILE that does not exist, or "".
missing_suite() {
	local s

	for s in ${SUITES[$1]}; do
		case $s in
		kunit) ;;
		host:*)
			[ "${1%%/*}" = userlib ] && [ -f "userlib/tests/${s#host:}.c" ] ||
				{ echo "$s"; return; } ;;
		*) [ -f "selftests/$s.c" ] || { echo "$s"; return; } ;;
		esac
	done
}

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
	elif [ -n "$(missing_suite "$file")" ]; then
		why="no suite $(missing_suite "$file") for $file"
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

# The suites of the mutants that run, each once: the base runs them all.
files=$(for n in $ids; do field "$n" 1; done | sort -u)
union() {	# union host_suites|vm_suites
	local f

	for f in $files; do
		"$1" "$f"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' '
}

# The base: the unmutated module and library.
mkdir -p "$out/stage/base"
cp kmod/etw.ko kmod/etw_test.ko userlib/libetw.so "$out/stage/base/"
union vm_suites > "$out/stage/base/suites"

# One copy of each tree, built unmutated once: for each mutant only the
# mutated file recompiles, and again when it is put back.
echo "== build ${#lines[@]} mutants" >&2
ktree=$out/tree/kmod
utree=$out/tree/userlib
mkdir -p "$ktree" "$utree"
cp -a Kbuild VERSION kmod uapi "$ktree/"
cp -a Makefile VERSION userlib uapi ctl "$utree/"
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

# run_host SUITE...: builds and runs each host test in the userlib copy
# against its libetw.a; prints the first that fails, or nothing.
testdata=${TESTDATA:-$top/../shared/testdata}
ksft_inc=$(scripts/ksft-headers.sh) || exit 1
run_host() {
	local s

	for s in "$@"; do
		if ! make -s -C "$utree" TESTDATA="$testdata" KSFT_INC="$ksft_inc" \
				"userlib/tests/$s" > "$out/tree/host.out" 2>&1; then
			echo "mutate: host test $s does not build:" >&2
			cat "$out/tree/host.out" >&2
			exit 1
		fi
		if ! (cd "$utree" && timeout "${MUTATE_TEST_TIMEOUT:-300}" \
				"userlib/tests/$s") >> "$out/tree/host.out" 2>&1; then
			echo "host:$s"
			return
		fi
	done
}

# The base's host suites, unmutated.
declare -A result
all_host=$(union host_suites)
if [ -n "$all_host" ]; then
	echo "== host suites, unmutated" >&2
	why=$(run_host $all_host) || exit 1
	if [ -n "$why" ]; then
		echo "mutate: the unmutated build fails a suite: $why" >&2
		cat "$out/tree/host.out" >&2
		exit 1
	fi
fi

for n in $ids; do
	file=$(field "$n" 1)
	id=$(printf 'm%02d' "$n")
	dir=$out/stage/$id
	suites=${SUITES[$file]:-}
	kind=${file%%/*}
	[ -n "$suites" ] || { echo "mutate: line $n: no suites for $file" >&2; exit 1; }
	mkdir -p "$dir"
	vm_suites "$file" > "$dir/suites"
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
	hs=$(host_suites "$file")
	if [ -n "$hs" ]; then
		why=$(run_host $hs) || exit 1
		if [ -n "$why" ]; then
			result[$id]="killed $why"
		elif [ -z "$(vm_suites "$file")" ]; then
			result[$id]=survived
		fi
		echo "== $id on the host: ${result[$id]:-survived, to the VM}" >&2
	fi
	cp "$out/tree/original" "$tree/$file"
done

# Boot until every mutant has a result; a mutant that was running when the
# VM stopped without a result (a panic, a hang) is killed by that.
left=
for n in $ids; do
	id=$(printf 'm%02d' "$n")
	[ -n "${result[$id]:-}" ] || left+=" $id"
done
# No mutant left for the VM: no base to run there either.
if [ -n "$left" ]; then
	left="base$left"
else
	result[base]=survived
fi
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
# The rate of each file, then the total.
awk '{ split($3, w, ":"); f = w[1]; sub(/,$/, "", f)
	if (!(f in n)) order[++nf] = f
	n[f]++; if ($2 == "killed") k[f]++ }
END { for (i = 1; i <= nf; i++) { f = order[i]
	printf "mutate: %s: %d of %d killed (%d%%)\n", f, k[f], n[f],
		100 * k[f] / n[f] } }' "$out/results.txt"
total=$(wc -l < "$out/results.txt")
killed=$(grep -c ' killed ' "$out/results.txt")
gaps=$(grep -c ' SURVIVED ' "$out/results.txt")
echo "mutate: $killed of $total mutants killed ($((100 * killed / total))%)"
[ "$gaps" = 0 ] ||
	echo "mutate: $gaps survivors not marked equivalent: gaps in the tests" >&2
[ "$gaps" = 0 ] && [ $((100 * killed)) -ge $((90 * total)) ]
