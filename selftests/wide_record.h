/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One wide-string recording, written as Windows code writes it: L"..."
 * session and file names through StartTraceW, QueryTraceW, FlushTraceW
 * and StopTraceW, an EventWriteString(L"...") event, then the file read
 * back through OpenTraceW(L"...").  Compiled with -fshort-wchar by
 * wide_test.c as C and by wide_cxx.cc as C++, so the same source checks
 * both languages.
 */
#ifndef _WIDE_RECORD_H
#define _WIDE_RECORD_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <evntcons.h>

/* The x64 TRACE_LOGFILE_HEADER the header event's names follow. */
#define WIDE_LOGFILE_HEADER_SIZE	0x118
/* Not ASCII: é (one unit) and U+1D11E (a surrogate pair). */
#define WIDE_TEXT	L"wide h\u00e9llo \xd834\xdd1e"

/* Failures of wide_record(): the step that went wrong. */
enum wide_step {
	WIDE_OK,
	WIDE_START,
	WIDE_START_NAME,
	WIDE_REGISTER,
	WIDE_ENABLE,
	WIDE_WRITE,
	WIDE_QUERY,
	WIDE_QUERY_FILE,
	WIDE_FLUSH,
	WIDE_STOP,
	WIDE_OPEN,
	WIDE_PROCESS,
	WIDE_EVENT,
	WIDE_HEADER_NAMES,
};

struct wide_props {
	EVENT_TRACE_PROPERTIES p;
	char names[2048];
};

#define WIDE_NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define WIDE_FILE_OFF	(WIDE_NAME_OFF + 1024)

/*
 * What the callback saw.  Names are compared as bytes: with -fshort-wchar
 * they are the UTF-16 libetw reads and writes.
 */
struct wide_seen {
	GUID provider;
	const WCHAR *logger;
	size_t logger_bytes;
	const WCHAR *file;
	size_t file_bytes;
	int strings;
	int header_names;
};

static struct wide_seen wide_seen;

static VOID WINAPI wide_on_record(PEVENT_RECORD r)
{
	static const WCHAR text[] = WIDE_TEXT;
	static const GUID header = { 0x68fdd900, 0x4a3e, 0x11d1,
		{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };
	const char *names = (const char *)r->UserData +
			    WIDE_LOGFILE_HEADER_SIZE;
	const GUID *id = &r->EventHeader.ProviderId;

	if (!memcmp(id, &wide_seen.provider, sizeof(GUID)) &&
	    r->UserDataLength == sizeof(text) &&
	    !memcmp(r->UserData, text, sizeof(text)))
		wide_seen.strings++;
	if (!memcmp(id, &header, sizeof(GUID)) &&
	    r->UserDataLength == WIDE_LOGFILE_HEADER_SIZE +
				 wide_seen.logger_bytes +
				 wide_seen.file_bytes &&
	    !memcmp(names, wide_seen.logger, wide_seen.logger_bytes) &&
	    !memcmp(names + wide_seen.logger_bytes, wide_seen.file,
		    wide_seen.file_bytes))
		wide_seen.header_names++;
}

static void wide_props_init(struct wide_props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.BufferSize = 4;
	b->p.LoggerNameOffset = WIDE_NAME_OFF;
	b->p.LogFileNameOffset = WIDE_FILE_OFF;
}

/* Start @logger writing to @file, write the string event, stop. */
static enum wide_step wide_write(const GUID *provider, LPCWSTR logger,
				 size_t logger_bytes, LPCWSTR file,
				 size_t file_bytes)
{
	CONTROLTRACE_ID h;
	REGHANDLE reg;
	struct wide_props b;
	enum wide_step step;

	wide_props_init(&b);
	b.p.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
	memcpy((char *)&b + WIDE_FILE_OFF, file, file_bytes);
	if (StartTraceW(&h, logger, &b.p) != ERROR_SUCCESS)
		return WIDE_START;
	if (memcmp((char *)&b + WIDE_NAME_OFF, logger, logger_bytes))
		return WIDE_START_NAME;
	if (EventRegister(provider, NULL, NULL, &reg) != ERROR_SUCCESS)
		return WIDE_REGISTER;
	step = WIDE_OK;
	if (EnableTraceEx2(h, provider, EVENT_CONTROL_CODE_ENABLE_PROVIDER,
			   5, 0, 0, 0, NULL) != ERROR_SUCCESS)
		step = WIDE_ENABLE;
	else if (EventWriteString(reg, 4, 0, WIDE_TEXT) != ERROR_SUCCESS)
		step = WIDE_WRITE;
	EventUnregister(reg);
	if (step != WIDE_OK)
		return step;
	wide_props_init(&b);
	if (QueryTraceW(0, logger, &b.p) != ERROR_SUCCESS)
		return WIDE_QUERY;
	if (memcmp((char *)&b + b.p.LogFileNameOffset, file, file_bytes))
		return WIDE_QUERY_FILE;
	wide_props_init(&b);
	if (FlushTraceW(0, logger, &b.p) != ERROR_SUCCESS)
		return WIDE_FLUSH;
	wide_props_init(&b);
	if (StopTraceW(0, logger, &b.p) != ERROR_SUCCESS)
		return WIDE_STOP;
	return WIDE_OK;
}

/* Read @file back: one string event, the header naming logger and file. */
static enum wide_step wide_read(LPCWSTR file)
{
	EVENT_TRACE_LOGFILEW lf;
	PROCESSTRACE_HANDLE ph;
	ULONG ret;

	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPWSTR)file;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = wide_on_record;
	ph = OpenTraceW(&lf);
	if (ph == INVALID_PROCESSTRACE_HANDLE)
		return WIDE_OPEN;
	ret = ProcessTrace(&ph, 1, NULL, NULL);
	CloseTrace(ph);
	if (ret != ERROR_SUCCESS)
		return WIDE_PROCESS;
	if (wide_seen.strings != 1)
		return WIDE_EVENT;
	if (wide_seen.header_names != 1)
		return WIDE_HEADER_NAMES;
	return WIDE_OK;
}

/*
 * The whole round trip.  Sizes are those of the literals, NUL included;
 * @path is @file in UTF-8, to remove the file.
 */
static enum wide_step wide_record(const GUID *provider, LPCWSTR logger,
				  size_t logger_bytes, LPCWSTR file,
				  size_t file_bytes, const char *path)
{
	struct wide_props b;
	enum wide_step step;

	memset(&wide_seen, 0, sizeof(wide_seen));
	wide_seen.provider = *provider;
	wide_seen.logger = logger;
	wide_seen.logger_bytes = logger_bytes;
	wide_seen.file = file;
	wide_seen.file_bytes = file_bytes;
	unlink(path);
	step = wide_write(provider, logger, logger_bytes, file, file_bytes);
	if (step == WIDE_OK) {
		step = wide_read(file);
	} else if (step != WIDE_START) {
		/* Leave no session behind for the next test. */
		wide_props_init(&b);
		StopTraceW(0, logger, &b.p);
	}
	unlink(path);
	return step;
}

/*
 * Real time: @logger started and opened by its L"..." name, the string
 * event written, the session stopped; ProcessTrace then delivers what the
 * consumer had buffered and returns.
 */
static enum wide_step wide_realtime(const GUID *provider, LPCWSTR logger)
{
	EVENT_TRACE_LOGFILEW lf;
	PROCESSTRACE_HANDLE ph;
	struct wide_props b;
	CONTROLTRACE_ID h;
	REGHANDLE reg;
	enum wide_step step = WIDE_OK;

	memset(&wide_seen, 0, sizeof(wide_seen));
	wide_seen.provider = *provider;
	wide_props_init(&b);
	b.p.LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	b.p.LogFileNameOffset = 0;
	if (StartTraceW(&h, logger, &b.p) != ERROR_SUCCESS)
		return WIDE_START;
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = (LPWSTR)logger;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME |
			      PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = wide_on_record;
	ph = OpenTraceW(&lf);
	if (ph == INVALID_PROCESSTRACE_HANDLE)
		step = WIDE_OPEN;
	else if (EventRegister(provider, NULL, NULL, &reg) != ERROR_SUCCESS)
		step = WIDE_REGISTER;
	if (step == WIDE_OK) {
		if (EnableTraceEx2(h, provider,
				   EVENT_CONTROL_CODE_ENABLE_PROVIDER, 5, 0, 0,
				   0, NULL) != ERROR_SUCCESS)
			step = WIDE_ENABLE;
		else if (EventWriteString(reg, 4, 0, WIDE_TEXT) !=
			 ERROR_SUCCESS)
			step = WIDE_WRITE;
		EventUnregister(reg);
	}
	wide_props_init(&b);
	if (StopTraceW(0, logger, &b.p) != ERROR_SUCCESS && step == WIDE_OK)
		step = WIDE_STOP;
	if (ph == INVALID_PROCESSTRACE_HANDLE)
		return step;
	if (step == WIDE_OK && ProcessTrace(&ph, 1, NULL, NULL) != ERROR_SUCCESS)
		step = WIDE_PROCESS;
	CloseTrace(ph);
	if (step == WIDE_OK && wide_seen.strings != 1)
		step = WIDE_EVENT;
	return step;
}

#endif /* _WIDE_RECORD_H */
