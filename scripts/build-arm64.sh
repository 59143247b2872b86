#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-compile user space for arm64 with -Werror: libetw, etwctl, the
# selftests and the examples (make ARCH=arm64, the kernel's convention),
# in a scratch copy of the tracked files so that the tree's x86-64 objects
# stay intact.  Needs Debian's gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu
# and the arm64 libraries of scripts/deps.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cc=${CROSS_COMPILE:-aarch64-linux-gnu-}gcc
command -v "$cc" > /dev/null ||
	{ echo "build-arm64: $cc not installed (gcc-aarch64-linux-gnu)" >&2; exit 1; }

work=$(mktemp -d /tmp/etw-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The tracked files as they are in the tree, changes included.
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -t "$work" 2>/dev/null) || true
echo "build-arm64: libetw, etwctl, selftests, examples with $cc"
make -s -j"$(nproc)" -C "$work" ARCH=arm64 CFLAGS="-O2 -g -Werror" \
	lib ctl selftests examples
file "$work/userlib/libetw.so" "$work/ctl/etwctl" "$work/selftests/batch_test"
