/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * <tdh.h>: the x64 layout of its structs as the Windows SDK has it, its
 * enumerators' values, and a cross-check against MinGW-w64's <tdh.h>.
 *
 * MinGW-w64 10's tdh.h is older than the SDK: it lacks the in/out type
 * enums, TRACE_EVENT_INFO's EventNameOffset, EventAttributesOffset and
 * Tags, EVENT_PROPERTY_INFO's customSchemaType and Tags, and calls
 * PROVIDER_ENUMERATION_INFO.Reserved "Padding"; TDH_CONTEXT_PDB_PATH did
 * not exist, so its TDH_CONTEXT_MAXIMUM is one lower.  Those are checked
 * against the SDK values only.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdh.h>

#include "kselftest_harness.h"

#define MINGW_CC	"x86_64-w64-mingw32-gcc"

struct tdh_field {
	const char *type;
	const char *name;
	size_t off;	/* with our header */
	size_t want;	/* the SDK's */
	int mingw;	/* MinGW-w64 has it under this name */
};

#define F(t, f, want)	  { #t, #f, offsetof(t, f), want, 1 }
#define F_SDK(t, f, want) { #t, #f, offsetof(t, f), want, 0 }

static const struct tdh_field fields[] = {
	F(TRACE_EVENT_INFO, ProviderGuid, 0),
	F(TRACE_EVENT_INFO, EventGuid, 16),
	F(TRACE_EVENT_INFO, EventDescriptor, 32),
	F(TRACE_EVENT_INFO, DecodingSource, 48),
	F(TRACE_EVENT_INFO, ProviderNameOffset, 52),
	F(TRACE_EVENT_INFO, LevelNameOffset, 56),
	F(TRACE_EVENT_INFO, ChannelNameOffset, 60),
	F(TRACE_EVENT_INFO, KeywordsNameOffset, 64),
	F(TRACE_EVENT_INFO, TaskNameOffset, 68),
	F(TRACE_EVENT_INFO, OpcodeNameOffset, 72),
	F(TRACE_EVENT_INFO, EventMessageOffset, 76),
	F(TRACE_EVENT_INFO, ProviderMessageOffset, 80),
	F(TRACE_EVENT_INFO, BinaryXMLOffset, 84),
	F(TRACE_EVENT_INFO, BinaryXMLSize, 88),
	F_SDK(TRACE_EVENT_INFO, EventNameOffset, 92),
	F(TRACE_EVENT_INFO, ActivityIDNameOffset, 92),
	F_SDK(TRACE_EVENT_INFO, EventAttributesOffset, 96),
	F(TRACE_EVENT_INFO, RelatedActivityIDNameOffset, 96),
	F(TRACE_EVENT_INFO, PropertyCount, 100),
	F(TRACE_EVENT_INFO, TopLevelPropertyCount, 104),
	F(TRACE_EVENT_INFO, Flags, 108),
	F(TRACE_EVENT_INFO, EventPropertyInfoArray, 112),
	F(EVENT_PROPERTY_INFO, Flags, 0),
	F(EVENT_PROPERTY_INFO, NameOffset, 4),
	F(EVENT_PROPERTY_INFO, nonStructType.InType, 8),
	F(EVENT_PROPERTY_INFO, nonStructType.OutType, 10),
	F(EVENT_PROPERTY_INFO, nonStructType.MapNameOffset, 12),
	F(EVENT_PROPERTY_INFO, structType.StructStartIndex, 8),
	F(EVENT_PROPERTY_INFO, structType.NumOfStructMembers, 10),
	F(EVENT_PROPERTY_INFO, structType.padding, 12),
	F_SDK(EVENT_PROPERTY_INFO, customSchemaType.InType, 8),
	F_SDK(EVENT_PROPERTY_INFO, customSchemaType.OutType, 10),
	F_SDK(EVENT_PROPERTY_INFO, customSchemaType.CustomSchemaOffset, 12),
	F(EVENT_PROPERTY_INFO, count, 16),
	F(EVENT_PROPERTY_INFO, countPropertyIndex, 16),
	F(EVENT_PROPERTY_INFO, length, 18),
	F(EVENT_PROPERTY_INFO, lengthPropertyIndex, 18),
	F(EVENT_PROPERTY_INFO, Reserved, 20),
	F(EVENT_MAP_ENTRY, OutputOffset, 0),
	F(EVENT_MAP_ENTRY, Value, 4),
	F(EVENT_MAP_ENTRY, InputOffset, 4),
	F(EVENT_MAP_INFO, NameOffset, 0),
	F(EVENT_MAP_INFO, Flag, 4),
	F(EVENT_MAP_INFO, EntryCount, 8),
	F(EVENT_MAP_INFO, MapEntryValueType, 12),
	F(EVENT_MAP_INFO, FormatStringOffset, 12),
	F(EVENT_MAP_INFO, MapEntryArray, 16),
	F(PROPERTY_DATA_DESCRIPTOR, PropertyName, 0),
	F(PROPERTY_DATA_DESCRIPTOR, ArrayIndex, 8),
	F(PROPERTY_DATA_DESCRIPTOR, Reserved, 12),
	F(TRACE_PROVIDER_INFO, ProviderGuid, 0),
	F(TRACE_PROVIDER_INFO, SchemaSource, 16),
	F(TRACE_PROVIDER_INFO, ProviderNameOffset, 20),
	F(PROVIDER_ENUMERATION_INFO, NumberOfProviders, 0),
	F_SDK(PROVIDER_ENUMERATION_INFO, Reserved, 4),
	F(PROVIDER_ENUMERATION_INFO, TraceProviderInfoArray, 8),
	F(PROVIDER_FIELD_INFO, NameOffset, 0),
	F(PROVIDER_FIELD_INFO, DescriptionOffset, 4),
	F(PROVIDER_FIELD_INFO, Value, 8),
	F(PROVIDER_FIELD_INFOARRAY, NumberOfElements, 0),
	F(PROVIDER_FIELD_INFOARRAY, FieldType, 4),
	F(PROVIDER_FIELD_INFOARRAY, FieldInfoArray, 8),
	F(TDH_CONTEXT, ParameterValue, 0),
	F(TDH_CONTEXT, ParameterType, 8),
	F(TDH_CONTEXT, ParameterSize, 12),
};

#define S(t, want)	{ #t, sizeof(t), want }

static const struct {
	const char *type;
	size_t size;
	size_t want;
} sizes[] = {
	S(TRACE_EVENT_INFO, 136), S(EVENT_PROPERTY_INFO, 24),
	S(EVENT_MAP_ENTRY, 8), S(EVENT_MAP_INFO, 24),
	S(PROPERTY_DATA_DESCRIPTOR, 16), S(TRACE_PROVIDER_INFO, 24),
	S(PROVIDER_ENUMERATION_INFO, 32), S(PROVIDER_FIELD_INFO, 16),
	S(PROVIDER_FIELD_INFOARRAY, 24), S(TDH_CONTEXT, 16),
};

/* Enumerators; @mingw: MinGW-w64 has the same value. */
#define C(n, want, mingw)	{ #n, (long)(n), want, mingw }

static const struct {
	const char *name;
	long value;
	long want;
	int mingw;
} constants[] = {
	C(TDH_INTYPE_NULL, 0, 0), C(TDH_INTYPE_UNICODESTRING, 1, 0),
	C(TDH_INTYPE_BOOLEAN, 13, 0), C(TDH_INTYPE_BINARY, 14, 0),
	C(TDH_INTYPE_SID, 19, 0), C(TDH_INTYPE_HEXINT64, 21, 0),
	C(TDH_INTYPE_MANIFEST_COUNTEDSTRING, 22, 0),
	C(TDH_INTYPE_RESERVED24, 24, 0),
	C(TDH_INTYPE_MANIFEST_COUNTEDBINARY, 25, 0),
	C(TDH_INTYPE_COUNTEDSTRING, 300, 0), C(TDH_INTYPE_ANSICHAR, 307, 0),
	C(TDH_INTYPE_WBEMSID, 310, 0),
	C(TDH_OUTTYPE_STRING, 1, 0), C(TDH_OUTTYPE_BOOLEAN, 13, 0),
	C(TDH_OUTTYPE_HEXBINARY, 15, 0), C(TDH_OUTTYPE_HEXINT64, 19, 0),
	C(TDH_OUTTYPE_PORT, 22, 0), C(TDH_OUTTYPE_IPV6, 24, 0),
	C(TDH_OUTTYPE_XML, 28, 0), C(TDH_OUTTYPE_HRESULT, 32, 0),
	C(TDH_OUTTYPE_JSON, 34, 0), C(TDH_OUTTYPE_CODE_POINTER, 37, 0),
	C(TDH_OUTTYPE_DATETIME_UTC, 38, 0),
	C(TDH_OUTTYPE_REDUCEDSTRING, 300, 0), C(TDH_OUTTYPE_NOPRINT, 301, 0),
	C(PropertyStruct, 1, 1), C(PropertyParamLength, 2, 1),
	C(PropertyParamCount, 4, 1), C(PropertyWBEMXmlFragment, 8, 1),
	C(PropertyParamFixedLength, 0x10, 1),
	C(PropertyParamFixedCount, 0x20, 0), C(PropertyHasTags, 0x40, 0),
	C(PropertyHasCustomSchema, 0x80, 0),
	C(DecodingSourceXMLFile, 0, 1), C(DecodingSourceWbem, 1, 1),
	C(DecodingSourceWPP, 2, 1), C(DecodingSourceTlg, 3, 0),
	C(TEMPLATE_EVENT_DATA, 1, 1), C(TEMPLATE_USER_DATA, 2, 1),
	C(TEMPLATE_CONTROL_GUID, 4, 0),
	C(EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP, 1, 1),
	C(EVENTMAP_INFO_FLAG_MANIFEST_BITMAP, 2, 1),
	C(EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP, 4, 1),
	C(EVENTMAP_INFO_FLAG_WBEM_VALUEMAP, 8, 1),
	C(EVENTMAP_INFO_FLAG_WBEM_BITMAP, 0x10, 1),
	C(EVENTMAP_INFO_FLAG_WBEM_FLAG, 0x20, 1),
	C(EVENTMAP_INFO_FLAG_WBEM_NO_MAP, 0x40, 1),
	C(EVENTMAP_ENTRY_VALUETYPE_ULONG, 0, 1),
	C(EVENTMAP_ENTRY_VALUETYPE_STRING, 1, 1),
	C(EventKeywordInformation, 0, 1), C(EventOpcodeInformation, 4, 1),
	C(EventInformationMax, 5, 1),
	C(TDH_CONTEXT_POINTERSIZE, 3, 1), C(TDH_CONTEXT_PDB_PATH, 4, 0),
	C(TDH_CONTEXT_MAXIMUM, 5, 0),
	C(ERROR_NOT_FOUND, 1168, 0), C(ERROR_EVT_INVALID_EVENT_DATA, 15005, 0),
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Functions and their parameter types, checked against our declarations
 * here and against MinGW-w64's in mingw_agrees (where ULONG is Windows').
 */
#define SIG_TdhEnumerateProviders \
	(PPROVIDER_ENUMERATION_INFO, ULONG *)
#define SIG_TdhEnumerateProviderFieldInformation \
	(LPGUID, EVENT_FIELD_TYPE, PPROVIDER_FIELD_INFOARRAY, ULONG *)
#define SIG_TdhQueryProviderFieldInformation \
	(LPGUID, ULONGLONG, EVENT_FIELD_TYPE, PPROVIDER_FIELD_INFOARRAY, \
	 ULONG *)
#define SIG(f)	{ #f, STR(SIG_##f) }
#define STR(x)	STR_(x)
#define STR_(x)	#x
#define SIG_CHECK(f) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(f), \
						    ULONG SIG_##f), #f)

SIG_CHECK(TdhEnumerateProviders);
SIG_CHECK(TdhEnumerateProviderFieldInformation);
SIG_CHECK(TdhQueryProviderFieldInformation);

static const struct {
	const char *name;
	const char *params;
} sigs[] = {
	SIG(TdhEnumerateProviders),
	SIG(TdhEnumerateProviderFieldInformation),
	SIG(TdhQueryProviderFieldInformation),
};

TEST(offsets_are_the_sdk_s)
{
	size_t i;

	for (i = 0; i < N(fields); i++) {
		if (fields[i].want != fields[i].off)
			fprintf(stderr, "# %s.%s\n", fields[i].type,
				fields[i].name);
		EXPECT_EQ(fields[i].want, fields[i].off);
	}
}

TEST(sizes_are_the_sdk_s)
{
	size_t i;

	for (i = 0; i < N(sizes); i++) {
		if (sizes[i].want != sizes[i].size)
			fprintf(stderr, "# sizeof(%s)\n", sizes[i].type);
		EXPECT_EQ(sizes[i].want, sizes[i].size);
	}
}

TEST(constants_are_the_sdk_s)
{
	size_t i;

	for (i = 0; i < N(constants); i++) {
		if (constants[i].want != constants[i].value)
			fprintf(stderr, "# %s\n", constants[i].name);
		EXPECT_EQ(constants[i].want, constants[i].value);
	}
}

/* The 28-bit Tags share a ULONG: above 4 reserved bits, or at bit 0. */
TEST(tags_bit_fields)
{
	TRACE_EVENT_INFO tei;
	EVENT_PROPERTY_INFO epi;
	ULONG word;

	memset(&tei, 0, sizeof(tei));
	tei.Tags = 0xfffffff;
	memcpy(&word, (char *)&tei + 108, sizeof(word));
	EXPECT_EQ(0xfffffff0u, word);
	memset(&epi, 0, sizeof(epi));
	epi.Tags = 0xfffffff;
	memcpy(&word, (char *)&epi + 20, sizeof(word));
	EXPECT_EQ(0x0fffffffu, word);
}

/* Compiles @body for Windows x64 against MinGW's tdh.h; 0 if it holds. */
static int mingw_compile(const char *body)
{
	char dir[] = "/tmp/etw-tdh-XXXXXX", path[64], cmd[256];
	FILE *f;
	int ret;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/check.c", dir);
	f = fopen(path, "w");
	if (!f) {
		rmdir(dir);
		return -1;
	}
	fputs("#define _WIN32_WINNT 0x0A00\n#include <windows.h>\n"
	      "#include <tdh.h>\n#include <stddef.h>\n", f);
	fputs(body, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), MINGW_CC " -std=gnu11 -fsyntax-only %s 1>&2",
		 path);
	ret = system(cmd);
	unlink(path);
	rmdir(dir);
	return ret;
}

static int have_mingw(void)
{
	return system(MINGW_CC " --version >/dev/null 2>&1") == 0;
}

TEST(mingw_agrees)
{
	size_t i, len = 0, cap = 65536;
	char *b = malloc(cap);

	ASSERT_NE(NULL, b);
	if (!have_mingw())
		SKIP(free(b); return, MINGW_CC " not installed");
	for (i = 0; i < N(sizes); i++)
		len += snprintf(b + len, cap - len,
				"_Static_assert(sizeof(%s) == %zu, \"%s\");\n",
				sizes[i].type, sizes[i].size, sizes[i].type);
	for (i = 0; i < N(fields); i++)
		if (fields[i].mingw)
			len += snprintf(b + len, cap - len,
					"_Static_assert(offsetof(%s, %s) == "
					"%zu, \"%s.%s\");\n", fields[i].type,
					fields[i].name, fields[i].off,
					fields[i].type, fields[i].name);
	for (i = 0; i < N(constants); i++)
		if (constants[i].mingw)
			len += snprintf(b + len, cap - len,
					"_Static_assert(%s == %ld, \"%s\");\n",
					constants[i].name, constants[i].value,
					constants[i].name);
	for (i = 0; i < N(sigs); i++)
		len += snprintf(b + len, cap - len,
				"_Static_assert(__builtin_types_compatible_p("
				"__typeof__(%s), ULONG %s), \"%s\");\n",
				sigs[i].name, sigs[i].params, sigs[i].name);
	ASSERT_LT(len, cap);
	EXPECT_EQ(0, mingw_compile(b));
	free(b);
}

/* The MinGW check must be able to fail. */
TEST(mingw_check_detects_a_mismatch)
{
	if (!have_mingw())
		SKIP(return, MINGW_CC " not installed");
	fprintf(stderr, "# an error about TRACE_EVENT_INFO is expected:\n");
	EXPECT_NE(0, mingw_compile("_Static_assert(offsetof(TRACE_EVENT_INFO,"
				   " PropertyCount) == 96, \"wrong\");\n"));
}

TEST_HARNESS_MAIN
