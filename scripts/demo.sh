#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, the main job: build everything, boot the test VM, load etw.ko,
# and tell the whole story: start a file session and a real-time view,
# enable the example provider (ctl/examples/demo_provider.c, a Windows-style
# program) with a keyword and level filter, run it, stop, decode the file.
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
GUEST
exec scripts/vm-run --add "$top/build/demo-guest.sh" -- sh "$top/build/demo-guest.sh"
