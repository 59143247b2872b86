// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's classic provider API (RegisterTraceGuids, the WMIDPREQUEST
 * callback, GetTraceLoggerHandle/EnableFlags/EnableLevel, TraceEvent)
 * against the real module, with sessions started and read through the raw
 * ABI.
 */
#include <pthread.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "wmistr.h"
#include "evntprov.h"
#include "evntrace.h"

#define LIBETW_TEST_TAG "libetw-classic"
#include "libetw_selftest.h"

static const unsigned char *rec_payload(const struct rec *r, __u32 *len)
{
	const struct etw_event_header *h = rec_hdr(r);
	const unsigned char *p = (const void *)(h + 1);

	if (h->flags & ETW_EVENT_FLAG_EXTENDED_INFO) {
		const struct etw_ext_item *x = (const void *)p;

		for (;;) {
			p += x->item_size;
			if (!(x->linkage & ETW_EXT_LINKAGE))
				break;
			x = (const void *)p;
		}
	}
	*len = r->len - (__u32)(p - r->b);
	return p;
}

/* --- callback recorder ---------------------------------------------------- */

struct request {
	WMIDPREQUESTCODE code;
	ULONG size;
	TRACEHANDLE logger;
	ULONG flags;
	UCHAR level;
	GUID guid;
};

struct req_log {
	pthread_mutex_t lock;
	int n;
	struct request r[8];
};

static ULONG WINAPI record_request(WMIDPREQUESTCODE code, PVOID ctx,
				   ULONG *size, PVOID buffer)
{
	struct req_log *log = ctx;
	struct request *r;

	pthread_mutex_lock(&log->lock);
	if (log->n < 8) {
		r = &log->r[log->n++];
		r->code = code;
		r->size = *size;
		r->guid = ((WNODE_HEADER *)buffer)->Guid;
		r->logger = GetTraceLoggerHandle(buffer);
		r->flags = GetTraceEnableFlags(r->logger);
		r->level = GetTraceEnableLevel(r->logger);
	}
	pthread_mutex_unlock(&log->lock);
	return ERROR_SUCCESS;
}

static int requests(struct req_log *log)
{
	int n;

	pthread_mutex_lock(&log->lock);
	n = log->n;
	pthread_mutex_unlock(&log->lock);
	return n;
}

static void unique_guid(GUID *g, unsigned short n)
{
	static const GUID base = { 0, 0xc1a5, 0x4c6e,
				   { 0x9a, 0x17, 0x3e, 0x4f, 0, 0, 0, 0 } };

	*g = base;
	g->Data1 = (ULONG)getpid();
	g->Data2 = n;
}

static const GUID class_guid = { 0xc1a55000, 1, 2, { 3 } };

FIXTURE(classic) {
	struct ctl c;
	GUID guid;
	TRACEHANDLE h;
	struct req_log log;
};

FIXTURE_SETUP(classic)
{
	TRACE_GUID_REGISTRATION cls = { .Guid = &class_guid };

	memset(&self->log, 0, sizeof(self->log));
	pthread_mutex_init(&self->log.lock, NULL);
	unique_guid(&self->guid, 1);
	ASSERT_EQ(0, ctl_start(&self->c, "f", 0, 0));
	ASSERT_EQ(0, RegisterTraceGuidsW(record_request, &self->log,
					 &self->guid, 1, &cls, NULL, NULL,
					 &self->h));
	EXPECT_EQ((HANDLE)(uintptr_t)self->h, cls.RegHandle);
}

FIXTURE_TEARDOWN(classic)
{
	UnregisterTraceGuids(self->h);
	ctl_stop(&self->c);
}

/* Enable and return the logger handle the callback received. */
static TRACEHANDLE enable_logger(struct ctl *c, const GUID *g,
				 struct req_log *log, __u8 level, __u64 any)
{
	int before = requests(log);

	if (ctl_enable(c, g, ETW_CONTROL_ENABLE, level, any, 0) ||
	    requests(log) != before + 1)
		return 0;
	return log->r[before].logger;
}

/* --- registration --------------------------------------------------------- */

TEST(register_null_arguments_are_invalid_parameter)
{
	struct req_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	TRACEHANDLE h;
	GUID g;

	unique_guid(&g, 2);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  RegisterTraceGuidsW(NULL, &log, &g, 0, NULL, NULL, NULL, &h));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  RegisterTraceGuidsW(record_request, &log, NULL, 0, NULL,
				      NULL, NULL, &h));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  RegisterTraceGuidsA(record_request, &log, &g, 0, NULL, NULL,
				      NULL, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  RegisterTraceGuidsA(record_request, &log, &g, 1, NULL, NULL,
				      NULL, &h));
}

TEST(register_without_classes_and_unregister_twice)
{
	struct req_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	TRACEHANDLE h = 0;
	GUID g;

	unique_guid(&g, 3);
	ASSERT_EQ(0, RegisterTraceGuidsA(record_request, &log, &g, 0, NULL,
					 "ignored.mof", "ignored", &h));
	EXPECT_NE(0, h);
	EXPECT_EQ(0, requests(&log));
	EXPECT_EQ(0, UnregisterTraceGuids(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, UnregisterTraceGuids(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, UnregisterTraceGuids(0));
}

/* --- the callback and the enable queries ---------------------------------- */

TEST_F(classic, enable_passes_logger_flags_and_level)
{
	struct request *r = &self->log.r[0];

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE, 3,
				0x1234567800000005ULL, 0));
	ASSERT_EQ(1, requests(&self->log));
	EXPECT_EQ(WMI_ENABLE_EVENTS, r->code);
	EXPECT_EQ(sizeof(WNODE_HEADER), r->size);
	EXPECT_EQ(0, memcmp(&r->guid, &self->guid, sizeof(GUID)));
	EXPECT_NE((TRACEHANDLE)INVALID_HANDLE_VALUE, r->logger);
	EXPECT_NE(self->h, r->logger);
	EXPECT_EQ(5, r->flags);
	EXPECT_EQ(3, r->level);
}

TEST_F(classic, disable_is_wmi_disable_events)
{
	ASSERT_NE(0, enable_logger(&self->c, &self->guid, &self->log, 4, 1));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE, 0,
				0, 0));
	ASSERT_EQ(2, requests(&self->log));
	EXPECT_EQ(WMI_DISABLE_EVENTS, self->log.r[1].code);
	EXPECT_EQ(0, self->log.r[1].flags);
}

TEST_F(classic, register_after_enable_gets_enable_before_return)
{
	struct req_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	TRACEHANDLE h;
	GUID g;

	unique_guid(&g, 4);
	ASSERT_EQ(0, ctl_enable(&self->c, &g, ETW_CONTROL_ENABLE, 2, 0x30, 0));
	ASSERT_EQ(0, RegisterTraceGuidsW(record_request, &log, &g, 0, NULL,
					 NULL, NULL, &h));
	ASSERT_EQ(1, requests(&log));
	EXPECT_EQ(WMI_ENABLE_EVENTS, log.r[0].code);
	EXPECT_EQ(0x30, log.r[0].flags);
	EXPECT_EQ(2, log.r[0].level);
	EXPECT_EQ(0, UnregisterTraceGuids(h));
}

TEST_F(classic, enable_queries_on_registration_handle_fail)
{
	SetLastError(0);
	EXPECT_EQ(0, GetTraceEnableFlags(self->h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, GetLastError());
	SetLastError(0);
	EXPECT_EQ(0, GetTraceEnableLevel(self->h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, GetLastError());
}

TEST(logger_handle_of_null_buffer_is_invalid_parameter)
{
	SetLastError(0);
	EXPECT_EQ((TRACEHANDLE)INVALID_HANDLE_VALUE,
		  GetTraceLoggerHandle(NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, GetLastError());
}

TEST(logger_handle_of_foreign_buffer_is_invalid_handle)
{
	WNODE_HEADER w = { .BufferSize = sizeof(w),
			   .HistoricalContext = 0x1234 };

	SetLastError(0);
	EXPECT_EQ((TRACEHANDLE)INVALID_HANDLE_VALUE, GetTraceLoggerHandle(&w));
	EXPECT_EQ(ERROR_INVALID_HANDLE, GetLastError());
}

/* --- TraceEvent ----------------------------------------------------------- */

struct mof_event {
	EVENT_TRACE_HEADER h;
	char data[6];
};

TEST_F(classic, trace_event_writes_header_fields_and_data)
{
	/* Size counts the data, not the struct's tail padding. */
	struct mof_event ev = { .h = { .Size = sizeof(ev.h) + 6 } };
	static struct rec r[REC_MAX];
	const struct etw_event_header *h;
	const unsigned char *p;
	TRACEHANDLE logger;
	__u32 len;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ev.h.Class.Type = 12;
	ev.h.Class.Level = 3;
	ev.h.Class.Version = 2;
	ev.h.Guid = class_guid;
	memcpy(ev.data, "mofdat", 6);
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	h = rec_hdr(&r[0]);
	EXPECT_EQ(3, h->descriptor.level);
	EXPECT_EQ(12, h->descriptor.opcode);
	EXPECT_EQ(2, h->descriptor.version);
	EXPECT_EQ(0, h->descriptor.id);
	EXPECT_EQ(0, h->descriptor.keyword);
	p = rec_payload(&r[0], &len);
	ASSERT_EQ(6, len);
	EXPECT_EQ(0, memcmp(p, "mofdat", 6));
}

TEST_F(classic, trace_event_mof_pointers)
{
	struct {
		EVENT_TRACE_HEADER h;
		MOF_FIELD mof[2];
	} ev = { .h = { .Size = sizeof(ev), .Flags = WNODE_FLAG_TRACED_GUID |
						     WNODE_FLAG_USE_MOF_PTR } };
	static struct rec r[REC_MAX];
	const unsigned char *p;
	TRACEHANDLE logger;
	__u32 len;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	DEFINE_TRACE_MOF_FIELD(&ev.mof[0], "one", 3, ETW_STRING_TYPE_VALUE);
	DEFINE_TRACE_MOF_FIELD(&ev.mof[1], "two", 3, ETW_STRING_TYPE_VALUE);
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	p = rec_payload(&r[0], &len);
	ASSERT_EQ(6, len);
	EXPECT_EQ(0, memcmp(p, "onetwo", 6));
}

TEST_F(classic, trace_event_bad_arguments)
{
	struct mof_event ev = { .h = { .Size = sizeof(ev) } };
	TRACEHANDLE logger;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	EXPECT_EQ(ERROR_INVALID_HANDLE, TraceEvent(self->h, &ev.h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TraceEvent(0, &ev.h));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceEvent(logger, NULL));
	ev.h.Size = sizeof(ev.h) - 1;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceEvent(logger, &ev.h));
}

TEST_F(classic, trace_event_after_disable_is_invalid_handle)
{
	struct mof_event ev = { .h = { .Size = sizeof(ev) } };
	TRACEHANDLE logger;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE, 0,
				0, 0));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TraceEvent(logger, &ev.h));
}

TEST_F(classic, trace_event_after_unregister_is_invalid_handle)
{
	struct mof_event ev = { .h = { .Size = sizeof(ev) } };
	TRACEHANDLE logger;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ASSERT_EQ(0, UnregisterTraceGuids(self->h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TraceEvent(logger, &ev.h));
	SetLastError(0);
	EXPECT_EQ(0, GetTraceEnableFlags(logger));
	EXPECT_EQ(ERROR_INVALID_HANDLE, GetLastError());
}

/* --- one session per classic provider ------------------------------------- */

TEST_F(classic, second_session_takes_the_provider)
{
	struct mof_event ev = { .h = { .Size = sizeof(ev) } };
	static struct rec r[REC_MAX];
	TRACEHANDLE first, second;
	struct ctl other;

	first = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, first);
	ASSERT_EQ(0, ctl_start(&other, "o", 0, 0));
	second = enable_logger(&other, &self->guid, &self->log, 5, 2);
	ASSERT_NE(0, second);
	EXPECT_EQ(WMI_ENABLE_EVENTS, self->log.r[1].code);
	EXPECT_EQ(2, self->log.r[1].flags);
	EXPECT_EQ(5, self->log.r[1].level);
	ASSERT_EQ(0, TraceEvent(second, &ev.h));
	EXPECT_EQ(0, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(1, ctl_collect(&other, &self->guid, r, REC_MAX));
	ctl_stop(&other);
}

TEST_HARNESS_MAIN
