#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build etw.ko against Debian's stock 6.1 headers (linux-headers-amd64), in
# a scratch copy so that the objects of the test-kernel build stay intact.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -1)
[ -n "$kdir" ] || { echo "build-6.1: linux-headers-amd64 (6.1) not installed" >&2; exit 1; }

work=$(mktemp -d /tmp/etw-6.1.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$top/Kbuild" "$top/VERSION" "$top/kmod" "$top/uapi" "$work/"
find "$work" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \) -delete
echo "build-6.1: $kdir"
make -C "$kdir" M="$work" KCFLAGS=-Werror modules
ls "$work"/kmod/etw.ko
