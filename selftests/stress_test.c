// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency through the raw ABI: one writer thread per online CPU (at
 * least two) writes as fast as it can while a control thread enables,
 * disables, flushes, and stops and restarts sessions, and a consumer
 * thread per session reads everything.
 *
 * Accounting is exact where the route is stable: a session whose enable
 * does not change while the writers run must see every event that passes
 * its filter either delivered to its consumer or counted in events_lost
 * (no buffering mode, so nothing is overwritten).  Sessions whose enable
 * changes under the writers are checked against their own statistics
 * (delivered == events_written), which must hold whatever raced.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

#define FAMILY		0x57e55000
#define BUF_KB		16
#define BUF_BYTES	(BUF_KB * 1024)
#define MAX_WRITERS	64
#define NLEVELS		5	/* event levels 1..4 are written */
#define RUN_MS		3000
#define SLOW_MS		100	/* session 1's consumer, per buffer */

struct consumer {
	pthread_t thread;
	int cfd;
	struct etw_guid guid;
	long by_level[256];
	long delivered;
	int error;
	int delay_ms;
};

struct rig;

struct writer {
	pthread_t thread;
	struct rig *rig;
	long by_level[NLEVELS];
	long unexpected;
	int last_error;
};

struct rig {
	int fd;
	struct etw_guid guid;
	__u32 reg;
	atomic_int stop;
	int nwriters;
	int churn_regs;
	struct writer w[MAX_WRITERS];
};

static int writer_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		n = 2;
	return n > MAX_WRITERS ? MAX_WRITERS : (int)n;
}

/* Count one write: 0 and ENOBUFS are the only results a write may have. */
static void writer_note(struct writer *w, __u8 level, int ret)
{
	if (ret && ret != -ENOBUFS) {
		w->unexpected++;
		w->last_error = ret;
		return;
	}
	w->by_level[level]++;
}

/* Write levels 1..4 in turn; with churn_regs, on fresh registrations. */
static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	struct rig *r = w->rig;
	unsigned long n = 0;

	while (!atomic_load(&r->stop)) {
		__u32 reg = r->reg;
		int i, batch = r->churn_regs ? 16 : 64;

		if (r->churn_regs &&
		    raw_register(r->fd, &r->guid, 0, 0, &reg, NULL)) {
			w->unexpected++;
			continue;
		}
		for (i = 0; i < batch; i++, n++) {
			__u8 level = 1 + (n & 3);

			writer_note(w, level,
				    raw_write(r->fd, reg, 1, level, 0));
		}
		if (r->churn_regs && raw_unregister(r->fd, reg))
			w->unexpected++;
	}
	return NULL;
}

static void *consumer_fn(void *arg)
{
	struct consumer *c = arg;
	char *buf = malloc(BUF_BYTES);

	if (!buf) {
		c->error = -ENOMEM;
		return NULL;
	}
	for (;;) {
		struct pollfd p = { .fd = c->cfd, .events = POLLIN };
		struct raw_seen seen = { .guid = c->guid };
		const struct etw_buffer_header *bh = (const void *)buf;
		ssize_t got;

		if (poll(&p, 1, 10000) != 1) {
			c->error = -ETIMEDOUT;
			break;
		}
		got = read(c->cfd, buf, BUF_BYTES);
		if (got == 0)
			break;			/* stopped, all read */
		if (got < 0 && errno == EAGAIN)
			continue;
		if (got != BUF_BYTES || raw_walk_buffer(buf, raw_seen_fn,
							&seen) < 0) {
			c->error = got < 0 ? -errno : -EBADMSG;
			break;
		}
		c->delivered += seen.n;
		raw_sleep_ms(c->delay_ms);
		/* Per level: walk again, cheap next to the read. */
		for (__u32 off = ETW_BUFFER_HEADER_SIZE;
		     off + sizeof(struct etw_event_header) <= bh->offset;) {
			const struct etw_event_header *h = (const void *)
							   (buf + off);

			if (raw_guid_eq(&h->provider_id, &c->guid))
				c->by_level[h->descriptor.level]++;
			off += RAW_ALIGN8(h->size);
		}
	}
	free(buf);
	return NULL;
}

static int consumer_start(struct consumer *c, int fd, __u32 id,
			  const struct etw_guid *g, int delay_ms)
{
	memset(c, 0, sizeof(*c));
	c->guid = *g;
	c->delay_ms = delay_ms;
	c->cfd = raw_consumer(fd, id);
	if (c->cfd < 0)
		return c->cfd;
	return -pthread_create(&c->thread, NULL, consumer_fn, c);
}

static void consumer_join(struct consumer *c)
{
	pthread_join(c->thread, NULL);
	close(c->cfd);
}

static void writers_start(struct __test_metadata *_metadata, struct rig *r)
{
	int i;

	r->nwriters = writer_count();
	for (i = 0; i < r->nwriters; i++) {
		r->w[i].rig = r;
		ASSERT_EQ(0, pthread_create(&r->w[i].thread, NULL, writer_fn,
					    &r->w[i]));
	}
}

static void writers_join(struct __test_metadata *_metadata, struct rig *r)
{
	int i;

	for (i = 0; i < r->nwriters; i++) {
		pthread_join(r->w[i].thread, NULL);
		EXPECT_EQ(0, r->w[i].unexpected)
			TH_LOG("writer %d: last error %d", i,
			       r->w[i].last_error);
	}
}

/* The events the writers wrote at levels @lo..@hi. */
static long writers_total(struct rig *r, int lo, int hi)
{
	long total = 0;
	int i, l;

	for (i = 0; i < r->nwriters; i++)
		for (l = lo; l <= hi; l++)
			total += r->w[i].by_level[l];
	return total;
}

FIXTURE(stress) {
	struct rig rig;
	__u32 id[3];
	struct consumer c[3];
	pthread_t control;
};

FIXTURE_SETUP(stress)
{
	char name[32];
	int i;

	memset(&self->rig, 0, sizeof(self->rig));
	self->rig.fd = etw_open();
	ASSERT_LE(0, self->rig.fd);
	self->rig.guid = raw_guid(FAMILY, 0);
	ASSERT_EQ(0, raw_register(self->rig.fd, &self->rig.guid, 0, 0,
				  &self->rig.reg, NULL));
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "stress-%d", i);
		/* Session 1: few buffers and a slow consumer, so it loses. */
		ASSERT_EQ(0, raw_start(self->rig.fd, name, ETW_MODE_REAL_TIME,
				       BUF_KB, i == 1 ? 4 : 16, &self->id[i]));
	}
}

FIXTURE_TEARDOWN(stress)
{
	int i;

	for (i = 0; i < 3; i++)
		raw_session_op(self->rig.fd, ETW_IOC_STOP, self->id[i], NULL);
	close(self->rig.fd);
}

/* Session 2's enable flips while sessions 0..2 are flushed and queried. */
static void *toggler_fn(void *arg)
{
	FIXTURE_DATA(stress) *self = arg;
	struct rig *r = &self->rig;
	int on = 0, i;

	while (!atomic_load(&r->stop)) {
		on = !on;
		raw_control(r->fd, self->id[2], &r->guid,
			    on ? ETW_CONTROL_ENABLE : ETW_CONTROL_DISABLE, 0);
		for (i = 0; i < 3; i++) {
			raw_session_op(r->fd, ETW_IOC_FLUSH, self->id[i], NULL);
			raw_session_op(r->fd, ETW_IOC_QUERY, self->id[i], NULL);
		}
		raw_sleep_ms(5);
	}
	return NULL;
}

/* Consumers on sessions 0..2, writers and the toggler for RUN_MS; stop. */
static void run_phase(struct __test_metadata *_metadata,
		      FIXTURE_DATA(stress) *self, struct etw_session_args *st)
{
	struct rig *r = &self->rig;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, consumer_start(&self->c[i], r->fd, self->id[i],
					    &r->guid, i == 1 ? SLOW_MS : 0));
	writers_start(_metadata, r);
	ASSERT_EQ(0, pthread_create(&self->control, NULL, toggler_fn, self));
	raw_sleep_ms(RUN_MS);
	atomic_store(&r->stop, 1);
	pthread_join(self->control, NULL);
	writers_join(_metadata, r);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, raw_session_op(r->fd, ETW_IOC_STOP, self->id[i],
					    &st[i]));
		consumer_join(&self->c[i]);
		EXPECT_EQ(0, self->c[i].error) TH_LOG("consumer %d", i);
		EXPECT_EQ(0, st[i].stats.events_overwritten);
	}
}

TEST_F_TIMEOUT(stress, stable_routes_account_exactly, 40)
{
	struct rig *r = &self->rig;
	struct etw_session_args st[3];
	long all, low;

	ASSERT_EQ(0, raw_enable(r->fd, self->id[0], &r->guid, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(r->fd, self->id[1], &r->guid, 2, 0, 0));
	run_phase(_metadata, self, st);
	all = writers_total(r, 1, 4);
	low = writers_total(r, 1, 2);
	ASSERT_LT(0, all);
	TH_LOG("written %ld; delivered %ld/%ld/%ld; lost %llu/%llu/%llu", all,
	       self->c[0].delivered, self->c[1].delivered,
	       self->c[2].delivered, st[0].stats.events_lost,
	       st[1].stats.events_lost, st[2].stats.events_lost);

	/* Session 0 takes every level. */
	EXPECT_EQ(st[0].stats.events_written, self->c[0].delivered);
	EXPECT_EQ(all, self->c[0].delivered + st[0].stats.events_lost);
	/* Session 1 takes levels 1 and 2 only. */
	EXPECT_EQ(st[1].stats.events_written, self->c[1].delivered);
	EXPECT_EQ(low, self->c[1].delivered + st[1].stats.events_lost);
	EXPECT_EQ(0, self->c[1].by_level[3] + self->c[1].by_level[4]);
	/* Session 2 flipped: its own books still balance. */
	EXPECT_EQ(st[2].stats.events_written, self->c[2].delivered);
	EXPECT_GE(all, self->c[2].delivered + st[2].stats.events_lost);
}

TEST_F_TIMEOUT(stress, register_unregister_races_writes, 40)
{
	struct rig *r = &self->rig;
	struct etw_session_args st[3];
	long all;

	/* The fixture's registration stays: the GUID keeps its entry. */
	r->churn_regs = 1;
	ASSERT_EQ(0, raw_enable(r->fd, self->id[0], &r->guid, 0, 0, 0));
	run_phase(_metadata, self, st);
	all = writers_total(r, 1, 4);
	ASSERT_LT(0, all);
	EXPECT_EQ(st[0].stats.events_written, self->c[0].delivered);
	EXPECT_EQ(all, self->c[0].delivered + st[0].stats.events_lost);
	EXPECT_EQ(st[2].stats.events_written, self->c[2].delivered);
}

/* Start a session, enable it, let the writers fill it briefly, stop it. */
static void restart_cycle(struct __test_metadata *_metadata,
			  struct rig *r, int with_consumer, int *cycles)
{
	struct etw_session_args st;
	struct consumer c;
	__u32 id;

	ASSERT_EQ(0, raw_start(r->fd, "stress-cycle", ETW_MODE_REAL_TIME,
			       BUF_KB, 8, &id));
	if (with_consumer)
		ASSERT_EQ(0, consumer_start(&c, r->fd, id, &r->guid, 0));
	ASSERT_EQ(0, raw_enable(r->fd, id, &r->guid, 0, 0, 0));
	raw_sleep_ms(50);
	ASSERT_EQ(0, raw_session_op(r->fd, ETW_IOC_STOP, id, &st));
	if (with_consumer) {
		consumer_join(&c);
		EXPECT_EQ(0, c.error);
		EXPECT_EQ(st.stats.events_written, c.delivered);
	} else {
		/* Unread buffers are dropped at stop and counted lost. */
		EXPECT_EQ(0, st.stats.events_written);
		EXPECT_EQ(st.stats.buffers_written, 0);
	}
	(*cycles)++;
}

TEST_F_TIMEOUT(stress, sessions_stop_while_writers_write, 40)
{
	struct rig *r = &self->rig;
	__u64 end;
	int cycles = 0;

	writers_start(_metadata, r);
	end = raw_now_ns() + RUN_MS * 1000000ull;
	while (raw_now_ns() < end && !_metadata->exit_code)
		restart_cycle(_metadata, r, cycles & 1, &cycles);
	atomic_store(&r->stop, 1);
	writers_join(_metadata, r);
	EXPECT_LE(2, cycles);
	EXPECT_LT(0, writers_total(r, 1, 4));
}

TEST_HARNESS_MAIN
