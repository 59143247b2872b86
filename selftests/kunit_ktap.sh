#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kunit_ktap.sh SUITE < kernel-log: print KUnit suite SUITE's KTAP as the
# kernel logged it (dmesg's text on stdin), as the suite's debugfs
# "results" file frames it: a one-suite plan, the suite's lines, its
# closing result.  The kernel log, not debugfs, because 6.1's KUnit keeps
# at most 512 bytes of each case's log (KUNIT_LOG_SIZE), so debugfs loses
# the tail of a long parameterised case; every line reaches the log.
#
# Exit status 1 when the suite's header or closing line is missing (a log
# that overflowed, or a suite that never ran): what was found is printed.

[ $# -eq 1 ] || { echo "usage: $0 SUITE < kernel-log" >&2; exit 2; }

echo "KTAP version 1"
echo "1..1"
# dmesg's "[    1.234567] " stamp goes; the KTAP indentation after it stays.
sed 's/^\[[ 0-9.]*\] //' | awk -v suite="$1" '
	!on && $0 == "    # Subtest: " suite { on = 1; print prev }
	on { print }
	on && $0 ~ "^(not )?ok [0-9]+ " suite "( #.*)?$" { done = 1; exit }
	{ prev = $0 }
	END { exit done ? 0 : 1 }'
