#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, the main job: build everything, boot the test VM, load etw.ko,
# and tell the whole story: start a file session and a real-time view,
# enable the example provider (ctl/examples/demo_provider.c, a Windows-style
# program) with a keyword and level filter, run it, stop, decode the file;
# then record a CPU profile of it with the kernel logger and print its
# heaviest stacks.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
kdir=$(scripts/build-kernel.sh)
export KDIR_TEST=$kdir
make -s -j"$(nproc)" all KDIR="$kdir"

# A fresh clone has no build/ yet: nothing before this line creates it.
mkdir -p build
cat > build/demo-guest.sh <<'GUEST'
set -e
echo "== etwctl start demo -f /tmp/demo.etl (and a real-time view)"
etwctl start demo -f /tmp/demo.etl --realtime
etwctl view demo > /tmp/view.txt 2>&1 &
view=$!
echo "== etwctl enable demo '*Etw-Demo-Provider:0x3:4'  (request|database keywords, up to informational)"
etwctl enable demo '*Etw-Demo-Provider:0x3:4'
echo "== run the provider"
/etw/ctl/examples/demo_provider
echo "== etwctl list"
etwctl list
echo "== etwctl stop demo"
etwctl stop demo
wait $view || true
echo "== what the real-time view printed"
cat /tmp/view.txt
echo "== etwctl dump /tmp/demo.etl"
etwctl dump /tmp/demo.etl
echo "== etwctl stats /tmp/demo.etl"
etwctl stats /tmp/demo.etl
echo "== a CPU profile: etwctl start 'NT Kernel Logger' -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile -f /tmp/cpu.etl"
etwctl start "NT Kernel Logger" -on PROC_THREAD+LOADER+PROFILE -stackwalk Profile -f /tmp/cpu.etl
/etw/ctl/examples/demo_provider --no-wait > /dev/null &
pid=$!
wait $pid
etwctl stop "NT Kernel Logger"
echo "== where demo_provider (pid $pid) spent its CPU: samples by the function sampled"
echo "   (etwctl export --format folded /tmp/cpu.etl; speedscope opens --format speedscope)"
etwctl export --format folded -o /tmp/cpu.folded /tmp/cpu.etl 2> /tmp/export.err ||
	{ cat /tmp/export.err; exit 1; }
# The innermost frame, its offset left out; a kernel address as [kernel].
grep "^pid $pid;" /tmp/cpu.folded | awk '{
	w = $NF; sub(/ [0-9]+$/, ""); n = split($0, f, ";"); s = f[n]
	sub(/\+0x[0-9a-f]+$/, "", s); if (s ~ /^0xffff/) s = "[kernel]"
	sum[s] += w }
	END { for (s in sum) printf "%d\t%s\n", sum[s], s }' |
	sort -nr | head -4 | awk -F'\t' '{ printf "   %5d  %s\n", $1, $2 }'
GUEST
exec scripts/vm-run --add "$top/build/demo-guest.sh" -- sh "$top/build/demo-guest.sh"
