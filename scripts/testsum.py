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
  phases                          what the run covered when not everything
                                  ("host": user space only, no fuzzing)
  kernels                         the VM kernels, first the one of vm.out;
                                  each other K has vm@K.out, vm@K.rc and
                                  console@K.log, its suites named NAME@K
  testdata                        the directory of the Windows-written
                                  sample files: when it does not exist,
                                  tests that skip for want of them are
                                  expected to

What should have run is read from the source tree this script sits in (see
expected_tests); whatever did not run fails the run.

Prints one line per suite, the expected failures (XFAIL) apart, how many
tests skipped for want of the Windows sample files, the steps (builds,
lint, the VM boot and console, fuzzing, this script's own tests) on a line
of their own, the behaviour and layout counts and, last, the product's
tests as "N passed, N failed, N skipped".  Exits 1 when anything failed.
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

# Console lines that fail a run whatever the tests said.  kmemleak's own
# "N new suspected memory leaks" line is not among them: kmemleak scans
# only when asked (no automatic scan in the test kernel), and the scan
# after rmmod is judged by kselftest/kmemleak, which leaves out what was
# allocated before etw.ko was loaded (6.1's ACPI leaks at boot).
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


# The reason a test gives when it skips for want of the Windows-written
# sample files (userlib/tests/testdata.h, the script tests): expected
# where those files are not (README, "The Windows sample files").
TESTDATA_SKIP = re.compile(r'^no Windows sample files in ')

# Suites that are steps of the run rather than tests of the product: the
# VM's boot and console, the leak scan after rmmod, the harness canaries
# (a KUnit suite and a kselftest that fail only under ETW_INJECT_FAILURE),
# libFuzzer runs and this script's own tests (step/NAME are the builds and
# lint).
STEP_SUITES = re.compile(r'^(step/|vm/|kselftest/kmemleak(@|$)|'
                         r'kunit/etw_harness(@|$)|kselftest/harness_test(@|$)|'
                         r'host/fuzz-|host/testsum_test$)')


class Suite:
    def __init__(self, name, layout=False):
        self.name = name
        self.layout = layout
        self.step = bool(STEP_SUITES.match(name))
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []
        self.xfails = []
        self.xpassed = 0
        self.skip_reasons = []

    def count(self):
        return self.passed + self.failed + self.skipped + len(self.xfails)

    def add(self, ok, name, directive=None, reason=''):
        directive = (directive or '').upper()
        if directive == 'SKIP':
            self.skipped += 1
            self.skip_reasons.append(reason.strip())
        elif directive == 'XFAIL' and ok:
            self.xfails.append(name)
        elif directive == 'XPASS' and ok:
            # ksft_finished() fails a program with an XPASS too.
            self.xpassed += 1
            self.failed += 1
            self.failures.append(name + ': passed, but expected to fail (XPASS)')
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


def ktap_leaves(results):
    """The results of RESULTS ((indent, match) in order) that are tests
    themselves, not the line that closes a suite or a parameterised case
    (a result right after deeper ones)."""
    leaves, prev = [], None
    for indent, m in results:
        if prev is None or prev <= indent:
            leaves.append(m)
        prev = indent
    return leaves


def parse_ktap_suite(name, text):
    """Count one KUnit suite's debugfs results.

    KUnit's own "# Totals:" line gives the counts (every parameter of a
    parameterised case counts), and must agree with the results it sums;
    the failed cases are named from the results below the suite's own
    line.  Without a totals line, the cases one level below the suite are
    counted.
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
            suite.add(m.group(2) == 'ok', m.group(4).strip(), m.group(5), m.group(6) or '')
    totals = [KUNIT_TOTALS.match(l) for l in lines]
    totals = [m for m in totals if m]
    if totals:
        p, f, s, _ = (int(x) for x in totals[-1].groups())
        leaves = ktap_leaves(results)
        skips = [m for m in leaves if (m.group(5) or '').upper() == 'SKIP']
        seen = (len([m for m in leaves if m.group(2) == 'ok']) - len(skips),
                len([m for m in leaves if m.group(2) == 'not ok']), len(skips))
        suite.passed, suite.skipped = p, s
        suite.failed = max(f, suite.failed)
        if seen != (p, f, s):
            suite.add(False, 'kunit %s: totals say pass:%d fail:%d skip:%d, '
                      'the results pass:%d fail:%d skip:%d' % ((name, p, f, s) + seen))
    top = [m for i, m in results if i == indents[0]]
    if (len(indents) > 1 and top and top[-1].group(2) == 'not ok'
            and not suite.failed):
        suite.add(False, 'kunit %s: suite reported failure' % name)
    check_plans(suite, 'kunit ' + name, text)
    return suite


def parse_ksft(kind, name, text, rc):
    """Count one kselftest_harness binary's results from its TAP.  Returns
    a list: the suite, then its results of the LAYOUT_FIXTURES if any.

    The harness's "# Totals:" line must agree with the result lines; a
    program that skipped itself as a whole (a "1..0 # SKIP" plan, exit
    status 4) is one skipped result.
    """
    suite = Suite('%s/%s' % (kind, name))
    layout = Suite(suite.name + ' [layout]', layout=True)
    totals = None
    seen = [0, 0, 0, 0, 0]	# as the totals: pass fail xfail xpass skip
    index = {'': 0, 'XFAIL': 2, 'XPASS': 3, 'SKIP': 4}
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
            directive = (m.group(5) or '').upper()
            into.add(m.group(2) == 'ok', test, directive, m.group(6) or '')
            seen[1 if m.group(2) == 'not ok' else index.get(directive, 0)] += 1
    label = '%s %s' % (kind, name)
    skip_all = [m.group(1) for m in map(KSFT_SKIP_ALL.match, text.splitlines()) if m]
    if totals is None and skip_all and rc == 4:
        # No test could run (no /dev/etw, say): one skipped result.
        suite.add(True, '%s: %s' % (label, skip_all[0]), 'SKIP', skip_all[0])
    elif totals is None and not suite.count() + layout.count():
        suite.add(False, '%s: ran no test (exit %s)' % (label, rc))
    elif totals is None:
        # It stopped early: its plan disagrees too, say it once.
        suite.add(False, '%s: no totals (crashed? exit %s)' % (label, rc))
    elif not suite.count() + layout.count():
        suite.add(False, '%s: ran no test' % label)
    else:
        if rc not in (0, 4) and not suite.failed + layout.failed:
            suite.add(False, '%s: exit status %s' % (label, rc))
        if totals[:5] != seen:
            suite.add(False, '%s: totals say pass:%d fail:%d xfail:%d xpass:%d '
                      'skip:%d, the results pass:%d fail:%d xfail:%d xpass:%d '
                      'skip:%d' % tuple([label] + totals[:5] + seen))
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


def check_all_skipped(suites, data_missing):
    """Fail each program whose every result is a skip, unless each of those
    skips is one this machine expects (the Windows sample files missing)."""
    programs = {}
    for s in suites:
        programs.setdefault(s.name.split(' [')[0], []).append(s)
    for group in programs.values():
        if sum(s.passed + s.failed + len(s.xfails) for s in group):
            continue
        reasons = [r for s in group for r in s.skip_reasons]
        unexpected = [r for r in reasons
                      if not (data_missing and TESTDATA_SKIP.match(r))]
        if reasons and unexpected:
            group[0].add(False, '%s: every test skipped (%s)' %
                         (group[0].name.replace('/', ' ', 1), unexpected[0]))


def summarize(d, tree=TREE):
    expected = expected_tests(tree)
    only = read(os.path.join(d, 'expected-kselftests'), None)
    if only is not None:
        expected['kselftest'] = set(only.split())
    host_only = read(os.path.join(d, 'expected-host'), None)
    if host_only is not None:
        expected['host'] = set(host_only.split())
    phases = read(os.path.join(d, 'phases'), None)
    phases = None if phases is None else phases.split()
    if phases is not None and 'fuzz' not in phases:
        expected['host'] = {n for n in expected['host'] if not n.startswith('fuzz-')}
    vm = phases is None or 'vm' in phases
    kernels = read(os.path.join(d, 'kernels')).split()
    # The first kernel's results are vm.out and its suites carry no tag.
    tags = [''] + ['@' + k for k in kernels[1:]]
    testdata = read(os.path.join(d, 'testdata')).strip()
    data_missing = bool(testdata) and not os.path.isdir(testdata)
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
    if vm:
        for tag in tags:
            suites.extend(summarize_vm(d, tag))
    check_all_skipped(suites, data_missing)
    ran = {s.name for s in suites}
    wanted = [('host', n) for n in sorted(expected['host'])]
    if vm:
        wanted += [(kind, n + tag) for tag in tags for kind in ('kunit', 'kselftest')
                   for n in sorted(expected[kind])]
    for kind, name in wanted:
        if '%s/%s' % (kind, name) not in ran:
            s = Suite('%s/%s' % (kind, name))
            s.add(False, '%s %s: expected, did not run' % (kind, name))
            suites.append(s)
    for s in suites:
        print('%-32s %4d passed, %d failed, %d skipped%s' %
              (s.name, s.passed, s.failed, s.skipped,
               ', %d xfail' % len(s.xfails) if s.xfails else ''))
        for name in s.failures:
            print('    FAILED: %s' % name)
    xfails = ['%s: %s' % (s.name, n) for s in suites for n in s.xfails]
    if xfails:
        print('expected failures (XFAIL), not counted as passes: %d' % len(xfails))
        for x in xfails:
            print('    XFAIL: ' + x)
    no_data = sum(1 for s in suites for r in s.skip_reasons if TESTDATA_SKIP.match(r))
    if data_missing and no_data:
        print('skipped for want of the Windows sample files: %d (not in %s; README, '
              '"The Windows sample files", says how to get them; TESTDATA=DIR '
              'points at them)' % (no_data, testdata))
    if len(kernels) > 1:
        print('VM suites ran on each kernel: %s (NAME@%s: the %s kernel)' %
              (' '.join(kernels), kernels[1], kernels[1]))
    elif kernels:
        print('VM suites ran on the %s kernel' % kernels[0])
    if only is not None:
        print('kselftests limited by ETW_SELFTESTS to: ' +
              ' '.join(sorted(expected['kselftest'])))
    if host_only is not None:
        print('host tests limited to: ' +
              (' '.join(sorted(expected['host'])) or 'none'))
    if phases is not None:
        print('phases run: ' + ' '.join(phases))
    steps = [s for s in suites if s.step]
    product = [s for s in suites if not s.step]
    print('steps (builds, lint, VM boots and console logs, harness canaries, '
          'fuzzing, testsum\'s self-tests): %d passed, %d failed, %d skipped'
          % tuple(totals(steps)))
    for label, layout in (('behaviour', False), ('layout, one per struct table', True)):
        group = [s for s in product if s.layout == layout]
        print('%s: %d passed, %d failed, %d skipped' % (label, *totals(group)))
    passed, failed, skipped = totals(product)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 1 if failed or totals(steps)[1] else 0


def summarize_vm(d, tag=''):
    """The suites of one VM boot: vm.out, vm.rc and console.log, or for a
    TAG "@K", vm@K.out, vm@K.rc and console@K.log, each suite's name
    ending in TAG."""
    out = read(os.path.join(d, 'vm%s.out' % tag))
    vm_rc = read(os.path.join(d, 'vm%s.rc' % tag)).strip()
    kunit, ksft, marks = split_vm_output(out)
    suites = []
    boot = Suite('vm/boot' + tag)
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
        suites.append(parse_ktap_suite(name + tag, text))
    for name, (text, rc) in sorted(ksft.items()):
        suites.extend(parse_ksft('kselftest', name + tag, text, rc))
    log = Suite('vm/console-log' + tag)
    text = read(os.path.join(d, 'console%s.log' % tag), None)
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
