// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The records etw_batch_put() stages (userlib/etw_batch.h), read back by a
 * double of the kernel's drain that follows uapi/linux/etw.h's contract:
 * layout, alignment, the wrap marker, the drain threshold, a full ring,
 * and what goes directly instead.  No /dev/etw: the ring is plain memory
 * and etw_batch_drain() is the double.
 */
#include <stdlib.h>
#include <string.h>

#include "etw_batch.h"
#include "kselftest_harness.h"

#define RING		ETW_BATCH_DEFAULT_RING
#define CTL_SIZE	4096
#define REG_ID		7

static const uint32_t reg_id = REG_ID;

/* A record the double consumed: its header and where its payload was. */
struct drained {
	struct etw_staged_event e;
	uint32_t off;
	unsigned char payload[RING / 2];
};

static struct drained seen[64];
static unsigned int nseen;	/* records, also past the array */
static unsigned int drains;
static unsigned int wraps;
static bool bad;		/* a record the kernel would refuse */
/* Records must be put(next_seq, next_seq % MANY_LEN), in order. */
#define MANY_LEN	700
static bool check_seq;
static uint32_t next_seq;

static bool pattern_ok(const unsigned char *p, uint32_t seq, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seq * 31 + i))
			return false;
	return true;
}

/* The record is the next of many_records_arrive_in_order's. */
static bool next_ok(const struct etw_staged_event *e)
{
	uint32_t len = e->size - ETW_STAGED_EVENT_SIZE;

	if (len != next_seq % MANY_LEN ||
	    !pattern_ok((const void *)(e + 1), next_seq, len))
		return false;
	next_seq++;
	return true;
}

/* The mapping: struct etw_batch_ctl's page, then the ring. */
static uint64_t area[(CTL_SIZE + RING) / sizeof(uint64_t)];
static unsigned char payload[RING];

/* The double: consume from tail to head as the kernel does. */
void etw_batch_drain(struct etw_batch *b)
{
	struct etw_batch_ctl *ctl = b->ctl;
	uint64_t tail = ctl->tail;
	/* Pairs with the store-release of head in etw_batch_put(). */
	uint64_t head = __atomic_load_n(&ctl->head, __ATOMIC_ACQUIRE);
	const struct etw_staged_event *e;
	uint32_t off;

	drains++;
	while (tail < head) {
		off = tail & b->mask;
		e = (const void *)(b->ring + off);
		if (off % 8 || head - tail < sizeof(e->size)) {
			bad = true;
			break;
		}
		if (e->size == ETW_STAGED_WRAP) {
			wraps++;
			tail += RING - off;
			continue;
		}
		if (e->size < ETW_STAGED_EVENT_SIZE || off + e->size > RING ||
		    e->reg_id != REG_ID || e->reserved1 || e->reserved2 ||
		    e->reserved3 || (e->flags & ~ETW_EVENT_FLAG_STRING_ONLY) ||
		    (check_seq && !next_ok(e))) {
			bad = true;
			break;
		}
		if (nseen < ARRAY_SIZE(seen)) {
			seen[nseen].e = *e;
			seen[nseen].off = off;
			memcpy(seen[nseen].payload, e + 1,
			       e->size - ETW_STAGED_EVENT_SIZE);
		}
		nseen++;
		tail += (e->size + 7) & ~7u;
	}
	/* Pairs with the load-acquire of tail in etw_batch_put(). */
	__atomic_store_n(&ctl->tail, tail, __ATOMIC_RELEASE);
}

static void ring_init(struct etw_batch *b)
{
	memset(area, 0xa5, sizeof(area));
	memset(area, 0, sizeof(struct etw_batch_ctl));
	memset(b, 0, sizeof(*b));
	b->gate.dev_fd = 3;
	/* A CLOCK_MONOTONIC ring; the fast path's tests make it a TSC one. */
	b->gate.monotonic = true;
	b->mask = RING - 1;
	b->max_record = RING / 2;
	b->ctl = (void *)area;
	b->ring = (uint8_t *)area + CTL_SIZE;
	b->fd = -1;
	nseen = drains = wraps = 0;
	bad = false;
	check_seq = false;
	next_seq = 0;
	memset(seen, 0, sizeof(seen));
}

static const EVENT_DESCRIPTOR desc = { .Id = 9, .Version = 1, .Level = 4,
				       .Task = 3, .Keyword = 0x11 };
static const GUID act = { 0xac7, 1, 2, { 3, 4, 5, 6, 7, 8, 9, 10 } };

/* Stage @len bytes of pattern @seq as one piece. */
static bool put(struct etw_batch *b, uint32_t seq, uint32_t len)
{
	EVENT_DATA_DESCRIPTOR d;
	uint32_t i;

	for (i = 0; i < len; i++)
		payload[i] = (unsigned char)(seq * 31 + i);
	EventDataDescCreate(&d, payload, len);
	return etw_batch_put(b, REG_ID, &desc, &act, 1, &d, 0);
}

TEST(a_record_holds_the_event)
{
	static const unsigned char a[] = "abc", c[] = "defgh";
	EVENT_DATA_DESCRIPTOR d[3];
	struct etw_batch b;
	struct timespec t0, t1;
	uint64_t ns0, ns1;

	ring_init(&b);
	EventDataDescCreate(&d[0], a, 3);
	EventDataDescCreate(&d[1], NULL, 0);
	EventDataDescCreate(&d[2], c, 5);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_TRUE(etw_batch_put(&b, REG_ID, &desc, &act, 3, d,
				  ETW_EVENT_FLAG_STRING_ONLY));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_EQ(88, b.head);		/* 80 + 8 */
	EXPECT_EQ(88, b.ctl->head);
	EXPECT_EQ(0, drains);

	etw_batch_drain(&b);
	ASSERT_FALSE(bad);
	ASSERT_EQ(1, nseen);
	EXPECT_EQ(ETW_STAGED_EVENT_SIZE + 8, seen[0].e.size);
	EXPECT_EQ(REG_ID, seen[0].e.reg_id);
	EXPECT_EQ(0, memcmp(&seen[0].e.descriptor, &desc, sizeof(desc)));
	EXPECT_EQ(0, memcmp(&seen[0].e.activity_id, &act, sizeof(act)));
	EXPECT_EQ(ETW_EVENT_FLAG_STRING_ONLY, seen[0].e.flags);
	EXPECT_EQ(0, memcmp(seen[0].payload, "abcdefgh", 8));
	ns0 = (uint64_t)t0.tv_sec * 1000000000 + t0.tv_nsec;
	ns1 = (uint64_t)t1.tv_sec * 1000000000 + t1.tv_nsec;
	EXPECT_LE(ns0, seen[0].e.timestamp);
	EXPECT_GE(ns1, seen[0].e.timestamp);
	EXPECT_EQ(88, b.ctl->tail);
}

TEST(records_start_8_aligned)
{
	struct etw_batch b;

	ring_init(&b);
	ASSERT_TRUE(put(&b, 1, 1));
	ASSERT_TRUE(put(&b, 2, 9));
	ASSERT_TRUE(put(&b, 3, 0));
	/* 81 -> 88, 89 -> 96, 80. */
	EXPECT_EQ(88 + 96 + 80, b.head);
	etw_batch_drain(&b);
	ASSERT_FALSE(bad);
	ASSERT_EQ(3, nseen);
	EXPECT_EQ(0, seen[0].off);
	EXPECT_EQ(88, seen[1].off);
	EXPECT_EQ(184, seen[2].off);
	EXPECT_TRUE(pattern_ok(seen[1].payload, 2, 9));
}

/* Each returns false with nothing stored: the caller writes directly. */
TEST(what_the_kernel_refuses_is_not_staged)
{
	EVENT_DATA_DESCRIPTOR d[ETW_MAX_DATA_DESCRIPTORS + 1];
	struct etw_batch b;

	ring_init(&b);
	memset(d, 0, sizeof(d));
	EXPECT_FALSE(etw_batch_put(&b, REG_ID, &desc, &act,
				   ETW_MAX_DATA_DESCRIPTORS + 1, d, 0));
	EXPECT_FALSE(etw_batch_put(&b, REG_ID, &desc, &act, 1, NULL, 0));
	EventDataDescCreate(&d[0], NULL, 4);
	EXPECT_FALSE(etw_batch_put(&b, REG_ID, &desc, &act, 1, d, 0));
	/* Over half the ring, by one byte. */
	EXPECT_FALSE(put(&b, 1, RING / 2 - ETW_STAGED_EVENT_SIZE + 1));
	EXPECT_EQ(0, b.head);
	EXPECT_EQ(0, b.ctl->head);
	EXPECT_EQ(0, drains);
	/* Exactly half is staged. */
	EXPECT_TRUE(put(&b, 1, RING / 2 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(RING / 2, b.head);
}

TEST(the_ring_drains_once_past_half)
{
	struct etw_batch b;
	unsigned int i;

	ring_init(&b);
	/* 16 records of 2 KiB: exactly half, not past it. */
	for (i = 0; i < 16; i++)
		ASSERT_TRUE(put(&b, i, 2048 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(0, drains);
	ASSERT_TRUE(put(&b, 16, 1));
	EXPECT_EQ(1, drains);
	EXPECT_EQ(17, nseen);
	EXPECT_EQ(b.head, b.ctl->tail);
	EXPECT_FALSE(bad);
}

TEST(a_record_past_the_end_starts_at_0)
{
	struct etw_batch b;

	ring_init(&b);
	/* 60 KiB in 15 records of 4 KiB, drained as they go. */
	while (b.head < RING - 4096)
		ASSERT_TRUE(put(&b, 1, 4096 - ETW_STAGED_EVENT_SIZE));
	etw_batch_drain(&b);
	drains = nseen = 0;
	/* 8 KiB does not fit in the last 4 KiB. */
	ASSERT_TRUE(put(&b, 2, 8192 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(ETW_STAGED_WRAP,
		  ((struct etw_staged_event *)(b.ring + RING - 4096))->size);
	EXPECT_EQ(RING + 8192, b.head);
	etw_batch_drain(&b);
	ASSERT_FALSE(bad);
	EXPECT_EQ(1, wraps);
	ASSERT_EQ(1, nseen);
	EXPECT_EQ(0, seen[0].off);
	EXPECT_TRUE(pattern_ok(seen[0].payload, 2,
			       8192 - ETW_STAGED_EVENT_SIZE));
}

/*
 * 32 KiB staged from 8 to 40 KiB (not past half), then 28 KiB, which must
 * skip the last 24: 52 KiB with 32 free.  The write drains first, and
 * again once it staged (52 KiB are past half).
 */
TEST(a_full_ring_drains_before_it_stages)
{
	struct etw_batch b;
	unsigned int i;

	ring_init(&b);
	ASSERT_TRUE(put(&b, 0, 8192 - ETW_STAGED_EVENT_SIZE));
	etw_batch_drain(&b);
	for (i = 1; i < 5; i++)
		ASSERT_TRUE(put(&b, i, 8192 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(1, drains);
	ASSERT_TRUE(put(&b, 5, 28 * 1024 - ETW_STAGED_EVENT_SIZE));
	/* The one that made room, then 52 KiB staged: past half. */
	EXPECT_EQ(3, drains);
	ASSERT_FALSE(bad);
	ASSERT_EQ(6, nseen);
	EXPECT_EQ(0, seen[5].off);
	EXPECT_EQ(1, wraps);
	EXPECT_TRUE(pattern_ok(seen[5].payload, 5,
			       28 * 1024 - ETW_STAGED_EVENT_SIZE));
}

TEST(many_records_arrive_in_order)
{
	struct etw_batch b;
	unsigned int i;

	ring_init(&b);
	check_seq = true;
	for (i = 0; i < 20000; i++)
		ASSERT_TRUE(put(&b, i, i % MANY_LEN));
	etw_batch_drain(&b);
	EXPECT_FALSE(bad);
	EXPECT_EQ(20000, nseen);
	EXPECT_EQ(20000, next_seq);
	EXPECT_EQ(b.head, b.ctl->tail);
	EXPECT_LT(0, wraps);
}

/* --- the fast path (etw_batch_stage_one()) --------------------------------- */

/* A TSC ring, which the fast path stages in, with its limit set. */
static void fast_init(struct etw_batch *b)
{
	ring_init(b);
	b->gate.monotonic = false;
	etw_batch_set_limit(b, 0);
}

static enum etw_batch_result fast_put(struct etw_batch *b, uint32_t seq,
				      uint32_t len)
{
	EVENT_DATA_DESCRIPTOR d;
	uint32_t i;

	for (i = 0; i < len; i++)
		payload[i] = (unsigned char)(seq * 31 + i);
	EventDataDescCreate(&d, payload, len);
	return etw_batch_stage_one(b, etw_batch_gate_open(b, 3), &reg_id,
				   &desc, &act, 1, &d);
}

TEST(the_fast_path_stages_the_record_put_would)
{
	struct etw_batch b;
	uint64_t t0, t1;

	fast_init(&b);
	t0 = etw_batch_fast_now();
	ASSERT_EQ(ETW_BATCH_STAGED, fast_put(&b, 1, 9));
	t1 = etw_batch_fast_now();
	EXPECT_EQ(96, b.head);		/* 89 -> 96 */
	EXPECT_EQ(96, b.ctl->head);
	EXPECT_FALSE(b.gate.busy);
	etw_batch_drain(&b);
	ASSERT_FALSE(bad);
	ASSERT_EQ(1, nseen);
	EXPECT_EQ(ETW_STAGED_EVENT_SIZE + 9, seen[0].e.size);
	EXPECT_EQ(0, seen[0].e.flags);
	EXPECT_EQ(0, memcmp(&seen[0].e.descriptor, &desc, sizeof(desc)));
	EXPECT_EQ(0, memcmp(&seen[0].e.activity_id, &act, sizeof(act)));
	EXPECT_TRUE(pattern_ok(seen[0].payload, 1, 9));
	EXPECT_LE(t0, seen[0].e.timestamp);
	EXPECT_GE(t1, seen[0].e.timestamp);
}

/* What the fast path leaves to etw_batch_stage(), storing nothing. */
enum slow_case {
	OTHER_FILE, BUSY, MONOTONIC_RING, TWO_PIECES, NO_ARRAY, NULL_PIECE,
	OVER_MAX_RECORD, PAST_LIMIT,
};

TEST(the_fast_path_leaves_what_it_cannot_stage)
{
	EVENT_DATA_DESCRIPTOR d[2];
	struct etw_batch b;
	int c;

	for (c = OTHER_FILE; c <= PAST_LIMIT; c++) {
		int fd = c == OTHER_FILE ? 4 : 3;
		ULONG count = c == TWO_PIECES ? 2 : 1;
		uint32_t len = c == OVER_MAX_RECORD ?
			       RING / 2 - ETW_STAGED_EVENT_SIZE + 1 : 8;

		fast_init(&b);
		b.gate.busy = c == BUSY;
		b.gate.monotonic = c == MONOTONIC_RING;
		if (c == PAST_LIMIT)
			b.limit = ETW_STAGED_EVENT_SIZE + 8 - 1;
		EventDataDescCreate(&d[0], c == NULL_PIECE ? NULL : payload,
				    len);
		EventDataDescCreate(&d[1], payload, 4);
		EXPECT_EQ(ETW_BATCH_SLOW,
			  etw_batch_stage_one(&b, etw_batch_gate_open(&b, fd),
					      &reg_id, &desc, &act,
					      count, c == NO_ARRAY ? NULL : d))
			TH_LOG("case %d", c);
		EXPECT_EQ(0, b.head);
		EXPECT_EQ(0, b.ctl->head);
		EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, *(uint64_t *)b.ring);
	}
}

/*
 * The fast path stages up to half a ring past the head it last saw the
 * tail at: staged after one record, 16 of 2 KiB pass half, and it asks
 * for the drain, which leaves the room it made.  From an empty ring the
 * write past half is the slow path's (see the next test).
 */
TEST(the_fast_path_asks_for_a_drain_once_past_half)
{
	struct etw_batch b;
	unsigned int i;

	fast_init(&b);
	ASSERT_TRUE(put(&b, 0, 8));		/* the slow path: 88 bytes */
	for (i = 1; i < 16; i++)
		ASSERT_EQ(ETW_BATCH_STAGED,
			  fast_put(&b, i, 2048 - ETW_STAGED_EVENT_SIZE));
	ASSERT_EQ(ETW_BATCH_STAGED_DRAIN,
		  fast_put(&b, 16, 2048 - ETW_STAGED_EVENT_SIZE));
	etw_batch_drain_more(&b);
	EXPECT_EQ(17, nseen);
	EXPECT_EQ(b.head + RING / 2, b.drain_at);
	EXPECT_EQ(RING, b.limit);		/* the lap's end */
	EXPECT_EQ(ETW_BATCH_STAGED, fast_put(&b, 17, 1));
}

/* Half a ring past the head at the last refresh is the fast path's end. */
TEST(the_fast_path_leaves_the_write_past_half_a_ring_to_the_slow_one)
{
	struct etw_batch b;
	unsigned int i;

	fast_init(&b);
	for (i = 0; i < 16; i++)
		ASSERT_EQ(ETW_BATCH_STAGED,
			  fast_put(&b, i, 2048 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(ETW_BATCH_SLOW, fast_put(&b, 16, 1));
	EXPECT_EQ(RING / 2, b.head);
	/* The slow path stages it and drains: the fast one goes on. */
	ASSERT_TRUE(put(&b, 16, 1));
	EXPECT_EQ(1, drains);
	EXPECT_EQ(ETW_BATCH_STAGED, fast_put(&b, 17, 1));
}

/*
 * The fast path stops where a record would pass the ring's end; the slow
 * one wraps, and the fast one goes on in the next lap.  21 records of
 * 3,000 bytes (the slow path taking what the fast one leaves, as libetw
 * does) leave 2,536 at the end.
 */
TEST(the_fast_path_stops_at_the_end_of_the_ring)
{
	enum etw_batch_result r;
	struct etw_batch b;
	unsigned int i;

	fast_init(&b);
	for (i = 0; i < 21; i++) {
		r = fast_put(&b, i, 3000 - ETW_STAGED_EVENT_SIZE);
		if (r == ETW_BATCH_STAGED_DRAIN)
			etw_batch_drain_more(&b);
		if (r == ETW_BATCH_SLOW) {
			ASSERT_TRUE(put(&b, i, 3000 - ETW_STAGED_EVENT_SIZE));
		}
	}
	EXPECT_EQ(63000, b.head);
	EXPECT_EQ(ETW_BATCH_SLOW, fast_put(&b, 21, 3000 - ETW_STAGED_EVENT_SIZE));
	ASSERT_TRUE(put(&b, 21, 3000 - ETW_STAGED_EVENT_SIZE));
	EXPECT_EQ(RING + 3000, b.head);
	EXPECT_EQ(ETW_BATCH_STAGED, fast_put(&b, 22, 8));
	etw_batch_drain(&b);
	EXPECT_FALSE(bad);
	EXPECT_EQ(23, nseen);
	EXPECT_EQ(1, wraps);
}

TEST_HARNESS_MAIN
