// SPDX-License-Identifier: GPL-2.0
/*
 * Promises of Documentation/libetw.rst that had no test, against the real
 * module (sessions are started and read through the raw ABI where libetw
 * is not what is tested):
 *
 * - EventWriteEx's EVENT_WRITE_FLAG_NO_FAULTING and _INPRIVATE change
 *   nothing: the event is written as without them (a payload in a page
 *   never touched is still faulted in, and a session that enabled with
 *   EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE still gets in-private events);
 *   other flags are ERROR_INVALID_PARAMETER;
 * - at most 1,024 OpenTrace handles are open at once: the 1,025th is
 *   ERROR_NO_SYSTEM_RESOURCES, and closing one makes room;
 * - an unprivileged QueryAllTraces lists only the caller's private
 *   sessions;
 * - UpdateTrace turns real-time delivery off and on: OpenTrace of the
 *   session as a real-time consumer then fails, then works again.
 */
#include <poll.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"
#include "evntcons.h"

#define LIBETW_TEST_TAG "libetw-promises"
#include "libetw_selftest.h"
#include "etw_child.h"

#define OPEN_MAX_HANDLES	1024	/* libetw.rst: "at most 1,024" */
#define NAME_OFF		sizeof(EVENT_TRACE_PROPERTIES)

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[2048];
};

static void props_init(struct props *b, ULONG mode)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.BufferSize = 4;
	b->p.LogFileMode = mode;
	b->p.LoggerNameOffset = NAME_OFF;
}

static const char *props_name(const struct props *b)
{
	return (const char *)b + b->p.LoggerNameOffset;
}

/* A GUID of this test process. */
static void test_guid(GUID *g, unsigned short n)
{
	static const GUID base = { 0, 0x9a0e, 0x4c6e,
				   { 0x9a, 0x17, 0x3e, 0x4f, 'p', 'r', 0, 0 } };

	*g = base;
	g->Data1 = (ULONG)getpid();
	g->Data2 = n;
}

/* --- EventWriteEx flags --------------------------------------------------- */

FIXTURE(wx) {
	struct ctl c;
	GUID guid;
	REGHANDLE h;
	unsigned char *untouched;	/* a page never read or written */
};

FIXTURE_SETUP(wx)
{
	test_guid(&self->guid, 1);
	ASSERT_EQ(0, ctl_start(&self->c, "wx", 0, 0));
	ASSERT_EQ(0, EventRegister(&self->guid, NULL, NULL, &self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE, 4,
				0, 0));
	self->untouched = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->untouched);
}

FIXTURE_TEARDOWN(wx)
{
	munmap(self->untouched, 4096);
	EventUnregister(self->h);
	ctl_stop(&self->c);
}

static const struct flags_case {
	const char *what;
	ULONG flags;
	ULONG want;
} flags_cases[] = {
	{ "no flag", 0, ERROR_SUCCESS },
	{ "NO_FAULTING", EVENT_WRITE_FLAG_NO_FAULTING, ERROR_SUCCESS },
	{ "INPRIVATE", EVENT_WRITE_FLAG_INPRIVATE, ERROR_SUCCESS },
	{ "both", EVENT_WRITE_FLAG_NO_FAULTING | EVENT_WRITE_FLAG_INPRIVATE,
	  ERROR_SUCCESS },
	{ "0x4", 0x4, ERROR_INVALID_PARAMETER },
	{ "bit 31", 0x80000000u, ERROR_INVALID_PARAMETER },
	{ "NO_FAULTING | 0x4", EVENT_WRITE_FLAG_NO_FAULTING | 0x4,
	  ERROR_INVALID_PARAMETER },
};

/*
 * Each flag set writes "abc" and 16 bytes of a page never touched (a
 * fault is needed to read it): accepted ones give the same record as no
 * flag, rejected ones no record.
 */
TEST_F(wx, write_ex_flags_change_nothing_others_are_invalid)
{
	static const unsigned char zeros[16];
	static struct rec r[REC_MAX];
	EVENT_DATA_DESCRIPTOR data[2];
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(flags_cases); i++) {
		const struct flags_case *t = &flags_cases[i];
		EVENT_DESCRIPTOR d = { .Id = 100 + i, .Level = 4,
				       .Keyword = 0x8 };
		const struct etw_event_header *h;

		EventDataDescCreate(&data[0], "abc", 3);
		EventDataDescCreate(&data[1], self->untouched + 1024 * (i % 4),
				    16);
		EXPECT_EQ(t->want, EventWriteEx(self->h, &d, 0, t->flags, NULL,
						NULL, 2, data)) {
			TH_LOG("%s", t->what);
		}
		n = ctl_collect(&self->c, &self->guid, r, REC_MAX);
		if (t->want != ERROR_SUCCESS) {
			EXPECT_EQ(0, n) {
				TH_LOG("%s", t->what);
			}
			continue;
		}
		ASSERT_EQ(1, n) {
			TH_LOG("%s", t->what);
		}
		h = rec_hdr(&r[0]);
		EXPECT_EQ(100 + i, h->descriptor.id);
		EXPECT_EQ(4, h->descriptor.level);
		EXPECT_EQ(0x8, h->descriptor.keyword);
		EXPECT_EQ(0, h->flags & ETW_EVENT_FLAG_EXTENDED_INFO);
		EXPECT_EQ(getpid(), h->process_id);
		ASSERT_EQ(sizeof(*h) + 19, h->size) {
			TH_LOG("%s", t->what);
		}
		EXPECT_EQ(0, memcmp(h + 1, "abc", 3));
		EXPECT_EQ(0, memcmp((const char *)(h + 1) + 3, zeros, 16));
	}
}

/*
 * EXCLUDE_INPRIVATE (ENABLE_TRACE_PARAMETERS: "filters out all events that
 * are ... marked as an InPrivate event"): the in-private event stays out,
 * the next one arrives.
 */
TEST_F(wx, inprivate_event_kept_out_of_session_excluding_inprivate)
{
	ENABLE_TRACE_PARAMETERS params = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE,
	};
	EVENT_DESCRIPTOR d = { .Id = 7, .Level = 4 };
	static struct rec r[REC_MAX];

	ASSERT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(self->c.id, &self->guid,
				 EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0, 0,
				 WAIT_MS, &params));
	ASSERT_EQ(ERROR_SUCCESS, EventWriteEx(self->h, &d, 0,
					      EVENT_WRITE_FLAG_INPRIVATE,
					      NULL, NULL, 0, NULL));
	d.Id = 8;
	ASSERT_EQ(ERROR_SUCCESS, EventWriteEx(self->h, &d, 0, 0, NULL, NULL, 0,
					      NULL));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(8, rec_hdr(&r[0])->descriptor.id);
}

/* --- OpenTrace's handle limit --------------------------------------------- */

static PROCESSTRACE_HANDLE open_rt(const char *name)
{
	EVENT_TRACE_LOGFILEA lf;

	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = (LPSTR)name;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME |
			      PROCESS_TRACE_MODE_EVENT_RECORD;
	return OpenTraceA(&lf);
}

FIXTURE(handles) {
	struct ctl c;
	char name[64];
	PROCESSTRACE_HANDLE h[OPEN_MAX_HANDLES];
	int n;
};

FIXTURE_SETUP(handles)
{
	/* Two descriptors per handle (consumer file, eventfd) and spares. */
	struct rlimit rl = { 4 * OPEN_MAX_HANDLES, 4 * OPEN_MAX_HANDLES };

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ASSERT_EQ(0, ctl_start(&self->c, "handles", 0, 0));
	snprintf(self->name, sizeof(self->name), LIBETW_TEST_TAG "-handles-%d",
		 getpid());
	self->n = 0;
}

FIXTURE_TEARDOWN(handles)
{
	int i;

	for (i = 0; i < self->n; i++)
		CloseTrace(self->h[i]);
	ctl_stop(&self->c);
}

/* Open 1,024 handles: all valid. */
static int open_all(FIXTURE_DATA(handles) *self)
{
	for (self->n = 0; self->n < OPEN_MAX_HANDLES; self->n++) {
		self->h[self->n] = open_rt(self->name);
		if (self->h[self->n] == INVALID_PROCESSTRACE_HANDLE)
			return (int)GetLastError();
	}
	return 0;
}

TEST_F_TIMEOUT(handles, opentrace_1025th_handle_is_no_system_resources, 120)
{
	ASSERT_EQ(0, open_all(self)) {
		TH_LOG("handle %d failed", self->n + 1);
	}
	SetLastError(0);
	EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, open_rt(self->name));
	EXPECT_EQ(ERROR_NO_SYSTEM_RESOURCES, GetLastError());
}

TEST_F_TIMEOUT(handles, opentrace_after_closing_one_of_1024_succeeds, 120)
{
	PROCESSTRACE_HANDLE h;

	ASSERT_EQ(0, open_all(self));
	ASSERT_EQ(ERROR_SUCCESS, CloseTrace(self->h[17]));
	self->h[17] = self->h[--self->n];
	h = open_rt(self->name);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	self->h[self->n++] = h;
}

/* --- QueryAllTraces without privilege ----------------------------------- */

/*
 * In a child as uid 1000: start a private session (PRIVATE_LOGGER, in
 * buffering mode: no file), then QueryAllTraces.  Codes: 1 start failed,
 * 2 QueryAllTraces failed, 3 wrong count, 4 wrong session.
 */
static int unpriv_query_all(void *arg)
{
	static struct props b[ETW_MAX_GLOBAL_SESSIONS];
	PEVENT_TRACE_PROPERTIES arr[ETW_MAX_GLOBAL_SESSIONS];
	CONTROLTRACE_ID id;
	struct props s;
	char name[64];
	ULONG n = 99, i;

	(void)arg;
	snprintf(name, sizeof(name), LIBETW_TEST_TAG "-own-%d", getpid());
	props_init(&s, EVENT_TRACE_PRIVATE_LOGGER_MODE |
		   EVENT_TRACE_BUFFERING_MODE);
	if (StartTraceA(&id, name, &s.p) != ERROR_SUCCESS)
		return 1;
	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		props_init(&b[i], 0);
		arr[i] = &b[i].p;
	}
	if (QueryAllTracesA(arr, ETW_MAX_GLOBAL_SESSIONS, &n) != ERROR_SUCCESS)
		return 2;
	if (n != 1)
		return 3;
	return !strcmp(props_name(&b[0]), name) &&
	       b[0].p.Wnode.HistoricalContext == id ? 0 : 4;
}

TEST(unprivileged_query_all_traces_lists_only_own_private_sessions)
{
	struct ctl global;
	int priv_fd;
	__u32 priv_id;

	/* Root's sessions, global and private, which the child must not see. */
	ASSERT_EQ(0, ctl_start(&global, "all-global", 0, 0));
	priv_fd = etw_open();
	ASSERT_LE(0, priv_fd);
	ASSERT_EQ(0, raw_start(priv_fd, LIBETW_TEST_TAG "-all-private",
			       ETW_MODE_PRIVATE, 4, 0, &priv_id));
	EXPECT_EQ(0, child_run(unpriv_query_all, NULL, 1));
	close(priv_fd);
	ctl_stop(&global);
}

/* --- UpdateTrace and real-time delivery ------------------------------------ */

FIXTURE(rt) {
	struct ctl c;
	char name[64];
	struct props b;
};

FIXTURE_SETUP(rt)
{
	/* ctl_start: REAL_TIME | NO_PER_PROCESSOR (so "off" is expressible). */
	ASSERT_EQ(0, ctl_start(&self->c, "rt", 0, 0));
	snprintf(self->name, sizeof(self->name), LIBETW_TEST_TAG "-rt-%d",
		 getpid());
}

FIXTURE_TEARDOWN(rt)
{
	ctl_stop(&self->c);
}

static ULONG update_mode(FIXTURE_DATA(rt) *self, ULONG mode)
{
	props_init(&self->b, mode);
	return UpdateTraceA(0, self->name, &self->b.p);
}

TEST_F(rt, update_real_time_off_refuses_real_time_consumer)
{
	ASSERT_EQ(ERROR_SUCCESS,
		  update_mode(self, EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING));
	EXPECT_EQ(0, self->b.p.LogFileMode & EVENT_TRACE_REAL_TIME_MODE);
	SetLastError(0);
	EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, open_rt(self->name));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, GetLastError());
}

TEST_F(rt, update_real_time_on_again_accepts_real_time_consumer)
{
	PROCESSTRACE_HANDLE h;

	ASSERT_EQ(ERROR_SUCCESS,
		  update_mode(self, EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING));
	ASSERT_EQ(ERROR_SUCCESS,
		  update_mode(self, EVENT_TRACE_REAL_TIME_MODE |
			      EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING));
	EXPECT_NE(0, self->b.p.LogFileMode & EVENT_TRACE_REAL_TIME_MODE);
	h = open_rt(self->name);
	EXPECT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	CloseTrace(h);
}

TEST_HARNESS_MAIN
