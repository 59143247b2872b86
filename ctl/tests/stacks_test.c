// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c: the kernel logger's stack records joined to their events in
 * the pass that shows them, from the window a look-ahead keeps: records
 * made here, given in the order a source reads them (source.c: the
 * look-ahead reads while etwctl_stacks_want(), then the record shown
 * steps), and files of them dumped with --stacks.
 */
#include <inttypes.h>

#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"
#include "stacks.h"

/* StackWalk record types. */
enum {
	STACK = 32,
	CREATE = 34,
	DELETE = 35,
	RUNDOWN = 36,
	KKERNEL = 37,
	KUSER = 38,
};

static const struct etw_guid stackwalk = {
	0xdef2fe46, 0x7bd6, 0x4b80,
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 }
};

static const struct etw_guid perfinfo = {
	0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }
};

/* ThreadGuid: an event that is no stack record. */
static const struct etw_guid thread = {
	0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c }
};

/*
 * A record as a source gives it: @time is its FILETIME (the window's
 * order), @raw its raw timestamp; stack records name @ts and @tid and
 * hold @n frames (or @key); a sample's thread is in its payload.
 */
struct rec {
	enum { EVENT, SAMPLE, WALK, REF, DEF } what;
	int op;
	int64_t time;
	uint64_t raw;
	uint64_t ts;
	uint32_t pid, tid;
	uint64_t key;
	uint64_t frames[8];
	unsigned int n;
	uint8_t data[16 + 8 * 8];
};

/* @r as the event a reader gives: its payload in @r->data. */
static void rec_event(struct rec *r, struct etw_etl_event *ev)
{
	uint8_t *p = r->data;
	uint16_t count = 1;

	memset(ev, 0, sizeof(*ev));
	ev->kind = ETW_ETL_KIND_SYSTEM;
	ev->header_type = ETW_ETL_HT_SYSTEM64;
	ev->raw_timestamp = r->raw;
	ev->timestamp = r->time;
	ev->user_data = p;
	ev->descriptor.version = 2;
	ev->descriptor.opcode = (uint8_t)r->op;
	ev->provider_id = stackwalk;
	switch (r->what) {
	case EVENT:
		ev->provider_id = thread;
		ev->thread_id = r->tid;
		ev->process_id = r->pid;
		break;
	case SAMPLE:
		ev->kind = ETW_ETL_KIND_PERFINFO;
		ev->header_type = ETW_ETL_HT_PERFINFO64;
		ev->provider_id = perfinfo;
		ev->descriptor.opcode = 46;
		memset(p, 0xcc, 8);
		memcpy(p + 8, &r->tid, 4);
		memcpy(p + 12, &count, 2);
		memset(p + 14, 0, 2);
		ev->user_data_len = 16;
		break;
	case WALK:
	case REF:
		memcpy(p, &r->ts, 8);
		memcpy(p + 8, &r->pid, 4);
		memcpy(p + 12, &r->tid, 4);
		if (r->what == REF) {
			memcpy(p + 16, &r->key, 8);
			ev->user_data_len = 24;
		} else {
			memcpy(p + 16, r->frames, 8 * r->n);
			ev->user_data_len = 16 + 8 * r->n;
		}
		break;
	case DEF:
		memcpy(p, &r->key, 8);
		memcpy(p + 8, r->frames, 8 * r->n);
		ev->user_data_len = 8 + 8 * r->n;
		break;
	}
}

/* The records' stacks, as the pass that shows them finds them. */
struct shown {
	bool found;
	uint16_t size;
	uint32_t pid, tid;
	uint64_t words[24];
};

/*
 * The definitions of @recs into @s, sealed, then the records read twice
 * as a source with a look-ahead reads them; @out[i]: record i's stack.
 */
static void run(struct __test_metadata *_metadata, struct etwctl_stacks *s,
		struct rec *recs, size_t n, struct shown *out)
{
	struct etw_etl_event ev, ahead;
	struct etwctl_stack st;
	size_t i, next = 0;

	for (i = 0; i < n; i++) {
		rec_event(&recs[i], &ev);
		ASSERT_EQ(0, etwctl_stacks_define(s, &ev));
	}
	etwctl_stacks_seal(s);
	for (i = 0; i < n; i++) {
		rec_event(&recs[i], &ev);
		while (next < n && etwctl_stacks_want(s)) {
			rec_event(&recs[next++], &ahead);
			ASSERT_EQ(0, etwctl_stacks_ahead(s, &ahead));
		}
		etwctl_stacks_step(s, &ev);
		memset(&out[i], 0, sizeof(out[i]));
		out[i].found = etwctl_stacks_find(s, &ev, &st);
		if (!out[i].found)
			continue;
		out[i].size = st.size;
		out[i].pid = st.pid;
		out[i].tid = st.tid;
		ASSERT_GE(sizeof(out[i].words), st.size);
		memcpy(out[i].words, st.item, st.size);
	}
}

#define EV(t, r, p, th)	{ .what = EVENT, .time = (t), .raw = (r), \
			  .pid = (p), .tid = (th) }
#define WALKS(t, r, e, p, th, ...) \
	{ .what = WALK, .op = STACK, .time = (t), .raw = (r), .ts = (e), \
	  .pid = (p), .tid = (th), .frames = { __VA_ARGS__ }, \
	  .n = sizeof((uint64_t[]){ __VA_ARGS__ }) / 8 }
#define KREF(o, t, r, e, th, k) \
	{ .what = REF, .op = (o), .time = (t), .raw = (r), .ts = (e), \
	  .pid = 9, .tid = (th), .key = (k) }
#define KDEF(o, t, r, k, ...) \
	{ .what = DEF, .op = (o), .time = (t), .raw = (r), .key = (k), \
	  .frames = { __VA_ARGS__ }, \
	  .n = sizeof((uint64_t[]){ __VA_ARGS__ }) / 8 }

#define K1	0xfffff80000001000ull
#define K2	0xfffff80000002000ull
#define U1	0x0000000000401000ull
#define U2	0x0000000000402000ull

/*
 * An event's kernel walk and its user walk, the user one first and a
 * record of another event between: MatchId 0, the kernel frames, then
 * the user frames; the process and thread are the first part's.
 */
TEST(kernel_frames_before_user_frames)
{
	struct rec recs[] = {
		EV(10, 100, 4, 7),
		WALKS(11, 105, 100, 3, 7, U1, U2),
		EV(12, 106, 4, 8),
		WALKS(13, 107, 100, 5, 7, K1, K2),
	};
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct shown out[4];

	ASSERT_NE(NULL, s);
	run(_metadata, s, recs, 4, out);
	ASSERT_TRUE(out[0].found);
	EXPECT_EQ(40, out[0].size);
	EXPECT_EQ(0, out[0].words[0]);
	EXPECT_EQ(K1, out[0].words[1]);
	EXPECT_EQ(K2, out[0].words[2]);
	EXPECT_EQ(U1, out[0].words[3]);
	EXPECT_EQ(U2, out[0].words[4]);
	EXPECT_EQ(5, out[0].pid);
	EXPECT_EQ(7, out[0].tid);
	/* The other event has none; stack records are no events. */
	EXPECT_FALSE(out[1].found);
	EXPECT_FALSE(out[2].found);
	EXPECT_FALSE(out[3].found);
	EXPECT_EQ(0, etwctl_stacks_unresolved(s));
	etwctl_stacks_free(s);
}

/*
 * Key references: the latest KeyCreate of the key at or before the
 * reference, else its first KeyDelete or KeyRundown at or after it, the
 * definitions wherever they lie (here all at the end, as a rundown is).
 */
TEST(key_references_take_their_definitions)
{
	struct rec recs[] = {
		KDEF(CREATE, 1, 50, 0x10, K1, K2),
		EV(10, 100, 4, 7),
		KREF(KKERNEL, 11, 110, 100, 7, 0x10),
		EV(12, 200, 4, 7),
		KREF(KUSER, 13, 210, 200, 7, 0x20),
		KREF(KKERNEL, 14, 211, 200, 7, 0x10),
		EV(15, 300, 4, 8),
		KREF(KUSER, 16, 310, 300, 8, 0x30),
		EV(17, 400, 4, 8),
		KREF(KUSER, 18, 420, 400, 8, 0x40),
		KDEF(DELETE, 19, 500, 0x10, K2),
		KDEF(RUNDOWN, 20, 900, 0x20, U1, U2, 0x403000),
		KDEF(DELETE, 21, 410, 0x40, U2),
		/* The same record twice, as in a file merged with itself. */
		KDEF(RUNDOWN, 22, 900, 0x20, U1, U2, 0x403000),
	};
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct shown out[14];

	ASSERT_NE(NULL, s);
	run(_metadata, s, recs, 14, out);
	/* Key 0x10's KeyCreate at 50. */
	ASSERT_TRUE(out[1].found);
	EXPECT_EQ(24, out[1].size);
	EXPECT_EQ(K1, out[1].words[1]);
	EXPECT_EQ(K2, out[1].words[2]);
	EXPECT_EQ(9, out[1].pid);
	/* Key 0x10 again (kernel first), then key 0x20's rundown. */
	ASSERT_TRUE(out[3].found);
	EXPECT_EQ(48, out[3].size);
	EXPECT_EQ(K1, out[3].words[1]);
	EXPECT_EQ(K2, out[3].words[2]);
	EXPECT_EQ(U1, out[3].words[3]);
	EXPECT_EQ(U2, out[3].words[4]);
	EXPECT_EQ(0x403000, out[3].words[5]);
	/*
	 * Key 0x30 is never defined, key 0x40 only before its reference:
	 * the events keep a stack without frames.
	 */
	ASSERT_TRUE(out[6].found);
	EXPECT_EQ(8, out[6].size);
	EXPECT_EQ(0, out[6].words[0]);
	ASSERT_TRUE(out[8].found);
	EXPECT_EQ(8, out[8].size);
	EXPECT_EQ(2, etwctl_stacks_unresolved(s));
	etwctl_stacks_free(s);
}

/*
 * The records the look-ahead reads before the first is shown: the one
 * shown and the window after it.
 */
static size_t window(void)
{
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct rec r = EV(0, 0, 4, 7);
	struct etw_etl_event ev;
	size_t n = 0;

	etwctl_stacks_seal(s);
	rec_event(&r, &ev);
	while (etwctl_stacks_want(s) && n < 1000000) {
		etwctl_stacks_ahead(s, &ev);
		n++;
	}
	etwctl_stacks_free(s);
	return n;
}

/*
 * A part as far after its event as the window reaches joins it; one a
 * record farther joins nothing, as a part whose event is not there.
 */
TEST(the_window_reaches_its_bound_and_no_farther)
{
	size_t w = window() - 1, n = w + 3, i;
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct rec *recs = calloc(n, sizeof(*recs));
	struct shown *out = calloc(n, sizeof(*out));
	struct rec near = WALKS(0, 0, 1000, 3, 7, K1);
	struct rec far = WALKS(0, 0, 1001, 3, 7, K2);

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, recs);
	ASSERT_NE(NULL, out);
	/* PerfView's trace has a part 5,337 records after its event. */
	EXPECT_LE(3 * 5337, w);
	for (i = 0; i < n; i++) {
		struct rec filler = EV((int64_t)i, 2000 + i, 4, 8);

		recs[i] = filler;
	}
	recs[0].raw = 1000;
	recs[0].tid = 7;
	recs[1].raw = 1001;
	recs[1].tid = 7;
	near.time = (int64_t)w;
	near.raw = 2000 + w;
	far.time = (int64_t)w + 2;
	far.raw = 2000 + w + 2;
	recs[w] = near;
	recs[w + 2] = far;
	run(_metadata, s, recs, n, out);
	ASSERT_TRUE(out[0].found);
	EXPECT_EQ(16, out[0].size);
	EXPECT_EQ(K1, out[0].words[1]);
	EXPECT_FALSE(out[1].found);
	free(recs);
	free(out);
	etwctl_stacks_free(s);
}

/*
 * A part before its event only in the same tick (its time is never
 * earlier than its event's; a lower CPU's record of the tick may come
 * first): one of an earlier tick is gone when the event is shown.
 */
TEST(before_its_event_only_in_its_tick)
{
	struct rec recs[] = {
		WALKS(20, 300, 300, 3, 7, K1),
		EV(20, 300, 4, 7),
		WALKS(20, 299, 400, 3, 7, K2),
		EV(21, 400, 4, 7),
	};
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct shown out[4];

	ASSERT_NE(NULL, s);
	run(_metadata, s, recs, 4, out);
	ASSERT_TRUE(out[1].found);
	EXPECT_EQ(16, out[1].size);
	EXPECT_EQ(K1, out[1].words[1]);
	EXPECT_FALSE(out[3].found);
	etwctl_stacks_free(s);
}

/*
 * Records out of time order (a CPU's clock ahead): a part of a later
 * time than the records after it still leaves the window once it is a
 * window's length behind the record shown.
 */
TEST(a_part_stays_no_more_than_a_window_behind)
{
	size_t w = window() - 1, n = w + 3, i;
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct rec *recs = calloc(n, sizeof(*recs));
	struct shown *out = calloc(n, sizeof(*out));
	struct rec early = WALKS(1000000, 0, 5000, 3, 7, K1);
	struct rec late = WALKS(1000000, 1, 6000, 3, 7, K2);

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, recs);
	ASSERT_NE(NULL, out);
	for (i = 0; i < n; i++) {
		struct rec filler = EV((int64_t)i, 2000 + i, 4, 8);

		recs[i] = filler;
	}
	recs[0] = early;
	recs[1] = late;
	/* Event 5000 a window after its part, 6000 one record more. */
	recs[w].raw = 5000;
	recs[w].tid = 7;
	recs[w + 2].raw = 6000;
	recs[w + 2].tid = 7;
	run(_metadata, s, recs, n, out);
	ASSERT_TRUE(out[w].found);
	EXPECT_EQ(K1, out[w].words[1]);
	EXPECT_FALSE(out[w + 2].found);
	free(recs);
	free(out);
	etwctl_stacks_free(s);
}

/*
 * Two events of one thread and one raw time take the same parts; a
 * SampledProfile is matched by the thread in its payload.
 */
TEST(events_of_one_time_and_thread_and_samples)
{
	struct rec recs[] = {
		EV(10, 100, 4, 7),
		EV(10, 100, 4, 7),
		{ .what = SAMPLE, .time = 11, .raw = 101, .tid = 7 },
		WALKS(12, 102, 100, 3, 7, K1, U1),
		WALKS(12, 102, 101, 6, 7, K2),
	};
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct shown out[5];

	ASSERT_NE(NULL, s);
	run(_metadata, s, recs, 5, out);
	ASSERT_TRUE(out[0].found);
	ASSERT_TRUE(out[1].found);
	EXPECT_EQ(24, out[0].size);
	EXPECT_EQ(0, memcmp(out[0].words, out[1].words, 24));
	EXPECT_EQ(K1, out[1].words[1]);
	EXPECT_EQ(U1, out[1].words[2]);
	ASSERT_TRUE(out[2].found);
	EXPECT_EQ(16, out[2].size);
	EXPECT_EQ(K2, out[2].words[1]);
	EXPECT_EQ(6, out[2].pid);
	EXPECT_EQ(7, out[2].tid);
	etwctl_stacks_free(s);
}

/* Event @e's walk: 1 to 7 frames of its own. */
static struct rec long_walk(size_t e)
{
	struct rec w = { .what = WALK, .op = STACK, .ts = 10 * e, .pid = 3,
			 .tid = 7, .n = 1 + e % 7 };
	unsigned int f;

	for (f = 0; f < w.n; f++)
		w.frames[f] = K1 + 16 * e + f;
	return w;
}

/*
 * A long trace: each of its events has a walk 0 to 2 events on, more
 * than a window holds.  Parts come and go, the window's arrays grow and
 * wrap, and every event gets exactly its own frames.
 */
TEST(every_event_of_a_long_trace_gets_its_own_frames)
{
	const size_t events = 20000, n = 2 * events;
	struct etwctl_stacks *s = etwctl_stacks_new();
	struct rec *recs = calloc(n, sizeof(*recs));
	struct shown *out = calloc(n, sizeof(*out));
	size_t i = 0, k = 0, e, d;
	unsigned int f;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, recs);
	ASSERT_NE(NULL, out);
	/* After event e come the walks of the events d + d % 3 == e. */
	for (e = 0; e < events + 2; e++) {
		if (e < events) {
			struct rec ev = EV(0, 10 * e, 4, 7);

			recs[i++] = ev;
		}
		for (d = e > 2 ? e - 2 : 0; d <= e && d < events; d++)
			if (d + d % 3 == e)
				recs[i++] = long_walk(d);
	}
	ASSERT_EQ(n, i);
	for (i = 0; i < n; i++)
		recs[i].time = (int64_t)i / 4;
	run(_metadata, s, recs, n, out);
	for (i = 0; i < n; i++) {
		if (recs[i].what != EVENT)
			continue;
		e = recs[i].raw / 10;
		ASSERT_TRUE(out[i].found) TH_LOG("event %zu", e);
		ASSERT_EQ(8 * (2 + e % 7), out[i].size) TH_LOG("event %zu", e);
		for (f = 0; f < 1 + e % 7; f++)
			ASSERT_EQ(K1 + 16 * e + f, out[i].words[1 + f]);
		k++;
	}
	EXPECT_EQ(events, k);
	free(recs);
	free(out);
	etwctl_stacks_free(s);
}

/* A 64-bit SYSTEM_TRACE_HEADER record of StackWalk (group 0x18). */
static void add_walk(void *buf, uint64_t ns, uint64_t event_ns, uint32_t pid,
		     uint32_t tid, const uint64_t *frames, unsigned int n)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t marker = 0xc002u << 16 | 2;
	uint16_t size = (uint16_t)(32 + 16 + 8 * n);
	uint16_t hook = 0x18 << 8 | STACK;
	uint64_t ts = ETL_TEST_START_RAW + ns;
	uint64_t event_ts = ETL_TEST_START_RAW + event_ns;

	memset(p, 0, (size + 7u) & ~7u);
	memcpy(p, &marker, 4);
	memcpy(p + 4, &size, 2);
	memcpy(p + 6, &hook, 2);
	memcpy(p + 8, &tid, 4);
	memcpy(p + 12, &pid, 4);
	memcpy(p + 16, &ts, 8);
	memcpy(p + 32, &event_ts, 8);
	memcpy(p + 40, &pid, 4);
	memcpy(p + 44, &tid, 4);
	memcpy(p + 48, frames, 8 * n);
	bh->offset += (size + 7u) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
}

/* A 64-bit PERFINFO SampledProfile record (group 0x0f, type 46). */
static void add_sample(void *buf, uint64_t ns, uint64_t ip, uint32_t tid)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t marker = 0xc011u << 16 | 2;
	uint16_t size = 16 + 16, hook = 0x0f << 8 | 46, count = 1;
	uint64_t ts = ETL_TEST_START_RAW + ns;

	memset(p, 0, size);
	memcpy(p, &marker, 4);
	memcpy(p + 4, &size, 2);
	memcpy(p + 6, &hook, 2);
	memcpy(p + 8, &ts, 8);
	memcpy(p + 16, &ip, 8);
	memcpy(p + 24, &tid, 4);
	memcpy(p + 28, &count, 2);
	bh->offset += size;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
}

/*
 * walks.etl: CPU 0's first buffer ends with a sample (thread 77 of
 * process 66 at 1 us); its kernel walk starts CPU 0's second buffer,
 * its user walk, walked when the thread went back to user mode, is on
 * CPU 1 at 40 us.  A second sample (5 us) has no walk; a walk at 50 us
 * names no record.
 */
FIXTURE(walks) {
	char *dir;
	char *path;
	struct ctl_run run;
};

FIXTURE_SETUP(walks)
{
	static const uint64_t kernel[] = { K1, K2 }, user[] = { U1, U2 };
	struct etw_etl_writer_params params = etl_test_params();
	struct etw_etl_writer *w;
	uint8_t buf[ETL_TEST_BS];

	memset(&self->run, 0, sizeof(self->run));
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "walks.etl");
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &params, &w));
	etl_buf_init(buf, ETL_TEST_BS, 0);
	add_sample(buf, 1000, K1, 77);
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	etl_buf_init(buf, ETL_TEST_BS, 0);
	((struct etw_buffer_header *)buf)->sequence_number = 1;
	add_walk(buf, 1100, 1000, 66, 77, kernel, 2);
	add_sample(buf, 5000, K2, 78);
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	etl_buf_init(buf, ETL_TEST_BS, 1);
	add_walk(buf, 40000, 1000, 66, 77, user, 2);
	add_walk(buf, 50000, 45000, 66, 77, user, 1);
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
}

FIXTURE_TEARDOWN(walks)
{
	ctl_run_free(&self->run);
	free(self->path);
	etl_rmdir(self->dir);
}

/*
 * The walk in a later buffer than its sample and the one on another CPU
 * join it, kernel frames first, and give it their process and thread;
 * no stack record is shown.
 */
TEST_F(walks, dump)
{
	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--stacks", "--no-symbols",
				     self->path));
	ASSERT_EQ(0, self->run.status);
	EXPECT_STREQ("", self->run.err);
	EXPECT_STREQ("2022-06-18T04:26:40.0000010Z   0      66      77 "
		     "MSNT_SystemTrace - id=0 v=2 lvl=0 op=SampleProf "
		     "task=PerfInfo kw=0x0 act=- stack=0xfffff80000001000,"
		     "0xfffff80000002000,0x401000,0x402000 "
		     "InstructionPointer=\"0xFFFFF80000001000\" ThreadId=77 "
		     "Count=1 Reserved=0\n"
		     "2022-06-18T04:26:40.0000050Z   0       0       0 "
		     "MSNT_SystemTrace - id=0 v=2 lvl=0 op=SampleProf "
		     "task=PerfInfo kw=0x0 act=- "
		     "InstructionPointer=\"0xFFFFF80000002000\" ThreadId=78 "
		     "Count=1 Reserved=0\n", self->run.out);
}

TEST_F(walks, json)
{
	self->run = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--stacks", "--no-symbols",
				     "--format", "json", "--fields",
				     "pid,tid,fields", self->path));
	ASSERT_EQ(0, self->run.status);
	EXPECT_STREQ("", self->run.err);
	EXPECT_STREQ("{\"pid\":66,\"tid\":77,\"fields\":{"
		     "\"InstructionPointer\":\"0xFFFFF80000001000\","
		     "\"ThreadId\":77,\"Count\":1,\"Reserved\":0},"
		     "\"stack\":[\"0xfffff80000001000\",\"0xfffff80000002000\","
		     "\"0x401000\",\"0x402000\"]}\n"
		     "{\"pid\":0,\"tid\":0,\"fields\":{"
		     "\"InstructionPointer\":\"0xFFFFF80000002000\","
		     "\"ThreadId\":78,\"Count\":1,\"Reserved\":0}}\n",
		     self->run.out);
}

/* The export's sample: the joined frames, outermost (user) first. */
TEST_F(walks, speedscope)
{
	self->run = ctl_run(etwctl_cmd_export,
			    CTL_ARGV("export", "--format", "speedscope",
				     self->path));
	ASSERT_EQ(0, self->run.status);
	EXPECT_STREQ("", self->run.err);
	EXPECT_STREQ("{\"$schema\":\"https://www.speedscope.app/"
		     "file-format-schema.json\",\"exporter\":\"etwctl\","
		     "\"name\":\"walks.etl\",\"activeProfileIndex\":1,"
		     "\"shared\":{\"frames\":[{\"name\":\"0xfffff80000001000\"},"
		     "{\"name\":\"0xfffff80000002000\"},{\"name\":\"0x401000\"},"
		     "{\"name\":\"0x402000\"}]},\"profiles\":["
		     "{\"type\":\"sampled\",\"name\":\"pid 0, tid 78\","
		     "\"unit\":\"none\",\"startValue\":0,\"endValue\":1,"
		     "\"samples\":[[1]],\"weights\":[1]},"
		     "{\"type\":\"sampled\",\"name\":\"pid 66, tid 77\","
		     "\"unit\":\"none\",\"startValue\":0,\"endValue\":1,"
		     "\"samples\":[[3,2,1,0]],\"weights\":[1]}]}\n",
		     self->run.out);
}

TEST_HARNESS_MAIN
