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
 * etwctl_stacks_record() takes every stack record of the trace, in any
 * order; etwctl_stacks_seal() resolves the references and builds, per
 * event, the STACK_TRACE64 item dump prints; etwctl_stacks_find() looks
 * one up by timestamp and thread.  Memory: each distinct run of frames
 * once (the records' and the joined items': a trace repeats its stacks),
 * and a small entry per part and per event.
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

/*
 * One part of an event's stack: @nframes frames at @off in the frame
 * pool, or (@key set) the frames of key @key's definition, found when
 * sealed.  @seq keeps the parts of one event in the order they came.
 */
struct etwctl_sw_part {
	uint64_t ts;
	uint64_t ref_ts;
	uint64_t key;
	size_t off;
	uint32_t nframes;
	uint32_t tid;
	uint32_t pid;
	uint32_t seq;
	bool user;
	bool is_key;
};

/* A key's frames, from a definition record at @ts. */
struct etwctl_sw_def {
	uint64_t key;
	uint64_t ts;
	size_t off;
	uint32_t nframes;
	bool create;
};

/* An event's stack: its item at @off in the item pool. */
struct etwctl_sw_entry {
	uint64_t ts;
	uint32_t tid;
	uint32_t pid;
	size_t off;
	uint16_t size;
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
 * @frames: the frames the records hold, as 64-bit addresses
 * @items: the entries' STACK_TRACE64 items, once sealed, as words
 * @unresolved: references whose key has no definition
 */
struct etwctl_stacks {
	struct etwctl_sw_pool frames;
	struct etwctl_sw_part *parts;
	size_t nparts, parts_cap;
	struct etwctl_sw_def *defs;
	size_t ndefs, defs_cap;
	struct etwctl_sw_entry *entries;
	size_t nentries;
	struct etwctl_sw_pool items;
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

static void etwctl_sw_pool_free(struct etwctl_sw_pool *p)
{
	free(p->v);
	free(p->slots);
	memset(p, 0, sizeof(*p));
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
	etwctl_sw_pool_free(&s->frames);
	free(s->parts);
	free(s->defs);
	free(s->entries);
	etwctl_sw_pool_free(&s->items);
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

/* The whole pointers at @p (@len bytes) into the pool; their offset. */
static int etwctl_sw_frames(struct etwctl_stacks *s, const uint8_t *p,
			    uint32_t len, unsigned int ptr, size_t *off,
			    uint32_t *n)
{
	uint64_t *v;
	uint32_t i;

	*n = len / ptr;
	if (*n > ETWCTL_SW_MAX_FRAMES)
		*n = ETWCTL_SW_MAX_FRAMES;
	v = etwctl_sw_tail(&s->frames, *n);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < *n; i++)
		v[i] = etwctl_sw_ptr(p + i * ptr, ptr);
	return etwctl_sw_intern(&s->frames, *n, off);
}

static int etwctl_sw_add_def(struct etwctl_stacks *s,
			     const struct etw_etl_event *ev, unsigned int ptr)
{
	const uint8_t *p = ev->user_data;
	struct etwctl_sw_def d = { 0 };

	if (ev->user_data_len < ptr)
		return 0;
	d.key = etwctl_sw_ptr(p, ptr);
	d.ts = ev->raw_timestamp;
	d.create = ev->descriptor.opcode == ETWCTL_SW_KEY_CREATE;
	if (etwctl_sw_frames(s, p + ptr, ev->user_data_len - ptr, ptr, &d.off,
			     &d.nframes) ||
	    etwctl_grow((void **)&s->defs, &s->defs_cap, s->ndefs, 1,
			sizeof(d)))
		return -ENOMEM;
	s->defs[s->ndefs++] = d;
	return 0;
}

static int etwctl_sw_add_part(struct etwctl_stacks *s,
			      const struct etw_etl_event *ev, unsigned int ptr)
{
	const uint8_t *p = ev->user_data;
	struct etwctl_sw_part t = { 0 };
	uint8_t op = ev->descriptor.opcode;

	if (ev->user_data_len < ETWCTL_SW_HEAD)
		return 0;
	memcpy(&t.ts, p, sizeof(t.ts));
	memcpy(&t.pid, p + 8, sizeof(t.pid));
	memcpy(&t.tid, p + 12, sizeof(t.tid));
	t.ref_ts = ev->raw_timestamp;
	t.seq = (uint32_t)s->nparts;
	if (op == ETWCTL_SW_STACK) {
		if (etwctl_sw_frames(s, p + ETWCTL_SW_HEAD,
				     ev->user_data_len - ETWCTL_SW_HEAD, ptr,
				     &t.off, &t.nframes))
			return -ENOMEM;
		/* A walk of user frames only starts below the kernel. */
		t.user = t.nframes && (int64_t)s->frames.v[t.off] >= 0;
	} else {
		if (ev->user_data_len < ETWCTL_SW_HEAD + ptr)
			return 0;
		t.is_key = true;
		t.key = etwctl_sw_ptr(p + ETWCTL_SW_HEAD, ptr);
		t.user = op == ETWCTL_SW_KEY_USER;
	}
	if (etwctl_grow((void **)&s->parts, &s->parts_cap, s->nparts, 1,
			sizeof(t)))
		return -ENOMEM;
	s->parts[s->nparts++] = t;
	return 0;
}

/**
 * etwctl_stacks_record - takes a stack record into the set
 * @s: the set, not yet sealed
 * @ev: any event; other events are passed over
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM.
 */
int etwctl_stacks_record(struct etwctl_stacks *s,
			 const struct etw_etl_event *ev)
{
	unsigned int ptr = etwctl_sw_ptr_size(ev);

	if (!etwctl_stacks_is_stack(ev))
		return 0;
	switch (ev->descriptor.opcode) {
	case ETWCTL_SW_KEY_CREATE:
	case ETWCTL_SW_KEY_DELETE:
	case ETWCTL_SW_KEY_RUNDOWN:
		return etwctl_sw_add_def(s, ev, ptr);
	case ETWCTL_SW_STACK:
	case ETWCTL_SW_KEY_KERNEL:
	case ETWCTL_SW_KEY_USER:
		return etwctl_sw_add_part(s, ev, ptr);
	}
	return 0;
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

/* By event, then kernel parts before user parts, then as they came. */
static int etwctl_sw_part_cmp(const void *a, const void *b)
{
	const struct etwctl_sw_part *x = a, *y = b;

	return etwctl_sw_cmp_u64(x->ts, y->ts) ?:
	       etwctl_sw_cmp_u64(x->tid, y->tid) ?:
	       etwctl_sw_cmp_u64(x->user, y->user) ?:
	       etwctl_sw_cmp_u64(x->seq, y->seq);
}

/* The definition that holds the frames of key reference @t, or NULL. */
static const struct etwctl_sw_def *
etwctl_sw_resolve(const struct etwctl_stacks *s,
		  const struct etwctl_sw_part *t)
{
	const struct etwctl_sw_def *create = NULL, *d;
	size_t lo = 0, hi = s->ndefs, mid;

	/* The first definition of the key. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->defs[mid].key < t->key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (d = s->defs + lo; d < s->defs + s->ndefs && d->key == t->key;
	     d++) {
		if (d->create && d->ts <= t->ref_ts)
			create = d;
		else if (!d->create && d->ts >= t->ref_ts)
			return create ?: d;
	}
	return create;
}

/* Each key reference's frames, from its definition (none when it has none). */
static void etwctl_sw_resolve_all(struct etwctl_stacks *s)
{
	const struct etwctl_sw_def *d;
	struct etwctl_sw_part *t;
	size_t i;

	for (i = 0; i < s->nparts; i++) {
		t = &s->parts[i];
		if (t->is_key) {
			d = etwctl_sw_resolve(s, t);
			s->unresolved += !d;
			t->off = d ? d->off : 0;
			t->nframes = d ? d->nframes : 0;
			t->is_key = false;
		}
	}
}

/*
 * The item of the event whose parts start at @i, at the items' tail:
 * MatchId 0, then the parts' frames.  Return: the words it takes, or 0
 * without memory; *@end: the part past the event's.
 */
static size_t etwctl_sw_item(struct etwctl_stacks *s, size_t i, size_t *end)
{
	const struct etwctl_sw_part *t = &s->parts[i];
	uint32_t n, total = 0;
	size_t j, words = 1;
	uint64_t *q;

	for (j = i; j < s->nparts && s->parts[j].ts == t->ts &&
		    s->parts[j].tid == t->tid; j++)
		words += s->parts[j].nframes;
	*end = j;
	q = etwctl_sw_tail(&s->items, words);
	if (!q)
		return 0;
	q[0] = 0;
	for (j = i; j < *end; j++) {
		n = s->parts[j].nframes;
		if (n > ETWCTL_SW_MAX_FRAMES - total)
			n = ETWCTL_SW_MAX_FRAMES - total;
		if (n)
			memcpy(q + 1 + total, s->frames.v + s->parts[j].off,
			       n * 8ull);
		total += n;
	}
	return 1 + total;
}

/*
 * The entries' items: each event's parts, joined; events of the same
 * stack share one.  The records' frames, parts and definitions are not
 * needed after.
 */
static int etwctl_sw_build(struct etwctl_stacks *s)
{
	struct etwctl_sw_entry *e;
	size_t i = 0, j, words;

	etwctl_sw_resolve_all(s);
	s->entries = calloc(s->nparts ?: 1, sizeof(*s->entries));
	if (!s->entries)
		return -ENOMEM;
	while (i < s->nparts) {
		e = &s->entries[s->nentries++];
		e->ts = s->parts[i].ts;
		e->tid = s->parts[i].tid;
		e->pid = s->parts[i].pid;
		words = etwctl_sw_item(s, i, &j);
		if (!words || etwctl_sw_intern(&s->items, words, &e->off))
			return -ENOMEM;
		e->size = (uint16_t)(words * 8);
		i = j;
	}
	etwctl_sw_pool_free(&s->frames);
	free(s->parts);
	s->parts = NULL;
	s->nparts = 0;
	s->parts_cap = 0;
	free(s->defs);
	s->defs = NULL;
	s->ndefs = 0;
	s->defs_cap = 0;
	return 0;
}

/**
 * etwctl_stacks_seal - joins the parts of each event's stack
 * @s: the set, every stack record of the trace taken
 *
 * Context: any thread.
 * Return: 0, or -ENOMEM; after it only etwctl_stacks_find() and
 * etwctl_stacks_unresolved() may be called.
 */
int etwctl_stacks_seal(struct etwctl_stacks *s)
{
	qsort(s->defs, s->ndefs, sizeof(*s->defs), etwctl_sw_def_cmp);
	qsort(s->parts, s->nparts, sizeof(*s->parts), etwctl_sw_part_cmp);
	return etwctl_sw_build(s);
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

/**
 * etwctl_stacks_find - the stack of an event
 * @s: the sealed set
 * @ev: the event
 * @out: out: its stack
 *
 * Context: any thread.
 * Return: true when a stack record names @ev (its raw timestamp and
 * thread); false for stack records themselves.
 */
bool etwctl_stacks_find(const struct etwctl_stacks *s,
			const struct etw_etl_event *ev,
			struct etwctl_stack *out)
{
	size_t lo = 0, hi = s->nentries, mid;
	const struct etwctl_sw_entry *e;
	uint32_t tid;

	if (!s->nentries || etwctl_stacks_is_stack(ev))
		return false;
	tid = etwctl_sw_event_tid(ev);
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = &s->entries[mid];
		if (e->ts < ev->raw_timestamp ||
		    (e->ts == ev->raw_timestamp && e->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nentries)
		return false;
	e = &s->entries[lo];
	if (e->ts != ev->raw_timestamp || e->tid != tid)
		return false;
	out->item = (const uint8_t *)(s->items.v + e->off);
	out->size = e->size;
	out->pid = e->pid;
	out->tid = e->tid;
	return true;
}

/**
 * etwctl_stacks_unresolved - key references without a definition
 * @s: the sealed set
 *
 * Context: any thread.
 * Return: their number (their part of the stack is left out).
 */
uint64_t etwctl_stacks_unresolved(const struct etwctl_stacks *s)
{
	return s->unresolved;
}
