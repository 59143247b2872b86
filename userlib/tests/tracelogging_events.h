/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The interface of tracelogging_events.c, which writes one event per
 * group of TraceLogging field macros through the test double and is
 * compiled as C and as C++ (TLE_SUFFIX names each build's functions).
 */
#ifndef _TRACELOGGING_EVENTS_H
#define _TRACELOGGING_EVENTS_H

#include <windows.h>
#include <evntprov.h>

#define TLE_MAX		4096

/* What one write handed to the provider API. */
struct tle_capture {
	EVENT_DESCRIPTOR desc;
	int writes;
	ULONG prov_len;
	ULONG meta_len;
	ULONG payload_len;
	UCHAR prov[TLE_MAX];
	UCHAR meta[TLE_MAX];
	UCHAR payload[TLE_MAX];
};

/* The first event, also written from tracelogging_tu.c. */
#define TLE_INTEGERS(provider) \
	TraceLoggingWrite(provider, "Integers", \
		TraceLoggingInt8(-5, "i8"), \
		TraceLoggingUInt8(250, "u8"), \
		TraceLoggingInt16(-300, "i16"), \
		TraceLoggingUInt16(65000, "u16"), \
		TraceLoggingInt32(-70000, "i32"), \
		TraceLoggingUInt32(4000000000u, "u32"), \
		TraceLoggingInt64(-5000000000ll, "i64"), \
		TraceLoggingUInt64(18000000000000000000ull, "u64"), \
		TraceLoggingIntPtr(-7, "iptr"), \
		TraceLoggingUIntPtr(7, "uptr"), \
		TraceLoggingLong(-8, "l"), \
		TraceLoggingULong(8, "ul"))

/*
 * Values of the types TraceLoggingValue deduces, with the typed macros;
 * tracelogging_tu.cc writes the same with TraceLoggingValue.
 */
#define TLE_VALUE_GUID { 0x0ad614c4, 0x0ef4, 0x4225, \
	{ 0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97 } }
#define TLE_VALUES_TYPED(provider, guid, wide) \
	TraceLoggingWrite(provider, "Values", \
		TraceLoggingBoolean(1, "b"), \
		TraceLoggingChar('q', "c"), \
		TraceLoggingChar16(0x52, "c16"), \
		TraceLoggingInt8(-3, "i8"), \
		TraceLoggingUInt8(200, "u8"), \
		TraceLoggingInt16(-1000, "i16"), \
		TraceLoggingUInt16(60000, "u16"), \
		TraceLoggingInt32(-100000, "i32"), \
		TraceLoggingUInt32(3000000000u, "u32"), \
		TraceLoggingInt64(-9000000000000ll, "i64"), \
		TraceLoggingUInt64(9000000000000ull, "u64"), \
		TraceLoggingFloat32(0.25f, "f"), \
		TraceLoggingFloat64(-0.5, "d"), \
		TraceLoggingGuid(guid, "guid"), \
		TraceLoggingString("str", "s"), \
		TraceLoggingWideString(wide, "w"), \
		TraceLoggingPointer((const void *)(ULONG_PTR)0x1234, "p"))

#ifdef _TRACELOGGING_DOUBLE_H
/* Copy what the double captured of the last write. */
static inline void tle_capture_last(struct tle_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->desc = tld.desc;
	c->writes = tld.writes;
	c->prov_len = tld.prov_meta_len;
	c->meta_len = tld.meta_len;
	c->payload_len = tld.payload_len;
	memcpy(c->prov, tld.prov_meta, tld.prov_meta_len);
	memcpy(c->meta, tld.meta, tld.meta_len);
	memcpy(c->payload, tld.payload, tld.payload_len);
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Write event @i into @c; its decoded fields should read *@expect
 * ("name=value ...", strings in quotes).  Returns 0, or -1 past the
 * last event.
 */
int tle_run_c(int i, struct tle_capture *c, const char **expect);
int tle_run_cxx(int i, struct tle_capture *c, const char **expect);
int tle_run_clang(int i, struct tle_capture *c, const char **expect);
int tle_run_clangxx(int i, struct tle_capture *c, const char **expect);
/*
 * TLE_INTEGERS written from another translation unit, in C++, through
 * the provider the gcc C build defines (TRACELOGGING_DECLARE_PROVIDER);
 * call after tle_run_c() registered it.  Returns 0.
 */
int tle_run_other_tu(struct tle_capture *c);
/* The Values event written with TraceLoggingValue; as tle_run_other_tu. */
int tle_run_values_auto(struct tle_capture *c);

#ifdef __cplusplus
}
#endif

#endif /* _TRACELOGGING_EVENTS_H */
