// SPDX-License-Identifier: GPL-2.0
/*
 * Batched writes through the raw ABI: a thread's staging ring
 * (ETW_IOC_BATCH_OPEN), when the kernel drains it, what it routes, and
 * what it refuses from a ring the thread can scribble on.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "etw_ring.h"
#include "../userlib/etw_arch.h"

#define BUF_KB		64
#define BUF_BYTES	(BUF_KB * 1024)
#define FAMILY		0xba7c0000
#define MAX_SEEN	4096

struct seen_rec {
	__u16 id;
	__u32 tid;
	__u32 pid;
	__u64 ts;
	__u32 tag;
	__u32 activity;
	__u16 flags;
};

struct seen {
	struct etw_guid guid;
	int n;
	struct seen_rec r[MAX_SEEN];
};

static void seen_fn(const struct etw_event_header *h, void *ctx)
{
	const struct raw_payload *p = (const void *)(h + 1);
	struct seen *c = ctx;
	struct seen_rec *s;

	if (!raw_guid_eq(&h->provider_id, &c->guid) || c->n == MAX_SEEN)
		return;
	s = &c->r[c->n++];
	s->id = h->descriptor.id;
	s->tid = h->thread_id;
	s->pid = h->process_id;
	s->ts = h->timestamp;
	s->tag = h->size >= sizeof(*h) + sizeof(*p) ? p->tag : ~0u;
	s->activity = h->activity_id.data1;
	s->flags = h->flags;
}

FIXTURE(batch) {
	int fd;
	__u32 id;
	int cfd;
	__u32 reg;
	struct etw_guid guid;
	struct ring r;
	struct seen *seen;
};

FIXTURE_SETUP(batch)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_start(self->fd, "batch", ETW_MODE_REAL_TIME, BUF_KB,
			       64, &self->id));
	self->cfd = raw_consumer(self->fd, self->id);
	ASSERT_LE(0, self->cfd);
	self->guid = raw_guid(FAMILY, 1);
	ASSERT_EQ(0, raw_register(self->fd, &self->guid, 0, 0, &self->reg,
				  NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &self->guid, 0, 0, 0));
	ASSERT_EQ(0, ring_open(self->fd, 0, &self->r));
	self->seen = calloc(1, sizeof(*self->seen));
	ASSERT_NE(NULL, self->seen);
	self->seen->guid = self->guid;
}

FIXTURE_TEARDOWN(batch)
{
	ring_close(&self->r);
	close(self->cfd);
	raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
	free(self->seen);
}

/* Flush the session and gather the test provider's records in order. */
static int collect(FIXTURE_DATA(batch) *self)
{
	long r;

	self->seen->n = 0;
	r = raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL);
	if (r)
		return (int)r;
	r = raw_drain(self->cfd, BUF_BYTES, seen_fn, self->seen);
	return r < 0 ? (int)r : self->seen->n;
}

TEST_F(batch, open_reports_sizes_and_maps_the_control_page)
{
	EXPECT_EQ(ETW_BATCH_DEFAULT_RING, self->r.size);
	EXPECT_EQ(getpagesize(), (int)self->r.ctl_size);
	EXPECT_EQ(ETW_BATCH_DEFAULT_RING, self->r.ctl->ring_size);
	EXPECT_EQ(0, self->r.ctl->head);
	EXPECT_EQ(0, self->r.ctl->tail);
}

TEST_F(batch, second_ring_of_a_thread_on_a_file_is_ebusy)
{
	struct ring r2;

	EXPECT_EQ(-EBUSY, ring_open(self->fd, 0, &r2));
}

static void *open_in_thread(void *arg)
{
	FIXTURE_DATA(batch) *self = arg;
	struct ring r2;
	long ret = ring_open(self->fd, 0, &r2);

	if (!ret)
		ring_close(&r2);
	return (void *)ret;
}

TEST_F(batch, another_thread_gets_its_own_ring)
{
	pthread_t t;
	void *ret;

	ASSERT_EQ(0, pthread_create(&t, NULL, open_in_thread, self));
	ASSERT_EQ(0, pthread_join(t, &ret));
	EXPECT_EQ(0, (long)ret);
}

TEST(open_rejects_bad_sizes_and_flags)
{
	static const struct {
		__u32 ring_size;
		__u32 flags;
		__u32 clock;
		__u32 reserved;
	} bad[] = {
		{ 3000, 0, 0, 0 },		/* not a power of two */
		{ ETW_BATCH_MIN_RING / 2, 0, 0, 0 },
		{ ETW_BATCH_MAX_RING * 2, 0, 0, 0 },
		{ 0, O_NONBLOCK, 0, 0 },
		{ 0, 0x80000000, 0, 0 },
		{ 0, 0, ETW_BATCH_CLOCK_TSC + 1, 0 },
		{ 0, 0, 0, 1 },
	};
	int fd = etw_open();
	unsigned int i;

	ASSERT_LE(0, fd);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct etw_batch_args a = { .size = sizeof(a),
					    .flags = bad[i].flags,
					    .ring_size = bad[i].ring_size,
					    .clock = bad[i].clock,
					    .reserved = bad[i].reserved };

		EXPECT_EQ(-EINVAL, etw_ioctl(fd, ETW_IOC_BATCH_OPEN, &a))
			TH_LOG("entry %u", i);
	}
	close(fd);
}

TEST_F(batch, mmap_must_be_shared_whole_and_at_zero)
{
	size_t len = self->r.ctl_size + self->r.size;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->r.rfd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len - getpagesize(),
				   PROT_READ | PROT_WRITE, MAP_SHARED,
				   self->r.rfd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, len, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->r.rfd, getpagesize()));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(batch, drained_events_carry_payload_ids_and_staged_time)
{
	__u64 t0 = raw_now_ns();
	int i;

	for (i = 0; i < 3; i++)
		stage_ev(&self->r, self->reg, 10 + i, t0 + i, 100 + i);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(self->r.ctl->head, self->r.ctl->tail);
	ASSERT_EQ(3, collect(self));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(10 + i, self->seen->r[i].id);
		EXPECT_EQ(100 + i, (int)self->seen->r[i].tag);
		EXPECT_EQ(100 + i, (int)self->seen->r[i].activity);
		EXPECT_EQ(t0 + i, self->seen->r[i].ts);
		EXPECT_EQ((__u32)syscall(SYS_gettid), self->seen->r[i].tid);
		EXPECT_EQ((__u32)getpid(), self->seen->r[i].pid);
	}
	EXPECT_EQ(0, self->r.ctl->dropped);
}

TEST_F(batch, string_only_flag_reaches_the_record)
{
	struct {
		struct etw_staged_event se;
		struct raw_payload p;
	} rec = { 0 };

	rec.se.size = sizeof(rec);
	rec.se.reg_id = self->reg;
	rec.se.timestamp = raw_now_ns();
	rec.se.flags = ETW_EVENT_FLAG_STRING_ONLY;
	stage_bytes(&self->r, &rec, sizeof(rec));
	stage_ev(&self->r, self->reg, 2, raw_now_ns(), 2);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(2, collect(self));
	EXPECT_EQ(ETW_EVENT_FLAG_STRING_ONLY, self->seen->r[0].flags);
	EXPECT_EQ(0, self->seen->r[1].flags);
}

TEST_F(batch, next_ioctl_on_the_file_drains_the_thread_ring)
{
	stage_ev(&self->r, self->reg, 1, raw_now_ns(), 1);
	EXPECT_EQ(0, self->r.ctl->tail);
	ASSERT_EQ(0, ioctl(self->fd, ETW_IOC_NULL));
	EXPECT_EQ(self->r.ctl->head, self->r.ctl->tail);
	EXPECT_EQ(1, collect(self));
}

TEST_F(batch, write_with_drain_flag_comes_after_staged_events)
{
	struct raw_payload p = { .tag = 2 };
	struct etw_data_descriptor d = { .ptr = (uintptr_t)&p,
					 .size = sizeof(p) };
	struct etw_write_args w;

	stage_ev(&self->r, self->reg, 1, raw_now_ns(), 1);
	raw_write_init(&w, self->reg, 2, 4, 0);
	w.flags = ETW_WRITE_DRAIN;
	w.data_count = 1;
	w.data_ptr = (uintptr_t)&d;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_WRITE, &w));
	ASSERT_EQ(2, collect(self));
	EXPECT_EQ(1, self->seen->r[0].id);
	EXPECT_EQ(2, self->seen->r[1].id);
	EXPECT_LE(self->seen->r[0].ts, self->seen->r[1].ts);
}

TEST_F(batch, future_timestamp_is_taken_as_the_drain_time)
{
	__u64 before = raw_now_ns();

	stage_ev(&self->r, self->reg, 1, ~0ull - 1, 1);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 2, 4, 0));
	ASSERT_EQ(2, collect(self));
	EXPECT_LE(before, self->seen->r[0].ts);
	EXPECT_GE(raw_now_ns(), self->seen->r[0].ts);
	EXPECT_LE(self->seen->r[0].ts, self->seen->r[1].ts);
}

TEST_F(batch, old_timestamp_does_not_go_back_in_the_buffer)
{
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 4, 0));
	stage_ev(&self->r, self->reg, 2, 1, 2);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(2, collect(self));
	EXPECT_LE(self->seen->r[0].ts, self->seen->r[1].ts);
}

/* Each bad record is skipped and counted; the good one after it is routed. */
TEST_F(batch, bad_records_are_dropped_and_counted)
{
	static const struct {
		__u16 flags;
		__u16 reserved1;
		__u16 reserved2;
		__u32 reserved3;
		__u32 reg_delta;
	} bad[] = {
		{ ETW_EVENT_FLAG_PRIVATE_SESSION, 0, 0, 0, 0 },	/* not its own */
		{ 0x8000, 0, 0, 0, 0 },		/* unknown flag */
		{ 0, 1, 0, 0, 0 },		/* reserved fields */
		{ 0, 0, 1, 0, 0 },
		{ 0, 0, 0, 1, 0 },
		{ 0, 0, 0, 0, 7 },		/* no such registration */
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct {
			struct etw_staged_event se;
			struct raw_payload p;
		} rec = { 0 };

		rec.se.size = sizeof(rec);
		rec.se.reg_id = self->reg + bad[i].reg_delta;
		rec.se.timestamp = raw_now_ns();
		rec.se.flags = bad[i].flags;
		rec.se.reserved1 = bad[i].reserved1;
		rec.se.reserved2 = bad[i].reserved2;
		rec.se.reserved3 = bad[i].reserved3;
		stage_bytes(&self->r, &rec, sizeof(rec));
	}
	stage_ev(&self->r, self->reg, 5, raw_now_ns(), 5);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(sizeof(bad) / sizeof(bad[0]), self->r.ctl->dropped);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(5, self->seen->r[0].id);
}

TEST_F(batch, bad_size_drops_what_is_published)
{
	static const __u32 sizes[] = {
		8, ETW_STAGED_EVENT_SIZE - 1, 0xfff8,	/* past the ring's end */
	};
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct etw_staged_event se = { .size = sizes[i],
					       .reg_id = self->reg };

		stage_ev(&self->r, self->reg, 1, raw_now_ns(), 1);
		stage_bytes(&self->r, &se, sizeof(se));
		stage_ev(&self->r, self->reg, 2, raw_now_ns(), 2);
		ASSERT_EQ(0, ring_drain(&self->r));
		EXPECT_EQ(i + 1, self->r.ctl->dropped);
		EXPECT_EQ(self->r.ctl->head, self->r.ctl->tail);
		ASSERT_EQ(1, collect(self)) TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(1, self->seen->r[0].id);
	}
}

TEST_F(batch, bad_head_is_dropped_and_the_ring_goes_on)
{
	self->r.ctl->head = 12;		/* not a record boundary */
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	/* The kernel's tail stays on a record boundary. */
	EXPECT_EQ(8, self->r.ctl->tail);
	self->r.ctl->head = 16;
	stage_ev(&self->r, self->reg, 3, raw_now_ns(), 3);
	self->r.ctl->head = (__u64)ETW_BATCH_DEFAULT_RING * 4;	/* too far */
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(2, self->r.ctl->dropped);
	EXPECT_EQ(self->r.ctl->head, self->r.ctl->tail);
	stage_ev(&self->r, self->reg, 4, raw_now_ns(), 4);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(4, self->seen->r[0].id);
}

/*
 * A head one byte short of the ring's end, then the end: the header the
 * next drain reads must not start at the ring's last byte (it read two
 * bytes there, one past the ring, and oopsed on vmalloc's guard page).
 */
TEST_F(batch, odd_head_at_the_ring_end_leaves_the_tail_aligned)
{
	__u64 end = self->r.size;

	self->r.ctl->head = end - 1;
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	EXPECT_EQ(end - 8, self->r.ctl->tail);
	/* The same head again is no new loss. */
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	/* A zeroed header is a wrap marker: on to the start. */
	self->r.ctl->head = end;
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	EXPECT_EQ(end, self->r.ctl->tail);
	stage_ev(&self->r, self->reg, 5, raw_now_ns(), 5);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(5, self->seen->r[0].id);
}

/*
 * A wrap marker at the tail with the head 8 bytes on, not at the
 * ring's end: the jump to the start would pass the head, so what is
 * published is dropped and the tail meets the head.
 */
TEST_F(batch, wrap_marker_short_of_the_head_is_dropped)
{
	*(__u32 *)self->r.data = ETW_STAGED_WRAP;
	self->r.ctl->head = 8;
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	EXPECT_EQ(8, self->r.ctl->tail);
	stage_ev(&self->r, self->reg, 6, raw_now_ns(), 6);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(1, self->r.ctl->dropped);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(6, self->seen->r[0].id);
}

TEST_F(batch, wrap_marker_continues_at_the_start)
{
	struct {
		struct etw_staged_event se;
		struct raw_payload p;
		__u64 pad;
	} odd = { .se = { .size = sizeof(odd), .reg_id = self->reg,
			  .timestamp = raw_now_ns(),
			  .descriptor = { .id = 999 } },
		  .p = { .tag = ~0u } };
	int i, n = 3 * ETW_BATCH_DEFAULT_RING / 88;

	/*
	 * 88-byte records after one of 96: several laps, each ending in a
	 * wrap marker where the rest of the ring cannot take a record.
	 */
	stage_bytes(&self->r, &odd, sizeof(odd));
	for (i = 0; i < n; i++) {
		stage_ev(&self->r, self->reg, i & 0xff, raw_now_ns(), i);
		if ((i & 63) == 63)
			ASSERT_EQ(0, ring_drain(&self->r));
	}
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(0, self->r.ctl->dropped);
	ASSERT_EQ(n + 1, collect(self));
	EXPECT_EQ(999, self->seen->r[0].id);
	for (i = 0; i < n; i++)
		ASSERT_EQ(i, (int)self->seen->r[i + 1].tag);
}

TEST_F(batch, drain_from_another_process_is_eperm)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char vec;

		/* Not inherited: the child has no mapping there. */
		if (mincore(self->r.ctl, getpagesize(), &vec) != -1 ||
		    errno != ENOMEM)
			_exit(1);
		_exit(ring_drain(&self->r) == -EPERM ? 0 : 2);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

struct thread_arg {
	FIXTURE_DATA(batch) *self;
	struct ring r;
	int staged;
	pid_t tid;
};

static void *stage_and_exit(void *arg)
{
	struct thread_arg *ta = arg;

	if (ring_open(ta->self->fd, 0, &ta->r))
		return NULL;
	stage_ev(&ta->r, ta->self->reg, 7, raw_now_ns(), 7);
	ta->tid = syscall(SYS_gettid);
	ta->staged = 1;
	return NULL;
}

TEST_F(batch, exiting_thread_has_its_staged_events_routed)
{
	struct thread_arg ta = { .self = self };
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, stage_and_exit, &ta));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(1, ta.staged);
	ASSERT_EQ(0, raw_wait_thread_gone(ta.tid));
	EXPECT_EQ(ta.r.ctl->head, ta.r.ctl->tail);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(7, self->seen->r[0].id);
	EXPECT_NE((__u32)syscall(SYS_gettid), self->seen->r[0].tid);
	/* The ring of a thread that exited routes nothing more. */
	stage_ev(&ta.r, self->reg, 8, raw_now_ns(), 8);
	ASSERT_EQ(0, ring_drain(&ta.r));
	EXPECT_EQ(1, ta.r.ctl->dropped);
	EXPECT_EQ(0, collect(self));
	ring_close(&ta.r);
}

TEST_F(batch, exiting_process_has_its_staged_events_routed)
{
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		struct ring r;
		__u32 reg;
		int fd = etw_open();

		if (fd < 0 || raw_register(fd, &self->guid, 0, 0, &reg, NULL) ||
		    ring_open(fd, 0, &r))
			_exit(1);
		stage_ev(&r, reg, 9, raw_now_ns(), 9);
		_exit(0);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(9, self->seen->r[0].id);
	EXPECT_EQ((__u32)pid, self->seen->r[0].pid);
}

static void *stage_and_wait(void *arg)
{
	struct thread_arg *ta = arg;

	if (ring_open(ta->self->fd, 0, &ta->r))
		return NULL;
	stage_ev(&ta->r, ta->self->reg, 11, raw_now_ns(), 11);
	__atomic_store_n(&ta->staged, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&ta->staged, __ATOMIC_ACQUIRE) != 2)
		raw_sleep_ms(1);
	return NULL;
}

TEST_F(batch, unregister_routes_every_thread_staged_events_first)
{
	struct thread_arg ta = { .self = self };
	pthread_t t;

	/* A thread that stays alive with an event staged. */
	ASSERT_EQ(0, pthread_create(&t, NULL, stage_and_wait, &ta));
	while (__atomic_load_n(&ta.staged, __ATOMIC_ACQUIRE) != 1)
		raw_sleep_ms(1);
	ASSERT_EQ(0, raw_unregister(self->fd, self->reg));
	__atomic_store_n(&ta.staged, 2, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, ta.r.ctl->dropped);
	EXPECT_EQ(1, collect(self));
	ring_close(&ta.r);
}

TEST_F(batch, flush_timer_drains_rings)
{
	struct pollfd p = { .fd = self->cfd, .events = POLLIN };

	stage_ev(&self->r, self->reg, 12, raw_now_ns(), 12);
	/* No ioctl from here: the real-time session's timer (1 s) drains. */
	ASSERT_EQ(1, poll(&p, 1, 20000));
	self->seen->n = 0;
	ASSERT_LE(0, raw_drain(self->cfd, BUF_BYTES, seen_fn, self->seen));
	ASSERT_EQ(1, self->seen->n);
	EXPECT_EQ(12, self->seen->r[0].id);
}

TEST_F(batch, stop_routes_staged_events_into_the_session)
{
	pid_t pid;
	int n;

	stage_ev(&self->r, self->reg, 13, raw_now_ns(), 13);
	/* Stopped from another file: not the thread's next ioctl on its own. */
	pid = fork();

	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = etw_open();

		_exit(fd >= 0 && !raw_session_op(fd, ETW_IOC_STOP, self->id,
						 NULL) ? 0 : 1);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	self->seen->n = 0;
	n = raw_drain(self->cfd, BUF_BYTES, seen_fn, self->seen);
	ASSERT_LE(0, n);
	ASSERT_EQ(1, self->seen->n);
	EXPECT_EQ(13, self->seen->r[0].id);
}

/* Staged while the session enabled the provider: routed as it was. */
TEST_F(batch, events_staged_before_a_disable_are_routed)
{
	struct etw_enable_args e;
	pid_t pid;

	stage_ev(&self->r, self->reg, 14, raw_now_ns(), 14);
	/* From another file: not the thread's next ioctl on its own. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int fd = etw_open();

		raw_enable_init(&e, self->id, &self->guid, 0, 0, 0);
		e.control_code = ETW_CONTROL_DISABLE;
		_exit(fd >= 0 && !ioctl(fd, ETW_IOC_ENABLE, &e) ? 0 : 1);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(0, self->r.ctl->dropped);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(14, self->seen->r[0].id);
}

/*
 * Staged while the session took the provider through its group: a
 * disallow list set later (from another file, not the thread's next
 * ioctl) leaves it routed.
 */
TEST_F(batch, events_staged_before_a_disallow_list_are_routed)
{
	struct etw_guid group = raw_guid(FAMILY, 0x90);
	struct etw_guid member = raw_guid(FAMILY, 0x91);
	struct etw_enable_args e;
	__u8 blob[64];
	__u32 reg;
	pid_t pid;

	ASSERT_EQ(0, raw_register(self->fd, &member, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, blob,
				    raw_traits_blob(blob, "Member", &group)));
	raw_enable_init(&e, self->id, &group, 0, 0, 0);
	e.properties = ETW_ENABLE_PROVIDER_GROUP;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	stage_ev(&self->r, reg, 15, raw_now_ns(), 15);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct etw_disallow_args d = {
			.size = sizeof(d), .logger_id = self->id, .count = 1,
			.guids_ptr = (uintptr_t)&member,
		};
		int fd = etw_open();

		_exit(fd >= 0 && !ioctl(fd, ETW_IOC_SET_DISALLOW, &d) ? 0 : 1);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	/* Disallowed now: what is staged from here on reaches nothing. */
	stage_ev(&self->r, reg, 16, raw_now_ns(), 16);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(0, self->r.ctl->dropped);
	self->seen->guid = member;
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(15, self->seen->r[0].id);
}

/*
 * A private session stops when the file that started it is closed: what
 * was staged for it before is routed into it first, and its consumer
 * reads it before end of file.
 */
TEST(events_staged_before_an_implicit_stop_are_routed)
{
	struct etw_guid g = raw_guid(FAMILY + 4, 0);
	struct seen *s = calloc(1, sizeof(*s));
	int ctl = etw_open(), fd = etw_open(), cfd;
	__u32 id, reg;
	struct ring r;

	ASSERT_NE(NULL, s);
	ASSERT_LE(0, ctl);
	ASSERT_LE(0, fd);
	s->guid = g;
	ASSERT_EQ(0, raw_start(ctl, "batch-implicit", ETW_MODE_PRIVATE, 16, 8,
			       &id));
	cfd = raw_consumer(ctl, id);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(ctl, id, &g, 0, 0, 0));
	ASSERT_EQ(0, ring_open(fd, 0, &r));
	stage_ev(&r, reg, 17, raw_now_ns(), 17);
	/* The session's last file: it stops; the ring is on another file. */
	close(ctl);
	ASSERT_EQ(1, raw_drain(cfd, 16 * 1024, seen_fn, s));
	EXPECT_EQ(17, s->r[0].id);
	EXPECT_EQ(RAW_ALIGN8(sizeof(struct etw_staged_event) +
			     sizeof(struct raw_payload)), r.ctl->tail);
	ring_close(&r);
	close(cfd);
	close(fd);
	free(s);
}

/*
 * Traits set while another thread has an event of the registration
 * staged: that event is routed as the route was, without the traits
 * item; a write after the traits carries it.
 */
static void traits_after_a_stage(struct __test_metadata *_metadata,
				 FIXTURE_DATA(batch) *self,
				 const struct etw_guid *group)
{
	struct thread_arg ta = { .self = self };
	__u8 blob[64];
	pthread_t t;

	ASSERT_EQ(0, pthread_create(&t, NULL, stage_and_wait, &ta));
	while (__atomic_load_n(&ta.staged, __ATOMIC_ACQUIRE) != 1)
		raw_sleep_ms(1);
	/* On the ring's file, from this thread: not the stager's ioctl. */
	ASSERT_EQ(0, raw_set_traits(self->fd, self->reg, blob,
				    raw_traits_blob(blob, "Member", group)));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 12, 4, 0));
	__atomic_store_n(&ta.staged, 2, __ATOMIC_RELEASE);
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, ring_drain(&ta.r));
	EXPECT_EQ(0, ta.r.ctl->dropped);
	ASSERT_EQ(2, collect(self));
	EXPECT_EQ(11, self->seen->r[0].id);
	EXPECT_EQ(0, self->seen->r[0].flags);
	EXPECT_EQ(12, self->seen->r[1].id);
	EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, self->seen->r[1].flags);
	ring_close(&ta.r);
}

TEST_F(batch, events_staged_before_traits_are_routed_without_them)
{
	traits_after_a_stage(_metadata, self, NULL);
}

TEST_F(batch, events_staged_before_group_traits_are_routed_without_them)
{
	struct etw_guid group = raw_guid(FAMILY, 0x92);

	traits_after_a_stage(_metadata, self, &group);
}

/* Skipped records are no events: the session counts none of them lost. */
TEST_F(batch, skipped_records_are_not_counted_lost)
{
	struct {
		struct etw_staged_event se;
		struct raw_payload p;
	} rec = { 0 };
	struct etw_session_args q;

	rec.se.size = sizeof(rec);
	rec.se.reg_id = self->reg;
	rec.se.timestamp = raw_now_ns();
	rec.se.flags = 0x8000;			/* unknown flag */
	stage_bytes(&self->r, &rec, sizeof(rec));
	rec.se.flags = 0;
	rec.se.reserved3 = 1;			/* reserved field */
	stage_bytes(&self->r, &rec, sizeof(rec));
	rec.se.reserved3 = 0;
	rec.se.reg_id = self->reg + 7;		/* no such registration */
	stage_bytes(&self->r, &rec, sizeof(rec));
	stage_ev(&self->r, self->reg, 5, raw_now_ns(), 5);
	rec.se.reg_id = self->reg;
	rec.se.size = 8;			/* ends the drain */
	stage_bytes(&self->r, &rec, sizeof(rec));
	stage_ev(&self->r, self->reg, 6, raw_now_ns(), 6);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(4, self->r.ctl->dropped);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(5, self->seen->r[0].id);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(0, q.stats.events_lost);
	EXPECT_EQ(1, q.stats.events_written);
}

/*
 * Enable properties ask for items that describe the writer as it wrote:
 * a staged event carries none of them; a direct write of the same
 * registration carries them all.
 */
TEST_F(batch, staged_events_carry_no_enable_property_items)
{
	static char buf[BUF_BYTES];
	const struct etw_event_header *h;
	const struct etw_ext_item *x;
	int n = 0;

	ASSERT_EQ(0, raw_control(self->fd, self->id, &self->guid,
				 ETW_CONTROL_ENABLE,
				 ETW_ENABLE_SID | ETW_ENABLE_TS_ID |
				 ETW_ENABLE_STACK_TRACE |
				 ETW_ENABLE_PROCESS_START_KEY |
				 ETW_ENABLE_EVENT_KEY));
	stage_ev(&self->r, self->reg, 1, raw_now_ns(), 1);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 2, 4, 0));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	ASSERT_EQ(sizeof(buf), read(self->cfd, buf, sizeof(buf)));
	h = (const void *)(buf + ETW_BUFFER_HEADER_SIZE);
	ASSERT_TRUE(raw_guid_eq(&self->guid, &h->provider_id));
	EXPECT_EQ(1, h->descriptor.id);
	EXPECT_EQ(0, h->flags);
	EXPECT_EQ(sizeof(*h) + sizeof(struct raw_payload), h->size);
	h = (const void *)((const char *)h + RAW_ALIGN8(h->size));
	ASSERT_TRUE(raw_guid_eq(&self->guid, &h->provider_id));
	EXPECT_EQ(2, h->descriptor.id);
	ASSERT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, h->flags);
	x = (const void *)(h + 1);
	for (;;) {
		ASSERT_GT(8, ++n);
		if (!(x->linkage & ETW_EXT_LINKAGE))
			break;
		x = (const void *)((const char *)x + x->item_size);
	}
	/* SID, TS_ID, STACK_TRACE64, EVENT_KEY, PROCESS_START_KEY. */
	EXPECT_EQ(5, n);
}

/* The thread scribbles on its ring while other drains run: nothing breaks. */
static void *scribble(void *arg)
{
	struct thread_arg *ta = arg;
	unsigned int seed = 1;
	int i;

	for (i = 0; i < 20000; i++) {
		__u64 *w = (__u64 *)ta->r.data +
			   rand_r(&seed) % (ta->r.size / 8);

		*w = ((__u64)rand_r(&seed) << 32) | rand_r(&seed);
		if (!(i % 16))
			__atomic_store_n(&ta->r.ctl->head,
					 ta->r.ctl->head + 8 * (rand_r(&seed) % 64),
					 __ATOMIC_RELEASE);
	}
	return NULL;
}

TEST_F(batch, scribbled_ring_is_survived)
{
	struct thread_arg ta = { .self = self, .r = self->r };
	struct etw_session_args q;
	struct etw_staged_event *se;
	__u64 dropped;
	pthread_t t;
	int i;

	ASSERT_EQ(0, pthread_create(&t, NULL, scribble, &ta));
	for (i = 0; i < 200; i++)
		ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(0, pthread_join(t, NULL));
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(self->r.ctl->head, self->r.ctl->tail);
	/* Random words are no records: nothing routed or lost, all dropped. */
	dropped = self->r.ctl->dropped;
	EXPECT_LT(0, dropped);
	EXPECT_EQ(0, collect(self));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(0, q.stats.events_written);
	EXPECT_EQ(0, q.stats.events_lost);
	EXPECT_EQ(dropped, self->r.ctl->dropped);
	/* The ring goes on where the scribbles left it. */
	stage_ev(&self->r, self->reg, 1, raw_now_ns(), 1);
	stage_ev(&self->r, self->reg, 2, raw_now_ns(), 2);
	/* The second one, just before the head, gets a reserved field set. */
	se = (void *)(self->r.data + ((self->r.ctl->head -
				       RAW_ALIGN8(sizeof(*se) +
						  sizeof(struct raw_payload))) &
				      (self->r.size - 1)));
	se->reserved1 = 1;
	stage_ev(&self->r, self->reg, 3, raw_now_ns(), 3);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(dropped + 1, self->r.ctl->dropped);
	ASSERT_EQ(2, collect(self));
	EXPECT_EQ(1, self->seen->r[0].tag);
	EXPECT_EQ(3, self->seen->r[1].tag);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(2, q.stats.events_written);
	EXPECT_EQ(0, q.stats.events_lost);
}

/* Several sessions take the general path, each its copy. */
/*
 * Events of two registrations by tag (even tags the first's, odd the
 * second's), their times, and what else the buffers held.
 */
struct two {
	struct etw_guid g[2];
	__u64 *ts;		/* per tag: its time; 0 until seen */
	__u32 max_tag;
	long n, dup, stray;
};

static void two_fn(const struct etw_event_header *h, void *ctx)
{
	const struct raw_payload *p = (const void *)(h + 1);
	struct two *t = ctx;
	int k = raw_guid_eq(&h->provider_id, &t->g[0]) ? 0 :
		raw_guid_eq(&h->provider_id, &t->g[1]) ? 1 : -1;

	if (k < 0)
		return;
	if (p->tag >= t->max_tag || (p->tag & 1) != (__u32)k) {
		t->stray++;
		return;
	}
	if (t->ts[p->tag])
		t->dup++;
	t->ts[p->tag] = h->timestamp;
	t->n++;
}

/*
 * Events of one registration whose times go back in tag order: per-CPU
 * buffers reach the consumer in the order they were sealed, so order is
 * the records' times.
 */
static long two_disorder(const struct two *t)
{
	__u64 last[2] = { 0, 0 };
	long bad = 0;
	__u32 tag;

	for (tag = 0; tag < t->max_tag; tag++) {
		if (!t->ts[tag])
			continue;
		if (t->ts[tag] < last[tag & 1])
			bad++;
		last[tag & 1] = t->ts[tag];
	}
	return bad;
}

/* Stage @n events from @first_tag, even tags @reg0's, odd @reg1's. */
static void stage_two(struct ring *r, __u32 reg0, __u32 reg1, __u32 first_tag,
		      __u32 n)
{
	__u32 t;

	for (t = first_tag; t < first_tag + n; t++)
		stage_ev(r, t & 1 ? reg1 : reg0, 1, raw_now_ns(), t);
}

/* A run stops at another registration's record: both are routed. */
TEST_F(batch, alternating_registrations_are_routed_in_order)
{
	struct two t = { .max_tag = 200 };
	__u32 reg1;

	t.g[0] = self->guid;
	t.g[1] = raw_guid(FAMILY, 2);
	t.ts = calloc(t.max_tag, sizeof(*t.ts));
	ASSERT_NE(NULL, t.ts);
	ASSERT_EQ(0, raw_register(self->fd, &t.g[1], 0, 0, &reg1, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &t.g[1], 0, 0, 0));
	/* Two of one, then alternating: runs of two, then of one. */
	stage_two(&self->r, self->reg, self->reg, 0, 2);
	stage_two(&self->r, self->reg, reg1, 2, t.max_tag - 2);
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(0, self->r.ctl->dropped);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	ASSERT_LE(0, raw_drain(self->cfd, BUF_BYTES, two_fn, &t));
	/* Tags 0 and 1 were both staged under the first registration. */
	EXPECT_EQ(t.max_tag - 1, t.n);
	EXPECT_EQ(1, t.stray);
	EXPECT_EQ(0, t.dup);
	EXPECT_EQ(0, two_disorder(&t));
	free(t.ts);
}

struct flusher {
	int fd;
	__u32 id;
	atomic_int stop;
	long flushes;
};

static void *flush_fn(void *arg)
{
	struct flusher *f = arg;

	while (!atomic_load(&f->stop)) {
		raw_session_op(f->fd, ETW_IOC_FLUSH, f->id, NULL);
		f->flushes++;
	}
	return NULL;
}

/*
 * Another CPU seals the buffer while runs write into it, so that a run
 * cannot always give back what it copied and did not take: every event
 * is delivered once or counted lost, in time order, and every buffer is
 * well formed.  The ring is the smallest, 4 KiB, and holds 46 records of
 * 88 bytes: 40 at a time, a drain's first run often copies up to the
 * ring's end, where less than a header is left (a wrap marker).  Then
 * runs that stop early: records of two registrations, alternating.
 */
TEST_F(batch, runs_lose_nothing_uncounted_while_buffers_seal)
{
	struct flusher f = { .id = self->id };
	struct two t = { .max_tag = 40 * 1000 };
	struct etw_session_args q;
	pthread_t thread;
	__u32 reg1, tag;
	long r;

	t.g[0] = self->guid;
	t.g[1] = raw_guid(FAMILY, 3);
	t.ts = calloc(t.max_tag, sizeof(*t.ts));
	ASSERT_NE(NULL, t.ts);
	ASSERT_EQ(88, RAW_ALIGN8(sizeof(struct etw_staged_event) +
				 sizeof(struct raw_payload)));
	ASSERT_EQ(0, raw_register(self->fd, &t.g[1], 0, 0, &reg1, NULL));
	ASSERT_EQ(0, raw_enable(self->fd, self->id, &t.g[1], 0, 0, 0));
	ring_close(&self->r);
	ASSERT_EQ(0, ring_open(self->fd, ETW_BATCH_MIN_RING, &self->r));
	f.fd = etw_open();
	ASSERT_LE(0, f.fd);
	ASSERT_EQ(0, pthread_create(&thread, NULL, flush_fn, &f));
	for (tag = 0; tag < t.max_tag; tag += 40) {
		if (tag < t.max_tag / 2)
			stage_two(&self->r, self->reg, self->reg, tag, 40);
		else
			stage_two(&self->r, self->reg, reg1, tag, 40);
		ASSERT_EQ(0, ring_drain(&self->r));
		ASSERT_LE(0, raw_drain(self->cfd, BUF_BYTES, two_fn, &t));
	}
	atomic_store(&f.stop, 1);
	pthread_join(thread, NULL);
	close(f.fd);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, self->id, NULL));
	r = raw_drain(self->cfd, BUF_BYTES, two_fn, &t);
	ASSERT_LE(0, r);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(0, self->r.ctl->dropped);
	EXPECT_EQ(0, t.dup);
	EXPECT_EQ(0, two_disorder(&t));
	/* Odd tags of the first half are the first registration's too. */
	EXPECT_EQ(t.max_tag / 4, t.stray);
	EXPECT_EQ(t.max_tag, t.n + t.stray + q.stats.events_lost);
	TH_LOG("%ld flushes, %llu lost", f.flushes,
	       (unsigned long long)q.stats.events_lost);
	free(t.ts);
}

TEST_F(batch, each_session_of_a_route_gets_staged_events)
{
	struct seen *other = calloc(1, sizeof(*other));
	__u32 id2;
	int cfd2, i;

	ASSERT_NE(NULL, other);
	other->guid = self->guid;
	ASSERT_EQ(0, raw_start(self->fd, "batch2", ETW_MODE_REAL_TIME, BUF_KB,
			       8, &id2));
	cfd2 = raw_consumer(self->fd, id2);
	ASSERT_LE(0, cfd2);
	ASSERT_EQ(0, raw_enable(self->fd, id2, &self->guid, 0, 0, 0));
	for (i = 0; i < 3; i++)
		stage_ev(&self->r, self->reg, 20 + i, raw_now_ns(), i);
	ASSERT_EQ(0, ring_drain(&self->r));
	ASSERT_EQ(3, collect(self));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_FLUSH, id2, NULL));
	ASSERT_EQ(3, raw_drain(cfd2, BUF_BYTES, seen_fn, other));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(20 + i, other->r[i].id);
		EXPECT_EQ(self->seen->r[i].ts, other->r[i].ts);
	}
	close(cfd2);
	raw_session_op(self->fd, ETW_IOC_STOP, id2, NULL);
	free(other);
}

/* Staged events a full session cannot take are counted lost, once each. */
TEST(staged_events_a_full_session_loses_are_counted)
{
	struct etw_guid g = raw_guid(FAMILY + 2, 0);
	struct etw_session_args q;
	int fd = etw_open(), i, n = 300;
	__u32 id, reg;
	struct ring r;

	ASSERT_LE(0, fd);
	/* 4 KiB buffers, two per CPU at most, nobody reading. */
	ASSERT_EQ(0, raw_start(fd, "batch-full", 0, 4, 2, &id));
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(fd, id, &g, 0, 0, 0));
	ASSERT_EQ(0, ring_open(fd, 0, &r));
	for (i = 0; i < n; i++) {
		stage_ev(&r, reg, 1, raw_now_ns(), i);
		if ((i & 63) == 63)
			ASSERT_EQ(0, ring_drain(&r));
	}
	ASSERT_EQ(0, ring_drain(&r));
	EXPECT_EQ(0, r.ctl->dropped);
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_FLUSH, id, NULL));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_QUERY, id, &q));
	EXPECT_LT(0, q.stats.events_lost);
	EXPECT_EQ(n, q.stats.events_written + q.stats.events_lost);
	ring_close(&r);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	close(fd);
}

/* A private session's records carry the ids as its owner sees them. */
TEST(private_session_gets_staged_events_flagged)
{
	struct etw_guid g = raw_guid(FAMILY + 3, 0);
	static char buf[16 * 1024];
	const struct etw_event_header *h;
	int fd = etw_open(), cfd;
	__u32 id, reg;
	struct ring r;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_start(fd, "batch-priv", ETW_MODE_PRIVATE, 16, 8, &id));
	cfd = raw_consumer(fd, id);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(fd, id, &g, 0, 0, 0));
	ASSERT_EQ(0, ring_open(fd, 0, &r));
	stage_ev(&r, reg, 1, raw_now_ns(), 1);
	ASSERT_EQ(0, ring_drain(&r));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_FLUSH, id, NULL));
	ASSERT_EQ(sizeof(buf), read(cfd, buf, sizeof(buf)));
	h = (const void *)(buf + ETW_BUFFER_HEADER_SIZE);
	EXPECT_TRUE(raw_guid_eq(&g, &h->provider_id));
	EXPECT_EQ(getpid(), h->process_id);
	EXPECT_EQ((__u32)syscall(SYS_gettid), h->thread_id);
	EXPECT_EQ(ETW_EVENT_FLAG_PRIVATE_SESSION, h->flags);
	ring_close(&r);
	close(cfd);
	close(fd);
}

/* Events filtered out by level are not recorded; the others are. */
TEST_F(batch, session_filters_apply_to_staged_events)
{
	struct {
		struct etw_staged_event se;
		struct raw_payload p;
	} rec = { 0 };

	ASSERT_EQ(0, raw_enable(self->fd, self->id, &self->guid, 3, 0, 0));
	rec.se.size = sizeof(rec);
	rec.se.reg_id = self->reg;
	rec.se.timestamp = raw_now_ns();
	rec.se.descriptor.id = 1;
	rec.se.descriptor.level = 4;		/* above 3: filtered */
	stage_bytes(&self->r, &rec, sizeof(rec));
	rec.se.descriptor.id = 2;
	rec.se.descriptor.level = 2;
	stage_bytes(&self->r, &rec, sizeof(rec));
	ASSERT_EQ(0, ring_drain(&self->r));
	EXPECT_EQ(0, self->r.ctl->dropped);
	ASSERT_EQ(1, collect(self));
	EXPECT_EQ(2, self->seen->r[0].id);
}

#ifdef ETW_ARCH_COUNTER
/* A counter reading becomes the CLOCK_MONOTONIC time it was taken at. */
TEST(tsc_ring_converts_readings_to_monotonic_time)
{
	struct etw_guid g = raw_guid(FAMILY + 4, 0);
	struct seen *c = calloc(1, sizeof(*c));
	int fd = etw_open(), cfd;
	__u64 before, after, tsc;
	__u32 id, reg;
	struct ring r;

	ASSERT_NE(NULL, c);
	c->guid = g;
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_start(fd, "batch-tsc", ETW_MODE_REAL_TIME, BUF_KB, 8,
			       &id));
	cfd = raw_consumer(fd, id);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, raw_register(fd, &g, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_enable(fd, id, &g, 0, 0, 0));
	ASSERT_EQ(0, ring_open_clock(fd, 0, ETW_BATCH_CLOCK_TSC, &r));
	if (r.clock != ETW_BATCH_CLOCK_TSC) {
		/* Sessions are global: a skipped test stops its own. */
		ring_close(&r);
		close(cfd);
		raw_session_op(fd, ETW_IOC_STOP, id, NULL);
		close(fd);
		free(c);
		SKIP(return, "CLOCK_MONOTONIC does not come from the counter here");
	}
	before = raw_now_ns();
	tsc = etw_arch_counter();
	after = raw_now_ns();
	/* A while before the drain: the reading is converted back. */
	raw_sleep_ms(50);
	stage_ev(&r, reg, 1, tsc, 1);
	ASSERT_EQ(0, ring_drain(&r));
	ASSERT_EQ(0, raw_session_op(fd, ETW_IOC_FLUSH, id, NULL));
	ASSERT_EQ(1, raw_drain(cfd, BUF_BYTES, seen_fn, c));
	/* The calibrated rate's error over 50 ms stays far below 1 ms. */
	EXPECT_LE(before - 1000000, c->r[0].ts);
	EXPECT_GE(after + 1000000, c->r[0].ts);
	ring_close(&r);
	close(cfd);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	close(fd);
	free(c);
}
#endif

/* A thread in a time namespace stages its own view of CLOCK_MONOTONIC. */
TEST_F(batch, time_namespace_offset_is_taken_off)
{
	__u64 before, after;
	pid_t pid;
	int ofd;

	if (unshare(CLONE_NEWTIME))
		SKIP(return, "no time namespaces: %s", strerror(errno));
	ofd = open("/proc/self/timens_offsets", O_WRONLY);
	ASSERT_LE(0, ofd);
	ASSERT_LT(0, write(ofd, "monotonic 1000 0", 16));
	close(ofd);
	before = raw_now_ns();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ring r;
		__u32 reg;
		int fd = etw_open();

		if (fd < 0 || raw_register(fd, &self->guid, 0, 0, &reg, NULL) ||
		    ring_open(fd, 0, &r))
			_exit(1);
		/* 1000 s ahead of the parent's clock. */
		stage_ev(&r, reg, 3, raw_now_ns(), 3);
		_exit(ring_drain(&r) ? 2 : 0);
	}
	ASSERT_EQ(0, etw_wait_child(pid));
	after = raw_now_ns();
	ASSERT_EQ(1, collect(self));
	EXPECT_LE(before, self->seen->r[0].ts);
	EXPECT_GE(after, self->seen->r[0].ts);
}

TEST_HARNESS_MAIN
