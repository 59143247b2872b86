// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's controller API over /dev/etw: StartTrace, ControlTrace and its
 * wrappers, QueryAllTraces, EnableTraceEx2 (filters, timeouts, limits),
 * EnableTrace(Ex), TraceSetInformation and TraceQueryInformation, with
 * Windows' error codes.  Providers are driven through the raw ABI.
 */
#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define PROPS_SIZE	(sizeof(EVENT_TRACE_PROPERTIES) + 2048)
#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 1024)

static const GUID prov = { 0x5e1f7e57, 0x0c71, 0x4c0b,
	{ 0x9a, 0x11, 0xc0, 0x47, 0x20, 0x11, 0x00, 0x01 } };

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[2048];
};

static void props_init(struct props *b, ULONG mode)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.Wnode.ClientContext = 1;
	b->p.BufferSize = 4;
	b->p.LogFileMode = mode;
	b->p.LoggerNameOffset = NAME_OFF;
}

static ULONG start_rt(const char *name, CONTROLTRACE_ID *h)
{
	struct props b;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	return StartTraceA(h, name, &b.p);
}

static ULONG stop_name(const char *name)
{
	struct props b;

	props_init(&b, 0);
	return StopTraceA(0, name, &b.p);
}

/* A raw provider: its own /dev/etw file and one registration. */
struct raw_prov {
	int fd;
	__u32 reg;
};

static int prov_register(struct raw_prov *r)
{
	struct etw_register_args a = { .size = sizeof(a) };

	memcpy(&a.guid, &prov, sizeof(prov));
	r->fd = etw_open();
	if (r->fd < 0)
		return -errno;
	if (etw_ioctl(r->fd, ETW_IOC_REGISTER, &a))
		return -errno;
	r->reg = a.reg_id;
	return 0;
}

static int prov_write(struct raw_prov *r, __u16 id)
{
	struct etw_write_args w;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.reg_id = r->reg;
	w.descriptor.id = id;
	w.descriptor.level = 4;
	return etw_ioctl(r->fd, ETW_IOC_WRITE, &w);
}

static int open_consumer(__u32 id)
{
	struct etw_consume_args c = { .size = sizeof(c), .logger_id = id,
				      .flags = O_NONBLOCK | O_CLOEXEC };
	int fd = etw_open();

	return fd < 0 ? fd : ioctl(fd, ETW_IOC_CONSUME, &c);
}

/* Events of @prov per id (ids < 16) and per pid in what @cfd holds. */
struct tally {
	int ids[16];
	int total;
	__u32 pids[64];
};

static void tally_buffers(int cfd, struct tally *t)
{
	static unsigned char buf[4096];
	__u32 off;

	memset(t, 0, sizeof(*t));
	while (read(cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;

		for (off = ETW_BUFFER_HEADER_SIZE;
		     off + sizeof(struct etw_event_header) <= bh->offset;) {
			const struct etw_event_header *h = (void *)(buf + off);

			if (!memcmp(&h->provider_id, &prov, sizeof(prov))) {
				if (t->total < 64)
					t->pids[t->total] = h->process_id;
				t->total++;
				t->ids[h->descriptor.id & 15]++;
			}
			off += (h->size + 7) & ~7u;
		}
	}
}

FIXTURE(ctl) {
	CONTROLTRACE_ID h;
};

FIXTURE_SETUP(ctl)
{
	stop_name("libetw-ctl");
	ASSERT_EQ(ERROR_SUCCESS, start_rt("libetw-ctl", &self->h));
}

FIXTURE_TEARDOWN(ctl)
{
	stop_name("libetw-ctl");
}

TEST_F(ctl, start_writes_handle_and_name)
{
	struct props b;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&self->h, "libetw-ctl2", &b.p));
	EXPECT_NE(0, self->h);
	EXPECT_EQ(self->h, b.p.Wnode.HistoricalContext);
	EXPECT_STREQ("libetw-ctl2", (char *)&b + b.p.LoggerNameOffset);
	EXPECT_EQ(4u, b.p.BufferSize);
	EXPECT_LE(2u, b.p.MinimumBuffers);
	EXPECT_EQ(1u, b.p.FlushTimer);	/* real-time default: 1 s */
	EXPECT_EQ(ERROR_SUCCESS, stop_name("libetw-ctl2"));
}

TEST_F(ctl, start_wide)
{
	static const WCHAR name[] = u"libetw-wide";
	struct props b;
	CONTROLTRACE_ID h;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceW(&h, name, &b.p));
	EXPECT_EQ(0, memcmp((char *)&b + b.p.LoggerNameOffset, name,
			    sizeof(name)));
	props_init(&b, 0);
	EXPECT_EQ(ERROR_SUCCESS, StopTraceW(0, name, &b.p));
}

TEST_F(ctl, same_name_is_already_exists)
{
	CONTROLTRACE_ID h;

	EXPECT_EQ(ERROR_ALREADY_EXISTS, start_rt("LIBETW-Ctl", &h));
}

TEST_F(ctl, query_by_handle)
{
	struct props b;

	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, QueryTraceA(self->h, NULL, &b.p));
	EXPECT_STREQ("libetw-ctl", (char *)&b + b.p.LoggerNameOffset);
	EXPECT_EQ(self->h, b.p.Wnode.HistoricalContext);
	EXPECT_EQ(EVENT_TRACE_REAL_TIME_MODE, b.p.LogFileMode);
	EXPECT_EQ(b.p.NumberOfBuffers, b.p.FreeBuffers);
	EXPECT_EQ(0u, b.p.EventsLost);
}

TEST_F(ctl, name_wins_over_handle)
{
	struct props b;

	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, ControlTraceA(63, "libetw-ctl", &b.p,
					       EVENT_TRACE_CONTROL_QUERY));
	EXPECT_EQ(self->h, b.p.Wnode.HistoricalContext);
}

TEST_F(ctl, update_flush_timer)
{
	struct props b;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	b.p.FlushTimer = 5;
	ASSERT_EQ(ERROR_SUCCESS, UpdateTraceA(self->h, NULL, &b.p));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, QueryTraceA(self->h, NULL, &b.p));
	EXPECT_EQ(5u, b.p.FlushTimer);
}

/* The session's MaximumBuffers, or 0 when the query fails. */
static ULONG max_buffers_of(CONTROLTRACE_ID h)
{
	struct props b;

	props_init(&b, 0);
	return QueryTraceA(h, NULL, &b.p) ? 0 : b.p.MaximumBuffers;
}

static ULONG update_max_buffers(CONTROLTRACE_ID h, ULONG max)
{
	struct props b;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	b.p.MaximumBuffers = max;
	return UpdateTraceA(h, NULL, &b.p);
}

TEST_F(ctl, update_raises_maximum_buffers)
{
	ULONG max = max_buffers_of(self->h);
	struct props b;

	ASSERT_NE(0u, max);
	ASSERT_EQ(ERROR_SUCCESS, update_max_buffers(self->h, max + 4));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, QueryTraceA(self->h, NULL, &b.p));
	EXPECT_EQ(max + 4, b.p.MaximumBuffers);
	EXPECT_EQ(max + 4, b.p.NumberOfBuffers);
}

TEST_F(ctl, update_cannot_lower_maximum_buffers)
{
	ULONG max = max_buffers_of(self->h);

	ASSERT_NE(0u, max);
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  update_max_buffers(self->h, max - 1));
	EXPECT_EQ(max, max_buffers_of(self->h));
}

TEST_F(ctl, flush_seals_buffer)
{
	struct raw_prov r;
	struct props b;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						NULL));
	ASSERT_EQ(0, prov_write(&r, 1));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, FlushTraceA(self->h, NULL, &b.p));
	EXPECT_EQ(1u, b.p.BuffersWritten);
	close(r.fd);
}

TEST_F(ctl, too_small_is_more_data_but_stops)
{
	EVENT_TRACE_PROPERTIES p;
	struct props b;

	memset(&p, 0, sizeof(p));
	p.Wnode.BufferSize = sizeof(p);
	EXPECT_EQ(ERROR_MORE_DATA, QueryTraceA(self->h, NULL, &p));
	EXPECT_EQ(ERROR_MORE_DATA, StopTraceA(self->h, NULL, &p));
	props_init(&b, 0);
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND,
		  QueryTraceA(0, "libetw-ctl", &b.p));
}

TEST(control_missing_session)
{
	struct props b;

	props_init(&b, 0);
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND,
		  QueryTraceA(0, "libetw-none", &b.p));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND,
		  StopTraceA(0, "libetw-none", &b.p));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, QueryTraceA(63, NULL, &b.p));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, QueryTraceA(0, NULL, &b.p));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, QueryTraceA(1, NULL, NULL));
	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  ControlTraceA(1, NULL, &b.p,
				EVENT_TRACE_CONTROL_INCREMENT_FILE));
}

struct start_case {
	const char *what;
	ULONG expect;
	ULONG mode;
	ULONG buffer_size;
	ULONG name_off;
	ULONG file_off;
	bool kernel_guid;
};

/* Windows 11's StartTrace errors (reference §10), through the device. */
TEST(start_errors)
{
	static const struct start_case cases[] = {
		{ "BufferSize 0", ERROR_BAD_LENGTH, EVENT_TRACE_REAL_TIME_MODE,
		  0, NAME_OFF, 0, false },
		{ "no room for name", ERROR_BAD_LENGTH,
		  EVENT_TRACE_REAL_TIME_MODE, NAME_OFF + 4, NAME_OFF, 0,
		  false },
		{ "LoggerNameOffset 1", ERROR_INVALID_PARAMETER,
		  EVENT_TRACE_REAL_TIME_MODE, PROPS_SIZE, 1, 0, false },
		{ "LogFileNameOffset 1", ERROR_INVALID_PARAMETER,
		  EVENT_TRACE_REAL_TIME_MODE, PROPS_SIZE, NAME_OFF, 1, false },
		{ "SEQUENTIAL|CIRCULAR", ERROR_INVALID_PARAMETER,
		  EVENT_TRACE_FILE_MODE_SEQUENTIAL |
		  EVENT_TRACE_FILE_MODE_CIRCULAR, PROPS_SIZE, NAME_OFF,
		  FILE_OFF, false },
		{ "SystemTraceControlGuid", ERROR_INVALID_PARAMETER,
		  EVENT_TRACE_REAL_TIME_MODE, PROPS_SIZE, NAME_OFF, 0, true },
		{ "no file, no real time", ERROR_BAD_PATHNAME, 0, PROPS_SIZE,
		  NAME_OFF, 0, false },
	};
	static const GUID sys = { 0x9e814aad, 0x3204, 0x11d2,
		{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };
	CONTROLTRACE_ID h;
	struct props b;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		props_init(&b, cases[i].mode);
		b.p.Wnode.BufferSize = cases[i].buffer_size;
		b.p.LoggerNameOffset = cases[i].name_off;
		b.p.LogFileNameOffset = cases[i].file_off;
		b.p.MaximumFileSize = 1;
		strcpy((char *)&b + FILE_OFF, "/tmp/libetw-err.etl");
		if (cases[i].kernel_guid)
			b.p.Wnode.Guid = sys;
		EXPECT_EQ(cases[i].expect,
			  StartTraceA(&h, "libetw-err", &b.p))
			TH_LOG("%s", cases[i].what);
	}
	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	EXPECT_EQ(ERROR_INVALID_PARAMETER, StartTraceA(&h, "x", NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, StartTraceA(NULL, "x", &b.p));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, stop_name("libetw-err"));
}

TEST(start_without_privilege_is_access_denied)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		CONTROLTRACE_ID h;

		if (setgid(1000) || setuid(1000))
			_exit(100);
		_exit(start_rt("libetw-unpriv", &h) == ERROR_ACCESS_DENIED ?
		      0 : 1);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

/* Global sessions that exist now (the test process has no private one). */
static int global_sessions(void)
{
	struct etw_list_args a = { .size = sizeof(a) };
	int fd = etw_open(), ret;

	if (fd < 0)
		return -errno;
	ret = etw_ioctl(fd, ETW_IOC_LIST_SESSIONS, &a);
	close(fd);
	return ret ?: (int)a.count;
}

/* Sessions started up to the limit of 64; the next one is refused. */
TEST(sixty_fifth_session_is_no_system_resources)
{
	int i, existing, started = 0;
	char name[32];
	CONTROLTRACE_ID h;
	ULONG err = 0;

	existing = global_sessions();
	ASSERT_LE(0, existing);
	ASSERT_GT(64, existing);
	for (i = existing; i < 64 && !err; i++) {
		snprintf(name, sizeof(name), "libetw-many-%d", i);
		err = start_rt(name, &h);
		started += !err;
	}
	EXPECT_EQ(ERROR_SUCCESS, err);
	EXPECT_EQ(64 - existing, started);
	EXPECT_EQ(64, global_sessions());
	if (!err) {
		err = start_rt("libetw-many-65", &h);
		EXPECT_EQ(ERROR_NO_SYSTEM_RESOURCES, err);
		if (!err)
			stop_name("libetw-many-65");
	}
	for (i = existing; i < existing + started; i++) {
		snprintf(name, sizeof(name), "libetw-many-%d", i);
		EXPECT_EQ(ERROR_SUCCESS, stop_name(name));
	}
}

TEST(query_all_traces)
{
	static struct props b[64];
	PEVENT_TRACE_PROPERTIES arr[64];
	CONTROLTRACE_ID h;
	ULONG n = 99, i, found = 0;
	char name[32];

	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "libetw-all-%u", i);
		ASSERT_EQ(ERROR_SUCCESS, start_rt(name, &h));
	}
	for (i = 0; i < 64; i++) {
		props_init(&b[i], 0);
		arr[i] = &b[i].p;
	}
	EXPECT_EQ(ERROR_INVALID_PARAMETER, QueryAllTracesA(arr, 0, &n));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, QueryAllTracesA(arr, 65, &n));
	ASSERT_EQ(ERROR_SUCCESS, QueryAllTracesA(arr, 64, &n));
	EXPECT_LE(3u, n);
	for (i = 0; i < n; i++)
		found += !strncmp((char *)&b[i] + b[i].p.LoggerNameOffset,
				  "libetw-all-", 11);
	EXPECT_EQ(3u, found);
	n = 99;
	EXPECT_EQ(ERROR_MORE_DATA, QueryAllTracesA(arr, 1, &n));
	EXPECT_EQ(1u, n);
	EXPECT_NE(0, b[0].p.Wnode.HistoricalContext);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "libetw-all-%u", i);
		EXPECT_EQ(ERROR_SUCCESS, stop_name(name));
	}
}

TEST(max_loggers_query)
{
	ULONG v = 0, len = 0;

	EXPECT_EQ(ERROR_SUCCESS, TraceQueryInformation(0, TraceMaxLoggersQuery,
						       &v, sizeof(v), &len));
	EXPECT_EQ(64u, v);
	EXPECT_EQ(sizeof(ULONG), len);
	EXPECT_EQ(ERROR_BAD_LENGTH, TraceQueryInformation(
			0, TraceMaxLoggersQuery, &v, 2, &len));
}

TEST_F(ctl, enable_argument_errors)
{
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->h, NULL, 1, 0, 0, 0, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(0, &prov, 1, 0, 0, 0, 0, NULL));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND,
		  EnableTraceEx2(63, &prov, 1, 0, 0, 0, 0, NULL));
}

struct filter_case {
	const char *what;
	ULONG expect;
	ULONG count;
	ULONG types[14];
	ULONG pid_bytes;
};

TEST_F(ctl, enable_filter_errors)
{
	static const struct filter_case cases[] = {
		{ "package id", ERROR_NOT_SUPPORTED, 1,
		  { EVENT_FILTER_TYPE_PACKAGE_ID }, 0 },
		{ "payload shorter than its header", ERROR_INVALID_PARAMETER, 1,
		  { EVENT_FILTER_TYPE_PAYLOAD }, 0 },
		{ "pid twice", ERROR_INVALID_PARAMETER, 2,
		  { EVENT_FILTER_TYPE_PID, EVENT_FILTER_TYPE_PID }, 0 },
		{ "14 filters", ERROR_INVALID_PARAMETER, 14,
		  { EVENT_FILTER_TYPE_PID }, 0 },
		{ "9 pids", ERROR_INVALID_PARAMETER, 1,
		  { EVENT_FILTER_TYPE_PID }, 9 * 4 },
		{ "8 pids", ERROR_SUCCESS, 1,
		  { EVENT_FILTER_TYPE_PID }, 8 * 4 },
	};
	ULONG pids[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	EVENT_FILTER_DESCRIPTOR d[14];
	ENABLE_TRACE_PARAMETERS p;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(d, 0, sizeof(d));
		for (j = 0; j < cases[i].count; j++) {
			d[j].Type = cases[i].types[j] ? cases[i].types[j] :
				    EVENT_FILTER_TYPE_SCHEMATIZED + 1 + j;
			d[j].Ptr = (uintptr_t)pids;
			d[j].Size = cases[i].pid_bytes ? cases[i].pid_bytes : 4;
		}
		memset(&p, 0, sizeof(p));
		p.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
		p.EnableFilterDesc = d;
		p.FilterDescCount = cases[i].count;
		EXPECT_EQ(cases[i].expect,
			  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0, &p))
			TH_LOG("%s", cases[i].what);
	}
}

TEST_F(ctl, event_id_filter)
{
	struct {
		EVENT_FILTER_EVENT_ID f;
		USHORT more;
	} ids = { .f = { .FilterIn = TRUE, .Count = 2, .Events = { 5 } },
		  .more = 7 };
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)&ids, .Size = sizeof(ids),
		.Type = EVENT_FILTER_TYPE_EVENT_ID,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = &d, .FilterDescCount = 1,
	};
	struct raw_prov r;
	struct tally t;
	struct props b;
	int cfd, id;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						&p));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	for (id = 4; id <= 8; id++)
		ASSERT_EQ(0, prov_write(&r, id));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(2, t.total);
	EXPECT_EQ(1, t.ids[5]);
	EXPECT_EQ(1, t.ids[7]);
	close(cfd);
	close(r.fd);
}

/* Only the child's registration is routed: the PID filter names it. */
TEST_F(ctl, pid_filter)
{
	ULONG pid;
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)&pid, .Size = sizeof(pid),
		.Type = EVENT_FILTER_TYPE_PID,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = &d, .FilterDescCount = 1,
	};
	int go[2], done[2], cfd;
	struct raw_prov r;
	struct tally t;
	struct props b;
	pid_t child;
	char c = 0;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		if (prov_register(&r) || write(done[1], &c, 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(prov_write(&r, 3) ? 2 : 0);
	}
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(0, prov_register(&r));
	pid = child;
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						&p));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, prov_write(&r, 2));
	ASSERT_EQ(1, write(go[1], &c, 1));
	EXPECT_EQ(0, etw_wait_child(child));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[3]);
	EXPECT_EQ((__u32)child, t.pids[0]);
	close(cfd);
	close(r.fd);
}

/* A NUL-terminated WCHAR copy of ASCII @s; Return: its bytes, NUL included. */
static ULONG wide_list(WCHAR *w, const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		w[i] = (unsigned char)s[i];
	w[i] = 0;
	return (i + 1) * sizeof(WCHAR);
}

static ULONG enable_exe(CONTROLTRACE_ID h, const WCHAR *w, ULONG size)
{
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)w, .Size = size,
		.Type = EVENT_FILTER_TYPE_EXECUTABLE_NAME,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = &d, .FilterDescCount = 1,
	};

	return EnableTraceEx2(h, &prov, 1, 0, 0, 0, 0, &p);
}

/* The file name of this program's executable, as the kernel matches it. */
static const char *own_exe_name(void)
{
	static char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *slash;

	path[n > 0 ? n : 0] = '\0';
	slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/*
 * EXECUTABLE_NAME's data is one NUL-terminated WCHAR string, at most
 * MAX_EVENT_FILTER_DATA_SIZE bytes ("EVENT_FILTER_DESCRIPTOR", filter size
 * limits); anything else is a bad parameter (EnableTraceEx2's
 * ERROR_INVALID_PARAMETER).
 */
TEST_F(ctl, exe_filter_errors)
{
	static const struct {
		const char *what;
		const char *list;
		bool null_ptr;
		int size_delta;		/* added to the string's bytes */
		ULONG expect;
	} cases[] = {
		{ "NULL pointer", "app", true, 0, ERROR_INVALID_PARAMETER },
		{ "odd size", "app", false, -1, ERROR_INVALID_PARAMETER },
		{ "no NUL within Size", "app", false, -2,
		  ERROR_INVALID_PARAMETER },
		{ "empty string", "", false, 0, ERROR_INVALID_PARAMETER },
		{ "only separators", ";;", false, 0, ERROR_INVALID_PARAMETER },
		{ "one name", "app", false, 0, ERROR_SUCCESS },
		{ "names and empty items", ";a;;b;", false, 0, ERROR_SUCCESS },
	};
	const WCHAR *ptr;
	WCHAR w[16];
	ULONG size;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size = wide_list(w, cases[i].list) + cases[i].size_delta;
		ptr = w;
		if (cases[i].null_ptr)
			ptr = NULL;
		EXPECT_EQ(cases[i].expect, enable_exe(self->h, ptr, size))
			TH_LOG("%s", cases[i].what);
	}
}

/* 1024 bytes with the NUL are taken, 1026 are not. */
TEST_F(ctl, exe_filter_size_limit)
{
	WCHAR w[513];
	int i;

	for (i = 0; i < 512; i++)
		w[i] = i % 10 == 9 ? ';' : 'a';
	w[511] = 0;
	EXPECT_EQ(ERROR_SUCCESS, enable_exe(self->h, w, 1024));
	w[511] = 'a';
	w[512] = 0;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, enable_exe(self->h, w, 1026));
}

/* Listed by name, in another case: this program's events arrive. */
TEST_F(ctl, exe_filter_lets_listed_program_in)
{
	char name[256], list[300];
	struct raw_prov r;
	struct tally t;
	struct props b;
	WCHAR w[300];
	int cfd;
	size_t i;

	snprintf(name, sizeof(name), "%.255s", own_exe_name());
	for (i = 0; name[i]; i++)
		name[i] = toupper((unsigned char)name[i]);
	snprintf(list, sizeof(list), "other.exe;%s", name);
	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, enable_exe(self->h, w, wide_list(w, list)));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, prov_write(&r, 2));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[2]);
	close(cfd);
	close(r.fd);
}

/* Not listed: neither the registration made before nor one made after. */
TEST_F(ctl, exe_filter_keeps_other_programs_out)
{
	struct raw_prov before, after;
	struct tally t;
	struct props b;
	WCHAR w[32];
	int cfd;

	ASSERT_EQ(0, prov_register(&before));
	ASSERT_EQ(ERROR_SUCCESS,
		  enable_exe(self->h, w, wide_list(w, "other.exe")));
	ASSERT_EQ(0, prov_register(&after));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, prov_write(&before, 2));
	ASSERT_EQ(0, prov_write(&after, 3));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(0, t.total);
	close(cfd);
	close(before.fd);
	close(after.fd);
}

#define EXE_TWIN	"/tmp/EtwExeTwin"
#define EXE_TWIN_ENV	"ETW_EXE_TWIN"

/*
 * Run as EXE_TWIN (a copy of this program, EXE_TWIN_ENV set): register,
 * write event 9 and exit before the harness starts.
 */
__attribute__((constructor)) static void exe_twin(void)
{
	struct raw_prov r;

	if (!getenv(EXE_TWIN_ENV))
		return;
	_exit(prov_register(&r) ? 1 : prov_write(&r, 9) ? 2 : 0);
}

static int copy_self(const char *to)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			ret = -1;
	if (n < 0)
		ret = -1;
	close(in);
	return close(out) ? -1 : ret;
}

/* Another program, named in the list: only its event arrives. */
TEST_F(ctl, exe_filter_matches_the_registering_program)
{
	char *const argv[] = { EXE_TWIN, NULL };
	char *const envp[] = { EXE_TWIN_ENV "=1", NULL };
	struct raw_prov r;
	struct tally t;
	struct props b;
	WCHAR w[32];
	pid_t child;
	int cfd;

	ASSERT_EQ(0, copy_self(EXE_TWIN));
	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS,
		  enable_exe(self->h, w, wide_list(w, "etwexetwin")));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		execve(EXE_TWIN, argv, envp);
		_exit(127);
	}
	EXPECT_EQ(0, etw_wait_child(child));
	ASSERT_EQ(0, prov_write(&r, 2));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[9]);
	EXPECT_EQ((__u32)child, t.pids[0]);
	close(cfd);
	close(r.fd);
	unlink(EXE_TWIN);
}

/*
 * A provider process that registers, says so on @ready, then either
 * acknowledges every notification or never reads them.
 */
static pid_t provider_process(int ready, bool acks)
{
	unsigned char buf[4096];
	struct etw_notification *n = (void *)buf;
	struct raw_prov r;
	pid_t pid = fork();
	char c = 0;

	if (pid)
		return pid;
	if (prov_register(&r) || write(ready, &c, 1) != 1)
		_exit(1);
	for (;;) {
		if (!acks) {
			pause();
			continue;
		}
		if (read(r.fd, buf, sizeof(buf)) <= 0)
			_exit(2);
		struct etw_ack_args ack = { .size = sizeof(ack),
					    .seq = n->seq };

		etw_ioctl(r.fd, ETW_IOC_ACK, &ack);
	}
}

static ULONG enable_with_provider(CONTROLTRACE_ID h, bool acks,
				  ULONG timeout)
{
	int ready[2], status;
	ULONG err;
	pid_t pid;
	char c;

	if (pipe(ready))
		return ~0u;
	pid = provider_process(ready[1], acks);
	if (read(ready[0], &c, 1) != 1)
		return ~0u;
	err = EnableTraceEx2(h, &prov, 1, 0, 0, 0, timeout, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	close(ready[0]);
	close(ready[1]);
	return err;
}

TEST_F(ctl, timeout_answered_by_provider)
{
	EXPECT_EQ(ERROR_SUCCESS, enable_with_provider(self->h, true, 5000));
}

TEST_F(ctl, timeout_provider_never_reads)
{
	EXPECT_EQ(ERROR_TIMEOUT, enable_with_provider(self->h, false, 300));
}

TEST_F(ctl, ninth_session_on_provider)
{
	CONTROLTRACE_ID h[8];
	char name[32];
	int i;

	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						NULL));
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "libetw-nine-%d", i);
		ASSERT_EQ(ERROR_SUCCESS, start_rt(name, &h[i]));
	}
	for (i = 0; i < 7; i++)
		EXPECT_EQ(ERROR_SUCCESS,
			  EnableTraceEx2(h[i], &prov, 1, 0, 0, 0, 0, NULL));
	EXPECT_EQ(ERROR_NO_SYSTEM_RESOURCES,
		  EnableTraceEx2(h[7], &prov, 1, 0, 0, 0, 0, NULL));
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "libetw-nine-%d", i);
		EXPECT_EQ(ERROR_SUCCESS, stop_name(name));
	}
}

static int provider_state(struct etw_provider_info *out)
{
	struct etw_provider_info info[64];
	struct etw_list_providers_args a = {
		.size = sizeof(a), .count = 64, .info_ptr = (uintptr_t)info,
		.info_size = sizeof(info[0]),
	};
	int fd = etw_open();
	__u32 i;

	if (fd < 0 || etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &a))
		return -1;
	close(fd);
	for (i = 0; i < a.count && i < 64; i++) {
		if (!memcmp(&info[i].guid, &prov, sizeof(prov))) {
			*out = info[i];
			return 0;
		}
	}
	return -1;
}

TEST_F(ctl, enable_trace_classic_flags_are_match_any)
{
	struct etw_provider_info info;
	struct raw_prov r;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTrace(TRUE, 0x3, 4, &prov, self->h));
	ASSERT_EQ(0, provider_state(&info));
	EXPECT_EQ(1u, info.enabled);
	EXPECT_EQ(4, info.level);
	EXPECT_EQ(0x3u, info.match_any);
	ASSERT_EQ(ERROR_SUCCESS, EnableTrace(FALSE, 0, 0, &prov, self->h));
	ASSERT_EQ(0, provider_state(&info));
	EXPECT_EQ(0u, info.enabled);
	close(r.fd);
}

TEST_F(ctl, enable_trace_ex)
{
	struct etw_provider_info info;
	struct raw_prov r;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx(&prov, NULL, self->h, 1, 2,
					       0x10, 0, 0, NULL));
	ASSERT_EQ(0, provider_state(&info));
	EXPECT_EQ(2, info.level);
	EXPECT_EQ(0x10u, info.match_any);
	close(r.fd);
}

TEST_F(ctl, disallow_list_arguments)
{
	static GUID many[65];
	GUID list[2] = { prov, prov };

	list[1].Data1++;
	EXPECT_EQ(ERROR_SUCCESS, TraceSetInformation(self->h,
			TraceSetDisallowList, list, sizeof(list)));
	EXPECT_EQ(ERROR_SUCCESS, TraceSetInformation(self->h,
			TraceSetDisallowList, NULL, 0));
	EXPECT_EQ(ERROR_BAD_LENGTH, TraceSetInformation(self->h,
			TraceSetDisallowList, list, 5));
	EXPECT_EQ(ERROR_NOT_SUPPORTED, TraceSetInformation(self->h,
			TraceSystemTraceEnableFlagsInfo, list, sizeof(list)));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceSetInformation(self->h,
			TraceSetDisallowList, many, sizeof(many)));
}

/* A raw provider registered as @guid in provider group @group. */
static int raw_register_member(struct raw_prov *r, const GUID *guid,
			       const GUID *group)
{
	__u8 blob[2 + 2 + 3 + sizeof(GUID)] = { sizeof(blob), 0, 'm', 0,
						3 + sizeof(GUID), 0, 1 };
	struct etw_register_args a = { .size = sizeof(a) };
	struct etw_traits_args t = { .size = sizeof(t),
				     .traits_ptr = (uintptr_t)blob,
				     .traits_len = sizeof(blob) };

	memcpy(blob + 7, group, sizeof(*group));
	memcpy(&a.guid, guid, sizeof(*guid));
	r->fd = etw_open();
	if (r->fd < 0)
		return -errno;
	if (etw_ioctl(r->fd, ETW_IOC_REGISTER, &a))
		return -errno;
	r->reg = a.reg_id;
	t.reg_id = r->reg;
	return etw_ioctl(r->fd, ETW_IOC_SET_TRAITS, &t);
}

/* Read what @cfd holds; @n[i]: the events of provider @g[i] (i < 2). */
static void count_two(int cfd, const GUID *g, int *n)
{
	static unsigned char buf[4096];
	__u32 off;
	int i;

	n[0] = n[1] = 0;
	while (read(cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;

		for (off = ETW_BUFFER_HEADER_SIZE;
		     off + sizeof(struct etw_event_header) <= bh->offset;) {
			const struct etw_event_header *h = (void *)(buf + off);

			for (i = 0; i < 2; i++)
				n[i] += !memcmp(&h->provider_id, &g[i],
						sizeof(GUID));
			off += (h->size + 7) & ~7u;
		}
	}
}

/*
 * A group enable after TraceSetDisallowList: the listed member's events
 * stay out of the session while the other member's arrive.
 */
TEST_F(ctl, disallow_list_keeps_member_out_of_group_enable)
{
	static const GUID group = { 0x5e1f7e57, 0x0c71, 0x4c0b,
		{ 0x9a, 0x11, 0xc0, 0x47, 0x20, 0x11, 0x00, 0x0f } };
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_PROVIDER_GROUP,
	};
	GUID g[2] = { prov, prov };
	struct raw_prov r[2];
	struct props b;
	int cfd, n[2];

	g[1].Data1++;
	ASSERT_EQ(0, raw_register_member(&r[0], &g[0], &group));
	ASSERT_EQ(0, raw_register_member(&r[1], &g[1], &group));
	ASSERT_EQ(ERROR_SUCCESS, TraceSetInformation(self->h,
			TraceSetDisallowList, &g[0], sizeof(GUID)));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &group,
			EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0, 0, 0, &p));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	EXPECT_EQ(0, prov_write(&r[0], 1));
	EXPECT_EQ(0, prov_write(&r[1], 2));
	EXPECT_EQ(0, prov_write(&r[1], 3));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	count_two(cfd, g, n);
	EXPECT_EQ(0, n[0]);
	EXPECT_EQ(2, n[1]);
	close(cfd);
	close(r[0].fd);
	close(r[1].fd);
}

static int raw_write_keyword(struct raw_prov *r, __u16 id, __u64 keyword)
{
	struct etw_write_args w;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.reg_id = r->reg;
	w.descriptor.id = id;
	w.descriptor.keyword = keyword;
	return etw_ioctl(r->fd, ETW_IOC_WRITE, &w);
}

TEST_F(ctl, ignore_keyword_0_reaches_kernel)
{
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 |
				  EVENT_ENABLE_PROPERTY_SID,
	};
	struct raw_prov r;
	struct tally t;
	struct props b;
	int cfd;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						&p));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_write_keyword(&r, 1, 0));
	ASSERT_EQ(0, raw_write_keyword(&r, 2, 0x4));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[2]);
	close(cfd);
	close(r.fd);
}

/*
 * EXCLUDE_INPRIVATE (ENABLE_TRACE_PARAMETERS) with a libetw provider:
 * EventWriteEx's EVENT_WRITE_FLAG_INPRIVATE keeps the event out, an
 * ordinary write reaches the session.
 */
TEST_F(ctl, exclude_inprivate_drops_inprivate_writes)
{
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE,
	};
	EVENT_DESCRIPTOR d1 = { .Id = 1, .Level = 4 };
	EVENT_DESCRIPTOR d2 = { .Id = 2, .Level = 4 };
	REGHANDLE rh;
	struct tally t;
	struct props b;
	int cfd;

	ASSERT_EQ(ERROR_SUCCESS, EventRegister(&prov, NULL, NULL, &rh));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						&p));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(ERROR_SUCCESS, EventWriteEx(rh, &d1, 0,
					      EVENT_WRITE_FLAG_INPRIVATE,
					      NULL, NULL, 0, NULL));
	ASSERT_EQ(ERROR_SUCCESS, EventWriteEx(rh, &d2, 0, 0, NULL, NULL, 0,
					      NULL));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[2]);
	close(cfd);
	EventUnregister(rh);
}

TEST_F(ctl, undefined_enable_property_is_invalid)
{
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = 0x1000,
	};

	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0, &p));
	p.EnableProperty = 0;
	p.Version = 3;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0, &p));
}

/* A V1 block carries one filter and no count. */
TEST_F(ctl, v1_parameters_single_filter)
{
	ULONG pid = 1;
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)&pid, .Size = sizeof(pid),
		.Type = EVENT_FILTER_TYPE_PACKAGE_ID,
	};
	ENABLE_TRACE_PARAMETERS_V1 p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION,
		.EnableFilterDesc = &d,
	};

	EXPECT_EQ(ERROR_NOT_SUPPORTED,
		  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
				 (PENABLE_TRACE_PARAMETERS)&p));
	d.Type = EVENT_FILTER_TYPE_PID;
	EXPECT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
				 (PENABLE_TRACE_PARAMETERS)&p));
}

/* Schematized filter data and SourceId reach the provider. */
TEST_F(ctl, schematized_filter_reaches_provider)
{
	struct {
		EVENT_FILTER_HEADER h;
		char data[8];
	} f = { .h = { .Id = 9, .Size = sizeof(f) }, .data = "filter" };
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)&f, .Size = sizeof(f),
		.Type = EVENT_FILTER_TYPE_SCHEMATIZED,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.SourceId = { 0x50c }, .EnableFilterDesc = &d,
		.FilterDescCount = 1,
	};
	unsigned char buf[4096];
	struct etw_notification *n = (void *)buf;
	const EVENT_FILTER_HEADER *got = (const void *)(n + 1);
	struct raw_prov r;

	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						&p));
	ASSERT_LT(0, read(r.fd, buf, sizeof(buf)));
	EXPECT_EQ(ETW_CONTROL_ENABLE, n->control_code);
	EXPECT_EQ(0x50cu, n->source_id.data1);
	EXPECT_EQ(1u, n->filter_count);
	EXPECT_EQ(sizeof(f), n->filter_size);
	EXPECT_EQ(9, got->Id);
	EXPECT_EQ(0, memcmp(got + 1, "filter", 7));
	close(r.fd);
}

TEST_F(ctl, schematized_filter_too_big)
{
	static char big[MAX_EVENT_FILTER_DATA_SIZE + 1];
	EVENT_FILTER_DESCRIPTOR d = {
		.Ptr = (uintptr_t)big, .Size = sizeof(big),
		.Type = EVENT_FILTER_TYPE_SCHEMATIZED,
	};
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = &d, .FilterDescCount = 1,
	};

	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0, &p));
}

/* What a libetw provider's callback saw; it writes id 9 on capture. */
struct capture_log {
	REGHANDLE h;
	int enables;
	int captures;
	ULONG write_error;
};

static void NTAPI capture_cb(LPCGUID source, ULONG code, UCHAR level,
			     ULONGLONG any, ULONGLONG all,
			     PEVENT_FILTER_DESCRIPTOR filter, PVOID ctx)
{
	static const EVENT_DESCRIPTOR rundown = { .Id = 9, .Level = 4 };
	struct capture_log *l = ctx;

	if (code == EVENT_CONTROL_CODE_ENABLE_PROVIDER)
		l->enables++;
	if (code != EVENT_CONTROL_CODE_CAPTURE_STATE)
		return;
	l->captures++;
	l->write_error = EventWrite(l->h, &rundown, 0, NULL);
}

/*
 * CAPTURE_STATE runs the provider's callback with that code (the call
 * waits for it), and what the callback logs reaches the session.
 */
TEST_F(ctl, capture_state_runs_callback)
{
	static struct capture_log l;
	struct tally t;
	struct props b;
	int cfd;

	ASSERT_EQ(ERROR_SUCCESS, EventRegister(&prov, capture_cb, &l, &l.h));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov,
			EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0, 0, 5000,
			NULL));
	cfd = open_consumer(self->h);
	ASSERT_LE(0, cfd);
	EXPECT_EQ(1, l.enables);
	EXPECT_EQ(0, l.captures);
	EXPECT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov,
			EVENT_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0, 5000, NULL));
	EXPECT_EQ(1, l.captures);
	EXPECT_EQ(ERROR_SUCCESS, l.write_error);
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(self->h, NULL, &b.p));
	tally_buffers(cfd, &t);
	EXPECT_EQ(1, t.total);
	EXPECT_EQ(1, t.ids[9]);
	close(cfd);
	EventUnregister(l.h);
}

TEST_F(ctl, unknown_control_code_is_invalid_parameter)
{
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EnableTraceEx2(self->h, &prov, 3, 0, 0, 0, 0, NULL));
}

/* A log file session outlives the process that started it. */
TEST(file_session_outlives_starter)
{
	static const char path[] = "/tmp/libetw-ctl.etl";
	int cfd_events;
	struct raw_prov r;
	struct props b;
	struct stat st;
	pid_t pid;

	unlink(path);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CONTROLTRACE_ID h;

		props_init(&b, EVENT_TRACE_FILE_MODE_SEQUENTIAL);
		b.p.LogFileNameOffset = FILE_OFF;
		strcpy((char *)&b + FILE_OFF, path);
		_exit(StartTraceA(&h, "libetw-file", &b.p) ? 1 : 0);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, QueryTraceA(0, "libetw-file", &b.p));
	EXPECT_STREQ(path, (char *)&b + b.p.LogFileNameOffset);
	EXPECT_EQ(EVENT_TRACE_FILE_MODE_SEQUENTIAL,
		  b.p.LogFileMode & EVENT_TRACE_FILE_MODE_SEQUENTIAL);
	EXPECT_NE(NULL, b.p.LoggerThreadId);
	ASSERT_EQ(0, prov_register(&r));
	ASSERT_EQ(ERROR_SUCCESS,
		  EnableTraceEx2(b.p.Wnode.HistoricalContext, &prov, 1, 0, 0,
				 0, 0, NULL));
	for (cfd_events = 0; cfd_events < 10; cfd_events++)
		ASSERT_EQ(0, prov_write(&r, 1));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, StopTraceA(0, "libetw-file", &b.p));
	/* Complete on return: header buffer and one data buffer. */
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(2 * 4096, st.st_size);
	close(r.fd);
}

TEST(file_session_bad_path)
{
	CONTROLTRACE_ID h;
	struct props b;

	props_init(&b, 0);
	b.p.LogFileNameOffset = FILE_OFF;
	strcpy((char *)&b + FILE_OFF, "/nonexistent-dir/x.etl");
	EXPECT_EQ(ERROR_PATH_NOT_FOUND,
		  StartTraceA(&h, "libetw-badpath", &b.p));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, stop_name("libetw-badpath"));
}

TEST_HARNESS_MAIN
