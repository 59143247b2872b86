/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * TdhGetEventInformation and TdhGetEventMapInformation on events with
 * hand-built TraceLogging metadata: the properties in TDH's order (top
 * level first, then each struct's members), the ".Count" and ".Length"
 * properties for variable arrays and binary fields, flags, counts, tags,
 * OutTypes renumbered to TDH's, the buffer-size protocol and a Win32 code
 * for every error.
 */
#include "kselftest_harness.h"
#include "tdh_test.h"

/*
 * s: struct { x int32; t: struct { u uint8 }; a: uint16[] };
 * b: binary; z: uint8 as hex.
 */
static const char nested_fields[] =
	"s\0\x98\x03" "x\0\x07" "t\0\x98\x01" "u\0\x04" "a\0\x46"
	"b\0\x0e" "z\0\x84\x04";
static const char nested_data[] =
	"\xff\xff\xff\xff" "\x09" "\x02\x00\x02\x01\x04\x03"
	"\x03\x00\xde\xad\xbe" "\x2a";

static const struct {
	const char *name;
	ULONG flags;
	USHORT in, out;		/* struct: first member, member count */
	USHORT count, length;
} nested_props[] = {
	{ "s", PropertyStruct, 4, 4, 1, 0 },
	{ "b.Length", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "b", PropertyParamLength, TDH_INTYPE_BINARY, 0, 1, 1 },
	{ "z", 0, TDH_INTYPE_UINT8, TDH_OUTTYPE_HEXINT8, 1, 1 },
	{ "x", 0, TDH_INTYPE_INT32, 0, 1, 4 },
	{ "t", PropertyStruct, 8, 1, 1, 0 },
	{ "a.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "a", PropertyParamCount, TDH_INTYPE_UINT16, 0, 6, 2 },
	{ "u", 0, TDH_INTYPE_UINT8, 0, 1, 1 },
};

TEST(nested_layout)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	const EVENT_PROPERTY_INFO *p;
	char s[64];
	ULONG st, i;

	TDH_EVENT(&e, nested_fields, nested_data);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	EXPECT_EQ(DecodingSourceTlg, tei->DecodingSource);
	EXPECT_EQ(9, tei->PropertyCount);
	EXPECT_EQ(4, tei->TopLevelPropertyCount);
	EXPECT_STREQ("prov", tdh_tei_str(tei, tei->ProviderNameOffset, s,
					 sizeof(s)));
	EXPECT_STREQ("E", tdh_tei_str(tei, tei->TaskNameOffset, s, sizeof(s)));
	EXPECT_EQ(tei->TaskNameOffset, tei->EventNameOffset);
	EXPECT_EQ(7, tei->EventDescriptor.Id);
	EXPECT_EQ(4, tei->EventDescriptor.Level);
	EXPECT_EQ(0x30, tei->EventDescriptor.Keyword);
	EXPECT_EQ(0, tei->LevelNameOffset);
	EXPECT_EQ(0, tei->OpcodeNameOffset);
	for (i = 0; i < 9; i++) {
		p = &tei->EventPropertyInfoArray[i];
		EXPECT_STREQ(nested_props[i].name,
			     tdh_tei_str(tei, p->NameOffset, s, sizeof(s)));
		EXPECT_EQ(nested_props[i].flags, p->Flags) TH_LOG("%u", i);
		EXPECT_EQ(nested_props[i].in, p->nonStructType.InType)
			TH_LOG("property %u", i);
		EXPECT_EQ(nested_props[i].out, p->nonStructType.OutType)
			TH_LOG("property %u", i);
		EXPECT_EQ(nested_props[i].count, p->count) TH_LOG("%u", i);
		EXPECT_EQ(nested_props[i].length, p->length) TH_LOG("%u", i);
	}
	free(tei);
}

/*
 * Arrays of strings (the SDK's TlgInVcount with a string InType): each
 * has its ".Count" property, and the strings, of no fixed length, refer
 * to it; a UTF-8 OutType stays on the array.
 */
static const char str_array_fields[] =
	"a\0\x42" "u\0\xc2\x23" "w\0\x41" "c\0\x57" "k\0\x56";

static const struct {
	const char *name;
	ULONG flags;
	USHORT in, out;
	USHORT count, length;	/* count: the .Count index when counted */
} str_array_props[] = {
	{ "a.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "a", PropertyParamCount, TDH_INTYPE_ANSISTRING, 0, 0, 0 },
	{ "u.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "u", PropertyParamCount, TDH_INTYPE_ANSISTRING, TDH_OUTTYPE_UTF8,
	  2, 0 },
	{ "w.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "w", PropertyParamCount, TDH_INTYPE_UNICODESTRING, 0, 4, 0 },
	{ "c.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "c", PropertyParamCount, TDH_INTYPE_MANIFEST_COUNTEDANSISTRING, 0,
	  6, 0 },
	{ "k.Count", 0, TDH_INTYPE_UINT16, 0, 1, 2 },
	{ "k", PropertyParamCount, TDH_INTYPE_MANIFEST_COUNTEDSTRING, 0, 8,
	  0 },
};

TEST(string_array_layout)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	const EVENT_PROPERTY_INFO *p;
	char s[64];
	ULONG st, i, n = sizeof(str_array_props) / sizeof(str_array_props[0]);

	tdh_event(&e, str_array_fields, sizeof(str_array_fields) - 1,
		  "\0\0\0\0\0\0\0\0\0\0", 10);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	EXPECT_EQ(n, tei->PropertyCount);
	EXPECT_EQ(n, tei->TopLevelPropertyCount);
	for (i = 0; i < n && i < tei->PropertyCount; i++) {
		p = &tei->EventPropertyInfoArray[i];
		EXPECT_STREQ(str_array_props[i].name,
			     tdh_tei_str(tei, p->NameOffset, s, sizeof(s)));
		EXPECT_EQ(str_array_props[i].flags, p->Flags) TH_LOG("%u", i);
		EXPECT_EQ(str_array_props[i].in, p->nonStructType.InType)
			TH_LOG("property %u", i);
		EXPECT_EQ(str_array_props[i].out, p->nonStructType.OutType)
			TH_LOG("property %u", i);
		EXPECT_EQ(str_array_props[i].count, p->count) TH_LOG("%u", i);
		EXPECT_EQ(str_array_props[i].length, p->length)
			TH_LOG("%u", i);
	}
	free(tei);
}

TEST(size_protocol)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG size = 0, need;

	TDH_EVENT(&e, nested_fields, nested_data);
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &size));
	need = size;
	ASSERT_GT(need, offsetof(TRACE_EVENT_INFO, EventPropertyInfoArray) +
			9 * sizeof(EVENT_PROPERTY_INFO));
	tei = malloc(need);
	ASSERT_NE(NULL, tei);
	size = need - 1;
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 0, NULL, tei, &size));
	EXPECT_EQ(need, size);
	EXPECT_EQ(ERROR_SUCCESS,
		  TdhGetEventInformation(&e.rec, 0, NULL, tei, &size));
	EXPECT_EQ(need, size);
	/* Every name lies inside the buffer. */
	EXPECT_LT(tei->EventPropertyInfoArray[8].NameOffset, need);
	free(tei);
}

TEST(tags_and_fixed_count)
{
	/* Field tags 0x81 0x02: (1 << 21) | (2 << 14); a uint8[3]. */
	static const char f[] = "t\0\x88\x80\x81\x02" "c\0\x24\x03\x00";
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	const EVENT_PROPERTY_INFO *p;
	ULONG st;

	/* Event tag byte 0x05: 5 << 21. */
	tdh_event_tagged(&e, 0x05, f, sizeof(f) - 1, "\x01\0\0\0\1\2\3", 7);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	EXPECT_EQ(5u << 21, (ULONG)tei->Tags);
	p = &tei->EventPropertyInfoArray[0];
	EXPECT_EQ(PropertyHasTags, p->Flags);
	EXPECT_EQ((1u << 21) | (2u << 14), (ULONG)p->Tags);
	p = &tei->EventPropertyInfoArray[1];
	EXPECT_EQ(PropertyParamFixedCount, p->Flags);
	EXPECT_EQ(3, p->count);
	free(tei);
}

TEST(custom_schema)
{
	/* Protocol 5 in the OutType slot; 2 schema bytes. */
	static const char f[] = "c\0\xee\x05\x02\x00\xab\xcd";
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	const EVENT_PROPERTY_INFO *p;
	const uint8_t *schema;
	ULONG st;

	TDH_EVENT(&e, f, "\x01\x00\x07");
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	p = &tei->EventPropertyInfoArray[0];
	EXPECT_EQ(PropertyHasCustomSchema, p->Flags);
	EXPECT_EQ(TDH_INTYPE_BINARY, p->customSchemaType.InType);
	ASSERT_NE(0, p->customSchemaType.CustomSchemaOffset);
	schema = (const uint8_t *)tei + p->customSchemaType.CustomSchemaOffset;
	EXPECT_EQ(0, memcmp(schema, "\x05\x00\x02\x00\xab\xcd", 6));
	free(tei);
}

/* TraceLogging OutType (in a UINT8/UINT16/UINT32/binary field) to TDH's. */
static const struct {
	const char *what;
	char in;
	char out;
	USHORT want;
} out_cases[] = {
	{ "none", 0x08, 0, TDH_OUTTYPE_NULL },
	{ "noprint", 0x08, 1, TDH_OUTTYPE_NOPRINT },
	{ "string", 0x04, 2, TDH_OUTTYPE_STRING },
	{ "boolean", 0x04, 3, TDH_OUTTYPE_BOOLEAN },
	{ "hex uint8", 0x04, 4, TDH_OUTTYPE_HEXINT8 },
	{ "hex uint16", 0x06, 4, TDH_OUTTYPE_HEXINT16 },
	{ "hex uint32", 0x08, 4, TDH_OUTTYPE_HEXINT32 },
	{ "pid", 0x08, 5, TDH_OUTTYPE_PID },
	{ "tid", 0x08, 6, TDH_OUTTYPE_TID },
	{ "port", 0x06, 7, TDH_OUTTYPE_PORT },
	{ "ipv4", 0x08, 8, TDH_OUTTYPE_IPV4 },
	{ "ipv6", 0x19, 9, TDH_OUTTYPE_IPV6 },
	{ "socketaddress", 0x19, 10, TDH_OUTTYPE_SOCKETADDRESS },
	{ "win32error", 0x08, 13, TDH_OUTTYPE_WIN32ERROR },
	{ "ntstatus", 0x08, 14, TDH_OUTTYPE_NTSTATUS },
	{ "hresult", 0x07, 15, TDH_OUTTYPE_HRESULT },
	{ "signed uint16", 0x06, 17, TDH_OUTTYPE_SHORT },
	{ "unsigned uint32", 0x08, 18, TDH_OUTTYPE_UNSIGNEDINT },
	{ "utf8", 0x17, 35, TDH_OUTTYPE_UTF8 },
	{ "code pointer", 0x15, 37, TDH_OUTTYPE_CODE_POINTER },
	{ "datetime utc", 0x11, 38, TDH_OUTTYPE_DATETIME_UTC },
	{ "hex binary", 0x19, 4, TDH_OUTTYPE_HEXBINARY },
	{ "unknown", 0x08, 99, TDH_OUTTYPE_NULL },
};

TEST(out_type_table)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	char f[8] = "v";
	ULONG st;
	size_t i;

	for (i = 0; i < sizeof(out_cases) / sizeof(out_cases[0]); i++) {
		f[2] = (char)(out_cases[i].in | 0x80);
		f[3] = out_cases[i].out;
		tdh_event(&e, f, 4, "", 0);
		tei = tdh_info(&e.rec, &st);
		ASSERT_NE(NULL, tei) TH_LOG("%s: %u", out_cases[i].what, st);
		EXPECT_EQ(out_cases[i].want,
			  tei->EventPropertyInfoArray[0].nonStructType.OutType)
			TH_LOG("%s", out_cases[i].what);
		free(tei);
	}
}

TEST(pointer_size_from_context)
{
	TDH_CONTEXT ctx = { 4, TDH_CONTEXT_POINTERSIZE, 0 };
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG size = 0;

	TDH_EVENT(&e, "p\0\x10", "");
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 1, &ctx, NULL, &size));
	tei = malloc(size);
	ASSERT_NE(NULL, tei);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhGetEventInformation(&e.rec, 1, &ctx, tei, &size));
	EXPECT_EQ(TDH_INTYPE_POINTER,
		  tei->EventPropertyInfoArray[0].nonStructType.InType);
	EXPECT_EQ(4, tei->EventPropertyInfoArray[0].length);
	free(tei);
}

static const struct {
	const char *what;
	const char *fields;
	size_t flen;
	ULONG want;
} bad_meta[] = {
#define B(w, f, r)	{ w, f, sizeof(f) - 1, r }
	B("field name without NUL", "abc", ERROR_INVALID_DATA),
	B("missing out type", "i\0\x84", ERROR_INVALID_DATA),
	B("five tag bytes", "i\0\x84\x80\x81\x81\x81\x81\x81",
	  ERROR_INVALID_DATA),
	B("constant count cut short", "a\0\x24\x02", ERROR_INVALID_DATA),
	B("custom schema past the end", "c\0\xee\x05\x09\x00\xab",
	  ERROR_INVALID_DATA),
	B("struct members missing", "s\0\x98\x02" "x\0\x04",
	  ERROR_INVALID_DATA),
	B("custom struct", "s\0\xf8\x01\x00\x00", ERROR_INVALID_DATA),
	B("nine nested structs",
	  "a\0\x98\x01" "b\0\x98\x01" "c\0\x98\x01" "d\0\x98\x01"
	  "e\0\x98\x01" "f\0\x98\x01" "g\0\x98\x01" "h\0\x98\x01"
	  "i\0\x98\x01" "j\0\x04", ERROR_INVALID_DATA),
	B("array of binary", "b\0\x4e", ERROR_NOT_SUPPORTED),
	B("constant array of binary", "b\0\x2e\x02\x00", ERROR_NOT_SUPPORTED),
#undef B
};

TEST(bad_metadata_table)
{
	struct tdh_event e;
	ULONG size = 0;
	size_t i;

	for (i = 0; i < sizeof(bad_meta) / sizeof(bad_meta[0]); i++) {
		tdh_event(&e, bad_meta[i].fields, bad_meta[i].flen, "", 0);
		size = 0;
		EXPECT_EQ(bad_meta[i].want,
			  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &size))
			TH_LOG("%s", bad_meta[i].what);
	}
}

/* Eight levels of structs are accepted: the limit is exact. */
TEST(eight_nested_structs)
{
	static const char f[] =
		"a\0\x98\x01" "b\0\x98\x01" "c\0\x98\x01" "d\0\x98\x01"
		"e\0\x98\x01" "f\0\x98\x01" "g\0\x98\x01" "h\0\x98\x01"
		"j\0\x04";
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG st;

	TDH_EVENT(&e, f, "\x01");
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	EXPECT_EQ(9, tei->PropertyCount);
	EXPECT_EQ(1, tei->TopLevelPropertyCount);
	free(tei);
}

TEST(metadata_size_beyond_item)
{
	struct tdh_event e;
	ULONG size = 0;

	TDH_EVENT(&e, "i\0\x04", "\x01");
	e.meta[0] = 0x40;
	EXPECT_EQ(ERROR_INVALID_DATA,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &size));
}

TEST(bad_traits_leave_no_provider_name)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG st;

	TDH_EVENT(&e, "i\0\x04", "\x01");
	e.traits[0] = 0x40;
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei) TH_LOG("status %u", st);
	EXPECT_EQ(0, tei->ProviderNameOffset);
	free(tei);
}

TEST(parameter_errors_table)
{
	TDH_CONTEXT bad_type = { 0, TDH_CONTEXT_MAXIMUM, 0 };
	TDH_CONTEXT bad_ptr = { 3, TDH_CONTEXT_POINTERSIZE, 0 };
	struct tdh_event e, none;
	TRACE_EVENT_INFO tei;
	ULONG size;

	TDH_EVENT(&e, "i\0\x04", "\x01");
	memset(&none, 0, sizeof(none));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(NULL, 0, NULL, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, NULL));
	size = sizeof(tei);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &size));
	size = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(&e.rec, 1, NULL, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(&e.rec, 1, &bad_type, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventInformation(&e.rec, 1, &bad_ptr, NULL, &size));
	EXPECT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventInformation(&none.rec, 0, NULL, NULL, &size));
}

TEST(event_map_information)
{
	struct tdh_event e;
	WCHAR name[8];
	ULONG size = 0;

	TDH_EVENT(&e, "i\0\x04", "\x01");
	tdh_wide("map", name);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(NULL, name, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(&e.rec, NULL, NULL, &size));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(&e.rec, name, NULL, NULL));
	EXPECT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventMapInformation(&e.rec, name, NULL, &size));
}

TEST_HARNESS_MAIN
