#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare journal entries with the events etwctl dump prints, field by field.

  forward_compare.py JOURNAL.json [--dups N] [--more] DUMP.json:SESSION...
  forward_compare.py JOURNAL.json --values FILE

JOURNAL.json is `journalctl -o json` output (one object per line), each
DUMP.json `etwctl dump --format json` of a forwarded file (in the order they
were sent) and SESSION the ETW_SESSION its entries carry.  Every event must have exactly the entry Documentation/etwctl.rst
("forward") describes.  By default the journal holds each event once, in
order; --dups N allows up to N entries that repeat an earlier one (a batch
resent after the collector died mid-request).  --more allows entries that
match no event (an earlier test's).  Prints one line; exits 1 on a mismatch.

--values FILE checks the entries of a forwarded Windows sample file against
what windows_values.json says FILE holds (values an independent script
read from its bytes): dump shares the decoder under test, that table does
not.
"""
import datetime
import json
import os
import re
import sys

FT_EPOCH = 116444736000000000
PRIORITY = {0: 6, 1: 2, 2: 3, 3: 4, 4: 6, 5: 7}


class Lit(str):
    """A JSON literal (number, true, false) kept as its text."""


def load_dump(path):
    """dump's JSON: one object per line; literals kept as Lit text."""
    def hook(o):
        return {k: (Lit('true') if v is True else Lit('false') if v is False else v)
                for k, v in o.items()}
    with open(path) as f:
        return [json.loads(line, parse_int=Lit, parse_float=Lit, parse_constant=Lit,
                           object_hook=hook)
                for line in f if line.strip()]


def field_name(name):
    out = 'ETW_F_' + ''.join(c.upper() if c.isascii() and c.isalnum() else '_'
                             for c in name)
    return out[:64]


def filetime(ft):
    secs, frac = divmod(ft, 10 ** 7)
    t = datetime.datetime(1601, 1, 1) + datetime.timedelta(seconds=secs)
    return t.strftime('%Y-%m-%dT%H:%M:%S') + '.%07dZ' % frac


def quote(v):
    return json.dumps(v, ensure_ascii=False) if not isinstance(v, Lit) else str(v)


def expected(ev, session, entry):
    """The journal fields of one dump event, by name.  Where dump shows the
    schema's name for a descriptor value, the entry's number is taken as
    long as it is a number (dump cannot show both)."""
    fields = ev['fields']
    if isinstance(fields, dict):
        text = ' '.join('%s=%s' % (k, quote(v)) for k, v in fields.items())
    else:
        text = fields
    e = {
        'MESSAGE': '%s %s id=%s %s' % (ev['provider'], ev['event'] or '-', ev['id'], text),
        'ETW_PROVIDER_GUID': ev['provider_guid'],
        'ETW_EVENT_ID': str(ev['id']),
        'ETW_VERSION': str(ev['version']),
        'ETW_PID': str(ev['pid']),
        'ETW_TID': str(ev['tid']),
        'ETW_CPU': str(ev['cpu']),
        'ETW_SESSION': session,
    }
    for key, col in (('ETW_CHANNEL', 'channel'), ('ETW_LEVEL', 'level'),
                     ('ETW_TASK', 'task'), ('ETW_OPCODE', 'opcode'),
                     ('ETW_KEYWORDS', 'keywords')):
        v = ev[col]
        if isinstance(v, Lit) or (col == 'keywords' and re.match(r'0x[0-9a-f]+$', v)):
            e[key] = str(v)
        else:
            e[key + '_NAME'] = v
            number = entry.get(key, '')
            e[key] = number if re.match(r'(0x[0-9a-f]+|[0-9]+)$', number) else '(a number)'
    e['PRIORITY'] = str(PRIORITY.get(int(e['ETW_LEVEL']), 7)) \
        if e['ETW_LEVEL'].isdigit() else '(from the level)'
    if ev['provider'] != ev['provider_guid']:
        e['ETW_PROVIDER_NAME'] = ev['provider']
    for key, col in (('ETW_EVENT_NAME', 'event'), ('ETW_ACTIVITY_ID', 'activity'),
                     ('ETW_RELATED_ACTIVITY_ID', 'related_activity')):
        if ev[col] is not None:
            e[key] = ev[col]
    if isinstance(fields, dict):
        for k, v in fields.items():
            e[field_name(k)] = str(v)
    else:
        e['ETW_PAYLOAD'] = fields
    return e


def entry_fields(entry):
    """A journal entry's fields as text; byte arrays (binary-safe) decoded."""
    out = {}
    for k, v in entry.items():
        if isinstance(v, list):
            v = bytes(v).decode('utf-8')
        out[k] = v
    return out


def check(entry, ev, session):
    """The differences between a journal entry and a dump event, as text."""
    e = expected(ev, session, entry)
    ft = int(entry.get('ETW_TIMESTAMP', '0'))
    bad = []
    if filetime(ft) != ev['time']:
        bad.append('ETW_TIMESTAMP %s is %s, dump says %s' % (ft, filetime(ft), ev['time']))
    if entry.get('__REALTIME_TIMESTAMP') != str((ft - FT_EPOCH) // 10):
        bad.append('__REALTIME_TIMESTAMP %s' % entry.get('__REALTIME_TIMESTAMP'))
    ours = {k: v for k, v in entry.items()
            if not k.startswith('_') and k != 'ETW_TIMESTAMP'}
    for k in sorted(set(ours) | set(e)):
        if ours.get(k) != e.get(k):
            bad.append('%s: journal %r, expected %r' % (k, ours.get(k), e.get(k)))
    return bad


def key(fields):
    return (fields.get('ETW_TIMESTAMP'), fields.get('ETW_CPU'), fields.get('ETW_EVENT_ID'),
            fields.get('ETW_PID'))


def values_text(v):
    """A windows_values.json value as dump's JSON, and so the journal, shows it."""
    return ('true' if v else 'false') if isinstance(v, bool) else str(v)


def check_values(entries, name):
    """The entries of sample file @name against windows_values.json."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'windows_values.json')) as f:
        want = json.load(f)[name]
    ours = [e for e in entries if e.get('ETW_PROVIDER_NAME') == want['provider']
            and e.get('ETW_EVENT_NAME') == want['event']]
    got = [[e.get(field_name(k)) for k in want['fields']] for e in ours]
    bad = []
    if got != [[values_text(v) for v in ev] for ev in want['events']]:
        bad.append('fields %r' % got)
    first = want['first']
    if ours and [ours[0].get(k) for k in ('ETW_PID', 'ETW_TID', 'ETW_CPU')] != \
            [str(first[k]) for k in ('pid', 'tid', 'cpu')]:
        bad.append('first entry %r' % ours[0])
    if ours and filetime(int(ours[0].get('ETW_TIMESTAMP', '0'))) != first['time']:
        bad.append('first ETW_TIMESTAMP %s' % ours[0].get('ETW_TIMESTAMP'))
    print('%s: %d entries of %s, %d expected' %
          (name, len(ours), want['event'], len(want['events'])))
    for b in bad:
        print('  ' + b)
    return 1 if bad else 0


def main(argv):
    args = argv[1:]
    if len(args) == 3 and args[1] == '--values':
        with open(args[0]) as f:
            entries = [entry_fields(json.loads(line)) for line in f if line.strip()]
        return check_values(entries, args[2])
    dups = more = 0
    if '--dups' in args:
        i = args.index('--dups')
        dups = int(args[i + 1])
        del args[i:i + 2]
    if '--more' in args:
        args.remove('--more')
        more = 1
    jpath = args[0]
    with open(jpath) as f:
        entries = [entry_fields(json.loads(line)) for line in f if line.strip()]
    events = []
    for arg in args[1:]:
        dpath, session = arg.rsplit(':', 1)
        events += [(ev, session) for ev in load_dump(dpath)]
    by_key = {}
    for e in entries:
        by_key.setdefault(key(e), []).append(e)
    missing = extra = 0
    bad = []
    for ev, session in events:
        matches = entries_for(by_key, ev)
        if not matches:
            missing += 1
            if len(bad) < 5:
                bad.append('event %s at %s: no entry' % (ev['id'], ev['time']))
            continue
        for d in check(matches[0], ev, session)[:5]:
            if len(bad) < 10:
                bad.append('event %s at %s: %s' % (ev['id'], ev['time'], d))
        if any(check(m, ev, session) for m in matches[1:]):
            bad.append('a repeated entry of event %s differs' % ev['id'])
        extra += len(matches) - 1
    unmatched = len(entries) - (len(events) - missing) - extra
    if not dups and not more and not missing and not extra and not unmatched:
        want = [key(entries_for(by_key, ev)[0]) for ev, _ in events]
        if [key(e) for e in entries] != want:
            bad.append('entries out of order')
    print('%d events, %d entries, %d missing, %d repeated, %d unmatched' %
          (len(events), len(entries), missing, extra, unmatched))
    for b in bad:
        print('  ' + b)
    ok = not bad and not missing and extra <= dups and (more or not unmatched)
    return 0 if ok else 1


def ev_key(ev):
    """The key() fields of a dump event: ETW_TIMESTAMP from its time text."""
    m = re.match(r'(\d+)-(\d+)-(\d+)T(\d+):(\d+):(\d+)\.(\d{7})Z$', ev['time'])
    t = datetime.datetime(*map(int, m.groups()[:6]))
    secs = (t - datetime.datetime(1601, 1, 1)) // datetime.timedelta(seconds=1)
    return (str(secs * 10 ** 7 + int(m.group(7))), str(ev['cpu']), str(ev['id']),
            str(ev['pid']))


def entries_for(by_key, ev):
    return by_key.get(ev_key(ev), [])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
