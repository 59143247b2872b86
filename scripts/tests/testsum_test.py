#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of scripts/testsum.py on recorded samples: a failing KUnit case, a
failing kselftest, kernel reports in the console log, and whole runs against
a small source tree, including what each ETW_INJECT_FAILURE case produces.

Prints kselftest-style TAP so that make check counts these like the rest.
"""
import contextlib
import glob
import io
import os
import re
import subprocess
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
    assert s.failures == ['kunit etw_x: no results'], vars(s)


def test_ksft_pass():
    s, = testsum.parse_ksft('kselftest', 'dev_test', sample('ksft-pass.txt'), 0)
    assert (s.passed, s.failed) == (8, 0), vars(s)


def test_ksft_failing_test_fails():
    s, = testsum.parse_ksft('kselftest', 'dev_test', sample('ksft-fail.txt'), 1)
    assert (s.passed, s.failed) == (7, 1), vars(s)
    assert s.failures == ['global.harness_injected_failure'], s.failures


def drop_line(text, line):
    assert line + '\n' in text, line
    return text.replace(line + '\n', '', 1)


def test_kunit_fewer_results_than_planned_fails():
    text = drop_line(sample('kunit-pass.txt'), '    ok 8 etw_combine_level0_test')
    s = testsum.parse_ktap_suite('etw_filter', text)
    assert s.failures == ['kunit etw_filter: totals say pass:26 fail:0 skip:0, '
                          'the results pass:25 fail:0 skip:0',
                          'kunit etw_filter: plan 1..8, 7 results'], s.failures


def test_console_kmemleak_count_line_is_not_a_report():
    # kselftest/kmemleak judges the scan; 6.1 prints this for boot's leaks.
    line = 'kmemleak: 8 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
    assert testsum.scan_console(line + '\n') == [], line


def kunit_ktap(suite, log):
    """Run selftests/kunit_ktap.sh SUITE on kernel-log text LOG."""
    script = os.path.join(os.path.dirname(os.path.dirname(HERE)),
                          'selftests', 'kunit_ktap.sh')
    p = subprocess.run(['sh', script, suite], input=log, capture_output=True,
                       text=True, check=False)
    return p.returncode, p.stdout


def test_kunit_ktap_from_kernel_log_counts_every_parameter():
    # 6.1's debugfs log keeps 512 bytes per case; the kernel log keeps all.
    rc, text = kunit_ktap('etw_filter', sample('kunit-6.1-dmesg.txt'))
    s = testsum.parse_ktap_suite('etw_filter', text)
    assert rc == 0, (rc, text)
    assert (s.passed, s.failed, s.skipped, s.failures) == (26, 0, 0, []), vars(s)


def test_kunit_ktap_takes_only_its_suite():
    rc, text = kunit_ktap('etw_filter_other', sample('kunit-6.1-dmesg.txt'))
    s = testsum.parse_ktap_suite('etw_filter_other', text)
    assert rc == 0, (rc, text)
    assert (s.passed, s.failed, s.failures) == (1, 0, []), vars(s)


def test_kunit_ktap_missing_suite_fails():
    rc, text = kunit_ktap('etw_absent', sample('kunit-6.1-dmesg.txt'))
    assert rc == 1 and text == 'KTAP version 1\n1..1\n', (rc, text)


def test_kunit_ktap_cut_log_fails():
    log = sample('kunit-6.1-dmesg.txt')
    rc, text = kunit_ktap('etw_filter', log[:log.index('] ok 2 etw_filter')])
    s = testsum.parse_ktap_suite('etw_filter', text)
    assert rc == 1, (rc, text)
    assert 'kunit etw_filter: plan 1..1, 0 results' in s.failures, s.failures


def test_ksft_fewer_results_than_planned_fails():
    text = drop_line(sample('ksft-pass.txt'), 'ok 8 dev.get_info_rejects_bad_pointers')
    s, = testsum.parse_ksft('kselftest', 'dev_test', text, 0)
    assert s.failures == ['kselftest dev_test: totals say pass:8 fail:0 xfail:0 xpass:0 '
                          'skip:0, the results pass:7 fail:0 xfail:0 xpass:0 skip:0',
                          'kselftest dev_test: plan 1..8, 7 results'], s.failures


def test_ksft_layout_results_are_counted_apart():
    text = ('TAP version 13\n1..3\nok 1 global.constants\n'
            'ok 2 layout.GUID.size_and_offsets\n'
            'ok 3 mingw.EVENT_KEY.layout # SKIP MinGW-w64 does not define it\n'
            '# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0\n')
    s, layout = testsum.parse_ksft('host', 'layout_test', text, 0)
    assert (s.passed, s.failed, s.skipped) == (1, 0, 0), vars(s)
    assert (layout.name, layout.passed, layout.failed, layout.skipped) == (
        'host/layout_test [layout]', 1, 0, 1), vars(layout)


def test_ksft_crash_without_totals_fails():
    text = '\n'.join(sample('ksft-pass.txt').splitlines()[:6])
    s, = testsum.parse_ksft('kselftest', 'dev_test', text, 139)
    assert s.failures == ['kselftest dev_test: no totals (crashed? exit 139)'], vars(s)


def test_ksft_program_skipped_as_a_whole_is_one_skip():
    text = 'TAP version 13\n1..0 # SKIP /dev/etw is missing: etw.ko is not loaded\n'
    s, = testsum.parse_ksft('kselftest', 'dev_test', text, 4)
    assert (s.passed, s.failed, s.skipped) == (0, 0, 1), vars(s)


def test_ksft_nonzero_exit_with_clean_tap_fails():
    s, = testsum.parse_ksft('kselftest', 'dev_test', sample('ksft-pass.txt'), 1)
    assert s.failures == ['kselftest dev_test: exit status 1'], vars(s)


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


def test_kunit_suite_name_found_after_other_fields():
    with tree(kunit_sources={'a_test.c': KUNIT_SOURCE % ('.init = setup,\n\t', 'etw_y')}) as t:
        assert testsum.expected_tests(t)['kunit'] == {'etw_y'}


def test_expected_set_of_this_tree():
    e = testsum.expected_tests(testsum.TREE)
    registered = []
    for path in glob.glob(os.path.join(testsum.TREE, 'kmod/tests/*.c')):
        for args in re.findall(r'kunit_test_suites?\(([^)]*)\)', testsum.read(path)):
            registered += args.split(',')
    # Each suite registered in the tree is found by its name.
    assert len(e['kunit']) == len(registered), (e['kunit'], registered)
    assert {'etw_harness', 'etw_filter'} <= e['kunit'], e
    assert 'dev_test' in e['kselftest'], e
    assert {'testsum_test', 'layout_test', 'args_test', 'forward_test'} <= e['host'], e
    assert {'fuzz-etl', 'fuzz-tl', 'fuzz-manifest'} <= e['host'], e


# A source tree for whole runs: one KUnit suite, one kselftest, and the host
# test every tree has, testsum_test.
KUNIT_SOURCE = 'static struct kunit_suite s = {\n\t%s.name = "%s",\n};\n'


@contextlib.contextmanager
def tree(kunit=('etw_x',), ksft=('dev_test',), host=(), fuzz=(), kunit_sources=None):
    if kunit_sources is None:
        kunit_sources = {n + '_test.c': KUNIT_SOURCE % ('', n) for n in kunit}
    files = {'kmod/tests/' + f: text for f, text in kunit_sources.items()}
    files.update({'selftests/%s.c' % n: '' for n in ksft})
    files.update({'userlib/tests/%s.c' % n: '' for n in host})
    files.update({'userlib/fuzz/%s_fuzz.c' % n: '' for n in fuzz})
    with tempfile.TemporaryDirectory() as t:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(t, path)), exist_ok=True)
            with open(os.path.join(t, path), 'w') as f:
                f.write(text)
        yield t


def run_summary(files, **tree_args):
    """Summarise a results directory holding FILES; return the exit status
    and the lines printed."""
    with tree(**tree_args) as t, tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = testsum.summarize(d, t)
    return rc, out.getvalue().splitlines()


def failures(lines):
    return [l.split('FAILED: ', 1)[1] for l in lines if 'FAILED: ' in l]


def vm_out(kunit=None, ksft=None, ksft_rc=0, rmmod='0', kunit_marker=None):
    """The guest stream run_vm_tests.sh prints: suite etw_x with KUNIT
    (or KUNIT_MARKER instead of any suite), kselftest dev_test with KSFT."""
    out = '@@KUNIT-BEGIN@@\n'
    if kunit_marker:
        out += kunit_marker + '\n'
    else:
        out += '@@KUNIT-SUITE@@ etw_x\n' + (kunit or sample('kunit-pass.txt'))
    out += '@@KUNIT-END@@\n'
    out += '@@KSFT-BEGIN@@ dev_test\n' + (ksft or sample('ksft-pass.txt'))
    out += '@@KSFT-END@@ dev_test %d\n@@RMMOD@@ %s\n' % (ksft_rc, rmmod)
    return out


def clean_run(**changes):
    """The files of a passing run; CHANGES replaces (None: removes) files."""
    files = {'vm.out': vm_out(), 'vm.rc': '0\n',
             'console.log': sample('console-clean.txt'),
             'host-testsum_test.out': sample('ksft-pass.txt'),
             'host-testsum_test.rc': '0\n'}
    files.update(changes)
    return {k: v for k, v in files.items() if v is not None}


def test_whole_run_passes():
    rc, lines = run_summary(clean_run())
    assert (rc, lines[-1]) == (0, '34 passed, 0 failed, 0 skipped'), lines


def test_whole_run_prints_behaviour_and_layout_apart():
    layout = ('TAP version 13\n1..2\nok 1 global.constants\n'
              'ok 2 layout.GUID.size_and_offsets\n'
              '# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0\n')
    files = clean_run(**{'host-layout_test.out': layout, 'host-layout_test.rc': '0\n'})
    rc, lines = run_summary(files, host=('layout_test',))
    assert lines[-3:] == ['behaviour: 35 passed, 0 failed, 0 skipped',
                          'layout, one per struct table: 1 passed, 0 failed, 0 skipped',
                          '36 passed, 0 failed, 0 skipped'], lines


def test_whole_run_fails_on_kunit_failure():
    rc, lines = run_summary(clean_run(**{'vm.out': vm_out(kunit=sample('kunit-fail.txt'))}))
    assert (rc, failures(lines)) == (1, ['etw_harness_injected_failure_test']), lines


def test_whole_run_fails_on_kselftest_failure():
    rc, lines = run_summary(clean_run(**{'vm.out': vm_out(ksft=sample('ksft-fail.txt'),
                                                          ksft_rc=1)}))
    assert (rc, failures(lines)) == (1, ['global.harness_injected_failure']), lines


def test_whole_run_fails_on_kasan_with_all_tests_passing():
    rc, lines = run_summary(clean_run(**{'console.log': sample('console-kasan.txt')}))
    assert rc == 1 and failures(lines)[0].startswith('console log reports: '), lines


def test_whole_run_fails_on_warning_with_all_tests_passing():
    rc, lines = run_summary(clean_run(**{'console.log': sample('console-warning.txt')}))
    assert rc == 1 and failures(lines)[0].startswith('console log reports: '), lines


def test_whole_run_fails_on_rmmod_failure():
    rc, lines = run_summary(clean_run(**{'vm.out': vm_out(rmmod='1')}))
    assert (rc, failures(lines)) == (1, ['rmmod etw']), lines


def test_vm_run_with_only_markers_fails():
    # The audit's case: the guest ran nothing between its markers.
    files = clean_run(**{'vm.out': '@@KUNIT-BEGIN@@\n@@KUNIT-END@@\n'})
    rc, lines = run_summary(files)
    assert (rc, failures(lines)) == (1, ['rmmod etw', 'kunit etw_x: expected, did not run',
                                         'kselftest dev_test: expected, did not run']), lines


# ETW_INJECT_FAILURE=missing-suite: run_vm_tests.sh leaves out a kselftest.
def test_expected_kselftest_that_did_not_run_fails():
    rc, lines = run_summary(clean_run(), ksft=('dev_test', 'routing_test'))
    assert (rc, failures(lines)) == (1, ['kselftest routing_test: expected, did not run']), lines


def test_expected_kunit_suite_that_did_not_run_fails():
    rc, lines = run_summary(clean_run(), kunit=('etw_x', 'etw_y'))
    assert (rc, failures(lines)) == (1, ['kunit etw_y: expected, did not run']), lines


def test_expected_host_test_that_did_not_run_fails():
    rc, lines = run_summary(clean_run(), host=('guid_test',))
    assert (rc, failures(lines)) == (1, ['host guid_test: expected, did not run']), lines


STEPS = ("steps (builds, lint, VM boots and console logs, harness canaries, "
         "fuzzing, testsum's self-tests): %d passed, %d failed, %d skipped")

# What scripts/fuzz-host.sh writes for a libFuzzer target.
def fuzz_tap(ok):
    return ('TAP version 13\n1..1\n'
            '# fuzz-host tl: 1000 execs in 30 s, corpus 12 inputs, %d crashes\n'
            '%s 1 fuzz.tl\n# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n'
            % (1 - ok, 'ok' if ok else 'not ok', ok, 1 - ok))


def test_expected_fuzz_target_that_did_not_run_fails():
    rc, lines = run_summary(clean_run(), fuzz=('tl',))
    assert (rc, failures(lines)) == (1, ['host fuzz-tl: expected, did not run']), lines


def test_fuzz_target_run_counts_one_result():
    files = clean_run(**{'host-fuzz-tl.out': fuzz_tap(1), 'host-fuzz-tl.rc': '0\n'})
    rc, lines = run_summary(files, fuzz=('tl',))
    assert (rc, lines[-4:]) == (0, [STEPS % (13, 0, 0),
                                    'behaviour: 34 passed, 0 failed, 0 skipped',
                                    'layout, one per struct table: 0 passed, 0 failed, 0 skipped',
                                    '34 passed, 0 failed, 0 skipped']), lines


def test_fuzz_target_crash_fails():
    files = clean_run(**{'host-fuzz-tl.out': fuzz_tap(0), 'host-fuzz-tl.rc': '1\n'})
    rc, lines = run_summary(files, fuzz=('tl',))
    assert (rc, failures(lines)) == (1, ['fuzz.tl']), lines


# ETW_INJECT_FAILURE=missing-etw-test-ko: the guest has no etw_test.ko.
def test_missing_etw_test_ko_fails():
    files = clean_run(**{'vm.out': vm_out(kunit_marker='@@KUNIT-NO-MODULE@@')})
    rc, lines = run_summary(files)
    assert (rc, failures(lines)) == (1, ['etw_test.ko: missing, no KUnit suite ran',
                                         'kunit etw_x: expected, did not run']), lines


# ETW_INJECT_FAILURE=missing-console-log
def test_missing_console_log_fails():
    rc, lines = run_summary(clean_run(**{'console.log': None}))
    assert (rc, failures(lines)) == (1, ['console log: missing']), lines


def test_empty_console_log_fails():
    rc, lines = run_summary(clean_run(**{'console.log': ''}))
    assert (rc, failures(lines)) == (1, ['console log: empty']), lines


# ETW_INJECT_FAILURE=timeout; here every test ran, so only the status fails.
def test_guest_timeout_fails():
    rc, lines = run_summary(clean_run(**{'vm.rc': '124\n'}))
    assert (rc, failures(lines)) == (1, ['vm-run: guest timed out (status 124)']), lines


def test_guest_that_died_fails():
    rc, lines = run_summary(clean_run(**{'vm.rc': '125\n'}))
    assert (rc, failures(lines)) == (
        1, ['vm-run: insmod etw.ko failed or the guest died (status 125)']), lines


def test_missing_vm_status_fails():
    rc, lines = run_summary(clean_run(**{'vm.rc': None}))
    assert (rc, failures(lines)) == (1, ['vm-run: did not run (no vm.rc)']), lines


def test_etw_selftests_limits_the_expected_kselftests():
    files = clean_run(**{'expected-kselftests': 'dev_test\n'})
    rc, lines = run_summary(files, ksft=('dev_test', 'routing_test'))
    assert rc == 0, lines
    assert 'kselftests limited by ETW_SELFTESTS to: dev_test' in lines, lines


def test_etw_selftests_names_are_expected():
    files = clean_run(**{'expected-kselftests': 'dev_test group_test\n'})
    rc, lines = run_summary(files)
    assert (rc, failures(lines)) == (1, ['kselftest group_test: expected, did not run']), lines


def test_vm_only_run_expects_no_host_test():
    files = clean_run(**{'expected-host': ''})
    files = {k: v for k, v in files.items() if not k.startswith('host-')}
    rc, lines = run_summary(files, host=('guid_test',))
    assert rc == 0, lines
    assert 'host tests limited to: none' in lines, lines


def test_expected_host_names_are_expected():
    files = clean_run(**{'expected-host': 'testsum_test layout_test\n'})
    rc, lines = run_summary(files, host=('testsum_test',))
    assert (rc, failures(lines)) == (1, ['host layout_test: expected, did not run']), lines


def ksft_text(results, totals):
    """Kselftest TAP: RESULTS lines under their plan, then TOTALS
    (pass fail xfail xpass skip)."""
    return ('TAP version 13\n1..%d\n' % len(results) + ''.join(r + '\n' for r in results) +
            '# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:0\n' % totals)


def host_run(name, text, rc, **changes):
    """A passing run's files plus host test NAME's output and status."""
    return clean_run(**{'host-%s.out' % name: text, 'host-%s.rc' % name: '%d\n' % rc},
                     **changes)


# ETW_INJECT_FAILURE=no-tests: a host test run with a filter no test matches.
def test_ksft_plan_and_totals_only_ran_no_test():
    text = ksft_text([], (0, 0, 0, 0, 0))
    s, = testsum.parse_ksft('host', 'guid_test', text, 0)
    assert s.failures == ['host guid_test: ran no test'], vars(s)


def test_ksft_totals_only_ran_no_test():
    text = '# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0\n'
    s, = testsum.parse_ksft('host', 'guid_test', text, 0)
    assert s.failures == ['host guid_test: ran no test'], vars(s)


def test_ksft_bare_empty_plan_ran_no_test():
    s, = testsum.parse_ksft('host', 'guid_test', 'TAP version 13\n1..0\n', 0)
    assert s.failures == ['host guid_test: ran no test (exit 0)'], vars(s)


# ETW_INJECT_FAILURE=totals: the harness's totals count a failure no
# result line shows.
def test_ksft_totals_disagreeing_with_results_fail():
    text = ksft_text(['ok 1 a.b', 'ok 2 a.c'], (2, 1, 0, 0, 0))
    s, = testsum.parse_ksft('host', 'guid_test', text, 0)
    assert s.failures == ['host guid_test: totals say pass:2 fail:1 xfail:0 xpass:0 '
                          'skip:0, the results pass:2 fail:0 xfail:0 xpass:0 skip:0'], vars(s)


def test_kunit_totals_disagreeing_with_results_fail():
    text = sample('kunit-pass.txt').replace('# Totals: pass:26', '# Totals: pass:27')
    s = testsum.parse_ktap_suite('etw_filter', text)
    assert s.failures == ['kunit etw_filter: totals say pass:27 fail:0 skip:0, '
                          'the results pass:26 fail:0 skip:0'], vars(s)


def test_kunit_skipped_case_agrees_with_totals():
    text = (sample('kunit-pass.txt')
            .replace('    ok 8 etw_combine_level0_test', '    ok 8 etw_combine_level0_test # SKIP no')
            .replace('# Totals: pass:26 fail:0 skip:0', '# Totals: pass:25 fail:0 skip:1'))
    s = testsum.parse_ktap_suite('etw_filter', text)
    assert (s.passed, s.failed, s.skipped, s.failures) == (25, 0, 1, []), vars(s)


def test_ksft_xfail_is_not_a_pass():
    text = ksft_text(['ok 1 a.b', 'ok 2 a.c # XFAIL known bug'], (1, 0, 1, 0, 0))
    s, = testsum.parse_ksft('host', 'guid_test', text, 0)
    assert (s.passed, s.failed, s.skipped, s.xfails) == (1, 0, 0, ['a.c']), vars(s)


def test_whole_run_prints_xfail_apart():
    text = ksft_text(['ok 1 a.b', 'ok 2 a.c # XFAIL known bug'], (1, 0, 1, 0, 0))
    rc, lines = run_summary(host_run('guid_test', text, 0), host=('guid_test',))
    assert rc == 0, lines
    assert 'host/guid_test                      1 passed, 0 failed, 0 skipped, 1 xfail' \
        in lines, lines
    i = lines.index('expected failures (XFAIL), not counted as passes: 1')
    assert lines[i + 1] == '    XFAIL: host/guid_test: a.c', lines
    assert lines[-1] == '35 passed, 0 failed, 0 skipped', lines


def test_ksft_xpass_fails():
    text = ksft_text(['ok 1 a.b # XPASS'], (0, 0, 0, 1, 0))
    s, = testsum.parse_ksft('host', 'guid_test', text, 1)
    assert s.failures == ['a.b: passed, but expected to fail (XPASS)'], vars(s)


# ETW_INJECT_FAILURE=all-skipped: forward_test run as a user it skips for.
def test_program_that_skipped_everything_fails():
    text = 'TAP version 13\n1..0 # SKIP needs root\n'
    rc, lines = run_summary(host_run('forward_test', text, 4))
    assert (rc, failures(lines)) == (1, ['host forward_test: every test skipped '
                                         '(needs root)']), lines


def test_every_test_skipped_as_results_fails():
    text = ksft_text(['ok 1 a.b # SKIP no mingw', 'ok 2 a.c # SKIP no mingw'], (0, 0, 0, 0, 2))
    rc, lines = run_summary(host_run('guid_test', text, 0), host=('guid_test',))
    assert (rc, failures(lines)) == (1, ['host guid_test: every test skipped (no mingw)']), lines


def test_program_with_a_pass_and_skips_passes():
    text = ksft_text(['ok 1 a.b # SKIP no mingw', 'ok 2 a.c'], (1, 0, 0, 0, 1))
    rc, lines = run_summary(host_run('guid_test', text, 0), host=('guid_test',))
    assert (rc, lines[-1]) == (0, '35 passed, 0 failed, 1 skipped'), lines


NO_DATA = 'no Windows sample files in /nowhere/testdata (No such file or directory)'


def test_skips_for_missing_windows_samples_are_expected_and_counted():
    text = ksft_text(['ok 1 a.b # SKIP ' + NO_DATA, 'ok 2 a.c # SKIP ' + NO_DATA],
                     (0, 0, 0, 0, 2))
    files = host_run('guid_test', text, 0, testdata='/nowhere/testdata\n')
    rc, lines = run_summary(files, host=('guid_test',))
    assert (rc, failures(lines)) == (0, []), lines
    assert ('skipped for want of the Windows sample files: 2 (not in /nowhere/testdata; '
            'README, "The Windows sample files", says how to get them; TESTDATA=DIR '
            'points at them)') in lines, lines
    assert lines[-1] == '34 passed, 0 failed, 2 skipped', lines


def test_skip_for_windows_samples_that_are_there_fails():
    text = ksft_text(['ok 1 a.b # SKIP ' + NO_DATA], (0, 0, 0, 0, 1))
    with tempfile.TemporaryDirectory() as data:
        files = host_run('guid_test', text, 0, testdata=data + '\n')
        rc, lines = run_summary(files, host=('guid_test',))
    assert (rc, failures(lines)) == (1, ['host guid_test: every test skipped (%s)'
                                         % NO_DATA]), lines
    assert not any(l.startswith('skipped for want') for l in lines), lines


def test_steps_are_counted_apart_from_the_product():
    files = clean_run(**{'step-build.rc': '1\n', 'step-build.out': 'error\n'})
    rc, lines = run_summary(files)
    assert (rc, failures(lines)) == (1, ['build']), lines
    assert lines[-4:] == [STEPS % (12, 1, 0), 'behaviour: 34 passed, 0 failed, 0 skipped',
                          'layout, one per struct table: 0 passed, 0 failed, 0 skipped',
                          '34 passed, 0 failed, 0 skipped'], lines


def test_kmemleak_scan_is_a_step():
    leak = ('ok 1 kmemleak: no unreferenced object after rmmod etw\n'
            '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\n')
    out = vm_out() + '@@KSFT-BEGIN@@ kmemleak\n' + leak + '@@KSFT-END@@ kmemleak 0\n'
    rc, lines = run_summary(clean_run(**{'vm.out': out}))
    assert (rc, lines[-4], lines[-1]) == (0, STEPS % (13, 0, 0),
                                          '34 passed, 0 failed, 0 skipped'), lines


def test_second_kernel_suites_are_expected():
    rc, lines = run_summary(clean_run(kernels='6.12 6.1\n'))
    assert (rc, failures(lines)) == (1, ['vm-run: did not run (no vm.rc)',
                                         'guest did not reach the end of KUnit', 'rmmod etw',
                                         'console log: missing',
                                         'kunit etw_x@6.1: expected, did not run',
                                         'kselftest dev_test@6.1: expected, did not run']), lines


def test_second_kernel_run_counts_its_suites():
    files = clean_run(**{'kernels': '6.12 6.1\n', 'vm@6.1.out': vm_out(),
                         'vm@6.1.rc': '0\n', 'console@6.1.log': sample('console-clean.txt')})
    rc, lines = run_summary(files)
    assert (rc, lines[-1]) == (0, '68 passed, 0 failed, 0 skipped'), lines
    assert 'kunit/etw_x@6.1                    26 passed, 0 failed, 0 skipped' in lines, lines
    assert 'VM suites ran on each kernel: 6.12 6.1 (NAME@6.1: the 6.1 kernel)' in lines


def test_second_kernel_failure_is_named():
    files = clean_run(**{'kernels': '6.12 6.1\n',
                         'vm@6.1.out': vm_out(ksft=sample('ksft-fail.txt'), ksft_rc=1),
                         'vm@6.1.rc': '0\n', 'console@6.1.log': sample('console-kasan.txt')})
    rc, lines = run_summary(files)
    assert rc == 1, lines
    assert failures(lines)[0] == 'global.harness_injected_failure', lines
    assert failures(lines)[1].startswith('console log reports: '), lines
    i = lines.index('    FAILED: global.harness_injected_failure')
    assert lines[i - 1].startswith('kselftest/dev_test@6.1 '), lines


def test_host_phase_expects_no_vm_and_no_fuzzing():
    files = {k: v for k, v in clean_run(phases='host\n').items()
             if k.startswith('host-') or k == 'phases'}
    rc, lines = run_summary(files, fuzz=('tl',))
    assert (rc, failures(lines)) == (0, []), lines
    assert 'phases run: host' in lines, lines


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
        except Exception as e:  # a crash fails this test, not the rest
            failed += 1
            print('# %r' % e)
            print('not ok %d %s' % (i, name))
    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0' %
          (len(tests) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
