// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_fuzz_entry.c: what the fuzz targets do with one input, through
 * libetw's public functions as a consumer calls them.
 *
 * Every event is decoded the way ctl/decode.c does it: the schema from
 * TdhGetEventInformation, each value through TdhFormatProperty (with its
 * map from TdhGetEventMapInformation), counts and lengths taken from the
 * values already read, and each top-level property (whole, its first
 * element, its members) again through TdhGetPropertySize and
 * TdhGetProperty.  Buffers handed to libetw are
 * allocated at the exact size it asked for, so that AddressSanitizer sees
 * a write one byte past them; what libetw returns is checked against the
 * layout it documents (etw_fuzz_check_tei()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <evntrace.h>
#include <tdh.h>

#include "etw_etl.h"
#include "etw_fuzz_entry.h"
#include "etw_tdh_manifest.h"

/* Values (array elements included) decoded per event at most. */
#define ETW_FUZZ_MAX_VALUES	4096
/* Top-level properties, and members of each, read through TdhGetProperty. */
#define ETW_FUZZ_MAX_GETPROP	8
#define ETW_FUZZ_MAX_MEMBERS	4
/* PROPERTY_DATA_DESCRIPTOR.ArrayIndex of a whole property. */
#define ETW_FUZZ_ALL		0xffffffffu
/* Bytes etw_fuzz_xpress() compresses again at most. */
#define ETW_FUZZ_XPRESS_TRIP	8192
/* Events of one file, or of one manifest, decoded at most. */
#define ETW_FUZZ_MAX_EVENTS	256

#define ETW_FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) \
			etw_fuzz_broken(#cond, __LINE__); \
	} while (0)

static void __attribute__((noreturn))
etw_fuzz_broken(const char *what, int line)
{
	fprintf(stderr, "etw_fuzz_entry.c:%d: libetw broke an invariant: %s\n",
		line, what);
	abort();
}

/* A string at @off of a TDH buffer of @size bytes: NUL inside it. */
static void etw_fuzz_check_str(const void *buf, ULONG size, ULONG off)
{
	const uint8_t *p = buf;

	if (!off)
		return;
	ETW_FUZZ_CHECK(off < size);
	for (; off + 1 < size; off += 2)
		if (!p[off] && !p[off + 1])
			return;
	etw_fuzz_broken("string offset without NUL in the buffer", __LINE__);
}

/*
 * The TRACE_EVENT_INFO layout tdh.h documents: the property array and
 * every string inside the buffer, struct members after their struct and
 * inside the array, counts and lengths naming earlier properties.
 */
static void etw_fuzz_check_tei(const TRACE_EVENT_INFO *tei, ULONG size)
{
	const ULONG strings[] = {
		tei->ProviderNameOffset, tei->LevelNameOffset,
		tei->ChannelNameOffset, tei->KeywordsNameOffset,
		tei->TaskNameOffset, tei->OpcodeNameOffset,
		tei->EventMessageOffset, tei->ProviderMessageOffset,
		tei->EventNameOffset, tei->EventAttributesOffset,
	};
	const EVENT_PROPERTY_INFO *epi;
	ULONG i;

	ETW_FUZZ_CHECK(size >= offsetof(TRACE_EVENT_INFO,
					EventPropertyInfoArray));
	ETW_FUZZ_CHECK(tei->PropertyCount <=
		       (size - offsetof(TRACE_EVENT_INFO,
					EventPropertyInfoArray)) /
		       sizeof(EVENT_PROPERTY_INFO));
	ETW_FUZZ_CHECK(tei->TopLevelPropertyCount <= tei->PropertyCount);
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		etw_fuzz_check_str(tei, size, strings[i]);
	for (i = 0; i < tei->PropertyCount; i++) {
		epi = &tei->EventPropertyInfoArray[i];
		etw_fuzz_check_str(tei, size, epi->NameOffset);
		if (epi->Flags & PropertyStruct) {
			ETW_FUZZ_CHECK(epi->structType.StructStartIndex > i);
			ETW_FUZZ_CHECK(epi->structType.StructStartIndex +
				       epi->structType.NumOfStructMembers <=
				       tei->PropertyCount);
		} else if (!(epi->Flags & PropertyHasCustomSchema)) {
			etw_fuzz_check_str(tei, size,
					   epi->nonStructType.MapNameOffset);
		}
		if (epi->Flags & PropertyParamCount)
			ETW_FUZZ_CHECK(epi->countPropertyIndex < i);
		if (epi->Flags & PropertyParamLength)
			ETW_FUZZ_CHECK(epi->lengthPropertyIndex < i);
	}
}

static void etw_fuzz_check_map(const EVENT_MAP_INFO *m, ULONG size)
{
	ULONG i;

	ETW_FUZZ_CHECK(size >= offsetof(EVENT_MAP_INFO, MapEntryArray));
	ETW_FUZZ_CHECK(m->EntryCount <=
		       (size - offsetof(EVENT_MAP_INFO, MapEntryArray)) /
		       sizeof(EVENT_MAP_ENTRY));
	etw_fuzz_check_str(m, size, m->NameOffset);
	for (i = 0; i < m->EntryCount; i++)
		etw_fuzz_check_str(m, size, m->MapEntryArray[i].OutputOffset);
}

/* One event being decoded; @ints: the last value of each integer. */
struct etw_fuzz_walk {
	PEVENT_RECORD rec;
	TRACE_EVENT_INFO *tei;
	USHORT *ints;
	const BYTE *p;
	const BYTE *end;
	WCHAR *text;
	ULONG text_size;
	ULONG ptr_size;
	unsigned int values;
};

/* TdhGetEventInformation's size protocol: ask, allocate exactly, fill. */
static ULONG etw_fuzz_info(PEVENT_RECORD rec, TRACE_EVENT_INFO **tei)
{
	ULONG size = 0, ret;

	*tei = NULL;
	ret = TdhGetEventInformation(rec, 0, NULL, NULL, &size);
	if (ret != ERROR_INSUFFICIENT_BUFFER)
		return ret;
	*tei = malloc(size);
	ETW_FUZZ_CHECK(*tei);
	ret = TdhGetEventInformation(rec, 0, NULL, *tei, &size);
	ETW_FUZZ_CHECK(ret == ERROR_SUCCESS);
	etw_fuzz_check_tei(*tei, size);
	return ERROR_SUCCESS;
}

/* The map property @epi names, or NULL (TraceLogging has none). */
static EVENT_MAP_INFO *etw_fuzz_map(struct etw_fuzz_walk *w,
				    const EVENT_PROPERTY_INFO *epi)
{
	PWSTR name = TEI_MAP_NAME(w->tei, epi);
	EVENT_MAP_INFO *m;
	ULONG size = 0, ret;

	if (!name || (epi->Flags & PropertyHasCustomSchema))
		return NULL;
	ret = TdhGetEventMapInformation(w->rec, name, NULL, &size);
	ETW_FUZZ_CHECK(ret == ERROR_INSUFFICIENT_BUFFER ||
		       ret == ERROR_NOT_FOUND);
	if (ret != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	m = malloc(size);
	ETW_FUZZ_CHECK(m);
	ret = TdhGetEventMapInformation(w->rec, name, m, &size);
	ETW_FUZZ_CHECK(ret == ERROR_SUCCESS);
	etw_fuzz_check_map(m, size);
	return m;
}

/* TdhFormatProperty, its text buffer grown to exactly what it asks. */
static ULONG etw_fuzz_format(struct etw_fuzz_walk *w,
			     const EVENT_PROPERTY_INFO *epi,
			     const EVENT_MAP_INFO *map, USHORT length,
			     USHORT *used)
{
	size_t avail = (size_t)(w->end - w->p);
	ULONG size, ret;

	for (;;) {
		size = w->text_size;
		ret = TdhFormatProperty(w->tei, (PEVENT_MAP_INFO)map,
					w->ptr_size, epi->nonStructType.InType,
					epi->nonStructType.OutType, length,
					(USHORT)avail, (PBYTE)w->p, &size,
					w->text, used);
		if (ret != ERROR_INSUFFICIENT_BUFFER)
			break;
		ETW_FUZZ_CHECK(size > w->text_size);
		free(w->text);
		w->text = malloc(size);
		ETW_FUZZ_CHECK(w->text);
		w->text_size = size;
	}
	if (ret)
		return ret;
	ETW_FUZZ_CHECK(*used <= avail);
	ETW_FUZZ_CHECK(size >= sizeof(WCHAR) && size <= w->text_size);
	ETW_FUZZ_CHECK(!w->text[size / sizeof(WCHAR) - 1]);
	return ERROR_SUCCESS;
}

/* One value of non-struct property @i; integers kept for counts. */
static ULONG etw_fuzz_value(struct etw_fuzz_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = &w->tei->EventPropertyInfoArray[i];
	USHORT in = epi->nonStructType.InType, used = 0;
	USHORT length = epi->Flags & PropertyParamLength ?
			w->ints[epi->lengthPropertyIndex] : epi->length;
	EVENT_MAP_INFO *map = etw_fuzz_map(w, epi);
	uint32_t v = 0;
	ULONG ret;

	ret = etw_fuzz_format(w, epi, map, length, &used);
	free(map);
	if (ret)
		return ret;
	if (in == TDH_INTYPE_UINT8 || in == TDH_INTYPE_UINT16 ||
	    in == TDH_INTYPE_UINT32) {
		memcpy(&v, w->p, used < sizeof(v) ? used : sizeof(v));
		w->ints[i] = v > 0xffff ? 0xffff : (USHORT)v;
	}
	w->p += used;
	return ERROR_SUCCESS;
}

static ULONG etw_fuzz_props(struct etw_fuzz_walk *w, ULONG first, ULONG n);

/* Every element of property @i, struct members in turn. */
static ULONG etw_fuzz_prop(struct etw_fuzz_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = &w->tei->EventPropertyInfoArray[i];
	ULONG count = epi->Flags & PropertyParamCount ?
		      w->ints[epi->countPropertyIndex] : epi->count;
	ULONG k, ret = ERROR_SUCCESS;

	for (k = 0; k < count && !ret; k++) {
		if (++w->values > ETW_FUZZ_MAX_VALUES)
			break;
		if (epi->Flags & PropertyStruct)
			ret = etw_fuzz_props(w, epi->structType.StructStartIndex,
					     epi->structType.NumOfStructMembers);
		else
			ret = etw_fuzz_value(w, i);
	}
	return ret;
}

static ULONG etw_fuzz_props(struct etw_fuzz_walk *w, ULONG first, ULONG n)
{
	ULONG i, ret = ERROR_SUCCESS;

	for (i = first; i < first + n && !ret; i++)
		ret = etw_fuzz_prop(w, i);
	return ret;
}

/*
 * A path through TdhGetPropertySize and TdhGetProperty: both agree on
 * the size and on the error, and a buffer one byte short is refused.
 */
static void etw_fuzz_get_path(struct etw_fuzz_walk *w,
			      PROPERTY_DATA_DESCRIPTOR *d, ULONG n)
{
	ULONG size = 0, ret;
	BYTE *buf;

	ret = TdhGetPropertySize(w->rec, 0, NULL, n, d, &size);
	buf = malloc(size ? size : 1);
	ETW_FUZZ_CHECK(buf);
	if (ret) {
		ETW_FUZZ_CHECK(TdhGetProperty(w->rec, 0, NULL, n, d, 1, buf) ==
			       ret);
	} else {
		ETW_FUZZ_CHECK(TdhGetProperty(w->rec, 0, NULL, n, d, size,
					      buf) == ERROR_SUCCESS);
		ETW_FUZZ_CHECK(!size ||
			       TdhGetProperty(w->rec, 0, NULL, n, d, size - 1,
					      buf) == ERROR_INSUFFICIENT_BUFFER);
	}
	free(buf);
}

/*
 * Top-level property @i by name: whole, its first element when it is an
 * array, and each of its first members when it is a struct (in its
 * first element).
 */
static void etw_fuzz_get_property(struct etw_fuzz_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = &w->tei->EventPropertyInfoArray[i];
	const EVENT_PROPERTY_INFO *m;
	PROPERTY_DATA_DESCRIPTOR d[2] = { {
		.PropertyName = (uintptr_t)TEI_PROPERTY_NAME(w->tei, epi),
		.ArrayIndex = ETW_FUZZ_ALL,
	} };
	ULONG j;

	if (!d[0].PropertyName)
		return;
	etw_fuzz_get_path(w, d, 1);
	if ((epi->Flags & (PropertyParamCount | PropertyParamFixedCount)) ||
	    epi->count != 1) {
		d[0].ArrayIndex = 0;
		etw_fuzz_get_path(w, d, 1);
	}
	if (!(epi->Flags & PropertyStruct))
		return;
	for (j = 0; j < epi->structType.NumOfStructMembers &&
		    j < ETW_FUZZ_MAX_MEMBERS; j++) {
		m = &w->tei->EventPropertyInfoArray[
			epi->structType.StructStartIndex + j];
		d[1].PropertyName = (uintptr_t)TEI_PROPERTY_NAME(w->tei, m);
		d[1].ArrayIndex = ETW_FUZZ_ALL;
		if (d[1].PropertyName)
			etw_fuzz_get_path(w, d, 2);
	}
}

/**
 * etw_fuzz_decode - decode one event as a consumer does
 * @rec: the event
 *
 * Return: TdhGetEventInformation's error, else the first error of
 * TdhFormatProperty on the values in order, else ERROR_SUCCESS.
 */
ULONG etw_fuzz_decode(PEVENT_RECORD rec)
{
	struct etw_fuzz_walk w = { .rec = rec };
	ULONG ret, i;

	ret = etw_fuzz_info(rec, &w.tei);
	if (ret)
		return ret;
	w.ints = calloc(w.tei->PropertyCount + 1, sizeof(*w.ints));
	ETW_FUZZ_CHECK(w.ints);
	w.p = rec->UserData ? rec->UserData : (const BYTE *)"";
	w.end = w.p + rec->UserDataLength;
	w.ptr_size = rec->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ?
		     4 : 8;
	ret = etw_fuzz_props(&w, 0, w.tei->TopLevelPropertyCount);
	for (i = 0; i < w.tei->TopLevelPropertyCount &&
		    i < ETW_FUZZ_MAX_GETPROP; i++)
		etw_fuzz_get_property(&w, i);
	free(w.text);
	free(w.ints);
	free(w.tei);
	return ret;
}

/* --- ETL files ------------------------------------------------------------ */

static struct {
	unsigned int events;
	unsigned int buffers;
	uint8_t sum;
} etw_fuzz_run;

/* Every byte the record points to is read: ASan checks they exist. */
static VOID WINAPI etw_fuzz_on_record(PEVENT_RECORD r)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *x;
	const uint8_t *p;
	USHORT i, k;

	ETW_FUZZ_CHECK(!r->UserDataLength || r->UserData);
	ETW_FUZZ_CHECK(!r->ExtendedDataCount || r->ExtendedData);
	for (p = r->UserData, k = 0; k < r->UserDataLength; k++)
		etw_fuzz_run.sum += p[k];
	for (i = 0; i < r->ExtendedDataCount; i++) {
		x = &r->ExtendedData[i];
		p = (const uint8_t *)(uintptr_t)x->DataPtr;
		for (k = 0; k < x->DataSize; k++)
			etw_fuzz_run.sum += p[k];
	}
	if (etw_fuzz_run.events++ < ETW_FUZZ_MAX_EVENTS)
		etw_fuzz_decode(r);
}

static VOID WINAPI etw_fuzz_on_event(PEVENT_TRACE e)
{
	const uint8_t *p = e->MofData;
	ULONG k;

	ETW_FUZZ_CHECK(!e->MofLength || p);
	for (k = 0; k < e->MofLength; k++)
		etw_fuzz_run.sum += p[k];
	etw_fuzz_run.events++;
}

static ULONG WINAPI etw_fuzz_on_buffer(PEVENT_TRACE_LOGFILEA lf)
{
	ETW_FUZZ_CHECK(lf->Filled <= lf->BufferSize);
	etw_fuzz_run.buffers++;
	return TRUE;
}

/* The input as a file: a memfd, opened again through /proc/self/fd. */
static const char *etw_fuzz_file(const uint8_t *data, size_t size)
{
	static char path[32];
	static int fd = -1;
	size_t done = 0;
	ssize_t n;

	if (fd < 0) {
		fd = memfd_create("etw-fuzz.etl", MFD_CLOEXEC);
		ETW_FUZZ_CHECK(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	ETW_FUZZ_CHECK(!ftruncate(fd, 0));
	while (done < size) {
		n = pwrite(fd, data + done, size - done, (off_t)done);
		ETW_FUZZ_CHECK(n > 0);
		done += (size_t)n;
	}
	return path;
}

/*
 * The manifests ETW_FUZZ_MANIFESTS names (files, colon-separated; the
 * Makefile sets it), loaded once, so that events of their providers in a
 * file (the CLR's in clr-gc-events.etl) decode through them.
 */
static void etw_fuzz_load_manifests(void)
{
	static bool loaded;
	WCHAR path[MAX_PATH];
	char *list, *one, *save;
	size_t n;

	if (loaded)
		return;
	loaded = true;
	list = strdup(ETW_FUZZ_MANIFESTS);
	ETW_FUZZ_CHECK(list);
	for (one = strtok_r(list, ":", &save); one;
	     one = strtok_r(NULL, ":", &save)) {
		n = etw_etl_utf8_to_utf16(one, (uint8_t *)path, MAX_PATH - 1);
		ETW_FUZZ_CHECK(n < MAX_PATH);
		path[n] = 0;
		ETW_FUZZ_CHECK(TdhLoadManifest(path) == ERROR_SUCCESS);
	}
	free(list);
}

static PROCESSTRACE_HANDLE etw_fuzz_open(EVENT_TRACE_LOGFILEA *lf)
{
	PROCESSTRACE_HANDLE h = OpenTraceA(lf);

	/* The file opened once already: it opens again. */
	ETW_FUZZ_CHECK(h != INVALID_PROCESSTRACE_HANDLE);
	return h;
}

/**
 * etw_fuzz_etl - read an input as an .etl file, twice
 * @data: the file's bytes
 * @size: their count
 *
 * First through EventRecordCallback, every event decoded
 * (etw_fuzz_decode(); the manifests of ETW_FUZZ_MANIFESTS are loaded);
 * then, when that succeeded, through the classic EventCallback with raw
 * timestamps, the file merged with itself.
 *
 * Return: OpenTrace's error (GetLastError()), else ProcessTrace's.
 */
ULONG etw_fuzz_etl(const uint8_t *data, size_t size)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h[2];
	ULONG ret;

	etw_fuzz_load_manifests();
	memset(&etw_fuzz_run, 0, sizeof(etw_fuzz_run));
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)etw_fuzz_file(data, size);
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = etw_fuzz_on_record;
	lf.BufferCallback = etw_fuzz_on_buffer;
	h[0] = OpenTraceA(&lf);
	if (h[0] == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	ret = ProcessTrace(h, 1, NULL, NULL);
	ETW_FUZZ_CHECK(CloseTrace(h[0]) == ERROR_SUCCESS);
	if (ret)
		return ret;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_RAW_TIMESTAMP;
	lf.EventCallback = etw_fuzz_on_event;
	h[0] = etw_fuzz_open(&lf);
	h[1] = etw_fuzz_open(&lf);
	ret = ProcessTrace(h, 2, NULL, NULL);
	ETW_FUZZ_CHECK(CloseTrace(h[0]) == ERROR_SUCCESS);
	ETW_FUZZ_CHECK(CloseTrace(h[1]) == ERROR_SUCCESS);
	return ret;
}

/* --- XPRESS ---------------------------------------------------------------- */

/*
 * @src (@len bytes) compressed, then inflated into exactly @len bytes,
 * must come back.
 */
static void etw_fuzz_xpress_round_trip(const uint8_t *src, size_t len)
{
	size_t cap = len + len / 8 + 16, n = 0;
	uint8_t *z = malloc(cap), *back = malloc(len ? len : 1);
	ssize_t zlen;

	ETW_FUZZ_CHECK(z && back);
	zlen = etw_xpress_compress(src, len, z, cap);
	ETW_FUZZ_CHECK(zlen > 0 && (size_t)zlen <= cap);
	ETW_FUZZ_CHECK(!etw_xpress_decompress(z, zlen, back, len, &n));
	ETW_FUZZ_CHECK(n == len && !memcmp(back, src, len));
	free(z);
	free(back);
}

/**
 * etw_fuzz_xpress - inflate one stream; compress what came out again
 * @data: a plain LZ77 stream
 * @size: its bytes
 *
 * The stream inflates into a buffer of exactly %ETW_FUZZ_XPRESS_OUT
 * bytes, so that AddressSanitizer sees a write past it.  Whatever it
 * gives, the first %ETW_FUZZ_XPRESS_TRIP inflated bytes (or of the input
 * itself, when it did not inflate) must survive a round trip through the
 * compressor: more would slow every run down to compress data mostly of
 * long runs.
 *
 * Return: ERROR_SUCCESS when the stream inflated, ERROR_INVALID_DATA
 * when the decompressor refused it.
 */
ULONG etw_fuzz_xpress(const uint8_t *data, size_t size)
{
	uint8_t *out = malloc(ETW_FUZZ_XPRESS_OUT);
	size_t n = 0;
	int ret;

	ETW_FUZZ_CHECK(out);
	ret = etw_xpress_decompress(data, size, out, ETW_FUZZ_XPRESS_OUT, &n);
	ETW_FUZZ_CHECK(ret == 0 || ret == -EBADMSG);
	ETW_FUZZ_CHECK(n <= ETW_FUZZ_XPRESS_OUT);
	if (ret)
		etw_fuzz_xpress_round_trip(data, size < ETW_FUZZ_XPRESS_TRIP ?
					   size : ETW_FUZZ_XPRESS_TRIP);
	else
		etw_fuzz_xpress_round_trip(out, n < ETW_FUZZ_XPRESS_TRIP ?
					   n : ETW_FUZZ_XPRESS_TRIP);
	free(out);
	return ret ? ERROR_INVALID_DATA : ERROR_SUCCESS;
}

/* --- TraceLogging metadata ------------------------------------------------ */

/* A copy at the exact size, so that reads past it are caught. */
static void *etw_fuzz_dup(const void *p, size_t n)
{
	void *q = malloc(n ? n : 1);

	ETW_FUZZ_CHECK(q);
	memcpy(q, p, n);
	return q;
}

/**
 * etw_fuzz_tl - decode an event built from TraceLogging input
 * @data: ETW_FUZZ_TL_HEADER bytes, the metadata, the user data
 *	(etw_fuzz_entry.h); a short header reads as zeros
 * @size: bytes at @data
 *
 * Return: as etw_fuzz_decode().
 */
ULONG etw_fuzz_tl(const uint8_t *data, size_t size)
{
	static const uint8_t traits[] = "\x07\x00" "fuzz";
	EVENT_HEADER_EXTENDED_DATA_ITEM x[2];
	uint8_t hdr[ETW_FUZZ_TL_HEADER] = { 0 };
	size_t head = size < sizeof(hdr) ? size : sizeof(hdr), mlen, ulen;
	EVENT_RECORD rec;
	void *meta, *user;
	ULONG ret;

	memcpy(hdr, data, head);
	data += head;
	size -= head;
	mlen = hdr[0] | hdr[1] << 8;
	mlen = mlen < size ? mlen : size;
	ulen = size - mlen < 0xffff ? size - mlen : 0xffff;
	meta = etw_fuzz_dup(data, mlen);
	user = etw_fuzz_dup(data + mlen, ulen);
	memset(&rec, 0, sizeof(rec));
	memset(x, 0, sizeof(x));
	x[0].ExtType = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL;
	x[0].DataSize = (USHORT)mlen;
	x[0].DataPtr = (uintptr_t)meta;
	x[1].ExtType = EVENT_HEADER_EXT_TYPE_PROV_TRAITS;
	x[1].DataSize = sizeof(traits);
	x[1].DataPtr = (uintptr_t)traits;
	rec.EventHeader.Flags = EVENT_HEADER_FLAG_EXTENDED_INFO |
		(hdr[2] & ETW_FUZZ_TL_32BIT ? EVENT_HEADER_FLAG_32_BIT_HEADER :
					      EVENT_HEADER_FLAG_64_BIT_HEADER);
	rec.ExtendedDataCount = hdr[2] & ETW_FUZZ_TL_TRAITS ? 2 : 1;
	rec.ExtendedData = x;
	rec.UserData = user;
	rec.UserDataLength = (USHORT)ulen;
	ret = etw_fuzz_decode(&rec);
	free(meta);
	free(user);
	return ret;
}

/* --- instrumentation manifests -------------------------------------------- */

/* One event of a loaded manifest: its schema by descriptor, then decoded. */
static ULONG etw_fuzz_manifest_event(const struct etw_mf_provider *p,
				     const struct etw_mf_event *e,
				     const uint8_t *data, size_t size)
{
	EVENT_DESCRIPTOR desc = e->desc;
	GUID guid = p->guid;
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD rec;
	ULONG len = 0, ret;

	ret = TdhGetManifestEventInformation(&guid, &desc, NULL, &len);
	/* Another provider of the manifest may have the same GUID. */
	if (ret == ERROR_NOT_FOUND)
		return ret;
	ETW_FUZZ_CHECK(ret == ERROR_INSUFFICIENT_BUFFER);
	tei = malloc(len);
	ETW_FUZZ_CHECK(tei);
	ret = TdhGetManifestEventInformation(&guid, &desc, tei, &len);
	ETW_FUZZ_CHECK(ret == ERROR_SUCCESS);
	etw_fuzz_check_tei(tei, len);
	free(tei);
	memset(&rec, 0, sizeof(rec));
	rec.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	rec.EventHeader.ProviderId = guid;
	rec.EventHeader.EventDescriptor = desc;
	rec.UserData = (PVOID)data;
	rec.UserDataLength = (USHORT)(size < 0xffff ? size : 0xffff);
	return etw_fuzz_decode(&rec);
}

/**
 * etw_fuzz_manifest - load a manifest and decode each of its events
 * @data: the manifest's XML, then optionally a NUL and the user data
 *	every event is decoded from
 * @size: bytes at @data
 *
 * The manifest is loaded with TdhLoadManifestFromMemory, its events
 * described by TdhGetManifestEventInformation and decoded
 * (etw_fuzz_decode()), then it is unloaded.
 *
 * Return: TdhLoadManifestFromMemory's error, else the first error of
 * its events in manifest order, else ERROR_SUCCESS.
 */
ULONG etw_fuzz_manifest(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t xlen = nul ? (size_t)(nul - data) : size;
	size_t ulen = nul ? size - xlen - 1 : 0;
	void *xml = etw_fuzz_dup(data, xlen);
	void *user = etw_fuzz_dup(data + size - ulen, ulen);
	unsigned int n = 0;
	struct etw_manifest *m;
	ULONG ret, st;
	uint32_t i, j;

	ret = TdhLoadManifestFromMemory(xml, (ULONG)xlen);
	if (ret)
		goto out;
	/* The loaded model, to name its events: the same parse succeeds. */
	ETW_FUZZ_CHECK(etw_manifest_parse(NULL, xml, xlen, NULL, &m) ==
		       ERROR_SUCCESS);
	for (i = 0; i < m->nprov; i++) {
		for (j = 0; j < m->prov[i].nevents && n < ETW_FUZZ_MAX_EVENTS;
		     j++, n++) {
			st = etw_fuzz_manifest_event(&m->prov[i],
						     &m->prov[i].events[j],
						     user, ulen);
			ret = ret ? ret : st;
		}
	}
	etw_manifest_free(m);
	ETW_FUZZ_CHECK(TdhUnloadManifestFromMemory(xml, (ULONG)xlen) ==
		       ERROR_SUCCESS);
out:
	free(user);
	free(xml);
	return ret;
}

/**
 * etw_fuzz_wevt - load a PE file's compiled manifest, decode its events
 * @data: the PE file (each event's user data is the file's bytes too)
 * @size: bytes at @data
 *
 * The file (a memfd, by its /proc/self/fd path) is loaded with
 * TdhLoadManifestFromBinary, its events described by
 * TdhGetManifestEventInformation and decoded (etw_fuzz_decode()), then
 * it is unloaded with TdhUnloadManifest.
 *
 * Return: TdhLoadManifestFromBinary's error, else the first error of
 * its events in file order, else ERROR_SUCCESS.
 */
ULONG etw_fuzz_wevt(const uint8_t *data, size_t size)
{
	const char *path = etw_fuzz_file(data, size);
	unsigned int n = 0;
	struct etw_manifest *m;
	WCHAR w[32];
	ULONG ret, st;
	uint32_t i, j;

	for (i = 0; path[i]; i++)
		w[i] = (unsigned char)path[i];
	w[i] = 0;
	ret = TdhLoadManifestFromBinary(w);
	if (ret)
		return ret;
	/* The loaded model, to name its events: the same read succeeds. */
	ETW_FUZZ_CHECK(etw_wevt_load(path, &m) == ERROR_SUCCESS);
	for (i = 0; i < m->nprov; i++) {
		for (j = 0; j < m->prov[i].nevents && n < ETW_FUZZ_MAX_EVENTS;
		     j++, n++) {
			st = etw_fuzz_manifest_event(&m->prov[i],
						     &m->prov[i].events[j],
						     data, size);
			ret = ret ? ret : st;
		}
	}
	etw_manifest_free(m);
	ETW_FUZZ_CHECK(TdhUnloadManifest(w) == ERROR_SUCCESS);
	return ret;
}
