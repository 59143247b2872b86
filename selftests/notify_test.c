// SPDX-License-Identifier: GPL-2.0
/*
 * Enable notifications through the raw ABI: what read() on the provider's
 * /dev/etw file returns after ENABLE, DISABLE and CAPTURE_STATE (control
 * code, the aggregate level and keywords, source id, chained filter
 * data), poll() and read() edge cases, waiting for ETW_IOC_ACK with
 * timeout_ms, notifications at registration and at session stop, and the
 * mapped enable area being current when a notification is read.
 */
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define FAMILY		0x40710000
#define NBUF		4096
#define FILTER_HDR	24	/* EVENT_FILTER_HEADER */

static const struct etw_guid source = {
	0x50c0ffee, 0x1, 0x2, { 3, 4, 5, 6, 7, 8, 9, 10 } };

FIXTURE(ntf) {
	int fd;
	__u32 id[2];
	struct etw_guid g;
	__u32 reg, index;
	__u8 buf[NBUF];
	struct etw_notification n;
};

FIXTURE_SETUP(ntf)
{
	int i;

	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, raw_start(self->fd, i ? "notify-1" : "notify-0",
				       ETW_MODE_REAL_TIME, 4, 0, &self->id[i]));
	self->g = raw_guid(FAMILY, 0);
	ASSERT_EQ(0, raw_register(self->fd, &self->g, 0, 0xc0ffee, &self->reg,
				  &self->index));
}

FIXTURE_TEARDOWN(ntf)
{
	raw_session_op(self->fd, ETW_IOC_STOP, self->id[0], NULL);
	raw_session_op(self->fd, ETW_IOC_STOP, self->id[1], NULL);
	close(self->fd);
}

/* Wait up to a second for one notification; copy its head to self->n. */
static ssize_t next_notification(FIXTURE_DATA(ntf) *self)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	ssize_t r;

	if (poll(&p, 1, 1000) != 1)
		return -ETIMEDOUT;
	r = read(self->fd, self->buf, sizeof(self->n));
	if (r < 0)
		return -errno;
	memcpy(&self->n, self->buf, sizeof(self->n));
	return r;
}

static int enable_s(FIXTURE_DATA(ntf) *self, int s, __u8 level, __u64 any,
		    __u64 all)
{
	struct etw_enable_args e;

	raw_enable_init(&e, self->id[s], &self->g, level, any, all);
	e.source_id = source;
	return etw_ioctl(self->fd, ETW_IOC_ENABLE, &e);
}

/* Enable and read the resulting notification into self->n. */
static void enable_and_read(struct __test_metadata *_metadata,
			    FIXTURE_DATA(ntf) *self, int s, __u8 level,
			    __u64 any, __u64 all)
{
	ASSERT_EQ(0, enable_s(self, s, level, any, all));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
}

TEST_F(ntf, enable_notification_carries_the_enable)
{
	enable_and_read(_metadata, self, 0, 3, 0x5, 0x1);
	EXPECT_EQ(sizeof(self->n), self->n.size);
	EXPECT_EQ(self->reg, self->n.reg_id);
	EXPECT_EQ(0xc0ffee, self->n.cookie);
	EXPECT_LT(0, self->n.seq);
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	EXPECT_EQ(3, self->n.level);
	EXPECT_EQ(0x5, self->n.match_any);
	EXPECT_EQ(0x1, self->n.match_all);
	EXPECT_TRUE(raw_guid_eq(&source, &self->n.source_id));
	EXPECT_EQ(0, self->n.filter_size);
	EXPECT_EQ(0, self->n.filter_count);
}

TEST_F(ntf, aggregate_maps_level_0_to_255_and_any_0_to_all)
{
	enable_and_read(_metadata, self, 0, 3, 0x5, 0x3);
	enable_and_read(_metadata, self, 1, 0, 0, 0x1);
	EXPECT_EQ(255, self->n.level);
	EXPECT_EQ(~0ull, self->n.match_any);
	EXPECT_EQ(0x1, self->n.match_all);
}

TEST_F(ntf, aggregate_is_max_level_or_any_and_all)
{
	enable_and_read(_metadata, self, 0, 2, 0x10, 0x30);
	enable_and_read(_metadata, self, 1, 4, 0x1, 0x21);
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	EXPECT_EQ(4, self->n.level);
	EXPECT_EQ(0x11, self->n.match_any);
	EXPECT_EQ(0x20, self->n.match_all);
}

/* Re-enable session 0 as enable_s() does, with a PID filter of @n pids. */
static int enable_pids(FIXTURE_DATA(ntf) *self, const __u32 *pids, __u32 n)
{
	struct etw_enable_args e;

	raw_enable_init(&e, self->id[0], &self->g, 3, 0x5, 0);
	e.source_id = source;
	e.pid_count = n;
	e.pids_ptr = (uintptr_t)pids;
	return etw_ioctl(self->fd, ETW_IOC_ENABLE, &e);
}

static int notification_waits(FIXTURE_DATA(ntf) *self)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };

	return poll(&p, 1, 0);
}

/*
 * Only an identical re-enable is silent: one that changes the PID filter
 * and still reaches the registration is an enable like any other.
 */
TEST_F(ntf, reenable_with_another_pid_filter_is_notified)
{
	__u32 pids[2] = { (__u32)getpid(), 1 };

	enable_and_read(_metadata, self, 0, 3, 0x5, 0);
	ASSERT_EQ(0, enable_pids(self, pids, 1));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	ASSERT_EQ(0, enable_pids(self, pids, 1));
	EXPECT_EQ(0, notification_waits(self));
	ASSERT_EQ(0, enable_pids(self, pids, 2));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	ASSERT_EQ(0, enable_pids(self, pids, 0));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(0, notification_waits(self));
}

TEST_F(ntf, disabling_one_of_two_sessions_reports_the_rest)
{
	enable_and_read(_metadata, self, 0, 2, 0x10, 0x30);
	enable_and_read(_metadata, self, 1, 4, 0x1, 0x21);
	ASSERT_EQ(0, raw_control(self->fd, self->id[1], &self->g,
				 ETW_CONTROL_DISABLE, 0));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	EXPECT_EQ(2, self->n.level);
	EXPECT_EQ(0x10, self->n.match_any);
	EXPECT_EQ(0x30, self->n.match_all);
}

TEST_F(ntf, disabling_the_last_session_is_disable)
{
	enable_and_read(_metadata, self, 0, 2, 0x10, 0x30);
	ASSERT_EQ(0, raw_control(self->fd, self->id[0], &self->g,
				 ETW_CONTROL_DISABLE, 0));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(ETW_CONTROL_DISABLE, self->n.control_code);
	EXPECT_EQ(0, self->n.level);
	EXPECT_EQ(0, self->n.match_any);
	EXPECT_EQ(0, self->n.match_all);
}

TEST_F(ntf, capture_state_reports_current_aggregate)
{
	struct etw_enable_args e;

	enable_and_read(_metadata, self, 0, 2, 0x10, 0x30);
	raw_enable_init(&e, self->id[0], &self->g, 0, 0, 0);
	e.control_code = ETW_CONTROL_CAPTURE_STATE;
	e.source_id.data1 = 0xcafe;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(ETW_CONTROL_CAPTURE_STATE, self->n.control_code);
	EXPECT_EQ(2, self->n.level);
	EXPECT_EQ(0x10, self->n.match_any);
	EXPECT_EQ(0x30, self->n.match_all);
	EXPECT_EQ(0xcafe, self->n.source_id.data1);
}

TEST_F(ntf, stopping_the_session_sends_disable)
{
	enable_and_read(_metadata, self, 0, 2, 0x10, 0);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, self->id[0], NULL));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(ETW_CONTROL_DISABLE, self->n.control_code);
	EXPECT_EQ(0, self->n.level);
}

TEST_F(ntf, registering_an_enabled_guid_is_notified)
{
	struct etw_guid g = raw_guid(FAMILY, 1);
	__u32 reg;

	ASSERT_EQ(0, raw_enable(self->fd, self->id[0], &g, 4, 0x8, 0));
	ASSERT_EQ(-ETIMEDOUT, next_notification(self));	/* not yet registered */
	ASSERT_EQ(0, raw_register(self->fd, &g, 0, 77, &reg, NULL));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(reg, self->n.reg_id);
	EXPECT_EQ(77, self->n.cookie);
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	EXPECT_EQ(4, self->n.level);
	EXPECT_EQ(0x8, self->n.match_any);
}

/*
 * A disallow list that takes a member out of one session's group enable
 * leaves it the other session's direct enable: the combined level goes
 * down with the keywords unchanged, and the provider hears of it.
 */
TEST_F(ntf, disallowing_a_member_reports_the_lower_level_left)
{
	struct etw_guid group = raw_guid(FAMILY + 1, 0);
	struct etw_guid member = raw_guid(FAMILY + 1, 1);
	__u8 blob[64];
	__u32 reg;

	ASSERT_EQ(0, raw_register(self->fd, &member, 0, 0, &reg, NULL));
	ASSERT_EQ(0, raw_set_traits(self->fd, reg, blob,
				    raw_traits_blob(blob, "Member", &group)));
	ASSERT_EQ(0, raw_enable(self->fd, self->id[1], &member, 2, 0, 0));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(2, self->n.level);
	ASSERT_EQ(0, raw_control(self->fd, self->id[0], &group,
				 ETW_CONTROL_ENABLE, ETW_ENABLE_PROVIDER_GROUP));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(255, self->n.level);
	ASSERT_EQ(0, raw_set_disallow(self->fd, self->id[0], &member, 1));
	ASSERT_EQ(sizeof(self->n), next_notification(self));
	EXPECT_EQ(reg, self->n.reg_id);
	EXPECT_EQ(ETW_CONTROL_ENABLE, self->n.control_code);
	EXPECT_EQ(2, self->n.level);
	EXPECT_EQ(~0ull, self->n.match_any);
	EXPECT_EQ(0, self->n.match_all);
	EXPECT_EQ(0, notification_waits(self));
}

/* --- filter data --------------------------------------------------------- */

/* An EVENT_FILTER_HEADER (Size = the whole block) and @n data bytes. */
static __u32 filter_block(__u8 *b, __u16 id, __u8 fill, __u32 n)
{
	__u32 size = FILTER_HDR + n;

	memset(b, 0, FILTER_HDR);
	memcpy(b, &id, 2);
	memcpy(b + 16, &size, 4);
	memset(b + FILTER_HDR, fill, n);
	return size;
}

TEST_F(ntf, filter_data_of_each_session_is_chained)
{
	__u8 f0[64], f1[64];
	struct etw_enable_args e;
	__u32 s0 = filter_block(f0, 0x11, 0xa0, 5);
	__u32 s1 = filter_block(f1, 0x22, 0xb0, 8);
	const __u8 *blk;
	__u64 instance;
	__u32 next;
	ssize_t r, first;
	int i;

	for (i = 0; i < 2; i++) {
		raw_enable_init(&e, self->id[i], &self->g, 0, 0, 0);
		e.filter_data_ptr = (uintptr_t)(i ? f1 : f0);
		e.filter_data_size = i ? s1 : s0;
		ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	/* One read returns both notifications, whole. */
	first = sizeof(self->n) + RAW_ALIGN8(s0);
	r = read(self->fd, self->buf, NBUF);
	ASSERT_EQ(first + sizeof(self->n) + RAW_ALIGN8(s0) + RAW_ALIGN8(s1), r);
	memcpy(&self->n, self->buf, sizeof(self->n));
	EXPECT_EQ(first, self->n.size);
	EXPECT_EQ(1, self->n.filter_count);
	memcpy(&self->n, self->buf + first, sizeof(self->n));
	r -= first;
	EXPECT_EQ(r, self->n.size);
	EXPECT_EQ(RAW_ALIGN8(s0) + RAW_ALIGN8(s1), self->n.filter_size);
	EXPECT_EQ(2, self->n.filter_count);

	blk = self->buf + first + sizeof(self->n);
	memcpy(&instance, blk + 8, 8);
	memcpy(&next, blk + 20, 4);
	EXPECT_EQ(1, instance);			/* session 0: slot 0 */
	EXPECT_EQ(RAW_ALIGN8(s0), next);
	EXPECT_EQ(0, memcmp(blk + FILTER_HDR, f0 + FILTER_HDR, 5));
	EXPECT_EQ(0x11, blk[0]);

	blk += next;
	memcpy(&instance, blk + 8, 8);
	memcpy(&next, blk + 20, 4);
	EXPECT_EQ(2, instance);			/* session 1: slot 1 */
	EXPECT_EQ(0, next);
	EXPECT_EQ(0, memcmp(blk + FILTER_HDR, f1 + FILTER_HDR, 8));
	EXPECT_EQ(0x22, blk[0]);
}

TEST_F(ntf, read_too_small_for_filter_data_is_einval)
{
	__u8 f[64];
	struct etw_enable_args e;

	raw_enable_init(&e, self->id[0], &self->g, 0, 0, 0);
	e.filter_data_ptr = (uintptr_t)f;
	e.filter_data_size = filter_block(f, 1, 0, 16);
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	EXPECT_EQ(-1, read(self->fd, self->buf, sizeof(self->n)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(sizeof(self->n) + 40, read(self->fd, self->buf, NBUF));
}

/* --- read() and poll() --------------------------------------------------- */

TEST_F(ntf, poll_is_readable_only_while_a_notification_waits)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };

	EXPECT_EQ(0, poll(&p, 1, 0));
	ASSERT_EQ(0, enable_s(self, 0, 1, 0, 0));
	EXPECT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLIN, p.revents & POLLIN);
	ASSERT_EQ(sizeof(self->n), read(self->fd, self->buf, NBUF));
	EXPECT_EQ(0, poll(&p, 1, 0));
}

TEST_F(ntf, read_smaller_than_a_notification_is_einval)
{
	ASSERT_EQ(0, enable_s(self, 0, 1, 0, 0));
	EXPECT_EQ(-1, read(self->fd, self->buf, sizeof(self->n) - 1));
	EXPECT_EQ(EINVAL, errno);
	/* The notification is still there. */
	EXPECT_EQ(sizeof(self->n), read(self->fd, self->buf, NBUF));
}

TEST_F(ntf, filter_header_size_short_of_the_data_is_einval)
{
	__u8 f[64];
	struct etw_enable_args e;
	__u32 size = filter_block(f, 1, 0, 16) - 8;

	/* 40 bytes passed, a header that says 32. */
	memcpy(f + 16, &size, 4);
	raw_enable_init(&e, self->id[0], &self->g, 0, 0, 0);
	e.filter_data_ptr = (uintptr_t)f;
	e.filter_data_size = size + 8;
	EXPECT_EQ(-EINVAL, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
}

/* Too small a buffer is EINVAL before anything is waited for. */
TEST(nonblocking_read_smaller_than_a_notification_is_einval)
{
	struct etw_notification n;
	int fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &n, sizeof(n) - 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST(nonblocking_read_with_nothing_queued_is_eagain)
{
	struct etw_notification n;
	int fd = open(ETW_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, &n, sizeof(n)));
	EXPECT_EQ(EAGAIN, errno);
	close(fd);
}

/* --- waiting for acknowledgements ---------------------------------------- */

/*
 * A provider process: registers the fixture's GUID on its own file and
 * reports it on @ready.  When @ack_ms >= 0 it then reads the notification,
 * sleeps @ack_ms, posts a byte on @acking and acknowledges it.  It keeps
 * its file open until a byte arrives on @release; with @ack_ms < 0 it then
 * reads the notification that waited unread: exit status 5 unless it is
 * an enable.
 */
static pid_t slow_provider(const struct etw_guid *g, int ack_ms, int ready,
			   int acking, int release)
{
	pid_t pid = fork();

	if (!pid) {
		struct etw_notification n;
		int fd = etw_open();
		__u32 reg;

		if (fd < 0 || raw_register(fd, g, 0, 0, &reg, NULL))
			_exit(2);
		raw_post_byte(ready);
		if (ack_ms >= 0) {
			if (read(fd, &n, sizeof(n)) != sizeof(n))
				_exit(3);
			raw_sleep_ms(ack_ms);
			raw_post_byte(acking);
			if (raw_ack(fd, n.seq))
				_exit(4);
		}
		raw_wait_byte(release);
		if (ack_ms < 0 && (read(fd, &n, sizeof(n)) != sizeof(n) ||
				   n.control_code != ETW_CONTROL_ENABLE))
			_exit(5);
		_exit(0);
	}
	return pid;
}

/*
 * Enable with @timeout_ms against a slow provider: the ioctl's -errno;
 * @acked tells whether the provider had begun its acknowledgement (posted
 * on its @acking pipe) by the time the ioctl returned.
 */
static int enable_waiting(struct __test_metadata *_metadata,
			  FIXTURE_DATA(ntf) *self, int ack_ms,
			  __u32 timeout_ms, bool *acked)
{
	struct etw_guid g = raw_guid(FAMILY, 2);
	int ready[2], acking[2], release[2], ret;
	struct pollfd pfd;
	struct etw_enable_args e;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(acking));
	ASSERT_EQ(0, pipe(release));
	pid = slow_provider(&g, ack_ms, ready[1], acking[1], release[0]);
	ASSERT_LE(0, pid);
	ASSERT_TRUE(raw_wait_byte(ready[0]));
	raw_enable_init(&e, self->id[0], &g, 0, 0, 0);
	e.timeout_ms = timeout_ms;
	ret = etw_ioctl(self->fd, ETW_IOC_ENABLE, &e);
	pfd = (struct pollfd){ .fd = acking[0], .events = POLLIN };
	*acked = poll(&pfd, 1, 0) == 1;
	raw_post_byte(release[1]);
	EXPECT_EQ(0, etw_wait_child(pid));
	close(ready[0]);
	close(ready[1]);
	close(acking[0]);
	close(acking[1]);
	close(release[0]);
	close(release[1]);
	return ret;
}

/* The provider sleeps 300 ms before it acknowledges: ENABLE returns after. */
TEST_F(ntf, enable_waits_until_the_provider_acks)
{
	bool acked;

	EXPECT_EQ(0, enable_waiting(_metadata, self, 300, 20000, &acked));
	EXPECT_TRUE(acked);
}

/* abi.rst: ETIMEDOUT, and the enable has taken effect anyway. */
TEST_F(ntf, enable_times_out_when_the_provider_never_reads)
{
	bool acked;

	/* The provider's exit status says the enable waited unread. */
	EXPECT_EQ(-ETIMEDOUT, enable_waiting(_metadata, self, -1, 300, &acked));
}

/* --- the enable area ----------------------------------------------------- */

struct area_reader {
	int fd;
	const struct etw_enable_state *st;
	int rounds;
	int mismatches;
};

/* A consistent copy of an entry: retry while the kernel rewrites it. */
static struct etw_enable_state area_load(const struct etw_enable_state *p)
{
	struct etw_enable_state s;
	__u32 seq;

	for (;;) {
		/* Pairs with the kernel's smp_wmb() after seq goes odd. */
		seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
		s.enabled = p->enabled;
		s.level = p->level;
		s.match_any = p->match_any;
		s.match_all = p->match_all;
		/* Pairs with the kernel's smp_wmb() before seq goes even. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && seq == __atomic_load_n(&p->seq,
							 __ATOMIC_RELAXED))
			return s;
	}
}

/* Read each notification, compare the area with it, then acknowledge. */
static void *area_reader_fn(void *arg)
{
	struct area_reader *r = arg;
	struct etw_notification n;
	int i;

	for (i = 0; i < r->rounds; i++) {
		struct etw_enable_state s;

		if (read(r->fd, &n, sizeof(n)) != sizeof(n)) {
			r->mismatches++;
			break;
		}
		s = area_load(r->st);
		if (!s.enabled || s.level != n.level ||
		    s.match_any != n.match_any || s.match_all != n.match_all)
			r->mismatches++;
		raw_ack(r->fd, n.seq);
	}
	return NULL;
}

TEST_F(ntf, enable_area_is_current_when_notification_is_read)
{
	struct etw_enable_state *map;
	struct area_reader r = { .fd = self->fd, .rounds = 8 };
	pthread_t t;
	int i;

	map = mmap(NULL, 4096 * 8, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	r.st = &map[self->index];
	ASSERT_EQ(0, pthread_create(&t, NULL, area_reader_fn, &r));
	for (i = 1; i <= r.rounds; i++) {
		struct etw_enable_args e;

		/* Each enable waits for the reader's ack: one at a time. */
		raw_enable_init(&e, self->id[0], &self->g, i, 1ull << i,
				1ull << i);
		e.timeout_ms = 10000;
		EXPECT_EQ(0, etw_ioctl(self->fd, ETW_IOC_ENABLE, &e));
	}
	pthread_join(t, NULL);
	EXPECT_EQ(0, r.mismatches);
	munmap(map, 4096 * 8);
}

TEST_HARNESS_MAIN
