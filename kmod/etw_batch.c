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
 *  - when a session is flushed, stopped or its flush timer fires (every
 *    ring: the session cannot know whose events it would take);
 *  - when the thread exits (sched_process_exit, before its files close)
 *    or execs (etw_exec.c), and when the ring's file is released.
 *
 * The thread can write the whole mapping at any time, also while the
 * kernel drains it, so nothing read from it is trusted twice.  Pass 1
 * reads a run's record sizes and registration ids, once each; the run of
 * a one-session route is then copied into the session's buffer in one
 * piece (one reservation) and each copy, which the thread cannot reach,
 * is checked against what pass 1 read and completed in place (a record
 * that fails becomes padding); other routes take each record through the
 * write path, its header read once into the kernel's memory and its
 * payload once into the first session's record.  The kernel keeps its own
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
 * image's.  The mapping is not inherited by fork(), and only the owning
 * process may drain through the ring's file.
 *
 * Locking: etw_batch_lock (a spinlock: the exit probe runs atomically)
 * protects the lists a ring is on: its file's @batches, the owners hash
 * and etw_batches; lookups walk them under RCU.  A ring's @lock
 * serialises its drains and protects what they change (see struct
 * etw_batch); the write path's locks nest inside it, etw_batch_lock is
 * never held with it.  Rings are freed after an RCU grace period.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_X86
#include <asm/tsc.h>
#endif

#include "compat.h"
#include "etw_filter.h"
#include "etw_internal.h"
#include "etw_trace.h"

#define ETW_BATCH_CTL_SIZE	PAGE_SIZE

static_assert(sizeof(struct etw_batch_ctl) <= ETW_BATCH_CTL_SIZE);
static_assert(sizeof(struct etw_staged_event) == ETW_STAGED_EVENT_SIZE);

/**
 * struct etw_batch - one thread's staging ring
 * @fnode: on @file's batches; etw_batch_lock
 * @onode: in etw_batch_owners while @owner runs; etw_batch_lock
 * @gnode: on etw_batches; etw_batch_lock
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
 *	@rate_ns, @mult
 * @tail: bytes consumed
 * @dropped: records refused
 * @gone: the thread exited or exec'd: what is staged is dropped
 * @size: bytes of the ring, a power of two
 * @area: the mapping: struct etw_batch_ctl's page, then the ring
 * @rcu: freed after a grace period
 */
struct etw_batch {
	struct list_head fnode;
	struct hlist_node onode;
	struct list_head gnode;
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
	u32 size;
	void *area;
	struct rcu_head rcu;
};

static DEFINE_SPINLOCK(etw_batch_lock);
static DEFINE_HASHTABLE(etw_batch_owners, 7);
static LIST_HEAD(etw_batches);
static struct tracepoint *etw_batch_exit_tp;

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

/* Records a run takes at most (their sizes are kept on the stack). */
#define ETW_BATCH_RUN_MAX	64

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
#define ETW_STAGED_W0_RESERVED	(GENMASK_ULL(31, 16) | GENMASK_ULL(63, 48))
#define ETW_STAGED_W0_FLAGS_SHIFT	32

/*
 * A run: @n records of registration @reg_id, consecutive in the ring from
 * @p, @bytes in all, their sizes as pass 1 of etw_batch_route() read them
 * at @size.
 */
struct etw_batch_run {
	const void *p;
	const u16 *size;
	u32 n;
	u32 bytes;
	u32 reg_id;
};

/* Drop @r's first @k records (@bytes of them). */
static void etw_batch_run_advance(struct etw_batch_run *r, u32 k, u32 bytes)
{
	r->p += bytes;
	r->size += k;
	r->n -= k;
	r->bytes -= bytes;
}

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

#ifdef CONFIG_X86
static u64 etw_batch_read_tsc(void)
{
	return rdtsc_ordered();
}

/*
 * Is CLOCK_MONOTONIC computed from the TSC, so that a reading converts
 * back to it?  The timekeeper's counter then reads as the TSC does (a
 * test that holds on every kernel version, cs_id does not).
 */
static bool etw_batch_tsc_usable(void)
{
	struct system_time_snapshot snap;

	if (!boot_cpu_has(X86_FEATURE_TSC) || !tsc_khz)
		return false;
	ktime_get_snapshot(&snap);
	return etw_batch_read_tsc() - snap.cycles < (u64)tsc_khz * 10;
}
#else
static u64 etw_batch_read_tsc(void)
{
	return 0;
}

static bool etw_batch_tsc_usable(void)
{
	return false;
}
#endif

/*
 * The drain's clock.  A TSC ring's rate is measured again once a second
 * has passed: the timekeeper's rate over that second, NTP's corrections
 * included, not only the counter's calibrated frequency.
 */
static void etw_batch_clock(struct etw_batch *b, struct etw_batch_clk *c)
{
	unsigned long flags;
	u64 m;

	lockdep_assert_held(&b->lock);
	c->is_tsc = b->is_tsc;
	c->off = b->mono_off;
	if (!b->is_tsc) {
		c->now = ktime_get_ns();
		return;
	}
	local_irq_save(flags);
	c->tsc = etw_batch_read_tsc();
	c->now = ktime_get_ns();
	local_irq_restore(flags);
	if (c->now - b->rate_ns >= ETW_BATCH_RATE_NS && c->tsc > b->rate_tsc) {
		m = mul_u64_u64_div_u64(c->now - b->rate_ns,
					1ULL << ETW_BATCH_RATE_SHIFT,
					c->tsc - b->rate_tsc);
		if (m && m <= U32_MAX)
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
 * Can @route's records be written as runs?  One session, no items, no
 * traits (an item too), a per-CPU stream.
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
 * Complete the copies of @n records at @rec, their sizes at @size: check
 * what the copy holds against what pass 1 read (size, registration
 * @reg_id), the flags and reserved fields, the session's filter (unless
 * it takes @all); set the header type, the ids @ids, the time, the
 * provider.  A record that fails becomes padding.  Inlined into a copy
 * for each @all and clock, each of whose loop keeps its values in
 * registers.  Return: the padding records.
 */
static __always_inline u32 etw_batch_fill(struct etw_batch *b,
					  const u16 *size, u32 n, u32 reg_id,
					  const struct etw_reg *reg,
					  const struct etw_route *route,
					  void *rec, struct etw_batch_clk clk,
					  u64 ids, u64 base, u64 *last_ts,
					  bool all)
{
	const u64 *guid = (const u64 *)&reg->guid;
	u64 last = *last_ts, g0 = guid[0], g1 = guid[1];
	/* The filter's answer for the last descriptor and keyword seen. */
	u64 seen_desc = 0, seen_kw = 0;
	bool takes = all || etw_batch_takes(route, 0, 0);
	u32 i, pads = 0;

	for (i = 0; i < n; i++) {
		u64 *h = rec;
		u32 len = size[i];
		u64 w0 = h[0];

		rec += ALIGN(len, 8);
		/* Size as read before, reserved fields zero, a known flag. */
		if (unlikely((w0 & ~((u64)ETW_EVENT_FLAG_STRING_ONLY <<
				     ETW_STAGED_W0_FLAGS_SHIFT)) != len ||
			     h[1] != reg_id)) {
			b->dropped++;
			etw_batch_pad(h, len);
			pads++;
			continue;
		}
		if (!all && (h[5] != seen_desc || h[6] != seen_kw)) {
			seen_desc = h[5];
			seen_kw = h[6];
			takes = etw_batch_takes(route, seen_desc, seen_kw);
		}
		if (!takes) {
			etw_batch_pad(h, len);
			pads++;
			continue;
		}
		h[0] = w0 | base;
		h[1] = ids;
		last = max(etw_batch_ts(&clk, h[2]), last);
		h[2] = last;
		h[3] = g0;
		h[4] = g1;
		h[7] = 0;
		/* The ring's padding is the thread's, not the record's. */
		if (len % 8)
			h[len / 8] &= GENMASK_ULL(len % 8 * 8 - 1, 0);
		trace_etw_write(route->e[0].session, reg, (const void *)&h[5],
				h);
	}
	*last_ts = last;
	return pads;
}

/* etw_batch_fill() in four copies, one for each filter and clock. */
static noinline u32 etw_batch_fill_any(struct etw_batch *b, const u16 *size,
				       u32 n, u32 reg_id,
				       const struct etw_reg *reg,
				       const struct etw_route *route, void *rec,
				       const struct etw_batch_clk *clk, u64 ids,
				       u64 base, u64 *last_ts)
{
	struct etw_batch_clk c = *clk;
	bool all = etw_batch_takes_all(route);

	if (c.is_tsc) {
		c.is_tsc = true;
		if (all)
			return etw_batch_fill(b, size, n, reg_id, reg, route,
					      rec, c, ids, base, last_ts, true);
		return etw_batch_fill(b, size, n, reg_id, reg, route, rec, c,
				      ids, base, last_ts, false);
	}
	c.is_tsc = false;
	if (all)
		return etw_batch_fill(b, size, n, reg_id, reg, route, rec, c,
				      ids, base, last_ts, true);
	return etw_batch_fill(b, size, n, reg_id, reg, route, rec, c, ids,
			      base, last_ts, false);
}

/*
 * Write as many of @r's first records as its session's current buffer
 * has room for: claim their bytes with one cmpxchg (a writer reference
 * with them), copy them, complete each record, then count the events
 * and drop the reference with one atomic operation, which delivers the
 * buffer if it was sealed meanwhile.  Records claimed after these are
 * newer than the drain's start and may not precede them: the claim
 * raises nothing, the newest time is raised to at the end.
 * Return: the records written (then dropped from @r), 0 when the buffer
 * cannot take the first.
 */
static u32 etw_batch_run_write(struct etw_batch *b, struct etw_batch_run *r,
			       const struct etw_reg *reg,
			       const struct etw_route *route,
			       const struct etw_batch_clk *clk)
{
	struct etw_session *s = route->e[0].session;
	struct etw_stream *st = etw_session_stream(s);
	struct etw_buffer *buf = READ_ONCE(st->cur);
	u32 pads, room, k, bytes = r->bytes;
	u64 old, first, last, ids, base;
	bool private;
	void *rec;

	if (!buf)
		return 0;
	/*
	 * Dependent on @buf: ordered after the cmpxchg() that published it
	 * in etw_stream_install().  Acquire: ordered before the second read
	 * of @st->cur (see etw_buffer_reserve_fast()).
	 */
	old = atomic64_read_acquire(&buf->state);
	if ((old & ETW_BS_SEALED) || READ_ONCE(st->cur) != buf)
		return 0;
	room = s->buf_bytes - min_t(u64, (old & ETW_BS_OFF_MASK) * 8,
				    s->buf_bytes);
	k = r->n;
	while (bytes > room)
		bytes -= ALIGN(r->size[--k], 8);
	if (!k)
		return 0;
	first = local64_read(&buf->last_ts);
	/* Fully ordered: pairs with the seal's cmpxchg (etw_stream_seal()). */
	if (!atomic64_try_cmpxchg(&buf->state, &old,
				  old + bytes / 8 + ETW_BS_WR_ONE))
		return 0;
	rec = buf->data + (old & ETW_BS_OFF_MASK) * 8;
	etw_copy_record(rec, r->p, bytes);
	last = first;
	private = etw_session_is_private(s);
	ids = private ? b->writer.vtid | (u64)b->writer.vpid << 32 :
			b->writer.tid | (u64)b->writer.pid << 32;
	base = (u64)ETW_EVENT_HEADER_TYPE_64 << 16 |
	       (u64)(private ? ETW_EVENT_FLAG_PRIVATE_SESSION : 0) <<
	       ETW_STAGED_W0_FLAGS_SHIFT;
	pads = etw_batch_fill_any(b, r->size, k, r->reg_id, reg, route, rec,
				  clk, ids, base, &last);
	etw_buffer_raise_ts(buf, first, last);
	/*
	 * Fully ordered: the records are complete before a delivery; pairs
	 * with the seal's cmpxchg, as etw_buffer_commit()'s.
	 */
	old = atomic64_fetch_add((k - pads) * ETW_BS_EV_ONE - ETW_BS_WR_ONE,
				 &buf->state);
	if (unlikely(etw_bs_last_writer(old)))
		etw_buffer_deliver(s, buf);
	etw_batch_run_advance(r, k, bytes);
	return k;
}

/* @r's first @n records, each through etw_write_staged(); dropped from @r. */
static noinline void etw_batch_run_each(struct etw_batch *b,
					struct etw_batch_run *r, u32 n,
					struct etw_reg *reg,
					const struct etw_route *route,
					const struct etw_batch_clk *clk)
{
	const void *p = r->p;
	u32 i;

	for (i = 0; i < n; i++) {
		struct etw_staged_event se;
		u32 size = r->size[i];

		memcpy(&se, p, sizeof(se));
		if (se.size != size || se.reserved1 || se.reserved2 ||
		    se.reserved3 || se.reg_id != r->reg_id ||
		    (se.flags & ~ETW_EVENT_FLAG_STRING_ONLY)) {
			b->dropped++;
		} else {
			etw_write_staged(reg, route, &se.descriptor,
					 &se.activity_id, se.flags,
					 p + sizeof(se), size - sizeof(se),
					 &b->writer,
					 etw_batch_ts(clk, se.timestamp) ?: 1);
		}
		p += ALIGN(size, 8);
	}
	etw_batch_run_advance(r, n, p - r->p);
}

/*
 * Route run @r: its registration's, if it is still the thread's.  A run
 * the current buffer cannot take whole is split where it is full; the
 * record that does not fit goes through etw_write_staged(), which seals
 * the buffer (or counts the loss).
 */
static void etw_batch_run_route(struct etw_batch *b, struct etw_batch_run *r,
				const struct etw_batch_clk *clk)
{
	struct etw_reg *reg = etw_file_reg(b->file, r->reg_id);
	const struct etw_route *route;

	if (b->gone || !etw_batch_reg_ok(b, reg)) {
		b->dropped += r->n;
		return;
	}
	route = rcu_dereference(reg->route);
	if (!route)
		return;
	if (!etw_batch_route_runs(route, reg)) {
		etw_batch_run_each(b, r, r->n, reg, route, clk);
		return;
	}
	while (r->n)
		if (!etw_batch_run_write(b, r, reg, route, clk))
			etw_batch_run_each(b, r, 1, reg, route, clk);
}

/*
 * Route the records from @tail to @head.  Pass 1 reads a run's sizes and
 * registration ids, each once, up to a record of another registration,
 * the ring's end or ETW_BATCH_RUN_MAX records; the run is then copied and
 * checked (etw_batch_run_route()).  Returns the new tail; a size that
 * cannot be right ends the walk at @head (see the top of the file).
 */
static u64 etw_batch_route(struct etw_batch *b, u64 tail, u64 head)
{
	const void *ring = b->area + ETW_BATCH_CTL_SIZE;
	u32 mask = b->size - 1;
	u16 sizes[ETW_BATCH_RUN_MAX];
	struct etw_batch_clk clk;
	struct etw_batch_run r;
	bool bad = false;

	etw_batch_clock(b, &clk);

	while (tail != head && !bad) {
		u32 room = b->size - (tail & mask);
		u32 lim = min_t(u64, room, head - tail);
		const void *p = ring + (tail & mask), *q = p, *end = p + lim;
		u32 n = 0, bytes, reg_id = 0;
		bool wrap = false;

		/* Locals, not @r's fields: this loop runs once per record. */
		while (q < end && n < ETW_BATCH_RUN_MAX) {
			u32 size = READ_ONCE(*(const u16 *)q);
			u32 id;

			if (unlikely(size < sizeof(struct etw_staged_event) ||
				     ALIGN(size, 8) > end - q)) {
				/* A wrap marker jumps to the start: in head? */
				wrap = size == ETW_STAGED_WRAP &&
				       room <= head - tail;
				bad = !wrap;
				break;
			}
			id = READ_ONCE(*(const u32 *)(q + 8));
			if (unlikely(id != reg_id)) {
				if (n)
					break;
				reg_id = id;
			}
			sizes[n++] = size;
			q += ALIGN(size, 8);
		}
		bytes = q - p;
		tail += wrap ? room : bytes;
		if (!n)
			continue;
		r.p = p;
		r.size = sizes;
		r.n = n;
		r.bytes = bytes;
		r.reg_id = reg_id;
		etw_batch_run_route(b, &r, &clk);
	}
	if (bad) {
		b->dropped++;
		tail = head;
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
			b->dropped++;
			tail = head;
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
	list_for_each_entry_rcu(b, &f->batches, fnode)
		if (b->owner == current)
			etw_batch_drain(b);
	rcu_read_unlock();
}

/**
 * etw_batch_drain_file() - drain every ring of a file
 * @f: the /dev/etw file
 *
 * Context: process context.
 */
void etw_batch_drain_file(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &f->batches, fnode)
		etw_batch_drain(b);
	rcu_read_unlock();
}

/**
 * etw_batch_drain_all() - drain every ring
 *
 * For a session's flush timer, flush and stop, which may take any ring's
 * events, and before a change of enables or of a disallow list, which
 * routes events staged after it differently.
 *
 * Context: process context.
 */
void etw_batch_drain_all(void)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &etw_batches, gnode)
		etw_batch_drain(b);
	rcu_read_unlock();
}

/* Drain @b a last time and drop what its thread stages after. */
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

/**
 * etw_batch_end_image() - the calling thread replaced its program image
 * @f: a /dev/etw file it holds
 *
 * Its rings on @f are drained while the old image's registrations still
 * exist, then end.
 *
 * Context: process context, before the old image's registrations end.
 */
void etw_batch_end_image(struct etw_file *f)
{
	struct etw_batch *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &f->batches, fnode)
		if (b->exec_id != READ_ONCE(current->self_exec_id) &&
		    b->tgid == task_tgid(current))
			etw_batch_end(b);
	rcu_read_unlock();
}

static void etw_batch_exit_probe(void *data, struct task_struct *p)
{
	struct etw_batch *b;

	if (p != current || list_empty(&etw_batches))
		return;
	rcu_read_lock();
	hash_for_each_possible_rcu(etw_batch_owners, b, onode,
				   (unsigned long)p)
		if (b->owner == p)
			etw_batch_end(b);
	rcu_read_unlock();
}

static void etw_batch_free_rcu(struct rcu_head *rcu)
{
	struct etw_batch *b = container_of(rcu, struct etw_batch, rcu);

	vfree(b->area);
	put_pid(b->tgid);
	etw_file_put(b->file);
	kfree(b);
}

static int etw_batch_release(struct inode *inode, struct file *file)
{
	struct etw_batch *b = file->private_data;

	etw_batch_end(b);
	spin_lock(&etw_batch_lock);
	list_del_rcu(&b->fnode);
	list_del_rcu(&b->gnode);
	spin_unlock(&etw_batch_lock);
	call_rcu(&b->rcu, etw_batch_free_rcu);
	return 0;
}

/* The whole area, shared and writable, at offset 0; never inherited. */
static int etw_batch_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct etw_batch *b = file->private_data;
	unsigned long off, len = vma->vm_end - vma->vm_start;
	int ret;

	if (vma->vm_pgoff || len != ETW_BATCH_CTL_SIZE + b->size ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	etw_vma_set_flags(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
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
	if (b->tgid != task_tgid(current))
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
	list_for_each_entry(b, &f->batches, fnode)
		if (b->owner == current && !b->gone)
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
	unsigned long flags;

	b->is_tsc = true;
	b->mult = div_u64((u64)NSEC_PER_MSEC << ETW_BATCH_RATE_SHIFT,
			  tsc_khz);
	local_irq_save(flags);
	b->rate_tsc = etw_batch_read_tsc();
	b->rate_ns = ktime_get_ns();
	local_irq_restore(flags);
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
	spin_lock(&etw_batch_lock);
	list_add_tail_rcu(&b->fnode, &f->batches);
	list_add_tail_rcu(&b->gnode, &etw_batches);
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
 * etw_batch_init() - hook thread exit
 *
 * Context: module init.
 * Return: 0, or the tracepoint's registration error.  Without the
 * tracepoint a ring is drained at its file's release, not at exit.
 */
int etw_batch_init(void)
{
	etw_batch_exit_tp = etw_tracepoint_find("sched_process_exit");
	if (!etw_batch_exit_tp)
		return 0;
	return tracepoint_probe_register(etw_batch_exit_tp,
					 etw_batch_exit_probe, NULL);
}

/**
 * etw_batch_exit() - unhook thread exit; no probe runs on return
 *
 * Context: module exit.
 */
void etw_batch_exit(void)
{
	if (!etw_batch_exit_tp)
		return;
	tracepoint_probe_unregister(etw_batch_exit_tp, etw_batch_exit_probe,
				    NULL);
	tracepoint_synchronize_unregister();
}
