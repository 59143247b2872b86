// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's classic provider API (RegisterTraceGuids, the WMIDPREQUEST
 * callback, GetTraceLoggerHandle/EnableFlags/EnableLevel, TraceEvent,
 * CreateTraceInstanceId, TraceEventInstance) against the real module, with
 * sessions started and read through the raw ABI; the kernel's
 * ETW_WRITE_CLASSIC checks; and ProcessTrace's view of classic records.
 */
#include <pthread.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "wmistr.h"
#include "evntprov.h"
#include "evntrace.h"
#include "evntcons.h"

#define LIBETW_TEST_TAG "libetw-classic"
#include "libetw_selftest.h"

/* The payload of a classic record (EVENT_TRACE_HEADER, 48 bytes). */
static const unsigned char *classic_payload(const struct rec *r, __u32 *len)
{
	*len = r->len - sizeof(struct etw_classic_header);
	return r->b + sizeof(struct etw_classic_header);
}

static const struct etw_classic_header *classic_hdr(const struct rec *r)
{
	return (const void *)rec_hdr(r);
}

/* --- callback recorder ---------------------------------------------------- */

struct request {
	WMIDPREQUESTCODE code;
	ULONG size;
	TRACEHANDLE logger;
	ULONG flags;
	UCHAR level;
	DWORD level_error;	/* GetLastError() after GetTraceEnableLevel */
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
		SetLastError(ERROR_SUCCESS);
		r->level = GetTraceEnableLevel(r->logger);
		r->level_error = GetLastError();
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
	HANDLE cls;
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
	/* Each class has its own handle, which names its GUID. */
	EXPECT_NE(NULL, cls.RegHandle);
	EXPECT_NE((HANDLE)(uintptr_t)self->h, cls.RegHandle);
	self->cls = cls.RegHandle;
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

/*
 * Microsoft's page for GetTraceEnableLevel (learn.microsoft.com,
 * windows/desktop/ETW/gettraceenablelevel): the EnableLevel the controller
 * passed, and for 0 the last error left ERROR_SUCCESS, which is how a
 * caller tells "the controller set the enable level to 0" from a failure.
 */
TEST_F(classic, enable_level_is_the_level_the_session_passed)
{
	static const __u8 levels[] = { 0, 1, 5, 254, 255 };
	unsigned int i;

	for (i = 0; i < sizeof(levels); i++) {
		struct request *r = &self->log.r[i];

		ASSERT_EQ(0, ctl_enable(&self->c, &self->guid,
					ETW_CONTROL_ENABLE, levels[i], 1, 0));
		ASSERT_EQ(i + 1, requests(&self->log));
		EXPECT_EQ(WMI_ENABLE_EVENTS, r->code);
		EXPECT_EQ(levels[i], r->level);
		EXPECT_EQ(ERROR_SUCCESS, r->level_error);
	}
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
	const struct etw_classic_header *h;
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
	/* Recorded as Windows does: an EVENT_TRACE_HEADER of the class. */
	ASSERT_EQ(1, ctl_collect(&self->c, &class_guid, r, REC_MAX));
	h = classic_hdr(&r[0]);
	EXPECT_EQ(ETW_CLASSIC_HEADER_TYPE_64, h->header_type);
	EXPECT_EQ(sizeof(*h) + 6, h->size);
	EXPECT_EQ(3, h->level);
	EXPECT_EQ(12, h->type);
	EXPECT_EQ(2, h->version);
	EXPECT_EQ((__u32)getpid(), h->process_id);
	EXPECT_NE(0, h->timestamp);
	p = classic_payload(&r[0], &len);
	ASSERT_EQ(6, len);
	EXPECT_EQ(0, memcmp(p, "mofdat", 6));
}

TEST_F(classic, trace_event_guid_pointer)
{
	static const GUID other = { 0xc1a55000, 7, 8, { 9 } };
	struct mof_event ev = { .h = {
		.Size = sizeof(ev.h),
		.Flags = WNODE_FLAG_TRACED_GUID | WNODE_FLAG_USE_GUID_PTR } };
	static struct rec r[REC_MAX];
	TRACEHANDLE logger;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ev.h.GuidPtr = (ULONGLONG)(uintptr_t)&other;
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(1, ctl_collect(&self->c, &other, r, REC_MAX));
	EXPECT_EQ(sizeof(struct etw_classic_header), r[0].len);
	ev.h.GuidPtr = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceEvent(logger, &ev.h));
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
	ev.h.Guid = class_guid;
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(1, ctl_collect(&self->c, &class_guid, r, REC_MAX));
	p = classic_payload(&r[0], &len);
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
	ev.h.Guid = class_guid;
	ASSERT_EQ(0, TraceEvent(second, &ev.h));
	EXPECT_EQ(0, ctl_collect(&self->c, &class_guid, r, REC_MAX));
	EXPECT_EQ(1, ctl_collect(&other, &class_guid, r, REC_MAX));
	ctl_stop(&other);
}

/* --- event instances ------------------------------------------------------ */

struct inst_event {
	EVENT_INSTANCE_HEADER h;
	char data[4];
};

/* The instance fields that follow the classic header in the record. */
struct inst_fields {
	__u32 id;
	__u32 parent_id;
	GUID parent_guid;
};

TEST_F(classic, instance_ids_count_up_per_class)
{
	EVENT_INSTANCE_INFO a, b;

	ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &a));
	ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &b));
	EXPECT_EQ(self->cls, a.RegHandle);
	EXPECT_NE(0, a.InstanceId);
	EXPECT_EQ(a.InstanceId + 1, b.InstanceId);
}

TEST_F(classic, instance_id_errors)
{
	EVENT_INSTANCE_INFO a;
	int bogus;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, CreateTraceInstanceId(NULL, &a));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  CreateTraceInstanceId(self->cls, NULL));
	EXPECT_EQ(ERROR_INVALID_HANDLE, CreateTraceInstanceId(&bogus, &a));
	ASSERT_EQ(0, UnregisterTraceGuids(self->h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, CreateTraceInstanceId(self->cls, &a));
}

TEST_F(classic, trace_event_instance_record)
{
	struct inst_event ev = { .h = { .Size = sizeof(ev.h) + 4,
					.Flags = WNODE_FLAG_TRACED_GUID } };
	static struct rec r[REC_MAX];
	const struct etw_classic_header *h;
	EVENT_INSTANCE_INFO me, parent;
	struct inst_fields f;
	TRACEHANDLE logger;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &parent));
	ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &me));
	ev.h.Class.Type = EVENT_TRACE_TYPE_START;
	ev.h.Class.Level = 2;
	memcpy(ev.data, "inst", 4);
	ASSERT_EQ(0, TraceEventInstance(logger, &ev.h, &me, &parent));
	ASSERT_EQ(0, TraceEventInstance(logger, &ev.h, &me, NULL));
	ASSERT_EQ(2, ctl_collect(&self->c, &class_guid, r, REC_MAX));
	h = classic_hdr(&r[0]);
	EXPECT_EQ(ETW_INSTANCE_HEADER_TYPE_64, h->header_type);
	EXPECT_EQ(sizeof(*h) + sizeof(f) + 4, h->size);
	EXPECT_EQ(EVENT_TRACE_TYPE_START, h->type);
	EXPECT_EQ(2, h->level);
	memcpy(&f, r[0].b + sizeof(*h), sizeof(f));
	EXPECT_EQ(me.InstanceId, f.id);
	EXPECT_EQ(parent.InstanceId, f.parent_id);
	EXPECT_EQ(0, memcmp(&class_guid, &f.parent_guid, sizeof(GUID)));
	EXPECT_EQ(0, memcmp(r[0].b + sizeof(*h) + sizeof(f), "inst", 4));
	/* Without a parent: ParentInstanceId 0, ParentGuid zero. */
	memcpy(&f, r[1].b + sizeof(*h), sizeof(f));
	EXPECT_EQ(me.InstanceId, f.id);
	EXPECT_EQ(0, f.parent_id);
	EXPECT_EQ(0, f.parent_guid.Data1);
}

struct inst_case {
	const char *what;
	bool zero_handle;	/* TraceHandle 0 */
	bool reg_handle;	/* the registration handle, not the logger's */
	bool no_header;
	bool no_info;
	bool null_class;	/* InstInfo.RegHandle NULL */
	bool bogus_class;
	bool parent_null_class;
	ULONG flags;
	USHORT size;		/* 0: the right size */
	ULONG want;
};

static const struct inst_case inst_cases[] = {
	{ "TraceHandle 0", .zero_handle = true,
	  .flags = WNODE_FLAG_TRACED_GUID, .want = ERROR_INVALID_PARAMETER },
	{ "registration handle", .reg_handle = true,
	  .flags = WNODE_FLAG_TRACED_GUID, .want = ERROR_INVALID_HANDLE },
	{ "NULL header", .no_header = true, .want = ERROR_INVALID_PARAMETER },
	{ "NULL InstInfo", .no_info = true, .flags = WNODE_FLAG_TRACED_GUID,
	  .want = ERROR_INVALID_PARAMETER },
	{ "NULL RegHandle", .null_class = true,
	  .flags = WNODE_FLAG_TRACED_GUID, .want = ERROR_INVALID_PARAMETER },
	{ "parent with NULL RegHandle", .parent_null_class = true,
	  .flags = WNODE_FLAG_TRACED_GUID, .want = ERROR_INVALID_PARAMETER },
	{ "RegHandle of no class", .bogus_class = true,
	  .flags = WNODE_FLAG_TRACED_GUID, .want = ERROR_INVALID_HANDLE },
	{ "no WNODE_FLAG_TRACED_GUID", .want = ERROR_INVALID_FLAGS },
	{ "Size below the header", .flags = WNODE_FLAG_TRACED_GUID,
	  .size = sizeof(EVENT_INSTANCE_HEADER) - 1,
	  .want = ERROR_INVALID_PARAMETER },
	{ "MOF array not whole fields",
	  .flags = WNODE_FLAG_TRACED_GUID | WNODE_FLAG_USE_MOF_PTR,
	  .size = sizeof(EVENT_INSTANCE_HEADER) + 4,
	  .want = ERROR_INVALID_PARAMETER },
};

TEST_F(classic, trace_event_instance_errors)
{
	EVENT_INSTANCE_INFO info, parent;
	struct inst_event ev;
	TRACEHANDLE logger;
	int bogus;
	size_t i;

	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	for (i = 0; i < sizeof(inst_cases) / sizeof(inst_cases[0]); i++) {
		const struct inst_case *c = &inst_cases[i];

		memset(&ev, 0, sizeof(ev));
		ev.h.Size = c->size ? c->size : sizeof(ev);
		ev.h.Flags = c->flags;
		ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &info));
		parent = info;
		if (c->null_class)
			info.RegHandle = NULL;
		if (c->bogus_class)
			info.RegHandle = &bogus;
		if (c->parent_null_class)
			parent.RegHandle = NULL;
		EXPECT_EQ(c->want, TraceEventInstance(
				c->zero_handle ? 0 :
				c->reg_handle ? self->h : logger,
				c->no_header ? NULL : &ev.h,
				c->no_info ? NULL : &info,
				c->parent_null_class ? &parent : NULL)) {
			TH_LOG("%s", c->what);
		}
	}
}

/* --- the kernel's ETW_WRITE_CLASSIC rules -------------------------------- */

struct raw_case {
	const char *what;
	bool manifest;		/* an EventRegister-style registration */
	__u32 flags;
	__u32 payload;
	int want;
};

static const struct raw_case raw_cases[] = {
	{ "classic on a classic registration", false, ETW_WRITE_CLASSIC, 0,
	  0 },
	{ "classic on a manifest registration", true, ETW_WRITE_CLASSIC, 0,
	  -EINVAL },
	{ "classic with a related activity", false,
	  ETW_WRITE_CLASSIC | ETW_WRITE_RELATED_ACTIVITY, 0, -EINVAL },
	{ "classic with descriptor types", false,
	  ETW_WRITE_CLASSIC | ETW_WRITE_DESC_TYPES, 0, -EINVAL },
	{ "classic as a string", false,
	  ETW_WRITE_CLASSIC | ETW_WRITE_STRING_ONLY, 0, -EINVAL },
	{ "instance without classic", false, ETW_WRITE_INSTANCE, 24,
	  -EINVAL },
	{ "instance with 23 bytes", false,
	  ETW_WRITE_CLASSIC | ETW_WRITE_INSTANCE, 23, -EINVAL },
	{ "instance with 24 bytes", false,
	  ETW_WRITE_CLASSIC | ETW_WRITE_INSTANCE, 24, 0 },
	{ "unknown flag", false, 0x100, 0, -EINVAL },
};

static int raw_classic_write(int fd, __u32 reg, __u32 flags, __u32 len)
{
	static unsigned char payload[32];
	struct etw_data_descriptor d = { .ptr = (uintptr_t)payload,
					 .size = len };
	struct etw_write_args w;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.reg_id = reg;
	w.flags = flags;
	w.data_count = len ? 1 : 0;
	w.data_ptr = (uintptr_t)&d;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

TEST(kernel_classic_write_rules)
{
	struct etw_register_args a[2];
	struct ctl c;
	GUID g[2];
	size_t i;
	int fd;

	unique_guid(&g[0], 9);
	g[1] = g[0];
	g[1].Data2++;
	fd = etw_open();
	ASSERT_LE(0, fd);
	/* A global session: no ASSERT until it is stopped again. */
	ASSERT_EQ(0, ctl_start(&c, "k", 0, 0));
	EXPECT_EQ(0, ctl_classic_and_manifest(&c, fd, g, a));
	for (i = 0; i < sizeof(raw_cases) / sizeof(raw_cases[0]); i++) {
		const struct raw_case *rc = &raw_cases[i];

		EXPECT_EQ(rc->want, raw_classic_write(fd,
				a[rc->manifest].reg_id, rc->flags,
				rc->payload)) {
			TH_LOG("%s", rc->what);
		}
	}
	ctl_stop(&c);
	close(fd);
}

/* --- what ProcessTrace delivers ------------------------------------------ */

struct delivered {
	int n;
	EVENT_HEADER h[2];
	USHORT ext_count[2];
	EVENT_HEADER_EXTENDED_DATA_ITEM ext[2];
	EVENT_EXTENDED_ITEM_INSTANCE inst;
};

static struct delivered seen;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	if (!IsEqualGUID(&r->EventHeader.ProviderId, &class_guid) ||
	    seen.n >= 2)
		return;
	seen.h[seen.n] = r->EventHeader;
	seen.ext_count[seen.n] = r->ExtendedDataCount;
	if (r->ExtendedDataCount) {
		seen.ext[seen.n] = r->ExtendedData[0];
		memcpy(&seen.inst,
		       (void *)(uintptr_t)r->ExtendedData[0].DataPtr,
		       sizeof(seen.inst));
	}
	seen.n++;
}

TEST_F(classic, process_trace_sees_class_guid_and_instance)
{
	struct mof_event ev = { .h = { .Size = sizeof(ev.h) } };
	struct inst_event iev = { .h = { .Size = sizeof(iev.h),
					 .Flags = WNODE_FLAG_TRACED_GUID } };
	struct etw_session_args q = { .size = sizeof(q) };
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE ph;
	EVENT_INSTANCE_INFO me;
	TRACEHANDLE logger;

	q.logger_id = self->c.id;
	ASSERT_EQ(0, etw_ioctl(self->c.fd, ETW_IOC_QUERY, &q));
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = q.name;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME |
			      PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	ph = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	logger = enable_logger(&self->c, &self->guid, &self->log, 4, 1);
	ASSERT_NE(0, logger);
	ev.h.Guid = class_guid;
	ev.h.Class.Type = 11;
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(0, CreateTraceInstanceId(self->cls, &me));
	ASSERT_EQ(0, TraceEventInstance(logger, &iev.h, &me, NULL));
	ctl_stop(&self->c);
	memset(&seen, 0, sizeof(seen));
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	CloseTrace(ph);
	ASSERT_EQ(2, seen.n);
	EXPECT_EQ(EVENT_HEADER_FLAG_CLASSIC_HEADER |
		  EVENT_HEADER_FLAG_64_BIT_HEADER, seen.h[0].Flags);
	EXPECT_EQ(11, seen.h[0].EventDescriptor.Opcode);
	EXPECT_EQ(0, seen.ext_count[0]);
	EXPECT_EQ(EVENT_HEADER_FLAG_CLASSIC_HEADER |
		  EVENT_HEADER_FLAG_64_BIT_HEADER |
		  EVENT_HEADER_FLAG_EXTENDED_INFO, seen.h[1].Flags);
	ASSERT_EQ(1, seen.ext_count[1]);
	EXPECT_EQ(EVENT_HEADER_EXT_TYPE_INSTANCE_INFO, seen.ext[1].ExtType);
	EXPECT_EQ(sizeof(EVENT_EXTENDED_ITEM_INSTANCE), seen.ext[1].DataSize);
	EXPECT_EQ(me.InstanceId, seen.inst.InstanceId);
	EXPECT_EQ(0, seen.inst.ParentInstanceId);
}

TEST_HARNESS_MAIN
