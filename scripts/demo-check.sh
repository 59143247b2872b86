#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check what the main job (scripts/demo.sh) printed: the example provider's
# five events (ids 0, 1, 4, 5, 6; ids 2 and 3 are filtered out by keyword
# and level) in the real-time view and in the decoded file, and nothing
# lost.  Usage: scripts/demo-check.sh DEMO-OUTPUT; prints one line, exits
# non-zero on the first thing missing.
set -euo pipefail

out=$1
provider=b319fc6b-770f-5ef8-63e0-0870a8f92b03

fail() { echo "demo: FAILED: $*"; exit 1; }

[ -s "$out" ] || fail "no output in $out"
# The events of one section: the lines between its header and the next.
section() { sed -n "/^== $1/,/^== /p" "$out" | grep " $provider "; }
ids() { section "$1" | sed -n 's/.* id=\([0-9]*\) .*/\1/p' | sort -n | tr '\n' ' '; }

for part in "what the real-time view printed" "etwctl dump"; do
	got=$(ids "$part")
	[ "$got" = "0 1 4 5 6 " ] || fail "$part: event ids '$got', expected '0 1 4 5 6'"
done
grep -q "^stats:.*events: 5 in " "$out" || grep -q "^events: 5 in " "$out" ||
	fail "etwctl stats does not count 5 events"
grep -q "^lost: events 0, buffers 0," "$out" || fail "etwctl stats reports losses"
echo "demo: ok (5 events recorded, viewed in real time and decoded, none lost)"
