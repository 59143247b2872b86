// SPDX-License-Identifier: GPL-2.0
/*
 * Wide strings against the kernel: built with -fshort-wchar, Windows-style
 * code records a session named by an L"..." string into a file named by
 * one, writes an EventWriteString(L"...") event and reads the file back
 * through OpenTraceW(L"..."), and a real-time session opened by its
 * L"..." name receives such an event; from C (here) and from C++
 * (wide_cxx.cc), with the libetw built without the flag.
 */
#include "kselftest_harness.h"
#include "wide_record.h"

#define WIDE_C_PATH	"/tmp/etw-wide-c.etl"

static const GUID wide_c_provider = { 0x71de5c00, 0x3a2b, 0x4c5d,
	{ 0x8e, 0x9f, 0x10, 0x21, 0x32, 0x43, 0x54, 0x01 } };

int wide_cxx_record(void);
int wide_cxx_realtime(void);

/* In C, wchar_t is a typedef: WCHAR must be the same 16-bit type. */
_Static_assert(sizeof(WCHAR) == 2 && sizeof(wchar_t) == 2,
	       "-fshort-wchar makes L\"...\" 16-bit");

TEST(c_round_trip)
{
	static const WCHAR logger[] = L"etw-wide-c";
	static const WCHAR file[] = L"" WIDE_C_PATH;

	EXPECT_EQ(WIDE_OK, wide_record(&wide_c_provider, logger,
				       sizeof(logger), file, sizeof(file),
				       WIDE_C_PATH));
}

TEST(cxx_round_trip)
{
	EXPECT_EQ(WIDE_OK, wide_cxx_record());
}

TEST(c_realtime)
{
	EXPECT_EQ(WIDE_OK, wide_realtime(&wide_c_provider, L"etw-wide-c-rt"));
}

TEST(cxx_realtime)
{
	EXPECT_EQ(WIDE_OK, wide_cxx_realtime());
}

TEST_HARNESS_MAIN
