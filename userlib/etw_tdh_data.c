// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_data.c: TdhGetPropertySize and TdhGetProperty, the raw bytes of
 * one property of an event, found by a path of PROPERTY_DATA_DESCRIPTORs.
 *
 * The event data is walked from its start in schema order: each
 * property's extent follows from its type, its count (fixed, or the value
 * of the count property before it) and its length (likewise), so the
 * integer properties met on the way are remembered.  The bytes returned
 * are those of the event data: a counted string keeps its UINT16 prefix;
 * a whole array is all its elements.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "etw_tdh.h"

/* PROPERTY_DATA_DESCRIPTOR.ArrayIndex of a whole property (ULONG_MAX). */
#define ETW_TDH_ALL	0xFFFFFFFFu

struct etw_tdh_walk {
	const TRACE_EVENT_INFO *tei;
	USHORT *ints;		/* last value of each integer property */
	ULONG ptr_size;
	const BYTE *end;
};

static const EVENT_PROPERTY_INFO *etw_epi(const struct etw_tdh_walk *w,
					  ULONG i)
{
	return &w->tei->EventPropertyInfoArray[i];
}

static ULONG etw_tdh_count(const struct etw_tdh_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = etw_epi(w, i);

	return epi->Flags & PropertyParamCount ?
	       w->ints[epi->countPropertyIndex] : epi->count;
}

static bool etw_tdh_is_array(const struct etw_tdh_walk *w, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = etw_epi(w, i);

	return (epi->Flags & (PropertyParamCount | PropertyParamFixedCount)) ||
	       epi->count != 1;
}

static ULONG etw_tdh_skip(struct etw_tdh_walk *w, ULONG i, const BYTE **p);

/* One element of property @i at *@p; *@p moves past it. */
static ULONG etw_tdh_skip_one(struct etw_tdh_walk *w, ULONG i, const BYTE **p)
{
	const EVENT_PROPERTY_INFO *epi = etw_epi(w, i);
	/* Custom-serialized data is a UINT16 size and that many bytes. */
	USHORT in = epi->Flags & PropertyHasCustomSchema ?
		    TDH_INTYPE_MANIFEST_COUNTEDBINARY :
		    epi->nonStructType.InType, length;
	ULONG j, size, ret, v = 0;

	if (epi->Flags & PropertyStruct) {
		for (j = epi->structType.StructStartIndex;
		     j < (ULONG)epi->structType.StructStartIndex +
			 epi->structType.NumOfStructMembers; j++) {
			ret = etw_tdh_skip(w, j, p);
			if (ret)
				return ret;
		}
		return ERROR_SUCCESS;
	}
	length = epi->Flags & PropertyParamLength ?
		 w->ints[epi->lengthPropertyIndex] : epi->length;
	ret = etw_tdh_value_size(in, epi->nonStructType.OutType, length,
				 w->ptr_size, *p, (size_t)(w->end - *p), &size);
	if (ret)
		return ret;
	/* Counts and lengths are 16 bits in TDH. */
	if (in == TDH_INTYPE_UINT8 || in == TDH_INTYPE_UINT16 ||
	    in == TDH_INTYPE_UINT32) {
		memcpy(&v, *p, size);
		w->ints[i] = v > 0xffff ? 0xffff : (USHORT)v;
	}
	*p += size;
	return ERROR_SUCCESS;
}

/* All of property @i (every element) at *@p. */
static ULONG etw_tdh_skip(struct etw_tdh_walk *w, ULONG i, const BYTE **p)
{
	ULONG n = etw_tdh_count(w, i), k, ret;
	const BYTE *start;

	for (k = 0; k < n; k++) {
		start = *p;
		ret = etw_tdh_skip_one(w, i, p);
		if (ret)
			return ret;
		/*
		 * An element of no bytes read no integer: the others are the
		 * same.  Nested arrays of them would loop 65535^depth times.
		 */
		if (*p == start)
			break;
	}
	return ERROR_SUCCESS;
}

static bool etw_tdh_name_is(const struct etw_tdh_walk *w, ULONG i,
			    const WCHAR *name)
{
	const BYTE *s = (const BYTE *)w->tei + etw_epi(w, i)->NameOffset;
	WCHAR c;
	size_t k;

	if (!etw_epi(w, i)->NameOffset)
		return false;
	for (k = 0;; k++) {
		memcpy(&c, s + 2 * k, sizeof(c));
		if (c != name[k])
			return false;
		if (!c)
			return true;
	}
}

/*
 * Finds @d[0] among properties [@first, @first + @n) at *@p, then @d[1]
 * in its members, and so on; *@p and *@size: the bytes found.
 */
static ULONG etw_tdh_find(struct etw_tdh_walk *w, ULONG first, ULONG n,
			  const PROPERTY_DATA_DESCRIPTOR *d, ULONG nd,
			  const BYTE **p, ULONG *size)
{
	const EVENT_PROPERTY_INFO *epi;
	const WCHAR *name = (const WCHAR *)(uintptr_t)d->PropertyName;
	const BYTE *start;
	ULONG i, k, ret;

	for (i = first; i < first + n; i++) {
		if (!etw_tdh_name_is(w, i, name)) {
			ret = etw_tdh_skip(w, i, p);
			if (ret)
				return ret;
			continue;
		}
		epi = etw_epi(w, i);
		if (d->ArrayIndex == ETW_TDH_ALL && nd == 1) {
			start = *p;
			ret = etw_tdh_skip(w, i, p);
			*size = (ULONG)(*p - start);
			*p = start;
			return ret;
		}
		if (d->ArrayIndex == ETW_TDH_ALL ? etw_tdh_is_array(w, i) :
		    d->ArrayIndex >= etw_tdh_count(w, i))
			return ERROR_INVALID_PARAMETER;
		for (k = 0; k < d->ArrayIndex && d->ArrayIndex != ETW_TDH_ALL;
		     k++) {
			ret = etw_tdh_skip_one(w, i, p);
			if (ret)
				return ret;
		}
		if (nd > 1) {
			if (!(epi->Flags & PropertyStruct))
				return ERROR_INVALID_PARAMETER;
			return etw_tdh_find(w, epi->structType.StructStartIndex,
					    epi->structType.NumOfStructMembers,
					    d + 1, nd - 1, p, size);
		}
		start = *p;
		ret = etw_tdh_skip_one(w, i, p);
		*size = (ULONG)(*p - start);
		*p = start;
		return ret;
	}
	return ERROR_NOT_FOUND;
}

static ULONG etw_tdh_locate(PEVENT_RECORD ev, ULONG nctx,
			    const TDH_CONTEXT *ctx, ULONG nd,
			    const PROPERTY_DATA_DESCRIPTOR *d,
			    const BYTE **data, ULONG *size)
{
	struct etw_tdh_walk w = { 0 };
	TRACE_EVENT_INFO *tei = NULL;
	ULONG i, ret;

	if (!ev || !d || !nd || !size || (!ev->UserData && ev->UserDataLength))
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < nd; i++)
		if (!d[i].PropertyName)
			return ERROR_INVALID_PARAMETER;
	ret = etw_tdh_pointer_size(ev, nctx, ctx, &w.ptr_size);
	if (!ret)
		ret = etw_tdh_event_info(ev, &tei);
	if (ret)
		return ret;
	w.tei = tei;
	w.ints = calloc(tei->PropertyCount + 1, sizeof(*w.ints));
	/* No data: a walk that finds 0 bytes, not arithmetic on NULL. */
	*data = ev->UserData ? ev->UserData : (const BYTE *)"";
	w.end = *data + ev->UserDataLength;
	ret = w.ints ? etw_tdh_find(&w, 0, tei->TopLevelPropertyCount, d, nd,
				    data, size) : ERROR_OUTOFMEMORY;
	free(w.ints);
	free(tei);
	return ret;
}

/**
 * TdhGetPropertySize - the size of a property's data in an event
 * @pEvent: the event
 * @TdhContextCount: entries at @pTdhContext
 * @pTdhContext: decoding parameters; TDH_CONTEXT_POINTERSIZE is used
 * @PropertyDataCount: entries at @pPropertyData
 * @pPropertyData: the path to the property: a top-level property, then a
 *	member of it when it is a struct, and so on; ArrayIndex picks an
 *	element, 0xFFFFFFFF the whole property
 * @pPropertySize: out: its size in bytes
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER for a NULL pointer, an
 * empty path, an ArrayIndex past the array (or 0xFFFFFFFF for an array
 * the path goes into) or a path through a property that is not a struct;
 * ERROR_NOT_FOUND when the event has no schema or no property of a name
 * in the path; ERROR_EVT_INVALID_EVENT_DATA when the event data is too
 * short; and TdhGetEventInformation's codes.
 */
TDHSTATUS WINAPI TdhGetPropertySize(PEVENT_RECORD pEvent,
		ULONG TdhContextCount, PTDH_CONTEXT pTdhContext,
		ULONG PropertyDataCount,
		PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG *pPropertySize)
{
	const BYTE *data;

	return etw_tdh_locate(pEvent, TdhContextCount, pTdhContext,
			      PropertyDataCount, pPropertyData, &data,
			      pPropertySize);
}

/**
 * TdhGetProperty - a property's data in an event
 * @pEvent: the event
 * @TdhContextCount: entries at @pTdhContext
 * @pTdhContext: decoding parameters; TDH_CONTEXT_POINTERSIZE is used
 * @PropertyDataCount: entries at @pPropertyData
 * @pPropertyData: the path to the property, as for TdhGetPropertySize
 * @BufferSize: bytes at @pBuffer
 * @pBuffer: receives the property's bytes as they are in the event
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER when @BufferSize is
 * smaller than the property (TdhGetPropertySize tells its size);
 * ERROR_INVALID_PARAMETER for a NULL @pBuffer; and TdhGetPropertySize's
 * codes.
 */
TDHSTATUS WINAPI TdhGetProperty(PEVENT_RECORD pEvent,
		ULONG TdhContextCount, PTDH_CONTEXT pTdhContext,
		ULONG PropertyDataCount,
		PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG BufferSize,
		PBYTE pBuffer)
{
	const BYTE *data;
	ULONG size, ret;

	if (!pBuffer)
		return ERROR_INVALID_PARAMETER;
	ret = etw_tdh_locate(pEvent, TdhContextCount, pTdhContext,
			     PropertyDataCount, pPropertyData, &data, &size);
	if (ret)
		return ret;
	if (size > BufferSize)
		return ERROR_INSUFFICIENT_BUFFER;
	memcpy(pBuffer, data, size);
	return ERROR_SUCCESS;
}
