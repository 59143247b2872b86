#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kcsan: the concurrency tests on a KCSAN kernel.
#   1. builds (or finds) the KCSAN kernel: the test kernel with KCSAN in
#      place of KASAN (scripts/build-kernel.sh --kcsan; a full kernel
#      build, since every object is instrumented);
#   2. builds everything against it;
#   3. boots the VM on 2 vCPUs (VCPUS) and runs build/soak/etw_soak for
#      KCSAN_SOAK_SECONDS (default 120), then selftests/run_vm_tests.sh with
#      KUnit and the kselftests in KCSAN_TESTS (default: stress_test and
#      every *fuzz*_test there is);
#   4. lists every KCSAN report ("BUG: KCSAN: data-race in A / B") with a
#      count; a report whose first line contains a string in KNOWN below is
#      annotated, any other fails the run, as does any failed test.
# Logs in build/kcsan/.
set -uo pipefail

# Races examined and judged benign: "substring of the report line	why".
KNOWN=(
)

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/kcsan
rm -rf "$out"
mkdir -p "$out/check"
vcpus=${VCPUS:-2}
seconds=${KCSAN_SOAK_SECONDS:-120}

kdir=$(scripts/build-kernel.sh --kcsan) || exit 1
export KDIR_TEST=$kdir
if ! { make -s -j2 all KDIR="$kdir" && make -s build/soak/etw_soak; } \
	> "$out/build.out" 2>&1; then
	cat "$out/build.out" >&2
	exit 1
fi

tests=${KCSAN_TESTS:-$(cd selftests && ls stress_test *fuzz*_test 2>/dev/null | tr '\n' ' ')}
# The summary expects these kselftests, not every one the tree has, and
# no host test: this run is the VM's only.
echo "$tests" > "$out/check/expected-kselftests"
: > "$out/check/expected-host"
stage=$(mktemp -d /tmp/etw-kcsan.XXXXXX)
trap 'rm -rf "$stage"' EXIT
cp build/soak/etw_soak "$stage/"
cat > "$stage/guest.sh" <<GUEST
echo "@@SOAK-BEGIN@@"
$stage/etw_soak $seconds 5
echo "@@SOAK-RC@@ \$?"
ETW_SELFTESTS="$tests" sh /etw/selftests/run_vm_tests.sh
GUEST

echo "== VM ($vcpus vCPUs): etw_soak $seconds s, KUnit, $tests" >&2
scripts/vm-run --smp "$vcpus" --add "$stage" --log "$out/check/console.log" \
	--timeout $((seconds + 1800)) -- sh "$stage/guest.sh" \
	> "$out/check/vm.out" 2>&1
echo $? > "$out/check/vm.rc"

grep '^soak: total\|^soak: balanced\|^soak: FAILED' "$out/check/vm.out"
soak_rc=$(sed -n 's/^@@SOAK-RC@@ //p' "$out/check/vm.out")
python3 scripts/testsum.py summarize "$out/check" > "$out/tests.txt"
tests_rc=$?
grep -v '^ok\|^  ok' "$out/tests.txt" | tail -n 20

reports=$(grep -o 'BUG: KCSAN: .*' "$out/check/console.log" | sort | uniq -c)
bad=0
echo "kcsan: reports:${reports:+$'\n'$reports}${reports:- none}"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	why=
	for k in "${KNOWN[@]}"; do
		case "$line" in *"${k%%	*}"*) why=${k#*	} ;; esac
	done
	if [ -n "$why" ]; then
		echo "kcsan: annotated: $line: $why"
	else
		echo "kcsan: NOT annotated: $line"
		bad=1
	fi
done <<< "$reports"
[ "$soak_rc" = 0 ] || { echo "kcsan: etw_soak exited ${soak_rc:-?}"; bad=1; }
if [ $bad = 0 ] && [ $tests_rc = 0 ]; then
	echo "1 passed, 0 failed"
	exit 0
fi
echo "0 passed, 1 failed"
exit 1
