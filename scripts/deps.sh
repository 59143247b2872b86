#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages that building and testing etw need.
# Cheap when everything is present: apt is only called for what is missing.
set -euo pipefail

packages=(
	build-essential bc bison flex libelf-dev libdw-dev libssl-dev dwarves cpio
	xz-utils kmod pkg-config python3 sparse
	linux-source-6.12 linux-source-6.1 linux-headers-amd64
	qemu-system-x86 busybox-static
	mingw-w64 python3-docutils libxml2-dev
	libcurl4-openssl-dev systemd-journal-remote openssl iproute2
	libbabeltrace2-dev babeltrace2
	chromium
	clang libclang-rt-14-dev
	valgrind dkms
	libbpf-dev bpftool
	liblttng-ust-dev lttng-tools
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-user qemu-system-arm
	libxml2-dev:arm64 libdw-dev:arm64 libbpf-dev:arm64
	libcurl4-openssl-dev:arm64 liblttng-ust-dev:arm64
	libsystemd-shared:arm64 libmicrohttpd12:arm64
)

missing=()
for p in "${packages[@]}"; do
	# One line per architecture installed (a library in amd64 and arm64).
	status=$(dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | sort -u || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
# npm fetches the trace viewer of scripts/tests/viewer_test.sh.  Debian's
# npm, unless a Node.js with its own npm is already there.
command -v npm >/dev/null || missing+=(nodejs npm)
[ ${#missing[@]} = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# The arm64 libraries the cross build links (make ARCH=arm64).
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
# An install that was killed half-way leaves dpkg refusing every other one.
dpkg --configure -a >&2
apt-get update -qq >&2
apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
