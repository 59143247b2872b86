// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_buffer.c and etw_consumer.c: reserve, commit, cancel,
 * seal, delivery, consumer cursors, the buffering-mode ring, the buffer
 * header byte by byte, the rule that every event ends written, lost or
 * overwritten, and the consumers' wakeup, deferred with interrupts off.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/etw_kapi.h>
#include <linux/irq_work.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "../compat.h"
#include "etw_test_util.h"

#define ETW_BT_BYTES	(ETW_MIN_BUFFER_KB * 1024)
#define ETW_BT_REC	64
/* A record that fills a buffer on its own. */
#define ETW_BT_FULL	(ETW_BT_BYTES - ETW_BUFFER_HEADER_SIZE)
#define ETW_BT_ONE	ETW_MODE_NO_PER_PROCESSOR

/* Reserve @len on the session's only stream; the caller commits. */
static struct etw_buffer *etw_bt_reserve(struct etw_session *s, u32 len,
					 u32 *off)
{
	u64 ts = 0;	/* read the clock */

	return etw_buffer_reserve(s, &s->streams[0], len, off, &ts);
}

/* Reserve and commit one record; false when no buffer was free. */
static bool etw_bt_write(struct etw_session *s, u32 len)
{
	struct etw_buffer *b;
	u32 off;

	b = etw_bt_reserve(s, len, &off);
	if (!b)
		return false;
	memset(b->data + off, 0xab, len);
	etw_buffer_commit(s, b);
	return true;
}

static struct etw_session_stats etw_bt_stats(struct etw_session *s)
{
	struct etw_session_stats st;

	etw_session_stats_fill(s, &st);
	return st;
}

static const struct etw_buffer_header *etw_bt_hdr(const struct etw_buffer *b)
{
	return b->data;
}

static void etw_buffer_fill_then_next_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *first, *b;
	unsigned int n = 1;
	u32 off;

	first = etw_bt_reserve(s, ETW_BT_REC, &off);
	KUNIT_ASSERT_NOT_NULL(test, first);
	KUNIT_EXPECT_EQ(test, off, ETW_BUFFER_HEADER_SIZE);
	etw_buffer_commit(s, first);
	for (;;) {
		b = etw_bt_reserve(s, ETW_BT_REC, &off);
		KUNIT_ASSERT_NOT_NULL(test, b);
		etw_buffer_commit(s, b);
		if (b != first)
			break;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, (ETW_BT_BYTES - ETW_BUFFER_HEADER_SIZE) /
			ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, off, ETW_BUFFER_HEADER_SIZE);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_PTR_EQ(test, etw_test_delivered(s, 0), first);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(first)->events, n);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(first)->offset,
			ETW_BUFFER_HEADER_SIZE + n * ETW_BT_REC);
	KUNIT_EXPECT_PTR_EQ(test, s->streams[0].cur, b);
}

static void etw_buffer_last_writer_delivers_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *b;
	u32 off;

	b = etw_bt_reserve(s, ETW_BT_REC, &off);
	KUNIT_ASSERT_NOT_NULL(test, b);
	etw_buffers_seal_all(s, false);
	KUNIT_EXPECT_NULL(test, s->streams[0].cur);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 0);
	etw_buffer_commit(s, b);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).events_written, 1);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).buffers_written, 1);
}

static void etw_buffer_flush_skips_empty_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *b;
	u32 off;

	b = etw_bt_reserve(s, ETW_BT_REC, &off);
	KUNIT_ASSERT_NOT_NULL(test, b);
	etw_buffer_cancel(s, &s->streams[0], b, off, ETW_BT_REC, ETW_BT_REC,
			  false);
	etw_buffers_seal_all(s, true);
	KUNIT_EXPECT_PTR_EQ(test, s->streams[0].cur, b);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 0);
}

static void etw_buffer_cancel_last_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *a, *b, *c;
	u32 aoff, boff, coff;

	a = etw_bt_reserve(s, ETW_BT_REC, &aoff);
	b = etw_bt_reserve(s, ETW_BT_REC, &boff);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_PTR_EQ(test, a, b);
	memset(b->data + boff, 0xab, ETW_BT_REC);
	etw_buffer_cancel(s, &s->streams[0], b, boff, ETW_BT_REC, 60, false);
	KUNIT_EXPECT_EQ(test, etw_buffer_reserved(b), boff);
	KUNIT_EXPECT_EQ(test, etw_buffer_events(b), 1);
	KUNIT_EXPECT_NULL(test, memchr_inv(b->data + boff, 0xff, ETW_BT_REC));
	c = etw_bt_reserve(s, ETW_BT_REC, &coff);
	KUNIT_EXPECT_PTR_EQ(test, c, a);
	KUNIT_EXPECT_EQ(test, coff, boff);
	etw_buffer_commit(s, a);
	etw_buffer_commit(s, c);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).events_lost, 0);
}

static void etw_buffer_cancel_earlier_pads_test(struct kunit *test)
{
	static const struct etw_guid padding = ETW_PADDING_PROVIDER;
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	const struct etw_event_header *h;
	struct etw_buffer *a, *b;
	u32 aoff, boff;

	a = etw_bt_reserve(s, ETW_BT_REC, &aoff);
	b = etw_bt_reserve(s, ETW_BT_REC, &boff);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_PTR_EQ(test, a, b);
	etw_buffer_cancel(s, &s->streams[0], a, aoff, ETW_BT_REC, 60, true);
	KUNIT_EXPECT_EQ(test, etw_buffer_reserved(b), boff + ETW_BT_REC);
	h = a->data + aoff;
	KUNIT_EXPECT_EQ(test, h->size, 60);
	KUNIT_EXPECT_EQ(test, h->header_type, ETW_EVENT_HEADER_TYPE_64);
	KUNIT_EXPECT_MEMEQ(test, &h->provider_id, &padding, sizeof(padding));
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).events_lost, 1);
	etw_buffer_commit(s, b);
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(b)->events, 1);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(b)->events_lost, 1);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(b)->buffer_flag,
			ETW_BUFFER_FLAG_PROC_INDEX |
			ETW_BUFFER_FLAG_EVENTS_LOST);
}

/* The provider a run's records are reported under. */
static const struct etw_guid etw_bt_provider = { 0x7e57b0f0, 1, 2,
	{ 3, 4, 5, 6, 7, 8, 9, 10 } };

/* Claim a run of up to 4 records after one, as the batch drain does. */
static struct etw_buffer_run etw_bt_claim_run(struct kunit *test,
					      struct etw_session *s)
{
	struct etw_buffer_run run;
	bool claimed;

	KUNIT_ASSERT_TRUE(test, etw_bt_write(s, ETW_BT_REC));
	preempt_disable();
	claimed = etw_buffer_claim_run(s, etw_session_stream(s), ETW_BT_REC,
				       4 * ETW_BT_REC, &run);
	preempt_enable();
	KUNIT_ASSERT_TRUE(test, claimed);
	KUNIT_EXPECT_EQ(test, run.off, ETW_BUFFER_HEADER_SIZE + ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, run.bytes, 4 * ETW_BT_REC);
	memset(run.b->data + run.off, 0xab, run.bytes);
	return run;
}

static void etw_buffer_run_gives_back_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer_run run = etw_bt_claim_run(test, s);
	u32 end = run.off + ETW_BT_REC;

	etw_buffer_give_back(&run, ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, run.bytes, ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, etw_buffer_reserved(run.b), end);
	/* Cleaned as etw_buffer_cancel() cleans what it gives back. */
	KUNIT_EXPECT_NULL(test, memchr_inv(run.b->data + end, 0xff,
					   3 * ETW_BT_REC));
	etw_buffer_commit_run(s, &run, 1, &etw_bt_provider);
	KUNIT_EXPECT_EQ(test, etw_buffer_events(run.b), 2);
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(run.b)->events, 2);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(run.b)->saved_offset, end);
}

static void etw_buffer_run_pads_before_later_test(struct kunit *test)
{
	static const struct etw_guid padding = ETW_PADDING_PROVIDER;
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer_run run = etw_bt_claim_run(test, s);
	const struct etw_event_header *h;
	struct etw_buffer *b;
	u32 off;

	/* A nested writer claims after the run. */
	b = etw_bt_reserve(s, ETW_BT_REC, &off);
	KUNIT_ASSERT_PTR_EQ(test, b, run.b);
	KUNIT_EXPECT_EQ(test, off, run.off + run.bytes);
	etw_buffer_give_back(&run, ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, etw_buffer_reserved(b), off + ETW_BT_REC);
	h = b->data + run.off + ETW_BT_REC;
	KUNIT_EXPECT_EQ(test, h->size, 3 * ETW_BT_REC);
	KUNIT_EXPECT_MEMEQ(test, &h->provider_id, &padding, sizeof(padding));
	etw_buffer_commit(s, b);
	etw_buffer_commit_run(s, &run, 1, &etw_bt_provider);
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(b)->events, 3);
}

static void etw_buffer_none_free_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 2);
	struct etw_session_stats st;
	u32 off;

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_NULL(test, etw_bt_reserve(s, ETW_BT_REC, &off));
	st = etw_bt_stats(s);
	KUNIT_EXPECT_EQ(test, st.free_buffers, 0);
	KUNIT_EXPECT_EQ(test, st.buffers_written, 2);
	KUNIT_EXPECT_EQ(test, st.events_lost, 0);
}

/* Buffers added to a running session (UPDATE) take what it refused. */
static void etw_buffer_grow_adds_free_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 2);
	struct etw_session_stats st;
	unsigned int i;
	u32 off;

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_NULL(test, etw_bt_reserve(s, ETW_BT_REC, &off));
	KUNIT_ASSERT_EQ(test, etw_buffers_grow(s, 3), 0);
	st = etw_bt_stats(s);
	KUNIT_EXPECT_EQ(test, st.buffers, 5);
	KUNIT_EXPECT_EQ(test, st.free_buffers, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_NULL(test, etw_bt_reserve(s, ETW_BT_REC, &off));
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).buffers_written, 5);
}

static void etw_buffer_ring_wraps_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test,
						 ETW_BT_ONE | ETW_MODE_BUFFERING,
						 2);
	struct etw_session_stats st;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	etw_buffers_seal_all(s, false);
	st = etw_bt_stats(s);
	KUNIT_EXPECT_EQ(test, st.buffers_overwritten, 1);
	KUNIT_EXPECT_EQ(test, st.events_overwritten, 1);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 0);
	etw_buffers_release_retained(s);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 2);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(etw_test_delivered(s, 0))->sequence_number, 2);
	KUNIT_EXPECT_EQ(test, etw_bt_hdr(etw_test_delivered(s, 1))->sequence_number, 3);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).events_written, 2);
}

static void etw_buffer_given_timestamp_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	u64 given = ktime_get_ns() + NSEC_PER_SEC, ts = given;
	struct etw_buffer *a, *b;
	u32 off;

	a = etw_buffer_reserve(s, &s->streams[0], ETW_BT_REC, &off, &ts);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, ts, given);
	/* An older time is raised: records in a buffer never go back. */
	ts = 1;
	b = etw_buffer_reserve(s, &s->streams[0], ETW_BT_REC, &off, &ts);
	KUNIT_ASSERT_PTR_EQ(test, b, a);
	KUNIT_EXPECT_EQ(test, ts, given);
	etw_buffer_commit(s, a);
	etw_buffer_commit(s, b);
}

/* etw_buffer_reserve_fast() of @len on stream 0; NULL: not its case. */
static struct etw_buffer *etw_bt_fast(struct etw_session *s, u32 len,
				      u32 *off, u64 *ts)
{
	struct etw_buffer *b;

	preempt_disable();
	b = etw_buffer_reserve_fast(s, &s->streams[0], len, off, ts);
	preempt_enable();
	return b;
}

static void etw_buffer_fast_next_record_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, 0, 4);
	u64 given = ktime_get_ns() + NSEC_PER_SEC, ts = given;
	struct etw_buffer *a, *b;
	u32 aoff, boff;

	a = etw_buffer_reserve(s, &s->streams[0], ETW_BT_REC, &aoff, &ts);
	KUNIT_ASSERT_NOT_NULL(test, a);
	etw_buffer_commit(s, a);
	/* An older time is raised, as on the slow path. */
	ts = 1;
	b = etw_bt_fast(s, ETW_BT_REC, &boff, &ts);
	KUNIT_ASSERT_PTR_EQ(test, b, a);
	KUNIT_EXPECT_EQ(test, boff, aoff + ETW_BT_REC);
	KUNIT_EXPECT_EQ(test, ts, given);
	KUNIT_EXPECT_EQ(test, etw_buffer_events(b), 2);
	etw_buffer_commit(s, b);
}

/*
 * What the fast path leaves to etw_buffer_reserve(), after a first record
 * of @first bytes (0: none) in a session of @mode, its state then sealed
 * if @seal (as a sealer on another CPU leaves it, seen between its two
 * steps).
 */
struct etw_fast_case {
	const char *name;
	u32 mode;
	u32 first;
	bool seal;
};

static const struct etw_fast_case etw_fast_cases[] = {
	{ "no current buffer", 0, 0, false },
	{ "record does not fit", 0, ETW_BT_FULL, false },
	{ "buffer sealed", 0, ETW_BT_REC, true },
	{ "shared stream", ETW_MODE_NO_PER_PROCESSOR, ETW_BT_REC, false },
};

static void etw_fast_desc(const struct etw_fast_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_fast, etw_fast_cases, etw_fast_desc);

static void etw_buffer_fast_declines_test(struct kunit *test)
{
	const struct etw_fast_case *c = test->param_value;
	struct etw_session *s = etw_test_session(test, c->mode, 4);
	struct etw_buffer *b = NULL;
	u64 state = 0, ts = 1;
	u32 off;

	if (c->first) {
		b = etw_bt_reserve(s, c->first, &off);
		KUNIT_ASSERT_NOT_NULL(test, b);
		etw_buffer_commit(s, b);
		if (c->seal)
			atomic64_or(ETW_BS_SEALED, &b->state);
		state = atomic64_read(&b->state);
	}
	KUNIT_EXPECT_NULL(test, etw_bt_fast(s, ETW_BT_REC, &off, &ts));
	KUNIT_EXPECT_PTR_EQ(test, s->streams[0].cur, b);
	if (b)
		KUNIT_EXPECT_EQ(test, atomic64_read(&b->state), state);
	/* The stream's own sealer has not run: let the session end as is. */
	if (c->seal)
		atomic64_andnot(ETW_BS_SEALED, &b->state);
}

/* One field of the header of a buffer holding two 64-byte records. */
struct etw_hdr_case {
	const char *name;
	u8 offset;
	u8 width;
	u64 expect;
};

#define ETW_HDR_FILLED	(ETW_BUFFER_HEADER_SIZE + 2 * ETW_BT_REC)
#define ETW_HDR_CPU	3

static const struct etw_hdr_case etw_hdr_cases[] = {
	{ "0x00 buffer_size", 0x00, 4, ETW_BT_BYTES },
	{ "0x04 saved_offset", 0x04, 4, ETW_HDR_FILLED },
	{ "0x08 current_offset", 0x08, 4, ETW_HDR_FILLED },
	{ "0x0c reference_count", 0x0c, 4, 0 },
	{ "0x18 sequence_number", 0x18, 8, 1 },
	{ "0x20 clock", 0x20, 8, 0 },
	{ "0x28 processor_index", 0x28, 2, ETW_HDR_CPU },
	{ "0x2a logger_id", 0x2a, 2, ETW_TEST_LOGGER_ID },
	{ "0x2c state", 0x2c, 4, ETW_BUFFER_STATE_FLUSH },
	{ "0x30 offset", 0x30, 4, ETW_HDR_FILLED },
	{ "0x34 buffer_flag", 0x34, 2, ETW_BUFFER_FLAG_PROC_INDEX },
	{ "0x36 buffer_type", 0x36, 2, ETW_BUFFER_TYPE_GENERIC },
	{ "0x38 events", 0x38, 4, 2 },
	{ "0x3c events_lost", 0x3c, 4, 0 },
	{ "0x40 reserved", 0x40, 8, 0 },
};

static void etw_hdr_desc(const struct etw_hdr_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_hdr, etw_hdr_cases, etw_hdr_desc);

/* A sealed buffer with two records, on stream cpu ETW_HDR_CPU. */
static struct etw_buffer *etw_hdr_buffer(struct kunit *test, u64 *ts)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *b;
	u32 off;

	s->streams[0].cpu = ETW_HDR_CPU;
	KUNIT_ASSERT_TRUE(test, etw_bt_write(s, ETW_BT_REC));
	*ts = 0;
	b = etw_buffer_reserve(s, &s->streams[0], ETW_BT_REC, &off, ts);
	KUNIT_ASSERT_NOT_NULL(test, b);
	etw_buffer_commit(s, b);
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_PTR_EQ(test, etw_test_delivered(s, 0), b);
	return b;
}

static u64 etw_hdr_field(const u8 *p, u8 width)
{
	switch (width) {
	case 2:
		return get_unaligned_le16(p);
	case 4:
		return get_unaligned_le32(p);
	default:
		return get_unaligned_le64(p);
	}
}

static void etw_buffer_header_field_test(struct kunit *test)
{
	const struct etw_hdr_case *c = test->param_value;
	struct etw_buffer *b;
	u64 ts;

	b = etw_hdr_buffer(test, &ts);
	KUNIT_EXPECT_EQ(test, etw_hdr_field(b->data + c->offset, c->width),
			c->expect);
}

static void etw_buffer_header_timestamp_test(struct kunit *test)
{
	struct etw_buffer *b;
	u64 ts, seal;

	b = etw_hdr_buffer(test, &ts);
	seal = get_unaligned_le64(b->data + 0x10);
	KUNIT_EXPECT_GE(test, seal, ts);
	KUNIT_EXPECT_LE(test, seal, ktime_get_ns());
}

static void etw_buffer_header_tail_test(struct kunit *test)
{
	struct etw_buffer *b;
	u64 ts;

	b = etw_hdr_buffer(test, &ts);
	KUNIT_EXPECT_EQ(test, sizeof(struct etw_buffer_header),
			ETW_BUFFER_HEADER_SIZE);
	KUNIT_EXPECT_NULL(test, memchr_inv(b->data + ETW_HDR_FILLED, 0xff,
					   ETW_BT_BYTES - ETW_HDR_FILLED));
}

/*
 * Every event attempted ends written, lost or overwritten.  The events go
 * through the write path (an in-kernel provider) into session A, which
 * counts them itself; the test only checks how the sum splits.  A level-2
 * event is also routed to session B, whose only buffer is full: B cannot
 * take it, so A cancels its reservation and counts the event lost (B is
 * not independent).
 */
#define ETW_LT_SMALL	48	/* payload: 128-byte records, 31 a buffer */
#define ETW_LT_FULL	(ETW_BT_FULL - sizeof(struct etw_event_header))

struct etw_loss_case {
	const char *name;
	u32 mode;
	u32 nbuffers;
	u32 events;
	u32 payload;
	u32 cancel_every;	/* every n-th is a level-2 event, 0: none */
	u64 written;
	u64 lost;
	u64 overwritten;
};

static const struct etw_loss_case etw_loss_cases[] = {
	{ "real time, room for all", ETW_BT_ONE, 8, 40, ETW_LT_SMALL, 0,
	  40, 0, 0 },
	/* Two records, then no buffer for the other five. */
	{ "real time, out of buffers", ETW_BT_ONE, 2, 7, ETW_LT_FULL, 0,
	  2, 5, 0 },
	/* 66 cancelled; of the other 134, 2 * 31 fit. */
	{ "real time, cancellations", ETW_BT_ONE, 2, 200, ETW_LT_SMALL, 3,
	  62, 138, 0 },
	/* The ring keeps the last two records; seven were overwritten. */
	{ "buffering, ring wraps", ETW_BT_ONE | ETW_MODE_BUFFERING, 2, 9,
	  ETW_LT_FULL, 0, 2, 0, 7 },
	/* 75 cancelled; the other 225 fill 7 * 31 + 8: the last two kept. */
	{ "buffering, wraps and cancels", ETW_BT_ONE | ETW_MODE_BUFFERING, 2,
	  300, ETW_LT_SMALL, 4, 31 + 8, 75, 225 - 39 },
};

static void etw_loss_desc(const struct etw_loss_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_loss, etw_loss_cases, etw_loss_desc);

/* The provider and the sessions it is enabled for, undone at test end. */
struct etw_loss_rig {
	struct etw_kprovider *kp;
	struct etw_guid guid;
	struct etw_session *s[2];
	unsigned int ns;
};

static void etw_loss_rig_undo(void *arg)
{
	struct etw_loss_rig *r = arg;
	unsigned int i;

	for (i = 0; i < r->ns; i++)
		etw_test_control(r->s[i], &r->guid, false,
				 ETW_CONTROL_DISABLE, NULL);
	if (!IS_ERR_OR_NULL(r->kp))
		etw_kprovider_unregister(r->kp);
}

/* Enable @s for the rig's provider up to @level. */
static void etw_loss_enable(struct kunit *test, struct etw_loss_rig *r,
			    struct etw_session *s, u8 level)
{
	struct etw_enable *e = kzalloc(sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->level = level;
	KUNIT_ASSERT_EQ(test, etw_test_control(s, &r->guid, false,
					       ETW_CONTROL_ENABLE, e), 0);
	r->s[r->ns++] = s;
}

static void etw_buffer_loss_accounting_test(struct kunit *test)
{
	const struct etw_loss_case *c = test->param_value;
	struct etw_event_descriptor d = { .id = 1 };
	struct etw_data_descriptor data = { .size = c->payload };
	struct etw_session *a, *b;
	struct etw_session_stats st;
	struct etw_loss_rig *r;
	void *payload;
	u32 i;
	int ret;

	a = etw_test_session(test, c->mode, c->nbuffers);
	b = etw_test_session(test, ETW_BT_ONE, 1);
	/* B's only buffer is full and delivered: it can take nothing. */
	KUNIT_ASSERT_TRUE(test, etw_bt_write(b, ETW_BT_FULL));
	etw_buffers_seal_all(b, false);
	payload = kunit_kzalloc(test, c->payload, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	data.ptr = (uintptr_t)payload;
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	etw_test_guid(&r->guid);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, etw_loss_rig_undo,
							r), 0);
	r->kp = etw_kprovider_register(&r->guid, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(r->kp));
	etw_loss_enable(test, r, a, 4);
	etw_loss_enable(test, r, b, 2);

	for (i = 1; i <= c->events; i++) {
		d.level = c->cancel_every && !(i % c->cancel_every) ? 2 : 4;
		ret = etw_kprovider_write(r->kp, &d, NULL, NULL, 1, &data);
		KUNIT_EXPECT_TRUE(test, ret == 0 || ret == -ENOBUFS);
	}
	etw_buffers_seal_all(a, false);
	etw_buffers_release_retained(a);
	st = etw_bt_stats(a);
	KUNIT_EXPECT_EQ(test, st.events_written, c->written);
	KUNIT_EXPECT_EQ(test, st.events_lost, c->lost);
	KUNIT_EXPECT_EQ(test, st.events_overwritten, c->overwritten);
	KUNIT_EXPECT_EQ(test, st.events_written + st.events_lost +
			st.events_overwritten, c->events);
	/* B lost each level-2 event and wrote only its own record. */
	st = etw_bt_stats(b);
	KUNIT_EXPECT_EQ(test, st.events_lost, c->cancel_every ?
			c->events / c->cancel_every : 0);
	KUNIT_EXPECT_EQ(test, st.events_written, 1);
}

static void etw_buffer_discard_unread_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_session_stats st;

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	etw_buffers_seal_all(s, false);
	etw_consumer_discard_unread(s);
	st = etw_bt_stats(s);
	KUNIT_EXPECT_EQ(test, st.realtime_buffers_lost, 2);
	KUNIT_EXPECT_EQ(test, st.buffers_written, 0);
	KUNIT_EXPECT_EQ(test, st.events_written, 0);
	KUNIT_EXPECT_EQ(test, st.events_lost, 2);
	KUNIT_EXPECT_EQ(test, st.free_buffers, 4);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 0);
}

static void etw_buffer_discard_keeps_consumed_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	u64 cursor;

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_REC));
	etw_buffers_seal_all(s, false);
	cursor = etw_consumer_attach(s);
	etw_consumer_discard_unread(s);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).realtime_buffers_lost, 0);
	etw_consumer_detach(s, cursor);
}

static void etw_consumer_backlog_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct etw_buffer *first;
	u64 cursor;

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	etw_buffers_seal_all(s, false);
	first = etw_test_delivered(s, 0);
	KUNIT_ASSERT_NOT_NULL(test, first);
	cursor = etw_consumer_attach(s);
	KUNIT_EXPECT_EQ(test, cursor, first->dseq);
	KUNIT_EXPECT_EQ(test, first->pending, 1);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).consumers, 1);
	/* Unread buffers stay for the next consumer. */
	etw_consumer_detach(s, cursor);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 2);
	KUNIT_EXPECT_EQ(test, first->pending, 0);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).consumers, 0);
}

static void etw_consumer_attach_empty_test(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	u64 cursor;

	cursor = etw_consumer_attach(s);
	KUNIT_EXPECT_EQ(test, cursor, 1);
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_REC));
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 1);
	KUNIT_EXPECT_EQ(test, etw_test_delivered(s, 0)->dseq, cursor);
	KUNIT_EXPECT_EQ(test, etw_test_delivered(s, 0)->pending, 1);
	etw_consumer_detach(s, cursor);
}

static void etw_bt_mmdrop(void *mm)
{
	mmdrop(mm);
}

/*
 * User memory for etw_consumer_read(), in a mapping KUnit unmaps.  The
 * first kunit_vm_mmap() of a test gives its thread a new mm through
 * kthread_use_mm(), whose mm_count reference the thread's exit does not
 * drop (lib/kunit/user_alloc.c, 6.12): the test drops it, or the mm is
 * leaked, which kmemleak reports after rmmod on arm64 (on x86-64 the CPU's
 * last loaded mm still points at it).
 */
static char __user *etw_bt_user_buf(struct kunit *test, size_t len)
{
	bool attach = !current->mm;
	unsigned long addr;
	int ret;

	addr = kunit_vm_mmap(test, NULL, 0, len, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "kunit_vm_mmap failed");
	if (attach) {
		ret = kunit_add_action_or_reset(test, etw_bt_mmdrop,
						current->mm);
		KUNIT_ASSERT_EQ(test, ret, 0);
	}
	return (char __user *)addr;
}

/* Two delivered buffers of one full-size record each. */
static struct etw_session *etw_bt_two_delivered(struct kunit *test)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);

	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	KUNIT_EXPECT_TRUE(test, etw_bt_write(s, ETW_BT_FULL));
	etw_buffers_seal_all(s, false);
	KUNIT_ASSERT_EQ(test, etw_test_ndelivered(s), 2);
	return s;
}

static void etw_consumer_read_in_order_test(struct kunit *test)
{
	struct etw_session *s = etw_bt_two_delivered(test);
	char __user *ubuf = etw_bt_user_buf(test, ETW_BT_BYTES);
	u8 *want, *got;
	u64 cursor;
	int i;

	want = kunit_kmalloc(test, ETW_BT_BYTES, GFP_KERNEL);
	got = kunit_kmalloc(test, ETW_BT_BYTES, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, got);
	cursor = etw_consumer_attach(s);
	for (i = 0; i < 2; i++) {
		/* Read buffers go back to the free list: copy it first. */
		memcpy(want, etw_test_delivered(s, 0)->data, ETW_BT_BYTES);
		KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &cursor, ubuf,
							ETW_BT_BYTES),
				ETW_BT_BYTES);
		KUNIT_ASSERT_EQ(test, copy_from_user(got, ubuf, ETW_BT_BYTES),
				0UL);
		KUNIT_EXPECT_MEMEQ(test, got, want, ETW_BT_BYTES);
		KUNIT_EXPECT_EQ(test, get_unaligned_le64(got + 0x18), i + 1);
	}
	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &cursor, ubuf, ETW_BT_BYTES),
			-EAGAIN);
	/* Both went back to the free list; none is current. */
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).free_buffers, 4);
	/* Stopped is not the end: stop may still be sealing buffers. */
	s->stopped = true;
	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &cursor, ubuf, ETW_BT_BYTES),
			-EAGAIN);
	s->ended = true;
	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &cursor, ubuf, ETW_BT_BYTES),
			0);
	etw_consumer_detach(s, cursor);
}

static void etw_consumer_read_short_test(struct kunit *test)
{
	struct etw_session *s = etw_bt_two_delivered(test);
	char __user *ubuf = etw_bt_user_buf(test, ETW_BT_BYTES);
	u64 cursor = etw_consumer_attach(s);

	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &cursor, ubuf,
						ETW_BT_BYTES - 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 2);
	etw_consumer_detach(s, cursor);
}

static void etw_consumer_every_reader_test(struct kunit *test)
{
	struct etw_session *s = etw_bt_two_delivered(test);
	char __user *ubuf = etw_bt_user_buf(test, ETW_BT_BYTES);
	u64 c1 = etw_consumer_attach(s);
	u64 c2 = etw_consumer_attach(s);

	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &c1, ubuf, ETW_BT_BYTES),
			ETW_BT_BYTES);
	/* The second consumer has not read it: it stays. */
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 2);
	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &c2, ubuf, ETW_BT_BYTES),
			ETW_BT_BYTES);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 1);
	/* A consumer leaving drops its claim on what it did not read. */
	KUNIT_EXPECT_EQ(test, etw_consumer_read(s, &c1, ubuf, ETW_BT_BYTES),
			ETW_BT_BYTES);
	etw_consumer_detach(s, c2);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 0);
	KUNIT_EXPECT_EQ(test, etw_bt_stats(s).free_buffers, 4);
	etw_consumer_detach(s, c1);
}

/* A consumer's wait entry that counts its wakeups in @private. */
static int etw_bt_woken(struct wait_queue_entry *w, unsigned int mode,
			int flags, void *key)
{
	(*(unsigned int *)w->private)++;
	return 0;
}

/*
 * A delivery with interrupts on wakes the consumers at once; with them
 * off (a scheduler probe's, under a runqueue lock) it only queues the
 * session's irq_work, which wakes them once interrupts are on again.
 */
static void etw_buffer_wakeup_test(struct kunit *test, bool irqs_off)
{
	struct etw_session *s = etw_test_session(test, ETW_BT_ONE, 4);
	struct wait_queue_entry w;
	unsigned int woken = 0;
	unsigned long flags;

	init_waitqueue_func_entry(&w, etw_bt_woken);
	w.private = &woken;
	add_wait_queue(&s->cwait, &w);
	KUNIT_ASSERT_TRUE(test, etw_bt_write(s, ETW_BT_REC));
	if (irqs_off) {
		local_irq_save(flags);
		etw_buffers_seal_all(s, false);
		KUNIT_EXPECT_EQ(test, woken, 0);
		KUNIT_EXPECT_TRUE(test, irq_work_is_pending(&s->wake_work));
		local_irq_restore(flags);
		irq_work_sync(&s->wake_work);
	} else {
		etw_buffers_seal_all(s, false);
		KUNIT_EXPECT_FALSE(test, irq_work_is_busy(&s->wake_work));
	}
	KUNIT_EXPECT_EQ(test, woken, 1);
	KUNIT_EXPECT_EQ(test, etw_test_ndelivered(s), 1);
	remove_wait_queue(&s->cwait, &w);
}

static void etw_buffer_wakeup_direct_test(struct kunit *test)
{
	etw_buffer_wakeup_test(test, false);
}

static void etw_buffer_wakeup_deferred_test(struct kunit *test)
{
	etw_buffer_wakeup_test(test, true);
}

static struct kunit_case etw_buffer_cases[] = {
	KUNIT_CASE(etw_buffer_fill_then_next_test),
	KUNIT_CASE(etw_buffer_last_writer_delivers_test),
	KUNIT_CASE(etw_buffer_flush_skips_empty_test),
	KUNIT_CASE(etw_buffer_cancel_last_test),
	KUNIT_CASE(etw_buffer_cancel_earlier_pads_test),
	KUNIT_CASE(etw_buffer_run_gives_back_test),
	KUNIT_CASE(etw_buffer_run_pads_before_later_test),
	KUNIT_CASE(etw_buffer_none_free_test),
	KUNIT_CASE(etw_buffer_grow_adds_free_test),
	KUNIT_CASE(etw_buffer_ring_wraps_test),
	KUNIT_CASE(etw_buffer_given_timestamp_test),
	KUNIT_CASE(etw_buffer_fast_next_record_test),
	KUNIT_CASE_PARAM(etw_buffer_fast_declines_test, etw_fast_gen_params),
	KUNIT_CASE_PARAM(etw_buffer_header_field_test, etw_hdr_gen_params),
	KUNIT_CASE(etw_buffer_header_timestamp_test),
	KUNIT_CASE(etw_buffer_header_tail_test),
	KUNIT_CASE_PARAM(etw_buffer_loss_accounting_test, etw_loss_gen_params),
	KUNIT_CASE(etw_buffer_discard_unread_test),
	KUNIT_CASE(etw_buffer_discard_keeps_consumed_test),
	KUNIT_CASE(etw_consumer_backlog_test),
	KUNIT_CASE(etw_consumer_attach_empty_test),
	KUNIT_CASE(etw_consumer_read_in_order_test),
	KUNIT_CASE(etw_consumer_read_short_test),
	KUNIT_CASE(etw_consumer_every_reader_test),
	KUNIT_CASE(etw_buffer_wakeup_direct_test),
	KUNIT_CASE(etw_buffer_wakeup_deferred_test),
	{}
};

static struct kunit_suite etw_buffer_suite = {
	.name = "etw_buffer",
	.test_cases = etw_buffer_cases,
};
kunit_test_suite(etw_buffer_suite);
