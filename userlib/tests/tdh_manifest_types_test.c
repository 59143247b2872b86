/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Every win: InType and xs:/win: OutType of the manifest schema maps to
 * its TDH number, and every truncation of a manifest is rejected.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "tdh_test.h"

#define SAMPLE	SRC_DIR "/userlib/tests/tdh_manifest_sample.man"

static GUID guid = { 0x22222222, 0x3333, 0x4444,
	{ 0x55, 0x55, 0x66, 0x66, 0x77, 0x77, 0x88, 0x88 } };

static const struct {
	const char *name;
	USHORT type;
} in_types[] = {
	{ "win:UnicodeString", TDH_INTYPE_UNICODESTRING },
	{ "win:AnsiString", TDH_INTYPE_ANSISTRING },
	{ "win:Int8", TDH_INTYPE_INT8 }, { "win:UInt8", TDH_INTYPE_UINT8 },
	{ "win:Int16", TDH_INTYPE_INT16 }, { "win:UInt16", TDH_INTYPE_UINT16 },
	{ "win:Int32", TDH_INTYPE_INT32 }, { "win:UInt32", TDH_INTYPE_UINT32 },
	{ "win:Int64", TDH_INTYPE_INT64 }, { "win:UInt64", TDH_INTYPE_UINT64 },
	{ "win:Float", TDH_INTYPE_FLOAT }, { "win:Double", TDH_INTYPE_DOUBLE },
	{ "win:Boolean", TDH_INTYPE_BOOLEAN },
	{ "win:GUID", TDH_INTYPE_GUID }, { "win:Pointer", TDH_INTYPE_POINTER },
	{ "win:FILETIME", TDH_INTYPE_FILETIME },
	{ "win:SYSTEMTIME", TDH_INTYPE_SYSTEMTIME },
	{ "win:SID", TDH_INTYPE_SID },
	{ "win:HexInt32", TDH_INTYPE_HEXINT32 },
	{ "win:HexInt64", TDH_INTYPE_HEXINT64 },
	{ "win:CountedUnicodeString", TDH_INTYPE_MANIFEST_COUNTEDSTRING },
	{ "win:CountedAnsiString", TDH_INTYPE_MANIFEST_COUNTEDANSISTRING },
	{ "win:CountedBinary", TDH_INTYPE_MANIFEST_COUNTEDBINARY },
};

static const struct {
	const char *name;
	USHORT type;
} out_types[] = {
	{ "xs:string", TDH_OUTTYPE_STRING },
	{ "xs:dateTime", TDH_OUTTYPE_DATETIME },
	{ "xs:byte", TDH_OUTTYPE_BYTE },
	{ "xs:unsignedByte", TDH_OUTTYPE_UNSIGNEDBYTE },
	{ "xs:short", TDH_OUTTYPE_SHORT },
	{ "xs:unsignedShort", TDH_OUTTYPE_UNSIGNEDSHORT },
	{ "xs:int", TDH_OUTTYPE_INT },
	{ "xs:unsignedInt", TDH_OUTTYPE_UNSIGNEDINT },
	{ "xs:long", TDH_OUTTYPE_LONG },
	{ "xs:unsignedLong", TDH_OUTTYPE_UNSIGNEDLONG },
	{ "xs:float", TDH_OUTTYPE_FLOAT }, { "xs:double", TDH_OUTTYPE_DOUBLE },
	{ "xs:boolean", TDH_OUTTYPE_BOOLEAN }, { "xs:GUID", TDH_OUTTYPE_GUID },
	{ "xs:hexBinary", TDH_OUTTYPE_HEXBINARY },
	{ "win:HexInt8", TDH_OUTTYPE_HEXINT8 },
	{ "win:HexInt16", TDH_OUTTYPE_HEXINT16 },
	{ "win:HexInt32", TDH_OUTTYPE_HEXINT32 },
	{ "win:HexInt64", TDH_OUTTYPE_HEXINT64 },
	{ "win:PID", TDH_OUTTYPE_PID }, { "win:TID", TDH_OUTTYPE_TID },
	{ "win:Port", TDH_OUTTYPE_PORT }, { "win:IPv4", TDH_OUTTYPE_IPV4 },
	{ "win:IPv6", TDH_OUTTYPE_IPV6 },
	{ "win:SocketAddress", TDH_OUTTYPE_SOCKETADDRESS },
	{ "win:CIMDateTime", TDH_OUTTYPE_CIMDATETIME },
	{ "win:ETWTIME", TDH_OUTTYPE_ETWTIME }, { "win:Xml", TDH_OUTTYPE_XML },
	{ "win:ErrorCode", TDH_OUTTYPE_ERRORCODE },
	{ "win:Win32Error", TDH_OUTTYPE_WIN32ERROR },
	{ "win:NTSTATUS", TDH_OUTTYPE_NTSTATUS },
	{ "win:HResult", TDH_OUTTYPE_HRESULT },
	{ "win:DateTimeCultureInsensitive",
	  TDH_OUTTYPE_CULTURE_INSENSITIVE_DATETIME },
	{ "win:Json", TDH_OUTTYPE_JSON }, { "win:Utf8", TDH_OUTTYPE_UTF8 },
	{ "win:Pkcs7WithTypeInfo", TDH_OUTTYPE_PKCS7_WITH_TYPE_INFO },
	{ "win:CodePointer", TDH_OUTTYPE_CODE_POINTER },
	{ "win:DateTimeUtc", TDH_OUTTYPE_DATETIME_UTC },
};

/* One template of a data element per row: "name" InType, OutType. */
static char *manifest(const char *in, const char *out)
{
	char *xml = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&xml, &len);

	fprintf(f, "<instrumentationManifest><instrumentation><events>"
		"<provider name=\"T\" guid=\"{22222222-3333-4444-5555-"
		"666677778888}\"><templates><template tid=\"t\">"
		"<data name=\"d\" inType=\"%s\"", in);
	if (out)
		fprintf(f, " outType=\"%s\"", out);
	fprintf(f, "/></template></templates><events><event value=\"1\" "
		"template=\"t\"/></events></provider></events>"
		"</instrumentation></instrumentationManifest>");
	fclose(f);
	return xml;
}

/* The InType and OutType of event 1's only property; ~0 on failure. */
static ULONG types_of(const char *xml, USHORT *in, USHORT *out)
{
	EVENT_DESCRIPTOR d = { .Id = 1 };
	union {
		TRACE_EVENT_INFO tei;
		BYTE b[512];
	} u;
	ULONG size = sizeof(u), st;

	st = TdhLoadManifestFromMemory(xml, (ULONG)strlen(xml));
	if (st)
		return st;
	st = TdhGetManifestEventInformation(&guid, &d, &u.tei, &size);
	TdhUnloadManifestFromMemory(xml, (ULONG)strlen(xml));
	if (st)
		return st;
	if (u.tei.PropertyCount != 1)
		return ERROR_INVALID_DATA;
	*in = u.tei.EventPropertyInfoArray[0].nonStructType.InType;
	*out = u.tei.EventPropertyInfoArray[0].nonStructType.OutType;
	return ERROR_SUCCESS;
}

TEST(every_in_type)
{
	USHORT in, out;
	size_t i;
	char *xml;

	for (i = 0; i < sizeof(in_types) / sizeof(in_types[0]); i++) {
		TH_LOG("%s", in_types[i].name);
		xml = manifest(in_types[i].name, NULL);
		EXPECT_EQ(ERROR_SUCCESS, types_of(xml, &in, &out));
		EXPECT_EQ(in_types[i].type, in);
		EXPECT_EQ(TDH_OUTTYPE_NULL, out);
		free(xml);
	}
}

TEST(every_out_type)
{
	USHORT in, out;
	size_t i;
	char *xml;

	for (i = 0; i < sizeof(out_types) / sizeof(out_types[0]); i++) {
		TH_LOG("%s", out_types[i].name);
		xml = manifest("win:UInt32", out_types[i].name);
		EXPECT_EQ(ERROR_SUCCESS, types_of(xml, &in, &out));
		EXPECT_EQ(TDH_INTYPE_UINT32, in);
		EXPECT_EQ(out_types[i].type, out);
		free(xml);
	}
}

/* A document cut before the end of its root element is not well formed. */
TEST(every_truncation_rejected)
{
	static const char end_tag[] = "</instrumentationManifest>";
	char *xml = NULL, *end;
	size_t len = 0, n, bad = 0;
	FILE *f = fopen(SAMPLE, "r");
	int saved, null;

	ASSERT_NE(NULL, f);
	ASSERT_LT(0, getdelim(&xml, &len, 0, f));
	fclose(f);
	len = strlen(xml);
	end = strstr(xml, end_tag);
	ASSERT_NE(NULL, end);
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	for (n = 1; n < (size_t)(end - xml) + sizeof(end_tag) - 1; n++)
		bad += TdhLoadManifestFromMemory(xml, (ULONG)n) !=
		       ERROR_XML_PARSE_ERROR;
	dup2(saved, 2);
	close(saved);
	close(null);
	EXPECT_EQ(0u, bad);
	EXPECT_EQ(ERROR_SUCCESS, TdhLoadManifestFromMemory(xml, (ULONG)len));
	free(xml);
}

TEST_HARNESS_MAIN
