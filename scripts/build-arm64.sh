#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-compile libetw (userlib/libetw.a) for arm64 with -Werror, in a
# scratch copy so that the tree's x86-64 objects stay intact.  Needs
# Debian's gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
# (scripts/deps.sh).  libetw.a is an archive, so no arm64 library is
# needed to link it; etwctl, the selftests and the module are not built
# here.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cc=${CROSS_COMPILE:-aarch64-linux-gnu-}gcc
command -v "$cc" > /dev/null ||
	{ echo "build-arm64: $cc not installed (gcc-aarch64-linux-gnu)" >&2; exit 1; }

work=$(mktemp -d /tmp/etw-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts"
cp -r "$top/Makefile" "$top/uapi" "$top/userlib" "$work/"
cp "$top/scripts/ksft-headers.sh" "$top/scripts/build-kernel.sh" "$work/scripts/"
find "$work/userlib" \( -name '*.o' -o -name '*.a' -o -name '*.so*' \) -delete
echo "build-arm64: libetw.a with $cc"
make -s -C "$work" CC="$cc" CFLAGS="-O2 -g -Werror" userlib/libetw.a
file "$work/userlib/etw_batch.o"
