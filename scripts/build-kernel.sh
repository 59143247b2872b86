#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the test kernel from Debian's linux-source-$KVER (KVER 6.12,
# the default, or 6.1: Debian 12's own kernel) with the fragment
# scripts/etw-test.config (or, with --bench, the benchmark kernel
# from scripts/etw-bench.config; with --coverage or --kcsan, the test kernel
# overlaid with scripts/etw-coverage.config or scripts/etw-kcsan.config),
# and print the build directory (KDIR).
#
# ARCH=arm64 (with CROSS_COMPILE, default aarch64-linux-gnu-) builds the
# test kernel for arm64 instead: the test fragment overlaid with
# scripts/etw-arm64.config (what QEMU's virt machine needs), from the same
# source, cached under its own key.  Only the test kernel has an arm64 form.
#
# The build is cached in $ETW_CACHE (default ~/.cache/etw) under a key made
# of the kernel version, a hash of the fragment and $recipe below (raise it
# when a change here changes the kernel), so it is rebuilt only when one of
# those changes.  A build that did not finish leaves no stamp and is redone.
# The compiler's output goes to build.log in the cache directory, named on
# failure; stderr gets one progress line; stdout carries only the path.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
fragment=$here/etw-test.config
flavour=
overlay=
case "${1:-}" in
--bench)
	fragment=$here/etw-bench.config
	flavour=bench- ;;
--coverage)
	# The test kernel plus gcov (make coverage).
	overlay=$here/etw-coverage.config
	flavour=coverage- ;;
--kcsan)
	# The test kernel with KCSAN in place of KASAN (make kcsan).
	overlay=$here/etw-kcsan.config
	flavour=kcsan- ;;
esac
# The kernel's own ARCH names; empty or x86 for the host's x86-64.
arch=${ARCH:-x86}
case "$arch" in
x86|x86_64) arch=x86 ;;
arm64)
	if [ -n "$flavour" ]; then
		echo "build-kernel: ARCH=arm64: only the test kernel (no $1)" >&2
		exit 1
	fi
	export CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
	overlay=$here/etw-arm64.config
	flavour=arm64- ;;
*)
	echo "build-kernel: ARCH=$arch: the test kernels are x86 and arm64" >&2
	exit 1 ;;
esac
export ARCH=$arch
kver=${KVER:-6.12}
case "$kver" in
6.1|6.12) ;;
*)
	echo "build-kernel: KVER=$kver: the test kernels are 6.12 and 6.1" >&2
	exit 1 ;;
esac
tarball=/usr/src/linux-source-$kver.tar.xz
cache=${ETW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/etw}
jobs=${JOBS:-$(($(nproc) + 1))}

log() { echo "build-kernel: $*" >&2; }

[ -r "$tarball" ] || { log "$tarball missing (run scripts/deps.sh)"; exit 1; }

version=$(dpkg-query -W -f '${Version}' "linux-source-$kver")
recipe=2
# The fragment of this kernel, composed here at each run so that the
# flavours cannot drift from the test kernel: a flavour with an overlay is
# the test fragment with every symbol the overlay names replaced by the
# overlay's line.  The key is the hash of what is composed.
composed=$(mktemp /tmp/etw-fragment.XXXXXX)
trap 'rm -f "$composed" "$composed.new"' EXIT
cp "$fragment" "$composed"
sources=$fragment${overlay:+ and $overlay}
fragment=$composed
# recompose COMMAND...: the fragment becomes COMMAND's output on it.
recompose() {
	"$@" "$composed" > "$composed.new" && mv "$composed.new" "$composed"
}
if [ -n "$overlay" ]; then
	syms=$(grep -o '^CONFIG_[A-Za-z0-9_]*' "$overlay" | sed 's/$/=/')
	recompose grep -v -F "$syms"
	{ echo; cat "$overlay"; } >> "$composed"
fi
# 6.1's user_events depends on BROKEN (its ABI settled in 6.4): the 6.1
# benchmark kernel has none, and write_bench prints that it is missing.
if [ "$flavour" = bench- ] && [ "$kver" = 6.1 ]; then
	recompose grep -v '^CONFIG_USER_EVENTS='
fi
# 6.1's fault-injection stack filter excludes x86-64 (allowed from 6.3):
# its x86-64 test kernels have none, and fault_test's load row skips.
if [ "$flavour" != bench- ] && [ "$kver" = 6.1 ] && [ "$arch" = x86 ]; then
	recompose sed '/^# Faults only in the module.s own code/,/^CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=/d'
fi
hash=$( (cat "$fragment"; echo "recipe $recipe") | sha256sum | cut -c1-12)
dir=$cache/kernel/$version-$flavour$hash
mkdir -p "$dir"

exec 9>"$dir/.lock"
flock 9

# (src/ of an overlay flavour is a link to the test kernel's: see below.)
if [ -e "$dir/.complete" ] && [ -d "$dir/src/" ]; then
	echo "$dir/build"
	exit 0
fi

# An overlay flavour starts from a copy of the test kernel's build tree and
# shares its sources, so that make recompiles only what the overlay's
# options reach (gcov: a few files, minutes instead of the half hour a
# full build takes on a busy 2-core machine; KCSAN: everything).  Its
# src/ is a link to the test kernel's: when that goes, this one is rebuilt.
# The arm64 kernel has nothing to share with the x86 one: a full build.
base=
if [ -n "$overlay" ] && [ "$arch" = x86 ]; then
	base=$("$0")
fi

start=$(date +%s)
buildlog=$dir/build.log
log "one-time build of the ${flavour}test kernel $version (config $hash):"
log "about 5-10 minutes on 2 cores; output in $buildlog"
rm -rf "$dir/src" "$dir/build"
if [ -n "$base" ]; then
	ln -s "$(dirname "$base")/src" "$dir/src"
	cp -a "$base" "$dir/build"
	rm -f "$dir/build/Makefile"	# names the test kernel's tree
else
	mkdir -p "$dir/src" "$dir/build"
fi
exec 3>&2 2>"$buildlog"
failed() {
	echo "build-kernel: failed; the last lines of $buildlog:" >&3
	tail -n 30 "$buildlog" >&3
}
trap failed ERR
if [ -z "$base" ]; then
	tar -xJf "$tarball" -C "$dir/src" --strip-components=1
	make -s -C "$dir/src" O="$dir/build" tinyconfig >&2
fi

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
if [ $missing != 0 ]; then
	trap - ERR
	echo "build-kernel: the fragment does not apply; fix $sources" >&3
	grep '^build-kernel: option' "$buildlog" >&3
	exit 1
fi

echo "build-kernel: compiling (started $(date +%H:%M:%S))" >&3
image=bzImage
[ "$arch" = x86 ] || image=Image
make -s -C "$dir/src" O="$dir/build" -j"$jobs" $image modules >&2
make -s -C "$dir/src" O="$dir/build" modules_prepare >&2
trap - ERR
exec 2>&3 3>&-

touch "$dir/.complete"
log "done in $(($(date +%s) - start)) s"
echo "$dir/build"
