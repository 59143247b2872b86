// SPDX-License-Identifier: GPL-2.0
/*
 * Promises of the notification queue (Documentation/abi.rst, "Notifications"
 * and ETW_IOC_UNREGISTER) through the raw ABI:
 *
 * - a file queues at most 4096 notifications and 16 MiB of them; beyond
 *   that the oldest
 *   notification of a registration with a newer one queued makes room, and
 *   a controller waiting for a dropped one (timeout_ms) is done when the
 *   newer one is acknowledged;
 * - UNREGISTER drops the queued notifications of that registration only.
 *
 * Notifications are made with CAPTURE_STATE, each carrying its number in
 * the SourceId, so the ones read back say which were kept.
 */
#include "kselftest_harness.h"
#include "etw_raw.h"

#define FAMILY		0x9a0e1000
#define QUEUE_MAX	4096	/* abi.rst: "at most 4096 notifications" */
#define QUEUE_BYTES	(16 << 20)	/* "and 16 MiB of them" */
#define BIG_SESSIONS	8	/* a GUID's global sessions at most */

FIXTURE(queue) {
	int ctl;	/* the controller's file */
	int prov;	/* the provider's file, never read until the test says */
	__u32 id;
	__u32 reg;
	struct etw_guid guid;
};

FIXTURE_SETUP(queue)
{
	self->ctl = etw_open();
	self->prov = open(ETW_DEV, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, self->ctl);
	ASSERT_LE(0, self->prov);
	ASSERT_EQ(0, raw_start(self->ctl, "notify-queue",
			       ETW_MODE_REAL_TIME, 4, 0, &self->id));
	self->guid = raw_guid(FAMILY, 0);
	ASSERT_EQ(0, raw_register(self->prov, &self->guid, 0, 0x5eed,
				  &self->reg, NULL));
}

FIXTURE_TEARDOWN(queue)
{
	raw_session_op(self->ctl, ETW_IOC_STOP, self->id, NULL);
	close(self->prov);
	close(self->ctl);
}

/* A notification for @guid whose SourceId.data1 is @n; 0 or -errno. */
static int notify_numbered(int fd, __u32 id, const struct etw_guid *guid,
			   __u32 code, __u32 n, __u32 timeout_ms)
{
	struct etw_enable_args e;

	raw_enable_init(&e, id, guid, 0, 0, 0);
	e.control_code = code;
	e.source_id.data1 = n;
	e.timeout_ms = timeout_ms;
	return etw_ioctl(fd, ETW_IOC_ENABLE, &e);
}

/* Queue notifications 1..@count: an ENABLE, then CAPTURE_STATEs. */
static int notify_many(int fd, __u32 id, const struct etw_guid *guid,
		       __u32 count)
{
	__u32 n;
	int ret = 0;

	for (n = 1; n <= count && !ret; n++)
		ret = notify_numbered(fd, id, guid, n == 1 ?
				      ETW_CONTROL_ENABLE :
				      ETW_CONTROL_CAPTURE_STATE, n, 0);
	return ret;
}

/*
 * Read every queued notification (non-blocking file).  @numbers gets the
 * SourceId numbers in order, @regs the registration ids; both may hold
 * @max.  Return: how many were read, or -errno.
 */
static long read_all(int fd, __u32 *numbers, __u32 *regs, long max)
{
	static char buf[64 * 1024];
	long total = 0;

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		ssize_t off = 0;

		if (r < 0)
			return errno == EAGAIN ? total : -errno;
		while (off < r) {
			const struct etw_notification *n = (const void *)
							   (buf + off);

			if (total < max) {
				numbers[total] = n->source_id.data1;
				regs[total] = n->reg_id;
			}
			total++;
			off += n->size;
		}
	}
}

TEST_F(queue, at_most_4096_are_queued_and_the_oldest_make_room)
{
	static __u32 numbers[QUEUE_MAX + 100], regs[QUEUE_MAX + 100];
	long got, i, out_of_order = 0;

	ASSERT_EQ(0, notify_many(self->ctl, self->id, &self->guid,
				 QUEUE_MAX + 100));
	got = read_all(self->prov, numbers, regs, QUEUE_MAX + 100);
	ASSERT_EQ(QUEUE_MAX, got);
	/* The newest 4096 were kept, in order; 1 to 100 made room. */
	for (i = 0; i < got; i++)
		out_of_order += numbers[i] != (__u32)i + 101;
	EXPECT_EQ(0, out_of_order);
	EXPECT_EQ(QUEUE_MAX + 100, numbers[got - 1]);
}

/*
 * Eight sessions each pass 1 KiB of filter data, which every notification
 * of the registration carries: the 16 MiB bound keeps fewer than 4096 of
 * them, the newest.
 */
TEST_F(queue, at_most_16_mib_are_queued_and_the_oldest_make_room)
{
	enum { COUNT = 3000 };
	static __u32 numbers[COUNT + BIG_SESSIONS];
	static __u32 regs[COUNT + BIG_SESSIONS];
	const long size = sizeof(struct etw_notification) +
			  BIG_SESSIONS * ETW_MAX_FILTER_DATA;
	const long kept = QUEUE_BYTES / size;
	__u8 filter[ETW_MAX_FILTER_DATA];
	struct etw_filter_header *fh = (void *)filter;
	__u32 id[BIG_SESSIONS];
	struct etw_enable_args e;
	long got, i, out_of_order = 0;
	char name[32];
	__u32 n;

	ASSERT_GT(QUEUE_MAX, kept);
	ASSERT_LT(kept, COUNT);
	memset(filter, 0x5a, sizeof(filter));
	memset(fh, 0, sizeof(*fh));
	fh->id = 1;
	fh->size = sizeof(filter);
	id[0] = self->id;
	for (i = 1; i < BIG_SESSIONS; i++) {
		snprintf(name, sizeof(name), "notify-16m-%ld", i);
		ASSERT_EQ(0, raw_start(self->ctl, name, ETW_MODE_REAL_TIME, 4,
				       0, &id[i]));
	}
	for (i = 0; i < BIG_SESSIONS; i++) {
		raw_enable_init(&e, id[i], &self->guid, 0, 0, 0);
		e.source_id.data1 = COUNT + 1 + i;
		e.filter_data_ptr = (uintptr_t)filter;
		e.filter_data_size = sizeof(filter);
		ASSERT_EQ(0, etw_ioctl(self->ctl, ETW_IOC_ENABLE, &e));
	}
	for (n = 1; n <= COUNT; n++)
		ASSERT_EQ(0, notify_numbered(self->ctl, self->id, &self->guid,
					     ETW_CONTROL_CAPTURE_STATE, n, 0));
	got = read_all(self->prov, numbers, regs, COUNT + BIG_SESSIONS);
	EXPECT_EQ(kept, got);
	/* The newest were kept, in order; the enables' went first. */
	for (i = 0; i < got && i < COUNT; i++)
		out_of_order += numbers[i] != (__u32)(COUNT - got + 1 + i);
	EXPECT_EQ(0, out_of_order);
	for (i = 1; i < BIG_SESSIONS; i++)
		raw_session_op(self->ctl, ETW_IOC_STOP, id[i], NULL);
}

TEST_F(queue, a_full_queue_takes_new_notifications_once_read)
{
	static __u32 numbers[QUEUE_MAX + 1], regs[QUEUE_MAX + 1];

	ASSERT_EQ(0, notify_many(self->ctl, self->id, &self->guid,
				 QUEUE_MAX + 1));
	ASSERT_EQ(QUEUE_MAX, read_all(self->prov, numbers, regs,
				      QUEUE_MAX + 1));
	ASSERT_EQ(0, notify_numbered(self->ctl, self->id, &self->guid,
				     ETW_CONTROL_CAPTURE_STATE, 7777, 0));
	ASSERT_EQ(1, read_all(self->prov, numbers, regs, QUEUE_MAX + 1));
	EXPECT_EQ(7777, numbers[0]);
}

/*
 * The oldest notification makes room only when its registration has a
 * newer one queued: a second registration's single old notification
 * stays while the first's are many, and goes once its newer one comes.
 */
TEST_F(queue, a_registrations_older_notification_makes_room_for_its_newer)
{
	static __u32 numbers[QUEUE_MAX + 1], regs[QUEUE_MAX + 1];
	struct etw_guid other = raw_guid(FAMILY, 1);
	long got, i, wrong = 0;
	__u32 oreg, n;

	ASSERT_EQ(0, raw_register(self->prov, &other, 0, 0, &oreg, NULL));
	ASSERT_EQ(0, notify_numbered(self->ctl, self->id, &other,
				     ETW_CONTROL_ENABLE, 1, 0));
	/* 2 to 4096 for the first registration: the queue is full. */
	for (n = 2; n <= QUEUE_MAX; n++)
		ASSERT_EQ(0, notify_numbered(self->ctl, self->id, &self->guid,
					     n == 2 ? ETW_CONTROL_ENABLE :
					     ETW_CONTROL_CAPTURE_STATE, n, 0));
	ASSERT_EQ(0, notify_numbered(self->ctl, self->id, &other,
				     ETW_CONTROL_CAPTURE_STATE, QUEUE_MAX + 1,
				     0));
	got = read_all(self->prov, numbers, regs, QUEUE_MAX + 1);
	ASSERT_EQ(QUEUE_MAX, got);
	for (i = 0; i < got - 1; i++)
		wrong += numbers[i] != (__u32)i + 2 || regs[i] != self->reg;
	EXPECT_EQ(0, wrong);
	EXPECT_EQ(QUEUE_MAX + 1, numbers[got - 1]);
	EXPECT_EQ(oreg, regs[got - 1]);
}

/*
 * The wait of an enabling controller: a queued notification nobody reads
 * times out (which shows the wait is real), a dropped one is handled.
 */
TEST_F(queue, unread_notification_makes_a_waiting_enable_time_out)
{
	EXPECT_EQ(-ETIMEDOUT, notify_numbered(self->ctl, self->id, &self->guid,
					      ETW_CONTROL_ENABLE, 1, 100));
}

/*
 * A child's ENABLE waits for notification 1; the queue then overflows and
 * drops it.  Acknowledging the newest ends the wait.
 */
TEST_F(queue, dropped_notification_is_handled_with_the_newer_one)
{
	static __u32 numbers[QUEUE_MAX + 1], regs[QUEUE_MAX + 1];
	struct pollfd p = { .fd = self->prov, .events = POLLIN };
	int status;
	pid_t pid = fork();

	if (!pid)
		_exit(-notify_numbered(self->ctl, self->id, &self->guid,
				       ETW_CONTROL_ENABLE, 1, 60000));
	ASSERT_EQ(1, poll(&p, 1, 60000));
	ASSERT_EQ(0, notify_many(self->ctl, self->id, &self->guid,
				 QUEUE_MAX + 1));
	ASSERT_EQ(QUEUE_MAX, read_all(self->prov, numbers, regs,
				      QUEUE_MAX + 1));
	ASSERT_EQ(0, raw_ack(self->prov, ~0ull));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* --- UNREGISTER ----------------------------------------------------------- */

TEST_F(queue, unregister_drops_that_registrations_notifications)
{
	__u32 numbers[8], regs[8], other;

	/* A second registration of the same GUID on the same file. */
	ASSERT_EQ(0, raw_register(self->prov, &self->guid, 0, 0, &other,
				  NULL));
	ASSERT_EQ(0, notify_many(self->ctl, self->id, &self->guid, 2));
	ASSERT_EQ(0, raw_unregister(self->prov, self->reg));
	/* Each had an ENABLE and a CAPTURE_STATE: only the other's remain. */
	ASSERT_EQ(2, read_all(self->prov, numbers, regs, 8));
	EXPECT_EQ(other, regs[0]);
	EXPECT_EQ(other, regs[1]);
	EXPECT_EQ(1, numbers[0]);
	EXPECT_EQ(2, numbers[1]);
}

TEST_F(queue, unregister_of_the_only_registration_leaves_nothing_to_read)
{
	struct pollfd p = { .fd = self->prov, .events = POLLIN };
	__u32 numbers[4], regs[4];

	ASSERT_EQ(0, notify_many(self->ctl, self->id, &self->guid, 3));
	ASSERT_EQ(0, raw_unregister(self->prov, self->reg));
	EXPECT_EQ(0, poll(&p, 1, 0));
	EXPECT_EQ(0, read_all(self->prov, numbers, regs, 4));
}

/* A waiter on a notification that UNREGISTER dropped is released. */
TEST_F(queue, unregister_releases_an_enable_waiting_on_it)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* 20 s: far beyond the unregister below, short of a hang. */
		_exit(-notify_numbered(self->ctl, self->id, &self->guid,
				       ETW_CONTROL_ENABLE, 1, 20000));
	}
	/* Once the notification is queued, drop it. */
	{
		struct pollfd p = { .fd = self->prov, .events = POLLIN };

		ASSERT_EQ(1, poll(&p, 1, 20000));
	}
	ASSERT_EQ(0, raw_unregister(self->prov, self->reg));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
