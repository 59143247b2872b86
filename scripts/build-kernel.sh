#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the test kernel from Debian's linux-source-6.12 with the
# fragment scripts/etw-test.config (or, with --bench, the benchmark kernel
# from scripts/etw-bench.config), and print the build directory (KDIR).
#
# The build is cached in $ETW_CACHE (default ~/.cache/etw) under a key made
# of the kernel version and a hash of the fragment and of this script, so it
# is rebuilt only when one of those changes.  A build that did not finish
# leaves no stamp and is redone.  Progress goes to stderr; stdout carries
# only the path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/etw-test.config
flavour=
if [ "${1:-}" = --bench ]; then
	fragment=$here/etw-bench.config
	flavour=bench-
fi
tarball=/usr/src/linux-source-6.12.tar.xz
cache=${ETW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/etw}
jobs=${JOBS:-$(($(nproc) + 1))}

log() { echo "build-kernel: $*" >&2; }

[ -r "$tarball" ] || { log "$tarball missing (run scripts/deps.sh)"; exit 1; }

version=$(dpkg-query -W -f '${Version}' linux-source-6.12)
hash=$(cat "$fragment" "$0" | sha256sum | cut -c1-12)
dir=$cache/kernel/$version-$flavour$hash
mkdir -p "$dir"

exec 9>"$dir/.lock"
flock 9

if [ -e "$dir/.complete" ]; then
	echo "$dir/build"
	exit 0
fi

start=$(date +%s)
log "building kernel $version (config $hash) in $dir, -j$jobs"
rm -rf "$dir/src" "$dir/build"
mkdir -p "$dir/src" "$dir/build"
tar -xJf "$tarball" -C "$dir/src" --strip-components=1

make -s -C "$dir/src" O="$dir/build" tinyconfig >&2
"$dir/src/scripts/kconfig/merge_config.sh" -m -O "$dir/build" \
	"$dir/build/.config" "$fragment" >&2
make -s -C "$dir/src" O="$dir/build" olddefconfig >&2

# Refuse a kernel that silently dropped an option the tests depend on.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n)
		sym=${line%%=*}
		if grep -q "^$sym=" "$dir/build/.config"; then
			log "option not off: $line"; missing=1
		fi ;;
	CONFIG_*)
		if ! grep -qx "$line" "$dir/build/.config"; then
			log "option not set: $line"; missing=1
		fi ;;
	esac
done < "$fragment"
[ $missing = 0 ] || { log "the fragment does not apply; fix scripts/etw-test.config"; exit 1; }

make -s -C "$dir/src" O="$dir/build" -j"$jobs" bzImage modules >&2
make -s -C "$dir/src" O="$dir/build" modules_prepare >&2

touch "$dir/.complete"
log "done in $(($(date +%s) - start)) s"
echo "$dir/build"
