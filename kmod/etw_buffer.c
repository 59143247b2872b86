// SPDX-License-Identifier: GPL-2.0
/*
 * etw_buffer.c - a session's buffers, producer side: reserve, commit,
 * cancel, give back, seal, deliver.  The state word, the streams and the
 * writers' common case (the fast reservation, commit, a run's claim and
 * commit) are inline in etw_buffer.h.
 *
 * A buffer is filled by one stream (one CPU, or the whole session with
 * ETW_MODE_NO_PER_PROCESSOR).  Writers reserve space with one cmpxchg on
 * the buffer's packed state (offset, records, writers, sealed; see
 * struct etw_buffer), copy, then commit by dropping their writer count.
 * A per-CPU stream takes no lock: its writers run on its CPU with
 * preemption off, and an interrupt that writes in between makes the
 * interrupted writer's cmpxchg fail and retry with a fresh timestamp.  The
 * shared stream of a NO_PER_PROCESSOR session serialises reservations
 * under its lock, which keeps its timestamps in order across CPUs.
 * Sealing (by a writer finding the buffer full, the flush timer, FLUSH or
 * STOP, from any CPU) first takes the buffer off the stream with a
 * cmpxchg on stream.cur, then sets the sealed bit; whoever leaves the
 * state sealed with no writer delivers the buffer, so a sealed buffer
 * reaches consumers exactly once and only when every record is complete.
 * The bytes after the last record are set to 0xff when the buffer is
 * finished, not when it is reused.
 *
 * The batch drain claims a run of records in one piece (one cmpxchg and
 * one writer reference), fills it, gives back the end it did not use as a
 * cancel does, and commits the run with its record count in one atomic
 * operation.
 *
 * Delivered buffers sit on session.delivered in delivery order, for the
 * consumers (etw_consumer.c).  In buffering mode sealed buffers go to
 * session.retained instead, and the oldest is reused when no buffer is
 * free, until a flush or stop delivers them.
 *
 * Every event that passed a session's filters ends in exactly one of:
 * a delivered buffer (events_written), events_lost, or, in buffering mode,
 * events_overwritten.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "etw_buffer.h"
#include "etw_internal.h"
#include "etw_trace.h"

/* One allocation of buffers: a session's first, or an update's more. */
struct etw_buffer_chunk {
	struct list_head node;
	u32 count;
	struct etw_buffer bufs[];
};

/*
 * A session may have ETW_MAX_BUFFERS buffers: allocating or freeing them
 * yields the CPU between buffers, or a debug kernel reports a soft lockup.
 */
static void etw_buffer_chunk_free(struct etw_buffer_chunk *c)
{
	u32 i;

	for (i = 0; i < c->count; i++) {
		kvfree(c->bufs[i].data);
		cond_resched();
	}
	kvfree(c);
}

static struct etw_buffer_chunk *etw_buffer_chunk_alloc(u32 count, u32 bytes)
{
	struct etw_buffer_chunk *c;
	u32 i;

	/* Up to ETW_MAX_BUFFERS entries: too large for kmalloc at times. */
	c = kvzalloc(struct_size(c, bufs, count), GFP_KERNEL_ACCOUNT);
	if (!c)
		return NULL;
	c->count = count;
	for (i = 0; i < count; i++) {
		c->bufs[i].data = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
		if (!c->bufs[i].data) {
			etw_buffer_chunk_free(c);
			return NULL;
		}
		memset(c->bufs[i].data, 0xff, bytes);
		cond_resched();
	}
	return c;
}

/**
 * etw_buffers_grow() - add free buffers to a session
 * @s: the session, with @s->buf_bytes set
 * @count: how many
 *
 * Writers may run: the buffers join the free list under @s->lock.
 *
 * Context: process context, may sleep; etw_mutex held, or @s not yet
 * visible to anyone else.
 * Return: 0, or -ENOMEM (nothing changed).
 */
int etw_buffers_grow(struct etw_session *s, u32 count)
{
	struct etw_buffer_chunk *c = etw_buffer_chunk_alloc(count, s->buf_bytes);
	unsigned long flags;
	u32 i;

	if (!c)
		return -ENOMEM;
	list_add_tail(&c->node, &s->chunks);
	raw_spin_lock_irqsave(&s->lock, flags);
	for (i = 0; i < count; i++)
		list_add_tail(&c->bufs[i].node, &s->free);
	s->nbuffers += count;
	s->nfree += count;
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffers_grow);

/**
 * etw_buffers_alloc() - allocate a session's first buffers
 * @s: the session, with @s->cfg and @s->buf_bytes set; not yet visible
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int etw_buffers_alloc(struct etw_session *s)
{
	INIT_LIST_HEAD(&s->chunks);
	return etw_buffers_grow(s, s->cfg.max_buffers);
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffers_alloc);

/**
 * etw_buffers_free() - free a session's buffers
 * @s: the session; no writer or consumer uses it any more
 *
 * Context: process context, may sleep.
 */
void etw_buffers_free(struct etw_session *s)
{
	struct etw_buffer_chunk *c, *next;

	list_for_each_entry_safe(c, next, &s->chunks, node)
		etw_buffer_chunk_free(c);
	INIT_LIST_HEAD(&s->chunks);
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffers_free);

/* Fill the header of a buffer whose writers have all committed. */
static void etw_buffer_finish(struct etw_session *s, struct etw_buffer *b)
{
	struct etw_buffer_header *h = b->data;
	u32 reserved = etw_buffer_reserved(b);

	memset(h, 0, sizeof(*h));
	h->buffer_size = s->buf_bytes;
	h->saved_offset = reserved;
	h->current_offset = reserved;
	h->timestamp = b->seal_ts;
	h->sequence_number = b->seq;
	h->processor_index = b->cpu;
	h->logger_id = s->logger_id;
	h->state = ETW_BUFFER_STATE_FLUSH;
	h->offset = reserved;
	h->buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX |
			 (b->lost ? ETW_BUFFER_FLAG_EVENTS_LOST : 0);
	h->buffer_type = ETW_BUFFER_TYPE_GENERIC;
	h->events = etw_buffer_events(b);
	h->events_lost = b->lost;
	/* The bytes past the last record may hold an earlier use's records. */
	memset(b->data + reserved, 0xff, s->buf_bytes - reserved);
}

static void etw_deliver_locked(struct etw_session *s, struct etw_buffer *b)
{
	const struct etw_buffer_header *h = b->data;

	lockdep_assert_held(&s->lock);
	b->dseq = ++s->dseq;
	b->pending = s->nconsumers;
	b->read_once = false;
	list_add_tail(&b->node, &s->delivered);
	atomic64_inc(&s->buffers_written);
	atomic64_add(h->events, &s->events_written);
	trace_etw_buffer_deliver(s, b, h);
}

/**
 * etw_buffer_deliver() - hand a sealed buffer with no writer left on
 * @s: the session
 * @b: the buffer; its caller left its state sealed with no writer
 *
 * Buffering mode keeps it in the ring; otherwise consumers get it.  The
 * consumers are woken here, from the writer's context: a hard interrupt
 * may do that (the kernel logger's sampler does), since every user of
 * the wait queue's lock and of the scheduler's locks has interrupts off;
 * a writer holding a runqueue lock (a scheduler tracepoint's probe) may
 * not.
 *
 * Context: any but NMI and the scheduler's locked sections.
 */
void etw_buffer_deliver(struct etw_session *s, struct etw_buffer *b)
{
	unsigned long flags;

	etw_buffer_finish(s, b);
	raw_spin_lock_irqsave(&s->lock, flags);
	if (READ_ONCE(s->cfg.mode) & ETW_MODE_BUFFERING) {
		list_add_tail(&b->node, &s->retained);
		raw_spin_unlock_irqrestore(&s->lock, flags);
		return;
	}
	etw_deliver_locked(s, b);
	raw_spin_unlock_irqrestore(&s->lock, flags);
	wake_up_interruptible(&s->cwait);
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffer_deliver);

/* @b's state after a change: deliver when sealed and no writer is left. */
static void etw_buffer_state_changed(struct etw_session *s,
				     struct etw_buffer *b, u64 state)
{
	if (etw_bs_deliverable(state))
		etw_buffer_deliver(s, b);
}

/* A buffering-mode ring reuses its oldest sealed buffer. */
static struct etw_buffer *etw_buffer_overwrite_locked(struct etw_session *s)
{
	struct etw_buffer *b;
	struct etw_buffer_header *h;

	lockdep_assert_held(&s->lock);
	b = list_first_entry_or_null(&s->retained, struct etw_buffer, node);
	if (!b)
		return NULL;
	list_del(&b->node);
	h = b->data;
	atomic64_inc(&s->buffers_overwritten);
	atomic64_add(h->events, &s->events_overwritten);
	return b;
}

static struct etw_buffer *etw_buffer_get(struct etw_session *s)
{
	struct etw_buffer *b;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	b = list_first_entry_or_null(&s->free, struct etw_buffer, node);
	if (b) {
		list_del(&b->node);
		s->nfree--;
	} else if (READ_ONCE(s->cfg.mode) & ETW_MODE_BUFFERING) {
		b = etw_buffer_overwrite_locked(s);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	return b;
}

/* A nested writer installed a buffer first: @b goes back unused. */
static void etw_buffer_unget(struct etw_session *s, struct etw_buffer *b)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_add(&b->node, &s->free);
	s->nfree++;
	raw_spin_unlock_irqrestore(&s->lock, flags);
}

/* Give @st a current buffer; false when none is free. */
static bool etw_stream_install(struct etw_session *s, struct etw_stream *st)
{
	struct etw_buffer *b = etw_buffer_get(s);
	u64 gen;

	if (!b)
		return false;
	b->cpu = st->cpu;
	local64_set(&b->last_ts, 0);
	gen = (atomic64_read(&b->state) + ETW_BS_GEN_ONE) & ETW_BS_GEN_MASK;
	atomic64_set(&b->state, gen | (ETW_BUFFER_HEADER_SIZE / 8));
	/*
	 * Fully ordered: publishes the state set above to writers, whose
	 * state read depends on their READ_ONCE() of st->cur.
	 */
	if (cmpxchg(&st->cur, NULL, b))
		etw_buffer_unget(s, b);
	return true;
}

/*
 * Detach @b from @st and seal it.  Writers that read @st->cur before it
 * changed may still reserve until the seal bit is set; the seal's
 * timestamp is taken after the last of them, so it is not older than any
 * record.  Return: true when the caller must deliver @b.
 */
static bool etw_stream_seal(struct etw_session *s, struct etw_stream *st,
			    struct etw_buffer *b)
{
	u64 old;

	if (cmpxchg(&st->cur, b, NULL) != b)
		return false;	/* someone else seals it */
	b->lost = atomic_xchg(&st->lost, 0);
	b->seq = atomic64_inc_return(&s->seq);
	old = atomic64_read(&b->state);
	/*
	 * The fully ordered cmpxchg publishes @seq, @seal_ts and @lost to
	 * the writer whose commit finds the buffer sealed (its
	 * atomic64_fetch_sub() in etw_buffer_commit(), atomic64_fetch_add()
	 * in etw_buffer_commit_run(), or a cancel's or give-back's update).
	 */
	do {
		b->seal_ts = max_t(u64, ktime_get_ns(),
				   local64_read(&b->last_ts));
	} while (!atomic64_try_cmpxchg(&b->state, &old, old | ETW_BS_SEALED));
	trace_etw_buffer_seal(s, b, old);
	return !(old & ETW_BS_WR_MASK);
}

/*
 * The reservation proper.  A writer interrupted between reading the state
 * and its cmpxchg retries with a fresh clock and @last_ts, so a record is
 * never older than one reserved before it in the same buffer.  Per-CPU
 * streams run it locklessly with preemption off; the shared stream under
 * its lock.  *@sealed: a buffer the caller must deliver.
 */
static __always_inline struct etw_buffer *
etw_stream_reserve(struct etw_session *s, struct etw_stream *st, u32 len,
		   u32 *off, u64 *ts, struct etw_buffer **sealed)
{
	for (;;) {
		struct etw_buffer *b = READ_ONCE(st->cur);
		u64 old, now;

		if (!b) {
			if (!etw_stream_install(s, st))
				return NULL;
			continue;
		}
		/*
		 * Dependent on @b: ordered after the cmpxchg() that published
		 * it in etw_stream_install().  Acquire: ordered before the
		 * second read of @st->cur below.
		 */
		old = atomic64_read_acquire(&b->state);
		if (old & ETW_BS_SEALED)
			continue;	/* its sealer is replacing it */
		/*
		 * While this writer stalled (an interrupt writing on this CPU),
		 * @b may have been sealed, consumed and installed again, in
		 * another CPU's stream.  Still current here after its state
		 * was read: the state is this installation's (a sealer clears
		 * @st->cur before it seals; a reinstall bumps the generation,
		 * which fails the cmpxchg below).
		 */
		if (unlikely(READ_ONCE(st->cur) != b))
			continue;
		if ((old & ETW_BS_OFF_MASK) * 8 + len > s->buf_bytes) {
			if (etw_stream_seal(s, st, b)) {
				if (*sealed)
					etw_buffer_deliver(s, *sealed);
				*sealed = b;
			}
			continue;
		}
		now = *ts ?: ktime_get_ns();
		if (etw_buffer_claim(b, old, len, off, &now)) {
			*ts = now;
			return b;
		}
	}
}

/* Count one event @st could not record. */
static void etw_stream_count_lost(struct etw_session *s, struct etw_stream *st)
{
	atomic_inc(&st->lost);
	atomic64_inc(&s->events_lost);
}

/**
 * etw_record_lost() - count and report one event a session lost
 * @s: the session
 * @provider: the GUID the event is reported under (see etw_record_written())
 * @id: its event id
 * @error: why: -ENOBUFS, -EMSGSIZE, -E2BIG or -EBUSY (see etw:etw_lost)
 *
 * Counted in the current CPU's stream, once the write will not be retried.
 *
 * Context: any; preemption disabled.
 */
void etw_record_lost(struct etw_session *s, const struct etw_guid *provider,
		     u16 id, int error)
{
	etw_stream_count_lost(s, etw_session_stream(s));
	trace_etw_lost(s, provider, id, error);
}

/**
 * etw_buffer_reserve() - reserve space for one record
 * @s: the session
 * @st: the stream (the writer's CPU's, see etw_session_stream())
 * @len: bytes, a multiple of 8, at most the buffer's payload
 * @off: out: offset of the record in the buffer
 * @ts: in: the event's time, or 0 to read the clock here; out: the
 *	record's timestamp, raised if needed so that it is not older than any
 *	before it in the buffer (an interrupt may have written in between)
 *
 * A full current buffer is sealed and replaced by a free one.  The caller
 * must commit or cancel the reservation.  Per-CPU streams take no lock:
 * only their CPU reserves in them.
 *
 * Context: any; preemption disabled for a per-CPU stream.
 * Return: the buffer, or NULL when no buffer is free (nothing counted).
 */
struct etw_buffer *etw_buffer_reserve(struct etw_session *s,
				      struct etw_stream *st, u32 len,
				      u32 *off, u64 *ts)
{
	struct etw_buffer *b, *sealed = NULL;
	unsigned long flags;

	if (!(READ_ONCE(s->cfg.mode) & ETW_MODE_NO_PER_PROCESSOR)) {
		b = etw_stream_reserve(s, st, len, off, ts, &sealed);
	} else {
		raw_spin_lock_irqsave(&st->lock, flags);
		b = etw_stream_reserve(s, st, len, off, ts, &sealed);
		raw_spin_unlock_irqrestore(&st->lock, flags);
	}
	if (sealed)
		etw_buffer_deliver(s, sealed);
	return b;
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffer_reserve);

/**
 * etw_buffer_cancel() - abandon a reservation
 * @s: the session
 * @st: the stream the reservation was made on
 * @b: the buffer
 * @off: the reservation's offset
 * @len: the reservation's length
 * @rec_len: the record's unpadded length
 * @lost: count the event lost (false when the write will be retried)
 *
 * The space is given back when nothing was reserved after it; otherwise
 * it becomes a padding record (%ETW_PADDING_PROVIDER) that consumers skip.
 *
 * Context: any.
 */
void etw_buffer_cancel(struct etw_session *s, struct etw_stream *st,
		       struct etw_buffer *b, u32 off, u32 len, u32 rec_len,
		       bool lost)
{
	struct etw_event_header *h = b->data + off;
	u64 drop = ETW_BS_EV_ONE + ETW_BS_WR_ONE;
	u64 old = atomic64_read(&b->state);

	if (lost)
		etw_stream_count_lost(s, st);
	if (!(old & ETW_BS_SEALED) && (old & ETW_BS_OFF_MASK) * 8 == off + len) {
		/* Clean before the space can be reserved again. */
		memset(h, 0xff, len);
		if (atomic64_try_cmpxchg(&b->state, &old, old - drop - len / 8)) {
			etw_buffer_state_changed(s, b, old - drop - len / 8);
			return;
		}
	}
	etw_record_pad(h, len, rec_len);
	etw_buffer_state_changed(s, b, atomic64_sub_return(drop, &b->state));
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffer_cancel);

/**
 * etw_buffer_give_back() - give back the end of a run's claim
 * @run: the claim (etw_buffer_claim_run()); its @bytes become @used
 * @used: bytes of it the writer used, from its start; fewer than claimed
 *
 * As etw_buffer_cancel() does: the space is cleaned and given back while
 * no writer claimed after it and the buffer is not sealed; otherwise it
 * becomes a padding record (%ETW_PADDING_PROVIDER) that consumers skip.
 *
 * Context: any.
 */
void etw_buffer_give_back(struct etw_buffer_run *run, u32 used)
{
	struct etw_buffer *b = run->b;
	u32 len = run->bytes - used;
	void *rec = b->data + run->off + used;
	u64 end = run->state & ETW_BS_OFF_MASK;
	u64 cur = atomic64_read(&b->state);

	run->bytes = used;
	if ((cur & ETW_BS_OFF_MASK) == end && !(cur & ETW_BS_SEALED)) {
		/* Clean before the space can be reserved again. */
		memset(rec, 0xff, len);
		/* Fully ordered, as the claim; other commits move the counts. */
		do {
			if (atomic64_try_cmpxchg(&b->state, &cur,
						 cur - len / 8))
				return;
		} while ((cur & ETW_BS_OFF_MASK) == end &&
			 !(cur & ETW_BS_SEALED));
	}
	etw_record_pad(rec, len, len);
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffer_give_back);

/* Is the record at @rec padding (etw_record_pad())? */
static bool etw_record_is_pad(const void *rec)
{
	static const struct etw_guid pad = ETW_PADDING_PROVIDER;
	const struct etw_event_header *h = rec;

	return !memcmp(&h->provider_id, &pad, sizeof(pad));
}

/**
 * etw_buffer_trace_run() - fire etw:etw_write for each record of a run
 * @s: the session
 * @run: the claim, less what was given back; EVENT_HEADER records
 * @provider: the GUID they are reported under
 *
 * Padding is skipped.  Out of line: etw_buffer_commit_run() calls it only
 * while the tracepoint is on.
 *
 * Context: any.
 */
void etw_buffer_trace_run(const struct etw_session *s,
			  const struct etw_buffer_run *run,
			  const struct etw_guid *provider)
{
	const void *rec = run->b->data + run->off, *end = rec + run->bytes;
	const struct etw_event_header *h;

	for (; rec < end; rec += ALIGN(h->size, 8)) {
		h = rec;
		if (!etw_record_is_pad(rec))
			trace_etw_write(s, provider, h->descriptor.id,
					h->size);
	}
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffer_trace_run);

/**
 * etw_buffers_seal_all() - seal every stream's current buffer
 * @s: the session
 * @only_nonempty: leave buffers that hold no record (the flush timer)
 *
 * Context: any.
 */
void etw_buffers_seal_all(struct etw_session *s, bool only_nonempty)
{
	unsigned int i;

	for (i = 0; i < s->nstreams; i++) {
		struct etw_stream *st = &s->streams[i];
		struct etw_buffer *b = READ_ONCE(st->cur);

		if (!b)
			continue;
		if (only_nonempty && !etw_buffer_events(b))
			continue;
		if (etw_stream_seal(s, st, b))
			etw_buffer_deliver(s, b);
	}
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffers_seal_all);

/**
 * etw_buffers_release_retained() - buffering mode: deliver the ring
 * @s: the session
 *
 * Context: any.
 */
void etw_buffers_release_retained(struct etw_session *s)
{
	struct etw_buffer *b, *tmp;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->lock, flags);
	list_for_each_entry_safe(b, tmp, &s->retained, node) {
		list_del(&b->node);
		etw_deliver_locked(s, b);
	}
	raw_spin_unlock_irqrestore(&s->lock, flags);
	wake_up_interruptible(&s->cwait);
}
EXPORT_SYMBOL_IF_KUNIT(etw_buffers_release_retained);
