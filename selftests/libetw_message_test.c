// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's TraceMessage and TraceMessageVa against the real module: the
 * MESSAGE_TRACE_HEADER records the kernel makes for ETW_WRITE_MESSAGE
 * (fields in TraceMessage's documented order: sequence, GUID or component
 * id, timestamp, thread id, process id), the Win32 codes, the kernel's
 * rules, and what ProcessTrace delivers.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "wmistr.h"
#include "evntprov.h"
#include "evntrace.h"
#include "evntcons.h"

#define LIBETW_TEST_TAG "libetw-message"
/* Messages are no EVENT_HEADER records: the header's collector is unused. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "libetw_selftest.h"
#pragma GCC diagnostic pop

static const GUID msg_guid = { 0x3e55a6e0, 0x1111, 0x2222,
	{ 1, 2, 3, 4, 5, 6, 7, 8 } };

static TRACEHANDLE logger;

static ULONG WINAPI on_request(WMIDPREQUESTCODE code, PVOID ctx, ULONG *size,
			       PVOID buffer)
{
	if (code == WMI_ENABLE_EVENTS)
		__atomic_store_n(&logger, GetTraceLoggerHandle(buffer),
				 __ATOMIC_RELEASE);
	return ERROR_SUCCESS;
}

FIXTURE(msg) {
	struct ctl c;
	GUID guid;
	TRACEHANDLE h;
	TRACEHANDLE logger;
};

FIXTURE_SETUP(msg)
{
	self->guid = msg_guid;
	self->guid.Data1 = (ULONG)getpid();
	logger = 0;
	ASSERT_EQ(0, ctl_start(&self->c, "m", 0, 0));
	ASSERT_EQ(0, RegisterTraceGuidsA(on_request, NULL, &self->guid, 0,
					 NULL, NULL, NULL, &self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE, 0,
				0, 0));
	self->logger = __atomic_load_n(&logger, __ATOMIC_ACQUIRE);
	ASSERT_NE(0, self->logger);
}

FIXTURE_TEARDOWN(msg)
{
	UnregisterTraceGuids(self->h);
	ctl_stop(&self->c);
}

/* Flush and copy out every message record, oldest first. */
static int collect_messages(struct ctl *c, struct rec *out, int max)
{
	static unsigned char buf[4096];
	struct etw_session_args a = { .size = sizeof(a), .logger_id = c->id };
	int n = 0;

	if (etw_ioctl(c->fd, ETW_IOC_FLUSH, &a))
		return -1;
	while (read(c->cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;
		__u32 off = ETW_BUFFER_HEADER_SIZE;

		while (off + sizeof(struct etw_message_header) <= bh->offset) {
			const struct etw_message_header *m =
				(const void *)(buf + off);

			if (m->header_type == ETW_MESSAGE_HEADER_TYPE &&
			    n < max) {
				out[n].len = m->size;
				memcpy(out[n].b, m, m->size);
				n++;
			}
			off += (m->size + 7) & ~7u;
		}
	}
	return n;
}

static __u32 u32_at(const struct rec *r, __u32 off)
{
	__u32 v;

	memcpy(&v, r->b + off, sizeof(v));
	return v;
}

static __u64 u64_at(const struct rec *r, __u32 off)
{
	__u64 v;

	memcpy(&v, r->b + off, sizeof(v));
	return v;
}

TEST_F(msg, all_fields_in_documented_order)
{
	const struct etw_message_header *m;
	static struct rec r[REC_MAX];
	ULONG flags = TRACE_MESSAGE_SEQUENCE | TRACE_MESSAGE_GUID |
		      TRACE_MESSAGE_TIMESTAMP | TRACE_MESSAGE_SYSTEMINFO;
	int v = 0x01020304;

	ASSERT_EQ(0, TraceMessage(self->logger, flags, &msg_guid, 77,
				  "abc", (size_t)3, &v, sizeof(v), NULL, 0));
	ASSERT_EQ(1, collect_messages(&self->c, r, REC_MAX));
	m = (const void *)r[0].b;
	EXPECT_EQ(8 + 4 + 16 + 8 + 8 + 3 + 4, m->size);
	EXPECT_EQ(77, m->message_number);
	/* libetw adds the writer's pointer size. */
	EXPECT_EQ(flags | TRACE_MESSAGE_POINTER64, m->flags);
	EXPECT_EQ(0u, u32_at(&r[0], 8));
	EXPECT_EQ(0, memcmp(r[0].b + 12, &msg_guid, sizeof(GUID)));
	EXPECT_NE(0u, u64_at(&r[0], 28));
	EXPECT_EQ((__u32)gettid(), u32_at(&r[0], 36));
	EXPECT_EQ((__u32)getpid(), u32_at(&r[0], 40));
	EXPECT_EQ(0, memcmp(r[0].b + 44, "abc", 3));
	EXPECT_EQ(0, memcmp(r[0].b + 47, &v, sizeof(v)));
}

/* One row per flag set: where the arguments start. */
struct layout_case {
	const char *what;
	ULONG flags;
	__u32 data_off;
	__u32 ts_off;		/* 0: no timestamp */
	__u32 ids_off;		/* 0: no ids */
};

static const struct layout_case layouts[] = {
	{ "no fields", 0, 8, 0, 0 },
	{ "sequence", TRACE_MESSAGE_SEQUENCE, 12, 0, 0 },
	{ "GUID", TRACE_MESSAGE_GUID, 24, 0, 0 },
	{ "component id", TRACE_MESSAGE_COMPONENTID, 12, 0, 0 },
	{ "timestamp", TRACE_MESSAGE_TIMESTAMP, 16, 8, 0 },
	{ "system info", TRACE_MESSAGE_SYSTEMINFO, 16, 0, 8 },
	{ "component id, time, ids", TRACE_MESSAGE_COMPONENTID |
	  TRACE_MESSAGE_TIMESTAMP | TRACE_MESSAGE_SYSTEMINFO, 28, 12, 20 },
};

TEST_F(msg, field_layout_table)
{
	static struct rec r[REC_MAX];
	const ULONG component = 0xc0ffee;
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct layout_case *c = &layouts[i];
		const void *g = (c->flags & TRACE_MESSAGE_COMPONENTID) ?
				(const void *)&component : &msg_guid;

		ASSERT_EQ(0, TraceMessage(self->logger, c->flags, g, (USHORT)i,
					  "xy", (size_t)2, NULL, 0));
		ASSERT_EQ(1, collect_messages(&self->c, r, REC_MAX)) {
			TH_LOG("%s", c->what);
		}
		EXPECT_EQ(c->data_off + 2, r[0].len) {
			TH_LOG("%s", c->what);
		}
		EXPECT_EQ(0, memcmp(r[0].b + c->data_off, "xy", 2)) {
			TH_LOG("%s", c->what);
		}
		if (c->ts_off)
			EXPECT_NE(0u, u64_at(&r[0], c->ts_off));
		if (c->ids_off)
			EXPECT_EQ((__u32)getpid(),
				  u32_at(&r[0], c->ids_off + 4));
		if (c->flags & TRACE_MESSAGE_COMPONENTID)
			EXPECT_EQ(component, u32_at(&r[0], 8));
	}
}

static ULONG va_wrapper(TRACEHANDLE h, USHORT n, ...)
{
	va_list ap;
	ULONG err;

	va_start(ap, n);
	err = TraceMessageVa(h, TRACE_MESSAGE_GUID, &msg_guid, n, ap);
	va_end(ap);
	return err;
}

TEST_F(msg, va_form_writes_the_same)
{
	static struct rec r[REC_MAX];

	ASSERT_EQ(0, va_wrapper(self->logger, 5, "hello", (size_t)5, NULL, 0));
	ASSERT_EQ(1, collect_messages(&self->c, r, REC_MAX));
	EXPECT_EQ(8 + 16 + 5, r[0].len);
	EXPECT_EQ(0, memcmp(r[0].b + 24, "hello", 5));
}

/* --- Win32 codes ---------------------------------------------------------- */

struct err_case {
	const char *what;
	int handle;		/* 0: the logger's, 1: zero, 2: registration */
	ULONG flags;
	bool null_guid;
	ULONG want;
};

static const struct err_case errs[] = {
	{ "handle 0", 1, TRACE_MESSAGE_GUID, false, ERROR_INVALID_HANDLE },
	{ "registration handle", 2, TRACE_MESSAGE_GUID, false,
	  ERROR_INVALID_HANDLE },
	{ "unknown flag 0x100", 0, 0x100, false, ERROR_INVALID_PARAMETER },
	{ "flag above the mask", 0, 0x10000, false, ERROR_INVALID_PARAMETER },
	{ "GUID and component id", 0,
	  TRACE_MESSAGE_GUID | TRACE_MESSAGE_COMPONENTID, false,
	  ERROR_INVALID_PARAMETER },
	{ "GUID flag, NULL GUID", 0, TRACE_MESSAGE_GUID, true,
	  ERROR_INVALID_PARAMETER },
	{ "component id flag, NULL", 0, TRACE_MESSAGE_COMPONENTID, true,
	  ERROR_INVALID_PARAMETER },
	{ "no fields, NULL GUID", 0, 0, true, ERROR_SUCCESS },
	{ "pointer-size flags", 0,
	  TRACE_MESSAGE_POINTER32 | TRACE_MESSAGE_PERFORMANCE_TIMESTAMP,
	  false, ERROR_SUCCESS },
};

TEST_F(msg, error_table)
{
	size_t i;

	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		const struct err_case *c = &errs[i];
		TRACEHANDLE h = c->handle == 1 ? 0 :
				c->handle == 2 ? self->h : self->logger;

		EXPECT_EQ(c->want, TraceMessage(h, c->flags,
				c->null_guid ? NULL : &msg_guid, 1,
				"a", (size_t)1, NULL, 0)) {
			TH_LOG("%s", c->what);
		}
	}
}

TEST_F(msg, too_large_is_more_data)
{
	static char big[TRACE_MESSAGE_MAXIMUM_SIZE + 1];

	EXPECT_EQ(ERROR_MORE_DATA, TraceMessage(self->logger, 0, NULL, 1,
						big, sizeof(big), NULL, 0));
	/* Larger than the session's 4 KiB buffer: the kernel's EMSGSIZE. */
	EXPECT_EQ(ERROR_MORE_DATA, TraceMessage(self->logger, 0, NULL, 1,
						big, (size_t)8192, NULL, 0));
}

TEST_F(msg, after_disable_is_invalid_handle)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE, 0,
				0, 0));
	EXPECT_EQ(ERROR_INVALID_HANDLE, TraceMessage(self->logger, 0, NULL, 1,
						     NULL, 0));
}

/* --- the kernel's ETW_WRITE_MESSAGE rules --------------------------------- */

struct raw_case {
	const char *what;
	bool manifest;
	__u32 flags;
	__u16 task;
	int want;
};

static const struct raw_case raw_cases[] = {
	{ "message on a classic registration", false, ETW_WRITE_MESSAGE,
	  ETW_MESSAGE_GUID, 0 },
	{ "message on a manifest registration", true, ETW_WRITE_MESSAGE, 0,
	  -EINVAL },
	{ "message with CLASSIC", false, ETW_WRITE_MESSAGE | ETW_WRITE_CLASSIC,
	  0, -EINVAL },
	{ "message with a related activity", false,
	  ETW_WRITE_MESSAGE | ETW_WRITE_RELATED_ACTIVITY, 0, -EINVAL },
	{ "GUID and component id", false, ETW_WRITE_MESSAGE,
	  ETW_MESSAGE_GUID | ETW_MESSAGE_COMPONENTID, -EINVAL },
};

TEST(kernel_message_write_rules)
{
	struct etw_register_args a[2];
	struct etw_write_args w;
	struct ctl c;
	GUID g[2] = { msg_guid };
	size_t i;
	int fd;

	g[0].Data1 = (ULONG)getpid();
	g[0].Data2 = 0x77;
	g[1] = g[0];
	g[1].Data3++;
	fd = etw_open();
	ASSERT_LE(0, fd);
	/* A global session: no ASSERT until it is stopped again. */
	ASSERT_EQ(0, ctl_start(&c, "k", 0, 0));
	EXPECT_EQ(0, ctl_classic_and_manifest(&c, fd, g, a));
	for (i = 0; i < sizeof(raw_cases) / sizeof(raw_cases[0]); i++) {
		const struct raw_case *rc = &raw_cases[i];

		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.reg_id = a[rc->manifest].reg_id;
		w.flags = rc->flags;
		w.descriptor.task = rc->task;
		EXPECT_EQ(rc->want, etw_ioctl(fd, ETW_IOC_WRITE, &w)) {
			TH_LOG("%s", rc->what);
		}
	}
	ctl_stop(&c);
	close(fd);
}

/* --- what ProcessTrace delivers ------------------------------------------- */

struct seen_msg {
	int n;
	EVENT_HEADER h[3];
	USHORT len[3];
	char data[3][8];
	EVENT_TRACE classic;
	char mof[8];
};

static struct seen_msg seen;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	if (!(r->EventHeader.Flags & EVENT_HEADER_FLAG_TRACE_MESSAGE) ||
	    seen.n >= 3)
		return;
	seen.h[seen.n] = r->EventHeader;
	seen.len[seen.n] = r->UserDataLength;
	memcpy(seen.data[seen.n], r->UserData,
	       r->UserDataLength < 8 ? r->UserDataLength : 8);
	seen.n++;
}

static VOID WINAPI on_event(PEVENT_TRACE e)
{
	if (!IsEqualGUID(&e->Header.Guid, &msg_guid))
		return;
	seen.classic = *e;
	memcpy(seen.mof, e->MofData, e->MofLength < 8 ? e->MofLength : 8);
}

static PROCESSTRACE_HANDLE open_rt(struct ctl *c, bool record)
{
	struct etw_session_args q = { .size = sizeof(q), .logger_id = c->id };
	EVENT_TRACE_LOGFILEA lf;

	if (etw_ioctl(c->fd, ETW_IOC_QUERY, &q))
		return INVALID_PROCESSTRACE_HANDLE;
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = q.name;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
	if (record) {
		lf.ProcessTraceMode |= PROCESS_TRACE_MODE_EVENT_RECORD;
		lf.EventRecordCallback = on_record;
	} else {
		lf.EventCallback = on_event;
	}
	return OpenTraceA(&lf);
}

TEST_F(msg, process_trace_delivers_message_records)
{
	const ULONG all = TRACE_MESSAGE_GUID | TRACE_MESSAGE_TIMESTAMP |
			  TRACE_MESSAGE_SYSTEMINFO;
	PROCESSTRACE_HANDLE ph = open_rt(&self->c, true);

	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	ASSERT_EQ(0, TraceMessage(self->logger, all, &msg_guid, 10, "one",
				  (size_t)3, NULL, 0));
	/* No timestamp: it takes the record's before it. */
	ASSERT_EQ(0, TraceMessage(self->logger, TRACE_MESSAGE_GUID, &msg_guid,
				  11, "two", (size_t)3, NULL, 0));
	ASSERT_EQ(0, TraceMessage(self->logger, all, &msg_guid, 12, "three",
				  (size_t)5, NULL, 0));
	ctl_stop(&self->c);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	CloseTrace(ph);
	ASSERT_EQ(3, seen.n);
	EXPECT_EQ(EVENT_HEADER_FLAG_TRACE_MESSAGE |
		  EVENT_HEADER_FLAG_64_BIT_HEADER, seen.h[0].Flags);
	EXPECT_TRUE(IsEqualGUID(&msg_guid, &seen.h[0].ProviderId));
	EXPECT_EQ(10, seen.h[0].EventDescriptor.Id);
	EXPECT_EQ((ULONG)getpid(), seen.h[0].ProcessId);
	EXPECT_EQ((ULONG)gettid(), seen.h[0].ThreadId);
	EXPECT_EQ(3, seen.len[0]);
	EXPECT_EQ(0, memcmp(seen.data[0], "one", 3));
	EXPECT_EQ(11, seen.h[1].EventDescriptor.Id);
	EXPECT_EQ(0u, seen.h[1].ProcessId);
	EXPECT_EQ(seen.h[0].TimeStamp.QuadPart, seen.h[1].TimeStamp.QuadPart);
	EXPECT_EQ(12, seen.h[2].EventDescriptor.Id);
	EXPECT_LE(seen.h[1].TimeStamp.QuadPart, seen.h[2].TimeStamp.QuadPart);
	EXPECT_EQ(0, memcmp(seen.data[2], "three", 5));
}

TEST_F(msg, event_trace_consumers_get_header_fields)
{
	PROCESSTRACE_HANDLE ph = open_rt(&self->c, false);

	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	ASSERT_EQ(0, TraceMessage(self->logger, TRACE_MESSAGE_GUID |
				  TRACE_MESSAGE_SYSTEMINFO, &msg_guid, 3,
				  "zz", (size_t)2, NULL, 0));
	ctl_stop(&self->c);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	CloseTrace(ph);
	EXPECT_EQ((ULONG)getpid(), seen.classic.Header.ProcessId);
	EXPECT_EQ(2u, seen.classic.MofLength);
	EXPECT_EQ(0, memcmp(seen.mof, "zz", 2));
}

TEST_HARNESS_MAIN
