#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Style gates for the module, run by make check:
#   checkpatch  checkpatch.pl --strict on the module and the uapi header
#               (compat.h, which is all version tests, is exempt)
#   sparse      make C=2 against the test kernel: no report allowed
#   uapi        uapi/linux/etw.h compiles alone as C90 and as C++
#   kerneldoc   the kernel's scripts/kernel-doc -none -Wall on the module,
#               its KUnit tests and the uapi header: no warning allowed
# Usage: scripts/lint.sh checkpatch|sparse|uapi|kerneldoc KDIR
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$2
src=$(readlink -f "$kdir/source" 2>/dev/null || echo "$kdir/../src")
cd "$top"

case "$1" in
checkpatch)
	files=$(ls kmod/etw_*.[ch] kmod/include/linux/*.h uapi/linux/etw.h |
		grep -v '\.mod\.c$')
	# EXPORT_SYMBOL: checkpatch misreads an export after DEFINE_MUTEX().
	out=$("$src/scripts/checkpatch.pl" --no-tree --strict --terse \
		--ignore EXPORT_SYMBOL -f $files 2>&1 |
		grep -v '^total:')
	[ -z "$out" ] || { echo "$out"; exit 1; } ;;
sparse)
	work=$(mktemp -d /tmp/etw-sparse.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	cp -r Kbuild VERSION kmod uapi "$work/"
	find "$work" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
	out=$(make -s -C "$kdir" M="$work" C=2 modules 2>&1 | grep -v '^  \(CHECK\|CC\|LD\|MODPOST\)')
	[ -z "$out" ] || { echo "$out"; exit 1; } ;;
uapi)
	# The ABI header stands alone as C90 and as C++.
	echo '#include <linux/etw.h>' | gcc -std=c90 -pedantic -Wall -Werror \
		-fsyntax-only -Iuapi -x c - &&
	echo '#include <linux/etw.h>' | g++ -Wall -Werror -fsyntax-only \
		-Iuapi -x c++ - ;;
kerneldoc)
	files=$(find kmod uapi -name '*.[ch]' ! -name '*.mod.c' | sort)
	out=$("$src/scripts/kernel-doc" -none -Wall $files 2>&1)
	rc=$?
	[ -z "$out" ] && [ $rc -eq 0 ] || { echo "$out"; exit 1; } ;;
*)
	echo "usage: $0 checkpatch|sparse|uapi|kerneldoc KDIR" >&2; exit 2 ;;
esac
