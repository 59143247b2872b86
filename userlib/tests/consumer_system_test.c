// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * SYSTEM_TRACE_HEADER records of Windows-written files (testdata/etl) as
 * ProcessTrace delivers them: both files start with the log-file header
 * event (hook 0x0000) and an 80-byte HEADER-group record (hook 0x0050),
 * which Windows gives consumers as classic events of EventTraceGuid with
 * Opcode = the hook's type.
 */
#include <string.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define CLR		TESTDATA "/etl/clr-gc-events.etl"
#define NHEADER		2

static const GUID event_trace_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };

struct seen {
	int n;
	EVENT_RECORD rec[NHEADER];
	EVENT_TRACE classic[NHEADER];
	int classic_n;
	USHORT later_flags;
};

static struct seen seen;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	if (seen.n < NHEADER)
		seen.rec[seen.n] = *r;
	else
		seen.later_flags |= r->EventHeader.Flags;
	seen.n++;
}

static VOID WINAPI on_classic(PEVENT_TRACE e)
{
	if (seen.classic_n < NHEADER)
		seen.classic[seen.classic_n] = *e;
	seen.classic_n++;
}

static ULONG process(const char *path, bool record)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	ULONG err;

	memset(&seen, 0, sizeof(seen));
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)path;
	if (record) {
		lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
		lf.EventRecordCallback = on_record;
	} else {
		lf.EventCallback = on_classic;
	}
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	err = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return err;
}

/* The two HEADER-group records, in file order: type 0x00, then 0x50. */
static const UCHAR header_opcodes[NHEADER] = { 0x00, 0x50 };

static void check_records(struct __test_metadata *_metadata)
{
	const USHORT flags = EVENT_HEADER_FLAG_CLASSIC_HEADER |
			     EVENT_HEADER_FLAG_64_BIT_HEADER;
	int i;

	ASSERT_LE(NHEADER, seen.n);
	for (i = 0; i < NHEADER; i++) {
		const EVENT_HEADER *h = &seen.rec[i].EventHeader;

		EXPECT_TRUE(IsEqualGUID(&h->ProviderId, &event_trace_guid));
		EXPECT_EQ(flags, h->Flags);
		EXPECT_EQ(header_opcodes[i], h->EventDescriptor.Opcode);
		EXPECT_EQ(2, h->EventDescriptor.Version);
	}
}

TEST(primitive_header_records_are_classic)
{
	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(PRIMITIVE, true));
	check_records(_metadata);
	/* The header event holds TRACE_LOGFILE_HEADER (0x118) and names. */
	EXPECT_LT(0x118, seen.rec[0].UserDataLength);
}

TEST(clr_header_records_are_classic)
{
	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(CLR, true));
	check_records(_metadata);
}

/* EVENT_HEADER records after them do not get the classic bit. */
TEST(event_header_records_not_classic)
{
	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(PRIMITIVE, true));
	/* The file's five TraceLogging events follow the two header ones. */
	EXPECT_EQ(NHEADER + 5, seen.n);
	EXPECT_EQ(EVENT_HEADER_FLAG_EXTENDED_INFO |
		  EVENT_HEADER_FLAG_64_BIT_HEADER, seen.later_flags);
}

TEST(header_records_classic_callback)
{
	int i;

	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(PRIMITIVE, false));
	ASSERT_LE(NHEADER, seen.classic_n);
	for (i = 0; i < NHEADER; i++) {
		EXPECT_TRUE(IsEqualGUID(&seen.classic[i].Header.Guid,
					&event_trace_guid));
		EXPECT_EQ(header_opcodes[i], seen.classic[i].Header.Class.Type);
	}
}

TEST_HARNESS_MAIN
