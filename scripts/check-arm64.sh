#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check ARCH=arm64: the tests on arm64, from this x86-64 host.
#   1. install what is missing, build (or reuse) the arm64 test kernel and
#      cross-build etw.ko, etw_test.ko, libetw, etwctl, the selftests, the
#      host tests and the examples with -Werror (scripts/build-arm64.sh) in
#      a scratch copy of the tree, build/arm64/tree;
#   2. the host tests under qemu-user (qemu-aarch64);
#   3. DKMS builds etw.ko for the arm64 test kernel from the source and
#      dkms.conf that etw-dkms installs (in scratch DKMS and source trees);
#   4. one boot of the arm64 test kernel on qemu-system-aarch64 (TCG):
#      KUnit, every kselftest, rmmod etw, and a scan of the console log;
#   5. the summary of scripts/testsum.py, as make check prints it.
# What x86-64's make check runs besides (fuzzing, lint, the 6.1 kernel,
# the Debian packages, the babeltrace2 plugin, the script tests) is not
# architecture-specific and is not repeated here.
#
#   scripts/check-arm64.sh [--into DIR]
#
# --into DIR (make check on x86-64): steps 1 to 3, their results added
# to DIR, make check's results, named NAME@arm64; no summary.  With
# ETW_ARM64_VM=1 (CI) step 4 too: vm@arm64.out, vm@arm64.rc and
# console@arm64.log, and "arm64" added to DIR/kernels, so that the summary
# expects every KUnit suite and kselftest as NAME@arm64.
# ETW_SELFTESTS="a_test b_test" runs, and expects, only those kselftests.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$(date +%s)
export ARCH=arm64 CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
export TESTDATA=${TESTDATA:-$top/../shared/testdata}
step() { echo "== $*" >&2; }

if [ "${1:-}" = --into ]; then
	results=$2
	tag=@arm64
else
	results=$top/build/check
	tag=
	rm -rf "$results"
	mkdir -p "$results"
	realpath -m "$TESTDATA" > "$results/testdata"
	step "dependencies"
	scripts/deps.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
fi

step "arm64 test kernel and cross build"
tree=$top/build/arm64/tree
kdir=$(scripts/build-kernel.sh 2> "$results/step-arm64-kernel$tag.out")
echo $? > "$results/step-arm64-kernel$tag.rc"
scripts/build-arm64.sh "$tree" > "$results/step-arm64-build$tag.out" 2>&1
rc=$?
echo $rc > "$results/step-arm64-build$tag.rc"
if [ $rc != 0 ] || [ -z "$kdir" ]; then
	tail -n 30 "$results/step-arm64-build$tag.out" >&2
	[ -n "$tag" ] && exit 1
	python3 scripts/testsum.py summarize "$results"
	exit 1
fi

step "host tests under qemu-aarch64"
unset ETW_MANIFEST_PATH ETW_MANIFEST_DEBUG
# The tests that compile programs find cc, c++, clang... on PATH: here
# scripts/qemu-cc, which cross-compiles and runs them on qemu-aarch64.
cross_bin=$results/qemu-cc
rm -rf "$cross_bin"
mkdir -p "$cross_bin"
for n in cc gcc c++ g++ clang clang++; do
	ln -s "$top/scripts/qemu-cc" "$cross_bin/$n"
done
for t in "$tree"/userlib/tests/*_test "$tree"/ctl/tests/*_test; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	(cd "$(dirname "$t")" && PATH=$cross_bin:$PATH timeout 900 qemu-aarch64 "./$name") \
		> "$results/host-$name$tag.out" 2>&1
	echo $? > "$results/host-$name$tag.rc"
done

step "DKMS build for the arm64 test kernel"
dkms_work=$results/dkms$tag
rm -rf "$dkms_work"
krel=$(cat "$kdir/include/config/kernel.release")
version=$(cat VERSION)
ko=$dkms_work/var/etw/$version/$krel/aarch64/module/etw.ko
{ make -s DESTDIR="$dkms_work" dkms-source &&
  mkdir -p "$dkms_work/var" &&
  dkms build -m etw -v "$version" -k "$krel" -a aarch64 --kernelsourcedir "$kdir" \
	--sourcetree "$dkms_work/usr/src" --dkmstree "$dkms_work/var" &&
  file "$ko" | grep -q 'ARM aarch64' &&
  [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$krel" ] &&
  echo "dkms: $ko: $(modinfo -F vermagic "$ko")"; } > "$results/step-arm64-dkms$tag.out" 2>&1
echo $? > "$results/step-arm64-dkms$tag.rc"
tail -n 1 "$results/step-arm64-dkms$tag.out" >&2

vm() {	# vm LOG: the VM suites on the arm64 test kernel, output on stdout
	[ -z "${ETW_SELFTESTS:-}" ] || echo "$ETW_SELFTESTS" > "$results/expected-kselftests"
	KDIR_TEST=$kdir "$tree/scripts/vm-run" --log "$1" --timeout 3600 \
		-- env ETW_SELFTESTS="${ETW_SELFTESTS:-}" sh /etw/selftests/run_vm_tests.sh
}

if [ -n "$tag" ]; then
	[ "${ETW_ARM64_VM:-}" = 1 ] || exit 0
	step "VM on arm64: KUnit, kselftests, rmmod, console log"
	echo "$(cat "$results/kernels" 2>/dev/null) arm64" > "$results/kernels"
	vm "$results/console@arm64.log" > "$results/vm@arm64.out" 2>&1
	echo $? > "$results/vm@arm64.rc"
	exit 0
fi

kver=$(cut -d. -f1,2 "$kdir/include/config/kernel.release")
echo "$kver-arm64" > "$results/kernels"
# The C host tests only: the script tests and the fuzzers are x86-64's.
(cd "$tree" && ls userlib/tests/*_test.c ctl/tests/*_test.c | xargs -n1 basename |
	sed 's/\.c$//') > "$results/expected-host"

step "VM on $kver arm64: KUnit, kselftests, rmmod, console log"
vm "$results/console.log" > "$results/vm.out" 2>&1
echo $? > "$results/vm.rc"

step "summary (took $(($(date +%s) - start)) s; logs in $results)"
python3 scripts/testsum.py summarize "$results"
