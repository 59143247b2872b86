/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of batched writes (Documentation/libetw.rst, "Batched
 * writes"): a thread's staging ring (ETW_IOC_BATCH_OPEN in
 * uapi/linux/etw.h) and the staging step the write path inlines.  Not
 * installed.
 *
 * A ring belongs to one thread: only that thread reads or writes its
 * struct etw_batch and stores records, so none of it needs atomics but
 * the two words the kernel shares, ctl->head (stored with release) and
 * ctl->tail (loaded with acquire).
 */
#ifndef _ETW_BATCH_H
#define _ETW_BATCH_H

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "etw_arch.h"
#include "etw_provider.h"

/**
 * union etw_batch_gate - what etw_batch_stage_one() tests in one compare
 * @dev_fd: the /dev/etw file the ring was opened on; -1 without a ring
 * @busy: the thread is staging: a signal handler that interrupts it
 *	writes directly
 * @monotonic: the ring's times are CLOCK_MONOTONIC (etw_batch_args.clock),
 *	which the fast path does not read: every write takes
 *	etw_batch_stage()
 * @zero: zero
 * @closed: @busy, @monotonic and @zero as one word: 0 while the fast path
 *	may stage on @dev_fd
 * @key: the fields as one word: etw_batch_gate_key() of the writer's file
 *	while the fast path may stage
 */
union etw_batch_gate {
	struct {
		int32_t dev_fd;
		union {
			struct {
				uint8_t busy;
				uint8_t monotonic;
				uint16_t zero;
			};
			uint32_t closed;
		};
	};
	uint64_t key;
};

/**
 * struct etw_batch_last - the event the thread staged last: a write of the
 * same event skips the handle and enable checks while nothing they read
 * has changed (etw_write_batched.c)
 * @handle: its REGHANDLE
 * @gen: etw_prov_gen when the handle was looked up; 0: nothing here
 * @keyword: its keyword
 * @state: its registration's enable state
 * @seq: @state's seq when the state was found to take the event (even)
 * @reg_id: its registration
 * @level: its level
 */
struct etw_batch_last {
	REGHANDLE handle;
	uint64_t gen;
	ULONGLONG keyword;
	const struct etw_enable_state *state;
	uint32_t seq;
	uint32_t reg_id;
	UCHAR level;
};

/**
 * struct etw_batch - the calling thread's staging ring
 * @gate: its file, and whether the fast path may stage
 * @head: bytes staged since the ring was opened: what ctl->head holds
 * @limit: the head up to which etw_batch_stage_one() may stage: the end
 *	of @head's lap of the ring, the tail last read plus the ring (a tail
 *	read earlier is an older, lower one), or @max_record past the head
 *	then, whichever is first
 * @drain_at: past this head, the ring is over half full as of that tail
 * @mask: the ring's bytes minus one (a power of two minus one)
 * @max_record: the largest record staged: half the ring, at most what
 *	etw_staged_event.size holds
 * @ctl: the mapping's first page, which the kernel shares
 * @ring: the records, after @ctl's page
 * @off: no ring for the rest of the thread (opening failed, or the
 *	thread's key destructor released it)
 * @fd: the ring's file
 * @map_size: bytes mapped at @ctl
 * @next: on etw_batch.c's list of rings, under its lock (for fork())
 * @pprev: ditto
 * @last: the event staged last, on @gate.dev_fd
 */
struct etw_batch {
	union etw_batch_gate gate;
	uint64_t head;
	uint64_t limit;
	uint64_t drain_at;
	uint32_t mask;
	uint32_t max_record;
	struct etw_batch_ctl *ctl;
	uint8_t *ring;
	bool off;
	int fd;
	size_t map_size;
	struct etw_batch *next;
	struct etw_batch **pprev;
	struct etw_batch_last last;
};

/* Initial-exec, as etw_thread_activity: one %fs-relative address. */
extern __thread struct etw_batch etw_batch_thread
	__attribute__((tls_model("initial-exec")));

/* etw_batching: EtwSetBatchedWrites() and ETW_BATCHED_WRITES=1 set it. */
#define ETW_BATCHING_ON		0x1	/* plain writes stage */
#define ETW_BATCHING_USED	0x2	/* writes take the batched path */

/*
 * USED stays once ON was set: the batched path also makes a direct write
 * drain what its thread staged first, and a thread may have staged before
 * the switch went off.  Hidden, so that the write path's test is one
 * compare; relaxed: a write that races the switch stages or not, in its
 * thread's order either way.
 */
extern uint8_t etw_batching __attribute__((visibility("hidden")));

/* ETW_BATCHING_*: 0 until batched writes are switched on, the usual case. */
static __always_inline uint8_t etw_batch_state(void)
{
	return __builtin_expect(__atomic_load_n(&etw_batching,
						__ATOMIC_RELAXED), 0);
}

/* Read ETW_BATCHED_WRITES, once per process; EventRegister calls it. */
void etw_batch_init(void);

/* Open the thread's ring on @dev_fd; false: write directly. */
bool etw_batch_open(struct etw_batch *b, int dev_fd);

/* ETW_IOC_BATCH_DRAIN: the kernel routes what @b holds. */
void etw_batch_drain(struct etw_batch *b);

/*
 * The thread staged events the kernel has not routed yet: a direct write
 * must have it drain them first (ETW_WRITE_DRAIN, or ETW_IOC_BATCH_DRAIN
 * where the flag does not go), so that it comes after them.  Relaxed: a
 * stale tail is an older one, which only asks for a drain more.
 */
static __always_inline bool etw_batch_pending(void)
{
	const struct etw_batch *b = &etw_batch_thread;

	return b->ctl &&
	       b->head != __atomic_load_n(&b->ctl->tail, __ATOMIC_RELAXED);
}

/* Plain writes stage now (ETW_BATCHING_ON). */
static __always_inline bool etw_batch_on(void)
{
	return __atomic_load_n(&etw_batching, __ATOMIC_RELAXED) &
	       ETW_BATCHING_ON;
}

/* A registration whose writes may stage: neither classic nor typed. */
static __always_inline bool etw_batch_plain(const struct etw_prov_ref *ref)
{
	return !ref->flags;
}

/*
 * The payload's bytes, as ETW_IOC_WRITE would count them; false for what
 * it refuses (more than ETW_MAX_DATA_DESCRIPTORS, a NULL array or a NULL
 * piece with a size).  One piece, the common case, without the loop.
 */
static __always_inline bool
etw_batch_payload_len(ULONG count, const EVENT_DATA_DESCRIPTOR *data,
		      uint64_t *len)
{
	ULONG i;

	if (count == 1) {
		*len = data ? data->Size : 0;
		return data && (data->Ptr || !data->Size);
	}
	if (count > ETW_MAX_DATA_DESCRIPTORS || (count && !data))
		return false;
	for (*len = 0, i = 0; i < count; i++) {
		if (!data[i].Ptr && data[i].Size)
			return false;
		*len += data[i].Size;
	}
	return true;
}

/*
 * Copy the pieces etw_batch_payload_len() measured to @dst, in order;
 * one without the loop.
 */
static __always_inline void
etw_batch_payload_copy(void *dst, ULONG count,
		       const EVENT_DATA_DESCRIPTOR *data)
{
	uint8_t *p = dst;
	ULONG i;

	if (count == 1) {
		if (data->Size)
			memcpy(dst, (const void *)(uintptr_t)data->Ptr,
			       data->Size);
		return;
	}
	for (i = 0; i < count; i++) {
		if (data[i].Size)
			memcpy(p, (const void *)(uintptr_t)data[i].Ptr,
			       data[i].Size);
		p += data[i].Size;
	}
}

/* CLOCK_MONOTONIC in ns. */
static __always_inline uint64_t etw_batch_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The clock of the rings the fast path stages in (the gate lets no
 * monotonic one through): the CPU's counter where libetw asks for it
 * (etw_arch.h).
 */
static __always_inline uint64_t etw_batch_fast_now(void)
{
#ifdef ETW_ARCH_COUNTER
	return etw_arch_counter();
#else
	return etw_batch_mono_ns();
#endif
}

/* etw_batch_fast_now() stored at @t. */
static __always_inline void etw_batch_stamp(void *t)
{
#ifdef ETW_ARCH_COUNTER
	etw_arch_counter_stamp(t);
#else
	uint64_t now = etw_batch_mono_ns();

	memcpy(t, &now, sizeof(now));
#endif
}

/* The time of a write, in the ring's clock (etw_batch_args.clock). */
static __always_inline uint64_t etw_batch_now(const struct etw_batch *b)
{
	return b->gate.monotonic ? etw_batch_mono_ns() : etw_batch_fast_now();
}

/*
 * Store a record's fields at @e: size, @flags and @reg_id with the
 * reserved fields 0 as two little-endian words, the time (*@now, or the
 * fast clock's stamp taken here when @now is NULL), the descriptor and
 * the activity.  The provider and processor-time fields are left as they
 * are: the kernel does not read them.  The payload is the caller's to
 * copy, after @e.
 */
static __always_inline void
etw_batch_store(struct etw_staged_event *e, uint64_t size, uint16_t flags,
		uint32_t reg_id, const uint64_t *now,
		const EVENT_DESCRIPTOR *desc, const GUID *activity)
{
	uint64_t *w = (uint64_t *)e;

	w[0] = size | (uint64_t)flags << 32;
	w[1] = reg_id;
	if (now)
		e->timestamp = *now;
	else
		etw_batch_stamp(&e->timestamp);
	memcpy(&e->descriptor, desc, sizeof(e->descriptor));
	memcpy(&e->activity_id, activity, sizeof(e->activity_id));
}

/*
 * What etw_batch_stage_one() may stage, from @tail as just read: up to
 * the end of the head's lap (a record never wraps) or a ring past @tail,
 * and a drain once over half of the ring is staged.  A signal handler
 * that stages meanwhile only moves the head on: what it leaves here is
 * still a bound (see struct etw_batch).
 */
static __always_inline void etw_batch_set_limit(struct etw_batch *b,
						uint64_t tail)
{
	uint64_t ring = (uint64_t)b->mask + 1;
	uint64_t lap_end = (b->head & ~(uint64_t)b->mask) + ring;

	uint64_t limit = tail + ring < lap_end ? tail + ring : lap_end;

	/* And no record over max_record: the fast path need not test it. */
	if (limit > b->head + b->max_record)
		limit = b->head + b->max_record;
	b->limit = limit;
	b->drain_at = tail + ring / 2;
}

/* Drain, then take the room it made. */
static __always_inline void etw_batch_drain_more(struct etw_batch *b)
{
	etw_batch_drain(b);
	/*
	 * Pairs with the kernel's store-release of tail once it consumed
	 * the records before it: their room may be written from here on.
	 */
	etw_batch_set_limit(b, __atomic_load_n(&b->ctl->tail,
					       __ATOMIC_ACQUIRE));
}

/*
 * Copy the event into @b's ring and publish it.  Every write the kernel
 * would refuse returns false before anything is stored, so that the
 * caller writes it directly and the kernel reports it: more than
 * ETW_MAX_DATA_DESCRIPTORS, a NULL array or a NULL piece with a size, a
 * record over @b->max_record (which covers every record over
 * ETW_MAX_EVENT_SIZE).
 */
static __always_inline bool
etw_batch_put(struct etw_batch *b, uint32_t reg_id,
	      const EVENT_DESCRIPTOR *desc, const GUID *activity,
	      ULONG count, const EVENT_DATA_DESCRIPTOR *data, uint16_t flags)
{
	uint64_t len, size, pad, off, end, need, head, tail, ring, now;
	struct etw_batch_ctl *ctl;
	struct etw_staged_event *e;
	bool drain;

	if (!etw_batch_payload_len(count, data, &len))
		return false;
	size = ETW_STAGED_EVENT_SIZE + len;
	if (size > b->max_record)
		return false;
	/* The time of the write, before the ring's state is in registers. */
	now = etw_batch_now(b);
	ring = (uint64_t)b->mask + 1;
	ctl = b->ctl;
	head = b->head;
	pad = (size + 7) & ~7ULL;
	off = head & (ring - 1);
	end = ring - off;
	/* A record never wraps: past the end's room, it starts at 0. */
	need = pad > end ? end + pad : pad;
	/*
	 * Pairs with the kernel's store-release of tail once it consumed
	 * the records before it: their room may be written from here on.
	 */
	tail = __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE);
	if (__builtin_expect(head + need - tail > ring, 0)) {
		/* Full: drain, then as above with the drain's tail. */
		etw_batch_drain(b);
		tail = __atomic_load_n(&ctl->tail, __ATOMIC_ACQUIRE);
		if (head + need - tail > ring)
			return false;
	}
	if (pad > end) {
		e = (struct etw_staged_event *)(b->ring + off);
		e->size = ETW_STAGED_WRAP;
		off = 0;
	}
	e = (struct etw_staged_event *)(b->ring + off);
	head += need;
	drain = head - tail > ring / 2;
	b->head = head;
	etw_batch_store(e, size, flags, reg_id, &now, desc, activity);
	etw_batch_payload_copy(e + 1, count, data);
	/*
	 * Pairs with the kernel's load-acquire of head before it reads the
	 * records: they are complete when it sees the head that covers them.
	 */
	__atomic_store_n(&ctl->head, head, __ATOMIC_RELEASE);
	if (drain)
		etw_batch_drain_more(b);
	else
		etw_batch_set_limit(b, tail);
	return true;
}

/* What etw_batch_stage_one() did. */
enum etw_batch_result {
	ETW_BATCH_SLOW,		/* nothing: take etw_batch_stage() */
	ETW_BATCH_STAGED,
	ETW_BATCH_STAGED_DRAIN,	/* staged; the ring is past half full */
};

/* The gate's key while @fd's writes may take the fast path. */
static __always_inline uint64_t etw_batch_gate_key(int fd)
{
	union etw_batch_gate g = { .dev_fd = fd };

	return g.key;
}

/*
 * Whether the fast path may stage a write on @fd: a TSC ring open on @fd
 * and not busy, one compare of the gate.
 */
static __always_inline bool etw_batch_gate_open(const struct etw_batch *b,
						int fd)
{
	return b->gate.key == etw_batch_gate_key(fd);
}

/*
 * The common staged write, without a call, when the gate is @open
 * (etw_batch_gate_open()): one payload piece, room below
 * @b->limit.  Anything else (a thread's first write, a monotonic ring,
 * several pieces, a wrap, a ring full as far as @b->limit knows, a signal
 * handler's write while its thread stages) stores nothing and returns
 * ETW_BATCH_SLOW for etw_batch_stage(), which handles it all.
 */
static __always_inline enum etw_batch_result
etw_batch_stage_one(struct etw_batch *b, bool open, const uint32_t *reg_id,
		    const EVENT_DESCRIPTOR *desc, const GUID *activity,
		    ULONG count, const EVENT_DATA_DESCRIPTOR *data)
{
	uint64_t head = b->head, size, pad;
	struct etw_staged_event *e;
	const void *src;

	if (!open || count != 1 || !data)
		return ETW_BATCH_SLOW;
	src = (const void *)(uintptr_t)data->Ptr;
	size = ETW_STAGED_EVENT_SIZE + data->Size;
	pad = (size + 7) & ~7ULL;
	/* Past the limit covers a record over max_record. */
	if (!src || head + pad > b->limit)
		return ETW_BATCH_SLOW;
	b->gate.busy = true;
	/* Against a signal handler on this thread: the compiler's order. */
	atomic_signal_fence(memory_order_seq_cst);
	e = (struct etw_staged_event *)(b->ring + (head & b->mask));
	/*
	 * @reg_id is read here, past the fence: a register less to keep
	 * across the checks.
	 */
	etw_batch_store(e, size, 0, *reg_id, NULL, desc, activity);
	etw_arch_copy(e + 1, src, data->Size);
	head += pad;
	b->head = head;
	/*
	 * Pairs with the kernel's load-acquire of head before it reads the
	 * records: they are complete when it sees the head that covers them.
	 */
	__atomic_store_n(&b->ctl->head, head, __ATOMIC_RELEASE);
	atomic_signal_fence(memory_order_seq_cst);
	b->gate.busy = false;
	return head > b->drain_at ? ETW_BATCH_STAGED_DRAIN : ETW_BATCH_STAGED;
}

/*
 * Stage a plain event of registration @reg_id on the /dev/etw file @fd in
 * the calling thread's ring, opening the ring at the thread's first staged
 * write.  @activity is never NULL; @flags are 0 or
 * ETW_EVENT_FLAG_STRING_ONLY.
 * Return: true when staged; false when the caller must write directly.
 */
static __always_inline bool
etw_batch_stage(int fd, uint32_t reg_id, const EVENT_DESCRIPTOR *desc,
		const GUID *activity, ULONG count,
		const EVENT_DATA_DESCRIPTOR *data, uint16_t flags)
{
	struct etw_batch *b = &etw_batch_thread;
	bool staged;

	if (b->gate.busy)
		return false;
	b->gate.busy = true;
	/* Against a signal handler on this thread: the compiler's order. */
	atomic_signal_fence(memory_order_seq_cst);
	staged = (b->gate.dev_fd == fd || etw_batch_open(b, fd)) &&
		 etw_batch_put(b, reg_id, desc, activity, count, data, flags);
	atomic_signal_fence(memory_order_seq_cst);
	b->gate.busy = false;
	return staged;
}

#endif /* _ETW_BATCH_H */
