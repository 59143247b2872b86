#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""etl_census.py [--events] FILE: count what an ETL file holds, for
etl_relogged_test and tdh_clr_test.

An independent reader: its own XPRESS (plain LZ77, [MS-XCA] 2.4) decoder
and buffer walk, written from the specification and the file layout, and
sharing no code with libetw.  Buffers follow each other by their
BufferSize; a compressed one (BufferFlag 0x40) inflates to Offset bytes.
Prints one count a line:

    buffers N
    buffer TYPE FLAG N      (type and flag as stored, hex flag)
    compressed N
    records N
    header 0xHHHH N         (the record header type)
    provider GUID N         (EVENT_HEADER records)
    hook 0xHHHH 0xGGTT N    (SYSTEM and PERFINFO records: group, type)

With --events, only one line per event id and version of each provider
of EVENT_HEADER records (the descriptor's Id and Version, at offsets 40
and 42 of the record):

    event GUID ID VERSION N
"""
import struct
import sys
import uuid
from collections import Counter

HDR = 0x48


def inflate(src, size):
    out = bytearray()
    ip = flags = nflags = 0
    half = None
    n = len(src)
    while True:
        if nflags == 0:
            if ip == n:
                break
            flags, = struct.unpack_from('<I', src, ip)
            ip += 4
            nflags = 32
        nflags -= 1
        if ip == n:
            break
        if not flags >> nflags & 1:
            out.append(src[ip])
            ip += 1
            continue
        word, = struct.unpack_from('<H', src, ip)
        ip += 2
        length, off = word & 7, (word >> 3) + 1
        if length == 7:
            if half is None:
                length, half = src[ip] & 15, ip
                ip += 1
            else:
                length, half = src[half] >> 4, None
            if length == 15:
                length = src[ip]
                ip += 1
                if length == 255:
                    length, = struct.unpack_from('<H', src, ip)
                    ip += 2
                    if length == 0:
                        length, = struct.unpack_from('<I', src, ip)
                        ip += 4
                    length -= 22
                length += 15
            length += 7
        length += 3
        if off > len(out):
            raise ValueError('offset before the start')
        for _ in range(length):
            out.append(out[-off])
    if len(out) != size:
        raise ValueError('inflated %d bytes, not %d' % (len(out), size))
    return bytes(out)


SIZE_IN_PACKET = {0xc001, 0xc002, 0xc003, 0xc004, 0xc010, 0xc011}


def main(path, events=False):
    data = open(path, 'rb').read()
    c = Counter()
    off = 0
    while len(data) - off >= HDR:
        size, = struct.unpack_from('<I', data, off)
        filled, = struct.unpack_from('<I', data, off + 0x30)
        flag, btype = struct.unpack_from('<HH', data, off + 0x34)
        c['buffers'] += 1
        c['buffer %d 0x%x' % (btype, flag)] += 1
        if flag & 0x40:
            c['compressed'] += 1
            buf = data[off:off + HDR] + inflate(data[off + HDR:off + size],
                                                filled - HDR)
        else:
            buf = data[off:off + filled]
        pos = HDR
        while filled - pos >= 4:
            marker, = struct.unpack_from('<I', buf, pos)
            if marker == 0xffffffff:
                break
            ht = marker >> 16
            if ht in SIZE_IN_PACKET:
                rsize, hook = struct.unpack_from('<HH', buf, pos + 4)
                c['hook 0x%04x 0x%04x' % (ht, hook)] += 1
            else:
                rsize = marker & 0xffff
            if ht in (0xc012, 0xc013):
                g = uuid.UUID(bytes_le=buf[pos + 24:pos + 40])
                c['provider %s' % g] += 1
                eid, ver = struct.unpack_from('<HB', buf, pos + 40)
                c['event %s %d %d' % (g, eid, ver)] += 1
            c['records'] += 1
            c['header 0x%04x' % ht] += 1
            pos += (rsize + 7) & ~7
        off += size
    for k in sorted(c):
        if k.startswith('event ') == events:
            print(k, c[k])


if __name__ == '__main__':
    if sys.argv[1] == '--events':
        main(sys.argv[2], events=True)
    else:
        main(sys.argv[1])
