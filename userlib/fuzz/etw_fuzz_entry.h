/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The entry points the libFuzzer targets of userlib/fuzz/ drive, shared
 * with userlib/tests/fuzz_regress_test.c, which replays the inputs that
 * once crashed them.  Each takes one input and returns the Win32 code
 * libetw gave for it; a broken invariant of what libetw returned (an
 * offset outside its buffer, two sizes of one property that disagree)
 * aborts, so that the fuzzer reports it as a crash.
 */
#ifndef _ETW_FUZZ_ENTRY_H
#define _ETW_FUZZ_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include <tdh.h>

/*
 * TraceLogging input: a 16-bit little-endian length of the metadata, a
 * flags byte (ETW_FUZZ_TL_*), the metadata, then the event's user data.
 */
#define ETW_FUZZ_TL_HEADER	3
#define ETW_FUZZ_TL_32BIT	0x01	/* EVENT_HEADER_FLAG_32_BIT_HEADER */
#define ETW_FUZZ_TL_TRAITS	0x02	/* a PROV_TRAITS item "fuzz" too */

ULONG etw_fuzz_decode(PEVENT_RECORD rec);
ULONG etw_fuzz_etl(const uint8_t *data, size_t size);
ULONG etw_fuzz_tl(const uint8_t *data, size_t size);
ULONG etw_fuzz_manifest(const uint8_t *data, size_t size);
ULONG etw_fuzz_wevt(const uint8_t *data, size_t size);
ULONG etw_fuzz_xpress(const uint8_t *data, size_t size);

/* What etw_fuzz_xpress() inflates into: a 64 KiB buffer's records. */
#define ETW_FUZZ_XPRESS_OUT	(65536 - 0x48)

#endif /* _ETW_FUZZ_ENTRY_H */
