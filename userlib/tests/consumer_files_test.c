// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * OpenTrace/ProcessTrace/CloseTrace over the .etl files Windows wrote
 * (testdata/etl).  Expected counts and values are the hand-decoded ones
 * of etl_windows_test.c; here they must reach the callbacks as Windows
 * consumers see them.
 */
#include <stdio.h>
#include <string.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define CLR		TESTDATA "/etl/clr-gc-events.etl"

static const GUID clr_guid = { 0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };
static const GUID solar_guid = { 0xd3dd3dd4, 0xaac2, 0x4e2a,
	{ 0x8d, 0xd4, 0xa8, 0xfb, 0x61, 0xb7, 0x76, 0x15 } };
static const GUID event_trace_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };

/*
 * What the callbacks saw.  @stop_after_buffers: the BufferCallback
 * returns FALSE on that buffer; @close_at: CloseTrace from the event
 * callback at that event.
 */
struct seen {
	int events;
	int header_events;
	int clr;
	int solar;
	int buffers;
	int stop_after_buffers;
	int close_at;
	ULONG close_result;
	PROCESSTRACE_HANDLE handle;
	EVENT_RECORD first;
	EVENT_RECORD first_clr;
	EVENT_RECORD first_solar;
	EVENT_HEADER_EXTENDED_DATA_ITEM solar_ext[2];
	char solar_traits[16];
	LONGLONG prev;
	bool ordered;
	int classic;
	EVENT_TRACE first_classic_clr;
};

static struct seen seen;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	if (!seen.events++)
		seen.first = *r;
	if (r->EventHeader.TimeStamp.QuadPart < seen.prev)
		seen.ordered = false;
	seen.prev = r->EventHeader.TimeStamp.QuadPart;
	if (IsEqualGUID(&r->EventHeader.ProviderId, &event_trace_guid))
		seen.header_events++;
	if (IsEqualGUID(&r->EventHeader.ProviderId, &clr_guid) &&
	    !seen.clr++)
		seen.first_clr = *r;
	if (IsEqualGUID(&r->EventHeader.ProviderId, &solar_guid) &&
	    !seen.solar++) {
		seen.first_solar = *r;
		memcpy(seen.solar_ext, r->ExtendedData,
		       sizeof(seen.solar_ext));
		memcpy(seen.solar_traits,
		       (void *)(uintptr_t)r->ExtendedData[0].DataPtr, 15);
	}
	if (seen.close_at && seen.events == seen.close_at)
		seen.close_result = CloseTrace(seen.handle);
}

static VOID WINAPI on_classic(PEVENT_TRACE e)
{
	seen.events++;
	if (IsEqualGUID(&e->Header.Guid, &clr_guid) && !seen.classic++)
		seen.first_classic_clr = *e;
}

static ULONG WINAPI on_buffer(PEVENT_TRACE_LOGFILEA lf)
{
	seen.buffers++;
	return seen.buffers != seen.stop_after_buffers;
}

static PROCESSTRACE_HANDLE open_file(const char *path, ULONG extra_mode,
				     EVENT_TRACE_LOGFILEA *lf)
{
	memset(lf, 0, sizeof(*lf));
	lf->LogFileName = (LPSTR)path;
	lf->ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD | extra_mode;
	lf->EventRecordCallback = on_record;
	lf->BufferCallback = on_buffer;
	return OpenTraceA(lf);
}

static void reset(void)
{
	memset(&seen, 0, sizeof(seen));
	seen.ordered = true;
}

TEST(clr_counts_and_header_first)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	reset();
	h = open_file(CLR, 0, &lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	EXPECT_EQ(65536u, lf.BufferSize);
	EXPECT_EQ(5u, lf.LogfileHeader.BuffersWritten);
	EXPECT_EQ(133232283966946549ll, lf.LogfileHeader.StartTime.QuadPart);
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(69, seen.clr);
	EXPECT_EQ(2, seen.header_events);
	EXPECT_EQ(71, seen.events);
	EXPECT_EQ(5, seen.buffers);
	EXPECT_TRUE(seen.ordered);
	/* The logfile header event comes first: EventTraceGuid, opcode 0. */
	EXPECT_TRUE(IsEqualGUID(&seen.first.EventHeader.ProviderId,
				&event_trace_guid));
	EXPECT_EQ(0, seen.first.EventHeader.EventDescriptor.Opcode);
	EXPECT_EQ(133232283966946549ll,
		  seen.first.EventHeader.TimeStamp.QuadPart);
	EXPECT_EQ(ERROR_SUCCESS, CloseTrace(h));
}

TEST(clr_first_event_record)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	EVENT_RECORD *r = &seen.first_clr;

	REQUIRE_TESTDATA();
	reset();
	h = open_file(CLR, 0, &lf);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(187, r->EventHeader.EventDescriptor.Id);
	EXPECT_EQ(1, r->EventHeader.EventDescriptor.Opcode);
	EXPECT_EQ(19, r->EventHeader.EventDescriptor.Task);
	EXPECT_EQ(133232284048793291ll, r->EventHeader.TimeStamp.QuadPart);
	EXPECT_EQ(168672u, r->EventHeader.ThreadId);
	EXPECT_EQ(179596u, r->EventHeader.ProcessId);
	EXPECT_EQ(283, r->EventHeader.Size);
	EXPECT_EQ(EVENT_HEADER_FLAG_64_BIT_HEADER, r->EventHeader.Flags);
	EXPECT_EQ(203, r->UserDataLength);
	EXPECT_EQ(4u, GetEventProcessorIndex(r));
	EXPECT_EQ(44, r->BufferContext.LoggerId);
	EXPECT_EQ(0, r->ExtendedDataCount);
	CloseTrace(h);
}

TEST(raw_timestamps)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	reset();
	h = open_file(CLR, PROCESS_TRACE_MODE_RAW_TIMESTAMP, &lf);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(5464903527823ll,
		  seen.first_clr.EventHeader.TimeStamp.QuadPart);
	CloseTrace(h);
}

TEST(primitive_extended_data)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	reset();
	h = open_file(PRIMITIVE, 0, &lf);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(5, seen.solar);
	EXPECT_EQ(2, seen.buffers);
	EXPECT_EQ(2, seen.first_solar.ExtendedDataCount);
	EXPECT_EQ(EVENT_HEADER_FLAG_EXTENDED_INFO |
		  EVENT_HEADER_FLAG_64_BIT_HEADER,
		  seen.first_solar.EventHeader.Flags);
	EXPECT_EQ(EVENT_HEADER_EXT_TYPE_PROV_TRAITS, seen.solar_ext[0].ExtType);
	EXPECT_EQ(1, (int)seen.solar_ext[0].Linkage);
	EXPECT_EQ(15, seen.solar_ext[0].DataSize);
	EXPECT_EQ(0, memcmp(seen.solar_traits, "\x0f\x00solar_system", 15));
	EXPECT_EQ(EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL,
		  seen.solar_ext[1].ExtType);
	EXPECT_EQ(0, (int)seen.solar_ext[1].Linkage);
	EXPECT_EQ(182, seen.solar_ext[1].DataSize);
	EXPECT_EQ(78, seen.first_solar.UserDataLength);
	EXPECT_EQ(0, memcmp(seen.first_solar.UserData, "Mercury", 8));
	EXPECT_EQ(132756731758001567ll,
		  seen.first_solar.EventHeader.TimeStamp.QuadPart);
	EXPECT_EQ(2u, GetEventProcessorIndex(&seen.first_solar));
	CloseTrace(h);
}

TEST(two_files_merged)
{
	EVENT_TRACE_LOGFILEA lf[2];
	PROCESSTRACE_HANDLE h[2];

	REQUIRE_TESTDATA();
	reset();
	h[0] = open_file(CLR, 0, &lf[0]);
	h[1] = open_file(PRIMITIVE, 0, &lf[1]);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(h, 2, NULL, NULL));
	EXPECT_EQ(69, seen.clr);
	EXPECT_EQ(5, seen.solar);
	EXPECT_TRUE(seen.ordered);
	EXPECT_EQ(7, seen.buffers);
	CloseTrace(h[0]);
	CloseTrace(h[1]);
}

TEST(classic_callback)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	reset();
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)CLR;
	lf.EventCallback = on_classic;
	h = OpenTraceA(&lf);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(71, seen.events);
	EXPECT_EQ(69, seen.classic);
	EXPECT_EQ(203u, seen.first_classic_clr.MofLength);
	EXPECT_EQ(1, seen.first_classic_clr.Header.Class.Type);
	EXPECT_EQ(168672u, seen.first_classic_clr.Header.ThreadId);
	CloseTrace(h);
}

TEST(time_window)
{
	REQUIRE_TESTDATA();
	FILETIME start = { .dwLowDateTime = (DWORD)133232284048793291ull,
			   .dwHighDateTime = 133232284048793291ull >> 32 };
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	reset();
	h = open_file(CLR, 0, &lf);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, &start, NULL));
	/* The two header records precede the first CLR event. */
	EXPECT_EQ(69, seen.events);
	EXPECT_EQ(0, seen.header_events);
	reset();
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, &start));
	EXPECT_EQ(3, seen.events);
	EXPECT_EQ(1, seen.clr);
	CloseTrace(h);
}

TEST(end_before_start)
{
	REQUIRE_TESTDATA();
	FILETIME start = { .dwLowDateTime = 10 }, end = { .dwLowDateTime = 9 };
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	reset();
	h = open_file(CLR, 0, &lf);
	EXPECT_EQ(ERROR_INVALID_TIME, ProcessTrace(&h, 1, &start, &end));
	EXPECT_EQ(0, seen.events);
	CloseTrace(h);
}

TEST(buffer_callback_false_cancels)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	reset();
	seen.stop_after_buffers = 1;
	h = open_file(CLR, 0, &lf);
	EXPECT_EQ(ERROR_CANCELLED, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(1, seen.buffers);
	EXPECT_LT(seen.events, 71);
	CloseTrace(h);
}

TEST(close_from_callback)
{
	EVENT_TRACE_LOGFILEA lf;

	REQUIRE_TESTDATA();
	reset();
	seen.close_at = 10;
	seen.handle = open_file(CLR, 0, &lf);
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&seen.handle, 1, NULL, NULL));
	EXPECT_EQ(ERROR_CTX_CLOSE_PENDING, seen.close_result);
	EXPECT_EQ(10, seen.events);
	/* ProcessTrace freed the trace on its way out. */
	EXPECT_EQ(ERROR_INVALID_HANDLE, CloseTrace(seen.handle));
}

TEST(close_invalid_handles)
{
	EXPECT_EQ(ERROR_INVALID_HANDLE, CloseTrace(0));
	EXPECT_EQ(ERROR_INVALID_HANDLE,
		  CloseTrace(INVALID_PROCESSTRACE_HANDLE));
	EXPECT_EQ(ERROR_INVALID_HANDLE, CloseTrace(0x12345678));
}

TEST(process_trace_arguments)
{
	PROCESSTRACE_HANDLE h[65] = { 0 };
	EVENT_TRACE_LOGFILEA lf;

	REQUIRE_TESTDATA();
	EXPECT_EQ(ERROR_INVALID_PARAMETER, ProcessTrace(NULL, 1, NULL, NULL));
	EXPECT_EQ(ERROR_BAD_LENGTH, ProcessTrace(h, 0, NULL, NULL));
	EXPECT_EQ(ERROR_BAD_LENGTH, ProcessTrace(h, 65, NULL, NULL));
	h[0] = 0x7777;
	EXPECT_EQ(ERROR_INVALID_HANDLE, ProcessTrace(h, 1, NULL, NULL));
	h[0] = open_file(CLR, 0, &lf);
	h[1] = h[0];
	EXPECT_EQ(ERROR_INVALID_PARAMETER, ProcessTrace(h, 2, NULL, NULL));
	CloseTrace(h[0]);
}

struct open_case {
	const char *file;
	const char *logger;
	ULONG mode;
	DWORD error;
};

TEST(open_errors)
{
	static const struct open_case cases[] = {
		{ NULL, NULL, 0, ERROR_INVALID_PARAMETER },
		{ CLR, "s", PROCESS_TRACE_MODE_REAL_TIME,
		  ERROR_INVALID_PARAMETER },
		{ NULL, "s", 0, ERROR_INVALID_PARAMETER },
		{ "/nonexistent/x.etl", NULL, 0, ERROR_FILE_NOT_FOUND },
		{ "/dev/null", NULL, 0, ERROR_BAD_PATHNAME },
	};
	EVENT_TRACE_LOGFILEA lf;
	size_t i;

	SetLastError(0);
	EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, OpenTraceA(NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, GetLastError());
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&lf, 0, sizeof(lf));
		lf.LogFileName = (LPSTR)cases[i].file;
		lf.LoggerName = (LPSTR)cases[i].logger;
		lf.ProcessTraceMode = cases[i].mode;
		SetLastError(0);
		EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, OpenTraceA(&lf))
			TH_LOG("case %zu", i);
		EXPECT_EQ(cases[i].error, GetLastError()) TH_LOG("case %zu", i);
	}
}

TEST(open_wide_name)
{
	EVENT_TRACE_LOGFILEW lf;
	WCHAR path[512];
	PROCESSTRACE_HANDLE h;
	size_t i;

	REQUIRE_TESTDATA();
	for (i = 0; i < sizeof(CLR); i++)
		path[i] = (unsigned char)CLR[i];
	reset();
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceW(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(69, seen.clr);
	CloseTrace(h);
}

TEST_HARNESS_MAIN
