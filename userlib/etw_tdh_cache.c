// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_cache.c: the TRACE_EVENT_INFO TdhGetEventInformation built,
 * kept per thread so that a schema is built once rather than for every
 * event that has it.
 *
 * Each builder states what its schemas are a function of as a key
 * (struct etw_tdh_cache_key): TraceLogging's the EVENT_SCHEMA_TL and
 * PROV_TRAITS bytes and the pointer size (etw_tdh.c), the kernel
 * logger's the MOF class, event type, frame count and pointer size
 * (etw_tdh_kernel.c), a manifest's the provider, event and the
 * generation of the loaded manifests (etw_tdh_manifest_info.c).  The
 * event's EventDescriptor is put into the copy on every hit.  Entries
 * are keyed by those bytes themselves, compared in full, so two keys
 * that hash alike never share a schema.  The table is two-way
 * set-associative (the set's most recently used entry first, the other
 * evicted by a store) with a fixed number of slots and a size limit per
 * entry: its memory does not grow with the number of events, whatever
 * the trace holds.
 * Being per thread, it needs no lock; a thread's table is freed when
 * the thread exits.  Each entry has a number, unique in the thread,
 * which a caller of etw_tdh_event_schema() keeps what it derives from a
 * schema by.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_tdh.h"

/*
 * A kernel trace has hundreds of schemas: StackWalk_Event's and the
 * stack keys' are one per frame count.  PerfView's trace has 247, which
 * 256 slots kept missing; in 1,024 slots, two to a set, the few that
 * hash to one set no longer take turns.
 */
#define ETW_TDH_CACHE_SLOTS	1024
#define ETW_TDH_CACHE_WAYS	2
/* Larger keys and schemas are rare enough to be built every time. */
#define ETW_TDH_CACHE_MAX_KEY	4096
#define ETW_TDH_CACHE_MAX_TEI	16384

/* @key: the key's two byte strings; @tei follows them; @id: its number */
struct etw_tdh_entry {
	uint64_t hash;
	uint64_t id;
	uint32_t tag;
	uint32_t a_len;
	uint32_t b_len;
	ULONG size;
	BYTE *tei;
	uint8_t key[];
};

/*
 * @next_id: the number of the entry stored next
 * @last: the entry the last look-up found or the last store made, or
 *	NULL (etw_tdh_cache_last())
 */
struct etw_tdh_cache {
	struct etw_tdh_entry *slot[ETW_TDH_CACHE_SLOTS];
	uint64_t next_id;
	const struct etw_tdh_entry *last;
};

static pthread_key_t etw_tdh_cache_key;
static pthread_once_t etw_tdh_cache_once = PTHREAD_ONCE_INIT;
static bool etw_tdh_cache_ok;
/*
 * This thread's table, as the key holds it for its destructor: every
 * event looks its schema up, and pthread_once() and
 * pthread_getspecific() at each look-up cost more than the look-up.
 */
static __thread struct etw_tdh_cache *etw_tdh_tls;

static void etw_tdh_cache_free(void *p)
{
	struct etw_tdh_cache *c = p;
	size_t i;

	for (i = 0; i < ETW_TDH_CACHE_SLOTS; i++)
		free(c->slot[i]);
	free(c);
}

static void etw_tdh_cache_init(void)
{
	etw_tdh_cache_ok = !pthread_key_create(&etw_tdh_cache_key,
					       etw_tdh_cache_free);
}

/* This thread's table, created on first use; NULL without memory. */
static struct etw_tdh_cache *etw_tdh_cache_get(void)
{
	struct etw_tdh_cache *c = etw_tdh_tls;

	if (c)
		return c;
	pthread_once(&etw_tdh_cache_once, etw_tdh_cache_init);
	if (!etw_tdh_cache_ok)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c && pthread_setspecific(etw_tdh_cache_key, c)) {
		free(c);
		c = NULL;
	}
	etw_tdh_tls = c;
	return c;
}

static uint64_t etw_tdh_hash(uint64_t h, const uint8_t *p, size_t n)
{
	uint64_t w;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

static uint64_t etw_tdh_key_hash(const struct etw_tdh_cache_key *k)
{
	uint64_t h = etw_tdh_hash(k->tag, k->a, k->a_len);

	return etw_tdh_hash(h ^ k->a_len, k->b, k->b_len);
}

/* The set @hash belongs to: its ways, the most recently used first. */
static struct etw_tdh_entry **etw_tdh_set(struct etw_tdh_cache *c,
					  uint64_t hash)
{
	return &c->slot[(hash ^ hash >> 32) %
			(ETW_TDH_CACHE_SLOTS / ETW_TDH_CACHE_WAYS) *
			ETW_TDH_CACHE_WAYS];
}

static bool etw_tdh_match(const struct etw_tdh_entry *e,
			  const struct etw_tdh_cache_key *k, uint64_t hash)
{
	return e && e->hash == hash && e->tag == k->tag &&
	       e->a_len == k->a_len && e->b_len == k->b_len &&
	       !memcmp(e->key, k->a, k->a_len) &&
	       (!k->b_len || !memcmp(e->key + k->a_len, k->b, k->b_len));
}

/**
 * etw_tdh_cache_lookup - a schema, if this thread has it cached
 * @k: what the schema is a function of
 * @desc: the event's descriptor, put into the copy
 * @buf: receives the TRACE_EVENT_INFO
 * @cap: bytes at @buf
 * @needed: out: the schema's size
 * @ret: out: ERROR_SUCCESS, or ERROR_INSUFFICIENT_BUFFER when @cap is
 *	less than *@needed (@buf is then left alone)
 *
 * Context: any thread.
 * Return: true when the schema was cached (*@needed and *@ret are set).
 */
bool etw_tdh_cache_lookup(const struct etw_tdh_cache_key *k,
			  const EVENT_DESCRIPTOR *desc, BYTE *buf, ULONG cap,
			  ULONG *needed, ULONG *ret)
{
	struct etw_tdh_cache *c = etw_tdh_cache_get();
	struct etw_tdh_entry *e, **set;
	uint64_t hash;

	if (!c || k->a_len + k->b_len > ETW_TDH_CACHE_MAX_KEY)
		return false;
	hash = etw_tdh_key_hash(k);
	set = etw_tdh_set(c, hash);
	e = set[0];
	if (!etw_tdh_match(e, k, hash)) {
		e = set[1];
		if (!etw_tdh_match(e, k, hash))
			return false;
		/* Now the most recently used. */
		set[1] = set[0];
		set[0] = e;
	}
	c->last = e;
	*needed = e->size;
	if (cap < e->size) {
		*ret = ERROR_INSUFFICIENT_BUFFER;
		return true;
	}
	memcpy(buf, e->tei, e->size);
	((TRACE_EVENT_INFO *)buf)->EventDescriptor = *desc;
	*ret = ERROR_SUCCESS;
	return true;
}

/**
 * etw_tdh_cache_store - remember a schema just built
 * @k: what it is a function of
 * @tei: the TRACE_EVENT_INFO TdhGetEventInformation returns
 * @size: its bytes
 *
 * It becomes its set's most recently used entry; the set's least
 * recently used one is freed.  Without memory nothing is cached.
 *
 * Context: any thread.
 */
void etw_tdh_cache_store(const struct etw_tdh_cache_key *k, const BYTE *tei,
			 ULONG size)
{
	struct etw_tdh_cache *c = etw_tdh_cache_get();
	struct etw_tdh_entry *e, **set;

	if (!c || k->a_len + k->b_len > ETW_TDH_CACHE_MAX_KEY ||
	    size > ETW_TDH_CACHE_MAX_TEI)
		return;
	e = malloc(sizeof(*e) + k->a_len + k->b_len + size);
	if (!e)
		return;
	e->hash = etw_tdh_key_hash(k);
	e->tag = k->tag;
	e->a_len = k->a_len;
	e->b_len = k->b_len;
	e->size = size;
	memcpy(e->key, k->a, k->a_len);
	if (k->b_len)
		memcpy(e->key + k->a_len, k->b, k->b_len);
	e->tei = e->key + k->a_len + k->b_len;
	memcpy(e->tei, tei, size);
	e->id = ++c->next_id;
	set = etw_tdh_set(c, e->hash);
	free(set[1]);
	set[1] = set[0];
	set[0] = e;
	c->last = e;
}

/**
 * etw_tdh_cache_last - the entry the last look-up found or store made
 * @tei: out: its TRACE_EVENT_INFO, as it was built (with the descriptor
 *	of the event it was built for); valid until the next store
 * @size: out: its bytes
 *
 * Each call forgets it: the next says only what happened since.
 *
 * Context: any thread.
 * Return: the entry's number, or 0 when neither happened.
 */
uint64_t etw_tdh_cache_last(const BYTE **tei, ULONG *size)
{
	struct etw_tdh_cache *c = etw_tdh_cache_get();
	const struct etw_tdh_entry *e = c ? c->last : NULL;

	if (!e)
		return 0;
	c->last = NULL;
	*tei = e->tei;
	*size = e->size;
	return e->id;
}
