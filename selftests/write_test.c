// SPDX-License-Identifier: GPL-2.0
/*
 * Write-path promises of Documentation/abi.rst through the raw ABI:
 *
 * - descriptor type 3 (ETW_WRITE_DESC_TYPES) overrides the timestamp of
 *   the record every target session gets, and is not payload;
 * - the kernel refuses a write (and an unregister) under a registration
 *   made by another process, such as a fork child using its parent's file
 *   and registration id without libetw;
 * - the flush timer seals partial buffers: an event reaches a waiting
 *   consumer without FLUSH or STOP.
 */
#include "kselftest_harness.h"
#include "etw_child.h"

#define FAMILY		0x9a0e2000
#define BUF_BYTES	4096
/* A generous bound for a timer of at most 1 s to fire, under TCG. */
#define POLL_MS		30000

static const char payload[8] = "payload";	/* with its NUL */
static const __u64 override_ts = 0x0123456789abcdefull;

/* What was read back of one provider's records. */
struct got {
	struct etw_guid guid;
	int n;
	__u64 ts[8];
	__u32 size[8];
	__u32 pid[8];
	char data[8][16];	/* the first 16 payload bytes */
};

static void got_fn(const struct etw_event_header *h, void *ctx)
{
	struct got *g = ctx;
	__u32 len = h->size - sizeof(*h);

	if (!raw_guid_eq(&h->provider_id, &g->guid) || g->n >= 8)
		return;
	g->ts[g->n] = h->timestamp;
	g->size[g->n] = h->size;
	g->pid[g->n] = h->process_id;
	memcpy(g->data[g->n], h + 1, len < 16 ? len : 16);
	g->n++;
}

/* FLUSH @id and read its consumer @cfd into @g; 0 or -errno. */
static int collect(int fd, __u32 id, int cfd, struct got *g)
{
	long r;

	g->n = 0;
	r = raw_session_op(fd, ETW_IOC_FLUSH, id, NULL);
	if (!r)
		r = raw_drain(cfd, BUF_BYTES, got_fn, g);
	return r < 0 ? (int)r : 0;
}

/* A session (mode @mode, 4 KiB buffers) enabling @guid, and a consumer. */
struct sess {
	__u32 id;
	int cfd;
};

static int sess_start(int fd, const char *tag, __u32 mode,
		      const struct etw_guid *guid, struct sess *s)
{
	int ret = raw_start(fd, tag, mode | ETW_MODE_NO_PER_PROCESSOR, 4, 0,
			    &s->id);

	if (ret)
		return ret;
	s->cfd = raw_consumer(fd, s->id);
	if (s->cfd < 0)
		return s->cfd;
	return raw_enable(fd, s->id, guid, 0, 0, 0);
}

static void sess_stop(int fd, struct sess *s)
{
	raw_session_op(fd, ETW_IOC_STOP, s->id, NULL);
	close(s->cfd);
}

/* Write @payload and an 8-byte descriptor of type 3 holding @ts. */
static int write_with_ts(int fd, __u32 reg, __u32 flags, const void *ts,
			 __u32 ts_size)
{
	struct etw_data_descriptor d[2] = {
		{ .ptr = (uintptr_t)payload, .size = sizeof(payload) },
		{ .ptr = (uintptr_t)ts, .size = ts_size,
		  .type = ETW_DATA_TYPE_TIMESTAMP },
	};
	struct etw_write_args w;

	raw_write_init(&w, reg, 3, 0, 0);
	w.flags = flags;
	w.data_count = 2;
	w.data_ptr = (uintptr_t)d;
	return etw_ioctl(fd, ETW_IOC_WRITE, &w);
}

/* --- descriptor type 3 ---------------------------------------------------- */

FIXTURE(ts) {
	int fd;
	__u32 reg;
	struct sess a;
	struct sess b;
	struct got got;
};

FIXTURE_SETUP(ts)
{
	memset(&self->got, 0, sizeof(self->got));
	self->got.guid = raw_guid(FAMILY, 1);
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_register(self->fd, &self->got.guid, 0, 0, &self->reg,
				  NULL));
	ASSERT_EQ(0, sess_start(self->fd, "write-ts-a", ETW_MODE_PRIVATE,
				&self->got.guid, &self->a));
	ASSERT_EQ(0, sess_start(self->fd, "write-ts-b", ETW_MODE_PRIVATE,
				&self->got.guid, &self->b));
}

FIXTURE_TEARDOWN(ts)
{
	sess_stop(self->fd, &self->a);
	sess_stop(self->fd, &self->b);
	close(self->fd);
}

TEST_F(ts, type_3_descriptor_overrides_the_timestamp)
{
	ASSERT_EQ(0, write_with_ts(self->fd, self->reg, ETW_WRITE_DESC_TYPES,
				   &override_ts, 8));
	ASSERT_EQ(0, collect(self->fd, self->a.id, self->a.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(override_ts, self->got.ts[0]);
}

TEST_F(ts, type_3_descriptor_is_not_payload)
{
	ASSERT_EQ(0, write_with_ts(self->fd, self->reg, ETW_WRITE_DESC_TYPES,
				   &override_ts, 8));
	ASSERT_EQ(0, collect(self->fd, self->a.id, self->a.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(sizeof(struct etw_event_header) + sizeof(payload),
		  self->got.size[0]);
	EXPECT_EQ(0, memcmp(payload, self->got.data[0], sizeof(payload)));
}

/* The record is built once and copied: every target gets the override. */
TEST_F(ts, type_3_override_reaches_every_target_session)
{
	ASSERT_EQ(0, write_with_ts(self->fd, self->reg, ETW_WRITE_DESC_TYPES,
				   &override_ts, 8));
	ASSERT_EQ(0, collect(self->fd, self->a.id, self->a.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(override_ts, self->got.ts[0]);
	ASSERT_EQ(0, collect(self->fd, self->b.id, self->b.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(override_ts, self->got.ts[0]);
}

/* Without ETW_WRITE_DESC_TYPES the type is not read: 16 payload bytes. */
TEST_F(ts, type_3_without_desc_types_flag_is_payload)
{
	__u64 before = raw_now_ns(), after;

	ASSERT_EQ(0, write_with_ts(self->fd, self->reg, 0, &override_ts, 8));
	after = raw_now_ns();
	ASSERT_EQ(0, collect(self->fd, self->a.id, self->a.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(sizeof(struct etw_event_header) + 16, self->got.size[0]);
	EXPECT_EQ(0, memcmp(self->got.data[0] + 8, &override_ts, 8));
	/* The kernel's own clock reading, not the override. */
	EXPECT_LE(before, self->got.ts[0]);
	EXPECT_GE(after, self->got.ts[0]);
}

TEST_F(ts, type_3_of_other_than_8_bytes_is_einval)
{
	static const __u32 sizes[] = { 0, 1, 4, 7, 9, 16 };
	static const __u64 big[2] = { 1, 2 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		EXPECT_EQ(-EINVAL, write_with_ts(self->fd, self->reg,
						 ETW_WRITE_DESC_TYPES, big,
						 sizes[i])) {
			TH_LOG("size %u", sizes[i]);
		}
	ASSERT_EQ(0, collect(self->fd, self->a.id, self->a.cfd, &self->got));
	EXPECT_EQ(0, self->got.n);
}

/* --- another process's registration --------------------------------------- */

FIXTURE(fork) {
	int fd;
	__u32 reg;
	struct sess s;
	struct got got;
};

FIXTURE_SETUP(fork)
{
	memset(&self->got, 0, sizeof(self->got));
	self->got.guid = raw_guid(FAMILY, 2);
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_register(self->fd, &self->got.guid, 0, 0, &self->reg,
				  NULL));
	/* Global: it takes every process's events. */
	ASSERT_EQ(0, sess_start(self->fd, "write-fork", ETW_MODE_REAL_TIME,
				&self->got.guid, &self->s));
}

FIXTURE_TEARDOWN(fork)
{
	sess_stop(self->fd, &self->s);
	close(self->fd);
}

struct fork_ctx {
	int fd;
	__u32 reg;
};

/* In the child: the parent's file and registration id, bare ioctls. */
static int child_write(void *arg)
{
	struct fork_ctx *c = arg;

	return -raw_write(c->fd, c->reg, 1, 0, 0);
}

static int child_unregister(void *arg)
{
	struct fork_ctx *c = arg;

	return -raw_unregister(c->fd, c->reg);
}

TEST_F(fork, child_write_under_parents_registration_is_ebadf)
{
	struct fork_ctx c = { self->fd, self->reg };

	EXPECT_EQ(EBADF, child_run(child_write, &c, 0));
	/* Nothing was recorded; the parent's own write still is. */
	ASSERT_EQ(0, collect(self->fd, self->s.id, self->s.cfd, &self->got));
	EXPECT_EQ(0, self->got.n);
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, collect(self->fd, self->s.id, self->s.cfd, &self->got));
	ASSERT_EQ(1, self->got.n);
	EXPECT_EQ(getpid(), self->got.pid[0]);
}

TEST_F(fork, child_unregister_of_parents_registration_is_ebadf)
{
	struct fork_ctx c = { self->fd, self->reg };

	EXPECT_EQ(EBADF, child_run(child_unregister, &c, 0));
	/* Still registered for the parent. */
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, collect(self->fd, self->s.id, self->s.cfd, &self->got));
	EXPECT_EQ(1, self->got.n);
}

/* --- the flush timer ------------------------------------------------------ */

/*
 * One event goes into an otherwise empty 4 KiB buffer; only a timer seals
 * it.  Wait for the consumer to become readable, then read the event.
 */
static int wait_for_event(int cfd, struct got *g)
{
	struct pollfd p = { .fd = cfd, .events = POLLIN };
	long r;

	g->n = 0;
	if (poll(&p, 1, POLL_MS) != 1)
		return -ETIMEDOUT;
	r = raw_drain(cfd, BUF_BYTES, got_fn, g);
	return r < 0 ? (int)r : 0;
}

FIXTURE(timer) {
	int fd;
	__u32 reg;
	struct sess s;
	struct got got;
};

FIXTURE_SETUP(timer)
{
	memset(&self->got, 0, sizeof(self->got));
	self->got.guid = raw_guid(FAMILY, 3);
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, raw_register(self->fd, &self->got.guid, 0, 0, &self->reg,
				  NULL));
	self->s.cfd = -1;
}

FIXTURE_TEARDOWN(timer)
{
	if (self->s.cfd >= 0)
		sess_stop(self->fd, &self->s);
	close(self->fd);
}

TEST_F(timer, real_time_session_default_timer_delivers_partial_buffer)
{
	struct etw_session_args q;

	ASSERT_EQ(0, sess_start(self->fd, "write-timer-rt",
				ETW_MODE_REAL_TIME, &self->got.guid,
				&self->s));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->s.id, &q));
	ASSERT_EQ(1000, q.config.flush_timer_ms);
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, wait_for_event(self->s.cfd, &self->got));
	EXPECT_EQ(1, self->got.n);
}

TEST_F(timer, private_session_timer_delivers_partial_buffer)
{
	struct etw_session_args a;

	raw_session_init(&a, 0);
	snprintf(a.name, sizeof(a.name), "write-timer-priv-%d", getpid());
	a.config.buffer_kb = 4;
	a.config.flush_timer_ms = 100;
	a.config.mode = ETW_MODE_PRIVATE | ETW_MODE_NO_PER_PROCESSOR;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_START, &a));
	self->s.id = a.logger_id;
	self->s.cfd = raw_consumer(self->fd, self->s.id);
	ASSERT_LE(0, self->s.cfd);
	ASSERT_EQ(0, raw_enable(self->fd, self->s.id, &self->got.guid, 0, 0,
				0));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, wait_for_event(self->s.cfd, &self->got));
	EXPECT_EQ(1, self->got.n);
}

/* A session started without a timer gets one from UPDATE. */
TEST_F(timer, timer_set_by_update_delivers_partial_buffer)
{
	struct etw_session_args a, q;

	ASSERT_EQ(0, sess_start(self->fd, "write-timer-upd", 0,
				&self->got.guid, &self->s));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->s.id, &q));
	ASSERT_EQ(0, q.config.flush_timer_ms);
	raw_session_init(&a, self->s.id);
	a.config.flush_timer_ms = 100;
	ASSERT_EQ(0, etw_ioctl(self->fd, ETW_IOC_UPDATE, &a));
	ASSERT_EQ(0, raw_write(self->fd, self->reg, 1, 0, 0));
	ASSERT_EQ(0, wait_for_event(self->s.cfd, &self->got));
	EXPECT_EQ(1, self->got.n);
}

TEST_HARNESS_MAIN
