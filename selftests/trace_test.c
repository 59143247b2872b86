// SPDX-License-Identifier: GPL-2.0
/*
 * etw.ko's tracepoints (events/etw) and etwctl top on them, in the VM:
 * each tracepoint's fields as ftrace prints them for a known session,
 * provider and event, written directly or staged; nothing recorded while
 * they are off; and etwctl top's counts for a load with a known number of
 * events written and lost, and for the kernel logger's records.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "etw_ring.h"

#define TRACEFS		"/sys/kernel/tracing"
#define EVENT_ID	7
/* An EVENT_HEADER and raw_write()'s struct raw_payload. */
#define REC_SIZE	(sizeof(struct etw_event_header) + \
			 sizeof(struct raw_payload))

static int tracefs_write(const char *file, const char *text)
{
	char path[256];
	int fd, ret;

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, text, strlen(text)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* The trace buffer's text; free it. */
static char *tracefs_trace(void)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	ssize_t n;
	int fd = open(TRACEFS "/trace", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf) {
		free(buf);
		return NULL;
	}
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
	return buf;
}

static void guid_text(const struct etw_guid *g, char *out)
{
	sprintf(out, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		g->data1, g->data2, g->data3, g->data4[0], g->data4[1],
		g->data4[2], g->data4[3], g->data4[4], g->data4[5],
		g->data4[6], g->data4[7]);
}

/* Does @trace hold a line with @event's text @fmt... after its name? */
static int has_line(const char *trace, const char *event, const char *fmt,
		    ...)
{
	char want[512];
	va_list ap;
	int n;

	n = snprintf(want, sizeof(want), "%s: ", event);
	va_start(ap, fmt);
	vsnprintf(want + n, sizeof(want) - n, fmt, ap);
	va_end(ap);
	return strstr(trace, want) != NULL;
}

/* Does a line of @trace hold @first, and @second after it? */
static int line_has(const char *trace, const char *first, const char *second)
{
	const char *p = trace, *end, *q;

	while ((p = strstr(p, first))) {
		end = strchrnul(p, '\n');
		q = strstr(p, second);
		if (q && q < end)
			return 1;
		p = end;
	}
	return 0;
}

/* One CPU: the test's records share one buffer. */
static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE(trace) {
	int fd;
	__u32 id;
	__u32 reg;
	struct etw_guid guid;
	char g[40];
	char name[64];
};

FIXTURE_SETUP(trace)
{
	self->fd = -1;
	self->id = 0;
	if (access(TRACEFS "/events/etw/etw_write", F_OK))
		SKIP(return, "no events/etw in tracefs");
	ASSERT_EQ(0, tracefs_write("events/etw/enable", "0"));
	ASSERT_EQ(0, tracefs_write("trace", ""));
	ASSERT_EQ(0, pin_cpu0());
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	self->guid = raw_guid(0x7ace0001, 1);
	guid_text(&self->guid, self->g);
	snprintf(self->name, sizeof(self->name), "trace-test-%d", getpid());
}

FIXTURE_TEARDOWN(trace)
{
	tracefs_write("events/etw/enable", "0");
	if (self->fd < 0)
		return;
	/* Global sessions outlive their file: stop what a test left. */
	if (self->id)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

/*
 * Start a session of the smallest buffers (@max_buffers 0: the default
 * count), register the provider and enable it.
 */
static int trace_session(struct __test_metadata *_metadata,
			 FIXTURE_DATA(trace) *self, __u32 max_buffers)
{
	ASSERT_EQ(0, raw_start(self->fd, "trace-test", 0, 1, max_buffers,
			       &self->id));
	ASSERT_EQ(0, raw_register(self->fd, &self->guid, 0, 0, &self->reg,
				  NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &self->guid, 0, 0, 0));
	return 0;
}

TEST_F(trace, session_enable_write_and_buffer_fields)
{
	struct etw_session_args stop;
	char *t, seal[64], sealed[64];

	ASSERT_EQ(0, tracefs_write("events/etw/enable", "1"));
	trace_session(_metadata, self, 0);
	ASSERT_EQ(0, raw_write(self->fd, self->reg, EVENT_ID, 4, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, &stop));
	ASSERT_EQ(0, tracefs_write("events/etw/enable", "0"));
	t = tracefs_trace();
	ASSERT_NE(NULL, t);
	EXPECT_TRUE(has_line(t, "etw_session_start", "session=%u name=%s ",
			     self->id, self->name));
	EXPECT_TRUE(has_line(t, "etw_enable",
			     "session=%u provider=%s control=enable level=0 any=0x0 all=0x0 properties=0x0 ret=0",
			     self->id, self->g));
	EXPECT_TRUE(has_line(t, "etw_write", "session=%u provider=%s id=%u size=%zu",
			     self->id, self->g, EVENT_ID, REC_SIZE));
	/* The session's first buffer: its header and one padded record. */
	snprintf(seal, sizeof(seal), "etw_buffer_seal: session=%u cpu=",
		 self->id);
	snprintf(sealed, sizeof(sealed), " seq=1 bytes=%zu events=1",
		 ETW_BUFFER_HEADER_SIZE + RAW_ALIGN8(REC_SIZE));
	EXPECT_TRUE(line_has(t, seal, sealed));
	/* The session's final counts, as STOP returns them. */
	EXPECT_TRUE(has_line(t, "etw_session_stop",
			     "session=%u written=%llu lost=%llu buffers=%llu",
			     self->id,
			     (unsigned long long)stop.stats.events_written,
			     (unsigned long long)stop.stats.events_lost,
			     (unsigned long long)stop.stats.buffers_written))
		TH_LOG("%s", t);
	free(t);
}

TEST_F(trace, deliver_counts_the_buffer_records)
{
	char *t, deliver[64], want[64];

	ASSERT_EQ(0, tracefs_write("events/etw/etw_buffer_deliver/enable", "1"));
	trace_session(_metadata, self, 0);
	ASSERT_EQ(0, raw_write(self->fd, self->reg, EVENT_ID, 4, 0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, EVENT_ID, 4, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL));
	t = tracefs_trace();
	ASSERT_NE(NULL, t);
	/* Header, two records of REC_SIZE rounded up to 8 bytes. */
	snprintf(deliver, sizeof(deliver), "etw_buffer_deliver: session=%u cpu=",
		 self->id);
	snprintf(want, sizeof(want), " seq=1 bytes=%zu events=2 lost=0",
		 ETW_BUFFER_HEADER_SIZE + 2 * RAW_ALIGN8(REC_SIZE));
	EXPECT_TRUE(line_has(t, deliver, want));
	free(t);
}

/* How many lines of @trace hold @text. */
static int lines_with(const char *trace, const char *text)
{
	const char *p = trace;
	int n = 0;

	while ((p = strstr(p, text))) {
		n++;
		p = strchrnul(p, '\n');
	}
	return n;
}

/*
 * Staged events reach the session a run at a time (one reservation for
 * the run), and etw_write still fires once per event, with its own id and
 * size (Documentation/architecture.rst: a run's commit fires etw:etw_write
 * before each record's commit).
 */
TEST_F(trace, staged_run_fires_write_per_event)
{
	char *t, prefix[64];
	struct ring r;
	int i;

	trace_session(_metadata, self, 0);
	ASSERT_EQ(0, ring_open(self->fd, ETW_BATCH_MIN_RING, &r));
	ASSERT_EQ(0, tracefs_write("events/etw/etw_write/enable", "1"));
	for (i = 0; i < 3; i++)
		stage_ev(&r, self->reg, EVENT_ID + i, raw_now_ns(), i);
	ASSERT_EQ(0, ring_drain(&r));
	ASSERT_EQ(0, tracefs_write("events/etw/etw_write/enable", "0"));
	ring_close(&r);
	t = tracefs_trace();
	ASSERT_NE(NULL, t);
	for (i = 0; i < 3; i++)
		EXPECT_TRUE(has_line(t, "etw_write",
				     "session=%u provider=%s id=%u size=%zu",
				     self->id, self->g, EVENT_ID + i, REC_SIZE))
			TH_LOG("%s", t);
	snprintf(prefix, sizeof(prefix), "etw_write: session=%u ", self->id);
	EXPECT_EQ(3, lines_with(t, prefix));
	free(t);
}

TEST_F(trace, lost_carries_session_provider_and_error)
{
	int i, ret = 0;
	char *t;

	ASSERT_EQ(0, tracefs_write("events/etw/etw_lost/enable", "1"));
	trace_session(_metadata, self, 2);
	ASSERT_LE(0, raw_consumer(self->fd, self->id));
	/* Nobody reads: the buffers fill and the writes start to be lost. */
	for (i = 0; i < 1000 && ret != -ENOBUFS; i++)
		ret = raw_write(self->fd, self->reg, EVENT_ID, 4, 0);
	ASSERT_EQ(-ENOBUFS, ret);
	t = tracefs_trace();
	ASSERT_NE(NULL, t);
	EXPECT_TRUE(has_line(t, "etw_lost", "session=%u provider=%s id=%u error=%d",
			     self->id, self->g, EVENT_ID, -ENOBUFS));
	free(t);
}

TEST_F(trace, off_records_nothing)
{
	char *t;

	trace_session(_metadata, self, 0);
	ASSERT_EQ(0, raw_write(self->fd, self->reg, EVENT_ID, 4, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL));
	t = tracefs_trace();
	ASSERT_NE(NULL, t);
	EXPECT_EQ(NULL, strstr(t, "etw_"));
	free(t);
}

static const char *etwctl_path(void)
{
	static char path[4096];
	char self[4000];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return "/etw/ctl/etwctl";
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof(path), "%s/../ctl/etwctl", self);
	return path;
}

/*
 * etwctl top --json (--once too when @once: the same single refresh) for
 * the lifetime of a command that waits for stdin's end: it says "ready" on
 * stderr once top is attached.
 */
static pid_t top_start(int *in, int *out, int *err, bool once)
{
	int pin[2], pout[2], perr[2];
	pid_t pid;

	if (pipe(pin) || pipe(pout) || pipe(perr))
		return -1;
	pid = fork();
	if (pid)
		goto parent;
	/* Only the parent may hold stdin's writing end: its close is EOF. */
	close(pin[1]);
	close(pout[0]);
	close(perr[0]);
	dup2(pin[0], 0);
	dup2(pout[1], 1);
	dup2(perr[1], 2);
	if (once)
		execl(etwctl_path(), "etwctl", "top", "--once", "--json", "--",
		      "sh", "-c", "echo ready >&2; read x", (char *)NULL);
	else
		execl(etwctl_path(), "etwctl", "top", "--json", "--", "sh",
		      "-c", "echo ready >&2; read x", (char *)NULL);
	_exit(127);
parent:
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	*in = pin[1];
	*out = pout[0];
	*err = perr[0];
	return pid;
}

static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
}

/* The counts after @key in top's JSON line; false when it is missing. */
static int top_counts(const char *json, const char *key,
		      unsigned long long *events, unsigned long long *bytes,
		      unsigned long long *lost)
{
	const char *p = strstr(json, key);

	return p && sscanf(p + strlen(key),
			   ",\"events\":%llu,\"bytes\":%llu,\"lost\":%llu",
			   events, bytes, lost) == 3;
}

/* Loading BPF under TCG takes seconds. */
TEST_F_TIMEOUT(trace, top_counts_what_was_written_and_lost, 300)
{
	unsigned long long events, bytes, lost;
	unsigned long long written = 0, nlost = 0;
	struct etw_session_args q;
	char ready[16] = "", key[128], *json;
	int in, out, err, status, i, ret;
	pid_t pid;

	json = malloc(65536);
	ASSERT_NE(NULL, json);
	trace_session(_metadata, self, 2);
	ASSERT_LE(0, raw_consumer(self->fd, self->id));
	pid = top_start(&in, &out, &err, false);
	ASSERT_LT(0, pid);
	ASSERT_LT(0, read(err, ready, sizeof(ready) - 1));
	ASSERT_EQ(0, strncmp(ready, "ready", 5)) TH_LOG("etwctl: %s", ready);
	/* A few 4-KB buffers nobody reads: most of these are lost. */
	for (i = 0; i < 500; i++) {
		ret = raw_write(self->fd, self->reg, EVENT_ID, 4, 0);
		ASSERT_TRUE(ret == 0 || ret == -ENOBUFS);
		written += !ret;
		nlost += !!ret;
	}
	close(in);
	read_all(out, json, 65536);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) TH_LOG("%s", json);
	ASSERT_LT(0, written);
	ASSERT_LT(0, nlost);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(nlost, q.stats.events_lost);

	snprintf(key, sizeof(key), "{\"provider\":\"%s\"", self->g);
	ASSERT_TRUE(top_counts(json, key, &events, &bytes, &lost))
		TH_LOG("%s", json);
	EXPECT_EQ(written, events);
	EXPECT_EQ(written * REC_SIZE, bytes);
	EXPECT_EQ(nlost, lost);

	snprintf(key, sizeof(key), "{\"logger_id\":%u,\"name\":\"%s\"",
		 self->id, self->name);
	ASSERT_TRUE(top_counts(json, key, &events, &bytes, &lost))
		TH_LOG("%s", json);
	EXPECT_EQ(written, events);
	EXPECT_EQ(written * REC_SIZE, bytes);
	EXPECT_EQ(nlost, lost);
	free(json);
}

/* SystemTraceControlGuid: the kernel logger's records are reported under it. */
#define KLOG_PROVIDER	"9e814aad-3204-11d2-9a82-006008a86939"
#define KLOG_CHILDREN	20
/* A SYSTEM_TRACE_HEADER and Process_V4's fixed part: the least a record has. */
#define KLOG_MIN_SIZE	(sizeof(struct etw_system_header) + 36)

/*
 * The kernel logger's records reach etwctl top as writes do: a process's
 * Start at fork() and End at exit, under SystemTraceControlGuid in the
 * logger's session.  A flight recorder: nothing is lost without a
 * consumer.
 */
TEST_F_TIMEOUT(trace, top_counts_kernel_logger_events, 300)
{
	unsigned long long events, bytes, lost, sevents, sbytes, slost;
	struct etw_session_args a;
	char ready[16] = "", key[128], *json;
	int in, out, err, status, i;
	pid_t pid, child;

	json = malloc(65536);
	ASSERT_NE(NULL, json);
	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "%s", ETW_KERNEL_LOGGER_NAME);
	a.config.buffer_kb = 64;
	a.config.max_buffers = 8;
	a.config.mode = ETW_MODE_BUFFERING;
	a.config.enable_flags = ETW_KFLAG_PROCESS;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_START, &a));
	self->id = a.logger_id;
	pid = top_start(&in, &out, &err, true);
	ASSERT_LT(0, pid);
	ASSERT_LT(0, read(err, ready, sizeof(ready) - 1));
	ASSERT_EQ(0, strncmp(ready, "ready", 5)) TH_LOG("etwctl: %s", ready);
	for (i = 0; i < KLOG_CHILDREN; i++) {
		child = fork();
		ASSERT_LE(0, child);
		if (!child)
			_exit(0);
		ASSERT_EQ(child, waitpid(child, &status, 0));
	}
	close(in);
	read_all(out, json, 65536);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status) TH_LOG("%s", json);

	ASSERT_TRUE(top_counts(json, "{\"provider\":\"" KLOG_PROVIDER "\"",
			       &events, &bytes, &lost))
		TH_LOG("%s", json);
	EXPECT_LE(2 * KLOG_CHILDREN, events);
	EXPECT_LE(events * KLOG_MIN_SIZE, bytes);
	EXPECT_EQ(0, lost);
	/* The logger's session has no other provider. */
	snprintf(key, sizeof(key), "{\"logger_id\":%u,\"name\":\"%s\"",
		 self->id, ETW_KERNEL_LOGGER_NAME);
	ASSERT_TRUE(top_counts(json, key, &sevents, &sbytes, &slost))
		TH_LOG("%s", json);
	EXPECT_EQ(events, sevents);
	EXPECT_EQ(bytes, sbytes);
	EXPECT_EQ(0, slost);
	free(json);
}

TEST_HARNESS_MAIN
