// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's batched writes (EtwSetBatchedWrites, ETW_BATCHED_WRITES=1)
 * against the real module: staged events reach the session with their
 * fields, in their thread's order and with the time of the write, when
 * the thread exits, at EventUnregister from another thread, before a
 * direct write, through the drain threshold and a full ring; sessions
 * count what they lose; disabled events stage nothing, nor do the writes
 * of a thread without a ring, of a signal handler while its thread
 * stages, and with NO_FAULTING; ETW_BATCHED_WRITES is "1" or nothing,
 * read once, through secure_getenv(); invalid arguments give the direct
 * path's results; a fork() child stages in a ring of its own.  Sessions
 * are started and read through the raw ABI, so that only the provider
 * side goes through libetw.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "wmistr.h"
#include "evntprov.h"
#include "evntrace.h"

#define LIBETW_TEST_TAG "libetw-batch"
#include "libetw_selftest.h"

/* Sessions of 64 KiB buffers: they take the largest staged record. */
#define BUF_KB		64
#define SEEN_MAX	4096
#define MANY		3000

/* An address no test maps: a payload that cannot be read. */
#define UNREADABLE	((ULONGLONG)8)

/* What a collected event says, its payload checked against make_payload(). */
struct seen {
	struct etw_event_header h;
	__u32 len;		/* payload bytes */
	__u32 seq;		/* the payload's first word, when it has one */
	bool payload_ok;
};

static unsigned char buf[BUF_KB * 1024];
static struct seen seen[SEEN_MAX];
/* Thread-local: writer threads fill it at the same time. */
static __thread unsigned char payload[ETW_MAX_EVENT_SIZE + 1];

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * The payload of event @seq: its number, then bytes that depend on both.
 * Shorter than the number, it cannot be checked without knowing @seq.
 */
static void make_payload(unsigned char *p, __u32 seq, __u32 len)
{
	__u32 i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(seq * 31 + i);
	if (len >= sizeof(seq))
		memcpy(p, &seq, sizeof(seq));
}

static bool payload_matches(const unsigned char *p, __u32 len)
{
	static unsigned char want[ETW_MAX_EVENT_SIZE];
	__u32 seq = 0;

	if (len >= sizeof(seq))
		memcpy(&seq, p, sizeof(seq));
	make_payload(want, seq, len);
	return !memcmp(p, want, len);
}

/* A GUID no other test (or earlier run) uses. */
static void unique_guid(GUID *g, unsigned short n)
{
	static const GUID base = { 0, 0xba7c, 0x4c6e,
				   { 0x9a, 0x17, 0x3e, 0x4f, 0, 0, 0, 0 } };

	*g = base;
	g->Data1 = (ULONG)getpid();
	g->Data2 = n;
}

/* ctl_start() with @kb KiB buffers. */
static int start_kb(struct ctl *c, __u32 kb, __u32 max_buffers)
{
	struct etw_consume_args ca = { .size = sizeof(ca),
				       .flags = O_NONBLOCK | O_CLOEXEC };
	int ret;

	c->fd = etw_open();
	if (c->fd < 0)
		return -errno;
	ret = raw_start(c->fd, LIBETW_TEST_TAG, ETW_MODE_REAL_TIME |
			ETW_MODE_NO_PER_PROCESSOR, kb, max_buffers, &c->id);
	if (ret)
		return ret;
	ca.logger_id = c->id;
	c->cfd = ioctl(c->fd, ETW_IOC_CONSUME, &ca);
	return c->cfd < 0 ? -errno : 0;
}

/* ctl_start() with BUF_KB buffers. */
static int start(struct ctl *c, __u32 max_buffers)
{
	return start_kb(c, BUF_KB, max_buffers);
}

/* Where the payload of the record at @h starts, past its extended items. */
static const unsigned char *payload_of(const struct etw_event_header *h)
{
	const unsigned char *p = (const void *)(h + 1);
	const struct etw_ext_item *x;

	if (!(h->flags & ETW_EVENT_FLAG_EXTENDED_INFO))
		return p;
	do {
		x = (const void *)p;
		p += x->item_size;
	} while (x->linkage & ETW_EXT_LINKAGE);
	return p;
}

/*
 * Flush and read every event of provider @g, oldest first, into seen[].
 * Return: how many there were (also past SEEN_MAX), or -1.
 */
static int collect(struct ctl *c, const GUID *g)
{
	struct etw_session_args a = { .size = sizeof(a), .logger_id = c->id };
	int n = 0;

	if (etw_ioctl(c->fd, ETW_IOC_FLUSH, &a))
		return -1;
	while (read(c->cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;
		__u32 off = ETW_BUFFER_HEADER_SIZE;

		while (off + sizeof(struct etw_event_header) <= bh->offset) {
			const struct etw_event_header *h =
				(const void *)(buf + off);
			const unsigned char *p = payload_of(h);
			struct seen *s = &seen[n];

			off += (h->size + 7) & ~7u;
			if (memcmp(&h->provider_id, g, sizeof(*g)))
				continue;
			if (n++ >= SEEN_MAX)
				continue;
			s->h = *h;
			s->len = h->size -
				 (__u32)(p - (const unsigned char *)h);
			s->seq = 0;
			if (s->len >= sizeof(s->seq))
				memcpy(&s->seq, p, sizeof(s->seq));
			s->payload_ok = payload_matches(p, s->len);
		}
	}
	return n;
}

/*
 * Bytes staged so far in this process's rings, and of those the bytes
 * the kernel has not routed yet: the head of each ring libetw mapped (its
 * control page starts the mapping /proc/self/maps names
 * anon_inode:etw-batch), and the head less the tail.  A staged event
 * moves the head, a direct write does not; a drain moves the tail.
 */
static __u64 ring_bytes(__u64 *unrouted)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	__u64 sum = 0;

	if (unrouted)
		*unrouted = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const struct etw_batch_ctl *ctl;
		unsigned long start;
		__u64 head;

		if (!strstr(line, "anon_inode:etw-batch") ||
		    sscanf(line, "%lx-", &start) != 1)
			continue;
		ctl = (const void *)start;
		head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
		sum += head;
		if (unrouted)
			*unrouted += head - __atomic_load_n(&ctl->tail,
							    __ATOMIC_ACQUIRE);
	}
	fclose(f);
	return sum;
}

static __u64 staged_bytes(void)
{
	return ring_bytes(NULL);
}

/* Write event @seq of @len payload bytes with EventWrite, id @seq. */
static ULONG write_seq(REGHANDLE h, __u32 seq, __u32 len)
{
	EVENT_DESCRIPTOR d = { .Id = (USHORT)seq, .Level = 4, .Keyword = 1 };
	EVENT_DATA_DESCRIPTOR data;

	make_payload(payload, seq, len);
	EventDataDescCreate(&data, payload, len);
	return EventWrite(h, &d, 1, &data);
}

FIXTURE(batch) {
	struct ctl c;
	GUID guid;
	REGHANDLE h;
};

/* A session that takes level 4 and below; the process in batched mode. */
FIXTURE_SETUP(batch)
{
	unique_guid(&self->guid, 1);
	ASSERT_EQ(0, start(&self->c, 64));
	ASSERT_EQ(0, EventRegister(&self->guid, NULL, NULL, &self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE, 4,
				0, 0));
	ASSERT_EQ(ERROR_SUCCESS, EtwSetBatchedWrites(TRUE));
}

FIXTURE_TEARDOWN(batch)
{
	EventUnregister(self->h);
	ctl_stop(&self->c);
}

/* --- what staged events carry --------------------------------------------- */

/* EventWriteString's text, UTF-16 whatever the compiler's wchar_t. */
static const WCHAR text[] = { 'b', 'a', 't', 'c', 'h', 0 };

TEST_F(batch, staged_events_keep_their_fields_and_the_thread_order)
{
	static const GUID act = { 0xac7, 1, 2, { 3, 4, 5, 6, 7, 8, 9, 10 } };
	static const GUID other = { 0xac8, 1, 2, { 3, 4, 5, 6, 7, 8, 9, 11 } };
	EVENT_DESCRIPTOR d1 = { .Id = 11, .Version = 2, .Channel = 16,
				.Level = 3, .Opcode = 5, .Task = 300,
				.Keyword = 0x8000000000000001ULL };
	EVENT_DESCRIPTOR d2 = { .Id = 12, .Level = 4, .Keyword = 2 };
	EVENT_DESCRIPTOR d3 = { .Id = 13, .Level = 1 };
	EVENT_DESCRIPTOR d4 = { .Id = 14, .Level = 2, .Task = 7 };
	EVENT_DATA_DESCRIPTOR data[3];
	pid_t me = tid();
	int i;

	__u64 staged = staged_bytes();

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID,
					    (GUID *)&act));
	make_payload(payload, 11, 40);
	EventDataDescCreate(&data[0], payload, 40);
	ASSERT_EQ(0, EventWrite(self->h, &d1, 1, data));
	/* An explicit activity without a related one: still staged. */
	ASSERT_EQ(0, EventWriteTransfer(self->h, &d2, &other, NULL, 0, NULL));
	/* Three pieces, one of them empty, make one payload. */
	make_payload(payload, 13, 100);
	EventDataDescCreate(&data[0], payload, 30);
	EventDataDescCreate(&data[1], NULL, 0);
	EventDataDescCreate(&data[2], payload + 30, 70);
	ASSERT_EQ(0, EventWrite(self->h, &d3, 3, data));
	make_payload(payload + 100, 14, 8);
	EventDataDescCreate(&data[0], payload + 100, 8);
	ASSERT_EQ(0, EventWriteEx(self->h, &d4, 0, 0, NULL, NULL, 1, data));
	ASSERT_EQ(0, EventWriteString(self->h, 4, 0x10, text));
	EXPECT_LT(staged, staged_bytes());
	/* Routes the thread's ring before the registration ends. */
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(5, collect(&self->c, &self->guid));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(getpid(), seen[i].h.process_id);
		EXPECT_EQ(me, seen[i].h.thread_id);
		EXPECT_EQ(ETW_EVENT_HEADER_TYPE_64, seen[i].h.header_type);
	}
	EXPECT_EQ(0, memcmp(&seen[0].h.descriptor, &d1, sizeof(d1)));
	EXPECT_EQ(0, memcmp(&seen[0].h.activity_id, &act, sizeof(act)));
	EXPECT_EQ(40, seen[0].len);
	EXPECT_TRUE(seen[0].payload_ok);
	EXPECT_EQ(0, seen[0].h.flags);

	EXPECT_EQ(0, memcmp(&seen[1].h.descriptor, &d2, sizeof(d2)));
	EXPECT_EQ(0, memcmp(&seen[1].h.activity_id, &other, sizeof(other)));
	EXPECT_EQ(0, seen[1].len);
	EXPECT_EQ(0, seen[1].h.flags);

	EXPECT_EQ(0, memcmp(&seen[2].h.descriptor, &d3, sizeof(d3)));
	EXPECT_EQ(100, seen[2].len);
	EXPECT_EQ(13, seen[2].seq);
	EXPECT_TRUE(seen[2].payload_ok);

	EXPECT_EQ(0, memcmp(&seen[3].h.descriptor, &d4, sizeof(d4)));
	EXPECT_EQ(8, seen[3].len);
	EXPECT_EQ(14, seen[3].seq);
	EXPECT_TRUE(seen[3].payload_ok);
	EXPECT_EQ(0, memcmp(&seen[3].h.activity_id, &act, sizeof(act)));

	/* EventWriteString: descriptor 0 but level and keyword, the flag. */
	EXPECT_EQ(0, seen[4].h.descriptor.id);
	EXPECT_EQ(4, seen[4].h.descriptor.level);
	EXPECT_EQ(0x10, seen[4].h.descriptor.keyword);
	EXPECT_EQ(ETW_EVENT_FLAG_STRING_ONLY, seen[4].h.flags);
	EXPECT_EQ(sizeof(text), seen[4].len);
	EXPECT_EQ(0, memcmp(&seen[4].h.activity_id, &act, sizeof(act)));
}

/*
 * libetw stages rdtsc readings where the kernel grants them, which it
 * converts back to CLOCK_MONOTONIC at the rate the clock ran at lately:
 * within far less than SLACK_NS of the time (Documentation/abi.rst).  The
 * drain comes 20 ms after the second write: a time taken then is outside.
 */
#define SLACK_NS	1000000

TEST_F(batch, staged_events_carry_the_time_of_the_write)
{
	__u64 t0, t1, t2, t3, staged = staged_bytes();

	t0 = raw_now_ns();
	ASSERT_EQ(0, write_seq(self->h, 1, 16));
	t1 = raw_now_ns();
	raw_sleep_ms(20);
	t2 = raw_now_ns();
	ASSERT_EQ(0, write_seq(self->h, 2, 16));
	t3 = raw_now_ns();
	raw_sleep_ms(20);
	EXPECT_LT(staged, staged_bytes());
	/* Drained here, 20 ms after t3. */
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(2, collect(&self->c, &self->guid));
	EXPECT_LE(t0 - SLACK_NS, seen[0].h.timestamp);
	EXPECT_GE(t1 + SLACK_NS, seen[0].h.timestamp);
	EXPECT_LE(t2 - SLACK_NS, seen[1].h.timestamp);
	EXPECT_GE(t3 + SLACK_NS, seen[1].h.timestamp);
}

/* --- when staged events are routed ---------------------------------------- */

struct writer {
	REGHANDLE h;
	__u32 first;
	__u32 count;
	pid_t tid;
	int go[2];	/* main -> writer: may exit */
	int done[2];	/* writer -> main: staged */
	ULONG err;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	__u32 i;
	char c = 0;

	w->tid = tid();
	for (i = 0; i < w->count; i++)
		w->err |= write_seq(w->h, w->first + i, 24);
	if (w->done[1] >= 0 && write(w->done[1], &c, 1) != 1)
		w->err |= 1;
	if (w->go[0] >= 0 && read(w->go[0], &c, 1) != 1)
		w->err |= 2;
	return NULL;
}

/*
 * A thread that ends without running its key destructors (which would
 * close its ring, and the close drains): its staged events are routed by
 * its exit alone.
 */
static void *writer_exit_main(void *arg)
{
	struct writer *w = arg;
	__u32 i;

	w->tid = tid();
	for (i = 0; i < w->count; i++)
		w->err |= write_seq(w->h, w->first + i, 24);
	syscall(SYS_exit, 0);
	return NULL;
}

TEST(a_thread_that_exits_has_its_events_routed)
{
	struct writer w = { .first = 1, .count = 3,
			    .go = { -1, -1 }, .done = { -1, -1 } };
	__u64 unrouted;
	struct ctl c;
	pthread_t t;
	GUID g;
	int i;

	unique_guid(&g, 5);
	/* Not real-time: no flush timer drains the ring meanwhile. */
	c.fd = etw_open();
	ASSERT_LE(0, c.fd);
	ASSERT_EQ(0, raw_start(c.fd, LIBETW_TEST_TAG "-exit",
			       ETW_MODE_NO_PER_PROCESSOR, BUF_KB, 8, &c.id));
	c.cfd = raw_consumer(c.fd, c.id);
	ASSERT_LE(0, c.cfd);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &w.h));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	ASSERT_EQ(ERROR_SUCCESS, EtwSetBatchedWrites(TRUE));
	ASSERT_EQ(0, pthread_create(&t, NULL, writer_exit_main, &w));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, w.err);
	ASSERT_EQ(0, raw_wait_thread_gone(w.tid));

	/*
	 * Its ring is still mapped and open, the registration alive, and no
	 * flush was made: only the exit can have routed what it staged.
	 */
	EXPECT_EQ(3 * RAW_ALIGN8(ETW_STAGED_EVENT_SIZE + 24),
		  ring_bytes(&unrouted));
	EXPECT_EQ(0, unrouted);
	ASSERT_EQ(3, collect(&c, &g));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(w.tid, seen[i].h.thread_id);
		EXPECT_EQ(i + 1, seen[i].h.descriptor.id);
		EXPECT_TRUE(seen[i].payload_ok);
	}
	EXPECT_EQ(0, EventUnregister(w.h));
	ctl_stop(&c);
}

#define THREADS		4
#define PER_THREAD	500

/* Each thread's events: its number in the high half of the sequence. */
TEST_F(batch, threads_keep_their_own_order)
{
	struct writer w[THREADS];
	__u32 next[THREADS] = { 0 };
	pthread_t t[THREADS];
	int i, n;

	for (i = 0; i < THREADS; i++) {
		w[i] = (struct writer){ .h = self->h, .first = i << 16,
					.count = PER_THREAD,
					.go = { -1, -1 }, .done = { -1, -1 } };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, writer_main, &w[i]));
	}
	for (i = 0; i < THREADS; i++) {
		ASSERT_EQ(0, pthread_join(t[i], NULL));
		ASSERT_EQ(0, w[i].err);
	}

	n = collect(&self->c, &self->guid);
	ASSERT_EQ(THREADS * PER_THREAD, n);
	for (i = 0; i < n; i++) {
		__u32 k = seen[i].seq >> 16;

		ASSERT_GT(THREADS, k);
		ASSERT_EQ(w[k].tid, seen[i].h.thread_id);
		ASSERT_EQ(w[k].first + next[k], seen[i].seq);
		ASSERT_TRUE(seen[i].payload_ok);
		next[k]++;
	}
}

TEST_F(batch, unregister_routes_what_other_threads_staged)
{
	struct writer w = { .h = self->h, .first = 1, .count = 3 };
	pthread_t t;
	char c = 0;
	int i, n;

	ASSERT_EQ(0, pipe(w.go));
	ASSERT_EQ(0, pipe(w.done));
	ASSERT_EQ(0, pthread_create(&t, NULL, writer_main, &w));
	ASSERT_EQ(1, read(w.done[0], &c, 1));
	/* The writer still runs, its events staged. */
	EXPECT_LT(0, staged_bytes());
	EXPECT_EQ(0, EventUnregister(self->h));
	n = collect(&self->c, &self->guid);
	ASSERT_EQ(1, write(w.go[1], &c, 1));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, w.err);

	ASSERT_EQ(3, n);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(w.tid, seen[i].h.thread_id);
		EXPECT_EQ(i + 1, seen[i].h.descriptor.id);
	}
}

TEST_F(batch, a_direct_write_comes_after_the_staged_ones)
{
	static const GUID related = { 0x4e1, 1, 2, { 3, 4, 5, 6, 7, 8, 9, 1 } };
	EVENT_DESCRIPTOR d = { .Id = 3, .Level = 4, .Keyword = 1 };
	EVENT_DESCRIPTOR ex = { .Id = 5, .Level = 4, .Keyword = 1 };
	__u64 staged = staged_bytes();
	int i;

	ASSERT_EQ(0, write_seq(self->h, 1, 16));
	ASSERT_EQ(0, write_seq(self->h, 2, 16));
	EXPECT_LT(staged, staged_bytes());
	staged = staged_bytes();
	/* A related activity is not plain: this one goes directly. */
	ASSERT_EQ(0, EventWriteTransfer(self->h, &d, NULL, &related, 0, NULL));
	EXPECT_EQ(staged, staged_bytes());
	ASSERT_EQ(0, write_seq(self->h, 4, 16));
	/* So does EventWriteEx with a flag. */
	ASSERT_EQ(0, EventWriteEx(self->h, &ex, 0, EVENT_WRITE_FLAG_NO_FAULTING,
				  NULL, NULL, 0, NULL));
	ASSERT_EQ(0, write_seq(self->h, 6, 16));
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(6, collect(&self->c, &self->guid));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(i + 1, seen[i].h.descriptor.id);
	EXPECT_EQ(0, seen[0].h.flags);
	EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, seen[2].h.flags);
	EXPECT_EQ(0, seen[3].h.flags);
}

/* The logger handle a classic provider's callback is given. */
static ULONG WINAPI keep_logger(WMIDPREQUESTCODE code, PVOID ctx, ULONG *size,
				PVOID buffer)
{
	if (code == WMI_ENABLE_EVENTS)
		__atomic_store_n((TRACEHANDLE *)ctx,
				 GetTraceLoggerHandle(buffer),
				 __ATOMIC_RELEASE);
	return ERROR_SUCCESS;
}

/*
 * Flush and read the order in which records of @a and @b arrived, as
 * 'a' and 'b' in @out; the GUID is at the same offset in both headers.
 */
static int collect_order(struct ctl *c, const GUID *a, const GUID *b,
			 char *out, int max)
{
	struct etw_session_args args = { .size = sizeof(args),
					 .logger_id = c->id };
	int n = 0;

	if (etw_ioctl(c->fd, ETW_IOC_FLUSH, &args))
		return -1;
	while (read(c->cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;
		__u32 off = ETW_BUFFER_HEADER_SIZE;

		while (off + sizeof(struct etw_classic_header) <= bh->offset) {
			const struct etw_event_header *h =
				(const void *)(buf + off);

			off += (h->size + 7) & ~7u;
			if (n < max && !memcmp(&h->provider_id, a, sizeof(*a)))
				out[n++] = 'a';
			else if (n < max &&
				 !memcmp(&h->provider_id, b, sizeof(*b)))
				out[n++] = 'b';
		}
	}
	return n;
}

/* TraceEvent cannot carry ETW_WRITE_DRAIN: libetw drains on its own. */
TEST_F(batch, a_classic_write_comes_after_the_staged_ones)
{
	static const GUID cls = { 0xc1a55000, 0xba7c, 2, { 3 } };
	struct {
		EVENT_TRACE_HEADER h;
	} ev = { .h = { .Size = sizeof(ev.h),
			.Flags = WNODE_FLAG_TRACED_GUID, .Guid = cls } };
	TRACEHANDLE reg, logger = 0;
	char order[8];
	GUID g;

	unique_guid(&g, 5);
	ASSERT_EQ(0, RegisterTraceGuidsW(keep_logger, &logger, &g, 0, NULL,
					 NULL, NULL, &reg));
	ASSERT_EQ(0, ctl_enable(&self->c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	ASSERT_NE(0, __atomic_load_n(&logger, __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, write_seq(self->h, 1, 16));
	ASSERT_EQ(0, write_seq(self->h, 2, 16));
	ASSERT_EQ(0, TraceEvent(logger, &ev.h));
	ASSERT_EQ(0, UnregisterTraceGuids(reg));
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(3, collect_order(&self->c, &self->guid, &cls, order,
				   sizeof(order)));
	EXPECT_EQ(0, memcmp(order, "aab", 3));
}

TEST_F(batch, writes_after_switching_off_come_after_the_staged_ones)
{
	__u64 staged = staged_bytes();
	int i;

	ASSERT_EQ(0, write_seq(self->h, 1, 16));
	ASSERT_EQ(0, write_seq(self->h, 2, 16));
	EXPECT_LT(staged, staged_bytes());
	staged = staged_bytes();
	ASSERT_EQ(0, EtwSetBatchedWrites(FALSE));
	ASSERT_EQ(0, write_seq(self->h, 3, 16));
	EXPECT_EQ(staged, staged_bytes());
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(3, collect(&self->c, &self->guid));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(i + 1, seen[i].h.descriptor.id);
}

/* --- many events, a full ring --------------------------------------------- */

TEST_F(batch, many_events_pass_the_drain_threshold_and_the_ring_end)
{
	__u32 i;
	int n;

	/* 4 to 303 bytes: about 600 KiB staged, the ring many times over. */
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, write_seq(self->h, i, 4 + i % 300));
	ASSERT_EQ(0, EventUnregister(self->h));

	n = collect(&self->c, &self->guid);
	ASSERT_EQ(MANY, n);
	for (i = 0; i < MANY; i++) {
		ASSERT_EQ(4 + i % 300, seen[i].len);
		ASSERT_EQ(i, seen[i].seq);
		ASSERT_TRUE(seen[i].payload_ok);
	}
}

/*
 * Staged records of 8 KiB (with the 80-byte header); the ring is
 * ETW_BATCH_DEFAULT_RING (64 KiB) and drains past half.  A direct write
 * drains after the first, so that the next four fill the ring from 8 to
 * 40 KiB (32 KiB staged, not past half); a 28 KiB record does not fit
 * before the ring's end (24 KiB), and with the skip to the start it needs
 * 52 KiB of the 32 left: the ring lacks room until a drain.  With another
 * ring size the path differs, and every event must arrive all the same.
 */
TEST_F(batch, a_record_the_ring_lacks_room_for_waits_for_a_drain)
{
	static const __u32 big = 8192 - ETW_STAGED_EVENT_SIZE;
	static const __u32 huge = 28 * 1024 - ETW_STAGED_EVENT_SIZE;
	static const GUID related = { 0x4e1, 1, 2, { 3, 4, 5, 6, 7, 8, 9, 1 } };
	static const __u32 want[] = {
		8192 - ETW_STAGED_EVENT_SIZE, 0, 8192 - ETW_STAGED_EVENT_SIZE,
		8192 - ETW_STAGED_EVENT_SIZE, 8192 - ETW_STAGED_EVENT_SIZE,
		8192 - ETW_STAGED_EVENT_SIZE, 28 * 1024 - ETW_STAGED_EVENT_SIZE,
		16 };
	EVENT_DESCRIPTOR d = { .Id = 1, .Level = 4, .Keyword = 1 };
	__u32 i;

	ASSERT_EQ(0, write_seq(self->h, 0, big));
	ASSERT_EQ(0, EventWriteTransfer(self->h, &d, NULL, &related, 0, NULL));
	for (i = 2; i < 6; i++)
		ASSERT_EQ(0, write_seq(self->h, i, big));
	ASSERT_EQ(0, write_seq(self->h, 6, huge));
	ASSERT_EQ(0, write_seq(self->h, 7, 16));
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(8, collect(&self->c, &self->guid));
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(want[i], seen[i].len);
		EXPECT_TRUE(seen[i].payload_ok);
		if (i != 1)
			EXPECT_EQ(i, seen[i].seq);
	}
	EXPECT_EQ(1, seen[1].h.descriptor.id);
}

/* Losses are the sessions': the writer learns nothing of them. */
TEST(a_session_counts_staged_events_it_loses)
{
	struct etw_session_args a;
	struct ctl c;
	GUID g;
	REGHANDLE h;
	__u32 i;
	int n;

	unique_guid(&g, 2);
	/* Two buffers of 64 KiB and nobody reading: 200 KiB cannot fit. */
	ASSERT_EQ(0, start(&c, 2));
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	ASSERT_EQ(0, EtwSetBatchedWrites(TRUE));
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, write_seq(h, i, 1000));
	ASSERT_EQ(0, EventUnregister(h));

	n = collect(&c, &g);
	ASSERT_EQ(0, raw_session_op(c.fd, ETW_IOC_QUERY, c.id, &a));
	EXPECT_LT(0, n);
	EXPECT_LT(0, a.stats.events_lost);
	EXPECT_EQ(200, n + a.stats.events_lost);
	ctl_stop(&c);
}

/*
 * A staged event larger than the session's buffers: the write returns 0,
 * the session drops the event and counts it lost.
 */
TEST(a_session_counts_a_staged_event_too_large_for_it)
{
	struct etw_session_args a;
	struct ctl c;
	GUID g;
	REGHANDLE h;

	unique_guid(&g, 6);
	ASSERT_EQ(0, start_kb(&c, 4, 0));
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	ASSERT_EQ(0, EtwSetBatchedWrites(TRUE));
	/* 8000 bytes: staged (under half the ring), over a 4 KiB buffer. */
	ASSERT_EQ(0, write_seq(h, 1, 8000));
	ASSERT_EQ(0, write_seq(h, 2, 100));
	ASSERT_EQ(0, EventUnregister(h));

	ASSERT_EQ(1, collect(&c, &g));
	EXPECT_EQ(2, seen[0].h.descriptor.id);
	ASSERT_EQ(0, raw_session_op(c.fd, ETW_IOC_QUERY, c.id, &a));
	EXPECT_EQ(1, a.stats.events_lost);
	EXPECT_EQ(1, a.stats.events_written);
	ctl_stop(&c);
}

/* --- what does not stage -------------------------------------------------- */

TEST_F(batch, a_disabled_event_stages_nothing)
{
	EVENT_DESCRIPTOR off = { .Id = 1, .Level = 5 };
	EVENT_DATA_DESCRIPTOR data;
	REGHANDLE idle;
	GUID g;

	/* Staging would read the payload, and fault. */
	EventDataDescCreate(&data, NULL, 8);
	data.Ptr = UNREADABLE;
	EXPECT_EQ(0, EventWrite(self->h, &off, 1, &data));
	unique_guid(&g, 3);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &idle));
	off.Level = 1;
	EXPECT_EQ(0, EventWrite(idle, &off, 1, &data));
	EXPECT_EQ(0, EventUnregister(idle));
	ASSERT_EQ(0, EventUnregister(self->h));

	EXPECT_EQ(0, collect(&self->c, &self->guid));
}

/* Event 1 with an 8-byte payload at an address that cannot be read. */
static ULONG write_unreadable(REGHANDLE h)
{
	/* write_seq()'s event 1, whose checks a thread may remember. */
	EVENT_DESCRIPTOR d = { .Id = 1, .Level = 4, .Keyword = 1 };
	EVENT_DATA_DESCRIPTOR data;

	EventDataDescCreate(&data, NULL, 8);
	data.Ptr = UNREADABLE;
	return EventWrite(h, &d, 1, &data);
}

/*
 * A thread that staged an event writes it again without the checks while
 * nothing they read changed: each change below makes the same event one
 * that must not stage, which an unreadable payload would show (a fault).
 */
TEST_F(batch, an_event_disabled_after_it_staged_stages_nothing)
{
	ASSERT_EQ(0, write_seq(self->h, 1, 8));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE, 2,
				0, 0));
	EXPECT_EQ(0, write_unreadable(self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE, 0,
				0, 0));
	EXPECT_EQ(0, write_unreadable(self->h));
	ASSERT_EQ(0, EventUnregister(self->h));
	EXPECT_EQ(1, collect(&self->c, &self->guid));
}

TEST_F(batch, a_handle_unregistered_after_it_staged_is_refused)
{
	ASSERT_EQ(0, write_seq(self->h, 1, 8));
	ASSERT_EQ(0, EventUnregister(self->h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, write_seq(self->h, 1, 8));
	EXPECT_EQ(1, collect(&self->c, &self->guid));
}

/* Descriptor types make writes direct: the payload is read by the kernel. */
TEST_F(batch, descriptor_types_switched_on_after_a_stage_write_directly)
{
	BOOLEAN on = TRUE;

	ASSERT_EQ(0, write_seq(self->h, 1, 8));
	ASSERT_EQ(0, EventSetInformation(self->h,
					 EventProviderUseDescriptorType,
					 &on, sizeof(on)));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, write_unreadable(self->h));
}

/*
 * In a fork child (a fault must not end the test's process before it
 * stops its session): register @g, with ETW_BATCHED_WRITES set to @env
 * first unless it is NULL, and write an unreadable payload.  Exits 0 when
 * the write returned ERROR_INVALID_PARAMETER.
 */
static void child_write_unreadable(const GUID *g, const char *env)
{
	REGHANDLE h;

	if ((env && setenv("ETW_BATCHED_WRITES", env, 1)) ||
	    EventRegister(g, NULL, NULL, &h))
		_exit(255);
	_exit(write_unreadable(h) == ERROR_INVALID_PARAMETER ? 0 : 1);
}

/* What only batched mode does: the copy reads the payload in the caller. */
TEST_F(batch, an_unreadable_payload_faults_in_the_caller)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		child_write_unreadable(&self->guid, NULL);
	EXPECT_EQ(256 + SIGSEGV, etw_wait_child(pid));
}

TEST_F(batch, batched_writes_off_write_directly)
{
	ASSERT_EQ(0, EtwSetBatchedWrites(FALSE));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, write_unreadable(self->h));
}

/* EVENT_WRITE_FLAG_NO_FAULTING goes directly: the kernel's EFAULT, 87. */
TEST_F(batch, no_faulting_keeps_invalid_parameter)
{
	EVENT_DESCRIPTOR d = { .Id = 1, .Level = 4, .Keyword = 1 };
	EVENT_DATA_DESCRIPTOR data;

	EventDataDescCreate(&data, NULL, 8);
	data.Ptr = UNREADABLE;
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventWriteEx(self->h, &d, 0, EVENT_WRITE_FLAG_NO_FAULTING,
			       NULL, NULL, 1, &data));
}

/*
 * A thread whose ring cannot be opened (no file descriptor left) writes
 * directly, without an error: its unreadable payload is the kernel's
 * EFAULT, 87, not a fault.
 */
TEST_F(batch, a_ring_that_cannot_open_writes_directly)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit rl;
		REGHANDLE h;
		int lowest;

		if (EventRegister(&self->guid, NULL, NULL, &h))
			_exit(10);
		lowest = dup(0);
		if (lowest < 0 || close(lowest) ||
		    getrlimit(RLIMIT_NOFILE, &rl))
			_exit(11);
		rl.rlim_cur = lowest;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(12);
		if (write_unreadable(h) != ERROR_INVALID_PARAMETER)
			_exit(13);
		/* The next write does not try again: still direct. */
		_exit(write_unreadable(h) == ERROR_INVALID_PARAMETER ? 0 : 14);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

static sigjmp_buf fault_jmp;
static REGHANDLE fault_h;
static ULONG fault_ret;

/* Runs in the middle of the staging copy that faulted. */
static void fault_handler(int sig)
{
	fault_ret = write_unreadable(fault_h);
	siglongjmp(fault_jmp, 1);
}

/*
 * A signal handler's write while its thread stages is direct: here the
 * staging copy of an unreadable payload faults, and the SIGSEGV handler
 * writes one more, which gets the kernel's EFAULT, 87; staged, it would
 * fault again inside the handler and kill the process.
 */
TEST_F(batch, a_signal_handler_writes_directly_while_its_thread_stages)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		struct sigaction sa = { .sa_handler = fault_handler };

		if (EventRegister(&self->guid, NULL, NULL, &fault_h) ||
		    sigaction(SIGSEGV, &sa, NULL))
			_exit(10);
		fault_ret = 1;
		if (!sigsetjmp(fault_jmp, 1)) {
			write_unreadable(fault_h);
			_exit(11);	/* it did not fault */
		}
		_exit(fault_ret == ERROR_INVALID_PARAMETER ? 0 : 12);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

/*
 * A session that enables a GUID no one registered yet; the child's
 * registration, the process's first, reads the environment.
 */
static int write_with_env(const char *value)
{
	struct ctl c;
	pid_t pid;
	GUID g;
	int ret;

	unique_guid(&g, 4);
	if (start(&c, 4) || ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0))
		return -1;
	pid = fork();
	if (!pid)
		child_write_unreadable(&g, value);
	ret = pid < 0 ? -1 : etw_wait_child(pid);
	ctl_stop(&c);
	return ret;
}

TEST(the_environment_turns_batched_writes_on)
{
	EXPECT_EQ(256 + SIGSEGV, write_with_env("1"));
}

/* Only "1" turns it on (Documentation/libetw.rst, "Batched writes"). */
TEST(the_environment_with_another_value_leaves_writes_direct)
{
	static const char *const values[] = {
		"yes", "0", "", "11", "1 ", " 1", "01", "true",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		int ret = write_with_env(values[i]);

		EXPECT_EQ(0, ret);
		if (ret)
			TH_LOG("ETW_BATCHED_WRITES=<%s>", values[i]);
	}
}

/*
 * secure_getenv(), as glibc's in a set-user-ID program when
 * @secure_mode is set (AT_SECURE): no value; else getenv().  The
 * program's definition is the one libetw.so binds to.
 */
static bool secure_mode;
static int secure_getenv_batched_calls;

char *secure_getenv(const char *name)
{
	if (!strcmp(name, "ETW_BATCHED_WRITES"))
		secure_getenv_batched_calls++;
	return secure_mode ? NULL : getenv(name);
}

/*
 * The variable is read through secure_getenv(): a set-user-ID program's
 * "1" leaves writes direct.
 */
TEST(the_environment_is_not_read_in_set_user_id_programs)
{
	secure_mode = true;
	EXPECT_EQ(0, write_with_env("1"));
}

/*
 * Read once, at the first registration: setting it later changes
 * nothing, and it is not read again.
 */
TEST(the_environment_is_read_once)
{
	struct ctl c;
	pid_t pid;
	GUID g;

	unique_guid(&g, 7);
	ASSERT_EQ(0, start(&c, 4));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		REGHANDLE h1, h2;

		if (unsetenv("ETW_BATCHED_WRITES") ||
		    EventRegister(&g, NULL, NULL, &h1) ||
		    setenv("ETW_BATCHED_WRITES", "1", 1) ||
		    EventRegister(&g, NULL, NULL, &h2))
			_exit(10);
		if (secure_getenv_batched_calls != 1)
			_exit(11);
		_exit(write_unreadable(h2) == ERROR_INVALID_PARAMETER ? 0 : 12);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	ctl_stop(&c);
}

/* The results the direct path gives, checked in both modes. */
static void check_invalid_writes(struct __test_metadata *_metadata,
				 REGHANDLE h)
{
	EVENT_DESCRIPTOR d = { .Id = 1, .Level = 4 };
	EVENT_DATA_DESCRIPTOR data[ETW_MAX_DATA_DESCRIPTORS + 1];

	memset(data, 0, sizeof(data));
	EXPECT_EQ(ERROR_INVALID_HANDLE, EventWrite(0, &d, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_HANDLE, EventWrite(h + 0x10000, &d, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventWrite(h, NULL, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventWrite(h, &d, ETW_MAX_DATA_DESCRIPTORS + 1, data));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventWrite(h, &d, 1, NULL));
	/* A NULL piece with a size. */
	EventDataDescCreate(&data[0], NULL, 4);
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventWrite(h, &d, 1, data));
	/* Two readable pieces over 64 KiB together. */
	EventDataDescCreate(&data[0], payload, 40000);
	EventDataDescCreate(&data[1], payload, 40000);
	EXPECT_EQ(ERROR_ARITHMETIC_OVERFLOW, EventWrite(h, &d, 2, data));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventWriteEx(h, &d, 0, 0x100, NULL, NULL, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventWriteString(h, 4, 0, NULL));
}

TEST_F(batch, invalid_arguments_give_the_direct_results)
{
	check_invalid_writes(_metadata, self->h);
	ASSERT_EQ(0, EtwSetBatchedWrites(FALSE));
	check_invalid_writes(_metadata, self->h);
	ASSERT_EQ(0, EventUnregister(self->h));
	EXPECT_EQ(0, collect(&self->c, &self->guid));
}

/* --- fork() --------------------------------------------------------------- */

static int child_writes(const GUID *g)
{
	REGHANDLE h;

	if (EventRegister(g, NULL, NULL, &h))
		return 1;
	/* The parent's ring is not mapped here: this one is the child's. */
	if (write_seq(h, 2, 16))
		return 2;
	return 0;
}

TEST_F(batch, a_fork_child_stages_in_a_ring_of_its_own)
{
	pid_t pid;
	int i;

	ASSERT_EQ(0, write_seq(self->h, 1, 16));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(child_writes(&self->guid));
	/* Its thread's exit routed its ring. */
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(0, write_seq(self->h, 3, 16));
	ASSERT_EQ(0, EventUnregister(self->h));

	ASSERT_EQ(3, collect(&self->c, &self->guid));
	for (i = 0; i < 3; i++) {
		EXPECT_TRUE(seen[i].payload_ok);
		EXPECT_EQ(seen[i].seq == 2 ? pid : getpid(),
			  seen[i].h.process_id);
	}
	/* The parent's two in its order; the child's anywhere. */
	EXPECT_EQ(1, seen[seen[0].seq == 2 ? 1 : 0].seq);
	EXPECT_EQ(3, seen[2].seq == 2 ? seen[1].seq : seen[2].seq);
}

TEST_HARNESS_MAIN
