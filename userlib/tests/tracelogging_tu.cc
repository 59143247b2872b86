// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * A second translation unit, in C++, that writes through a provider
 * defined in C elsewhere: TRACELOGGING_DECLARE_PROVIDER must name the
 * same object across translation units and languages.  It also writes
 * the Values event with TraceLoggingValue, which only C++ has.
 */
#include "tracelogging_double.h"

#include <TraceLoggingProvider.h>

#include "tracelogging_events.h"

TRACELOGGING_DECLARE_PROVIDER(tle_run_c_provider);

int tle_run_other_tu(struct tle_capture *c)
{
	TLE_INTEGERS(tle_run_c_provider);
	tle_capture_last(c);
	return 0;
}

int tle_run_values_auto(struct tle_capture *c)
{
	const GUID guid = TLE_VALUE_GUID;
	bool b = true;
	char ch = 'q';
	char16_t c16 = u'R';
	signed char i8 = -3;
	unsigned char u8 = 200;
	short i16 = -1000;
	unsigned short u16 = 60000;
	int i32 = -100000;
	unsigned int u32 = 3000000000u;
	long long i64 = -9000000000000ll;
	unsigned long long u64 = 9000000000000ull;
	const void *p = (const void *)(ULONG_PTR)0x1234;

	TraceLoggingWrite(tle_run_c_provider, "Values",
		TraceLoggingValue(b, "b"),
		TraceLoggingValue(ch, "c"),
		TraceLoggingValue(c16, "c16"),
		TraceLoggingValue(i8, "i8"),
		TraceLoggingValue(u8, "u8"),
		TraceLoggingValue(i16, "i16"),
		TraceLoggingValue(u16, "u16"),
		TraceLoggingValue(i32, "i32"),
		TraceLoggingValue(u32, "u32"),
		TraceLoggingValue(i64, "i64"),
		TraceLoggingValue(u64, "u64"),
		TraceLoggingValue(0.25f, "f"),
		TraceLoggingValue(-0.5, "d"),
		TraceLoggingValue(guid, "guid"),
		TraceLoggingValue("str", "s"),
		TraceLoggingValue(u"wide", "w"),
		TraceLoggingValue(p, "p"));
	tle_capture_last(c);
	return 0;
}
