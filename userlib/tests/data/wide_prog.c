/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Windows-style wide-string code, for wide_test.c: built with -fshort-wchar
 * as C and as C++, it passes L"..." strings to the W functions.  Reads
 * the Windows-written primitive-types.etl (path in WIDE_ETL, a narrow
 * literal) through OpenTraceW with an L"..." file name and checks that the
 * logger name in the header event reads back equal to L"solar_system".
 * Exits 0 when every check holds, else the number of the first failure.
 */
#define UNICODE
#include <stdio.h>
#include <string.h>

#include <evntcons.h>

static const GUID solar = { 0xd3dd3dd4, 0xaac2, 0x4e2a,
	{ 0x8d, 0xd4, 0xa8, 0xfb, 0x61, 0xb7, 0x76, 0x15 } };
static const GUID header_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };

/* The x64 TRACE_LOGFILE_HEADER the header event's names follow. */
#define LOGFILE_HEADER_SIZE	0x118

static int solar_events;
static int names_match;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	static const WCHAR name[] = L"solar_system";
	const char *names = (const char *)r->UserData + LOGFILE_HEADER_SIZE;

	if (!memcmp(&r->EventHeader.ProviderId, &solar, sizeof(GUID)))
		solar_events++;
	if (!memcmp(&r->EventHeader.ProviderId, &header_guid,
		     sizeof(GUID)) &&
	    r->UserDataLength >= LOGFILE_HEADER_SIZE + sizeof(name))
		names_match = !memcmp(names, name, sizeof(name));
}

/* OpenTraceW on @file; returns ProcessTrace's result or the open error. */
static ULONG process(LPCWSTR file)
{
	EVENT_TRACE_LOGFILEW lf;
	PROCESSTRACE_HANDLE h;
	ULONG ret;

	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPWSTR)file;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceW(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	ret = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return ret;
}

int main(void)
{
	static const WCHAR kernel[] = L"NT Kernel Logger";
	LPCTSTR text = TEXT("NT Kernel Logger");

	/* 16-bit L"..." is what libetw reads; TEXT() and the SDK names too. */
	if (sizeof(L"ab") != 3 * sizeof(WCHAR) || sizeof(WCHAR) != 2)
		return 1;
	if (memcmp(text, kernel, sizeof(kernel)) ||
	    memcmp(KERNEL_LOGGER_NAME, kernel, sizeof(kernel)))
		return 2;
	if (process(L"" WIDE_ETL) != ERROR_SUCCESS)
		return 3;
	if (solar_events != 5)
		return 4;
	if (!names_match)
		return 5;
	/* The L"..." name is read in full: one more character is another file. */
	if (process(L"" WIDE_ETL L"x") != ERROR_FILE_NOT_FOUND)
		return 6;
	return 0;
}
