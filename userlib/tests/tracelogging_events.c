// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * One event per group of TraceLogging field macros, every macro of
 * <TraceLoggingProvider.h> at least once, written through the test
 * double.  Compiled as C (tle_run_c) and as C++ (tle_run_cxx) so that a
 * test can compare the bytes of both builds; the C build's events are
 * also decoded (ctl/tests/tracelogging_decode_test.c) against the text
 * each table entry gives.  With TLE_REAL_API defined the events go to
 * libetw instead (selftests/tracelogging_test.c records them in the VM).
 */
#ifndef TLE_REAL_API
#include "tracelogging_double.h"
#endif

#include <TraceLoggingProvider.h>

#include "tracelogging_events.h"

/* Each build names its entry point (the Makefile sets TLE_RUN). */
#ifndef TLE_RUN
#ifdef __cplusplus
#define TLE_RUN tle_run_cxx
#else
#define TLE_RUN tle_run_c
#endif
#endif
/* The handle is a global: each build defines its own. */
#define TLE_CAT(a, b) TLE_CAT_(a, b)
#define TLE_CAT_(a, b) a##b
#define tle_provider TLE_CAT(TLE_RUN, _provider)

/* 8b1dd10c-8e7e-5b2c-9f0e-2cb0c1a0e001 */
TRACELOGGING_DEFINE_PROVIDER(tle_provider, "Etw-TraceLogging-Test",
	(0x8b1dd10c, 0x8e7e, 0x5b2c, 0x9f, 0x0e, 0x2c, 0xb0, 0xc1, 0xa0, 0xe0,
	 0x01),
	TraceLoggingOptionGroup(0x11223344, 0x5566, 0x7788, 0x99, 0xaa, 0xbb,
				0xcc, 0xdd, 0xee, 0xff, 0x00));

/* ANSI_STRING and UNICODE_STRING as ntdef.h lays them out. */
struct tle_ansi_string {
	USHORT Length;
	USHORT MaximumLength;
	char *Buffer;
};

struct tle_unicode_string {
	USHORT Length;
	USHORT MaximumLength;
	WCHAR *Buffer;
};

static void tle_integers(void)
{
	TLE_INTEGERS(tle_provider);
}

static void tle_hex(void)
{
	TraceLoggingWrite(tle_provider, "Hex",
		TraceLoggingHexInt8(0x7b, "h8"),
		TraceLoggingHexUInt8(0xab, "hu8"),
		TraceLoggingHexInt16(0x1234, "h16"),
		TraceLoggingHexUInt16(0xbeef, "hu16"),
		TraceLoggingHexInt32(0x12345678, "h32"),
		TraceLoggingHexUInt32(0xdeadbeef, "hu32"),
		TraceLoggingHexInt64(0x123456789all, "h64"),
		TraceLoggingHexUInt64(0xfedcba9876543210ull, "hu64"),
		TraceLoggingHexIntPtr(0x10, "hiptr"),
		TraceLoggingHexUIntPtr(0x20, "huptr"),
		TraceLoggingHexLong(0x30, "hl"),
		TraceLoggingHexULong(0x40, "hul"));
}

static void tle_other_scalars(void)
{
	TraceLoggingWrite(tle_provider, "Scalars",
		TraceLoggingFloat32(1.5f, "f32"),
		TraceLoggingFloat64(-2.25, "f64"),
		TraceLoggingBoolean(1, "b8"),
		TraceLoggingBool(0, "b32"),
		TraceLoggingChar('x', "c8"),
		TraceLoggingChar16(0x5a, "c16"),
		TraceLoggingWChar(0x59, "wc"),
		TraceLoggingPointer((const void *)(ULONG_PTR)0x1000, "ptr"),
		TraceLoggingCodePointer((const void *)(ULONG_PTR)0x2000, "code"),
		TraceLoggingPid(1234, "pid"),
		TraceLoggingTid(5678, "tid"),
		TraceLoggingWinError(5, "err"),
		TraceLoggingNTStatus(0xc0000005, "status"),
		TraceLoggingHResult((LONG)0x80070005, "hr"));
}

static void tle_network(void)
{
	/* 127.0.0.1 and port 8080, in network byte order. */
	static const UINT8 v4[4] = { 127, 0, 0, 1 };
	static const UINT8 port[2] = { 0x1f, 0x90 };
	static const UINT8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				      0, 0, 0, 0, 0, 0, 0, 1 };
	/* sockaddr_in: AF_INET, 8080, 127.0.0.1, zero padding. */
	static const UINT8 sa[16] = { 2, 0, 0x1f, 0x90, 127, 0, 0, 1 };
	UINT32 addr;
	UINT16 p;

	memcpy(&addr, v4, 4);
	memcpy(&p, port, 2);
	TraceLoggingWrite(tle_provider, "Network",
		TraceLoggingIPv4Address(addr, "v4"),
		TraceLoggingPort(p, "port"),
		TraceLoggingIPv6Address(v6, "v6"),
		TraceLoggingSocketAddress(sa, 16, "sa"));
}

static void tle_times(void)
{
	/* 2021-09-09T14:59:35.7990000Z */
	FILETIME ft = { 0x4dfa1070, 0x01d7a58b };
	SYSTEMTIME st = { 2021, 9, 4, 9, 14, 59, 35, 799 };
	GUID g = { 0x0ad614c4, 0x0ef4, 0x4225,
		   { 0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97 } };

	TraceLoggingWrite(tle_provider, "Times",
		TraceLoggingFileTime(ft, "ft"),
		TraceLoggingFileTimeUtc(ft, "ftu"),
		TraceLoggingSystemTime(st, "st"),
		TraceLoggingSystemTimeUtc(st, "stu"),
		TraceLoggingGuid(g, "guid"));
}

static void tle_strings(void)
{
	static const WCHAR wide[] = { 'w', 'i', 'd', 'e', 0 };
	static const WCHAR counted[] = { 'a', 'b', 'c', 'd' };
	static char abuf[] = "ansi!";
	static WCHAR ubuf[] = { 'u', 'n', 'i', 0 };
	struct tle_ansi_string as = { 5, 6, abuf };
	struct tle_unicode_string us = { 6, 8, ubuf };
	const char *null_string = NULL;

	TraceLoggingWrite(tle_provider, "Strings",
		TraceLoggingString("hello", "s"),
		TraceLoggingString(null_string, "null"),
		TraceLoggingUtf8String("caf\xc3\xa9", "utf8"),
		TraceLoggingWideString(wide, "ws"),
		TraceLoggingCountedString("abcdef", 3, "cs"),
		TraceLoggingCountedUtf8String("xyz", 2, "cu8"),
		TraceLoggingCountedWideString(counted, 2, "cws"),
		TraceLoggingAnsiString(&as, "as"),
		TraceLoggingUnicodeString(&us, "us"));
}

static void tle_binary(void)
{
	static const UINT8 bytes[3] = { 1, 2, 0xfe };
	/* S-1-5-32-544: BUILTIN\Administrators. */
	static const UINT8 sid[16] = { 1, 2, 0, 0, 0, 0, 0, 5,
				       32, 0, 0, 0, 0x20, 2, 0, 0 };

	TraceLoggingWrite(tle_provider, "Binary",
		TraceLoggingBinary(bytes, 3, "bin"),
		TraceLoggingBinaryEx(bytes, 2, TlgOutHEX, "binex"),
		TraceLoggingSid(sid, "sid"));
}

static void tle_arrays(void)
{
	static const INT32 i32[3] = { -1, 0, 1 };
	static const UINT16 u16[2] = { 7, 65535 };
	static const double dbl[2] = { 0.5, -1 };
	static const UINT8 flags[3] = { 1, 0, 1 };
	static const GUID guids[1] = {
		{ 0x0ad614c4, 0x0ef4, 0x4225,
		  { 0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97 } } };

	TraceLoggingWrite(tle_provider, "Arrays",
		TraceLoggingInt32Array(i32, 3, "va"),
		TraceLoggingInt32FixedArray(i32, 2, "fa"),
		TraceLoggingUInt16Array(u16, 2, "u16a"),
		TraceLoggingFloat64FixedArray(dbl, 2, "da"),
		TraceLoggingBooleanArray(flags, 3, "ba"),
		TraceLoggingGuidArray(guids, 1, "ga"),
		TraceLoggingInt8Array(NULL, 0, "empty"));
}

static void tle_structs(void)
{
	static const UINT8 port[2] = { 0, 2 };	/* network byte order */
	INT32 x = 3, y = -4, packed = 99;

	TraceLoggingWrite(tle_provider, "Structs",
		TraceLoggingStruct(2, "pt"),
			TraceLoggingInt32(x, "x"),
			TraceLoggingInt32(y, "y"),
		TraceLoggingPackedField(&packed, 4, TlgInINT32, "pf"),
		TraceLoggingPackedFieldEx(&packed, 4, TlgInUINT32, TlgOutHEX,
					  "pfx"),
		TraceLoggingPackedMetadata(TlgInINT32, "pm"),
		TraceLoggingPackedMetadataEx(TlgInUINT16, TlgOutPORT, "pmx"),
		TraceLoggingPackedData(&x, 4),
		TraceLoggingPackedDataEx(port, 2,
					 EVENT_DATA_DESCRIPTOR_TYPE_NONE));
}

/* A field without a name is named after its argument as written. */
#define TLE_THREE 3

/* Options: level, keywords ORed, opcode, channel, tags on both sides. */
static void tle_options(void)
{
	TraceLoggingWrite(tle_provider, "Options",
		TraceLoggingLevel(WINEVENT_LEVEL_WARNING),
		TraceLoggingKeyword(0x10),
		TraceLoggingKeyword(0x3),
		TraceLoggingOpcode(WINEVENT_OPCODE_START),
		TraceLoggingChannel(WINEVENT_CHANNEL_GLOBAL_APPLICATION),
		TraceLoggingEventTag(0x0a00000),
		TraceLoggingDescription("an event with every option"),
		TraceLoggingInt32(1, "t1", "one tag byte", 0x0200000),
		TraceLoggingInt32(2, "t4", "four tag bytes", 0x0fffffff),
		TraceLoggingInt32(TLE_THREE));
}

static void tle_values(void)
{
	static const WCHAR wide[] = { 'w', 'i', 'd', 'e', 0 };
	const GUID guid = TLE_VALUE_GUID;

	TLE_VALUES_TYPED(tle_provider, guid, wide);
}

/*
 * Arrays of strings, as the SDK writes them: it has no field macro for
 * them, so the caller packs the UINT16 count and the strings (each as if
 * alone: NUL-terminated, or after its UINT16 byte count) and gives the
 * InType with TlgInVcount to a packed macro, in one piece or with the
 * metadata and the data apart.
 */
static void tle_string_arrays(void)
{
	static const char sa[] = "\x03\x00" "ABC\0" "DE\0" "F";
	static const char u8a[] = "\x02\x00" "caf\xc3\xa9\0" "x";
	static const WCHAR wa[] = { 2, 'w', 'i', 0, 'd', 0 };
	static const char ca[] = "\x02\x00" "\x02\x00" "ab" "\x01\x00" "c";
	static const WCHAR cwa[] = { 1, 4, 'h', 'i' };
	static const UINT16 none = 0, two = 2;
	static const char split[] = "one\0" "two";

	TraceLoggingWrite(tle_provider, "StringArrays",
		TraceLoggingPackedField(sa, sizeof(sa),
					TlgInANSISTRING | TlgInVcount, "sa"),
		TraceLoggingPackedFieldEx(u8a, sizeof(u8a),
					  TlgInANSISTRING | TlgInVcount,
					  TlgOutUTF8, "u8a"),
		TraceLoggingPackedField(wa, sizeof(wa),
					TlgInUNICODESTRING | TlgInVcount,
					"wa"),
		TraceLoggingPackedField(ca, sizeof(ca) - 1,
					TlgInCOUNTEDANSISTRING | TlgInVcount,
					"ca"),
		TraceLoggingPackedField(cwa, sizeof(cwa),
					TlgInCOUNTEDSTRING | TlgInVcount,
					"cwa"),
		TraceLoggingPackedField(&none, 2,
					TlgInANSISTRING | TlgInVcount,
					"none"),
		TraceLoggingPackedData(&two, 2),
		TraceLoggingPackedData(split, sizeof(split)),
		TraceLoggingPackedMetadata(TlgInANSISTRING | TlgInVcount,
					   "split"));
}

/* What etwctl_tl_decode() gives for each, joined as "name=value". */
static const struct {
	const char *name;
	void (*write)(void);
	const char *expect;
} tle_events[] = {
	{ "Integers", tle_integers, "i8=-5 u8=250 i16=-300 u16=65000 i32=-70000 "
	  "u32=4000000000 i64=-5000000000 u64=18000000000000000000 iptr=-7 "
	  "uptr=7 l=-8 ul=8" },
	{ "Hex", tle_hex, "h8=\"0x7B\" hu8=\"0xAB\" h16=\"0x1234\" hu16=\"0xBEEF\" "
	  "h32=\"0x12345678\" hu32=\"0xDEADBEEF\" h64=\"0x123456789A\" "
	  "hu64=\"0xFEDCBA9876543210\" hiptr=\"0x10\" huptr=\"0x20\" "
	  "hl=\"0x30\" hul=\"0x40\"" },
	{ "Scalars", tle_other_scalars, "f32=1.5 f64=-2.25 b8=true b32=false c8=\"x\" "
	  "c16=90 wc=89 ptr=\"0x1000\" code=\"0x2000\" pid=1234 tid=5678 "
	  "err=5 status=3221225477 hr=-2147024891" },
	{ "Network", tle_network, "v4=\"127.0.0.1\" port=8080 "
	  "v6=\"2001:db8::1\" "
	  "sa=\"0x02001F907F0000010000000000000000\"" },
	{ "Times", tle_times, "ft=\"2021-09-09T14:59:35.7990000Z\" "
	  "ftu=\"2021-09-09T14:59:35.7990000Z\" st=\"2021-09-09T14:59:35.799\" "
	  "stu=\"2021-09-09T14:59:35.799\" "
	  "guid=\"0ad614c4-0ef4-4225-8013-f44f37cb0397\"" },
	{ "Strings", tle_strings, "s=\"hello\" null=\"\" utf8=\"caf\xc3\xa9\" ws=\"wide\" "
	  "cs=\"abc\" cu8=\"xy\" cws=\"ab\" as=\"ansi!\" us=\"uni\"" },
	{ "Binary", tle_binary, "bin=\"0x0102FE\" binex=\"0x0102\" sid=\"S-1-5-32-544\"" },
	{ "Arrays", tle_arrays, "va=[-1,0,1] fa=[-1,0] u16a=[7,65535] da=[0.5,-1] "
	  "ba=[true,false,true] "
	  "ga=[\"0ad614c4-0ef4-4225-8013-f44f37cb0397\"] empty=[]" },
	{ "Structs", tle_structs, "pt.x=3 pt.y=-4 pf=99 pfx=\"0x63\" pm=3 pmx=2" },
	{ "Options", tle_options, "t1=1 t4=2 TLE_THREE=3" },
	{ "Values", tle_values, "b=true c=\"q\" c16=82 i8=-3 u8=200 i16=-1000 "
	  "u16=60000 i32=-100000 u32=3000000000 i64=-9000000000000 "
	  "u64=9000000000000 f=0.25 d=-0.5 "
	  "guid=\"0ad614c4-0ef4-4225-8013-f44f37cb0397\" s=\"str\" "
	  "w=\"wide\" p=\"0x1234\"" },
	{ "StringArrays", tle_string_arrays, "sa=[\"ABC\",\"DE\",\"F\"] "
	  "u8a=[\"caf\xc3\xa9\",\"x\"] wa=[\"wi\",\"d\"] ca=[\"ab\",\"c\"] "
	  "cwa=[\"hi\"] none=[] split=[\"one\",\"two\"]" },
};

#define TLE_EVENTS (int)(sizeof(tle_events) / sizeof(tle_events[0]))

#ifdef TLE_REAL_API
/*
 * Write event @i through the registered provider; *@name and *@expect
 * say what a decoder should find.  Returns 0, or -1 past the last event.
 */
static int tle_write(int i, const char **name, const char **expect)
{
	if (i < 0 || i >= TLE_EVENTS)
		return -1;
	tle_events[i].write();
	*name = tle_events[i].name;
	*expect = tle_events[i].expect;
	return 0;
}
#else
int TLE_RUN(int i, struct tle_capture *c, const char **expect)
{
	if (i < 0 || i >= TLE_EVENTS)
		return -1;
	if (!tld.registered) {
		if (TraceLoggingRegister(tle_provider))
			return -1;
		tld_notify(1, 0, ~0ull, 0);
	}
	tle_events[i].write();
	tle_capture_last(c);
	*expect = tle_events[i].expect;
	return tld.bad_desc ? -1 : 0;
}
#endif
