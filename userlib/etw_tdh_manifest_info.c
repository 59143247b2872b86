// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_manifest_info.c: the process-wide list of loaded instrumentation
 * manifests (TdhLoadManifest, TdhLoadManifestFromMemory,
 * TdhLoadManifestFromBinary and the Unload functions), and what TDH serves
 * from them: an event's TRACE_EVENT_INFO
 * (TdhGetEventInformation, TdhGetManifestEventInformation) and its maps
 * (TdhGetEventMapInformation).
 *
 * As on Windows, loaded manifests are global to the process.  A rwlock
 * guards the list: decoders read it concurrently, and a manifest is freed
 * only once unlinked under the write lock, so no decoder sees it freed.
 * The newest manifest wins when two describe the same provider, and any
 * loaded one wins over those found on the manifest path (etw_tdh_path.c),
 * which no unload removes.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"
#include "etw_tdh.h"
#include "etw_tdh_manifest.h"

static pthread_rwlock_t etw_mf_lock = PTHREAD_RWLOCK_INITIALIZER;
/* Protected by etw_mf_lock. */
static struct etw_manifest *etw_mf_loaded;
/*
 * Bumped with every change of etw_mf_loaded, protected by etw_mf_lock:
 * part of the key of the schemas built from it, so that a thread's
 * cache never answers with a manifest since unloaded or superseded.
 */
static uint64_t etw_mf_generation;

/* @w (NUL-terminated, under MAX_PATH units) as UTF-8; NULL when not. */
static char *etw_mf_path(const WCHAR *w, ULONG *err)
{
	size_t n = 0;
	char *s;

	*err = ERROR_INVALID_PARAMETER;
	if (!w)
		return NULL;
	while (w[n] && n < MAX_PATH)
		n++;
	if (!n || n >= MAX_PATH)
		return NULL;
	s = etw_etl_utf16_to_utf8((const uint8_t *)w, n);
	*err = s ? ERROR_SUCCESS : ERROR_OUTOFMEMORY;
	return s;
}

/* The canonical name of @path when it exists, so ./a and a are one. */
static char *etw_mf_canon(char *path)
{
	char *real = realpath(path, NULL);

	if (!real)
		return path;
	free(path);
	return real;
}

static bool etw_mf_same(const struct etw_manifest *m, const char *path,
			const void *blob, size_t len)
{
	if (path)
		return m->path && !strcmp(m->path, path);
	return m->blob && m->blob_len == len && !memcmp(m->blob, blob, len);
}

/* Publishes @m (its path or blob set); a second load of one is a no-op. */
static void etw_mf_publish(struct etw_manifest *m)
{
	struct etw_manifest *it;

	pthread_rwlock_wrlock(&etw_mf_lock);
	for (it = etw_mf_loaded; it; it = it->next)
		if (etw_mf_same(it, m->path, m->blob, m->blob_len))
			break;
	if (!it) {
		m->next = etw_mf_loaded;
		etw_mf_loaded = m;
		etw_mf_generation++;
	}
	pthread_rwlock_unlock(&etw_mf_lock);
	if (it)
		etw_manifest_free(m);
}

/* Parses and publishes a manifest, a parse error reported to @err. */
static ULONG etw_mf_load(char *path, const void *blob, size_t len,
			 FILE *err)
{
	struct etw_manifest *m;
	ULONG ret = etw_manifest_parse(path, blob, len, err, &m);

	if (ret) {
		free(path);
		return ret;
	}
	m->path = path;
	if (!path) {
		m->blob = malloc(len);
		if (!m->blob) {
			etw_manifest_free(m);
			return ERROR_OUTOFMEMORY;
		}
		memcpy(m->blob, blob, len);
		m->blob_len = len;
	}
	etw_mf_publish(m);
	return ERROR_SUCCESS;
}

static ULONG etw_mf_unload(const char *path, const void *blob, size_t len)
{
	struct etw_manifest **pp, *m = NULL;

	pthread_rwlock_wrlock(&etw_mf_lock);
	for (pp = &etw_mf_loaded; *pp; pp = &(*pp)->next)
		if (etw_mf_same(*pp, path, blob, len)) {
			m = *pp;
			*pp = m->next;
			etw_mf_generation++;
			break;
		}
	pthread_rwlock_unlock(&etw_mf_lock);
	etw_manifest_free(m);
	return m ? ERROR_SUCCESS : ERROR_FILE_NOT_FOUND;
}

/**
 * TdhLoadManifest - loads an instrumentation manifest for decoding
 * @Manifest: the manifest file's path (UTF-16, under MAX_PATH characters)
 *
 * Its providers' events are then decoded by TdhGetEventInformation and
 * the other TDH functions, in every thread, until TdhUnloadManifest.
 * Loading the same file again changes nothing.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER for a NULL or empty
 * @Manifest or one of MAX_PATH characters or more; ERROR_FILE_NOT_FOUND
 * when the file does not exist; ERROR_XML_PARSE_ERROR for a file that is
 * not a valid manifest (nothing is loaded; "libetw: FILE:LINE: what" is
 * written to stderr); ERROR_OUTOFMEMORY.
 */
TDHSTATUS WINAPI TdhLoadManifest(PWSTR Manifest)
{
	return etw_tdh_load_manifest(Manifest, stderr);
}

/**
 * etw_tdh_load_manifest() - TdhLoadManifest, reporting to @err
 * @path: as TdhLoadManifest's @Manifest
 * @err: where "libetw: FILE:LINE: what" goes for a bad manifest (etwctl
 *	prints it as its own message), or NULL for nowhere
 *
 * Context: any thread.
 * Return: as TdhLoadManifest.
 */
ULONG etw_tdh_load_manifest(PWSTR path, FILE *err)
{
	ULONG ret;
	char *utf8 = etw_mf_path(path, &ret);

	if (!utf8)
		return ret;
	return etw_mf_load(etw_mf_canon(utf8), NULL, 0, err);
}

/**
 * TdhLoadManifestFromMemory - loads a manifest's XML from memory
 * @pData: the XML
 * @cbData: its size in bytes
 *
 * Like TdhLoadManifest; libetw keeps a copy of the bytes, which
 * TdhUnloadManifestFromMemory matches.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER for a NULL @pData or a
 * zero @cbData; ERROR_XML_PARSE_ERROR (stderr names "(memory)" and the
 * line); ERROR_OUTOFMEMORY.
 */
TDHSTATUS WINAPI TdhLoadManifestFromMemory(LPCVOID pData, ULONG cbData)
{
	if (!pData || !cbData)
		return ERROR_INVALID_PARAMETER;
	return etw_mf_load(NULL, pData, cbData, stderr);
}

/**
 * TdhLoadManifestFromBinary - loads the manifest compiled into a PE file
 * @BinaryPath: the file's path (UTF-16, under MAX_PATH characters)
 *
 * Reads the WEVT_TEMPLATE resource (etw_tdh_wevt.c), with the texts of
 * the file's MESSAGETABLE, and serves its providers as TdhLoadManifest
 * serves an XML manifest's, in every thread: until TdhUnloadManifest of
 * the same path, which Windows has not (its documentation caches the
 * binary for the process).  Loading the same file again changes nothing.
 *
 * Context: any thread.
 * Return: as Microsoft documents it: ERROR_SUCCESS;
 * ERROR_INVALID_PARAMETER as for TdhLoadManifest; ERROR_FILE_NOT_FOUND;
 * ERROR_NOT_ENOUGH_MEMORY (also for a file over 256 MiB);
 * ERROR_RESOURCE_NOT_FOUND (5007, the code of that name in winerror.h)
 * for a PE file without WEVT_TEMPLATE.  What Microsoft does not document:
 * ERROR_ACCESS_DENIED for a file that cannot be read or is not regular;
 * ERROR_BAD_EXE_FORMAT for no PE file or a bad PE structure;
 * ERROR_FILE_CORRUPT for a bad manifest or message table.  Nothing is
 * loaded on error.
 */
TDHSTATUS WINAPI TdhLoadManifestFromBinary(PWSTR BinaryPath)
{
	struct etw_manifest *m;
	ULONG ret;
	char *path = etw_mf_path(BinaryPath, &ret);

	if (!path)
		return ret == ERROR_OUTOFMEMORY ? ERROR_NOT_ENOUGH_MEMORY : ret;
	path = etw_mf_canon(path);
	ret = etw_wevt_load(path, &m);
	if (ret) {
		free(path);
		return ret;
	}
	m->path = path;
	etw_mf_publish(m);
	return ERROR_SUCCESS;
}

/**
 * TdhUnloadManifest - unloads a manifest TdhLoadManifest loaded
 * @Manifest: the path given to TdhLoadManifest (or another for the file),
 *	or to TdhLoadManifestFromBinary
 *
 * TRACE_EVENT_INFOs already returned stay valid (they are copies); later
 * calls no longer find the manifest's events.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER as for TdhLoadManifest;
 * ERROR_FILE_NOT_FOUND when no such manifest is loaded; ERROR_OUTOFMEMORY.
 */
TDHSTATUS WINAPI TdhUnloadManifest(PWSTR Manifest)
{
	ULONG ret;
	char *path = etw_mf_path(Manifest, &ret);

	if (!path)
		return ret;
	path = etw_mf_canon(path);
	ret = etw_mf_unload(path, NULL, 0);
	free(path);
	return ret;
}

/**
 * TdhUnloadManifestFromMemory - unloads a manifest loaded from memory
 * @pData: the same bytes as given to TdhLoadManifestFromMemory
 * @cbData: their size
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER for a NULL @pData or a
 * zero @cbData; ERROR_FILE_NOT_FOUND when no such manifest is loaded.
 */
TDHSTATUS WINAPI TdhUnloadManifestFromMemory(LPCVOID pData, ULONG cbData)
{
	if (!pData || !cbData)
		return ERROR_INVALID_PARAMETER;
	return etw_mf_unload(NULL, pData, cbData);
}

/**
 * etw_manifest_read_lock - holds the loaded manifests still for reading
 *
 * Context: any thread; not recursive with TDH calls of the same thread
 * that take the write lock (TdhLoadManifest, TdhUnloadManifest).
 */
void etw_manifest_read_lock(void)
{
	pthread_rwlock_rdlock(&etw_mf_lock);
}

/**
 * etw_manifest_read_unlock - releases etw_manifest_read_lock()
 */
void etw_manifest_read_unlock(void)
{
	pthread_rwlock_unlock(&etw_mf_lock);
}

static const struct etw_mf_provider *
etw_mf_provider_in(const struct etw_manifest *m, const GUID *guid)
{
	uint32_t i;

	for (; m; m = m->next)
		for (i = 0; i < m->nprov; i++)
			if (!memcmp(&m->prov[i].guid, guid, sizeof(*guid)))
				return &m->prov[i];
	return NULL;
}

/**
 * etw_mf_provider_of - the manifest provider TDH decodes @guid with
 * @guid: the provider
 *
 * The newest loaded one, else the first found on the manifest path (which
 * is read on the first call).
 *
 * Context: the caller holds etw_manifest_read_lock().
 * Return: the provider, or NULL when no manifest describes it.
 */
const struct etw_mf_provider *etw_mf_provider_of(const GUID *guid)
{
	const struct etw_mf_provider *p = etw_mf_provider_in(etw_mf_loaded,
							     guid);

	return p ? p : etw_mf_provider_in(etw_manifest_found(), guid);
}

/**
 * etw_manifest_for_each - calls @fn for every provider TDH can decode
 * @fn: called with each provider and @arg
 * @arg: for @fn
 *
 * Each GUID once, with the provider etw_mf_provider_of() gives: loaded
 * manifests newest first, then those found on the manifest path in order.
 *
 * Context: the caller holds etw_manifest_read_lock().
 */
void etw_manifest_for_each(void (*fn)(const struct etw_mf_provider *p,
				      void *arg), void *arg)
{
	const struct etw_manifest *m;
	uint32_t i;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (m = pass ? etw_manifest_found() : etw_mf_loaded; m;
		     m = m->next)
			for (i = 0; i < m->nprov; i++)
				if (etw_mf_provider_of(&m->prov[i].guid) ==
				    &m->prov[i])
					fn(&m->prov[i], arg);
}

/**
 * etw_mf_put - appends a string to a TDH output buffer
 * @o: the buffer; @o->off is where the string goes, and moves past it
 * @s: the string (UTF-8), or NULL
 *
 * Writes @s as NUL-terminated UTF-16 when it fits below @o->cap; counts
 * its size either way, so @o->off ends as the size needed.
 *
 * Return: the string's offset, 0 for a NULL @s.
 */
ULONG etw_mf_put(struct etw_mf_out *o, const char *s)
{
	ULONG at = o->off;
	size_t room = o->buf && at < o->cap ? (o->cap - at) / 2 : 0;
	BYTE *p = room ? o->buf + at : NULL;
	size_t n;

	if (!s)
		return 0;
	n = etw_etl_utf8_to_utf16(s, p, room);
	if (n < room) {
		p[2 * n] = 0;
		p[2 * n + 1] = 0;
	}
	o->off += 2 * (n + 1);
	return at;
}

/*
 * The names of the keywords in @mask, each NUL-terminated, then a NUL:
 * the provider's, then winmeta.xml's for bits none of those covers.
 */
static ULONG etw_mf_put_keywords(struct etw_mf_out *o,
				 const struct etw_mf_provider *p,
				 uint64_t mask)
{
	const struct etw_mf_item *w;
	uint64_t named = 0, bit;
	ULONG at = 0, off;
	uint32_t i;

	for (i = 0; i < p->keywords.n; i++) {
		if (!p->keywords.v[i].value ||
		    (p->keywords.v[i].value & mask) != p->keywords.v[i].value)
			continue;
		named |= p->keywords.v[i].value;
		off = etw_mf_put(o, p->keywords.v[i].text);
		if (!at)
			at = off;
	}
	for (i = 0; i < 64; i++) {
		bit = 1ULL << i;
		w = (mask & bit) && !(named & bit) ?
		    etw_mf_winmeta_keyword(bit) : NULL;
		if (!w)
			continue;
		off = etw_mf_put(o, w->text);
		if (!at)
			at = off;
	}
	if (at)
		etw_mf_put(o, "");
	return at;
}

static void etw_mf_put_props(struct etw_mf_out *o,
			     const struct etw_mf_template *t, ULONG ptr_size)
{
	EVENT_PROPERTY_INFO epi;
	uint32_t i;

	for (i = 0; t && i < t->n; i++) {
		epi = t->p[i].epi;
		epi.NameOffset = etw_mf_put(o, t->p[i].name);
		if (!(epi.Flags & PropertyStruct)) {
			epi.nonStructType.MapNameOffset =
				t->p[i].map ? etw_mf_put(o, t->p[i].map->name) :
					      0;
			if (!(epi.Flags & (PropertyParamLength |
					   PropertyParamFixedLength)))
				epi.length = (USHORT)etw_tdh_fixed_size(
					epi.nonStructType.InType, ptr_size);
		}
		if (o->off <= o->cap)
			memcpy(o->buf + offsetof(TRACE_EVENT_INFO,
						 EventPropertyInfoArray) +
			       i * sizeof(epi), &epi, sizeof(epi));
	}
}

static void etw_mf_emit(const struct etw_mf_provider *p,
			const struct etw_mf_event *e,
			const EVENT_DESCRIPTOR *desc, ULONG ptr_size,
			struct etw_mf_out *o)
{
	uint32_t np = e->tmpl ? e->tmpl->n : 0;
	TRACE_EVENT_INFO tei;

	o->off = offsetof(TRACE_EVENT_INFO, EventPropertyInfoArray) +
		 np * sizeof(EVENT_PROPERTY_INFO);
	memset(&tei, 0, sizeof(tei));
	tei.ProviderGuid = p->guid;
	tei.EventDescriptor = *desc;
	tei.DecodingSource = DecodingSourceXMLFile;
	tei.PropertyCount = np;
	tei.TopLevelPropertyCount = e->tmpl ? e->tmpl->top : 0;
	tei.ProviderNameOffset = etw_mf_put(o, p->name);
	tei.LevelNameOffset = etw_mf_put(o, e->level ? e->level->text : NULL);
	tei.ChannelNameOffset = etw_mf_put(o, e->channel ? e->channel->text :
						NULL);
	tei.KeywordsNameOffset = etw_mf_put_keywords(o, p, e->desc.Keyword);
	tei.TaskNameOffset = etw_mf_put(o, e->task ? e->task->text : NULL);
	tei.OpcodeNameOffset = etw_mf_put(o, e->opcode ? e->opcode->text :
					       NULL);
	tei.EventMessageOffset = etw_mf_put(o, e->message);
	tei.ProviderMessageOffset = etw_mf_put(o, p->message);
	tei.EventNameOffset = etw_mf_put(o, e->name);
	etw_mf_put_props(o, e->tmpl, ptr_size);
	if (o->off <= o->cap)
		memcpy(o->buf, &tei, offsetof(TRACE_EVENT_INFO,
					      EventPropertyInfoArray));
}

/*
 * What a manifest event's schema is a function of, besides the pointer
 * size: the provider, the event's Id and Version, and which manifests
 * were loaded (those on the path are read once and never change).
 */
struct etw_mf_schema_id {
	GUID guid;
	uint64_t generation;
	USHORT id;
	UCHAR version;
};

/**
 * etw_manifest_build - the TRACE_EVENT_INFO of a loaded manifest's event
 * @ev: the event, or NULL to take @guid and @desc alone
 * @guid: its provider
 * @desc: its descriptor; Id and Version select the manifest's event
 * @ptr_size: 4 or 8: the length of pointer properties
 * @buf: where to write it, or NULL
 * @cap: bytes at @buf
 * @needed: out: bytes it takes
 *
 * The TRACE_EVENT_INFO's EventDescriptor is @ev's own, or the manifest's
 * when @ev is NULL.  With @ev, the schema is kept in this thread's cache
 * (etw_tdh_cache.c).
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_NOT_FOUND when no loaded manifest has the
 * event; ERROR_INSUFFICIENT_BUFFER when @cap is less than *@needed.
 */
ULONG etw_manifest_build(const EVENT_RECORD *ev, const GUID *guid,
			 const EVENT_DESCRIPTOR *desc, ULONG ptr_size,
			 BYTE *buf, ULONG cap, ULONG *needed)
{
	const struct etw_mf_provider *p;
	const struct etw_mf_event *e = NULL;
	struct etw_mf_out o = { buf, buf ? cap : 0, 0 };
	struct etw_mf_schema_id id;
	struct etw_tdh_cache_key k = {
		.tag = ETW_TDH_CACHE_MANIFEST | ptr_size << 8,
		.a = &id,
		.a_len = sizeof(id),
	};
	ULONG ret = ERROR_NOT_FOUND;
	uint32_t i;

	pthread_rwlock_rdlock(&etw_mf_lock);
	memset(&id, 0, sizeof(id));
	id.guid = *guid;
	id.id = desc->Id;
	id.version = desc->Version;
	id.generation = etw_mf_generation;
	if (ev && etw_tdh_cache_lookup(&k, desc, buf, cap, needed, &ret)) {
		pthread_rwlock_unlock(&etw_mf_lock);
		return ret;
	}
	p = etw_mf_provider_of(guid);
	for (i = 0; p && i < p->nevents && !e; i++)
		if (p->events[i].desc.Id == desc->Id &&
		    p->events[i].desc.Version == desc->Version)
			e = &p->events[i];
	if (e) {
		etw_mf_emit(p, e, ev ? desc : &e->desc, ptr_size, &o);
		*needed = o.off;
		ret = o.off > o.cap ? ERROR_INSUFFICIENT_BUFFER : ERROR_SUCCESS;
		if (ev && !ret)
			etw_tdh_cache_store(&k, buf, o.off);
	}
	pthread_rwlock_unlock(&etw_mf_lock);
	return ret;
}

/**
 * TdhGetManifestEventInformation - an event's schema from its descriptor
 * @ProviderGuid: the provider
 * @EventDescriptor: the event; Id and Version select it
 * @Buffer: receives the TRACE_EVENT_INFO, as TdhGetEventInformation's
 *	with the manifest's EventDescriptor and 8-byte pointers
 * @BufferSize: in: bytes at @Buffer; out: bytes needed
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER (*@BufferSize then
 * holds the size needed); ERROR_INVALID_PARAMETER for a NULL
 * @ProviderGuid, @EventDescriptor or @BufferSize, or a NULL @Buffer with
 * a non-zero size; ERROR_NOT_FOUND when no loaded manifest has the event.
 */
TDHSTATUS WINAPI TdhGetManifestEventInformation(LPGUID ProviderGuid,
		PEVENT_DESCRIPTOR EventDescriptor, PTRACE_EVENT_INFO Buffer,
		PULONG BufferSize)
{
	if (!ProviderGuid || !EventDescriptor || !BufferSize ||
	    (!Buffer && *BufferSize))
		return ERROR_INVALID_PARAMETER;
	return etw_manifest_build(NULL, ProviderGuid, EventDescriptor, 8,
				  (BYTE *)Buffer, Buffer ? *BufferSize : 0,
				  BufferSize);
}

static void etw_mf_emit_map(const struct etw_mf_map *m, struct etw_mf_out *o)
{
	EVENT_MAP_INFO emi;
	EVENT_MAP_ENTRY eme;
	uint32_t i;

	o->off = offsetof(EVENT_MAP_INFO, MapEntryArray) +
		 m->n * sizeof(EVENT_MAP_ENTRY);
	memset(&emi, 0, sizeof(emi));
	emi.NameOffset = etw_mf_put(o, m->name);
	emi.Flag = m->flag;
	emi.EntryCount = m->n;
	emi.MapEntryValueType = EVENTMAP_ENTRY_VALUETYPE_ULONG;
	for (i = 0; i < m->n; i++) {
		eme.Value = m->e[i].value;
		eme.OutputOffset = etw_mf_put(o, m->e[i].text);
		if (o->off <= o->cap)
			memcpy(o->buf + offsetof(EVENT_MAP_INFO,
						 MapEntryArray) +
			       i * sizeof(eme), &eme, sizeof(eme));
	}
	if (o->off <= o->cap)
		memcpy(o->buf, &emi, offsetof(EVENT_MAP_INFO, MapEntryArray));
}

/**
 * etw_manifest_map - a map of the manifest of an event's provider
 * @ev: the event
 * @name: the map's name (NUL-terminated UTF-16)
 * @buf: receives the EVENT_MAP_INFO, or NULL
 * @size: in: bytes at @buf; out: bytes needed
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER; ERROR_NOT_FOUND when
 * the provider has no loaded manifest or the manifest no such map;
 * ERROR_OUTOFMEMORY.
 */
ULONG etw_manifest_map(const EVENT_RECORD *ev, const WCHAR *name,
		       EVENT_MAP_INFO *buf, ULONG *size)
{
	struct etw_mf_out o = { (BYTE *)buf, buf ? *size : 0, 0 };
	const struct etw_mf_provider *p;
	ULONG ret = ERROR_NOT_FOUND;
	size_t n = 0;
	uint32_t i;
	char *s;

	while (name[n])
		n++;
	s = etw_etl_utf16_to_utf8((const uint8_t *)name, n);
	if (!s)
		return ERROR_OUTOFMEMORY;
	pthread_rwlock_rdlock(&etw_mf_lock);
	p = etw_mf_provider_of(&ev->EventHeader.ProviderId);
	for (i = 0; p && i < p->nmaps; i++) {
		if (strcmp(p->maps[i].name, s))
			continue;
		etw_mf_emit_map(&p->maps[i], &o);
		*size = o.off;
		ret = o.off > o.cap ? ERROR_INSUFFICIENT_BUFFER : ERROR_SUCCESS;
		break;
	}
	pthread_rwlock_unlock(&etw_mf_lock);
	free(s);
	return ret;
}
