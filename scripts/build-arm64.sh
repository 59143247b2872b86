#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-compile etw for arm64 with -Werror: the module (against the arm64
# test kernel, built and cached on first use: about 8 minutes on 2 cores),
# libetw, etwctl, the selftests, the host tests and the examples (make
# ARCH=arm64, the kernel's convention), in a scratch copy of the tracked
# files so that the tree's x86-64 objects stay intact.  Needs Debian's
# gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu and the arm64 libraries of
# scripts/deps.sh.
#
#   scripts/build-arm64.sh [DIR]
#
# The copy is DIR, emptied first and kept (scripts/check-arm64.sh runs
# what it built), or a temporary directory removed at the end.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cc=${CROSS_COMPILE:-aarch64-linux-gnu-}gcc
command -v "$cc" > /dev/null ||
	{ echo "build-arm64: $cc not installed (gcc-aarch64-linux-gnu)" >&2; exit 1; }

if [ -n "${1:-}" ]; then
	work=$1
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d /tmp/etw-arm64.XXXXXX)
	trap 'rm -rf "$work"' EXIT
fi
# The tracked files as they are in the tree, changes included.
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$work" 2>/dev/null) || true
echo "build-arm64: etw.ko, libetw, etwctl, selftests, host tests, examples with $cc"
make -s -C "$work" ARCH=arm64 KCFLAGS=-Werror module
make -s -j"$(nproc)" -C "$work" ARCH=arm64 CFLAGS="-O2 -g -Werror" \
	lib ctl selftests hosttests examples
file "$work/kmod/etw.ko" "$work/userlib/libetw.so" "$work/ctl/etwctl" \
	"$work/selftests/batch_test" "$work/userlib/tests/guid_test"
