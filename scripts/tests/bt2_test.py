#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of the babeltrace2 plugin (bt2/babeltrace-plugin-etw.so).

Each .etl file is converted by babeltrace2 (source.etw.etl) to CTF with
sink.ctf.fs; `babeltrace2 OUT` reads the CTF back, and every event must
match `etwctl dump --format json` of the same file, field by field: the
count and order, the time (ns), the name "Provider:Event", the CPU, the
EVENT_HEADER fields and each payload value; for the Windows-written files
also the values an independent script read from their bytes, since etwctl
shares the decoder under test.  The files: the Windows-written
primitive-types.etl and clr-gc-events.etl (shared test data, skipped
without it) and one that bt2/tests/tl_etl_gen writes with every
TraceLogging test event, one whose field names are not identifiers and
two of userlib/tests/tdh_manifest_sample.man, decoded when the manifest is
given.  Also babeltrace2's text output straight from the source, several
files at once, a time range, a corrupt buffer, and the errors for bad
parameters.

Needs `make ctl bt2` (make all builds them) and babeltrace2.  Prints
kselftest-style TAP so that make check counts these like the rest.

    bt2_test.py              run the tests
    bt2_test.py --speed N    convert a file of N rounds of the TraceLogging
                             events to CTF and print events/s
"""
import datetime
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUGIN_DIR = os.path.join(TOP, 'bt2')
ETWCTL = os.path.join(TOP, 'ctl', 'etwctl')
GEN = os.path.join(TOP, 'bt2', 'tests', 'tl_etl_gen')
TESTDATA = os.environ.get('TESTDATA', os.path.join(os.path.dirname(TOP), 'shared',
                                                   'testdata'))
PRIMITIVE = os.path.join(TESTDATA, 'etl', 'primitive-types.etl')
CLR = os.path.join(TESTDATA, 'etl', 'clr-gc-events.etl')
MANIFEST = os.path.join(TOP, 'userlib', 'tests', 'tdh_manifest_sample.man')
CLR_MANIFEST = os.path.join(TOP, 'userlib', 'manifests', 'clr.man')

SCRATCH = tempfile.mkdtemp(prefix='bt2_test.')


class Skip(Exception):
    pass


# Only the manifests a test gives: none that libetw finds by itself.
ENV = {k: v for k, v in os.environ.items() if k != 'ETW_MANIFEST_PATH'}


def run(args, ok=True):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=ENV)
    if ok and p.returncode:
        raise AssertionError('%s: exit %d: %s' % (' '.join(args), p.returncode,
                                                   p.stderr.strip()[-2000:]))
    return p


def source_args(paths, manifests=()):
    params = 'inputs=%s' % json.dumps(paths)
    if manifests:
        params += ',manifests=%s' % json.dumps(list(manifests))
    return ['babeltrace2', '--plugin-path=' + PLUGIN_DIR, '-c', 'source.etw.etl',
            '-p', params]


def to_ctf(paths, name, manifests=()):
    out = os.path.join(SCRATCH, name)
    run(source_args(paths, manifests) + ['-c', 'sink.ctf.fs', '-p',
                                         'path="%s"' % out])
    return out


def text_options():
    return ['--clock-gmt', '--clock-date', '--no-delta', '--names=all']


# --- babeltrace2's text output ----------------------------------------------

class Parser:
    """One line of sink.text.pretty output with --names=all: top-level
    "key = value" pairs; values are structures { k = v, ... }, arrays
    [ [0] = v, ... ], strings, numbers (decimal, 0x hex, reals) and
    true/false."""
    NUMBER = re.compile(r'-?(0x[0-9A-Fa-f]+|[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)')
    ESCAPES = {'n': '\n', 't': '\t', 'r': '\r', '"': '"', '\\': '\\'}

    def __init__(self, s):
        self.s, self.i = s, 0

    def eat(self, tok):
        while self.s.startswith(' ', self.i):
            self.i += 1
        if not self.s.startswith(tok, self.i):
            raise ValueError('expected %r at %d: %r' % (tok, self.i, self.s[self.i:self.i + 40]))
        self.i += len(tok)

    def peek(self, tok):
        j = self.i
        while self.s.startswith(' ', j):
            j += 1
        return self.s.startswith(tok, j)

    def string(self):
        self.eat('"')
        out = []
        while self.s[self.i] != '"':
            c = self.s[self.i]
            if c == '\\':
                self.i += 1
                c = self.ESCAPES[self.s[self.i]]
            out.append(c)
            self.i += 1
        self.i += 1
        return ''.join(out)

    def value(self):
        if self.peek('{'):
            self.eat('{')
            d = {}
            while not self.peek('}'):
                if d:
                    self.eat(',')
                k = self.key()
                self.eat('=')
                d[k] = self.value()
            self.eat('}')
            return d
        if self.peek('['):
            self.eat('[')
            a = []
            while not self.peek(']'):
                if a:
                    self.eat(',')
                self.eat('[%d]' % len(a))
                self.eat('=')
                a.append(self.value())
            self.eat(']')
            return a
        if self.peek('"'):
            return self.string()
        for word, v in (('true', True), ('false', False)):
            if self.peek(word):
                self.eat(word)
                return v
        self.eat('')
        m = self.NUMBER.match(self.s, self.i)
        if not m:
            raise ValueError('no value at %d: %r' % (self.i, self.s[self.i:self.i + 40]))
        self.i = m.end()
        t = m.group(0)
        if 'x' in t:
            return int(t, 16)
        return float(t) if re.search(r'[.eE]', t) else int(t)

    def key(self):
        self.eat('')
        j = self.i
        while self.s[self.i] not in ' =':
            self.i += 1
        return self.s[j:self.i]

    def event(self):
        ev = {}
        self.eat('timestamp = ')
        ev['timestamp'] = self.s[self.i:self.i + 29]
        self.i += 29
        self.eat(', name = ')
        j = self.s.index(', stream.', self.i)
        ev['name'] = self.s[self.i:j]
        self.i = j
        while self.peek(','):
            self.eat(',')
            k = self.key()
            self.eat('=')
            ev[k] = self.value()
        if self.i != len(self.s):
            raise ValueError('trailing text: %r' % self.s[self.i:])
        return ev


def parse_text(out):
    return [Parser(line).event() for line in out.splitlines()]


def read_text(args):
    return parse_text(run(args).stdout)


# --- comparison with etwctl dump --------------------------------------------

def ns_of_etwctl(t):
    """ "2021-09-09T14:59:35.8001567Z" -> ns since the Unix epoch."""
    secs, frac = t.rstrip('Z').split('.')
    d = datetime.datetime.strptime(secs, '%Y-%m-%dT%H:%M:%S')
    d = d.replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 10**9 + int(frac.ljust(9, '0'))


def ns_of_bt(t):
    """ "2021-09-09 14:59:35.800156700" -> ns since the Unix epoch."""
    secs, frac = t.split('.')
    d = datetime.datetime.strptime(secs, '%Y-%m-%d %H:%M:%S')
    d = d.replace(tzinfo=datetime.timezone.utc)
    return int(d.timestamp()) * 10**9 + int(frac)


ISO_TIME = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?$')


def same(bt, js):
    """A babeltrace2 value against etwctl's JSON value: the same value,
    each as its tool shows it.  etwctl shows hexadecimal integers and
    binary as "0x..." text (an IPv6 address as TDH formats one), a raw
    payload as hex digits, Booleans as true/false (CTF 1.8 stores them
    as integers), a UTC SYSTEMTIME
    without the "Z" TdhFormatProperty gives, and a mapped value that is
    a number (no name in the map) as a number, where it is TDH's text
    for both."""
    if isinstance(js, bool):
        return bt is js or (type(bt) is int and bt == int(js))
    if isinstance(js, list):
        return (isinstance(bt, list) and len(bt) == len(js) and
                all(same(b, j) for b, j in zip(bt, js)))
    if isinstance(js, (int, float)) and isinstance(bt, str):
        return bt == str(js)
    if isinstance(js, (int, float)):
        return type(bt) in (int, float) and bt == js
    if isinstance(bt, bool) or not isinstance(js, str):
        return False
    if isinstance(bt, int) and js.startswith('0x'):
        return bt == int(js, 16)
    if isinstance(bt, list) and len(bt) == 16 and ':' in js:
        return bt == list(ipaddress.IPv6Address(js).packed)
    if isinstance(bt, list):
        digits = js[2:] if js.startswith('0x') else js
        return bt == list(bytes.fromhex(digits))
    if isinstance(bt, str) and bt != js and ISO_TIME.match(js):
        return bt == js + 'Z'
    return bt == js


def drop_lengths(st):
    """CTF 1.8 sequences take their length from a field: sink.ctf.fs
    writes one, "__NAME_len", before each dynamic array NAME.  Checked
    and dropped."""
    out = {}
    for k, v in st.items():
        m = re.match(r'^__(.*)_len$', k)
        if m and m.group(1) in st:
            if v != len(st[m.group(1)]):
                raise AssertionError('%s = %r, %s has %d elements' %
                                     (k, v, m.group(1), len(st[m.group(1)])))
            continue
        out[k] = v
    return out


def flatten(payload, prefix=''):
    """Structure members as etwctl names them: "s.m", "a[i].m"."""
    out = {}
    for k, v in drop_lengths(payload).items():
        name = prefix + k
        if isinstance(v, dict):
            out.update(flatten(v, name + '.'))
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for i, e in enumerate(v):
                out.update(flatten(e, '%s[%d].' % (name, i)))
        else:
            out[name] = v
    return out


def member_names(payload):
    """The plugin's names for etwctl's: CTF member names are identifiers,
    so other characters become '_', a leading digit gets a '_' before it
    and a repeated name "_2", "_3"...  (Struct members and arrays of
    structs, "s.m" and "a[i].m", have identifiers in the test files.)"""
    out = []
    for name in payload:
        if '.' in name:
            out.append(name)
            continue
        base = re.sub(r'[^A-Za-z0-9_]', '_', name)
        if not base or base[0].isdigit():
            base = '_' + base
        m, n = base, 2
        while m in out:
            m, n = '%s_%d' % (base, n), n + 1
        out.append(m)
    return out


def bt_name(js):
    """The plugin's "Provider:Event": etwctl's event name, else the task
    and opcode names ("Task/Opcode", or the task's alone), else the id."""
    event = js['event']
    if not event and isinstance(js['task'], str):
        event = js['task']
        if isinstance(js['opcode'], str):
            event += '/' + js['opcode']
    return '%s:%s' % (js['provider'], event or js['id'])


def compare_event(i, bt, js, plain):
    """Event @i: @js is etwctl's, @plain the same without manifests, whose
    header fields are the descriptor's numbers, not a manifest's names."""
    def check(what, ok):
        if not ok:
            raise AssertionError('event %d %s: babeltrace2 %r, etwctl %r' %
                                 (i, what, bt, js))
    check('time', ns_of_bt(bt['timestamp']) == ns_of_etwctl(js['time']))
    check('name', bt['name'] == bt_name(js))
    check('cpu', bt['stream.packet.context'] == {'cpu_id': js['cpu']})
    ctx = bt['stream.event.context']
    for k in ('pid', 'tid', 'id', 'version', 'channel', 'level', 'opcode',
              'task'):
        check(k, ctx[k] == plain[k])
    check('keywords', ctx['keywords'] == int(plain['keywords'], 16))
    check('activity_id', ctx['activity_id'] == (js['activity'] or ''))
    fields = drop_lengths(bt.get('event.fields', {}))
    if isinstance(js['fields'], str):
        check('raw payload', set(fields) == {'data'} and
              same(fields['data'], js['fields']))
        return
    flat = flatten(fields)
    names = member_names(js['fields'])
    check('field names', list(flat) == names)
    for name, (k, v) in zip(names, js['fields'].items()):
        if not same(flat[name], v):
            raise AssertionError('event %d (%s) field %s: babeltrace2 %r, etwctl %r'
                                 % (i, bt['name'], k, flat[name], v))


def parse_json_lines(out):
    return [json.loads(line) for line in out.splitlines()]


def etwctl_events(paths, options=(), manifests=()):
    opts = list(options)
    for m in manifests:
        opts += ['--manifest', m]
    out = run([ETWCTL, 'dump', '--format', 'json'] + opts + paths).stdout
    return parse_json_lines(out)


def compare(bt_events, paths, minimum, etwctl_options=(), manifests=()):
    js = etwctl_events(paths, etwctl_options, manifests)
    plain = etwctl_events(paths, etwctl_options) if manifests else js
    compare_events(bt_events, js, minimum, plain)


def compare_events(bt_events, js_events, minimum, plain=None):
    assert len(bt_events) == len(js_events), \
        'babeltrace2: %d events, etwctl: %d' % (len(bt_events), len(js_events))
    assert len(js_events) >= minimum, 'only %d events' % len(js_events)
    for i, (bt, js, pl) in enumerate(zip(bt_events, js_events,
                                         plain or js_events)):
        compare_event(i, bt, js, pl)


def ctf_events(paths, name, manifests=()):
    return read_text(['babeltrace2'] + text_options() +
                     [to_ctf(paths, name, manifests)])


def testdata(path):
    if not os.path.exists(path):
        # The reason testsum.py counts as expected where the files are not.
        raise Skip('no Windows sample files in %s (no %s)' % (TESTDATA, path))
    return path


_generated = []


def generated():
    if not _generated:
        path = os.path.join(SCRATCH, 'tl.etl')
        run([GEN, path])
        _generated.append(path)
    return _generated[0]


# --- tests ---------------------------------------------------------------------

def test_windows_tracelogging_file_to_ctf():
    compare(ctf_events([testdata(PRIMITIVE)], 'primitive'), [PRIMITIVE], 5)


def test_windows_manifest_file_to_ctf_as_raw_payloads():
    compare(ctf_events([testdata(CLR)], 'clr'), [CLR], 60)


def test_windows_manifest_file_decoded_with_its_manifest():
    events = ctf_events([testdata(CLR)], 'clr-man', [CLR_MANIFEST])
    compare(events, [CLR], 60, manifests=[CLR_MANIFEST])
    assert not [e for e in events if 'data' in e.get('event.fields', {})]


# What the Windows-written files hold, read from their bytes by an
# independent script (scripts/tests/windows_values.json; the CLR values are
# those userlib/tests/tdh_clr_gc_test.c expects), not from etwctl: the
# comparisons above share etwctl's decoder, these do not.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       'windows_values.json')) as _f:
    WINDOWS_VALUES = json.load(_f)


def test_windows_tracelogging_file_holds_the_files_values():
    want = WINDOWS_VALUES['primitive-types.etl']
    events = ctf_events([testdata(PRIMITIVE)], 'primitive-values')
    # babeltrace2 shows a boolean as its integer.
    got = [[e['event.fields'][f] for f in want['fields']] for e in events]
    assert got == [[int(v) if isinstance(v, bool) else v for v in ev]
                   for ev in want['events']], got
    first = events[0]
    assert first['name'] == '%s:%s' % (want['provider'], want['event'])
    assert ns_of_bt(first['timestamp']) == \
        ns_of_etwctl(want['first']['time']), first['timestamp']
    assert first['stream.packet.context'] == {'cpu_id': want['first']['cpu']}
    ctx = first['stream.event.context']
    assert (ctx['pid'], ctx['tid']) == \
        (want['first']['pid'], want['first']['tid']), ctx


def test_windows_manifest_file_holds_the_files_values():
    events = ctf_events([testdata(CLR)], 'clr-values', [CLR_MANIFEST])

    def fields(name):
        return [e['event.fields'] for e in events
                if e['name'] == 'Microsoft-Windows-DotNETRuntime:' + name]
    # Two induced, non-concurrent GCs, of generation 1 then 2.
    starts = [(f['Count'], f['Depth'], f['Reason'], f['Type'],
               f['ClrInstanceID']) for f in fields('GCStart')]
    assert starts == [(1, 1, 'Induced', 'NonConcurrentGC', 8),
                      (2, 2, 'Induced', 'NonConcurrentGC', 8)], starts
    tick = fields('GCAllocationTick')[1]
    assert (tick['TypeName'], tick['ObjectSize']) == \
        ('System.Text.StringBuilder', 48), tick
    assert fields('GCHeapStats')[0]['GenerationSize0'] == 0x248
    fit = fields('GCFitBucketInfo')
    assert len(fit) == 1, fit
    assert (fit[0]['BucketKind'], fit[0]['TotalSize']) == ('Plug', 310848)
    values = fit[0]['Values']
    assert [v['Index'] for v in values] == list(range(9)), values
    assert values[0]['Size'] == 0x6720, values[0]
    assert sum(v['Size'] for v in values) == 310848, values


def test_every_tracelogging_field_type_to_ctf():
    path = generated()
    events = ctf_events([path], 'tl')
    compare(events, [path], 12)
    names = {e['name'].split(':')[1] for e in events}
    assert {'Integers', 'Strings', 'Arrays', 'Structs', 'Values'} <= names, names


def test_member_names_are_ctf_identifiers():
    events = ctf_events([generated()], 'names')
    odd = [e['event.fields'] for e in events
           if e['name'] == 'Etw-Bt2-Names:Odd names']
    assert odd == [{'two_words': 1, 'a_b': 2, 'a_b_2': 3, '_9lives': 4,
                    'int': 5}], odd


def test_manifest_events_decode_with_their_manifest():
    events = ctf_events([generated()], 'manifest', [MANIFEST])
    compare(events, [generated()], 15, manifests=[MANIFEST])
    got = [(e['name'], e['stream.event.context']['task'],
            drop_lengths(e.get('event.fields', {})))
           for e in events if e['name'].startswith('Etw-Test-Manifest:')]
    assert got == [
        ('Etw-Test-Manifest:Connecting/Start', 3,
         {'Port': 80, 'State': 'Busy', 'Flags': 'Read | Exec', 'Name': 'ab',
          'Peers': [{'Addr': '127.0.0.1', 'Tag': 'x'},
                    {'Addr': '10.0.0.2', 'Tag': 'yz'}],
          'Blob': [0xde, 0xad, 0xbe], 'Pair': [7, 8], 'Where': 0x1000}),
        ('Etw-Test-Manifest:Connecting/Retrying', 3, {}),
    ], got


def test_ctf_has_one_stream_file_per_cpu():
    out = to_ctf([generated()], 'streams')
    files = sorted(os.listdir(os.path.join(out, 'tl')))
    assert files == ['cpu0', 'cpu1', 'metadata'], files


def test_text_output_straight_from_the_source():
    path = generated()
    events = read_text(source_args([path]) + text_options())
    compare(events, [path], 12)
    values = [e['event.fields'] for e in events if e['name'].endswith(':Values')]
    assert values[0]['b'] is True, values


def test_several_files_merge_in_time_order():
    paths = [testdata(PRIMITIVE), generated()]
    events = ctf_events(paths, 'merged')
    compare(events, paths, 17)
    times = [ns_of_bt(e['timestamp']) for e in events]
    assert times == sorted(times)
    out = os.path.join(SCRATCH, 'merged')
    assert sorted(os.listdir(out)) == ['primitive-types', 'tl'], os.listdir(out)


def test_begin_and_end_select_as_etwctl_from_and_to():
    path = generated()
    # babeltrace2 seeks to --begin (starting over and skipping), then
    # flt.utils.trimmer drops what is after --end.
    events = read_text(source_args([path]) + text_options() +
                       ['--begin=2022-06-18 04:26:40.000004',
                        '--end=2022-06-18 04:26:40.000009'])
    compare(events, [path], 6, ['--from', '2022-06-18T04:26:40.000004Z',
                                '--to', '2022-06-18T04:26:40.000009Z'])


def test_corrupt_buffer_is_skipped_with_a_warning():
    path = os.path.join(SCRATCH, 'corrupt.etl')
    with open(generated(), 'rb') as f:
        data = bytearray(f.read())
    # The first buffer after the header buffer (64 KiB each): a bad header.
    data[65536:65536 + 16] = b'\xff' * 16
    with open(path, 'wb') as f:
        f.write(data)
    p = run(source_args([path]) + text_options())
    assert p.stderr == ('source.etw.etl: 1 corrupt or unreadable buffers or '
                        'records skipped\n'), p.stderr
    # etwctl skips it too, and says so with exit status 1.
    js = run([ETWCTL, 'dump', '--format', 'json', path], ok=False)
    assert js.returncode == 1, js.stderr
    compare_events(parse_text(p.stdout), parse_json_lines(js.stdout), 5)


def expect_error(params, message):
    p = run(['babeltrace2', '--plugin-path=' + PLUGIN_DIR, '-c', 'source.etw.etl']
            + params, ok=False)
    assert p.returncode != 0, p.stdout[:200]
    assert message in p.stderr, p.stderr[-2000:]


def test_inputs_is_required():
    expect_error([], "parameter 'inputs' must be an array of paths")


def test_inputs_must_not_be_empty():
    expect_error(['-p', 'inputs=[]'], "parameter 'inputs' must be an array of paths")


def test_inputs_must_be_strings():
    expect_error(['-p', 'inputs=[1]'], "'inputs'[0] is not a string")


def test_missing_file_is_an_error():
    path = os.path.join(SCRATCH, 'missing.etl')
    expect_error(['-p', 'inputs=["%s"]' % path], '%s: No such file or directory' % path)


def test_non_etl_file_is_an_error():
    path = os.path.join(SCRATCH, 'not.etl')
    with open(path, 'wb') as f:
        f.write(b'\0' * 8192)
    expect_error(['-p', 'inputs=["%s"]' % path], '%s: not an ETL file' % path)


def test_missing_manifest_is_an_error():
    path = os.path.join(SCRATCH, 'missing.man')
    expect_error(['-p', 'inputs=["%s"],manifests=["%s"]' % (generated(), path)],
                 '%s: no such manifest' % path)


def test_manifests_must_be_an_array():
    expect_error(['-p', 'inputs=["%s"],manifests="%s"' % (generated(), MANIFEST)],
                 "parameter 'manifests' must be an array of paths")


def speed(rounds):
    path = os.path.join(SCRATCH, 'big.etl')
    run([GEN, path, str(rounds)])
    events = len(etwctl_events([path]))
    start = time.monotonic()
    to_ctf([path], 'big')
    secs = time.monotonic() - start
    print('%d events (%d MiB .etl) to CTF in %.2f s: %.0f events/s' %
          (events, os.path.getsize(path) >> 20, secs, events / secs))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--speed':
        speed(int(sys.argv[2]))
        return 0
    tests = [(n, f) for n, f in globals().items()
             if n.startswith('test_') and callable(f)]
    print('TAP version 13')
    print('1..%d' % len(tests))
    failed = skipped = 0
    for i, (name, fn) in enumerate(tests, 1):
        try:
            fn()
            print('ok %d %s' % (i, name))
        except Skip as e:
            skipped += 1
            print('ok %d %s # SKIP %s' % (i, name, e))
        except Exception as e:  # a crash fails this test, not the rest
            failed += 1
            for line in str(e).splitlines() or [repr(e)]:
                print('# ' + line)
            print('not ok %d %s' % (i, name))
    print('# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0' %
          (len(tests) - failed - skipped, failed, skipped))
    return 1 if failed else 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
