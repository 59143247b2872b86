// SPDX-License-Identifier: GPL-2.0
/*
 * etw_soak: a long run of the raw ABI under churn, for make soak
 * (scripts/soak.sh boots the test VM and runs it).  Not a kselftest: its
 * name does not end in _test, so selftests/run_vm_tests.sh leaves it out.
 *
 *   etw_soak SECONDS [ROUND_SECONDS]
 *
 * The run is a sequence of rounds.  In each round one writer thread per
 * online CPU, pinned to it, writes levels 1..4 of one GUID through its own
 * /dev/etw file, re-registering every batch and reopening its file every
 * few hundred batches (the writers of odd CPUs stage their events in a
 * staging ring, which each unregister drains, and count them written: the
 * kernel accounts for them as for direct writes, and drops none of them);
 * a control thread churns; four sessions consume:
 *
 *   A  enables every level, never changes during the round, fast consumer;
 *   B  enables levels 1..2, four buffers and a slow consumer, so it loses;
 *   C  is enabled and disabled over and over, fast consumer;
 *   D  is started, enabled and stopped over and over, with a consumer on
 *      every other cycle (without one its backlog is dropped at stop).
 *
 * The control thread also FLUSHes and QUERYs A, B and C.  At the end of a
 * round the writers stop, A, B and C are stopped and their consumers read
 * to end of file.  Then, by Documentation/abi.rst (a write returns 0 when
 * every target session recorded the event and ENOBUFS when one could not,
 * in which case every target counts it lost; no session is in buffering
 * mode, so nothing is overwritten):
 *
 *   A: delivered + events_lost == writes (0 or ENOBUFS), every level
 *   B: delivered + events_lost == writes at levels 1..2
 *   A, B, C and every D cycle: delivered == events_written
 *
 * where delivered is what the consumer read (padding records skipped).
 * Any other write result, a malformed buffer or a consumer error fails the
 * run.  Exit status 0 when every round balanced.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "etw_raw.h"
#include "etw_ring.h"

#define FAMILY		0x50a4e000
#define BUF_KB		16
#define BUF_BYTES	(BUF_KB * 1024)
#define MAX_WRITERS	64
#define SLOW_MS		20

struct consumer {
	pthread_t thread;
	int cfd;
	struct etw_guid guid;
	long delivered;
	int error;
	int delay_ms;
};

struct writer {
	pthread_t thread;
	int cpu;
	long ok[5], nobufs[5];
	long staged;
	long unexpected;
	int last_error;
	long reopens;
};

static struct etw_guid guid;
static atomic_int stop_writers, stop_control;
static int nwriters;
static struct writer writers[MAX_WRITERS];
static long unexpected;		/* control-side failures */

#define FAIL(...) do { fprintf(stderr, "soak: " __VA_ARGS__); \
		       fputc('\n', stderr); unexpected++; } while (0)

/* A batched writer's file and ring, its file reopened: 0 or -errno. */
static int writer_open(struct writer *w, int *fd, struct ring *r)
{
	int ret;

	*fd = etw_open();
	if (*fd < 0)
		return -errno;
	if (!(w->cpu & 1))
		return 0;
	ret = ring_open(*fd, 0, r);
	if (ret)
		close(*fd);
	return ret;
}

static void writer_close(struct writer *w, int fd, struct ring *r)
{
	if (w->cpu & 1)
		ring_close(r);
	close(fd);
}

/* Write or stage event @n; a staged one counts as written. */
static void writer_event(struct writer *w, int fd, struct ring *r, __u32 reg,
			 unsigned long n)
{
	__u8 level = 1 + (n & 3);
	int ret;

	if (w->cpu & 1) {
		stage_ev_level(r, reg, 1 + (n & 7), level, raw_now_ns(),
			       (__u32)n);
		w->ok[level]++;
		w->staged++;
		return;
	}
	ret = raw_write_ex(fd, reg, 1 + (n & 7), level, 0, (__u32)n, 0);
	if (!ret) {
		w->ok[level]++;
	} else if (ret == -ENOBUFS) {
		w->nobufs[level]++;
	} else {
		w->unexpected++;
		w->last_error = ret;
	}
}

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	cpu_set_t set;
	unsigned long n = 0, batches = 0;
	struct ring r;
	int fd, ret;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	ret = writer_open(w, &fd, &r);
	if (ret) {
		w->unexpected++;
		w->last_error = ret;
		return NULL;
	}
	while (!atomic_load(&stop_writers)) {
		__u32 reg;
		int i;

		if (++batches % 256 == 0) {
			writer_close(w, fd, &r);
			ret = writer_open(w, &fd, &r);
			w->reopens++;
			if (ret) {
				w->unexpected++;
				w->last_error = ret;
				return NULL;
			}
		}
		ret = raw_register(fd, &guid, 0, 0, &reg, NULL);
		if (ret) {
			w->unexpected++;
			w->last_error = ret;
			continue;
		}
		/* 32 staged events take 4 KiB of the ring's 64. */
		for (i = 0; i < 32; i++, n++)
			writer_event(w, fd, &r, reg, n);
		/* Routes what the ring holds first. */
		ret = raw_unregister(fd, reg);
		if (ret) {
			w->unexpected++;
			w->last_error = ret;
		}
		if ((w->cpu & 1) && r.ctl->dropped) {
			w->unexpected++;
			w->last_error = -EBADMSG;
		}
	}
	writer_close(w, fd, &r);
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
		ssize_t got;

		if (poll(&p, 1, 30000) != 1) {
			c->error = -ETIMEDOUT;
			break;
		}
		got = read(c->cfd, buf, BUF_BYTES);
		if (got == 0)
			break;			/* stopped, all read */
		if (got < 0 && errno == EAGAIN)
			continue;
		if (got != BUF_BYTES ||
		    raw_walk_buffer(buf, raw_seen_fn, &seen) < 0) {
			c->error = got < 0 ? -errno : -EBADMSG;
			break;
		}
		c->delivered += seen.n;
		if (c->delay_ms)
			raw_sleep_ms(c->delay_ms);
	}
	free(buf);
	return NULL;
}

static int consumer_start(struct consumer *c, int fd, __u32 id, int delay_ms)
{
	memset(c, 0, sizeof(*c));
	c->guid = guid;
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

struct control {
	int fd;
	__u32 a, b, c;
	long toggles, flushes, d_cycles, d_mismatch;
	long d_delivered, d_written, d_lost;
};

/* One D cycle: start, enable, consume (every other cycle), stop, check. */
static void d_cycle(struct control *k)
{
	struct etw_session_args st;
	struct consumer c;
	int with = k->d_cycles & 1, ret;
	__u32 id;

	ret = raw_start(k->fd, "soak-d", ETW_MODE_REAL_TIME, BUF_KB, 8, &id);
	if (ret) {
		FAIL("start D: %d", ret);
		return;
	}
	if (with && (ret = consumer_start(&c, k->fd, id, 0))) {
		FAIL("consume D: %d", ret);
		with = 0;
	}
	ret = raw_enable(k->fd, id, &guid, 0, 0, 0);
	if (ret)
		FAIL("enable D: %d", ret);
	raw_sleep_ms(20);
	ret = raw_session_op(k->fd, ETW_IOC_STOP, id, &st);
	if (ret) {
		FAIL("stop D: %d", ret);
		return;
	}
	if (with) {
		consumer_join(&c);
		if (c.error)
			FAIL("consumer D: %d", c.error);
		if ((__u64)c.delivered != st.stats.events_written)
			k->d_mismatch++;
		k->d_delivered += c.delivered;
	} else if (st.stats.events_written) {
		k->d_mismatch++;	/* nobody read: nothing delivered */
	}
	k->d_written += st.stats.events_written;
	k->d_lost += st.stats.events_lost;
	k->d_cycles++;
}

static void *control_fn(void *arg)
{
	struct control *k = arg;
	int on = 0;

	while (!atomic_load(&stop_control)) {
		on = !on;
		raw_control(k->fd, k->c, &guid,
			    on ? ETW_CONTROL_ENABLE : ETW_CONTROL_DISABLE, 0);
		k->toggles++;
		raw_session_op(k->fd, ETW_IOC_FLUSH, k->a, NULL);
		raw_session_op(k->fd, ETW_IOC_FLUSH, k->b, NULL);
		raw_session_op(k->fd, ETW_IOC_FLUSH, k->c, NULL);
		raw_session_op(k->fd, ETW_IOC_QUERY, k->a, NULL);
		k->flushes += 3;
		if (k->toggles % 8 == 0)
			d_cycle(k);
		raw_sleep_ms(3);
	}
	return NULL;
}

struct totals {
	long rounds, written, staged, written_low;
	long a_delivered, a_lost, b_delivered, b_lost;
	long c_delivered, c_lost, d_delivered, d_lost, d_cycles;
	long toggles, flushes, reopens;
};

static int stop_checked(int fd, __u32 id, const char *name,
			struct consumer *c, struct etw_session_args *st)
{
	int ret = raw_session_op(fd, ETW_IOC_STOP, id, st);

	if (ret) {
		FAIL("stop %s: %d", name, ret);
		memset(st, 0, sizeof(*st));
	}
	consumer_join(c);
	if (c->error)
		FAIL("consumer %s: %d", name, c->error);
	if ((__u64)c->delivered != st->stats.events_written)
		FAIL("%s: delivered %ld != events_written %llu", name,
		     c->delivered, (unsigned long long)st->stats.events_written);
	if (st->stats.events_overwritten)
		FAIL("%s: %llu events overwritten", name,
		     (unsigned long long)st->stats.events_overwritten);
	return ret;
}

static int round_run(int round, int seconds, struct totals *t)
{
	struct etw_session_args sa, sb, sc;
	struct consumer ca, cb, cc;
	struct control k = { 0 };
	long written = 0, written_low = 0, nobufs = 0, reopens = 0;
	long staged = 0, bad_before = unexpected;
	pthread_t control;
	int i, l, ret;

	k.fd = etw_open();
	if (k.fd < 0) {
		FAIL("open: %d", -errno);
		return -1;
	}
	if ((ret = raw_start(k.fd, "soak-a", ETW_MODE_REAL_TIME, BUF_KB, 32,
			     &k.a)) ||
	    (ret = raw_start(k.fd, "soak-b", ETW_MODE_REAL_TIME, BUF_KB, 4,
			     &k.b)) ||
	    (ret = raw_start(k.fd, "soak-c", ETW_MODE_REAL_TIME, BUF_KB, 16,
			     &k.c))) {
		FAIL("start: %d", ret);
		close(k.fd);
		return -1;
	}
	if ((ret = consumer_start(&ca, k.fd, k.a, 0)) ||
	    (ret = consumer_start(&cb, k.fd, k.b, SLOW_MS)) ||
	    (ret = consumer_start(&cc, k.fd, k.c, 0))) {
		FAIL("consume: %d", ret);
		close(k.fd);
		return -1;
	}
	if ((ret = raw_enable(k.fd, k.a, &guid, 0, 0, 0)) ||
	    (ret = raw_enable(k.fd, k.b, &guid, 2, 0, 0)))
		FAIL("enable: %d", ret);

	memset(writers, 0, sizeof(writers));
	atomic_store(&stop_writers, 0);
	atomic_store(&stop_control, 0);
	for (i = 0; i < nwriters; i++) {
		writers[i].cpu = i;
		pthread_create(&writers[i].thread, NULL, writer_fn,
			       &writers[i]);
	}
	pthread_create(&control, NULL, control_fn, &k);
	raw_sleep_ms(seconds * 1000);
	atomic_store(&stop_writers, 1);
	for (i = 0; i < nwriters; i++) {
		struct writer *w = &writers[i];

		pthread_join(w->thread, NULL);
		if (w->unexpected)
			FAIL("writer %d: %ld unexpected results, last %d", i,
			     w->unexpected, w->last_error);
		for (l = 1; l <= 4; l++) {
			written += w->ok[l] + w->nobufs[l];
			nobufs += w->nobufs[l];
		}
		written_low += w->ok[1] + w->nobufs[1] + w->ok[2] +
			       w->nobufs[2];
		reopens += w->reopens;
		staged += w->staged;
	}
	atomic_store(&stop_control, 1);
	pthread_join(control, NULL);

	stop_checked(k.fd, k.a, "A", &ca, &sa);
	stop_checked(k.fd, k.b, "B", &cb, &sb);
	stop_checked(k.fd, k.c, "C", &cc, &sc);
	close(k.fd);

	if (ca.delivered + (long)sa.stats.events_lost != written)
		FAIL("round %d A: delivered %ld + lost %llu != written %ld",
		     round, ca.delivered,
		     (unsigned long long)sa.stats.events_lost, written);
	if (cb.delivered + (long)sb.stats.events_lost != written_low)
		FAIL("round %d B: delivered %ld + lost %llu != written %ld",
		     round, cb.delivered,
		     (unsigned long long)sb.stats.events_lost, written_low);
	if (cc.delivered + (long)sc.stats.events_lost > written)
		FAIL("round %d C: delivered %ld + lost %llu > written %ld",
		     round, cc.delivered,
		     (unsigned long long)sc.stats.events_lost, written);
	if (k.d_mismatch)
		FAIL("round %d D: %ld cycles with delivered != events_written",
		     round, k.d_mismatch);

	printf("soak: round %d: written %ld (staged %ld, ENOBUFS %ld, "
	       "levels 1-2 %ld); "
	       "A %ld+%llu B %ld+%llu C %ld+%llu D %ld+%ld in %ld cycles; "
	       "%ld toggles, %ld flushes, %ld reopens: %s\n",
	       round, written, staged, nobufs, written_low,
	       ca.delivered, (unsigned long long)sa.stats.events_lost,
	       cb.delivered, (unsigned long long)sb.stats.events_lost,
	       cc.delivered, (unsigned long long)sc.stats.events_lost,
	       k.d_delivered, k.d_lost, k.d_cycles, k.toggles, k.flushes,
	       reopens, unexpected == bad_before ? "balanced" : "FAILED");
	fflush(stdout);

	t->rounds++;
	t->written += written;
	t->staged += staged;
	t->written_low += written_low;
	t->a_delivered += ca.delivered;
	t->a_lost += sa.stats.events_lost;
	t->b_delivered += cb.delivered;
	t->b_lost += sb.stats.events_lost;
	t->c_delivered += cc.delivered;
	t->c_lost += sc.stats.events_lost;
	t->d_delivered += k.d_delivered;
	t->d_lost += k.d_lost;
	t->d_cycles += k.d_cycles;
	t->toggles += k.toggles;
	t->flushes += k.flushes;
	t->reopens += reopens;
	return 0;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 60;
	int round_s = argc > 2 ? atoi(argv[2]) : 5;
	struct totals t = { 0 };
	__u64 end;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (seconds <= 0 || round_s <= 0) {
		fprintf(stderr, "usage: etw_soak SECONDS [ROUND_SECONDS]\n");
		return 2;
	}
	nwriters = n < 1 ? 1 : n > MAX_WRITERS ? MAX_WRITERS : (int)n;
	guid = raw_guid(FAMILY, 0);
	printf("soak: %d s in rounds of %d s, %d writers (one per CPU)\n",
	       seconds, round_s, nwriters);
	fflush(stdout);
	end = raw_now_ns() + (__u64)seconds * 1000000000ull;
	do {
		if (round_run((int)t.rounds + 1, round_s, &t))
			break;
	} while (raw_now_ns() < end && unexpected < 100);

	printf("soak: total: %ld rounds, written %ld (staged %ld, "
	       "levels 1-2 %ld)\n", t.rounds, t.written, t.staged,
	       t.written_low);
	printf("soak: total: A delivered %ld + lost %ld = %ld (written %ld)\n",
	       t.a_delivered, t.a_lost, t.a_delivered + t.a_lost, t.written);
	printf("soak: total: B delivered %ld + lost %ld = %ld (written %ld)\n",
	       t.b_delivered, t.b_lost, t.b_delivered + t.b_lost,
	       t.written_low);
	printf("soak: total: C delivered %ld + lost %ld (toggled %ld times)\n",
	       t.c_delivered, t.c_lost, t.toggles);
	printf("soak: total: D delivered %ld + lost %ld in %ld start/stop "
	       "cycles; %ld flushes, %ld file reopens\n",
	       t.d_delivered, t.d_lost, t.d_cycles, t.flushes, t.reopens);
	printf("soak: %s (%ld failures)\n", unexpected ? "FAILED" : "balanced",
	       unexpected);
	return unexpected || !t.rounds ? 1 : 0;
}
