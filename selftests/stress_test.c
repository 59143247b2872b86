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
 * (delivered == events_written), which must hold whatever raced.  The
 * writers' own count of ENOBUFS results is a fourth, independent source:
 * a session that takes every event of a write shares its fate, so its
 * events_lost equals the writes that failed.
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

struct rig;

struct consumer {
	pthread_t thread;
	int cfd;
	struct etw_guid guid;
	long by_level[256];
	long delivered;
	int error;
	int delay_ms;
	/* Read nothing until the writers made @gate_at level 1-2 writes. */
	struct rig *gate_rig;
	long gate_at;
	atomic_int gate_open;
};

/* by_level and nobufs are read while the writer runs: relaxed atomics. */
struct writer {
	pthread_t thread;
	struct rig *rig;
	atomic_long by_level[NLEVELS];	/* writes attempted */
	atomic_long nobufs[NLEVELS];	/* of which ENOBUFS */
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
	long quota;		/* writes per writer, 0: until stop */
	struct writer w[MAX_WRITERS];
};

/* The bytes of one raw_write() record, padding included. */
#define REC_BYTES	RAW_ALIGN8(sizeof(struct etw_event_header) + \
				   sizeof(struct raw_payload))

static int writer_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 2)
		n = 2;
	return n > MAX_WRITERS ? MAX_WRITERS : (int)n;
}

static void bump(atomic_long *v)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed)
			      + 1, memory_order_relaxed);
}

/* Count one write: 0 and ENOBUFS are the only results a write may have. */
static void writer_note(struct writer *w, __u8 level, int ret)
{
	if (ret && ret != -ENOBUFS) {
		w->unexpected++;
		w->last_error = ret;
		return;
	}
	bump(&w->by_level[level]);
	if (ret)
		bump(&w->nobufs[level]);
}

/* Write levels 1..4 in turn; with churn_regs, on fresh registrations. */
static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	struct rig *r = w->rig;
	unsigned long n = 0;

	while (!atomic_load(&r->stop) && (!r->quota || n < r->quota)) {
		__u32 reg = r->reg;
		int i, batch = r->churn_regs ? 16 : 64;

		if (r->quota && batch > r->quota - (long)n)
			batch = r->quota - n;
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

static long sum_levels(struct rig *r, int nobufs, int lo, int hi)
{
	long total = 0;
	int i, l;

	for (i = 0; i < r->nwriters; i++) {
		atomic_long *v = nobufs ? r->w[i].nobufs : r->w[i].by_level;

		for (l = lo; l <= hi; l++)
			total += atomic_load_explicit(&v[l],
						      memory_order_relaxed);
	}
	return total;
}

/* The events the writers wrote (or tried to) at levels @lo..@hi. */
static long writers_total(struct rig *r, int lo, int hi)
{
	return sum_levels(r, 0, lo, hi);
}

/* The writes at levels @lo..@hi that returned ENOBUFS. */
static long writers_nobufs(struct rig *r, int lo, int hi)
{
	return sum_levels(r, 1, lo, hi);
}

static void *consumer_fn(void *arg)
{
	struct consumer *c = arg;
	char *buf = malloc(BUF_BYTES);

	if (!buf) {
		c->error = -ENOMEM;
		return NULL;
	}
	while (c->gate_rig && writers_total(c->gate_rig, 1, 2) < c->gate_at)
		raw_sleep_ms(1);
	atomic_store(&c->gate_open, 1);
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

/* With @gate_rig, read nothing until it made @gate_at level 1-2 writes. */
static int consumer_start(struct consumer *c, int fd, __u32 id,
			  const struct etw_guid *g, int delay_ms,
			  struct rig *gate_rig, long gate_at)
{
	memset(c, 0, sizeof(*c));
	c->guid = *g;
	c->delay_ms = delay_ms;
	c->gate_rig = gate_rig;
	c->gate_at = gate_at;
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

/*
 * Consumers on sessions 0..2, writers and the toggler for RUN_MS (and
 * until session 1's consumer, which reads nothing before the writers made
 * @gate level 1-2 writes, started reading); stop.
 */
static void run_phase(struct __test_metadata *_metadata,
		      FIXTURE_DATA(stress) *self, struct etw_session_args *st,
		      long gate)
{
	struct rig *r = &self->rig;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, consumer_start(&self->c[i], r->fd, self->id[i],
					    &r->guid, i == 1 ? SLOW_MS : 0,
					    i == 1 && gate ? r : NULL, gate));
	writers_start(_metadata, r);
	ASSERT_EQ(0, pthread_create(&self->control, NULL, toggler_fn, self));
	raw_sleep_ms(RUN_MS);
	while (!atomic_load(&self->c[1].gate_open))
		raw_sleep_ms(10);
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

/* Events session @id holds at most when nobody reads it. */
static long session_capacity(int fd, __u32 id)
{
	struct etw_session_args q;

	if (raw_session_op(fd, ETW_IOC_QUERY, id, &q))
		return -1;
	return (long)q.config.max_buffers *
	       ((BUF_BYTES - ETW_BUFFER_HEADER_SIZE) / REC_BYTES);
}

TEST_F_TIMEOUT(stress, stable_routes_account_exactly, 60)
{
	struct rig *r = &self->rig;
	struct etw_session_args st[3];
	long all, low, cap;

	ASSERT_EQ(0, raw_enable(r->fd, self->id[0], &r->guid, 0, 0, 0));
	ASSERT_EQ(0, raw_enable(r->fd, self->id[1], &r->guid, 2, 0, 0));
	/* Session 1 is read only after more writes than it can hold. */
	cap = session_capacity(r->fd, self->id[1]);
	ASSERT_LT(0, cap);
	run_phase(_metadata, self, st, cap + 1);
	all = writers_total(r, 1, 4);
	low = writers_total(r, 1, 2);
	ASSERT_LT(0, all);
	TH_LOG("written %ld (ENOBUFS %ld); delivered %ld/%ld/%ld; "
	       "lost %llu/%llu/%llu", all, writers_nobufs(r, 1, 4),
	       self->c[0].delivered, self->c[1].delivered,
	       self->c[2].delivered, st[0].stats.events_lost,
	       st[1].stats.events_lost, st[2].stats.events_lost);

	/* The first events found every session empty: all delivered some. */
	EXPECT_LT(0, self->c[0].delivered);
	EXPECT_LT(0, self->c[1].delivered);
	/* Session 1 was not read until it had to lose: it lost. */
	EXPECT_LT(0, st[1].stats.events_lost);
	/*
	 * Session 0 takes every level, and shares every loss (no session is
	 * independent): its losses are exactly the writes that failed.
	 */
	EXPECT_EQ(st[0].stats.events_written, self->c[0].delivered);
	EXPECT_EQ(all, self->c[0].delivered + st[0].stats.events_lost);
	EXPECT_EQ(writers_nobufs(r, 1, 4), st[0].stats.events_lost);
	/* Session 1 takes levels 1 and 2 only, and loses what failed there. */
	EXPECT_EQ(st[1].stats.events_written, self->c[1].delivered);
	EXPECT_EQ(low, self->c[1].delivered + st[1].stats.events_lost);
	EXPECT_EQ(writers_nobufs(r, 1, 2), st[1].stats.events_lost);
	EXPECT_EQ(0, self->c[1].by_level[3] + self->c[1].by_level[4]);
	/* Session 2 flipped: its own books still balance. */
	EXPECT_EQ(st[2].stats.events_written, self->c[2].delivered);
	EXPECT_GE(all, self->c[2].delivered + st[2].stats.events_lost);
	EXPECT_GE(writers_nobufs(r, 1, 4), st[2].stats.events_lost);
}

TEST_F_TIMEOUT(stress, register_unregister_races_writes, 40)
{
	struct rig *r = &self->rig;
	struct etw_session_args st[3];
	long all;

	/* The fixture's registration stays: the GUID keeps its entry. */
	r->churn_regs = 1;
	ASSERT_EQ(0, raw_enable(r->fd, self->id[0], &r->guid, 0, 0, 0));
	run_phase(_metadata, self, st, 0);
	all = writers_total(r, 1, 4);
	ASSERT_LT(0, all);
	EXPECT_LT(0, self->c[0].delivered);
	EXPECT_EQ(st[0].stats.events_written, self->c[0].delivered);
	EXPECT_EQ(all, self->c[0].delivered + st[0].stats.events_lost);
	EXPECT_EQ(writers_nobufs(r, 1, 4), st[0].stats.events_lost);
	EXPECT_EQ(st[2].stats.events_written, self->c[2].delivered);
}

#define OWN_WRITES	16

/* What the cycles of sessions_stop_while_writers_write add up to. */
struct cycles {
	int n;
	long lost;		/* events_lost of every cycle's session */
	long own_nobufs;	/* ENOBUFS of the test thread's own writes */
};

/*
 * Start a session, enable it, let the writers fill it briefly, stop it.
 * Without a consumer the test thread also writes OWN_WRITES events of its
 * own: at stop they are gone, as lost.
 */
static void restart_cycle(struct __test_metadata *_metadata,
			  struct rig *r, int with_consumer, struct cycles *cy)
{
	struct etw_session_args st;
	struct consumer c;
	int i, ret;
	__u32 id;

	ASSERT_EQ(0, raw_start(r->fd, "stress-cycle", ETW_MODE_REAL_TIME,
			       BUF_KB, 8, &id));
	if (with_consumer)
		ASSERT_EQ(0, consumer_start(&c, r->fd, id, &r->guid, 0,
					    NULL, 0));
	ASSERT_EQ(0, raw_enable(r->fd, id, &r->guid, 0, 0, 0));
	raw_sleep_ms(50);
	for (i = 0; !with_consumer && i < OWN_WRITES; i++) {
		ret = raw_write(r->fd, r->reg, 1, 1, 0);
		if (ret == -ENOBUFS)
			cy->own_nobufs++;
		else
			EXPECT_EQ(0, ret);
	}
	ASSERT_EQ(0, raw_session_op(r->fd, ETW_IOC_STOP, id, &st));
	cy->lost += st.stats.events_lost;
	if (with_consumer) {
		consumer_join(&c);
		EXPECT_EQ(0, c.error);
		EXPECT_EQ(st.stats.events_written, c.delivered);
		EXPECT_EQ(0, st.stats.realtime_buffers_lost);
	} else {
		/* Unread buffers are dropped at stop and counted lost. */
		EXPECT_EQ(0, st.stats.events_written);
		EXPECT_EQ(0, st.stats.buffers_written);
		EXPECT_LE(OWN_WRITES, st.stats.events_lost);
		EXPECT_LE(1, st.stats.realtime_buffers_lost);
	}
	cy->n++;
}

TEST_F_TIMEOUT(stress, sessions_stop_while_writers_write, 40)
{
	struct rig *r = &self->rig;
	struct cycles cy = { 0 };
	__u64 end;

	writers_start(_metadata, r);
	end = raw_now_ns() + RUN_MS * 1000000ull;
	while (raw_now_ns() < end && !_metadata->exit_code)
		restart_cycle(_metadata, r, cy.n & 1, &cy);
	atomic_store(&r->stop, 1);
	writers_join(_metadata, r);
	EXPECT_LE(2, cy.n);
	EXPECT_LT(0, writers_total(r, 1, 4));
	/*
	 * Only the cycles' sessions took events: each write that failed was
	 * lost by one of them, which also lost what stop dropped.
	 */
	EXPECT_LE(writers_nobufs(r, 1, 4) + cy.own_nobufs, cy.lost);
}

#define IND_EVENTS	8000	/* all writers together */

/*
 * An independent session that runs out of buffers loses events on its
 * own: the other session, with room for every event, loses none.  Nobody
 * reads until the writers are done; the losses are then exactly the
 * writes that returned ENOBUFS.
 */
TEST_F_TIMEOUT(stress, independent_session_loses_alone, 60)
{
	struct rig *r = &self->rig;
	struct etw_session_args st[2];
	struct raw_seen seen[2] = { { .guid = r->guid }, { .guid = r->guid } };
	__u32 id[2], kb[2] = { BUF_KB, 4 };
	int cfd[2], i;
	long all;

	/* Room for every event, and for a partial buffer per CPU. */
	ASSERT_EQ(0, raw_start(r->fd, "stress-shared", ETW_MODE_REAL_TIME,
			       BUF_KB, 256, &id[0]));
	/* Two 4 KB buffers: about 90 events. */
	ASSERT_EQ(0, raw_start(r->fd, "stress-independent",
			       ETW_MODE_REAL_TIME | ETW_MODE_INDEPENDENT |
			       ETW_MODE_NO_PER_PROCESSOR, 4, 2, &id[1]));
	for (i = 0; i < 2; i++) {
		cfd[i] = raw_consumer(r->fd, id[i]);
		ASSERT_LE(0, cfd[i]);
		ASSERT_EQ(0, raw_enable(r->fd, id[i], &r->guid, 0, 0, 0));
	}
	ASSERT_LT(IND_EVENTS, session_capacity(r->fd, id[0]));
	r->quota = IND_EVENTS / writer_count();
	writers_start(_metadata, r);
	writers_join(_metadata, r);
	all = writers_total(r, 1, 4);
	ASSERT_EQ(r->quota * r->nwriters, all);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, raw_session_op(r->fd, ETW_IOC_STOP, id[i], &st[i]));
		EXPECT_LE(0, raw_drain(cfd[i], kb[i] * 1024, raw_seen_fn,
				       &seen[i]));
		close(cfd[i]);
	}
	TH_LOG("written %ld (ENOBUFS %ld); delivered %ld/%ld; lost %llu/%llu",
	       all, writers_nobufs(r, 1, 4), seen[0].n, seen[1].n,
	       st[0].stats.events_lost, st[1].stats.events_lost);
	/* The shared session has every event. */
	EXPECT_EQ(0, st[0].stats.events_lost);
	EXPECT_EQ(all, st[0].stats.events_written);
	EXPECT_EQ(all, seen[0].n);
	/* The independent one lost, and every failed write was its loss. */
	EXPECT_LT(0, st[1].stats.events_lost);
	EXPECT_LT(0, seen[1].n);
	EXPECT_EQ(all, st[1].stats.events_written + st[1].stats.events_lost);
	EXPECT_EQ(st[1].stats.events_written, seen[1].n);
	EXPECT_EQ(writers_nobufs(r, 1, 4), st[1].stats.events_lost);
}

TEST_HARNESS_MAIN
