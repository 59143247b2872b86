// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c: the stacks of a Windows kernel trace joined to their events.
 *
 * A stack record names its event by the event's raw timestamp
 * (EventTimeStamp) and thread (StackThread), as Windows' consumers match
 * them.  One event may have two parts, its kernel frames and its user
 * frames, each a StackWalk_Event (type 32) or a key reference (37
 * StackKeyKernel, 38 StackKeyUser).  A key's frames come from a
 * definition: KeyCreate (34) when the key is made, or KeyDelete (35) when
 * it leaves the cache and KeyRundown (36) for those still cached at the
 * end.  A reference takes the latest KeyCreate of its key at or before
 * it, else the first KeyDelete or KeyRundown at or after it (a key is
 * reused once deleted).
 *
 * The definitions can come at the end of the trace: a pass before the
 * one that shows the events gives them to etwctl_stacks_define(), and
 * etwctl_stacks_seal() sorts them.  The parts are joined in the pass
 * that shows the events, which reads the records twice: a reader running
 * ahead of it gives each to etwctl_stacks_ahead(), which keeps the parts
 * in a window around the record shown (etwctl_stacks_want() says when to
 * read on); etwctl_stacks_step() takes each record shown, and
 * etwctl_stacks_find() joins the parts in the window that name it.
 *
 * Memory: the definitions, once each, with each distinct run of their
 * frames once (a trace repeats its stacks), and the window's parts,
 * whatever the length of the trace.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stacks.h"
#include "table.h"

#define ETWCTL_SW_STACK		32
#define ETWCTL_SW_KEY_CREATE	34
#define ETWCTL_SW_KEY_DELETE	35
#define ETWCTL_SW_KEY_RUNDOWN	36
#define ETWCTL_SW_KEY_KERNEL	37
#define ETWCTL_SW_KEY_USER	38
/* EventTimeStamp, StackProcess, StackThread: a stack record's head. */
#define ETWCTL_SW_HEAD		16
/* The frames a STACK_TRACE64 item holds in its 16-bit size. */
#define ETWCTL_SW_MAX_FRAMES	((UINT16_MAX - 8) / 8)

/*
 * The window: the parts of the records up to ETWCTL_SW_AHEAD after the
 * one shown, and of those before it in the same 100 ns tick.  Why that
 * takes every part of an event: a part is written after its event, so
 * its time is the event's or later, and the records come in time order
 * (a part of the same tick on a lower CPU may come first).  The kernel
 * logger writes an event's kernel stack (StackWalk_Event,
 * StackKeyKernel) on the CPU that logged the event, right after it: the
 * next records of that CPU's buffers, of the next buffer when the event
 * ended one.  It walks the user stack when the thread returns to user
 * mode, which may be much later and on another CPU.  PerfView's
 * net.4.5.2.x86.etl has its kernel parts at most 13 records after their
 * events and its user parts at most 5,337 (4.3 ms, a burst), the latest
 * 0.29 s after: the window is three times the farthest, at a few dozen
 * bytes a part.  A part that lies farther from its event joins nothing,
 * as one whose event is not in the trace: dump does not show it, the
 * export leaves it out.
 */
#define ETWCTL_SW_AHEAD		16384

/* No part: the end of a bucket's chain. */
#define ETWCTL_SW_NONE		UINT64_MAX

/* StackWalkGuid: the event class of the kernel logger's stack records. */
static const struct etw_guid etwctl_stackwalk_guid = {
	0xdef2fe46, 0x7bd6, 0x4b80,
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 }
};

/* PerfInfoGuid: SampledProfile's class, whose header has no thread. */
static const struct etw_guid etwctl_perfinfo_guid = {
	0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }
};

#define ETWCTL_PERFINFO_SAMPLE	46

/* A key's frames, from a definition record at @ts. */
struct etwctl_sw_def {
	uint64_t key;
	uint64_t ts;
	size_t off;
	uint32_t nframes;
	bool create;
};

/*
 * One part of an event's stack in the window, numbered in the order the
 * look-ahead read them: its record's number @at and @time (FILETIME),
 * the event it names (@ts, @tid), and its @nframes frames at @off in the
 * frame pool (a key's) or, @in_ring, at @off in the ring.  @next: the
 * next part of its bucket, by number.
 */
struct etwctl_sw_part {
	uint64_t ts;
	uint64_t at;
	int64_t time;
	uint64_t off;
	uint64_t next;
	uint32_t tid;
	uint32_t pid;
	uint32_t nframes;
	bool user;
	bool in_ring;
};

/* The parts of one hash bucket, first and last by number. */
struct etwctl_sw_bucket {
	uint64_t head;
	uint64_t tail;
};

/* A run of @n words at @off in a pool. */
struct etwctl_sw_run {
	size_t off;
	size_t n;
};

/*
 * 64-bit words in runs, each distinct run once: @v holds @n of @cap
 * words; @slots, an open-address hash of the runs (@n 0: free), has
 * @nslots slots, a power of two, for @nruns runs.
 */
struct etwctl_sw_pool {
	uint64_t *v;
	size_t n, cap;
	struct etwctl_sw_run *slots;
	size_t nslots, nruns;
};

/*
 * @frames: the definitions' frames
 * @defs: the definitions, each once; @def_slots an open-address hash of
 *	their indices + 1 (0: free), @ndef_slots slots (a power of two)
 * @parts: the window's parts numbered @first to @end - 1, part n at
 *	n & (@parts_cap - 1), @parts_cap a power of two; @buckets as many
 * @ring: the window's frames of StackWalk records, words @ring_head to
 *	@ring_tail - 1, word n at n & (@ring_cap - 1)
 * @nahead: records the look-ahead read; @nshown: records shown
 * @item: the last joined STACK_TRACE64 item, @item_cap words
 * @unresolved: references whose key has no definition
 */
struct etwctl_stacks {
	struct etwctl_sw_pool frames;
	struct etwctl_sw_def *defs;
	size_t ndefs, defs_cap;
	uint32_t *def_slots;
	size_t ndef_slots;
	struct etwctl_sw_part *parts;
	struct etwctl_sw_bucket *buckets;
	size_t parts_cap;
	uint64_t first, end;
	uint64_t *ring;
	size_t ring_cap;
	uint64_t ring_head, ring_tail;
	uint64_t nahead, nshown;
	uint64_t *item;
	size_t item_cap;
	uint64_t unresolved;
};

static uint64_t etwctl_sw_hash(const uint64_t *v, size_t n)
{
	uint64_t h = ETWCTL_FNV1A_BASIS;
	size_t i;

	for (i = 0; i < n; i++)
		h = etwctl_fnv1a_word(h, v[i]);
	return h ^ n;
}

static int etwctl_sw_rehash(struct etwctl_sw_pool *p)
{
	size_t n = p->nslots ? 2 * p->nslots : 1024, i, j;
	struct etwctl_sw_run *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < p->nslots; i++) {
		if (!p->slots[i].n)
			continue;
		j = etwctl_sw_hash(p->v + p->slots[i].off, p->slots[i].n) &
		    (n - 1);
		while (slots[j].n)
			j = (j + 1) & (n - 1);
		slots[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = n;
	return 0;
}

/* Room for @n words past the end of pool @p, where a new run is built. */
static uint64_t *etwctl_sw_tail(struct etwctl_sw_pool *p, size_t n)
{
	if (etwctl_grow((void **)&p->v, &p->cap, p->n, n, sizeof(*p->v)))
		return NULL;
	return p->v + p->n;
}

/*
 * The @n words built at the pool's tail taken as a run: *@off is where
 * the same words were already, or else where they now stay.
 */
static int etwctl_sw_intern(struct etwctl_sw_pool *p, size_t n, size_t *off)
{
	const uint64_t *w = p->v + p->n;
	size_t j;

	if (!n) {
		*off = p->n;
		return 0;
	}
	if (2 * (p->nruns + 1) > p->nslots && etwctl_sw_rehash(p))
		return -ENOMEM;
	for (j = etwctl_sw_hash(w, n) & (p->nslots - 1); p->slots[j].n;
	     j = (j + 1) & (p->nslots - 1)) {
		if (p->slots[j].n == n &&
		    !memcmp(p->v + p->slots[j].off, w, n * sizeof(*w))) {
			*off = p->slots[j].off;
			return 0;
		}
	}
	p->slots[j].off = p->n;
	p->slots[j].n = n;
	p->nruns++;
	*off = p->n;
	p->n += n;
	return 0;
}

/**
 * etwctl_stacks_new - an empty set of stacks
 *
 * Context: any thread; the set is the caller's alone.
 * Return: the set, or NULL without memory.
 */
struct etwctl_stacks *etwctl_stacks_new(void)
{
	return calloc(1, sizeof(struct etwctl_stacks));
}

/**
 * etwctl_stacks_free - frees a set of stacks
 * @s: the set, or NULL
 *
 * Context: any thread.
 */
void etwctl_stacks_free(struct etwctl_stacks *s)
{
	if (!s)
		return;
	free(s->frames.v);
	free(s->frames.slots);
	free(s->defs);
	free(s->def_slots);
	free(s->parts);
	free(s->buckets);
	free(s->ring);
	free(s->item);
	free(s);
}

/**
 * etwctl_stacks_is_stack - whether an event is a stack record
 * @ev: the event
 *
 * Context: any thread.
 * Return: true for the kernel logger's StackWalk records (version 2).
 */
bool etwctl_stacks_is_stack(const struct etw_etl_event *ev)
{
	return (ev->kind == ETW_ETL_KIND_SYSTEM ||
		ev->kind == ETW_ETL_KIND_PERFINFO) &&
	       ev->descriptor.version == 2 &&
	       !memcmp(&ev->provider_id, &etwctl_stackwalk_guid,
		       sizeof(etwctl_stackwalk_guid));
}

static unsigned int etwctl_sw_ptr_size(const struct etw_etl_event *ev)
{
	return ev->header_type == ETW_ETL_HT_SYSTEM32 ||
	       ev->header_type == ETW_ETL_HT_COMPACT32 ||
	       ev->header_type == ETW_ETL_HT_PERFINFO32 ? 4 : 8;
}

static uint64_t etwctl_sw_ptr(const uint8_t *p, unsigned int ptr)
{
	uint64_t v = 0;
	uint32_t v32;

	if (ptr == 4) {
		memcpy(&v32, p, sizeof(v32));
		return v32;
	}
	memcpy(&v, p, sizeof(v));
	return v;
}

/* How many whole pointers @len bytes hold, as many as an item takes. */
static uint32_t etwctl_sw_nframes(uint32_t len, unsigned int ptr)
{
	uint32_t n = len / ptr;

	return n > ETWCTL_SW_MAX_FRAMES ? ETWCTL_SW_MAX_FRAMES : n;
}

/* @n pointers at @p as 64-bit words at @v. */
static void etwctl_sw_words(uint64_t *v, const uint8_t *p, uint32_t n,
			    unsigned int ptr)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		v[i] = etwctl_sw_ptr(p + i * ptr, ptr);
}

static uint64_t etwctl_sw_def_hash(const struct etwctl_sw_def *d)
{
	uint64_t h = etwctl_fnv1a_word(ETWCTL_FNV1A_BASIS, d->key);

	h = etwctl_fnv1a_word(h, d->ts);
	return etwctl_fnv1a_word(h, d->off ^ (uint64_t)d->nframes << 40);
}

static bool etwctl_sw_def_same(const struct etwctl_sw_def *a,
			       const struct etwctl_sw_def *b)
{
	return a->key == b->key && a->ts == b->ts && a->off == b->off &&
	       a->nframes == b->nframes && a->create == b->create;
}

static int etwctl_sw_def_rehash(struct etwctl_stacks *s)
{
	size_t n = s->ndef_slots ? 2 * s->ndef_slots : 1024, i, j;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < s->ndefs; i++) {
		j = etwctl_sw_def_hash(&s->defs[i]) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)i + 1;
	}
	free(s->def_slots);
	s->def_slots = slots;
	s->ndef_slots = n;
	return 0;
}

/*
 * Definition @d into the set unless it is there already: the same record
 * of each copy of a trace merged with itself is kept once.
 */
static int etwctl_sw_def_add(struct etwctl_stacks *s,
			     const struct etwctl_sw_def *d)
{
	size_t j;

	if (2 * (s->ndefs + 1) > s->ndef_slots && etwctl_sw_def_rehash(s))
		return -ENOMEM;
	for (j = etwctl_sw_def_hash(d) & (s->ndef_slots - 1); s->def_slots[j];
	     j = (j + 1) & (s->ndef_slots - 1))
		if (etwctl_sw_def_same(&s->defs[s->def_slots[j] - 1], d))
			return 0;
	if (s->ndefs >= UINT32_MAX ||
	    etwctl_grow((void **)&s->defs, &s->defs_cap, s->ndefs, 1,
			sizeof(*d)))
		return -ENOMEM;
	s->defs[s->ndefs++] = *d;
	s->def_slots[j] = (uint32_t)s->ndefs;
	return 0;
}

/**
 * etwctl_stacks_define - takes a key's definition into the set
 * @s: the set, not yet sealed
 * @ev: any record; those other than KeyCreate, KeyDelete and KeyRundown
 *	are passed over
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM.
 */
int etwctl_stacks_define(struct etwctl_stacks *s,
			 const struct etw_etl_event *ev)
{
	unsigned int ptr = etwctl_sw_ptr_size(ev);
	const uint8_t *p = ev->user_data;
	uint8_t op = ev->descriptor.opcode;
	struct etwctl_sw_def d = { 0 };
	uint64_t *v;

	if ((op != ETWCTL_SW_KEY_CREATE && op != ETWCTL_SW_KEY_DELETE &&
	     op != ETWCTL_SW_KEY_RUNDOWN) || !etwctl_stacks_is_stack(ev) ||
	    ev->user_data_len < ptr)
		return 0;
	d.key = etwctl_sw_ptr(p, ptr);
	d.ts = ev->raw_timestamp;
	d.create = op == ETWCTL_SW_KEY_CREATE;
	d.nframes = etwctl_sw_nframes(ev->user_data_len - ptr, ptr);
	v = etwctl_sw_tail(&s->frames, d.nframes);
	if (!v)
		return -ENOMEM;
	etwctl_sw_words(v, p + ptr, d.nframes, ptr);
	if (etwctl_sw_intern(&s->frames, d.nframes, &d.off))
		return -ENOMEM;
	return etwctl_sw_def_add(s, &d);
}

static int etwctl_sw_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int etwctl_sw_def_cmp(const void *a, const void *b)
{
	const struct etwctl_sw_def *x = a, *y = b;

	return etwctl_sw_cmp_u64(x->key, y->key) ?:
	       etwctl_sw_cmp_u64(x->ts, y->ts);
}

/**
 * etwctl_stacks_seal - the definitions ready for the pass that joins
 * @s: the set, every definition of the trace taken
 *
 * Context: any thread.
 */
void etwctl_stacks_seal(struct etwctl_stacks *s)
{
	qsort(s->defs, s->ndefs, sizeof(*s->defs), etwctl_sw_def_cmp);
	/* Sorted, the definitions have moved from the slots' indices. */
	free(s->def_slots);
	s->def_slots = NULL;
	s->ndef_slots = 0;
}

/* The definition that holds the frames of @key referenced at @ts, or NULL. */
static const struct etwctl_sw_def *
etwctl_sw_resolve(const struct etwctl_stacks *s, uint64_t key, uint64_t ts)
{
	const struct etwctl_sw_def *create = NULL, *d;
	size_t lo = 0, hi = s->ndefs, mid;

	/* The first definition of the key. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->defs[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (d = s->defs + lo; d < s->defs + s->ndefs && d->key == key; d++) {
		if (d->create && d->ts <= ts)
			create = d;
		else if (!d->create && d->ts >= ts)
			return create ?: d;
	}
	return create;
}

static struct etwctl_sw_part *etwctl_sw_part(const struct etwctl_stacks *s,
					     uint64_t n)
{
	return &s->parts[n & (s->parts_cap - 1)];
}

static struct etwctl_sw_bucket *
etwctl_sw_bucket(const struct etwctl_stacks *s, uint64_t ts, uint32_t tid)
{
	uint64_t h = etwctl_fnv1a_word(etwctl_fnv1a_word(ETWCTL_FNV1A_BASIS,
							 ts), tid);

	return &s->buckets[(h ^ h >> 32) & (s->parts_cap - 1)];
}

/* Part @n at the end of its bucket's chain. */
static void etwctl_sw_link(struct etwctl_stacks *s, uint64_t n)
{
	struct etwctl_sw_part *t = etwctl_sw_part(s, n);
	struct etwctl_sw_bucket *b = etwctl_sw_bucket(s, t->ts, t->tid);

	t->next = ETWCTL_SW_NONE;
	if (b->head == ETWCTL_SW_NONE)
		b->head = n;
	else
		etwctl_sw_part(s, b->tail)->next = n;
	b->tail = n;
}

/* Room for one more part: the window's arrays doubled when full. */
static int etwctl_sw_parts_room(struct etwctl_stacks *s)
{
	size_t cap = s->parts_cap ? 2 * s->parts_cap : 256, i;
	struct etwctl_sw_part *parts, *old = s->parts;
	struct etwctl_sw_bucket *buckets;
	uint64_t n;

	if (s->end - s->first < s->parts_cap)
		return 0;
	parts = malloc(cap * sizeof(*parts));
	buckets = malloc(cap * sizeof(*buckets));
	if (!parts || !buckets) {
		free(parts);
		free(buckets);
		return -ENOMEM;
	}
	for (n = s->first; n < s->end; n++)
		parts[n & (cap - 1)] = old[n & (s->parts_cap - 1)];
	for (i = 0; i < cap; i++)
		buckets[i].head = ETWCTL_SW_NONE;
	free(old);
	free(s->buckets);
	s->parts = parts;
	s->buckets = buckets;
	s->parts_cap = cap;
	/* Relinked in order, each chain stays oldest first. */
	for (n = s->first; n < s->end; n++)
		etwctl_sw_link(s, n);
	return 0;
}

/* Room for @n more words in the ring: doubled until they fit. */
static int etwctl_sw_ring_room(struct etwctl_stacks *s, uint32_t n)
{
	size_t used = s->ring_tail - s->ring_head;
	size_t cap = s->ring_cap ? s->ring_cap : 1024;
	uint64_t *ring, w;

	if (used + n <= s->ring_cap)
		return 0;
	while (cap < used + n)
		cap *= 2;
	ring = malloc(cap * sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (w = s->ring_head; w < s->ring_tail; w++)
		ring[w & (cap - 1)] = s->ring[w & (s->ring_cap - 1)];
	free(s->ring);
	s->ring = ring;
	s->ring_cap = cap;
	return 0;
}

/* A StackWalk_Event's frames into the ring, at *@off. */
static int etwctl_sw_ring_add(struct etwctl_stacks *s, const uint8_t *p,
			      uint32_t n, unsigned int ptr, uint64_t *off)
{
	uint32_t i;

	if (etwctl_sw_ring_room(s, n))
		return -ENOMEM;
	*off = s->ring_tail;
	for (i = 0; i < n; i++)
		s->ring[(s->ring_tail + i) & (s->ring_cap - 1)] =
			etwctl_sw_ptr(p + i * ptr, ptr);
	s->ring_tail += n;
	return 0;
}

/* Frame @i of part @t. */
static uint64_t etwctl_sw_frame(const struct etwctl_stacks *s,
				const struct etwctl_sw_part *t, uint32_t i)
{
	if (t->in_ring)
		return s->ring[(t->off + i) & (s->ring_cap - 1)];
	return s->frames.v[t->off + i];
}

/* A reference's frames: its key's definition's, none without one. */
static void etwctl_sw_key(struct etwctl_stacks *s, struct etwctl_sw_part *t,
			  uint64_t key, uint64_t ref_ts)
{
	const struct etwctl_sw_def *d = etwctl_sw_resolve(s, key, ref_ts);

	s->unresolved += !d;
	t->off = d ? d->off : 0;
	t->nframes = d ? d->nframes : 0;
}

/* A StackWalk_Event or a key reference into the window. */
static int etwctl_sw_add_part(struct etwctl_stacks *s,
			      const struct etw_etl_event *ev, unsigned int ptr)
{
	const uint8_t *p = ev->user_data;
	uint8_t op = ev->descriptor.opcode;
	struct etwctl_sw_part t = { .at = s->nahead - 1,
				    .time = ev->timestamp };

	if (ev->user_data_len < ETWCTL_SW_HEAD ||
	    (op != ETWCTL_SW_STACK &&
	     ev->user_data_len < ETWCTL_SW_HEAD + ptr))
		return 0;
	memcpy(&t.ts, p, sizeof(t.ts));
	memcpy(&t.pid, p + 8, sizeof(t.pid));
	memcpy(&t.tid, p + 12, sizeof(t.tid));
	if (op == ETWCTL_SW_STACK) {
		t.nframes = etwctl_sw_nframes(ev->user_data_len -
					      ETWCTL_SW_HEAD, ptr);
		t.in_ring = true;
		if (etwctl_sw_ring_add(s, p + ETWCTL_SW_HEAD, t.nframes, ptr,
				       &t.off))
			return -ENOMEM;
		/* A walk of user frames only starts below the kernel. */
		t.user = t.nframes && (int64_t)etwctl_sw_frame(s, &t, 0) >= 0;
	} else {
		etwctl_sw_key(s, &t, etwctl_sw_ptr(p + ETWCTL_SW_HEAD, ptr),
			      ev->raw_timestamp);
		t.user = op == ETWCTL_SW_KEY_USER;
	}
	if (etwctl_sw_parts_room(s))
		return -ENOMEM;
	*etwctl_sw_part(s, s->end) = t;
	etwctl_sw_link(s, s->end++);
	return 0;
}

/**
 * etwctl_stacks_want - whether the look-ahead must read on
 * @s: the sealed set
 *
 * Context: any thread.
 * Return: true while it has not read ETWCTL_SW_AHEAD records past the
 * next one to be shown (and has records left).
 */
bool etwctl_stacks_want(const struct etwctl_stacks *s)
{
	return s->nahead <= s->nshown + ETWCTL_SW_AHEAD;
}

/**
 * etwctl_stacks_ahead - the next record the look-ahead read
 * @s: the sealed set
 * @ev: any record, as the pass that shows them reads them; only stack
 *	records (StackWalk_Event, StackKeyKernel, StackKeyUser) are kept
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM.
 */
int etwctl_stacks_ahead(struct etwctl_stacks *s,
			const struct etw_etl_event *ev)
{
	uint8_t op = ev->descriptor.opcode;

	s->nahead++;
	if ((op != ETWCTL_SW_STACK && op != ETWCTL_SW_KEY_KERNEL &&
	     op != ETWCTL_SW_KEY_USER) || !etwctl_stacks_is_stack(ev))
		return 0;
	return etwctl_sw_add_part(s, ev, etwctl_sw_ptr_size(ev));
}

/* The oldest part out of the window, and out of its bucket's head. */
static void etwctl_sw_drop(struct etwctl_stacks *s)
{
	struct etwctl_sw_part *t = etwctl_sw_part(s, s->first);
	struct etwctl_sw_bucket *b = etwctl_sw_bucket(s, t->ts, t->tid);

	b->head = t->next;
	if (t->in_ring)
		s->ring_head = t->off + t->nframes;
	s->first++;
}

/**
 * etwctl_stacks_step - the next record shown
 * @s: the sealed set
 * @ev: the record, the one after the last shown
 *
 * The parts of records of an earlier time leave the window, and those
 * ETWCTL_SW_AHEAD records behind (of a later time only where the records
 * are out of time order).
 *
 * Context: any thread.
 */
void etwctl_stacks_step(struct etwctl_stacks *s,
			const struct etw_etl_event *ev)
{
	const struct etwctl_sw_part *t;

	for (; s->first < s->end; etwctl_sw_drop(s)) {
		t = etwctl_sw_part(s, s->first);
		if (t->time >= ev->timestamp &&
		    t->at + ETWCTL_SW_AHEAD >= s->nshown)
			break;
	}
	s->nshown++;
}

/* The thread an event ran on: SampledProfile's is in its payload. */
static uint32_t etwctl_sw_event_tid(const struct etw_etl_event *ev)
{
	unsigned int ptr = etwctl_sw_ptr_size(ev);
	uint32_t tid;

	if (ev->descriptor.opcode == ETWCTL_PERFINFO_SAMPLE &&
	    ev->user_data_len >= ptr + 4 &&
	    !memcmp(&ev->provider_id, &etwctl_perfinfo_guid,
		    sizeof(etwctl_perfinfo_guid))) {
		memcpy(&tid, (const uint8_t *)ev->user_data + ptr, sizeof(tid));
		return tid;
	}
	return ev->thread_id;
}

/*
 * The frames of the parts of bucket @b naming (@ts, @tid) and of the
 * kind @user after the @n words of the item; the first such part at
 * *@first.  Return: the words the item then takes.
 */
static size_t etwctl_sw_join(struct etwctl_stacks *s,
			     const struct etwctl_sw_bucket *b, uint64_t ts,
			     uint32_t tid, bool user, size_t n,
			     const struct etwctl_sw_part **first)
{
	const struct etwctl_sw_part *t;
	uint64_t k;
	uint32_t i, m;

	for (k = b->head; k != ETWCTL_SW_NONE; k = t->next) {
		t = etwctl_sw_part(s, k);
		if (t->ts != ts || t->tid != tid || t->user != user)
			continue;
		if (!*first)
			*first = t;
		m = t->nframes;
		if (m > 1 + ETWCTL_SW_MAX_FRAMES - n)
			m = (uint32_t)(1 + ETWCTL_SW_MAX_FRAMES - n);
		if (etwctl_grow((void **)&s->item, &s->item_cap, n, m,
				sizeof(*s->item)))
			return 0;
		for (i = 0; i < m; i++)
			s->item[n + i] = etwctl_sw_frame(s, t, i);
		n += m;
	}
	return n;
}

/**
 * etwctl_stacks_find - the stack of the record shown
 * @s: the sealed set
 * @ev: the record last given to etwctl_stacks_step()
 * @out: out: its stack, from the parts in the window that name it
 *	(its raw timestamp and thread): kernel parts before user parts,
 *	each in the order they came
 *
 * Context: any thread.
 * Return: true when a part names @ev; false for stack records
 * themselves, and without memory for the joined frames.
 */
bool etwctl_stacks_find(struct etwctl_stacks *s,
			const struct etw_etl_event *ev,
			struct etwctl_stack *out)
{
	const struct etwctl_sw_part *first = NULL;
	const struct etwctl_sw_bucket *b;
	size_t n;
	uint32_t tid;

	if (s->first == s->end || etwctl_stacks_is_stack(ev))
		return false;
	tid = etwctl_sw_event_tid(ev);
	b = etwctl_sw_bucket(s, ev->raw_timestamp, tid);
	if (b->head == ETWCTL_SW_NONE ||
	    etwctl_grow((void **)&s->item, &s->item_cap, 0, 1,
			sizeof(*s->item)))
		return false;
	s->item[0] = 0;
	n = etwctl_sw_join(s, b, ev->raw_timestamp, tid, false, 1, &first);
	if (n)
		n = etwctl_sw_join(s, b, ev->raw_timestamp, tid, true, n,
				   &first);
	if (!n || !first)
		return false;
	out->item = (const uint8_t *)s->item;
	out->size = (uint16_t)(n * 8);
	out->pid = first->pid;
	out->tid = first->tid;
	return true;
}

/**
 * etwctl_stacks_unresolved - key references without a definition
 * @s: the sealed set
 *
 * Context: any thread.
 * Return: their number among the records the look-ahead read (their
 * part of the stack is left out).
 */
uint64_t etwctl_stacks_unresolved(const struct etwctl_stacks *s)
{
	return s->unresolved;
}
