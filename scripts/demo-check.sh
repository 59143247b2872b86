#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check what the main job (scripts/demo.sh) printed: the example
# TraceLogging provider's five events (QueryRun and CacheMiss are
# filtered out by level and keyword) in the real-time view and in the
# decoded file, each under the provider's and the event's names with its
# named fields, and nothing lost; and a kernel logger's CPU profile of the
# provider with samples in its own, named, code.  Usage: scripts/demo-check.sh
# DEMO-OUTPUT; prints one line, exits non-zero on the first thing missing.
set -euo pipefail

out=$1
provider=Etw-Demo-Provider

fail() { echo "demo: FAILED: $*"; exit 1; }

[ -s "$out" ] || fail "no output in $out"
# The events of one section: the lines between its header and the next.
section() { sed -n "/^== $1/,/^== /p" "$out" | grep " $provider "; }
names() { section "$1" | sed -n "s/.* $provider \([^ ]*\) id=.*/\1/p" | tr '\n' ' '; }
# Each event's line must carry these decoded fields.
fields=(
	'Starting id=0 v=0 lvl=0 op=0 .* message="demo provider starting"$'
	'Banner id=0 v=0 lvl=0 op=0 .* text="banner" pid=[0-9]*$'
	'Request id=0 v=0 lvl=4 op=1 .* kw=0x1 .* method="GET" path="/orders" orderId=42$'
	'SlowQuery id=0 v=0 lvl=2 op=0 .* kw=0x2 .* query="SELECT \* FROM orders" durationMs=1500 thresholdRatio=1.5$'
	'Request id=0 v=0 lvl=4 op=2 .* kw=0x1 .* status=200 cached=true$'
)

for part in "what the real-time view printed" "etwctl dump"; do
	got=$(names "$part")
	[ "$got" = "Starting Banner Request SlowQuery Request " ] ||
		fail "$part: events '$got', expected 'Starting Banner Request SlowQuery Request'"
	for f in "${fields[@]}"; do
		section "$part" | grep -q " $provider $f" ||
			fail "$part: no event matching '$f'"
	done
done
grep -q "^stats:.*events: 5 in " "$out" || grep -q "^events: 5 in " "$out" ||
	fail "etwctl stats does not count 5 events"
grep -q "^lost: events 0, buffers 0," "$out" || fail "etwctl stats reports losses"
# The CPU profile: samples in a function of demo_provider, named.
sed -n '/^== where demo_provider/,$p' "$out" | grep -Eq '^ +[1-9][0-9]*  demo_provider!' ||
	fail "the CPU profile has no sample named in demo_provider"
echo "demo: ok (5 TraceLogging events recorded, viewed in real time and decoded by name, none lost; a CPU profile names demo_provider's code)"
