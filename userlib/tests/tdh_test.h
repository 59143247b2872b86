/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Shared by the tdh_* host tests: events built from hand-written
 * TraceLogging metadata, and UTF-16 strings compared as UTF-8.
 */
#ifndef _TDH_TEST_H
#define _TDH_TEST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <evntrace.h>
#include <tdh.h>

#include "etw_etl.h"

/* An event with TraceLogging metadata and provider traits. */
struct tdh_event {
	EVENT_RECORD rec;
	EVENT_HEADER_EXTENDED_DATA_ITEM x[2];
	uint8_t meta[1024];
	uint8_t traits[16];
	uint8_t data[1024];
};

/*
 * Metadata: UINT16 size, event tag byte @tag, name "E", then @flen bytes
 * of field entries; payload @dlen bytes of @data; traits name "prov".
 */
static inline void tdh_event_tagged(struct tdh_event *e, uint8_t tag,
				    const void *fields, size_t flen,
				    const void *data, size_t dlen)
{
	uint16_t size = (uint16_t)(2 + 1 + 2 + flen);

	memset(e, 0, sizeof(*e));
	memcpy(e->meta, &size, 2);
	e->meta[2] = tag;
	memcpy(e->meta + 3, "E", 2);
	memcpy(e->meta + 5, fields, flen);
	memcpy(e->traits, "\x07\x00prov", 7);
	memcpy(e->data, data, dlen);
	e->x[0].ExtType = EVENT_HEADER_EXT_TYPE_PROV_TRAITS;
	e->x[0].DataSize = 7;
	e->x[0].DataPtr = (uintptr_t)e->traits;
	e->x[1].ExtType = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL;
	e->x[1].DataSize = size;
	e->x[1].DataPtr = (uintptr_t)e->meta;
	e->rec.EventHeader.Flags = EVENT_HEADER_FLAG_EXTENDED_INFO |
				   EVENT_HEADER_FLAG_64_BIT_HEADER;
	e->rec.EventHeader.EventDescriptor.Id = 7;
	e->rec.EventHeader.EventDescriptor.Level = 4;
	e->rec.EventHeader.EventDescriptor.Keyword = 0x30;
	e->rec.ExtendedDataCount = 2;
	e->rec.ExtendedData = e->x;
	e->rec.UserData = e->data;
	e->rec.UserDataLength = (USHORT)dlen;
}

static inline void tdh_event(struct tdh_event *e, const void *fields,
			     size_t flen, const void *data, size_t dlen)
{
	tdh_event_tagged(e, 0, fields, flen, data, dlen);
}

/* String literals without their NUL. */
#define TDH_EVENT(e, f, d)	tdh_event(e, f, sizeof(f) - 1, d, sizeof(d) - 1)

/* TdhGetEventInformation with its size protocol; NULL and *st on error. */
static inline TRACE_EVENT_INFO *tdh_info(PEVENT_RECORD rec, ULONG *st)
{
	TRACE_EVENT_INFO *tei;
	ULONG size = 0;

	*st = TdhGetEventInformation(rec, 0, NULL, NULL, &size);
	if (*st != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	tei = malloc(size);
	if (!tei)
		return NULL;
	*st = TdhGetEventInformation(rec, 0, NULL, tei, &size);
	if (*st) {
		free(tei);
		return NULL;
	}
	return tei;
}

/* UTF-16 (NUL-terminated) at @p as UTF-8 in @out. */
static inline const char *tdh_utf8(const void *p, char *out, size_t size)
{
	const uint8_t *s = p;
	size_t n = 0;
	char *u;

	while (s[2 * n] || s[2 * n + 1])
		n++;
	u = etw_etl_utf16_to_utf8(s, n);
	snprintf(out, size, "%s", u ? u : "(no memory)");
	free(u);
	return out;
}

/* The TRACE_EVENT_INFO string at @off, "" for none. */
static inline const char *tdh_tei_str(const TRACE_EVENT_INFO *tei, ULONG off,
				      char *out, size_t size)
{
	if (!off) {
		*out = 0;
		return out;
	}
	return tdh_utf8((const uint8_t *)tei + off, out, size);
}

/* @s (ASCII) as a NUL-terminated UTF-16 string in @w. */
static inline WCHAR *tdh_wide(const char *s, WCHAR *w)
{
	size_t i;

	for (i = 0; s[i]; i++)
		w[i] = (unsigned char)s[i];
	w[i] = 0;
	return w;
}

#endif /* _TDH_TEST_H */
