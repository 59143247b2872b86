#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/fuzz-host.sh [--results DIR] SECONDS: each libFuzzer target of
# userlib/fuzz/ (make fuzz-host builds them) for SECONDS, one after the
# other.
#   - the corpus of TARGET grows in build/fuzz-host/corpus/TARGET, kept
#     from run to run, and starts from build/fuzz-host/seeds/TARGET (and
#     build/fuzz-host/TARGET.dict, a dictionary, when there is one);
#   - a crash, leak, timeout or broken invariant stops the target; its
#     input is saved as build/fuzz-host/crashes/TARGET/crash-SHA1 (or
#     leak-, timeout-, oom-);
#   - one line per target: "fuzz-host TARGET: E execs in S s, corpus C
#     inputs, K crashes (seed N)";
#   - with --results DIR, DIR/host-fuzz-TARGET.out (TAP, one result per
#     target) and .rc, which make check's summary counts as host tests.
# Exits 1 when a target crashed or could not be built or run.
set -uo pipefail

results=
if [ "${1:-}" = --results ]; then
	results=$2
	shift 2
fi
seconds=${1:?usage: fuzz-host.sh [--results DIR] SECONDS}

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dir=build/fuzz-host
targets=$(for f in userlib/fuzz/*_fuzz.c; do basename "$f" _fuzz.c; done)
mkdir -p "$dir/logs"

built=0
make -s -j"$(nproc)" fuzz-host > "$dir/logs/build.out" 2>&1 && built=1

# TAP for make check: one result, the figures as a comment.
report() {
	local t=$1 ok=$2 line=$3 detail=$4

	[ -n "$results" ] || return 0
	{
		echo "TAP version 13"
		echo "1..1"
		echo "# $line"
		[ -z "$detail" ] || printf '%s\n' "$detail" | sed 's/^/# /'
		if [ "$ok" = 1 ]; then
			echo "ok 1 fuzz.$t"
			echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
		else
			echo "not ok 1 fuzz.$t"
			echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
		fi
	} > "$results/host-fuzz-$t.out"
	echo $((1 - ok)) > "$results/host-fuzz-$t.rc"
}

# Options per target: .etl inputs hold whole buffers (up to 64 KiB each);
# a target's dictionary, when make fuzz-host wrote one.
options() {
	case "$1" in
	etl) echo -max_len=131072 ;;
	*) echo -max_len=65600 ;;
	esac
	[ ! -f "$dir/$1.dict" ] || echo "-dict=$dir/$1.dict"
}

# TDH would also read the manifests ETW_MANIFEST_PATH names (libetw.rst,
# "Where TDH finds manifests"): the targets load their own.
unset ETW_MANIFEST_PATH ETW_MANIFEST_DEBUG
failed=0
for t in $targets; do
	bin=$dir/${t}_fuzz
	log=$dir/logs/$t.log
	crashes=$dir/crashes/$t
	if [ "$built" != 1 ] || [ ! -x "$bin" ]; then
		line="fuzz-host $t: not built (see $dir/logs/build.out)"
		echo "$line" >&2
		report "$t" 0 "$line" "$(tail -n 20 "$dir/logs/build.out")"
		failed=1
		continue
	fi
	mkdir -p "$dir/corpus/$t" "$crashes"
	before=$(ls "$crashes" | wc -l)
	start=$(date +%s)
	# -close_fd_mask=2: libetw's own messages (a rejected manifest's line)
	# go nowhere; libFuzzer and the sanitizers keep their stderr.
	# shellcheck disable=SC2046
	timeout $((seconds + 120)) "$bin" -max_total_time="$seconds" -timeout=10 \
		-rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1 \
		-artifact_prefix="$crashes/" $(options "$t") \
		"$dir/corpus/$t" "$dir/seeds/$t" > "$log" 2>&1
	rc=$?
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	corpus=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
	seed=$(sed -n 's/^INFO: Seed: //p' "$log")
	new=$(($(ls "$crashes" | wc -l) - before))
	line="fuzz-host $t: ${execs:-0} execs in ${secs:-$(($(date +%s) - start))} s,"
	line+=" corpus ${corpus:-0} inputs, $new crashes (seed ${seed:-?})"
	echo "$line" >&2
	if [ "$rc" = 0 ] && [ "$new" = 0 ]; then
		report "$t" 1 "$line" ""
		continue
	fi
	failed=1
	detail="exit $rc; $(ls -t "$crashes" | head -n 1 | sed "s|^|$crashes/|")
$(grep -E '^(SUMMARY|==[0-9]+==ERROR)|runtime error|broke an invariant|ALARM|out-of-memory' \
	"$log" | head -n 5)"
	printf '%s\n' "$detail" | sed 's/^/    /' >&2
	report "$t" 0 "$line" "$detail"
done
exit $failed
