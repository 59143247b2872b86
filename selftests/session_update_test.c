// SPDX-License-Identifier: GPL-2.0
/*
 * ETW_IOC_UPDATE's promises (Documentation/abi.rst) through the raw ABI:
 *
 * - it toggles ETW_MODE_REAL_TIME on and off (QUERY reports the mode, and
 *   nothing else changes); any other mode change is EINVAL;
 * - ENOMEM leaves the session as it was: every allocation and user copy
 *   the ioctl makes is failed in turn through /proc/thread-self/fail-nth
 *   (N = 1, 2, ... until the ioctl gets through without reaching the N-th
 *   point), each failure must be ENOMEM or EFAULT, and after ENOMEM QUERY
 *   must show the session exactly as before.
 *
 * An EFAULT from copying the result back comes after the update took
 * effect; session_efault_test.c has that case (a known kernel bug).  The
 * numbering of the points is not the same from one call to the next (a
 * slab may or may not need a new page, kmemleak's own allocations count
 * too and fall back to its pool), so a sweep may step over a point; this
 * test checks what each failure it gets leaves behind.
 */
#include "kselftest_harness.h"
#include "etw_fail_nth.h"

#define NPP		ETW_MODE_NO_PER_PROCESSOR
#define MAX_NTH		2000	/* far more points than one UPDATE has */

/* A global session with one buffer stream: 2 to 22 buffers of 4 KiB. */
static int start(int fd, const char *tag, __u32 mode, __u32 *id)
{
	return raw_start(fd, tag, mode | NPP, 4, 0, id);
}

static int update(int fd, __u32 id, __u32 mode, __u32 max, __u32 flush,
		  struct etw_session_args *out)
{
	struct etw_session_args a;
	int ret;

	raw_session_init(&a, id);
	a.config.mode = mode;
	a.config.max_buffers = max;
	a.config.flush_timer_ms = flush;
	ret = etw_ioctl(fd, ETW_IOC_UPDATE, &a);
	if (out)
		*out = a;
	return ret;
}

static int same_config(const struct etw_session_config *a,
		       const struct etw_session_config *b)
{
	return !memcmp(a, b, sizeof(*a));
}

FIXTURE(upd) {
	int fd;
	__u32 id;
};

FIXTURE_SETUP(upd)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	self->id = 0;
}

FIXTURE_TEARDOWN(upd)
{
	if (self->id)
		raw_session_op(self->fd, ETW_IOC_STOP, self->id, NULL);
	close(self->fd);
}

/* --- REAL_TIME ------------------------------------------------------------ */

TEST_F(upd, real_time_turned_on)
{
	struct etw_session_args before, u, q;

	ASSERT_EQ(0, start(self->fd, "session-update-on", 0, &self->id));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id,
				    &before));
	ASSERT_EQ(NPP, before.config.mode);
	ASSERT_EQ(0, update(self->fd, self->id, NPP | ETW_MODE_REAL_TIME, 0, 0,
			    &u));
	EXPECT_EQ(NPP | ETW_MODE_REAL_TIME, u.config.mode);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(NPP | ETW_MODE_REAL_TIME, q.config.mode);
	/* The default real-time flush timer started, as at START. */
	EXPECT_EQ(0, before.config.flush_timer_ms);
	EXPECT_EQ(1000, q.config.flush_timer_ms);
	/* Nothing else changed. */
	q.config.mode = before.config.mode;
	q.config.flush_timer_ms = before.config.flush_timer_ms;
	EXPECT_TRUE(same_config(&before.config, &q.config));
}

TEST_F(upd, real_time_turned_off)
{
	struct etw_session_args before, u, q;

	ASSERT_EQ(0, start(self->fd, "session-update-off", ETW_MODE_REAL_TIME,
			   &self->id));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id,
				    &before));
	ASSERT_EQ(NPP | ETW_MODE_REAL_TIME, before.config.mode);
	ASSERT_EQ(0, update(self->fd, self->id, NPP, 0, 0, &u));
	EXPECT_EQ(NPP, u.config.mode);
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(NPP, q.config.mode);
	q.config.mode = before.config.mode;
	EXPECT_TRUE(same_config(&before.config, &q.config));
}

/* Off, then on again: the toggle works both ways on one session. */
TEST_F(upd, real_time_turned_off_and_on_again)
{
	struct etw_session_args q;

	ASSERT_EQ(0, start(self->fd, "session-update-again", ETW_MODE_REAL_TIME,
			   &self->id));
	ASSERT_EQ(0, update(self->fd, self->id, NPP, 0, 0, NULL));
	ASSERT_EQ(0, update(self->fd, self->id, NPP | ETW_MODE_REAL_TIME, 0, 0,
			    NULL));
	ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, self->id, &q));
	EXPECT_EQ(NPP | ETW_MODE_REAL_TIME, q.config.mode);
}

/* A private session's UPDATE may repeat its mode, not turn REAL_TIME on. */
TEST_F(upd, private_session_keeps_its_mode)
{
	__u32 id;

	ASSERT_EQ(0, start(self->fd, "session-update-private",
			   ETW_MODE_PRIVATE, &id));
	EXPECT_EQ(0, update(self->fd, id, NPP | ETW_MODE_PRIVATE, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, update(self->fd, id,
				  NPP | ETW_MODE_PRIVATE | ETW_MODE_REAL_TIME,
				  0, 0, NULL));
}

/* Any mode change but REAL_TIME is EINVAL, and changes nothing. */
static const struct mode_case {
	const char *what;
	__u32 start;	/* besides NO_PER_PROCESSOR */
	__u32 update;
} bad_modes[] = {
	{ "drop NO_PER_PROCESSOR", ETW_MODE_REAL_TIME, ETW_MODE_REAL_TIME },
	{ "add INDEPENDENT", ETW_MODE_REAL_TIME,
	  NPP | ETW_MODE_REAL_TIME | ETW_MODE_INDEPENDENT },
	{ "add BUFFERING", 0, NPP | ETW_MODE_BUFFERING },
	{ "add PRIVATE", 0, NPP | ETW_MODE_PRIVATE },
	{ "REAL_TIME on a buffering session", ETW_MODE_BUFFERING,
	  NPP | ETW_MODE_BUFFERING | ETW_MODE_REAL_TIME },
	{ "REAL_TIME and INDEPENDENT", 0,
	  NPP | ETW_MODE_REAL_TIME | ETW_MODE_INDEPENDENT },
};

TEST_F(upd, other_mode_change_is_einval)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_modes); i++) {
		const struct mode_case *t = &bad_modes[i];
		struct etw_session_args before, q;
		__u32 id;

		ASSERT_EQ(0, start(self->fd, "session-update-bad", t->start,
				   &id));
		ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, id,
					    &before));
		EXPECT_EQ(-EINVAL, update(self->fd, id, t->update, 0, 0, NULL)) {
			TH_LOG("%s", t->what);
		}
		ASSERT_EQ(0, raw_session_op(self->fd, ETW_IOC_QUERY, id, &q));
		EXPECT_TRUE(same_config(&before.config, &q.config)) {
			TH_LOG("%s", t->what);
		}
		EXPECT_EQ(0, raw_session_op(self->fd, ETW_IOC_STOP, id, NULL));
	}
}

/* --- failures leave the session as it was ----------------------------------- */

/*
 * The update tried at every failure point: 10 more buffers, a flush
 * timer and real-time on, all in one call.
 */
#define FI_MAX		32
#define FI_FLUSH	500

struct fi_result {
	int ret;		/* UPDATE's result */
	int fired;		/* the armed failure was injected */
	struct etw_session_args before;
	struct etw_session_args after;	/* QUERY after the UPDATE */
};

/* Start a fresh session, UPDATE it with the @nth point failing, QUERY. */
static int fi_try(int fd, int nth_fd, unsigned int nth, struct fi_result *r)
{
	__u32 id;
	int ret;

	ret = start(fd, "session-update-fi", 0, &id);
	if (!ret)
		ret = raw_session_op(fd, ETW_IOC_QUERY, id, &r->before);
	if (!ret)
		ret = fail_nth_set(nth_fd, nth);
	if (ret)
		return ret;
	r->ret = update(fd, id, NPP | ETW_MODE_REAL_TIME, FI_MAX, FI_FLUSH,
			NULL);
	r->fired = fail_nth_fired(nth_fd);
	ret = raw_session_op(fd, ETW_IOC_QUERY, id, &r->after);
	raw_session_op(fd, ETW_IOC_STOP, id, NULL);
	return ret;
}

static int unchanged(const struct fi_result *r)
{
	return same_config(&r->before.config, &r->after.config) &&
	       r->before.stats.buffers == r->after.stats.buffers &&
	       r->before.stats.free_buffers == r->after.stats.free_buffers;
}

static int fully_updated(const struct fi_result *r)
{
	const struct etw_session_config *c = &r->after.config;

	return c->mode == (NPP | ETW_MODE_REAL_TIME) &&
	       c->max_buffers == FI_MAX && c->flush_timer_ms == FI_FLUSH &&
	       c->buffer_kb == r->before.config.buffer_kb &&
	       c->min_buffers == r->before.config.min_buffers &&
	       r->after.stats.buffers == FI_MAX;
}

FIXTURE(fi) {
	int fd;
	int nth_fd;
};

FIXTURE_SETUP(fi)
{
	self->fd = etw_open();
	ASSERT_LE(0, self->fd);
	if (fail_nth_setup(false))
		SKIP(return, "no fault injection (debugfs failslab etc.)");
	self->nth_fd = fail_nth_open();
	ASSERT_LE(0, self->nth_fd);
}

FIXTURE_TEARDOWN(fi)
{
	fail_nth_restore();
	close(self->nth_fd);
	close(self->fd);
}

TEST_F(fi, update_failing_with_enomem_leaves_session_as_it_was)
{
	unsigned int nth, enomem = 0, efault = 0, absorbed = 0;
	struct fi_result r;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		ASSERT_EQ(0, fi_try(self->fd, self->nth_fd, nth, &r));
		if (!r.ret) {
			EXPECT_TRUE(fully_updated(&r)) {
				TH_LOG("point %u: succeeded but only in part",
				       nth);
			}
			if (!r.fired)
				break;	/* got through: no point left */
			absorbed++;	/* a failure it recovered from */
			continue;
		}
		EXPECT_TRUE(r.ret == -ENOMEM || r.ret == -EFAULT) {
			TH_LOG("point %u: %d", nth, r.ret);
		}
		EXPECT_TRUE(r.fired) {
			TH_LOG("point %u: failed (%d) with no failure injected",
			       nth, r.ret);
		}
		enomem += r.ret == -ENOMEM;
		efault += r.ret == -EFAULT;
		if (r.ret != -ENOMEM)
			continue;
		EXPECT_TRUE(unchanged(&r)) {
			TH_LOG("point %u: ENOMEM, yet the session changed: mode %#x max %u flush %u buffers %u",
			       nth, r.after.config.mode,
			       r.after.config.max_buffers,
			       r.after.config.flush_timer_ms,
			       r.after.stats.buffers);
		}
	}
	TH_LOG("%u points: %u ENOMEM, %u EFAULT, %u recovered from", nth - 1,
	       enomem, efault, absorbed);
	EXPECT_GE(MAX_NTH, nth);
	/* The new buffers' allocations were among the points. */
	EXPECT_LE(1, enomem);
}

TEST_HARNESS_MAIN
