// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's consumer API over /dev/etw: a real-time consumer receiving the
 * events a forked child writes, CloseTrace from a callback and from
 * another thread, BufferCallback cancelling, OpenTrace errors (a
 * control_gid member opening root's session among them), and
 * ProcessTrace over a file written by a StartTrace session that outlived
 * the process which started it.  Providers use the raw ABI.
 */
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 1024)
#define SESSION		"libetw-cons"
#define EVENTS		10

static const GUID prov = { 0x5e1f7e57, 0x0c71, 0x4c0b,
	{ 0x9a, 0x11, 0xc0, 0x47, 0x20, 0x11, 0x00, 0x02 } };
static const GUID event_trace_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };

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

static ULONG stop_name(const char *name)
{
	struct props b;

	props_init(&b, 0);
	return StopTraceA(0, name, &b.p);
}

/*
 * A forked provider: registers, writes ids 1..@n with "payload", exits.
 * @flags: ETW_WRITE_* (a related activity id is 0x4e1a7ed); @cpus: when
 * non-zero, event i is written on CPU i % @cpus.
 */
static pid_t writer_child_ex(int n, __u32 flags, int cpus)
{
	struct etw_register_args reg = { .size = sizeof(reg) };
	struct etw_data_descriptor d = { .size = 8 };
	struct etw_write_args w;
	pid_t pid = fork();
	int fd, i;

	if (pid)
		return pid;
	memcpy(&reg.guid, &prov, sizeof(prov));
	fd = etw_open();
	if (fd < 0 || etw_ioctl(fd, ETW_IOC_REGISTER, &reg))
		_exit(1);
	d.ptr = (uintptr_t)"payload";
	for (i = 1; i <= n; i++) {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.reg_id = reg.reg_id;
		w.descriptor.id = i;
		w.descriptor.level = 4;
		w.data_count = 1;
		w.data_ptr = (uintptr_t)&d;
		w.flags = flags;
		w.related_activity_id.data1 = 0x4e1a7ed;
		if (cpus) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(i % cpus, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(3);
		}
		if (etw_ioctl(fd, ETW_IOC_WRITE, &w))
			_exit(2);
	}
	_exit(0);
}

static pid_t writer_child(int n)
{
	return writer_child_ex(n, 0, 0);
}

struct seen {
	int events;
	int header_events;
	int ours;
	int buffers;
	bool in_order;
	USHORT last_id;
	LONGLONG last_ts;
	EVENT_RECORD first;
	EVENT_HEADER_EXTENDED_DATA_ITEM first_ext;
	GUID related;
	int cpu_mask;
	char payload[8];
	PROCESSTRACE_HANDLE handle;
	int close_at;
	ULONG close_result;
	bool stop_buffers;
};

static struct seen seen;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	seen.events++;
	if (IsEqualGUID(&r->EventHeader.ProviderId, &event_trace_guid)) {
		if (seen.events == 1)
			seen.header_events++;
		return;
	}
	if (!IsEqualGUID(&r->EventHeader.ProviderId, &prov))
		return;
	if (!seen.ours++) {
		seen.first = *r;
		memcpy(seen.payload, r->UserData, sizeof(seen.payload));
		if (r->ExtendedDataCount) {
			seen.first_ext = r->ExtendedData[0];
			memcpy(&seen.related,
			       (void *)(uintptr_t)r->ExtendedData[0].DataPtr,
			       sizeof(GUID));
		}
	}
	seen.cpu_mask |= 1 << (GetEventProcessorIndex(r) & 31);
	if (r->EventHeader.EventDescriptor.Id != seen.last_id + 1 ||
	    r->EventHeader.TimeStamp.QuadPart < seen.last_ts)
		seen.in_order = false;
	seen.last_id = r->EventHeader.EventDescriptor.Id;
	seen.last_ts = r->EventHeader.TimeStamp.QuadPart;
	if (seen.close_at && seen.ours == seen.close_at)
		seen.close_result = CloseTrace(seen.handle);
}

static ULONG WINAPI on_buffer(PEVENT_TRACE_LOGFILEA lf)
{
	seen.buffers++;
	return !seen.stop_buffers;
}

static PROCESSTRACE_HANDLE open_rt(EVENT_TRACE_LOGFILEA *lf)
{
	memset(lf, 0, sizeof(*lf));
	lf->LoggerName = (LPSTR)SESSION;
	lf->ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME |
			       PROCESS_TRACE_MODE_EVENT_RECORD;
	lf->EventRecordCallback = on_record;
	lf->BufferCallback = on_buffer;
	return OpenTraceA(lf);
}

/* FILETIME now, from the realtime clock. */
static LONGLONG filetime_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (LONGLONG)ts.tv_sec * 10000000 + ts.tv_nsec / 100 +
	       116444736000000000ll;
}

/* A writer child, and how it ended (etw_wait_child()). */
struct reap {
	pid_t pid;
	int status;
};

/* Reaps the writer, then stops the session: ProcessTrace returns. */
static void *stopper(void *arg)
{
	struct reap *r = arg;

	r->status = etw_wait_child(r->pid);
	stop_name(SESSION);
	return NULL;
}

static void *closer(void *arg)
{
	usleep(200 * 1000);
	seen.close_result = CloseTrace(*(PROCESSTRACE_HANDLE *)arg);
	return NULL;
}

FIXTURE(rt) {
	CONTROLTRACE_ID h;
};

FIXTURE_SETUP(rt)
{
	struct props b;

	memset(&seen, 0, sizeof(seen));
	seen.in_order = true;
	stop_name(SESSION);
	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&self->h, SESSION, &b.p));
	ASSERT_EQ(ERROR_SUCCESS, EnableTraceEx2(self->h, &prov, 1, 0, 0, 0, 0,
						NULL));
}

FIXTURE_TEARDOWN(rt)
{
	stop_name(SESSION);
}

TEST_F(rt, receives_child_events)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	LONGLONG before = filetime_now(), after;
	pthread_t t;
	struct reap r;

	h = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	EXPECT_EQ(4096u, lf.BufferSize);
	r.pid = writer_child(EVENTS);
	ASSERT_LT(0, r.pid);
	ASSERT_EQ(0, pthread_create(&t, NULL, stopper, &r));
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.status);
	after = filetime_now();
	EXPECT_EQ(EVENTS, seen.ours);
	/* No header event in real time. */
	EXPECT_EQ(EVENTS, seen.events);
	EXPECT_TRUE(seen.in_order);
	EXPECT_LE(1, seen.buffers);
	EXPECT_EQ((ULONG)r.pid, seen.first.EventHeader.ProcessId);
	EXPECT_EQ(self->h, seen.first.BufferContext.LoggerId);
	EXPECT_EQ(EVENT_HEADER_FLAG_64_BIT_HEADER,
		  seen.first.EventHeader.Flags);
	EXPECT_EQ(8, seen.first.UserDataLength);
	EXPECT_EQ(0, memcmp(seen.payload, "payload", 8));
	/* FILETIME, converted with the boot offset. */
	EXPECT_LE(before - 10000000, seen.first.EventHeader.TimeStamp.QuadPart);
	EXPECT_GE(after + 10000000, seen.first.EventHeader.TimeStamp.QuadPart);
	EXPECT_EQ(ERROR_SUCCESS, CloseTrace(h));
}

TEST_F(rt, extended_data_in_consumer_form)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	pthread_t t;
	struct reap r;

	h = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	r.pid = writer_child_ex(1, ETW_WRITE_RELATED_ACTIVITY, 0);
	ASSERT_LT(0, r.pid);
	ASSERT_EQ(0, pthread_create(&t, NULL, stopper, &r));
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.status);
	ASSERT_EQ(1, seen.ours);
	EXPECT_EQ(EVENT_HEADER_FLAG_EXTENDED_INFO |
		  EVENT_HEADER_FLAG_64_BIT_HEADER,
		  seen.first.EventHeader.Flags);
	EXPECT_EQ(1, seen.first.ExtendedDataCount);
	EXPECT_EQ(EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID,
		  seen.first_ext.ExtType);
	EXPECT_EQ(sizeof(GUID), seen.first_ext.DataSize);
	EXPECT_EQ(0, (int)seen.first_ext.Linkage);
	EXPECT_EQ(0x4e1a7edu, seen.related.Data1);
	EXPECT_EQ(8, seen.first.UserDataLength);
	EXPECT_EQ(0, memcmp(seen.payload, "payload", 8));
	CloseTrace(h);
}

/* Events alternate between two CPUs' buffers; delivery is by time. */
TEST_F(rt, events_of_two_cpus_in_order)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	struct props b;
	pthread_t t;
	struct reap r;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	/* Only STOP seals buffers: both CPUs' buffers arrive together. */
	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	b.p.FlushTimer = 600;
	ASSERT_EQ(ERROR_SUCCESS, UpdateTraceA(self->h, NULL, &b.p));
	h = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	r.pid = writer_child_ex(EVENTS, 0, 2);
	ASSERT_LT(0, r.pid);
	ASSERT_EQ(0, pthread_create(&t, NULL, stopper, &r));
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(EVENTS, seen.ours);
	EXPECT_EQ(3, seen.cpu_mask);
	EXPECT_TRUE(seen.in_order);
	EXPECT_EQ(2, seen.buffers);
	CloseTrace(h);
}

TEST_F(rt, raw_timestamps_are_monotonic_ns)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	struct timespec now;
	pthread_t t;
	struct reap r;

	h = open_rt(&lf);
	lf.ProcessTraceMode |= PROCESS_TRACE_MODE_RAW_TIMESTAMP;
	CloseTrace(h);
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	r.pid = writer_child(1);
	ASSERT_LT(0, r.pid);
	ASSERT_EQ(0, pthread_create(&t, NULL, stopper, &r));
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.status);
	clock_gettime(CLOCK_MONOTONIC, &now);
	ASSERT_EQ(1, seen.ours);
	EXPECT_GE((LONGLONG)now.tv_sec * 1000000000 + now.tv_nsec,
		  seen.first.EventHeader.TimeStamp.QuadPart);
	EXPECT_LT((LONGLONG)(now.tv_sec - 60) * 1000000000,
		  seen.first.EventHeader.TimeStamp.QuadPart);
	CloseTrace(h);
}

/* Readers divide by CpuSpeedInMHz: a real-time header has one too. */
TEST_F(rt, header_cpu_speed_is_not_zero)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;

	h = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	EXPECT_NE(0u, lf.LogfileHeader.CpuSpeedInMHz);
	CloseTrace(h);
}

TEST_F(rt, close_from_callback)
{
	EVENT_TRACE_LOGFILEA lf;
	pid_t pid;

	seen.handle = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, seen.handle);
	seen.close_at = 1;
	pid = writer_child(EVENTS);
	ASSERT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(ERROR_SUCCESS,
		  ProcessTrace(&seen.handle, 1, NULL, NULL));
	EXPECT_EQ(ERROR_CTX_CLOSE_PENDING, seen.close_result);
	EXPECT_LE(1, seen.ours);
	EXPECT_EQ(ERROR_INVALID_HANDLE, CloseTrace(seen.handle));
}

/* ProcessTrace blocks with nothing to read until another thread closes. */
TEST_F(rt, close_from_other_thread)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	pthread_t t;

	h = open_rt(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	ASSERT_EQ(0, pthread_create(&t, NULL, closer, &h));
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	pthread_join(t, NULL);
	EXPECT_EQ(ERROR_CTX_CLOSE_PENDING, seen.close_result);
	EXPECT_EQ(0, seen.events);
}

TEST_F(rt, buffer_callback_false_cancels)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	struct props b;
	pid_t pid;

	h = open_rt(&lf);
	seen.stop_buffers = true;
	pid = writer_child(EVENTS);
	ASSERT_EQ(0, etw_wait_child(pid));
	props_init(&b, 0);
	ASSERT_EQ(ERROR_SUCCESS, FlushTraceA(self->h, NULL, &b.p));
	EXPECT_EQ(ERROR_CANCELLED, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(1, seen.buffers);
	CloseTrace(h);
}

TEST_F(rt, second_realtime_handle_is_invalid_parameter)
{
	EVENT_TRACE_LOGFILEA lf[2];
	PROCESSTRACE_HANDLE h[2];

	h[0] = open_rt(&lf[0]);
	h[1] = open_rt(&lf[1]);
	EXPECT_EQ(ERROR_INVALID_PARAMETER, ProcessTrace(h, 2, NULL, NULL));
	CloseTrace(h[0]);
	CloseTrace(h[1]);
}

TEST(open_missing_session)
{
	EVENT_TRACE_LOGFILEA lf;

	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = (LPSTR)"libetw-nothing";
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
	SetLastError(0);
	EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, OpenTraceA(&lf));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, GetLastError());
}

TEST(open_buffering_session_is_not_realtime)
{
	EVENT_TRACE_LOGFILEA lf;
	CONTROLTRACE_ID h;
	struct props b;

	props_init(&b, EVENT_TRACE_BUFFERING_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&h, "libetw-ring", &b.p));
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = (LPSTR)"libetw-ring";
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
	SetLastError(0);
	EXPECT_EQ(INVALID_PROCESSTRACE_HANDLE, OpenTraceA(&lf));
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, GetLastError());
	EXPECT_EQ(ERROR_SUCCESS, stop_name("libetw-ring"));
}

TEST(open_without_privilege_is_access_denied)
{
	EVENT_TRACE_LOGFILEA lf;
	CONTROLTRACE_ID h;
	struct props b;
	pid_t pid;

	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&h, "libetw-priv", &b.p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgid(1000) || setuid(1000))
			_exit(100);
		memset(&lf, 0, sizeof(lf));
		lf.LoggerName = (LPSTR)"libetw-priv";
		lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
		_exit(OpenTraceA(&lf) == INVALID_PROCESSTRACE_HANDLE &&
		      GetLastError() == ERROR_ACCESS_DENIED ? 0 : 1);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(ERROR_SUCCESS, stop_name("libetw-priv"));
}

#define CONTROL_GID	"/sys/module/etw/parameters/control_gid"
#define CONTROL_GROUP	1001	/* the VM's group "etwctl" */

static int write_control_gid(const char *v)
{
	int fd = open(CONTROL_GID, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

/*
 * As uid 1000 in control_gid: OpenTrace of @name, started first by this
 * child when @start.  0 when OpenTrace's result is @want, else which
 * step failed.
 */
static int open_as_member(const char *name, bool start, ULONG want)
{
	gid_t g = CONTROL_GROUP;
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE t;
	CONTROLTRACE_ID h;
	struct props b;

	if (setgroups(1, &g) || setgid(1000) || setuid(1000))
		return 100;
	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	if (start && StartTraceA(&h, name, &b.p) != ERROR_SUCCESS)
		return 101;
	memset(&lf, 0, sizeof(lf));
	lf.LoggerName = (LPSTR)name;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME;
	t = OpenTraceA(&lf);
	if (want != ERROR_SUCCESS)
		return t == INVALID_PROCESSTRACE_HANDLE &&
		       GetLastError() == want ? 0 : 102;
	if (t == INVALID_PROCESSTRACE_HANDLE)
		return 103;
	return CloseTrace(t) == ERROR_SUCCESS ? 0 : 104;
}

/* Controlling root's session is not reading it: the records are root's. */
TEST(member_open_of_roots_session_is_access_denied)
{
	CONTROLTRACE_ID h;
	struct props b;
	pid_t pid;
	char gid[16];

	snprintf(gid, sizeof(gid), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_control_gid(gid));
	props_init(&b, EVENT_TRACE_REAL_TIME_MODE);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&h, "libetw-root", &b.p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(open_as_member("libetw-root", false,
				     ERROR_ACCESS_DENIED));
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(ERROR_SUCCESS, stop_name("libetw-root"));
	write_control_gid("-1");
}

TEST(member_opens_its_session)
{
	char gid[16];
	pid_t pid;

	snprintf(gid, sizeof(gid), "%d", CONTROL_GROUP);
	ASSERT_EQ(0, write_control_gid(gid));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(open_as_member("libetw-member", true, ERROR_SUCCESS));
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(ERROR_SUCCESS, stop_name("libetw-member"));
	write_control_gid("-1");
}

/*
 * StartTrace with a log file in a child that exits at once; events
 * written afterwards are in the file once StopTrace returns.  The writer
 * is pinned to CPU 0: each CPU it ran on would fill a buffer of its own.
 */
TEST(file_written_by_session)
{
	static const char path[] = "/tmp/libetw-cons.etl";
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE ph;
	struct props b;
	pid_t pid;

	memset(&seen, 0, sizeof(seen));
	seen.in_order = true;
	unlink(path);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		CONTROLTRACE_ID h;

		props_init(&b, 0);
		b.p.LogFileNameOffset = FILE_OFF;
		strcpy((char *)&b + FILE_OFF, path);
		if (StartTraceA(&h, "libetw-file2", &b.p))
			_exit(1);
		_exit(EnableTraceEx2(h, &prov, 1, 0, 0, 0, 0, NULL) ? 2 : 0);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	pid = writer_child_ex(EVENTS, 0, 1);
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(ERROR_SUCCESS, stop_name("libetw-file2"));

	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	lf.BufferCallback = on_buffer;
	ph = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, ph);
	EXPECT_EQ(4096u, lf.LogfileHeader.BufferSize);
	EXPECT_EQ(2u, lf.LogfileHeader.BuffersWritten);
	EXPECT_EQ(ERROR_SUCCESS, ProcessTrace(&ph, 1, NULL, NULL));
	EXPECT_EQ(1, seen.header_events);	/* delivered first */
	EXPECT_EQ(EVENTS, seen.ours);
	EXPECT_TRUE(seen.in_order);
	EXPECT_EQ((ULONG)pid, seen.first.EventHeader.ProcessId);
	EXPECT_EQ(0, memcmp(seen.payload, "payload", 8));
	EXPECT_EQ(2, seen.buffers);
	EXPECT_EQ(ERROR_SUCCESS, CloseTrace(ph));
}

TEST_HARNESS_MAIN
