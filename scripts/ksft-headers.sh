#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print a directory holding kselftest.h and kselftest_harness.h, taken from
# Debian's linux-source-6.12 once and cached in $ETW_CACHE.  The selftests and
# the host tests are written against this harness.
set -euo pipefail

tarball=/usr/src/linux-source-6.12.tar.xz
cache=${ETW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/etw}
[ -r "$tarball" ] || { echo "ksft-headers: $tarball missing (run scripts/deps.sh)" >&2; exit 1; }
version=$(dpkg-query -W -f '${Version}' linux-source-6.12)
dir=$cache/ksft-$version

if [ ! -e "$dir/.complete" ]; then
	mkdir -p "$dir"
	exec 9>"$dir/.lock"
	flock 9
	if [ ! -e "$dir/.complete" ]; then
		tar -xJf "$tarball" -C "$dir" --strip-components=4 --wildcards \
			'*/tools/testing/selftests/kselftest.h' \
			'*/tools/testing/selftests/kselftest_harness.h'
		touch "$dir/.complete"
	fi
fi
echo "$dir"
