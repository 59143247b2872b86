#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The viewer test of "etwctl export --format chrome-json": a file etw's
# ETL writer wrote (scripts/tests/forward_gen.c) and the Windows sample
# files (the CLR one decoded by its manifest; TESTDATA, default
# ../shared/testdata beside the checkout: skipped without them), each
# exported with --slices and opened in speedscope (npm) in Debian's
# headless Chromium, and PerfView's trace (when there) exported as a
# speedscope CPU profile; viewer_test.js says what it checks.  Output is TAP
# with kselftest totals, counted by make check as host/viewer_test.
#
# npm packages are kept in ~/.cache/etw/npm (ETW_NPM_CACHE overrides), so
# runs after the first need no network.  The screenshots are left in
# build/viewer/speedscope-NAME-N.png, one per thread of each file.  Skips (exit 4) only when
# Chromium is not installed and cannot be.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${ETW_NPM_CACHE:-$HOME/.cache/etw/npm}
out=$top/build/viewer
testdata=${TESTDATA:-$top/../shared/testdata}
# The versions this test was written against.
packages=(playwright-core@1.65.1 speedscope@1.25.0)

skip() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit 4
}

fail() {
	echo "TAP version 13"
	echo "1..1"
	echo "# $*"
	echo "not ok 1 viewer.setup"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
}

if ! command -v chromium > /dev/null; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends chromium > /dev/null 2>&1 ||
			{ apt-get update -qq > /dev/null 2>&1 &&
			  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends chromium > /dev/null 2>&1; }
	fi
	command -v chromium > /dev/null ||
		skip "chromium is not installed and could not be (apt-get install chromium)"
fi

mkdir -p "$cache/viewer" "$out" || fail "cannot create $cache/viewer or $out"
modules=$cache/viewer/node_modules
have() {
	[ "$(node -p "require('$modules/$1/package.json').version" 2>/dev/null)" = "$2" ]
}
if ! have playwright-core 1.65.1 || ! have speedscope 1.25.0; then
	[ -f "$cache/viewer/package.json" ] ||
		echo '{ "private": true }' > "$cache/viewer/package.json"
	(cd "$cache/viewer" && npm install --prefer-offline --no-audit --no-fund \
		--cache "$cache/_cacache" "${packages[@]}") > "$out/npm.log" 2>&1 ||
		fail "npm install ${packages[*]} failed: $(tail -n 3 "$out/npm.log")"
fi

etwctl=$top/ctl/etwctl
[ -x "$etwctl" ] || make -s -C "$top" ctl > /dev/null 2>&1 ||
	fail "cannot build ctl/etwctl"
rm -f "$out"/speedscope-*.png
[ -r "$top/userlib/libetw.a" ] || make -s -C "$top" lib > /dev/null 2>&1 ||
	fail "cannot build userlib/libetw.a"
cc -I"$top/uapi" -I"$top/userlib/include" -D_GNU_SOURCE -I"$top/userlib" \
	-I"$top/userlib/tests" -O2 -o "$out/forward_gen" \
	"$top/scripts/tests/forward_gen.c" "$top/userlib/libetw.a" \
	$(pkg-config --libs libxml-2.0) -lpthread > "$out/gen.log" 2>&1 ||
	fail "cannot build forward_gen: $(tail -n 3 "$out/gen.log")"
"$out/forward_gen" "$out/etw.etl" 60 || fail "forward_gen failed"
"$etwctl" export --format chrome-json --slices -o "$out/etw.json" \
	"$out/etw.etl" || fail "etwctl export of etw.etl failed"
windows=windows=$out/windows.json
samples=("$testdata/etl/primitive-types.etl" "$testdata/etl/clr-gc-events.etl")
if [ -r "${samples[0]}" ] && [ -r "${samples[1]}" ]; then
	"$etwctl" export --format chrome-json --slices -o "$out/windows.json" \
		--manifest "$top/userlib/manifests/clr.man" "${samples[@]}" ||
		fail "etwctl export of the Windows sample files failed"
else
	# The reason testsum.py counts as expected where the files are not.
	windows="windows=SKIP:no Windows sample files in $testdata"
fi

# A CPU profile: PerfView's trace's samples and stacks, speedscope's format.
net=net=$out/net.speedscope.json
if [ -r "$testdata/etl/net.4.5.2.x86.etl" ]; then
	"$etwctl" export --format speedscope -o "$out/net.speedscope.json" \
		"$testdata/etl/net.4.5.2.x86.etl" ||
		fail "etwctl export --format speedscope of the PerfView trace failed"
else
	net="net=SKIP:no PerfView trace in $testdata"
fi

NODE_PATH=$modules exec node "$top/scripts/tests/viewer_test.js" \
	"$modules/speedscope/dist/release" "$out/speedscope" \
	"etw=$out/etw.json" "$windows" "$net"
