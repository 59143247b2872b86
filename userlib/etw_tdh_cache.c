// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_cache.c: the TRACE_EVENT_INFO of TraceLogging events, kept
 * per thread so that TdhGetEventInformation parses a metadata blob once
 * rather than for every event that carries it.
 *
 * A TraceLogging schema is a function of the event's EVENT_SCHEMA_TL
 * bytes, its provider-traits bytes (the provider name) and the pointer
 * size; of the header only ProviderGuid and EventDescriptor are copied
 * in, and they are patched into the cached copy on every hit.  Entries
 * are keyed by those bytes themselves, compared in full, so two blobs
 * that hash alike never share a schema.  The table is direct-mapped
 * with a fixed number of slots and a size limit per entry: its memory
 * does not grow with the number of events, whatever the trace holds.
 * Being per thread, it needs no lock; a thread's table is freed when
 * the thread exits.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_tdh.h"

#define ETW_TDH_CACHE_SLOTS	64
/* Larger metadata is rare enough to be parsed every time. */
#define ETW_TDH_CACHE_MAX_KEY	4096

/*
 * @key: the metadata bytes, then the traits bytes; @tei follows them
 * @has_traits: the event had a traits item (an empty one differs)
 */
struct etw_tdh_entry {
	uint64_t hash;
	uint32_t meta_len;
	uint32_t traits_len;
	bool has_traits;
	ULONG ptr_size;
	ULONG size;
	BYTE *tei;
	uint8_t key[];
};

struct etw_tdh_cache {
	struct etw_tdh_entry *slot[ETW_TDH_CACHE_SLOTS];
};

/* What identifies a schema: the two items' bytes and the pointer size. */
struct etw_tdh_key {
	const uint8_t *meta;
	uint32_t meta_len;
	const uint8_t *traits;
	uint32_t traits_len;
	bool has_traits;
	ULONG ptr_size;
	uint64_t hash;
};

static pthread_key_t etw_tdh_cache_key;
static pthread_once_t etw_tdh_cache_once = PTHREAD_ONCE_INIT;
static bool etw_tdh_cache_ok;

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
	struct etw_tdh_cache *c;

	pthread_once(&etw_tdh_cache_once, etw_tdh_cache_init);
	if (!etw_tdh_cache_ok)
		return NULL;
	c = pthread_getspecific(etw_tdh_cache_key);
	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (c && pthread_setspecific(etw_tdh_cache_key, c)) {
		free(c);
		c = NULL;
	}
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

/* The key of @ev's schema; false when it is not to be cached. */
static bool etw_tdh_key(const EVENT_RECORD *ev, ULONG ptr_size,
			struct etw_tdh_key *k)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *m =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
	const EVENT_HEADER_EXTENDED_DATA_ITEM *t =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_PROV_TRAITS);

	if (!m)
		return false;
	k->meta = (const uint8_t *)(uintptr_t)m->DataPtr;
	k->meta_len = m->DataSize;
	k->has_traits = t;
	k->traits = t ? (const uint8_t *)(uintptr_t)t->DataPtr : NULL;
	k->traits_len = t ? t->DataSize : 0;
	k->ptr_size = ptr_size;
	if (k->meta_len + k->traits_len > ETW_TDH_CACHE_MAX_KEY)
		return false;
	k->hash = etw_tdh_hash(ptr_size | (uint64_t)k->has_traits << 8,
			       k->meta, k->meta_len);
	k->hash = etw_tdh_hash(k->hash ^ k->meta_len, k->traits,
			       k->traits_len);
	return true;
}

static struct etw_tdh_entry **etw_tdh_slot(struct etw_tdh_cache *c,
					   const struct etw_tdh_key *k)
{
	return &c->slot[(k->hash ^ k->hash >> 32) % ETW_TDH_CACHE_SLOTS];
}

static bool etw_tdh_match(const struct etw_tdh_entry *e,
			  const struct etw_tdh_key *k)
{
	return e && e->hash == k->hash && e->meta_len == k->meta_len &&
	       e->traits_len == k->traits_len &&
	       e->has_traits == k->has_traits && e->ptr_size == k->ptr_size &&
	       !memcmp(e->key, k->meta, k->meta_len) &&
	       (!k->traits_len ||
		!memcmp(e->key + k->meta_len, k->traits, k->traits_len));
}

/**
 * etw_tdh_cache_lookup - a TraceLogging event's schema, if cached
 * @ev: the event
 * @ptr_size: the pointer size the schema is laid out for
 * @buf: receives the TRACE_EVENT_INFO
 * @cap: bytes at @buf
 * @needed: out: the schema's size
 * @ret: out: ERROR_SUCCESS, or ERROR_INSUFFICIENT_BUFFER when @cap is
 *	less than *@needed (@buf is then left alone)
 *
 * Context: any thread.
 * Return: true when the schema was cached (*@needed and *@ret are set).
 */
bool etw_tdh_cache_lookup(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			  ULONG cap, ULONG *needed, ULONG *ret)
{
	struct etw_tdh_cache *c = etw_tdh_cache_get();
	struct etw_tdh_entry *e;
	TRACE_EVENT_INFO *tei;
	struct etw_tdh_key k;

	if (!c || !etw_tdh_key(ev, ptr_size, &k))
		return false;
	e = *etw_tdh_slot(c, &k);
	if (!etw_tdh_match(e, &k))
		return false;
	*needed = e->size;
	if (cap < e->size) {
		*ret = ERROR_INSUFFICIENT_BUFFER;
		return true;
	}
	memcpy(buf, e->tei, e->size);
	tei = (TRACE_EVENT_INFO *)buf;
	tei->ProviderGuid = ev->EventHeader.ProviderId;
	tei->EventDescriptor = ev->EventHeader.EventDescriptor;
	*ret = ERROR_SUCCESS;
	return true;
}

/**
 * etw_tdh_cache_store - remember the schema just built for @ev
 * @ev: the event
 * @ptr_size: the pointer size it was laid out for
 * @tei: the TRACE_EVENT_INFO TdhGetEventInformation returned
 * @size: its bytes
 *
 * Replaces what the slot held.  Without memory nothing is cached.
 *
 * Context: any thread.
 */
void etw_tdh_cache_store(const EVENT_RECORD *ev, ULONG ptr_size,
			 const BYTE *tei, ULONG size)
{
	struct etw_tdh_cache *c = etw_tdh_cache_get();
	struct etw_tdh_entry *e, **slot;
	struct etw_tdh_key k;

	if (!c || !etw_tdh_key(ev, ptr_size, &k))
		return;
	e = malloc(sizeof(*e) + k.meta_len + k.traits_len + size);
	if (!e)
		return;
	e->hash = k.hash;
	e->meta_len = k.meta_len;
	e->traits_len = k.traits_len;
	e->has_traits = k.has_traits;
	e->ptr_size = ptr_size;
	e->size = size;
	memcpy(e->key, k.meta, k.meta_len);
	if (k.traits_len)
		memcpy(e->key + k.meta_len, k.traits, k.traits_len);
	e->tei = e->key + k.meta_len + k.traits_len;
	memcpy(e->tei, tei, size);
	slot = etw_tdh_slot(c, &k);
	free(*slot);
	*slot = e;
}
