/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * TdhFormatProperty: the text of every InType and of the OutTypes that
 * change it, the bytes each consumes, the buffer-size protocol and a Win32
 * code for every error.  Expected texts follow Documentation/libetw.rst.
 */
#include "kselftest_harness.h"
#include "tdh_test.h"

static TRACE_EVENT_INFO dummy_info;

static const struct {
	const char *what;
	USHORT in, out, length;
	const char *data;
	USHORT dlen;
	const char *text;	/* UTF-8 */
	USHORT consumed;
} cases[] = {
#define T(w, i, o, l, d, t, c) \
	{ w, TDH_INTYPE_##i, TDH_OUTTYPE_##o, l, d, sizeof(d) - 1, t, c }
	T("null", NULL, NULL, 0, "\x01", "", 0),
	T("int8", INT8, NULL, 0, "\x80", "-128", 1),
	T("uint8", UINT8, NULL, 0, "\xff", "255", 1),
	T("uint8 hex", UINT8, HEXINT8, 0, "\x2a", "0x2A", 1),
	T("uint8 boolean true", UINT8, BOOLEAN, 0, "\x02", "true", 1),
	T("uint8 boolean false", UINT8, BOOLEAN, 0, "\x00", "false", 1),
	T("int8 char", INT8, STRING, 0, "M", "M", 1),
	T("uint8 char not utf-8", UINT8, STRING, 0, "\xff", "\xef\xbf\xbd", 1),
	T("uint16 wchar", UINT16, STRING, 0, "\xe9\x00", "\xc3\xa9", 2),
	T("int16", INT16, NULL, 0, "\x00\x80", "-32768", 2),
	T("uint16 as signed", UINT16, SHORT, 0, "\xff\xff", "-1", 2),
	T("int16 as unsigned", INT16, UNSIGNEDSHORT, 0, "\xff\xff", "65535", 2),
	T("uint16 port", UINT16, PORT, 0, "\x1f\x90", "8080", 2),
	T("int32", INT32, NULL, 0, "\xfe\xff\xff\xff", "-2", 4),
	T("uint32 ipv4", UINT32, IPV4, 0, "\x7f\x00\x00\x01", "127.0.0.1", 4),
	T("uint32 pid", UINT32, PID, 0, "\xd2\x04\x00\x00", "1234", 4),
	T("int32 hresult", INT32, HRESULT, 0, "\x05\x40\x00\x80", "0x80004005",
	  4),
	T("uint32 ntstatus", UINT32, NTSTATUS, 0, "\x05\x00\x00\xc0",
	  "0xC0000005", 4),
	T("uint32 win32 error", UINT32, WIN32ERROR, 0, "\x05\x00\x00\x00", "5",
	  4),
	T("int64", INT64, NULL, 0, "\xfe\xff\xff\xff\xff\xff\xff\xff", "-2", 8),
	T("uint64", UINT64, NULL, 0, "\xff\xff\xff\xff\xff\xff\xff\xff",
	  "18446744073709551615", 8),
	T("uint64 hex", UINT64, HEXINT64, 0, "\x00\x00\x00\x00\x01\x00\x00\x00",
	  "0x100000000", 8),
	T("uint64 code pointer", UINT64, CODE_POINTER, 0,
	  "\x10\x32\x54\x76\xf6\x7f\x00\x00", "0x7FF676543210", 8),
	T("float", FLOAT, NULL, 0, "\x00\x00\xc0\x3f", "1.5", 4),
	T("float 0.1", FLOAT, NULL, 0, "\xcd\xcc\xcc\x3d", "0.100000001", 4),
	T("double", DOUBLE, NULL, 0, "\x00\x00\x00\x00\x00\x00\xd0\x3f", "0.25",
	  8),
	T("boolean true", BOOLEAN, NULL, 0, "\x01\x00\x00\x00", "true", 4),
	T("boolean false", BOOLEAN, NULL, 0, "\x00\x00\x00\x00", "false", 4),
	T("hexint32", HEXINT32, NULL, 0, "\x1f\x00\x00\x00", "0x1F", 4),
	T("hexint64", HEXINT64, NULL, 0, "\x00\x00\x00\x00\x01\x00\x00\x00",
	  "0x100000000", 8),
	T("pointer", POINTER, NULL, 0, "\x88\x77\x66\x55\x44\x33\x22\x11",
	  "0x1122334455667788", 8),
	T("guid", GUID, NULL, 0,
	  "\xc4\x14\xd6\x0a\xf4\x0e\x25\x42\x80\x13\xf4\x4f\x37\xcb\x03\x97",
	  "{0AD614C4-0EF4-4225-8013-F44F37CB0397}", 16),
	T("filetime epoch", FILETIME, NULL, 0,
	  "\x00\x80\x3e\xd5\xde\xb1\x9d\x01",
	  "1970-01-01T00:00:00.0000000Z", 8),
	T("filetime 100 ns", FILETIME, NULL, 0,
	  "\x0f\x80\x3e\xd5\xde\xb1\x9d\x01",
	  "1970-01-01T00:00:00.0000015Z", 8),
	T("filetime unsigned", FILETIME, NULL, 0,
	  "\xff\xff\xff\xff\xff\xff\xff\xff",
	  "60056-05-28T05:36:10.9551615Z", 8),
	T("systemtime", SYSTEMTIME, NULL, 0,
	  "\xe5\x07\x09\x00\x04\x00\x09\x00\x0e\x00\x3b\x00\x23\x00\x1f\x03",
	  "2021-09-09T14:59:35.799", 16),
	T("systemtime utc", SYSTEMTIME, DATETIME_UTC, 0,
	  "\xe5\x07\x09\x00\x04\x00\x09\x00\x0e\x00\x3b\x00\x23\x00\x1f\x03",
	  "2021-09-09T14:59:35.799Z", 16),
	T("sid", SID, NULL, 0,
	  "\x01\x02\x00\x00\x00\x00\x00\x05\x20\x00\x00\x00\x20\x02\x00\x00",
	  "S-1-5-32-544", 16),
	T("unicode", UNICODESTRING, NULL, 0, "h\0i\0\0\0", "hi", 6),
	T("unicode surrogate pair", UNICODESTRING, NULL, 0,
	  "\x3d\xd8\x00\xde\0\0", "\xf0\x9f\x98\x80", 6),
	T("unicode fixed length", UNICODESTRING, NULL, 2, "h\0i\0x\0",
	  "hi", 4),
	T("ansi", ANSISTRING, NULL, 0, "hi\0x", "hi", 3),
	T("ansi not utf-8", ANSISTRING, NULL, 0, "\xffok\xc3\xa9\0",
	  "\xef\xbf\xbdok\xc3\xa9", 6),
	T("ansi fixed length", ANSISTRING, NULL, 2, "hix", "hi", 2),
	T("counted unicode", MANIFEST_COUNTEDSTRING, NULL, 0, "\x04\x00h\0i\0",
	  "hi", 6),
	T("counted ansi", MANIFEST_COUNTEDANSISTRING, NULL, 0, "\x02\x00hi",
	  "hi", 4),
	/* An element of a string array: the next element follows. */
	T("ansi utf-8 element", ANSISTRING, UTF8, 0, "caf\xc3\xa9\0x\0",
	  "caf\xc3\xa9", 6),
	T("unicode element", UNICODESTRING, NULL, 0, "w\0i\0\0\0d\0\0\0",
	  "wi", 6),
	T("counted ansi element", MANIFEST_COUNTEDANSISTRING, NULL, 0,
	  "\x02\x00" "ab" "\x01\x00" "c", "ab", 4),
	T("counted unicode element", MANIFEST_COUNTEDSTRING, NULL, 0,
	  "\x02\x00" "h\0" "\x02\x00" "i\0", "h", 4),
	T("counted binary", MANIFEST_COUNTEDBINARY, NULL, 0, "\x01\x00\x7f",
	  "0x7F", 3),
	T("binary", BINARY, NULL, 2, "\xde\xad\xbe", "0xDEAD", 2),
	T("binary empty", BINARY, NULL, 0, "\xde", "0x", 0),
	T("binary ipv6", BINARY, IPV6, 16,
	  "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", "fe80::1", 16),
	/* The caller passes 16 for an IPv6 address without a length. */
	T("binary ipv6 of length 0", BINARY, IPV6, 0,
	  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", "0x", 0),
	T("mof counted string", COUNTEDSTRING, NULL, 0, "\x04\x00h\0i\0x",
	  "hi", 6),
	T("mof counted ansi", COUNTEDANSISTRING, NULL, 0, "\x02\x00hix", "hi",
	  4),
	T("reversed counted string", REVERSEDCOUNTEDSTRING, NULL, 0,
	  "\x00\x04h\0i\0", "hi", 6),
	T("reversed counted ansi", REVERSEDCOUNTEDANSISTRING, NULL, 0,
	  "\x00\x02hi", "hi", 4),
	T("unterminated string to the end", NONNULLTERMINATEDSTRING, NULL, 0,
	  "h\0i\0", "hi", 4),
	T("unterminated ansi to the end", NONNULLTERMINATEDANSISTRING, NULL, 0,
	  "hi", "hi", 2),
	T("unterminated ansi of a length", NONNULLTERMINATEDANSISTRING, NULL,
	  1, "hi", "h", 1),
	T("unicode char", UNICODECHAR, NULL, 0, "\xe9\x00", "\xc3\xa9", 2),
	T("ansi char", ANSICHAR, NULL, 0, "Mx", "M", 1),
	T("size_t", SIZET, NULL, 0, "\x2a\0\0\0\0\0\0\0", "42", 8),
	T("hexdump", HEXDUMP, NULL, 0, "\x02\0\0\0\xab\xcdx", "0xABCD", 6),
	T("wbem sid", WBEMSID, NULL, 0,
	  "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
	  "\x01\x01\x00\x00\x00\x00\x00\x05\x12\x00\x00\x00",
	  "S-1-5-18", 28),
#undef T
};

/* Formats case @i into @text; returns the Win32 code. */
static ULONG format(ULONG ptr_size, USHORT in, USHORT out, USHORT length,
		    const char *data, USHORT dlen, char *text, size_t size,
		    USHORT *used)
{
	WCHAR buf[128];
	ULONG bs = sizeof(buf), st;

	st = TdhFormatProperty(&dummy_info, NULL, ptr_size, in, out, length,
			       dlen, (PBYTE)data, &bs, buf, used);
	if (!st)
		tdh_utf8(buf, text, size);
	return st;
}

TEST(type_table)
{
	char text[128];
	USHORT used;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		used = 0xffff;
		ASSERT_EQ(ERROR_SUCCESS,
			  format(8, cases[i].in, cases[i].out, cases[i].length,
				 cases[i].data, cases[i].dlen, text,
				 sizeof(text), &used))
			TH_LOG("%s", cases[i].what);
		EXPECT_STREQ(cases[i].text, text) TH_LOG("%s", cases[i].what);
		EXPECT_EQ(cases[i].consumed, used) TH_LOG("%s", cases[i].what);
	}
}

TEST(pointer_size_4)
{
	char text[32];
	USHORT used;

	ASSERT_EQ(ERROR_SUCCESS, format(4, TDH_INTYPE_POINTER, 0, 0,
					"\x78\x56\x34\x12\xff", 5, text,
					sizeof(text), &used));
	EXPECT_STREQ("0x12345678", text);
	EXPECT_EQ(4, used);
}

static const struct {
	const char *what;
	USHORT in, out, length;
	const char *data;
	USHORT dlen;
	ULONG want;
} errors[] = {
#define E(w, i, l, d, r) \
	{ w, TDH_INTYPE_##i, 0, l, d, sizeof(d) - 1, r }
	E("short int32", INT32, 0, "\x01\x02", ERROR_EVT_INVALID_EVENT_DATA),
	E("short guid", GUID, 0, "\x01\x02", ERROR_EVT_INVALID_EVENT_DATA),
	E("unterminated unicode", UNICODESTRING, 0, "a\0b\0",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("odd unicode", UNICODESTRING, 0, "a\0b",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("unterminated ansi", ANSISTRING, 0, "abc",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("fixed string past the end", UNICODESTRING, 4, "a\0b\0",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("counted past the end", MANIFEST_COUNTEDANSISTRING, 0, "\x05\x00ab",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("count cut short", MANIFEST_COUNTEDBINARY, 0, "\x05",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("odd counted unicode", MANIFEST_COUNTEDSTRING, 0, "\x03\x00h\0i",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("binary past the end", BINARY, 4, "\x01\x02",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("sid cut short", SID, 0, "\x01\x02\x00\x00\x00\x00\x00\x05\x20",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("sid header cut short", SID, 0, "\x01\x02",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("struct", RESERVED24, 0, "\x01", ERROR_INVALID_PARAMETER),
	E("odd mof counted string", COUNTEDSTRING, 0, "\x03\x00h\0i",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("reversed count past the end", REVERSEDCOUNTEDANSISTRING, 0,
	  "\x02\x00hi", ERROR_EVT_INVALID_EVENT_DATA),
	E("hexdump size wraps", HEXDUMP, 0, "\xff\xff\xff\xff\x01",
	  ERROR_EVT_INVALID_EVENT_DATA),
	E("wbem sid cut short", WBEMSID, 0, "\0\0\0\0\0\0\0\0\x01",
	  ERROR_EVT_INVALID_EVENT_DATA),
#undef E
	{ "unknown in type", 30, 0, 0, "\x01", 1, ERROR_NOT_SUPPORTED },
	{ "in type past TDH's", 311, 0, 0, "\x01", 1, ERROR_NOT_SUPPORTED },
};

TEST(data_errors_table)
{
	char text[8];
	USHORT used;
	size_t i;
	ULONG st;


	for (i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		st = format(8, errors[i].in, errors[i].out, errors[i].length,
			    errors[i].data, errors[i].dlen, text, sizeof(text),
			    &used);
		if (st != errors[i].want)
			fprintf(stderr, "# %s: %u\n", errors[i].what, st);
		EXPECT_EQ(errors[i].want, st);
	}
}

TEST(parameter_errors_table)
{
	EVENT_MAP_INFO map;
	BYTE data[4] = { 1, 0, 0, 0 };
	WCHAR buf[16];
	ULONG bs;
	USHORT used;

	memset(&map, 0, sizeof(map));
	bs = sizeof(buf);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(NULL, NULL, 8, TDH_INTYPE_UINT8, 0, 0, 4,
				    data, &bs, buf, &used));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(&dummy_info, NULL, 8, TDH_INTYPE_UINT8, 0,
				    0, 4, data, NULL, buf, &used));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(&dummy_info, NULL, 8, TDH_INTYPE_UINT8, 0,
				    0, 4, data, &bs, buf, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(&dummy_info, NULL, 8, TDH_INTYPE_UINT8, 0,
				    0, 4, NULL, &bs, buf, &used));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(&dummy_info, NULL, 8, TDH_INTYPE_UINT8, 0,
				    0, 4, data, &bs, NULL, &used));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhFormatProperty(&dummy_info, NULL, 2, TDH_INTYPE_UINT8, 0,
				    0, 4, data, &bs, buf, &used));
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  TdhFormatProperty(&dummy_info, &map, 8, TDH_INTYPE_UINT8, 0,
				    0, 4, data, &bs, buf, &used));
}

/* "Mercury" needs 16 bytes: ask, too small by one, exact. */
TEST(buffer_size_protocol)
{
	BYTE data[] = "M\0e\0r\0c\0u\0r\0y\0\0\0";
	WCHAR buf[8];
	ULONG bs = 0;
	USHORT used = 0;
	char text[16];

	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhFormatProperty(&dummy_info, NULL, 8,
				    TDH_INTYPE_UNICODESTRING, 0, 0,
				    sizeof(data) - 1, data, &bs, NULL, &used));
	EXPECT_EQ(16, bs);
	bs = 15;
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhFormatProperty(&dummy_info, NULL, 8,
				    TDH_INTYPE_UNICODESTRING, 0, 0,
				    sizeof(data) - 1, data, &bs, buf, &used));
	EXPECT_EQ(16, bs);
	bs = sizeof(buf);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhFormatProperty(&dummy_info, NULL, 8,
				    TDH_INTYPE_UNICODESTRING, 0, 0,
				    sizeof(data) - 1, data, &bs, buf, &used));
	EXPECT_EQ(16, bs);
	EXPECT_EQ(16, used);
	EXPECT_EQ(0, buf[7]);
	EXPECT_STREQ("Mercury", tdh_utf8(buf, text, sizeof(text)));
}

TEST_HARNESS_MAIN
