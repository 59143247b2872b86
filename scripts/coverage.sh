#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make coverage: line coverage of etw.ko by KUnit and every kselftest.
#   1. builds (or finds) the coverage kernel: the test kernel plus gcov
#      (scripts/build-kernel.sh --coverage);
#   2. builds a copy of the module sources in build/coverage/tree with
#      GCOV_PROFILE=y, and the user-space programs as make all does;
#   3. boots the VM once on that kernel with that etw.ko and runs
#      selftests/run_vm_tests.sh, as make check does; then copies the
#      module's .gcda files out of /sys/kernel/debug/gcov (the kernel keeps
#      an unloaded module's data there) as base64 on the guest's stdout;
#   4. runs gcov on the host and prints the line coverage of every
#      kmod/*.c and the total.  The uncovered lines, with their source, go
#      to build/coverage/uncovered.txt; gcov's annotated files stay in
#      build/coverage/tree/.
# --report redoes step 4 only, on the data of the last run.
# The test results of the run are summarised too (scripts/testsum.py), but
# only the coverage figures decide nothing: the exit status is the tests'.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=$top/build/coverage
tree=$out/tree
if [ "${1:-}" = --report ]; then
	report_only=1
else
	report_only=0
	rm -rf "$out"
	mkdir -p "$out/check" "$tree"
	# The VM suites only: no host test is expected.
	: > "$out/check/expected-host"
fi

if [ $report_only = 0 ]; then
kdir=$(scripts/build-kernel.sh --coverage) || exit 1
export KDIR_TEST=$kdir

echo "== build (gcov etw.ko in $tree)" >&2
cp -a Kbuild VERSION kmod uapi "$tree/"
find "$tree" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
	-o -name '*.gcno' -o -name '*.gcda' -o -name '*.a' -o -name 'modules.order' \
	-o -name 'Module.symvers' \) -delete
if ! { make -s -C "$kdir" M="$tree" GCOV_PROFILE=y modules &&
       make -s -j2 lib ctl selftests examples; } > "$out/build.out" 2>&1; then
	cat "$out/build.out" >&2
	exit 1
fi
ls "$tree"/kmod/*.gcno > /dev/null 2>&1 ||
	{ echo "coverage: no .gcno files: was the module built with gcov?" >&2; exit 1; }

cat > "$out/guest.sh" <<GUEST
sh /etw/selftests/run_vm_tests.sh
# debugfs gcov files have no size: copy them before archiving.
mkdir -p /tmp/gcov
cd /sys/kernel/debug/gcov$tree || exit 0
for f in \$(find . -name '*.gcda'); do
	mkdir -p /tmp/gcov/\$(dirname \$f)
	cat \$f > /tmp/gcov/\$f
done
echo "@@GCDA-BEGIN@@"
tar czf - -C /tmp/gcov . | base64
echo "@@GCDA-END@@"
GUEST

echo "== VM: KUnit, kselftests, rmmod, gcov data" >&2
scripts/vm-run --modules "$tree/kmod" --add "$out/guest.sh" \
	--log "$out/check/console.log" --timeout 2400 -- \
	sh "$out/guest.sh" > "$out/vm-full.out" 2>&1
echo $? > "$out/check/vm.rc"
sed '/^@@GCDA-BEGIN@@$/,/^@@GCDA-END@@$/d' "$out/vm-full.out" > "$out/check/vm.out"
sed -n '/^@@GCDA-BEGIN@@$/,/^@@GCDA-END@@$/p' "$out/vm-full.out" |
	sed '1d;$d' | base64 -d | tar xzf - -C "$tree" ||
	echo "coverage: no gcov data came back from the guest" >&2

echo "== tests" >&2
python3 scripts/testsum.py summarize "$out/check" > "$out/tests.txt"
fi
tests_rc=$(tail -n 1 "$out/tests.txt" | grep -q ' 0 failed' && echo 0 || echo 1)
tail -n 1 "$out/tests.txt"

echo "== coverage" >&2
rm -f "$tree"/*.gcov "$tree"/*.gcov.json.gz
srcs=()
for f in "$tree"/kmod/*.c; do
	case "$f" in *.mod.c) ;; *) srcs+=("kmod/${f##*/}") ;; esac
done
(cd "$tree" && gcov -o kmod -j "${srcs[@]}" > "$out/gcov.out" 2>&1 &&
	gcov -o kmod "${srcs[@]}" > /dev/null 2>&1)
python3 - "$tree" "$out/uncovered.txt" <<'PY'
import glob, gzip, json, os, sys

tree, uncovered_path = sys.argv[1], sys.argv[2]
files = {}
for path in glob.glob(os.path.join(tree, '*.gcov.json.gz')):
    data = json.load(gzip.open(path))
    for f in data['files']:
        name = os.path.relpath(os.path.join(tree, f['file']), tree)
        if not (os.path.dirname(name) == 'kmod' and name.endswith('.c')
                and not name.endswith('.mod.c')):
            continue
        lines = files.setdefault(name, {})
        for line in f['lines']:
            n = line['line_number']
            lines[n] = max(lines.get(n, 0), line['count'])
if not files:
    print('coverage: no data')
    sys.exit(1)
tot_hit = tot_all = 0
print('%-24s %7s %7s %7s' % ('file', 'lines', 'hit', 'cover'))
with open(uncovered_path, 'w') as u:
    for name in sorted(files):
        lines = files[name]
        hit = sum(1 for c in lines.values() if c > 0)
        tot_hit += hit
        tot_all += len(lines)
        print('%-24s %7d %7d %6.1f%%' % (name, len(lines), hit,
                                          100.0 * hit / len(lines)))
        src = open(os.path.join(tree, name), errors='replace').read().splitlines()
        missed = sorted(n for n, c in lines.items() if c == 0)
        u.write('== %s: %d of %d lines not run\n' % (name, len(missed), len(lines)))
        for n in missed:
            u.write('%5d: %s\n' % (n, src[n - 1] if n <= len(src) else ''))
print('%-24s %7d %7d %6.1f%%' % ('total', tot_all, tot_hit,
                                  100.0 * tot_hit / tot_all))
PY
echo "coverage: uncovered lines in $out/uncovered.txt; test summary in $out/tests.txt" >&2
exit $tests_rc
