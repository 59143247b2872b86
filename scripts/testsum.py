#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a `make check` run and scan the VM console log.

    testsum.py summarize RESULTS_DIR

RESULTS_DIR holds what scripts/check.sh collected:
  host-NAME.out / host-NAME.rc    a host test binary (kselftest harness TAP),
                                  or a libFuzzer target's run (NAME
                                  fuzz-TARGET, scripts/fuzz-host.sh)
  step-NAME.rc [+ .out]           a single pass/fail step (a build, say)
  vm.out, vm.rc, console.log      the guest stream, vm-run's status, the log
  expected-kselftests             ETW_SELFTESTS, when it limited the run
  expected-host                   the host tests a run that is not make
                                  check expects (empty for a VM-only run:
                                  make coverage, make kcsan)

What should have run is read from the source tree this script sits in (see
expected_tests); whatever did not run fails the run.

Prints one line per suite, the behaviour and layout counts and, last,
"N passed, N failed, N skipped".  Exits 1 when anything failed.
"""
import glob
import os
import re
import sys

TREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RESULT = re.compile(r'^(\s*)(ok|not ok) (\d+)(?: - | )?([^#]*?)\s*(?:#\s*(\w+)(.*))?$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)')
# A kselftest program that skipped itself as a whole (ksft_exit_skip()).
KSFT_SKIP_ALL = re.compile(r'^1\.\.0 # SKIP\s*(.*)$')
KUNIT_TOTALS = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)')
KSFT_TOTALS = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) '
                         r'xpass:(\d+) skip:(\d+) error:(\d+)')
KUNIT_SUITE = re.compile(r'struct\s+kunit_suite\s+\w+\s*=\s*\{[^;]*?'
                         r'\.name\s*=\s*"([^"]+)"')

# Harness fixtures with one variant per struct table of
# userlib/tests/data/layout_table.h: each result is one table's static
# size-and-offsets comparison, counted apart from tests of behaviour.
LAYOUT_FIXTURES = ('layout', 'mingw')

# Console lines that fail a run whatever the tests said.
BAD_CONSOLE = [
    re.compile(p) for p in (
        r'BUG: KASAN',
        r'UBSAN:',
        r'WARNING: (possible|suspicious|inconsistent|bad unlock|'
        r'held lock|lock held|circular|nested lock)',
        r'WARNING:',
        r'BUG:',
        r'Oops',
        r'general protection fault',
        r'Kernel panic',
        r'INFO: task .* blocked for more than',
        r'INFO: (possible|inconsistent|trying to register)',
        r'kernel BUG at',
        r'Call Trace:',
        r'list_(add|del) corruption',
        r'refcount_t: ',
        r'kmemleak: \d+ new suspected memory leak',
        r'unreferenced object 0x',
        r'ODEBUG:',
        r'stack-protector',
    )
]

# What vm-run's exit status means (scripts/vm-run); a missing vm.rc reads
# as ''.
VM_STATUS = {
    '': 'vm-run: did not run (no vm.rc)',
    '124': 'vm-run: guest timed out (status 124)',
    '125': 'vm-run: insmod etw.ko failed or the guest died (status 125)',
}


class Suite:
    def __init__(self, name, layout=False):
        self.name = name
        self.layout = layout
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []

    def count(self):
        return self.passed + self.failed + self.skipped

    def add(self, ok, name, directive=None):
        if directive and directive.upper() == 'SKIP':
            self.skipped += 1
        elif ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)


def expected_tests(tree):
    """The suites a full run reports, by kind, as found in the sources.

    KUnit: every `struct kunit_suite` defined in kmod/tests/, by its .name
    (one that is not registered or not linked into etw_test.ko does not
    run, and should fail the run).  Kselftests: selftests/*_test.c.  Host
    tests: userlib/tests/*_test.c, ctl/tests/*_test.c, testsum_test,
    the script tests bt2_test, viewer_test and forward_test when the tree
    has them, and fuzz-TARGET for each libFuzzer target
    userlib/fuzz/TARGET_fuzz.c.
    """
    def stems(pattern):
        return {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(tree, pattern))}

    kunit = set()
    for path in glob.glob(os.path.join(tree, 'kmod/tests/*.c')):
        kunit.update(KUNIT_SUITE.findall(read(path)))
    host = stems('userlib/tests/*_test.c') | stems('ctl/tests/*_test.c')
    for script in ('bt2_test.py', 'viewer_test.sh', 'forward_test.sh'):
        if os.path.exists(os.path.join(tree, 'scripts/tests', script)):
            host.add(os.path.splitext(script)[0])
    host |= {'fuzz-' + n[:-len('_fuzz')] for n in stems('userlib/fuzz/*_fuzz.c')}
    return {'kunit': kunit, 'kselftest': stems('selftests/*_test.c'),
            'host': host | {'testsum_test'}}


def plan_mismatches(text):
    """Return (planned, reported) for each "1..N" plan in KTAP/TAP text
    that was not followed by N results at its own indentation."""
    open_plans, bad = {}, []

    def close(deeper_than):
        for indent in sorted(i for i in open_plans if i > deeper_than):
            planned, seen = open_plans.pop(indent)
            if planned != seen:
                bad.append((planned, seen))

    for line in text.splitlines():
        m = PLAN.match(line)
        if m:
            close(len(m.group(1)) - 1)
            open_plans[len(m.group(1))] = [int(m.group(2)), 0]
            continue
        m = RESULT.match(line)
        if m:
            indent = len(m.group(1))
            close(indent)
            if indent in open_plans:
                open_plans[indent][1] += 1
    close(-1)
    return bad


def check_plans(suite, label, text):
    for planned, seen in plan_mismatches(text):
        suite.add(False, '%s: plan 1..%d, %d results' % (label, planned, seen))


def parse_ktap_suite(name, text):
    """Count one KUnit suite's debugfs results.

    KUnit's own "# Totals:" line gives the counts (every parameter of a
    parameterised case counts); the failed cases are named from the
    results below the suite's own line.  Without a totals line (older
    kernels), the cases one level below the suite are counted.
    """
    suite = Suite('kunit/' + name)
    lines = text.splitlines()
    results = [(len(m.group(1)), m) for m in map(RESULT.match, lines) if m]
    if not results:
        suite.add(False, 'kunit %s: no results' % name)
        return suite
    indents = sorted({i for i, _ in results})
    case_indent = indents[1] if len(indents) > 1 else indents[0]
    for indent, m in results:
        if indent == case_indent:
            suite.add(m.group(2) == 'ok', m.group(4).strip(), m.group(5))
    totals = [KUNIT_TOTALS.match(l) for l in lines]
    totals = [m for m in totals if m]
    if totals:
        p, f, s, _ = (int(x) for x in totals[-1].groups())
        suite.passed, suite.skipped = p, s
        suite.failed = max(f, suite.failed)
    top = [m for i, m in results if i == indents[0]]
    if (len(indents) > 1 and top and top[-1].group(2) == 'not ok'
            and not suite.failed):
        suite.add(False, 'kunit %s: suite reported failure' % name)
    check_plans(suite, 'kunit ' + name, text)
    return suite


def parse_ksft(kind, name, text, rc):
    """Count one kselftest_harness binary's results from its TAP.  Returns
    a list: the suite, then its results of the LAYOUT_FIXTURES if any."""
    suite = Suite('%s/%s' % (kind, name))
    layout = Suite(suite.name + ' [layout]', layout=True)
    totals = None
    for line in text.splitlines():
        m = KSFT_TOTALS.match(line.strip())
        if m:
            totals = [int(x) for x in m.groups()]
            continue
        m = RESULT.match(line)
        if m and not m.group(1):
            test = m.group(4).strip()
            parts = test.split('.')
            into = layout if len(parts) == 3 and parts[0] in LAYOUT_FIXTURES else suite
            into.add(m.group(2) == 'ok', test, m.group(5))
    label = '%s %s' % (kind, name)
    skip_all = [m.group(1) for m in map(KSFT_SKIP_ALL.match, text.splitlines()) if m]
    if totals is None and skip_all and rc == 4:
        # No test could run (no /dev/etw, say): one skipped result.
        suite.add(True, '%s: %s' % (label, skip_all[0]), 'SKIP')
    elif totals is None:
        # It stopped early: its plan disagrees too, say it once.
        suite.add(False, '%s: no totals (crashed? exit %s)' % (label, rc))
    else:
        if rc not in (0, 4) and not suite.failed + layout.failed:
            suite.add(False, '%s: exit status %s' % (label, rc))
        check_plans(suite, label, text)
    return [suite, layout] if layout.count() else [suite]


def scan_console(text):
    """Return the console lines that report a kernel problem."""
    bad = []
    for line in text.splitlines():
        if any(p.search(line) for p in BAD_CONSOLE):
            bad.append(line.strip())
    return bad


def split_vm_output(text):
    """Split the guest stream into KUnit suites, kselftests and markers."""
    kunit, ksft, marks = {}, {}, {}
    cur_kunit = cur_ksft = None
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s.startswith('@@KUNIT-SUITE@@'):
            cur_kunit = s.split()[1]
            kunit[cur_kunit] = ''
            continue
        if s == '@@KUNIT-END@@':
            cur_kunit = None
            marks['kunit-end'] = True
            continue
        if s.startswith('@@KSFT-BEGIN@@'):
            cur_ksft = s.split()[1]
            ksft[cur_ksft] = ['', None]
            continue
        if s.startswith('@@KSFT-END@@'):
            parts = s.split()
            ksft[parts[1]][1] = int(parts[2])
            cur_ksft = None
            continue
        if s.startswith('@@'):
            parts = s.split()
            marks[parts[0].strip('@')] = parts[1] if len(parts) > 1 else True
            continue
        if cur_kunit:
            kunit[cur_kunit] += line
        elif cur_ksft:
            ksft[cur_ksft][0] += line
    return kunit, ksft, marks


def read(path, default=''):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return default


def totals(suites):
    return [sum(getattr(s, c) for s in suites) for c in ('passed', 'failed', 'skipped')]


def summarize(d, tree=TREE):
    expected = expected_tests(tree)
    only = read(os.path.join(d, 'expected-kselftests'), None)
    if only is not None:
        expected['kselftest'] = set(only.split())
    host_only = read(os.path.join(d, 'expected-host'), None)
    if host_only is not None:
        expected['host'] = set(host_only.split())
    suites = []
    for f in sorted(os.listdir(d)):
        if f.startswith('host-') and f.endswith('.out'):
            name = f[5:-4]
            rc = int(read(os.path.join(d, 'host-%s.rc' % name), '1').strip() or 1)
            suites.extend(parse_ksft('host', name, read(os.path.join(d, f)), rc))
    for f in sorted(os.listdir(d)):
        if f.startswith('step-') and f.endswith('.rc'):
            name = f[5:-3]
            s = Suite('step/' + name)
            s.add(read(os.path.join(d, f)).strip() == '0', name)
            suites.append(s)
    suites.extend(summarize_vm(d))
    ran = {s.name for s in suites}
    for kind in ('host', 'kunit', 'kselftest'):
        for name in sorted(expected[kind]):
            if '%s/%s' % (kind, name) not in ran:
                s = Suite('%s/%s' % (kind, name))
                s.add(False, '%s %s: expected, did not run' % (kind, name))
                suites.append(s)
    for s in suites:
        print('%-32s %4d passed, %d failed, %d skipped' %
              (s.name, s.passed, s.failed, s.skipped))
        for name in s.failures:
            print('    FAILED: %s' % name)
    if only is not None:
        print('kselftests limited by ETW_SELFTESTS to: ' +
              ' '.join(sorted(expected['kselftest'])))
    if host_only is not None:
        print('host tests limited to: ' +
              (' '.join(sorted(expected['host'])) or 'none'))
    for label, layout in (('behaviour', False), ('layout, one per struct table', True)):
        group = [s for s in suites if s.layout == layout]
        print('%s: %d passed, %d failed, %d skipped' % (label, *totals(group)))
    passed, failed, skipped = totals(suites)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if failed else 0


def summarize_vm(d):
    out = read(os.path.join(d, 'vm.out'))
    vm_rc = read(os.path.join(d, 'vm.rc')).strip()
    kunit, ksft, marks = split_vm_output(out)
    suites = []
    boot = Suite('vm/boot')
    boot.add(vm_rc == '0', VM_STATUS.get(vm_rc, 'vm-run: exit status ' + vm_rc))
    boot.add('kunit-end' in marks, 'guest did not reach the end of KUnit')
    if 'KUNIT-NO-MODULE' in marks:
        boot.add(False, 'etw_test.ko: missing, no KUnit suite ran')
    if 'KUNIT-INSMOD-FAILED' in marks:
        boot.add(False, 'insmod etw_test.ko')
    if 'KUNIT-RMMOD-FAILED' in marks:
        boot.add(False, 'rmmod etw_test')
    boot.add(marks.get('RMMOD') == '0', 'rmmod etw')
    suites.append(boot)
    for name, text in sorted(kunit.items()):
        suites.append(parse_ktap_suite(name, text))
    for name, (text, rc) in sorted(ksft.items()):
        suites.extend(parse_ksft('kselftest', name, text, rc))
    log = Suite('vm/console-log')
    text = read(os.path.join(d, 'console.log'), None)
    if not text:
        log.add(False, 'console log: ' + ('missing' if text is None else 'empty'))
    else:
        bad = scan_console(text)
        log.add(not bad, 'console log reports: ' + ' | '.join(bad[:5]))
    suites.append(log)
    return suites


def main(argv):
    if len(argv) == 3 and argv[1] == 'summarize':
        return summarize(argv[2])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
