/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A manifest-based event's payload walked the way a Windows consumer
 * walks it: TdhGetEventInformation, then TdhFormatProperty on every
 * property in turn, counts and lengths from the properties they name,
 * each value advancing by its UserDataConsumed, and TdhGetPropertySize
 * asked about every top-level property.  Shared by the tdh_clr* tests.
 */
#ifndef _TDH_WALK_H
#define _TDH_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tdh_test.h"

/* Properties a schema may have for tdh_walk() (indexes of "last"). */
#define TDH_WALK_PROPS	64

/* One formatted value: property name, TdhFormatProperty's text, integer. */
struct tdh_walk_val {
	char name[32];
	char text[160];
	uint64_t num;
};

struct tdh_walk {
	PEVENT_RECORD r;
	TRACE_EVENT_INFO *tei;	/* the schema, until tdh_walk_done() */
	ULONG status;		/* first TDH error, 0 if none */
	USHORT left;		/* payload bytes no property consumed */
	/* Top-level properties TdhGetPropertySize sized otherwise. */
	ULONG size_mismatch;
	int n;			/* values kept in v */
	int seen;		/* values formatted, kept or not */
	/* Cursor and state of the walk. */
	struct tdh_walk_val *v;
	int max;
	BYTE *data;
	ULONG ptr;
	WCHAR *buf;
	ULONG buf_size;
	uint64_t last[TDH_WALK_PROPS];	/* last value of each property */
};

static inline bool tdh_walk_is_int(USHORT in)
{
	return (in >= TDH_INTYPE_INT8 && in <= TDH_INTYPE_UINT64) ||
	       in == TDH_INTYPE_POINTER || in == TDH_INTYPE_HEXINT32 ||
	       in == TDH_INTYPE_HEXINT64;
}

static inline EVENT_MAP_INFO *tdh_walk_map(struct tdh_walk *w,
					   const EVENT_PROPERTY_INFO *p)
{
	EVENT_MAP_INFO *m;
	ULONG size = 0;

	if (!p->nonStructType.MapNameOffset)
		return NULL;
	if (TdhGetEventMapInformation(w->r, TEI_MAP_NAME(w->tei, p), NULL,
				      &size) != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	m = malloc(size);
	if (m && TdhGetEventMapInformation(w->r, TEI_MAP_NAME(w->tei, p), m,
					   &size)) {
		free(m);
		return NULL;
	}
	return m;
}

/* TdhFormatProperty into w->buf, grown to the size it asks for. */
static inline ULONG tdh_walk_format(struct tdh_walk *w,
				    const EVENT_PROPERTY_INFO *p,
				    EVENT_MAP_INFO *m, USHORT len,
				    USHORT *used)
{
	ULONG size = w->buf_size, st;
	WCHAR *b;

	for (;;) {
		st = TdhFormatProperty(w->tei, m, w->ptr,
				       p->nonStructType.InType,
				       p->nonStructType.OutType, len, w->left,
				       w->data, &size, w->buf, used);
		if (st != ERROR_INSUFFICIENT_BUFFER || size <= w->buf_size)
			return st;
		b = realloc(w->buf, size);
		if (!b)
			return ERROR_OUTOFMEMORY;
		w->buf = b;
		w->buf_size = size;
	}
}

/* One element of non-struct property @i, recorded and consumed. */
static inline ULONG tdh_walk_one(struct tdh_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *p = &w->tei->EventPropertyInfoArray[i];
	USHORT len = p->Flags & PropertyParamLength ?
		     (USHORT)w->last[p->lengthPropertyIndex] : p->length;
	EVENT_MAP_INFO *m = tdh_walk_map(w, p);
	struct tdh_walk_val *v;
	USHORT used = 0, k;
	uint64_t num = 0;
	ULONG st;

	st = tdh_walk_format(w, p, m, len, &used);
	free(m);
	if (st)
		return st;
	if (!used || used > w->left)
		return ERROR_INVALID_DATA;
	if (tdh_walk_is_int(p->nonStructType.InType))
		for (k = used; k-- > 0;)
			num = num << 8 | w->data[k];
	w->last[i] = num;
	if (w->n < w->max) {
		v = &w->v[w->n++];
		v->num = num;
		tdh_tei_str(w->tei, p->NameOffset, v->name, sizeof(v->name));
		tdh_utf8(w->buf, v->text, sizeof(v->text));
	}
	w->seen++;
	w->data += used;
	w->left -= used;
	return ERROR_SUCCESS;
}

/* Property @i: every element, a struct's members in turn. */
static inline ULONG tdh_walk_prop(struct tdh_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *p = &w->tei->EventPropertyInfoArray[i];
	ULONG count = p->Flags & PropertyParamCount ?
		      (ULONG)w->last[p->countPropertyIndex] : p->count;
	ULONG k, j, end, st = ERROR_SUCCESS;

	for (k = 0; k < count && !st; k++) {
		if (!(p->Flags & PropertyStruct)) {
			st = tdh_walk_one(w, i);
			continue;
		}
		end = p->structType.StructStartIndex +
		      p->structType.NumOfStructMembers;
		for (j = p->structType.StructStartIndex; j < end && !st; j++)
			st = tdh_walk_prop(w, j);
	}
	return st;
}

/* Does TdhGetPropertySize agree with what formatting consumed? */
static inline bool tdh_walk_size_agrees(struct tdh_walk *w, ULONG i,
					ULONG consumed)
{
	const EVENT_PROPERTY_INFO *p = &w->tei->EventPropertyInfoArray[i];
	PROPERTY_DATA_DESCRIPTOR d = {
		.PropertyName = (uintptr_t)((BYTE *)w->tei + p->NameOffset),
		.ArrayIndex = 0xFFFFFFFFu,
	};
	ULONG size = 0;

	if (p->Flags & PropertyStruct)
		return true;
	return !TdhGetPropertySize(w->r, 0, NULL, 1, &d, &size) &&
	       size == consumed;
}

/*
 * tdh_walk - walks @r's payload, keeping up to @max values in @v
 *
 * Return: w->status, the first TDH error (or ERROR_INVALID_DATA for a
 * value that consumed nothing or more than was left); w->left says how
 * much of the payload no property consumed.  Call tdh_walk_done() after.
 */
static inline ULONG tdh_walk(struct tdh_walk *w, PEVENT_RECORD r,
			     struct tdh_walk_val *v, int max)
{
	ULONG i, st = 0;
	USHORT before;

	memset(w, 0, sizeof(*w));
	w->r = r;
	w->v = v;
	w->max = max;
	w->data = r->UserData;
	w->left = r->UserDataLength;
	w->ptr = r->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ? 4 : 8;
	w->tei = tdh_info(r, &st);
	if (w->tei && w->tei->PropertyCount > TDH_WALK_PROPS)
		st = ERROR_BUFFER_OVERFLOW;
	for (i = 0; w->tei && i < w->tei->TopLevelPropertyCount && !st; i++) {
		before = w->left;
		st = tdh_walk_prop(w, i);
		if (!st && !tdh_walk_size_agrees(w, i, before - w->left))
			w->size_mismatch++;
	}
	w->status = st;
	return st;
}

static inline void tdh_walk_done(struct tdh_walk *w)
{
	free(w->tei);
	free(w->buf);
	w->tei = NULL;
	w->buf = NULL;
}

#endif /* _TDH_WALK_H */
