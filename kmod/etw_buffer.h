/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffer protocol, producer side: a session's buffers and streams,
 * the packed state word writers reserve, commit and seal with, and the
 * operations on it.  The common case of every writer is inline here (a
 * call per session and event counts on the write path); the rest is in
 * etw_buffer.c, which describes the protocol.
 *
 * A record is written as: reserve (etw_buffer_reserve_fast(), else
 * etw_buffer_reserve()), fill, commit (etw_buffer_commit()) or cancel
 * (etw_buffer_cancel()).  A run of records (the batch drain) is claimed
 * in one piece (etw_buffer_claim_run()), filled, its unused end given
 * back (etw_buffer_give_back()) and committed with its record count
 * (etw_buffer_commit_run()).  Every producer reports what it wrote and
 * lost here too: etw_record_written() and etw_buffer_commit_run() fire
 * etw:etw_write before the commit, etw_record_lost() counts a loss and
 * fires etw:etw_lost.
 */
#ifndef _ETW_BUFFER_H
#define _ETW_BUFFER_H

#include <linux/atomic.h>
#include <linux/instrumented.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <asm/local64.h>

#include "etw_internal.h"
#include "etw_trace.h"

/*
 * struct etw_buffer.state packs what writers change, so that one atomic
 * operation reserves, commits or seals: the reserved bytes (in units of 8,
 * header included), the records reserved (padding excluded), the writers
 * between reserve and commit, whether the buffer is sealed, and a
 * generation bumped on each reuse (a writer holding a stale pointer to a
 * buffer that was sealed and reused cannot reserve in it).
 */
#define ETW_BS_OFF_MASK		GENMASK_ULL(21, 0)
#define ETW_BS_EV_ONE		BIT_ULL(22)
#define ETW_BS_EV_MASK		GENMASK_ULL(42, 22)
#define ETW_BS_WR_SHIFT		43
#define ETW_BS_WR_ONE		BIT_ULL(ETW_BS_WR_SHIFT)
#define ETW_BS_WR_MASK		GENMASK_ULL(55, ETW_BS_WR_SHIFT)
#define ETW_BS_SEALED		BIT_ULL(56)
#define ETW_BS_GEN_ONE		BIT_ULL(57)
#define ETW_BS_GEN_MASK		GENMASK_ULL(63, 57)

/**
 * struct etw_buffer - one buffer of a session
 * @node: on the session's free, retained or delivered list; session lock
 * @state: ETW_BS_* fields, see above; whoever leaves it sealed with no
 *	writer delivers the buffer
 * @last_ts: newest timestamp handed out; written by the stream's writers
 * @cpu: stream the buffer serves
 * @seq: sequence number, given when sealed
 * @seal_ts: session clock when sealed
 * @lost: events the stream lost before this buffer was sealed
 * @dseq: delivery number; session lock
 * @pending: consumers that have not read it yet; session lock
 * @read_once: a consumer has read it; session lock
 * @data: the buffer, struct etw_buffer_header first
 */
struct etw_buffer {
	struct list_head node;
	atomic64_t state;
	local64_t last_ts;
	u32 cpu;
	u64 seq;
	u64 seal_ts;
	u32 lost;
	u64 dseq;
	u32 pending;
	bool read_once;
	void *data;
};

/*
 * A buffer in @state is sealed with no writer left: its deliverer has it.
 * Shifted first, the writer count and the sealed bit above it are tested
 * without 64-bit mask constants (each costs an instruction per commit).
 */
static inline bool etw_bs_deliverable(u64 state)
{
	u32 f = state >> ETW_BS_WR_SHIFT;

	return (f & ((ETW_BS_SEALED | ETW_BS_WR_MASK) >> ETW_BS_WR_SHIFT)) ==
	       ETW_BS_SEALED >> ETW_BS_WR_SHIFT;
}

/* The same test on the state before its last writer left. */
static inline bool etw_bs_last_writer(u64 old)
{
	u32 f = old >> ETW_BS_WR_SHIFT;

	return (f & ((ETW_BS_SEALED | ETW_BS_WR_MASK) >> ETW_BS_WR_SHIFT)) ==
	       (ETW_BS_SEALED + ETW_BS_WR_ONE) >> ETW_BS_WR_SHIFT;
}

/* Bytes reserved in @b, header included. */
static inline u32 etw_buffer_reserved(struct etw_buffer *b)
{
	return (atomic64_read(&b->state) & ETW_BS_OFF_MASK) * 8;
}

/* Records reserved in @b, padding excluded. */
static inline u32 etw_buffer_events(struct etw_buffer *b)
{
	return (atomic64_read(&b->state) & ETW_BS_EV_MASK) / ETW_BS_EV_ONE;
}

/**
 * struct etw_stream - one stream of buffers (per CPU, or one per session)
 * @lock: %ETW_MODE_NO_PER_PROCESSOR streams: serialises reservations
 * @cur: buffer being filled, or NULL; replaced with cmpxchg()
 * @lost: events lost since @cur's predecessor was sealed
 * @cpu: the CPU number recorded in this stream's buffers
 */
struct etw_stream {
	raw_spinlock_t lock;
	struct etw_buffer *cur;
	atomic_t lost;
	u32 cpu;
};

/**
 * struct etw_buffer_run - a run of records claimed in one piece
 * @b: the buffer
 * @state: @b's state as the claim left it
 * @last_ts: @b's newest timestamp when claimed: the run's records may not
 *	be older (raise it with etw_buffer_raise_ts() once they are built)
 * @off: offset of the run in @b
 * @bytes: bytes claimed
 */
struct etw_buffer_run {
	struct etw_buffer *b;
	u64 state;
	u64 last_ts;
	u32 off;
	u32 bytes;
};

int etw_buffers_alloc(struct etw_session *s);
int etw_buffers_grow(struct etw_session *s, u32 count);
void etw_buffers_free(struct etw_session *s);
struct etw_buffer *etw_buffer_reserve(struct etw_session *s,
				      struct etw_stream *st, u32 len,
				      u32 *off, u64 *ts);
void etw_buffer_deliver(struct etw_session *s, struct etw_buffer *b);
void etw_buffer_cancel(struct etw_session *s, struct etw_stream *st,
		       struct etw_buffer *b, u32 off, u32 len, u32 rec_len,
		       bool lost);
void etw_buffer_give_back(struct etw_buffer_run *run, u32 used);
void etw_buffer_trace_run(const struct etw_session *s,
			  const struct etw_buffer_run *run,
			  const struct etw_guid *provider);
void etw_record_lost(struct etw_session *s, const struct etw_guid *provider,
		     u16 id, int error);
void etw_buffers_seal_all(struct etw_session *s, bool only_nonempty);
void etw_buffers_release_retained(struct etw_session *s);

/**
 * etw_session_stream() - the stream the current CPU writes to
 * @s: the session
 *
 * Context: preemption disabled.
 * Return: the stream.
 */
static inline struct etw_stream *etw_session_stream(struct etw_session *s)
{
	if (s->nstreams == 1)
		return &s->streams[0];
	return &s->streams[smp_processor_id()];
}

/*
 * Raise @b's newest timestamp from @old, as last read, to @ts, unless a
 * nested writer went beyond.
 */
static __always_inline void etw_buffer_raise_ts(struct etw_buffer *b, u64 old,
						u64 ts)
{
	while (old < ts) {
		u64 seen = local64_cmpxchg(&b->last_ts, old, ts);

		if (seen == old)
			break;
		old = seen;
	}
}

/*
 * Claim @len bytes of @b, whose state was @old, for a record of time *@ts
 * (raised to @b's newest).  Fails when a nested writer or a sealer changed
 * the state since it was read; the caller reads it again.
 */
static __always_inline bool etw_buffer_claim(struct etw_buffer *b, u64 old,
					     u32 len, u32 *off, u64 *ts)
{
	u64 last = local64_read(&b->last_ts);
	u64 now = max(*ts, last);

	/*
	 * Fully ordered: pairs with the cmpxchg that seals @b in
	 * etw_stream_seal(), so a claim either lands before the seal (which
	 * then waits for its commit) or fails and sees it.
	 */
	if (!atomic64_try_cmpxchg(&b->state, &old, old + len / 8 +
				  ETW_BS_EV_ONE + ETW_BS_WR_ONE))
		return false;
	etw_buffer_raise_ts(b, last, now);
	*off = (old & ETW_BS_OFF_MASK) * 8;
	*ts = now;
	return true;
}

/**
 * etw_buffer_reserve_fast() - etw_buffer_reserve()'s common case, inline
 * @s: the session
 * @st: the stream (the writer's CPU's, see etw_session_stream())
 * @len: bytes, a multiple of 8
 * @off: out: offset of the record in the buffer
 * @ts: in: the event's time, not 0; out: the record's timestamp
 *
 * Reserves in a per-CPU stream whose current buffer has room, and nothing
 * else: no buffer, a full or sealed one, a shared stream or a nested
 * writer in between is left to etw_buffer_reserve().  Inlined into the
 * write path's loop over sessions, where a call per session counts.
 *
 * Context: any; preemption disabled.
 * Return: the buffer, or NULL: call etw_buffer_reserve() (@len must fit
 * an empty buffer).
 */
static __always_inline struct etw_buffer *
etw_buffer_reserve_fast(struct etw_session *s, struct etw_stream *st, u32 len,
			u32 *off, u64 *ts)
{
	struct etw_buffer *b = READ_ONCE(st->cur);
	u64 old;

	if (likely(b && !(READ_ONCE(s->cfg.mode) &
			  ETW_MODE_NO_PER_PROCESSOR))) {
		/*
		 * Dependent on @b: ordered after the cmpxchg() that published
		 * it in etw_stream_install().  Acquire: ordered before the
		 * second read of @st->cur (see etw_stream_reserve()).
		 */
		old = atomic64_read_acquire(&b->state);
		/*
		 * Room left and not sealed, in one test: a sealed buffer's
		 * offset counts as 2^59 bytes, which no buffer has.
		 */
		if (likely((old & (ETW_BS_SEALED | ETW_BS_OFF_MASK)) * 8 +
			   len <= s->buf_bytes &&
			   READ_ONCE(st->cur) == b &&
			   etw_buffer_claim(b, old, len, off, ts)))
			return b;
	}
	return NULL;
}

/**
 * etw_buffer_commit() - the record at a reservation is complete
 * @s: the session
 * @b: the buffer etw_buffer_reserve() returned
 *
 * Inline: the write path commits once per session.
 *
 * Context: any.
 */
static __always_inline void etw_buffer_commit(struct etw_session *s,
					      struct etw_buffer *b)
{
	/*
	 * Fully ordered: the record is complete before a delivery; pairs
	 * with the cmpxchg that seals @b in etw_stream_seal(), whose
	 * sequence number, seal time and loss count the deliverer reads.
	 */
	u64 old = atomic64_fetch_sub(ETW_BS_WR_ONE, &b->state);

	/* Tested on the old state: the subtraction is not made again. */
	if (unlikely(etw_bs_last_writer(old)))
		etw_buffer_deliver(s, b);
}

/**
 * etw_buffer_claim_run() - claim room for several records at once
 * @s: the session
 * @st: the stream (the writer's CPU's, see etw_session_stream()); per-CPU
 * @need: bytes the run needs at least (its first record), a multiple of 8
 * @want: bytes it would take at most, a multiple of 8
 * @run: out: the claim
 *
 * Claims as much of @want as the current buffer has room for, with one
 * cmpxchg and one writer reference; the records are counted when the run
 * is committed (etw_buffer_commit_run()).  What lies beyond @need is
 * claimed only if it would leave at least a header's worth, so that what
 * the writer does not use can become a padding record
 * (etw_buffer_give_back()).  Nothing is sealed and no timestamp raised:
 * with no current buffer, one without the room or a nested writer in
 * between, it fails and the caller writes record by record.
 *
 * Context: any; preemption disabled.
 * Return: true when @run holds a claim of @need bytes or more.
 */
static __always_inline bool etw_buffer_claim_run(struct etw_session *s,
						 struct etw_stream *st,
						 u32 need, u32 want,
						 struct etw_buffer_run *run)
{
	struct etw_buffer *b = READ_ONCE(st->cur);
	u32 room, bytes;
	u64 old;

	if (!b)
		return false;
	/*
	 * Dependent on @b: ordered after the cmpxchg() that published it in
	 * etw_stream_install().  Acquire: ordered before the second read of
	 * @st->cur (see etw_buffer_reserve_fast()).
	 */
	old = atomic64_read_acquire(&b->state);
	if ((old & ETW_BS_SEALED) || READ_ONCE(st->cur) != b)
		return false;
	room = s->buf_bytes - min_t(u64, (old & ETW_BS_OFF_MASK) * 8,
				    s->buf_bytes);
	bytes = min(want, room);
	if (need > bytes)
		return false;
	if (bytes - need < sizeof(struct etw_event_header))
		bytes = need;
	run->last_ts = local64_read(&b->last_ts);
	run->state = old + bytes / 8 + ETW_BS_WR_ONE;
	/* Fully ordered: pairs with the seal's cmpxchg (etw_stream_seal()). */
	if (!atomic64_try_cmpxchg(&b->state, &old, run->state))
		return false;
	run->b = b;
	run->off = (old & ETW_BS_OFF_MASK) * 8;
	run->bytes = bytes;
	return true;
}

/**
 * etw_buffer_commit_run() - report and commit the records of a run
 * @s: the session
 * @run: the claim (etw_buffer_claim_run()), less what was given back
 * @events: records in it, padding excluded
 * @provider: the GUID its records are reported under
 *
 * Fires etw:etw_write for each record, then counts the records and drops
 * the writer reference with one atomic operation, which delivers the
 * buffer when it was sealed meanwhile.
 *
 * Context: any.
 */
static __always_inline void etw_buffer_commit_run(struct etw_session *s,
						  const struct etw_buffer_run *run,
						  u32 events,
						  const struct etw_guid *provider)
{
	u64 old;

	if (trace_etw_write_enabled())
		etw_buffer_trace_run(s, run, provider);
	/*
	 * Fully ordered: the records are complete before a delivery; pairs
	 * with the seal's cmpxchg, as etw_buffer_commit()'s.
	 */
	old = atomic64_fetch_add(events * ETW_BS_EV_ONE - ETW_BS_WR_ONE,
				 &run->b->state);
	if (unlikely(etw_bs_last_writer(old)))
		etw_buffer_deliver(s, run->b);
}

/**
 * etw_record_written() - report a record written to a session
 * @s: the session
 * @provider: the GUID the record is reported under: its registration's,
 *	SystemTraceControlGuid for the kernel logger's
 * @id: its event id (the kernel logger's: its hook id)
 * @size: its size, header and extended items included
 *
 * Every producer reports each record here before its commit (a run's
 * records: etw_buffer_commit_run()), and each loss to etw_record_lost():
 * fires etw:etw_write.  The records themselves are counted when their
 * buffer is delivered.
 *
 * Context: any.
 */
static __always_inline void etw_record_written(const struct etw_session *s,
					       const struct etw_guid *provider,
					       u16 id, u16 size)
{
	trace_etw_write(s, provider, id, size);
}

/**
 * etw_copy_record() - copy a record, or a run of them, within the kernel
 * @dst: where to
 * @src: from where
 * @len: bytes, a multiple of 8 (records and items are 8-aligned)
 *
 * To another session's record (etw_write.c) or from a staging ring into a
 * buffer (etw_batch.c).  On x86-64 a rep movsq: without FSRM, memcpy() is
 * memcpy_orig's loop of 4 words, three times the instructions per word.
 * KASAN and KCSAN check it as they would a memcpy().
 *
 * Context: any.
 */
static __always_inline void etw_copy_record(void *dst, const void *src,
					    u32 len)
{
#ifdef CONFIG_X86_64
	unsigned long n = len / 8;

	instrument_read(src, len);
	instrument_write(dst, len);
	asm volatile("rep movsq"
		     : "+D" (dst), "+S" (src), "+c" (n) : : "memory");
#else
	memcpy(dst, src, len);
#endif
}

/**
 * etw_record_pad() - make a reserved record padding, which consumers skip
 * @rec: the record
 * @len: its reserved bytes, cleared
 * @rec_len: its size as recorded (at least a header; @len padded)
 *
 * Context: any.
 */
static inline void etw_record_pad(void *rec, u32 len, u32 rec_len)
{
	static const struct etw_guid pad = ETW_PADDING_PROVIDER;
	struct etw_event_header *h = rec;

	memset(h, 0, len);
	h->size = rec_len;
	h->header_type = ETW_EVENT_HEADER_TYPE_64;
	h->provider_id = pad;
}

#endif /* _ETW_BUFFER_H */
