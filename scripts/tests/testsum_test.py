#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/testsum.py on recorded samples: a failing KUnit case, a
failing kselftest, kernel reports in the console log, and whole runs.

Prints kselftest-style TAP so that make check counts these like the rest.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import testsum  # noqa: E402


def sample(name):
    with open(os.path.join(HERE, 'samples', name)) as f:
        return f.read()


def test_kunit_pass_counts_every_parameter():
    s = testsum.parse_ktap_suite('etw_filter', sample('kunit-pass.txt'))
    assert (s.passed, s.failed, s.skipped) == (26, 0, 0), vars(s)


def test_kunit_failing_case_fails_the_suite():
    s = testsum.parse_ktap_suite('etw_harness', sample('kunit-fail.txt'))
    assert s.failed == 1 and s.passed == 0, vars(s)
    assert s.failures == ['etw_harness_injected_failure_test'], s.failures


def test_kunit_empty_results_fail():
    s = testsum.parse_ktap_suite('etw_x', '')
    assert s.failed == 1, vars(s)


def test_ksft_pass():
    s = testsum.parse_ksft('dev_test', sample('ksft-pass.txt'), 0)
    assert (s.passed, s.failed) == (8, 0), vars(s)


def test_ksft_failing_test_fails():
    s = testsum.parse_ksft('dev_test', sample('ksft-fail.txt'), 1)
    assert (s.passed, s.failed) == (7, 1), vars(s)
    assert s.failures == ['global.harness_injected_failure'], s.failures


def test_ksft_crash_without_totals_fails():
    text = '\n'.join(sample('ksft-pass.txt').splitlines()[:6])
    s = testsum.parse_ksft('dev_test', text, 139)
    assert s.failed == 1, vars(s)


def test_ksft_nonzero_exit_with_clean_tap_fails():
    s = testsum.parse_ksft('dev_test', sample('ksft-pass.txt'), 1)
    assert s.failed == 1, vars(s)


def test_console_clean():
    assert testsum.scan_console(sample('console-clean.txt')) == []


def test_console_kasan_is_reported():
    bad = testsum.scan_console(sample('console-kasan.txt'))
    assert any('BUG: KASAN' in b for b in bad), bad


def test_console_warning_is_reported():
    bad = testsum.scan_console(sample('console-warning.txt'))
    assert any('WARNING: CPU' in b for b in bad), bad


def test_console_lockdep_is_reported():
    bad = testsum.scan_console(sample('console-lockdep.txt'))
    assert any('circular locking' in b for b in bad), bad


def run_summary(files):
    d = tempfile.mkdtemp()
    try:
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        devnull = open(os.devnull, 'w')
        old, sys.stdout = sys.stdout, devnull
        try:
            return testsum.summarize(d)
        finally:
            sys.stdout = old
            devnull.close()
    finally:
        shutil.rmtree(d)


def vm_run(kunit, ksft, ksft_rc, console, rmmod='0'):
    out = ('@@KUNIT-BEGIN@@\n@@KUNIT-SUITE@@ etw_x\n' + kunit +
           '@@KUNIT-END@@\n@@KSFT-BEGIN@@ dev_test\n' + ksft +
           '@@KSFT-END@@ dev_test %d\n@@RMMOD@@ %s\n' % (ksft_rc, rmmod))
    return {'vm.out': out, 'vm.rc': '0\n', 'console.log': console}


def test_whole_run_passes():
    files = vm_run(sample('kunit-pass.txt'), sample('ksft-pass.txt'), 0,
                   sample('console-clean.txt'))
    assert run_summary(files) == 0


def test_whole_run_fails_on_kunit_failure():
    files = vm_run(sample('kunit-fail.txt'), sample('ksft-pass.txt'), 0,
                   sample('console-clean.txt'))
    assert run_summary(files) == 1


def test_whole_run_fails_on_kselftest_failure():
    files = vm_run(sample('kunit-pass.txt'), sample('ksft-fail.txt'), 1,
                   sample('console-clean.txt'))
    assert run_summary(files) == 1


def test_whole_run_fails_on_kasan_with_all_tests_passing():
    files = vm_run(sample('kunit-pass.txt'), sample('ksft-pass.txt'), 0,
                   sample('console-kasan.txt'))
    assert run_summary(files) == 1


def test_whole_run_fails_on_warning_with_all_tests_passing():
    files = vm_run(sample('kunit-pass.txt'), sample('ksft-pass.txt'), 0,
                   sample('console-warning.txt'))
    assert run_summary(files) == 1


def test_whole_run_fails_on_rmmod_failure():
    files = vm_run(sample('kunit-pass.txt'), sample('ksft-pass.txt'), 0,
                   sample('console-clean.txt'), rmmod='1')
    assert run_summary(files) == 1


def test_whole_run_fails_when_guest_dies():
    files = {'vm.out': '@@KUNIT-BEGIN@@\n', 'vm.rc': '125\n',
             'console.log': sample('console-clean.txt')}
    assert run_summary(files) == 1


def main():
    tests = [(n, f) for n, f in sorted(globals().items())
             if n.startswith('test_') and callable(f)]
    print('TAP version 13')
    print('1..%d' % len(tests))
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print('ok %d %s' % (i, name))
        except AssertionError as e:
            failed += 1
            print('# %s' % e)
            print('not ok %d %s' % (i, name))
    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0' %
          (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
