#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-host: how fast ETL files are read and decoded on the host, no
# VM (userlib/tests/decode_bench.c, Documentation/performance.rst "Host
# decoding").  A generated file of EVENTS TraceLogging events (100000), one
# ten times larger (peak RSS must not grow with it) and the Windows-written
# samples under TESTDATA: wall time (best of BENCH_ROUNDS) and peak RSS per
# mode, then callgrind's instructions per event on the first file.
# BENCH_CALLGRIND=0 leaves callgrind out.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
events=${EVENTS:-100000}
testdata=${TESTDATA:-$top/../shared/testdata}
bench=userlib/tests/decode_bench
etwctl=ctl/etwctl
make -s lib ctl "$bench"

dir=$(mktemp -d /tmp/bench-host.XXXXXX)
trap 'rm -rf "$dir"' EXIT
small=$dir/tl-$events.etl
large=$dir/tl-$((events * 10)).etl
"$bench" gen "$small" "$events"
"$bench" gen "$large" $((events * 10))

echo "# host decoding: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$bench" table "$small" "$etwctl"
echo
BENCH_ROUNDS=${BENCH_ROUNDS:-2} "$bench" table "$large" "$etwctl"
for f in "$testdata"/etl/*.etl; do
	[ -e "$f" ] || continue
	echo
	"$bench" table "$f" "$etwctl"
done

[ "${BENCH_CALLGRIND:-1}" = 0 ] && exit 0
if ! command -v valgrind >/dev/null; then
	echo "bench-host: no valgrind, no instruction counts" >&2
	exit 0
fi
# Instructions of the whole run (start-up included) per event of the file.
echo
echo "# callgrind: instructions per event, $events events (start-up included)"
printf '%-10s %14s %10s %9s\n' mode instructions "ins/event" "x read()"
base=
for mode in read process tdh dump dump-json dump-csv; do
	case $mode in
	dump) cmd=("$etwctl" dump "$small") ;;
	dump-json) cmd=("$etwctl" dump --format json "$small") ;;
	dump-csv) cmd=("$etwctl" dump --format csv "$small") ;;
	*) cmd=("$bench" "$mode" "$small") ;;
	esac
	out=$dir/callgrind.$mode
	valgrind --tool=callgrind --callgrind-out-file="$out" -q "${cmd[@]}" \
		>/dev/null 2>"$dir/valgrind.log"
	ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$out")
	base=${base:-$ir}
	awk -v m="$mode" -v ir="$ir" -v n="$events" -v b="$base" \
		'BEGIN { printf "%-10s %14.0f %10.1f %9.2f\n", m, ir, ir / n, ir / b }'
done
