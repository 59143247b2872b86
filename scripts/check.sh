#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: every test etw has.
#   1. install what is missing, build (or reuse) the test kernel, build all;
#   2. host tests (pure user-space code), the test-harness self-tests and
#      the babeltrace2 plugin's tests and the trace viewer test; each
#      libFuzzer target of userlib/fuzz/ for 30 s (scripts/fuzz-host.sh);
#   3. checkpatch --strict and sparse on the module; the module against
#      Debian's stock 6.1 headers;
#   4. one VM boot: KUnit (etw_test.ko), every kselftest, rmmod etw, and a
#      scan of the whole console log; the Debian packages built, installed
#      (with the DKMS-built module in a second boot), used and purged;
#   5. a summary per suite, checked against what the tree says should run;
#      the last line is "N passed, N failed, N skipped".
#
# ETW_INJECT_FAILURE=CASE makes one part fail on purpose, to prove that the
# summary notices (Documentation/testing.rst lists the cases).
# ETW_SELFTESTS="a_test b_test" runs, and expects, only those kselftests.
# ETW_DEMO=DIR (set by .ci/run): DIR holds the main job's output (demo.out)
# and exit status (demo.rc); they count as one step, checked by
# scripts/demo-check.sh.
set -uo pipefail

inject=${ETW_INJECT_FAILURE:-}
case "$inject" in
''|kunit|kselftest|warn|missing-suite|missing-etw-test-ko|missing-console-log|timeout) ;;
*)
	# A misspelt case would inject nothing and pass.
	echo "ETW_INJECT_FAILURE=$inject: no such case" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit 1 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
results=$top/build/check
rm -rf "$results"
mkdir -p "$results"
start=$(date +%s)

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

step "test kernel"
kdir=$(scripts/build-kernel.sh) || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
export KDIR_TEST=$kdir

step "build"
if ! make -s -j"$(nproc)" all KDIR="$kdir" KCFLAGS=-Werror > "$results/step-build.out" 2>&1; then
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
# etwctl forward into a systemd-journal-remote it starts (root).
scripts/tests/forward_test.sh > "$results/host-forward_test.out" 2>&1
echo $? > "$results/host-forward_test.rc"
# The babeltrace2 plugin, converting .etl files to CTF (make all built it).
python3 scripts/tests/bt2_test.py > "$results/host-bt2_test.out" 2>&1
echo $? > "$results/host-bt2_test.rc"
scripts/tests/viewer_test.sh > "$results/host-viewer_test.out" 2>&1
echo $? > "$results/host-viewer_test.rc"

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

step "VM: KUnit, kselftests, rmmod, console log"
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

step "Debian packages: built, installed, used, purged"
# TAP (one result per check) like a host test's; scripts/deb-test.sh.
scripts/deb-test.sh > "$results/host-deb_test.out" 2>&1
echo $? > "$results/host-deb_test.rc"

step "summary (took $(($(date +%s) - start)) s; logs in $results)"
python3 scripts/testsum.py summarize "$results"
