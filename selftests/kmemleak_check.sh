#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak_check.sh clear|scan: "unload frees everything" (abi.rst, Module
# lifetime) checked with kmemleak in the test VM (CONFIG_DEBUG_KMEMLEAK).
#
#   clear   before the tests: scan once and forget every suspect found so
#           far (kmemleak's "clear" only greys objects already reported),
#           so that later reports are about what the run allocated.
#   scan    after "rmmod etw": wait until what the run allocated is older
#           than kmemleak's minimum age (5 s), scan twice (an object that
#           was referenced again in the second scan is not reported), and
#           print the result as one kselftest-style TAP test, with every
#           suspected leak as "# " lines.  After the unload no module
#           symbol remains, so a leak's backtrace shows bare addresses.
#           An object allocated before etw.ko was loaded (its jiffies below
#           the count scripts/vm-run saved in /etc/etw-load-jiffies) is
#           boot's, not the module's: it is counted apart and does not fail.
#
# Exit status as a kselftest: 0 ok, 1 not ok, 4 skipped (no kmemleak).
# scripts/testsum.py reads the output between @@KSFT-BEGIN@@/-END@@ lines.

kmemleak=/sys/kernel/debug/kmemleak
name="kmemleak: no unreferenced object after rmmod etw"

result() {	# result ok|not-ok|skip [reason]
	case $1 in
	ok)	echo "ok 1 $name"; p=1 f=0 s=0 rc=0 ;;
	skip)	echo "ok 1 $name # SKIP $2"; p=0 f=0 s=1 rc=4 ;;
	*)	echo "not ok 1 $name${2:+ # $2}"; p=0 f=1 s=0 rc=1 ;;
	esac
	echo "# Totals: pass:$p fail:$f xfail:0 xpass:0 skip:$s error:0"
	exit $rc
}

[ -d /sys/kernel/debug ] && ! [ -e $kmemleak ] &&
	mount -t debugfs none /sys/kernel/debug 2>/dev/null

case ${1:-} in
clear)
	[ -e $kmemleak ] || exit 0
	echo scan > $kmemleak && echo clear > $kmemleak
	exit $?
	;;
scan)
	;;
*)
	echo "usage: $0 clear|scan" >&2
	exit 2
	;;
esac

echo "TAP version 13"
echo "1..1"
[ -e $kmemleak ] || result skip "no $kmemleak (CONFIG_DEBUG_KMEMLEAK)"
sleep 6
# A failed write means kmemleak is off (disabled after an error of its own).
echo scan > $kmemleak 2>/dev/null || result not-ok "kmemleak is disabled"
sleep 1
echo scan > $kmemleak 2>/dev/null || result not-ok "kmemleak is disabled"
load=$(cat /etc/etw-load-jiffies 2>/dev/null)
# Each report prefixed "old " (allocated before the load) or "new ".
report=$(awk -v load="${load:-0}" '
	/^unreferenced object/ { if (obj != "") emit(); obj = $0; next }
	/^  comm / { for (i = 1; i < NF; i++) if ($i == "jiffies") when = $(i + 1) }
	{ obj = obj "\n" $0 }
	function emit() { print (when + 0 < load + 0 ? "old " : "new ") obj; obj = ""; when = "" }
	END { if (obj != "") emit() }' $kmemleak)
old=$(printf '%s\n' "$report" | grep -c '^old unreferenced object')
n=$(printf '%s\n' "$report" | grep -c '^new unreferenced object')
[ "$old" -eq 0 ] ||
	echo "# $old unreferenced objects from before etw.ko was loaded (not counted)"
if [ "$n" -eq 0 ]; then
	result ok
fi
printf '%s\n' "$report" | awk '/^(old|new) / { show = $1 == "new" } show' |
	sed 's/^new //; s/^/# /'
result not-ok "$n unreferenced objects"
