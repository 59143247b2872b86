/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * primitive-types.etl, decoded the way a Windows consumer does it:
 * OpenTrace/ProcessTrace deliver each EVENT_RECORD, TdhGetEventInformation
 * gives the schema, TdhFormatProperty each value in turn (moving on by
 * UserDataConsumed), TdhGetProperty a value's bytes.  The expected values
 * are those ctl/tests/decode_test.c took from the file's bytes with an
 * independent script, in TDH's text forms.
 */
#include "kselftest_harness.h"
#include "tdh_test.h"
#include "testdata.h"

#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"

static const GUID solar_guid = { 0xd3dd3dd4, 0xaac2, 0x4e2a,
	{ 0x8d, 0xd4, 0xa8, 0xfb, 0x61, 0xb7, 0x76, 0x15 } };

static const struct {
	const char *name;
	USHORT in, out;
} schema[12] = {
	{ "string_type", TDH_INTYPE_ANSISTRING, TDH_OUTTYPE_NULL },
	{ "boolean_type", TDH_INTYPE_UINT8, TDH_OUTTYPE_BOOLEAN },
	{ "char_type", TDH_INTYPE_UINT8, TDH_OUTTYPE_STRING },
	{ "int16_type", TDH_INTYPE_INT16, TDH_OUTTYPE_NULL },
	{ "int32_type", TDH_INTYPE_INT32, TDH_OUTTYPE_NULL },
	{ "uint16_type", TDH_INTYPE_UINT16, TDH_OUTTYPE_NULL },
	{ "uint32_type", TDH_INTYPE_UINT32, TDH_OUTTYPE_NULL },
	/* The file's own metadata declares it UINT64. */
	{ "int64_type", TDH_INTYPE_UINT64, TDH_OUTTYPE_NULL },
	{ "uint64_type", TDH_INTYPE_UINT64, TDH_OUTTYPE_NULL },
	{ "guid_type", TDH_INTYPE_GUID, TDH_OUTTYPE_NULL },
	{ "file_time_type", TDH_INTYPE_FILETIME, TDH_OUTTYPE_NULL },
	{ "system_time_type", TDH_INTYPE_SYSTEMTIME, TDH_OUTTYPE_NULL },
};

static const char *const values[5][12] = {
	{ "Mercury", "false", "M", "-51", "-102", "51", "102",
	  "18446744073709551412", "204",
	  "{0AD614C4-0EF4-4225-8013-F44F37CB0397}",
	  "2021-09-09T14:59:35.7990000Z", "2021-09-09T14:59:35.799" },
	{ "Venus", "true", "V", "-95", "-190", "95", "190",
	  "18446744073709551236", "380",
	  "{E04FF801-9EA3-494F-A10E-8EF833E9099F}",
	  "2021-09-09T14:59:36.2390000Z", "2021-09-09T14:59:36.239" },
	{ "Earth", "false", "E", "-65", "-130", "65", "130",
	  "18446744073709551356", "260",
	  "{C7A6C80E-F2A6-4220-AB98-D7C21A58F9FB}",
	  "2021-09-09T14:59:36.6710000Z", "2021-09-09T14:59:36.671" },
	{ "Mars", "false", "M", "-29", "-58", "29", "58",
	  "18446744073709551500", "116",
	  "{0A922CEE-67C1-4108-B39D-B132E47033C4}",
	  "2021-09-09T14:59:37.0480000Z", "2021-09-09T14:59:37.048" },
	{ "Jupiter", "true", "J", "-69", "-138", "69", "138",
	  "18446744073709551340", "276",
	  "{BB11B97B-1110-4EB6-BC33-FD71219D322E}",
	  "2021-09-09T14:59:37.4840000Z", "2021-09-09T14:59:37.484" },
};

static const LONG int32_values[5] = { -102, -190, -130, -58, -138 };

/* What the callback saw; compared after ProcessTrace returns. */
struct result {
	int events;		/* solar_system events */
	int others;		/* other events */
	int not_found;		/* others that TDH had no schema for */
	int header;		/* others described as EventTrace_Header */
	ULONG status[5];
	char provider[5][32];
	char event[5][32];
	ULONG count[5], top[5];
	int source[5];
	char name[5][12][32];
	USHORT in[5][12], out[5][12];
	char text[5][12][64];
	USHORT left[5];
	ULONG string_size[5];
	LONG int32[5];
};

static struct result res;

static void decode(PEVENT_RECORD r, TRACE_EVENT_INFO *tei, int n)
{
	PROPERTY_DATA_DESCRIPTOR d = { 0, 0xFFFFFFFFu, 0 };
	const EVENT_PROPERTY_INFO *p;
	BYTE *data = r->UserData;
	USHORT left = r->UserDataLength, used;
	WCHAR buf[64], name[16];
	ULONG i, size;

	res.count[n] = tei->PropertyCount;
	res.top[n] = tei->TopLevelPropertyCount;
	res.source[n] = tei->DecodingSource;
	tdh_tei_str(tei, tei->ProviderNameOffset, res.provider[n], 32);
	tdh_tei_str(tei, tei->EventNameOffset, res.event[n], 32);
	for (i = 0; i < tei->TopLevelPropertyCount && i < 12; i++) {
		p = &tei->EventPropertyInfoArray[i];
		tdh_tei_str(tei, p->NameOffset, res.name[n][i], 32);
		res.in[n][i] = p->nonStructType.InType;
		res.out[n][i] = p->nonStructType.OutType;
		size = sizeof(buf);
		if (TdhFormatProperty(tei, NULL, 8, p->nonStructType.InType,
				      p->nonStructType.OutType, p->length,
				      left, data, &size, buf, &used))
			break;
		tdh_utf8(buf, res.text[n][i], 64);
		data += used;
		left -= used;
	}
	res.left[n] = left;
	d.PropertyName = (uintptr_t)tdh_wide("string_type", name);
	TdhGetPropertySize(r, 0, NULL, 1, &d, &res.string_size[n]);
	d.PropertyName = (uintptr_t)tdh_wide("int32_type", name);
	TdhGetProperty(r, 0, NULL, 1, &d, sizeof(res.int32[n]),
		       (PBYTE)&res.int32[n]);
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	TRACE_EVENT_INFO *tei;
	ULONG st;
	int n;

	if (!IsEqualGUID(&r->EventHeader.ProviderId, &solar_guid)) {
		char task[16];

		res.others++;
		tei = tdh_info(r, &st);
		res.not_found += !tei && st == ERROR_NOT_FOUND;
		res.header += tei && !r->EventHeader.EventDescriptor.Opcode &&
			      !strcmp("EventTrace",
				      tdh_tei_str(tei, tei->TaskNameOffset,
						  task, sizeof(task)));
		free(tei);
		return;
	}
	n = res.events++;
	if (n >= 5)
		return;
	tei = tdh_info(r, &res.status[n]);
	if (tei)
		decode(r, tei, n);
	free(tei);
}

TEST(every_event_through_tdh)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	int n, i;

	REQUIRE_TESTDATA();
	memset(&res, 0, sizeof(res));
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)PRIMITIVE;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	CloseTrace(h);
	ASSERT_EQ(5, res.events);
	/* The logfile header, and an EventTrace record of type 80. */
	EXPECT_EQ(2, res.others);
	EXPECT_EQ(1, res.header);
	EXPECT_EQ(1, res.not_found);
	for (n = 0; n < 5; n++) {
		ASSERT_EQ(ERROR_SUCCESS, res.status[n]);
		EXPECT_EQ(DecodingSourceTlg, res.source[n]);
		EXPECT_STREQ("solar_system", res.provider[n]);
		EXPECT_STREQ("PrimitiveTypesTest", res.event[n]);
		EXPECT_EQ(12, res.count[n]);
		EXPECT_EQ(12, res.top[n]);
		for (i = 0; i < 12; i++) {
			EXPECT_STREQ(schema[i].name, res.name[n][i]);
			EXPECT_EQ(schema[i].in, res.in[n][i])
				TH_LOG("%s", schema[i].name);
			EXPECT_EQ(schema[i].out, res.out[n][i])
				TH_LOG("%s", schema[i].name);
			EXPECT_STREQ(values[n][i], res.text[n][i])
				TH_LOG("event %d %s", n, schema[i].name);
		}
		/* Every byte of the data is a property's. */
		EXPECT_EQ(0, res.left[n]) TH_LOG("event %d", n);
		EXPECT_EQ(strlen(values[n][0]) + 1, res.string_size[n]);
		EXPECT_EQ(int32_values[n], res.int32[n]);
	}
}

TEST_HARNESS_MAIN
