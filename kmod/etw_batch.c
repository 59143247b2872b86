// SPDX-License-Identifier: GPL-2.0
/*
 * etw_batch.c - batched writes: a thread's staging ring.
 *
 * ETW_IOC_BATCH_OPEN gives the calling thread a ring the kernel allocates
 * and the thread maps (struct etw_batch_ctl, then the ring).  The thread
 * stages events there without a system call (struct etw_staged_event,
 * its timestamp taken when it wrote) and publishes them by advancing
 * @head; the kernel drains the ring, routing each record as a plain write
 * of the thread (etw_write_staged()):
 *
 *  - on the thread's next ioctl on the /dev/etw file the ring belongs to
 *    (an ETW_IOC_WRITE only with ETW_WRITE_DRAIN: the direct write path
 *    of threads without a ring pays nothing), and on ETW_IOC_BATCH_DRAIN;
 *  - before ETW_IOC_UNREGISTER and when the /dev/etw file is released
 *    (every ring of the file: another thread's events of a registration
 *    being ended are routed first);
 *  - before the route of one of the file's registrations changes (an
 *    enable, a disallow list, a session that stops, traits: every ring of
 *    the file, so that what was staged is routed as the route was);
 *  - when a session is flushed or its flush timer fires, once the caller
 *    may control it: a private session's, the rings of its program
 *    image (no other registration reaches it); a global session's, every
 *    ring (it cannot know whose events it would take);
 *  - when the thread exits or execs, and when the ring's file is
 *    released.  The exit and exec tracepoints run atomically: they only
 *    take the ring off the owners hash and queue its end as a task_work
 *    of the thread, which runs where it may sleep (the exec'ing thread
 *    before the new image starts, an exiting one as its files close).
 *
 * The thread can write the whole mapping at any time, also while the
 * kernel drains it, so nothing read from it is trusted twice.  The drain
 * reads a run's first record's size and registration in the ring; for a
 * one-session route it then copies the ring from there into the session's
 * buffer in one piece (one reservation, as much as the buffer has room
 * for) and walks the copy, which the thread cannot reach: each record is
 * checked there (the first against what was read before) and completed
 * in place, up to one of another registration or one that fails; what
 * the walk did not take is given back, or becomes padding when someone
 * claimed after it.  Other routes take each record through the write
 * path, its header read once into the kernel's memory and its payload
 * once into the first session's record.  The kernel keeps its own
 * tail and drop count and only publishes them.  A size that cannot be
 * right ends the drain: everything up to the published head is dropped,
 * as there is no way to find the next record.  A record with a bad
 * registration, flag or reserved field is skipped.  Both are counted in
 * etw_batch_ctl.dropped.  A time after the drain started is taken as the
 * drain's start (a staged time may not run ahead of every other
 * writer's), and one older than the buffer's newest is raised to it, so
 * session buffers stay in order.  TSC rings' readings are converted back
 * from the drain's start at the rate the clock ran over the last second.
 *
 * Once the thread has exited, or its program image has been replaced,
 * what is still staged is dropped: its registrations were the old
 * image's.  A ring is the capability of the program image that opened
 * it: only that process, before it execs, may map it or drain through
 * its file (etw_batch_caller_ok()), whoever else holds the file.  The
 * mapping is not inherited by fork(), also not after MADV_DOFORK (VM_IO
 * refuses it, and get_user_pages() too), so no other process can stage
 * in it.
 *
 * Locking: etw_batch_lock (a spinlock: the probes run atomically)
 * protects the owners hash, which lookups walk under RCU.  A file's
 * @batch_mutex protects its @batches, etw_batch_mutex etw_batches: the
 * walks that drain many rings hold the mutex and may reschedule between
 * rings.  A ring's @lock serialises its drains and protects what they
 * change (see struct etw_batch); the write path's locks nest inside it,
 * etw_batch_lock is never held with it, the mutexes may be held around
 * it (and etw_mutex around a file's).  A ring is freed an RCU grace
 * period after its last reference.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/arch_timer.h>
#endif

#include "compat.h"
#include "etw_filter.h"
#include "etw_buffer.h"
#include "etw_internal.h"

#define ETW_BATCH_CTL_SIZE	PAGE_SIZE

static_assert(sizeof(struct etw_batch_ctl) <= ETW_BATCH_CTL_SIZE);
static_assert(sizeof(struct etw_staged_event) == ETW_STAGED_EVENT_SIZE);

/**
 * struct etw_batch - one thread's staging ring
 * @fnode: on @file's batches; @file->batch_mutex
 * @onode: in etw_batch_owners until @owner exits or execs, or the ring's
 *	file is released; etw_batch_lock
 * @gnode: on etw_batches; etw_batch_mutex
 * @ref: the ring's file holds one, and @end_work while it is queued
 * @end_work: the ring's end, queued on @owner by the exit and exec probes
 * @file: the /dev/etw file whose registrations the records name; referenced
 * @owner: the thread; compared, never dereferenced
 * @tgid: its process, referenced
 * @exec_id: its program image when the ring was opened
 * @writer: its ids
 * @mono_off: its time namespace's CLOCK_MONOTONIC offset (a staged
 *	monotonic time is the thread's view)
 * @is_tsc: it stages TSC readings (ETW_BATCH_CLOCK_TSC)
 * @rate_tsc: TSC rings: the counter when the clock's rate was last measured
 * @rate_ns: and CLOCK_MONOTONIC then
 * @mult: and the rate, ns per tick << ETW_BATCH_RATE_SHIFT
 * @lock: serialises drains; protects @tail, @dropped, @gone, @rate_tsc,
 *	@rate_ns, @mult, @copy_max
 * @tail: bytes consumed
 * @dropped: records refused
 * @gone: the thread exited or exec'd: what is staged is dropped
 * @copy_max: the most the next run copies (see %ETW_BATCH_COPY_MIN)
 * @size: bytes of the ring, a power of two
 * @area: the mapping: struct etw_batch_ctl's page, then the ring
 * @rcu: freed after a grace period
 */
struct etw_batch {
	struct list_head fnode;
	struct hlist_node onode;
	struct list_head gnode;
	refcount_t ref;
	struct callback_head end_work;
	struct etw_file *file;
	const struct task_struct *owner;
	struct pid *tgid;
	u64 exec_id;
	struct etw_writer writer;
	s64 mono_off;
	bool is_tsc;
	u64 rate_tsc;
	u64 rate_ns;
	u32 mult;
	spinlock_t lock;	/* serialises drains, see above */
	u64 tail;
	u64 dropped;
	bool gone;
	u32 copy_max;
	u32 size;
	void *area;
	struct rcu_head rcu;
};

static DEFINE_SPINLOCK(etw_batch_lock);
static DEFINE_HASHTABLE(etw_batch_owners, 7);
static DEFINE_MUTEX(etw_batch_mutex);
static LIST_HEAD(etw_batches);
static struct tracepoint *etw_batch_exit_tp;
static struct tracepoint *etw_batch_exec_tp;

static struct etw_batch_ctl *etw_batch_ctl(const struct etw_batch *b)
{
	return b->area;
}

/* Was @reg made by the ring's thread, in the image that opened the ring? */
static bool etw_batch_reg_ok(const struct etw_batch *b,
			     const struct etw_reg *reg)
{
	return reg && reg->tgid == b->tgid && reg->exec_id == b->exec_id;
}

/*
 * Is the caller the program image that opened @b (its process, no exec
 * since)?  Nobody else may map the ring or drain it through its file.
 */
static bool etw_batch_caller_ok(const struct etw_batch *b)
{
	return b->tgid == task_tgid(current) &&
	       b->exec_id == READ_ONCE(current->self_exec_id);
}

/*
 * struct etw_staged_event is struct etw_event_header with the fields the
 * thread may not set replaced: a run of records is copied as it is, then
 * each copy completed in place.
 */
static_assert(sizeof(struct etw_staged_event) ==
	      sizeof(struct etw_event_header));
static_assert(offsetof(struct etw_staged_event, reg_id) ==
	      offsetof(struct etw_event_header, thread_id));
static_assert(offsetof(struct etw_staged_event, timestamp) ==
	      offsetof(struct etw_event_header, timestamp));
static_assert(offsetof(struct etw_staged_event, descriptor) ==
	      offsetof(struct etw_event_header, descriptor));
static_assert(offsetof(struct etw_staged_event, activity_id) ==
	      offsetof(struct etw_event_header, activity_id));

/* Word 0 of a staged record: size, reserved1, flags, reserved2. */
#define ETW_STAGED_W0_SIZE	GENMASK_ULL(15, 0)
#define ETW_STAGED_W0_FLAGS_SHIFT	32
/* The flags a staged record may have, in word 0. */
#define ETW_STAGED_W0_FLAGS	((u64)ETW_EVENT_FLAG_STRING_ONLY << \
				 ETW_STAGED_W0_FLAGS_SHIFT)

/*
 * After a run that stopped at a record it could have taken (another
 * registration's, or one to drop), the next copies at most twice what it
 * used, and at least this: a thread that alternates registrations would
 * otherwise have the rest of the ring copied for each record.
 */
#define ETW_BATCH_COPY_MIN	512
/*
 * And a run copies at most this, or its first record: what it gives
 * back, when it cannot, is one padding record (its size is 16 bits).
 */
#define ETW_BATCH_COPY_MAX	32768

/*
 * A drain's clock: CLOCK_MONOTONIC when it began (@now) and, for a TSC
 * ring, the counter then (@tsc) and the clock's rate in ns per tick
 * << ETW_BATCH_RATE_SHIFT (@mult).
 */
#define ETW_BATCH_RATE_SHIFT	24
/* The rate is measured again over at least this interval. */
#define ETW_BATCH_RATE_NS	NSEC_PER_SEC

struct etw_batch_clk {
	u64 now;
	u64 off;
	u64 tsc;
	u32 mult;
	bool is_tsc;
};

/*
 * The counter a TSC ring stages, as user space reads it: its reading, its
 * rate, and whether user space may read it.
 */
#ifdef CONFIG_X86
static u64 etw_batch_read_tsc(void)
{
	return rdtsc_ordered();
}

static unsigned int etw_batch_tsc_khz(void)
{
	return tsc_khz;
}

static bool etw_batch_tsc_readable(void)
{
	return boot_cpu_has(X86_FEATURE_TSC);
}
#elif defined(CONFIG_ARM64)
/* The virtual count, as the vDSO reads it. */
static u64 etw_batch_read_tsc(void)
{
	return __arch_counter_get_cntvct();
}

static unsigned int etw_batch_tsc_khz(void)
{
	return arch_timer_get_cntfrq() / 1000;
}

/* Off on CPUs whose counter needs an erratum's workaround. */
static bool etw_batch_tsc_readable(void)
{
	return arch_timer_get_cntkctl() & ARCH_TIMER_USR_VCT_ACCESS_EN;
}
#else
static u64 etw_batch_read_tsc(void)
{
	return 0;
}

/* Not reached: no ring stages a counter that is not usable. */
static unsigned int etw_batch_tsc_khz(void)
{
	return 1;
}

static bool etw_batch_tsc_readable(void)
{
	return false;
}
#endif

/*
 * The counter and CLOCK_MONOTONIC at one instant: the clock read between
 * two reads of the counter.  Interrupts off keep the guest from coming
 * between the reads, not a hypervisor that stops the CPU, and every time
 * converted from the pair would be off by the stop.  So the reads are
 * made again while the counter's are more than %ETW_BATCH_PAIR_US apart,
 * up to %ETW_BATCH_PAIR_TRIES times; the closest is kept, its counter
 * taken halfway.
 */
#define ETW_BATCH_PAIR_US	20
#define ETW_BATCH_PAIR_TRIES	4

static void etw_batch_tsc_now(u64 *tsc, u64 *ns)
{
	u64 tight = (u64)etw_batch_tsc_khz() * ETW_BATCH_PAIR_US / USEC_PER_MSEC;
	u64 before, after, now, gap = U64_MAX;
	unsigned long flags;
	int i;

	for (i = 0; i < ETW_BATCH_PAIR_TRIES && gap > tight; i++) {
		local_irq_save(flags);
		before = etw_batch_read_tsc();
		now = ktime_get_ns();
		after = etw_batch_read_tsc();
		local_irq_restore(flags);
		if (after - before < gap) {
			gap = after - before;
			*tsc = before + gap / 2;
			*ns = now;
		}
	}
}

/*
 * Is CLOCK_MONOTONIC computed from that counter, so that a reading
 * converts back to it?  The timekeeper's counter then reads as it does (a
 * test that holds on every kernel version, cs_id does not).
 */
static bool etw_batch_tsc_usable(void)
{
	struct system_time_snapshot snap;
	unsigned int khz = etw_batch_tsc_khz();

	if (!etw_batch_tsc_readable() || !khz)
		return false;
	ktime_get_snapshot(&snap);
	return etw_batch_read_tsc() - snap.cycles < (u64)khz * 10;
}

/**
 * etw_batch_rate() - a clock's rate from an interval
 * @ns: CLOCK_MONOTONIC nanoseconds the interval took
 * @ticks: TSC ticks it took, not 0
 *
 * The bound is tested before dividing: mul_u64_u64_div_u64() traps on
 * x86 when the quotient does not fit in 64 bits.
 *
 * Context: any.
 * Return: ns per tick << %ETW_BATCH_RATE_SHIFT, or 0 when that is 0 or
 * does not fit in 32 bits (2^8 ns per tick or more).
 */
VISIBLE_IF_KUNIT u32 etw_batch_rate(u64 ns, u64 ticks)
{
	/* ns / ticks < 2^8; no bound to test when ticks << 8 overflows. */
	if (ticks <= U64_MAX >> (32 - ETW_BATCH_RATE_SHIFT) &&
	    ns >= ticks << (32 - ETW_BATCH_RATE_SHIFT))
		return 0;
	return mul_u64_u64_div_u64(ns, 1ULL << ETW_BATCH_RATE_SHIFT, ticks);
}
EXPORT_SYMBOL_IF_KUNIT(etw_batch_rate);

/*
 * The drain's clock.  A TSC ring's rate is measured again once a second
 * has passed: the timekeeper's rate over that second, NTP's corrections
 * included, not only the counter's calibrated frequency.
 */
static void etw_batch_clock(struct etw_batch *b, struct etw_batch_clk *c)
{
	u32 m;

	lockdep_assert_held(&b->lock);
	c->is_tsc = b->is_tsc;
	c->off = b->mono_off;
	if (!b->is_tsc) {
		c->now = ktime_get_ns();
		return;
	}
	etw_batch_tsc_now(&c->tsc, &c->now);
	if (c->now - b->rate_ns >= ETW_BATCH_RATE_NS && c->tsc > b->rate_tsc) {
		m = etw_batch_rate(c->now - b->rate_ns, c->tsc - b->rate_tsc);
		if (m)
			b->mult = m;
		b->rate_ns = c->now;
		b->rate_tsc = c->tsc;
	}
	c->mult = b->mult;
}

/*
 * The time of a staged record: its CLOCK_MONOTONIC time (the thread's
 * view, moved by its time namespace's offset @off), or the counter
 * reading converted back from the drain's start; never after that.
 */
static __always_inline u64 etw_batch_ts(const struct etw_batch_clk *c,
					u64 t)
{
	u64 d;

	if (!c->is_tsc)
		return min(t - c->off, c->now);
	if (t >= c->tsc)
		return c->now;
	d = mul_u64_u32_shr(c->tsc - t, c->mult, ETW_BATCH_RATE_SHIFT);
	return d < c->now ? c->now - d : 0;
}

/*
 * Can @route's records be written as runs?  One session, no items and no
 * payload filter (@ext; etw_write_staged() applies the filter), no traits
 * (an item too), a per-CPU stream.
 */
static bool etw_batch_route_runs(const struct etw_route *route,
				 const struct etw_reg *reg)
{
	return route->count == 1 && !route->ext && !READ_ONCE(reg->traits) &&
	       !(READ_ONCE(route->e[0].session->cfg.mode) &
		 ETW_MODE_NO_PER_PROCESSOR);
}

/* Does @route's one entry take the event (etw_entry_takes())? */
static __always_inline bool etw_batch_takes(const struct etw_route *route,
					    u64 desc_lo, u64 keyword)
{
	const struct etw_route_entry *e = &route->e[0];
	u8 level = desc_lo >> 32;

	if (etw_level_kw_match(&route->every, level, keyword))
		return true;
	return etw_level_kw_match(&e->lk, level, keyword) &&
	       etw_event_id_match(e->ids, (u16)desc_lo);
}

/* A record of the run nobody gets; out of line, off the loop's registers. */
static noinline void etw_batch_pad(void *h, u32 len)
{
	etw_record_pad(h, ALIGN(len, 8), len);
}

/* Does the session take every event (no filter to test per record)? */
static bool etw_batch_takes_all(const struct etw_route *route)
{
	const struct etw_level_kw *f = &route->every;

	return f->level == U8_MAX && !f->ignore_keyword0 &&
	       f->match_any == ~0ULL && !f->match_all;
}

/*
 * A run: the records of one registration that follow each other in the
 * ring, routed together.  etw_batch_route() sets what it read from the
 * ring, etw_batch_run_route() the registration and route; the helpers
 * below only read it.
 * @b: the ring
 * @p: the run's first record, in the ring
 * @lim: the most bytes from @p the run may take
 * @first: the first record's size, as read from the ring (once)
 * @reg_id: its registration's id, as read: every record of the run has it
 * @reg: that registration
 * @route: its route
 * @clk: the drain's clock
 */
struct etw_batch_run {
	struct etw_batch *b;
	const void *p;
	u32 lim;
	u32 first;
	u32 reg_id;
	struct etw_reg *reg;
	const struct etw_route *route;
	const struct etw_batch_clk *clk;
};

/*
 * A run's copy in the session's buffer, as etw_batch_fill() walks it:
 * @rec, @bytes of it; the writer's @ids and the header type and flags
 * @base each record gets; the buffer's newest time @last before the run.
 */
struct etw_batch_copy {
	void *rec;
	u32 bytes;
	u64 ids;
	u64 base;
	u64 last;
};

/*
 * What a walk of a copy did: the bytes it consumed (@used), the records
 * it wrote (@events: a copy of at most %ETW_BATCH_COPY_MAX holds fewer
 * than 2^16), the buffer's newest time after it (@last), whether it
 * stopped for want of room (@cut) rather than at a record of another
 * registration or one to drop.  Sixteen bytes, returned in two
 * registers: the walk keeps no pointer to write it through live across
 * its loop.
 */
struct etw_batch_walk {
	u64 last;
	u32 used;
	u16 events;
	bool cut;
};

/*
 * Walk the copy @c of run @r, which the thread cannot reach: check each
 * record (the first against the size @r->first the caller read, each
 * later one against its own), its registration, flags and reserved
 * fields, and the session's filter (unless it takes @all); set the header
 * type, the ids, the time, the provider.  The first record is consumed
 * whatever it holds (dropped and counted when it fails), so every run
 * moves on; the walk stops at a later one that fails (left to the next
 * run, which tells another registration's from one to drop) or does not
 * fit (the walk's cut), and before one that would leave less than a
 * header of the copy: what the walk leaves is nothing or a padding
 * record's worth (@c->bytes leaves the first no less).  A record the filter refuses
 * becomes padding.  Inlined into a copy for each @all and clock @clk,
 * whose loop keeps its values in registers: the fields it needs are read
 * into locals first, but for @c's ids and base, which each record reads
 * through @c (one memory operand each) to leave a register to the rest.
 * Return: what the walk did.
 */
static __always_inline struct etw_batch_walk
etw_batch_fill(const struct etw_batch_run *r, const struct etw_batch_copy *c,
	       struct etw_batch_clk clk, bool all)
{
	const struct etw_route *route = r->route;
	const u64 *guid = (const u64 *)&r->reg->guid;
	u64 last = c->last, g0 = guid[0], g1 = guid[1];
	u64 reg_id = r->reg_id;
	/* The filter's answer for the last descriptor and keyword seen. */
	u64 seen_desc = 0, seen_kw = 0;
	bool takes = all || etw_batch_takes(route, 0, 0);
	void *rec = c->rec, *end = rec + c->bytes;
	u64 *h = rec, w0 = h[0];
	u32 len = r->first;
	struct etw_batch_walk w = { .last = last };

	if (unlikely((w0 & ~ETW_STAGED_W0_FLAGS) != len || h[1] != reg_id)) {
		r->b->dropped++;
		etw_batch_pad(h, len);
		w.used = ALIGN(len, 8);
		return w;
	}
	for (;;) {
		long left;

		rec += ALIGN(len, 8);
		if (!all && (h[5] != seen_desc || h[6] != seen_kw)) {
			seen_desc = h[5];
			seen_kw = h[6];
			takes = etw_batch_takes(route, seen_desc, seen_kw);
		}
		if (takes) {
			h[0] = w0 | c->base;
			h[1] = c->ids;
			last = max(etw_batch_ts(&clk, h[2]), last);
			h[2] = last;
			h[3] = g0;
			h[4] = g1;
			h[7] = 0;
			/* The ring's padding is the thread's, not the record's. */
			if (len % 8)
				h[len / 8] &= GENMASK_ULL(len % 8 * 8 - 1, 0);
			w.events++;
		} else {
			etw_batch_pad(h, len);
		}
		if (rec == end) {
			w.cut = true;
			break;
		}
		/* At least a header is left (see above). */
		h = rec;
		w0 = h[0];
		len = w0 & ETW_STAGED_W0_SIZE;
		/* A size of a header or more, no other bit but the flags. */
		if (unlikely((w0 & ~ETW_STAGED_W0_FLAGS) -
			     sizeof(struct etw_staged_event) >
			     ETW_STAGED_W0_SIZE - sizeof(struct etw_staged_event) ||
			     h[1] != reg_id))
			break;
		/* It fits, leaving nothing or a header's worth. */
		left = end - (rec + ALIGN(len, 8));
		if (unlikely(left &&
			     left < (long)sizeof(struct etw_staged_event))) {
			w.cut = true;
			break;
		}
	}
	w.last = last;
	w.used = rec - c->rec;
	return w;
}

/* etw_batch_fill() in four copies, one for each filter and clock. */
static noinline struct etw_batch_walk
etw_batch_fill_any(const struct etw_batch_run *r,
		   const struct etw_batch_copy *c)
{
	struct etw_batch_clk clk = *r->clk;
	bool all = etw_batch_takes_all(r->route);

	if (clk.is_tsc) {
		clk.is_tsc = true;
		if (all)
			return etw_batch_fill(r, c, clk, true);
		return etw_batch_fill(r, c, clk, false);
	}
	clk.is_tsc = false;
	if (all)
		return etw_batch_fill(r, c, clk, true);
	return etw_batch_fill(r, c, clk, false);
}

/*
 * Write run @r: claim the room the session's current buffer has (at most
 * @r->lim, at most %ETW_BATCH_COPY_MAX or the first record, and after a
 * run that stopped early at most b->copy_max) in one piece
 * (etw_buffer_claim_run()), copy the ring there, walk the copy
 * (etw_batch_fill_any()), give back what the walk did not consume
 * (etw_buffer_give_back()), then commit the run with its record count
 * (etw_buffer_commit_run(), which reports them).  Records claimed after
 * these are newer than the drain's start and may not precede them: the
 * claim raises nothing, the newest time is raised to at the end.
 * Return: the bytes consumed, 0 when the buffer cannot take the first.
 */
static u32 etw_batch_run_write(const struct etw_batch_run *r)
{
	struct etw_session *s = r->route->e[0].session;
	struct etw_buffer_run run __uninitialized;
	struct etw_batch *b = r->b;
	u32 want, first_len = ALIGN(r->first, 8);
	struct etw_batch_copy c;
	struct etw_batch_walk w;
	bool private;

	want = min_t(u32, b->copy_max, ETW_BATCH_COPY_MAX);
	want = min(r->lim, max(want, first_len));
	if (!etw_buffer_claim_run(s, etw_session_stream(s), first_len, want,
				  &run))
		return 0;
	c.rec = run.b->data + run.off;
	c.bytes = run.bytes;
	etw_copy_record(c.rec, r->p, run.bytes);
	c.last = run.last_ts;
	private = etw_session_is_private(s);
	c.ids = private ? b->writer.vtid | (u64)b->writer.vpid << 32 :
			  b->writer.tid | (u64)b->writer.pid << 32;
	c.base = (u64)ETW_EVENT_HEADER_TYPE_64 << 16 |
		 (u64)(private ? ETW_EVENT_FLAG_PRIVATE_SESSION : 0) <<
		 ETW_STAGED_W0_FLAGS_SHIFT;
	w = etw_batch_fill_any(r, &c);
	b->copy_max = w.cut ? U32_MAX : max_t(u32, 2 * w.used,
					      ETW_BATCH_COPY_MIN);
	if (w.used < run.bytes)
		etw_buffer_give_back(&run, w.used);
	etw_buffer_raise_ts(run.b, run.last_ts, w.last);
	etw_buffer_commit_run(s, &run, w.events, &r->reg->guid);
	return w.used;
}

/*
 * The records of run @r, each through etw_write_staged(): its header
 * read once into @se, its payload copied once by the write path.  Only
 * the first when @one.  Stops at a record that fails (the first is
 * dropped and counted), at another registration's and at @r->lim.
 * Return: the bytes consumed.
 */
static noinline u32 etw_batch_run_each(const struct etw_batch_run *r,
				       bool one)
{
	const void *p = r->p, *end = p + r->lim;
	u32 size = r->first;

	for (;;) {
		struct etw_staged_event se;

		memcpy(&se, p, sizeof(se));
		if (se.size != size || se.reserved1 || se.reserved2 ||
		    se.reserved3 || se.reg_id != r->reg_id ||
		    (se.flags & ~ETW_EVENT_FLAG_STRING_ONLY)) {
			if (p == r->p) {
				r->b->dropped++;
				p += ALIGN(size, 8);
			}
			break;
		}
		etw_write_staged(r->reg, r->route, &se.descriptor,
				 &se.activity_id, se.flags, p + sizeof(se),
				 size - sizeof(se), &r->b->writer,
				 etw_batch_ts(r->clk, se.timestamp) ?: 1);
		p += ALIGN(size, 8);
		if (one || end - p < sizeof(se))
			break;
		size = READ_ONCE(*(const u16 *)p);
		if (size < sizeof(se) || ALIGN(size, 8) > end - p)
			break;
	}
	return p - r->p;
}

/*
 * Route run @r, whose ring, first record and clock the caller set: as a
 * run when its registration is still the thread's and its route one
 * session's, else record by record (the first one alone when the buffer
 * cannot take it: etw_write_staged() seals the buffer or counts the
 * loss).  Sets @r's registration and route.
 * Return: the bytes consumed, at least the first record's.
 */
static u32 etw_batch_run_route(struct etw_batch_run *r)
{
	struct etw_batch *b = r->b;
	struct etw_reg *reg = etw_file_reg(b->file, r->reg_id);
	u32 used;

	if (b->gone || !etw_batch_reg_ok(b, reg)) {
		b->dropped++;
		return ALIGN(r->first, 8);
	}
	r->reg = reg;
	r->route = rcu_dereference(reg->route);
	if (!r->route)
		return ALIGN(r->first, 8);
	if (!etw_batch_route_runs(r->route, reg))
		return etw_batch_run_each(r, false);
	used = etw_batch_run_write(r);
	return used ?: etw_batch_run_each(r, true);
}

/*
 * Route the records from @tail to @head, a run at a time: the first
 * record's size and registration read from the ring (and only those),
 * the rest checked where the run is copied (etw_batch_run_route()).
 * Returns the new tail; a size that cannot be right ends the walk at
 * @head (see the top of the file).
 */
static u64 etw_batch_route(struct etw_batch *b, u64 tail, u64 head)
{
	const void *ring = b->area + ETW_BATCH_CTL_SIZE;
	u32 mask = b->size - 1;
	struct etw_batch_clk clk;
	struct etw_batch_run r = { .b = b, .clk = &clk };

	etw_batch_clock(b, &clk);

	while (tail != head) {
		u32 room = b->size - (tail & mask);

		r.lim = min_t(u64, room, head - tail);
		r.p = ring + (tail & mask);
		r.first = READ_ONCE(*(const u16 *)r.p);
		if (unlikely(r.first < sizeof(struct etw_staged_event) ||
			     ALIGN(r.first, 8) > r.lim)) {
			/* A wrap marker jumps to the start: in head? */
			if (r.first == ETW_STAGED_WRAP && room <= head - tail) {
				tail += room;
				continue;
			}
			b->dropped++;
			return head;
		}
		r.reg_id = READ_ONCE(*(const u32 *)(r.p + 8));
		tail += etw_batch_run_route(&r);
	}
	return tail;
}

/* Route what @b's thread has published. */
static void etw_batch_drain_locked(struct etw_batch *b)
{
	struct etw_batch_ctl *ctl = etw_batch_ctl(b);
	u64 head, tail;

	lockdep_assert_held(&b->lock);
	/* Pairs with the thread's release store of @head after its records. */
	head = smp_load_acquire(&ctl->head);
	tail = b->tail;
	if (head != tail) {
		if (head - tail > b->size || head % 8) {
			/*
			 * Nothing up to @head can be found: dropped.  The
			 * tail stays a multiple of 8, which every read of a
			 * header at it relies on to stay inside the ring.
			 */
			if (round_down(head, 8) != tail)
				b->dropped++;
			tail = round_down(head, 8);
		} else {
			rcu_read_lock();
			tail = etw_batch_route(b, tail, head);
			rcu_read_unlock();
		}
		b->tail = tail;
		WRITE_ONCE(ctl->dropped, b->dropped);
		/*
		 * Pairs with the thread's acquire load of @tail before it
		 * reuses the room: the records were read before.
		 */
		smp_store_release(&ctl->tail, tail);
	}
}

static void etw_batch_drain(struct etw_batch *b)
{
	spin_lock(&b->lock);
	etw_batch_drain_locked(b);
	spin_unlock(&b->lock);
}

/**
 * etw_batch_drain_current() - drain the calling thread's ring on a file
 * @f: the /dev/etw file
 *
 * Context: process context, any preemption state.
 */
void etw_batch_drain_current(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	hash_for_each_possible_rcu(etw_batch_owners, b, onode,
				   (unsigned long)current)
		if (b->owner == current && b->file == f)
			etw_batch_drain(b);
	rcu_read_unlock();
}

/**
 * etw_batch_drain_file() - drain every ring of a file
 * @f: the /dev/etw file
 *
 * Before its unregistrations and at its release, and before the route of
 * one of its registrations changes (etw_change.c).
 *
 * Context: process context, may sleep (between rings); takes
 * @f->batch_mutex; may hold etw_mutex.
 */
void etw_batch_drain_file(struct etw_file *f)
{
	struct etw_batch *b;

	mutex_lock(&f->batch_mutex);
	list_for_each_entry(b, &f->batches, fnode) {
		etw_batch_drain(b);
		cond_resched();
	}
	mutex_unlock(&f->batch_mutex);
}

/**
 * etw_batch_drain_session() - drain the rings a session may take from
 * @s: the session, which the caller may control
 *
 * For a flush and the flush timer: a private session's, the rings of its
 * program image, whose registrations alone reach it; a global session's,
 * every ring.
 *
 * Context: process context, may sleep (between rings); takes
 * etw_batch_mutex.
 */
void etw_batch_drain_session(const struct etw_session *s)
{
	bool private = etw_session_is_private(s);
	struct etw_batch *b;

	mutex_lock(&etw_batch_mutex);
	list_for_each_entry(b, &etw_batches, gnode) {
		if (private && (b->tgid != s->owner_tgid ||
				b->exec_id != s->owner_exec_id))
			continue;
		etw_batch_drain(b);
		cond_resched();
	}
	mutex_unlock(&etw_batch_mutex);
}

/* Drain @b a last time and drop what is staged after. */
static void etw_batch_end(struct etw_batch *b)
{
	spin_lock(&b->lock);
	etw_batch_drain_locked(b);
	b->gone = true;
	spin_unlock(&b->lock);
	spin_lock(&etw_batch_lock);
	if (!hlist_unhashed(&b->onode))
		hash_del_rcu(&b->onode);
	spin_unlock(&etw_batch_lock);
}

static void etw_batch_free_rcu(struct rcu_head *rcu)
{
	struct etw_batch *b = container_of(rcu, struct etw_batch, rcu);

	vfree(b->area);
	put_pid(b->tgid);
	etw_file_put(b->file);
	kfree(b);
}

static void etw_batch_put(struct etw_batch *b)
{
	if (refcount_dec_and_test(&b->ref))
		call_rcu(&b->rcu, etw_batch_free_rcu);
}

/* The task_work the probes queue: the thread's ring ends. */
static void etw_batch_end_work(struct callback_head *head)
{
	struct etw_batch *b = container_of(head, struct etw_batch, end_work);

	etw_batch_end(b);
	etw_batch_put(b);
	/* Taken by etw_batch_end_owned(); the ring's file may be gone. */
	module_put(THIS_MODULE);
}

/*
 * The calling thread @p exits (@exec false) or has replaced its program
 * image: its rings (the old image's) leave the owners hash, so that its
 * ioctls neither drain nor count them, and each one's end is queued on
 * it.  Atomic context: nothing is drained here.
 */
static void etw_batch_end_owned(struct task_struct *p, bool exec)
{
	u64 exec_id = READ_ONCE(p->self_exec_id);
	struct hlist_node *tmp;
	struct etw_batch *b;

	spin_lock(&etw_batch_lock);
	hash_for_each_possible_safe(etw_batch_owners, b, tmp, onode,
				    (unsigned long)p) {
		if (b->owner != p || (exec && b->exec_id == exec_id))
			continue;
		hash_del_rcu(&b->onode);
		/* Hashed: the file's reference is not dropped yet. */
		refcount_inc(&b->ref);
		__module_get(THIS_MODULE);
		init_task_work(&b->end_work, etw_batch_end_work);
		/*
		 * Fails only after exit_task_work(), later than both
		 * tracepoints; the ring then ends at its file's release.
		 */
		if (task_work_add(p, &b->end_work, TWA_RESUME)) {
			refcount_dec(&b->ref);
			module_put(THIS_MODULE);
		}
	}
	spin_unlock(&etw_batch_lock);
}

static void etw_batch_exit_probe(void *data, struct task_struct *p)
{
	if (p == current && !list_empty(&etw_batches))
		etw_batch_end_owned(p, false);
}

static void etw_batch_exec_probe(void *data, struct task_struct *p,
				 pid_t old_pid, struct linux_binprm *bprm)
{
	if (p == current && !list_empty(&etw_batches))
		etw_batch_end_owned(p, true);
}

static int etw_batch_release(struct inode *inode, struct file *file)
{
	struct etw_batch *b = file->private_data;
	struct etw_file *f = b->file;

	etw_batch_end(b);
	mutex_lock(&f->batch_mutex);
	list_del(&b->fnode);
	mutex_unlock(&f->batch_mutex);
	mutex_lock(&etw_batch_mutex);
	list_del(&b->gnode);
	mutex_unlock(&etw_batch_mutex);
	etw_batch_put(b);
	return 0;
}

/*
 * The whole area, shared and writable, at offset 0, for the program
 * image that opened the ring only; never inherited: VM_IO makes
 * MADV_DOFORK fail (and get_user_pages(), so that nothing pins it).
 */
static int etw_batch_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct etw_batch *b = file->private_data;
	unsigned long off, len = vma->vm_end - vma->vm_start;
	int ret;

	if (!etw_batch_caller_ok(b))
		return -EPERM;
	if (vma->vm_pgoff || len != ETW_BATCH_CTL_SIZE + b->size ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	etw_vma_set_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP |
			  VM_IO);
	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(b->area + off));
		if (ret)
			return ret;
	}
	return 0;
}

static long etw_batch_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct etw_batch *b = file->private_data;

	if (cmd != ETW_IOC_BATCH_DRAIN)
		return -ENOTTY;
	if (!etw_batch_caller_ok(b))
		return -EPERM;
	etw_batch_drain(b);
	return 0;
}

static const struct file_operations etw_batch_fops = {
	.owner = THIS_MODULE,
	.release = etw_batch_release,
	.mmap = etw_batch_mmap,
	.unlocked_ioctl = etw_batch_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static bool etw_batch_has_ring(struct etw_file *f)
{
	struct etw_batch *b;

	lockdep_assert_held(&etw_batch_lock);
	hash_for_each_possible(etw_batch_owners, b, onode,
			       (unsigned long)current)
		if (b->owner == current && b->file == f)
			return true;
	return false;
}

/* The thread's CLOCK_MONOTONIC offset (time namespaces). */
static s64 etw_batch_mono_off(void)
{
	struct timespec64 off = {};

	timens_add_monotonic(&off);
	return timespec64_to_ns(&off);
}

/* A TSC ring's first rate: the counter's calibrated frequency. */
static void etw_batch_tsc_init(struct etw_batch *b)
{
	b->is_tsc = true;
	b->mult = div_u64((u64)NSEC_PER_MSEC << ETW_BATCH_RATE_SHIFT,
			  etw_batch_tsc_khz());
	etw_batch_tsc_now(&b->rate_tsc, &b->rate_ns);
}

static struct etw_batch *etw_batch_alloc(struct etw_file *f, u32 size,
					 u32 clock)
{
	struct etw_batch *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	/* Charged to the opener (vmalloc_user() is not); pages map singly. */
	b->area = __vmalloc(ETW_BATCH_CTL_SIZE + size,
			    GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!b->area) {
		kfree(b);
		return NULL;
	}
	spin_lock_init(&b->lock);
	INIT_HLIST_NODE(&b->onode);
	refcount_set(&b->ref, 1);
	b->copy_max = U32_MAX;
	b->size = size;
	etw_batch_ctl(b)->ring_size = size;
	b->owner = current;
	b->tgid = get_pid(task_tgid(current));
	b->exec_id = READ_ONCE(current->self_exec_id);
	b->writer.tid = task_pid_nr(current);
	b->writer.pid = task_tgid_nr(current);
	b->writer.vtid = task_pid_vnr(current);
	b->writer.vpid = task_tgid_vnr(current);
	b->mono_off = etw_batch_mono_off();
	if (clock == ETW_BATCH_CLOCK_TSC)
		etw_batch_tsc_init(b);
	kref_get(&f->ref);
	b->file = f;
	return b;
}

/**
 * etw_batch_open() - ETW_IOC_BATCH_OPEN
 * @f: the /dev/etw file
 * @flags: O_CLOEXEC or 0
 * @ring_size: in: bytes asked for, 0 for the default; out: bytes
 * @ctl_size: out: bytes before the ring in the mapping
 * @clock: in: the ETW_BATCH_CLOCK_* asked for; out: the one granted (TSC
 *	only where CLOCK_MONOTONIC is computed from it)
 * @filep: out: the ring's file, to install at the returned descriptor
 *
 * Context: process context.
 * Return: an unused descriptor for *@filep, -EINVAL, -EBUSY (the thread
 * has a ring on @f), -ENOMEM or -EMFILE.
 */
int etw_batch_open(struct etw_file *f, u32 flags, u32 *ring_size,
		   u32 *ctl_size, u32 *clock, struct file **filep)
{
	u32 size = *ring_size ?: ETW_BATCH_DEFAULT_RING;
	struct etw_batch *b;
	struct file *file;
	int fd, ret;

	if ((flags & ~O_CLOEXEC) || !is_power_of_2(size) ||
	    size < ETW_BATCH_MIN_RING || size > ETW_BATCH_MAX_RING ||
	    *clock > ETW_BATCH_CLOCK_TSC)
		return -EINVAL;
	if (*clock == ETW_BATCH_CLOCK_TSC && !etw_batch_tsc_usable())
		*clock = ETW_BATCH_CLOCK_MONOTONIC;
	/* Only this thread adds a ring it owns: no other can race the test. */
	spin_lock(&etw_batch_lock);
	ret = etw_batch_has_ring(f) ? -EBUSY : 0;
	spin_unlock(&etw_batch_lock);
	if (ret)
		return ret;
	b = etw_batch_alloc(f, size, *clock);
	if (!b)
		return -ENOMEM;
	fd = get_unused_fd_flags(flags);
	if (fd < 0) {
		ret = fd;
		goto out_free;
	}
	file = anon_inode_getfile("etw-batch", &etw_batch_fops, b,
				  O_RDWR | flags);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_fd;
	}
	mutex_lock(&f->batch_mutex);
	list_add_tail(&b->fnode, &f->batches);
	mutex_unlock(&f->batch_mutex);
	mutex_lock(&etw_batch_mutex);
	list_add_tail(&b->gnode, &etw_batches);
	mutex_unlock(&etw_batch_mutex);
	spin_lock(&etw_batch_lock);
	hash_add_rcu(etw_batch_owners, &b->onode, (unsigned long)current);
	spin_unlock(&etw_batch_lock);
	*ring_size = size;
	*ctl_size = ETW_BATCH_CTL_SIZE;
	*filep = file;
	return fd;

out_put_fd:
	put_unused_fd(fd);
out_free:
	vfree(b->area);
	put_pid(b->tgid);
	etw_file_put(b->file);
	kfree(b);
	return ret;
}

/**
 * etw_batch_init() - hook thread exit and execve()
 *
 * Context: module init.
 * Return: 0, or a tracepoint's registration error.  Without a tracepoint
 * a ring ends at its file's release, not at exit or exec.
 */
int etw_batch_init(void)
{
	int ret;

	etw_batch_exit_tp = etw_tracepoint_find("sched_process_exit");
	etw_batch_exec_tp = etw_tracepoint_find("sched_process_exec");
	if (etw_batch_exit_tp) {
		ret = tracepoint_probe_register(etw_batch_exit_tp,
						etw_batch_exit_probe, NULL);
		if (ret)
			return ret;
	}
	if (etw_batch_exec_tp) {
		ret = tracepoint_probe_register(etw_batch_exec_tp,
						etw_batch_exec_probe, NULL);
		if (ret)
			goto out_unregister_exit;
	}
	return 0;

out_unregister_exit:
	if (etw_batch_exit_tp) {
		tracepoint_probe_unregister(etw_batch_exit_tp,
					    etw_batch_exit_probe, NULL);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/**
 * etw_batch_exit() - unhook thread exit and execve(); no probe runs on
 * return
 *
 * Context: module exit.
 */
void etw_batch_exit(void)
{
	if (etw_batch_exit_tp)
		tracepoint_probe_unregister(etw_batch_exit_tp,
					    etw_batch_exit_probe, NULL);
	if (etw_batch_exec_tp)
		tracepoint_probe_unregister(etw_batch_exec_tp,
					    etw_batch_exec_probe, NULL);
	tracepoint_synchronize_unregister();
}
