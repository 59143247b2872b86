#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test etw has.
#   1. install what is missing, build (or reuse) the test kernel, build all;
#   2. host tests (pure user-space code), the test-harness self-tests and
#      the babeltrace2 plugin's tests and the trace viewer test; each
#      libFuzzer target of userlib/fuzz/ for 30 s (scripts/fuzz-host.sh);
#   3. checkpatch --strict and sparse on the module; the module against
#      Debian's stock 6.1 headers; everything cross-built for arm64, its
#      host tests run under qemu-user and its module built by DKMS
#      (scripts/check-arm64.sh --into);
#   4. a VM boot per test kernel: KUnit (etw_test.ko), every kselftest,
#      rmmod etw, and a scan of the whole console log; the Debian packages
#      built, installed (with the DKMS-built module in a second boot), used
#      and purged;
#   5. a summary per suite, checked against what the tree says should run;
#      the last line is "N passed, N failed, N skipped" of the product's
#      tests (the steps are counted on the line above).
#
# KVER=6.1 (make check KVER=6.1) runs the VM suites on the 6.1 test kernel
# instead of 6.12; ETW_KVERS="6.12 6.1" (CI) on each, the first one also
# the kernel everything is built against.
# ETW_CHECK_PHASE=host runs the host phase alone (steps 1 and 2 without the
# kernel and fuzzing): what a clone anywhere must pass.
# TESTDATA=DIR: the Windows-written sample files (default ../shared/testdata
# beside the checkout); tests that need them skip where they are not, and
# the summary counts those skips on one line.
# ETW_INJECT_FAILURE=CASE makes one part fail on purpose, to prove that the
# summary notices (Documentation/testing.rst lists the cases).
# ETW_SELFTESTS="a_test b_test" runs, and expects, only those kselftests.
# ARCH=arm64 (make check ARCH=arm64) runs the tests on arm64 instead:
# scripts/check-arm64.sh.
# ETW_DEMO=DIR (set by .ci/run): DIR holds the main job's output (demo.out)
# and exit status (demo.rc); they count as one step, checked by
# scripts/demo-check.sh.
# ETW_CLONE=DIR (set by .ci/run): DIR holds the output (clone.out) and exit
# status (clone.rc) of the host phase run in a clone without ../shared;
# they count as one step.
# ETW_ARM64_VM=1 (set by .ci/run) boots the VM suites on the arm64 test
# kernel too, as NAME@arm64.
set -uo pipefail

[ "${ARCH:-x86}" != arm64 ] || exec "$(dirname "$0")/check-arm64.sh"

inject=${ETW_INJECT_FAILURE:-}
case "$inject" in
''|kunit|kselftest|warn|missing-suite|missing-etw-test-ko|missing-console-log|timeout) ;;
no-tests|totals|all-skipped) ;;
*)
	# A misspelt case would inject nothing and pass.
	echo "ETW_INJECT_FAILURE=$inject: no such case" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1 ;;
esac

phase=${ETW_CHECK_PHASE:-all}
case "$phase" in
all|host) ;;
*)
	echo "ETW_CHECK_PHASE=$phase: no such phase (host)" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1 ;;
esac
kvers=${ETW_KVERS:-${KVER:-6.12}}
read -r kver_main kvers_more <<< "$kvers"

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
results=$top/build/check
rm -rf "$results"
mkdir -p "$results"
start=$(date +%s)
# Where the Windows sample files are (the Makefile's TESTDATA default).
export TESTDATA=${TESTDATA:-$top/../shared/testdata}
realpath -m "$TESTDATA" > "$results/testdata"

step() { echo "== $*" >&2; }

step "dependencies"
scripts/deps.sh || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }

if [ -n "${ETW_DEMO:-}" ]; then
	step "the main job's output"
	rc=$(cat "$ETW_DEMO/demo.rc" 2>/dev/null || echo missing)
	if [ "$rc" != 0 ]; then
		{ echo "demo: FAILED: make demo exited $rc"
		  tail -n 20 "$ETW_DEMO/demo.out"; } > "$results/step-demo.out"
		echo 1 > "$results/step-demo.rc"
	else
		scripts/demo-check.sh "$ETW_DEMO/demo.out" > "$results/step-demo.out" 2>&1
		echo $? > "$results/step-demo.rc"
	fi
	head -n 1 "$results/step-demo.out" >&2
fi

if [ -n "${ETW_CLONE:-}" ]; then
	step "the host phase in a clone without ../shared"
	rc=$(cat "$ETW_CLONE/clone.rc" 2>/dev/null || echo missing)
	{ [ "$rc" = 0 ] || echo "clone-host-phase: FAILED: exit status $rc"
	  grep -a 'FAILED\|^skipped for want\|^steps\|passed, .* failed' "$ETW_CLONE/clone.out" |
		grep -v '^host/\|^step/' | tail -n 40; } > "$results/step-clone-host-phase.out"
	echo "$rc" > "$results/step-clone-host-phase.rc"
	tail -n 1 "$results/step-clone-host-phase.out" >&2
fi

if [ "$phase" = host ]; then
	echo host > "$results/phases"
	build_targets=(lib ctl bt2)
	kdir=
else
	step "test kernel $kver_main"
	kdir=$(KVER=$kver_main scripts/build-kernel.sh) ||
		{ echo "0 passed, 1 failed, 0 skipped"; exit 1; }
	export KDIR_TEST=$kdir
	echo "$kvers" > "$results/kernels"
	build_targets=(all KDIR="$kdir")
fi

step "build"
if ! make -s -j"$(nproc)" "${build_targets[@]}" KCFLAGS=-Werror > "$results/step-build.out" 2>&1; then
	cat "$results/step-build.out" >&2
	echo 1 > "$results/step-build.rc"
	python3 scripts/testsum.py summarize "$results"
	exit 1
fi
echo 0 > "$results/step-build.rc"

step "host tests"
make -s hosttests > "$results/step-hosttests-build.out" 2>&1
echo $? > "$results/step-hosttests-build.rc"
# TDH reads the manifests on ETW_MANIFEST_PATH by itself: not the caller's.
unset ETW_MANIFEST_PATH ETW_MANIFEST_DEBUG
for t in userlib/tests/*_test ctl/tests/*_test; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	(cd "$(dirname "$t")" && timeout 600 "./$name") > "$results/host-$name.out" 2>&1
	echo $? > "$results/host-$name.rc"
done
python3 scripts/tests/testsum_test.py > "$results/host-testsum_test.out" 2>&1
echo $? > "$results/host-testsum_test.rc"
# make mutate's table still applies to the code (builds and boots nothing).
scripts/mutate.sh --check > "$results/step-mutate-check.out" 2>&1
echo $? > "$results/step-mutate-check.rc"
# etwctl forward into a systemd-journal-remote it starts (root).
scripts/tests/forward_test.sh > "$results/host-forward_test.out" 2>&1
echo $? > "$results/host-forward_test.rc"
# The babeltrace2 plugin, converting .etl files to CTF (make all built it).
python3 scripts/tests/bt2_test.py > "$results/host-bt2_test.out" 2>&1
echo $? > "$results/host-bt2_test.rc"
scripts/tests/viewer_test.sh > "$results/host-viewer_test.out" 2>&1
echo $? > "$results/host-viewer_test.rc"

# Host-side cases of ETW_INJECT_FAILURE, each a real run of a host test.
case "$inject" in
no-tests)
	# A filter that no test matches: a plan of 1..0 and zero totals.
	(cd userlib/tests && ./guid_test -t no_such_test) > "$results/host-guid_test.out" 2>&1
	echo $? > "$results/host-guid_test.rc" ;;
totals)
	# Totals that count a failure no result line shows.
	sed -i 's/^# Totals: pass:\([0-9]*\) fail:0 /# Totals: pass:\1 fail:1 /' \
		"$results/host-guid_test.out" ;;
all-skipped)
	# Without MinGW-w64 on PATH every test of the program skips.
	(cd userlib/tests && PATH=/nonexistent ./mingw_layout_test) \
		> "$results/host-mingw_layout_test.out" 2>&1
	echo $? > "$results/host-mingw_layout_test.rc" ;;
esac

if [ "$phase" = host ]; then
	step "summary of the host phase (took $(($(date +%s) - start)) s; logs in $results)"
	python3 scripts/testsum.py summarize "$results"
	exit
fi

step "host fuzzing, 30 s per target"
# host-fuzz-TARGET.out and .rc: one result each, failed by any crash.
scripts/fuzz-host.sh --results "$results" 30

step "checkpatch and sparse"
scripts/lint.sh checkpatch "$kdir" > "$results/step-checkpatch.out" 2>&1
echo $? > "$results/step-checkpatch.rc"
scripts/lint.sh sparse "$kdir" > "$results/step-sparse.out" 2>&1
echo $? > "$results/step-sparse.rc"
scripts/lint.sh uapi "$kdir" > "$results/step-uapi-standalone.out" 2>&1
echo $? > "$results/step-uapi-standalone.rc"
scripts/lint.sh kerneldoc "$kdir" > "$results/step-kerneldoc.out" 2>&1
echo $? > "$results/step-kerneldoc.rc"

step "module against Debian's 6.1 headers"
scripts/build-6.1.sh > "$results/step-kmod-6.1-build.out" 2>&1
echo $? > "$results/step-kmod-6.1-build.rc"

step "arm64: cross build, host tests under qemu-user, DKMS"
# Results NAME@arm64; make check ARCH=arm64 boots the VM suites too.
scripts/check-arm64.sh --into "$results"

step "VM on $kver_main: KUnit, kselftests, rmmod, console log"
# The summary expects every kselftest unless the run was limited on purpose.
[ -z "${ETW_SELFTESTS:-}" ] || echo "$ETW_SELFTESTS" > "$results/expected-kselftests"
vm_args=(--log "$results/console.log")
vm_timeout=1800
guest=(env ETW_INJECT_FAILURE="$inject" ETW_SELFTESTS="${ETW_SELFTESTS:-}"
	sh /etw/selftests/run_vm_tests.sh)
case "$inject" in
missing-etw-test-ko)
	# The guest gets what a kernel without CONFIG_KUNIT builds: etw.ko only.
	mkdir "$results/modules"
	cp kmod/etw.ko "$results/modules/"
	vm_args+=(--modules "$results/modules") ;;
timeout)
	# A guest that hangs, and a limit short enough to wait for.
	vm_timeout=60
	guest=(sleep 3600) ;;
esac
scripts/vm-run "${vm_args[@]}" --timeout "$vm_timeout" -- "${guest[@]}" > "$results/vm.out" 2>&1
echo $? > "$results/vm.rc"
# As if vm-run had written no log.
[ "$inject" != missing-console-log ] || rm "$results/console.log"

# Each further kernel: etw.ko and etw_test.ko built against it with
# -Werror in a scratch copy (the tree's objects are the first kernel's),
# then the same guest run; results vm@K.out, vm@K.rc, console@K.log.
for k in $kvers_more; do
	step "VM on $k: test kernel, module, KUnit, kselftests, rmmod, console log"
	scratch=$results/kmod@$k
	kd=$(KVER=$k scripts/build-kernel.sh 2> "$results/step-kernel-$k.out")
	echo $? > "$results/step-kernel-$k.rc"
	# Without its kernel or module, no vm@K.rc: its suites did not run.
	[ -n "$kd" ] || continue
	mkdir -p "$scratch"
	cp -r Kbuild VERSION kmod uapi "$scratch/"
	find "$scratch" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name '*.a' -o -name 'Module.symvers' -o -name 'modules.order' \) -delete
	make -s -j"$(nproc)" -C "$kd" M="$scratch" KCFLAGS=-Werror modules \
		> "$results/step-kmod-$k-test-kernel-build.out" 2>&1
	echo $? > "$results/step-kmod-$k-test-kernel-build.rc"
	[ -r "$scratch/kmod/etw.ko" ] || continue
	KDIR_TEST=$kd scripts/vm-run --log "$results/console@$k.log" --timeout 1800 \
		--modules "$scratch/kmod" -- env ETW_SELFTESTS="${ETW_SELFTESTS:-}" \
		sh /etw/selftests/run_vm_tests.sh > "$results/vm@$k.out" 2>&1
	echo $? > "$results/vm@$k.rc"
done

step "Debian packages: built, installed, used, purged"
# TAP (one result per check) like a host test's; scripts/deb-test.sh.
scripts/deb-test.sh > "$results/host-deb_test.out" 2>&1
echo $? > "$results/host-deb_test.rc"

step "summary (took $(($(date +%s) - start)) s; logs in $results)"
python3 scripts/testsum.py summarize "$results"
