// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_payload.c - payload filters (EVENT_FILTER_TYPE_PAYLOAD):
 * TdhCreatePayloadFilter, TdhAggregatePayloadFilters and their frees.
 *
 * TdhCreatePayloadFilter() resolves each PAYLOAD_FILTER_PREDICATE with the
 * manifest TDH decodes the provider with (the same lookup as
 * TdhGetEventInformation): the field by its property name among the
 * event template's top-level properties, the operand converted to the
 * field's type.  The result is one block of the kernel's format (struct
 * etw_payload_event in <linux/etw.h>): the layout of the template's first
 * properties, as far as the last field compared, then the predicates.
 * TdhAggregatePayloadFilters() puts blocks of one provider behind a
 * struct etw_payload_filter; EnableTraceEx2() passes that to the kernel,
 * which applies it to each event before it is written.
 *
 * As Microsoft documents (PAYLOAD_FILTER_PREDICATE): integers, FILETIME
 * and Boolean compare with EQ...MODULO, strings with CONTAINS...ISNOT,
 * GUIDs with IS and ISNOT; floating point, binary, pointers, SIDs and
 * SYSTEMTIME cannot be compared (ERROR_NOT_SUPPORTED).  Strings compare
 * ignoring ASCII case only.  The properties before the field must have a
 * layout the kernel can step over: fixed-size values and arrays of them,
 * NUL-terminated strings, strings and binary counted by an earlier
 * property; a struct, a SID or an array of strings before it gives
 * ERROR_NOT_SUPPORTED.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <objbase.h>
#include <tdh.h>

#include "etw_etl.h"
#include "etw_lib.h"
#include "etw_tdh.h"
#include "etw_tdh_manifest.h"

/* What TdhCreatePayloadFilter() returns: its provider, then one block. */
struct etw_tdh_payload {
	GUID provider;
	uint32_t size;
	uint8_t block[];
};

/* A block being built: header, fields, predicates, then operands. */
struct etw_pf_build {
	struct etw_payload_event ev;
	struct etw_payload_field field[ETW_MAX_PAYLOAD_FIELDS];
	struct etw_payload_predicate pred[ETW_MAX_PAYLOAD_PREDICATES];
	uint8_t val[ETW_MAX_PAYLOAD_PREDICATES][ETW_MAX_PAYLOAD_VALUE];
};

static size_t etw_pf_wcslen(const WCHAR *w)
{
	size_t n = 0;

	while (w[n])
		n++;
	return n;
}

static char *etw_pf_utf8(const WCHAR *w)
{
	return etw_etl_utf16_to_utf8((const uint8_t *)w, etw_pf_wcslen(w));
}

static const struct etw_mf_event *
etw_pf_event_of(const struct etw_mf_provider *p, const EVENT_DESCRIPTOR *d)
{
	uint32_t i;

	for (i = 0; i < p->nevents; i++)
		if (p->events[i].desc.Id == d->Id &&
		    p->events[i].desc.Version == d->Version)
			return &p->events[i];
	return NULL;
}

static bool etw_pf_is_string(USHORT in)
{
	return in == TDH_INTYPE_UNICODESTRING || in == TDH_INTYPE_ANSISTRING;
}

/* How property @i is laid out, as the kernel steps over it. */
static ULONG etw_pf_field(const struct etw_mf_template *t, uint32_t i,
			  struct etw_payload_field *f)
{
	const EVENT_PROPERTY_INFO *epi = &t->p[i].epi;
	USHORT in = epi->nonStructType.InType;
	ULONG unit = in == TDH_INTYPE_UNICODESTRING ? 2 : 1, size;

	memset(f, 0, sizeof(*f));
	if (epi->Flags & PropertyStruct)
		return ERROR_NOT_SUPPORTED;
	if (etw_pf_is_string(in) || in == TDH_INTYPE_BINARY) {
		if (epi->Flags & (PropertyParamCount | PropertyParamFixedCount))
			return ERROR_NOT_SUPPORTED;
		if (epi->Flags & PropertyParamLength) {
			f->kind = ETW_PAYLOAD_FIELD_COUNTED;
			f->ref = (uint8_t)epi->lengthPropertyIndex;
			f->size = (uint16_t)unit;
		} else if (epi->Flags & PropertyParamFixedLength) {
			if (!epi->length)
				return ERROR_NOT_SUPPORTED;
			f->kind = ETW_PAYLOAD_FIELD_FIXED;
			f->size = (uint16_t)(epi->length * unit);
		} else if (in == TDH_INTYPE_BINARY) {
			return ERROR_NOT_SUPPORTED;
		} else {
			f->kind = unit == 2 ? ETW_PAYLOAD_FIELD_SZ16 :
					      ETW_PAYLOAD_FIELD_SZ8;
		}
		return ERROR_SUCCESS;
	}
	/* libetw writes 64-bit pointers. */
	size = etw_tdh_fixed_size(in, 8);
	if (!size)
		return ERROR_NOT_SUPPORTED;
	if (epi->Flags & PropertyParamCount) {
		f->kind = ETW_PAYLOAD_FIELD_COUNTED;
		f->ref = (uint8_t)epi->countPropertyIndex;
		f->size = (uint16_t)size;
	} else {
		f->kind = ETW_PAYLOAD_FIELD_FIXED;
		f->size = (uint16_t)(size * (epi->Flags & PropertyParamFixedCount ?
					     epi->count : 1));
	}
	return f->size ? ERROR_SUCCESS : ERROR_NOT_SUPPORTED;
}

/* The kernel reads a count from a FIXED field of 1, 2 or 4 bytes. */
static bool etw_pf_count_ok(const struct etw_pf_build *b, uint32_t i)
{
	const struct etw_payload_field *r;

	if (b->field[i].kind != ETW_PAYLOAD_FIELD_COUNTED)
		return true;
	if (b->field[i].ref >= i)
		return false;
	r = &b->field[b->field[i].ref];
	return r->kind == ETW_PAYLOAD_FIELD_FIXED &&
	       (r->size == 1 || r->size == 2 || r->size == 4);
}

/* Lay out properties 0..@last. */
static ULONG etw_pf_layout(const struct etw_mf_template *t, uint32_t last,
			   struct etw_pf_build *b)
{
	uint32_t i;
	ULONG ret;

	if (last >= ETW_MAX_PAYLOAD_FIELDS)
		return ERROR_NOT_SUPPORTED;
	for (i = 0; i <= last; i++) {
		ret = etw_pf_field(t, i, &b->field[i]);
		if (ret)
			return ret;
		if (!etw_pf_count_ok(b, i))
			return ERROR_NOT_SUPPORTED;
	}
	b->ev.nfields = (uint8_t)(last + 1);
	return ERROR_SUCCESS;
}

static int etw_pf_top_index(const struct etw_mf_template *t, const char *name)
{
	uint32_t i;

	for (i = 0; t && i < t->top; i++)
		if (!strcmp(t->p[i].name, name))
			return (int)i;
	return -1;
}

/* One integer of the field's type: decimal, or hexadecimal after 0x. */
static bool etw_pf_number(const char **s, bool is_signed, unsigned int bytes,
			  __u64 *out)
{
	const char *p = *s;
	bool neg = false;
	uint64_t v = 0, max = bytes == 8 ? UINT64_MAX :
				  (1ULL << (8 * bytes)) - 1;
	unsigned int base = 10, d, n = 0;

	while (*p == ' ')
		p++;
	if (*p == '-' && is_signed) {
		neg = true;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (;; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	while (*p == ' ')
		p++;
	if (!n)
		return false;
	if (is_signed) {
		/* The magnitude of the type's minimum is max / 2 + 1. */
		if (v > max / 2 + neg)
			return false;
		*out = neg ? -v : v;
	} else if (v > max) {
		return false;
	} else {
		*out = v;
	}
	*s = p;
	return true;
}

static bool etw_pf_is_signed(USHORT in)
{
	return in == TDH_INTYPE_INT8 || in == TDH_INTYPE_INT16 ||
	       in == TDH_INTYPE_INT32 || in == TDH_INTYPE_INT64;
}

static bool etw_pf_is_int(USHORT in)
{
	switch (in) {
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
	case TDH_INTYPE_HEXINT32: case TDH_INTYPE_HEXINT64:
	case TDH_INTYPE_BOOLEAN: case TDH_INTYPE_FILETIME:
		return true;
	}
	return false;
}

/* An integer predicate's operand(s): "v", or "lo,hi" for the ranges. */
static ULONG etw_pf_int_operand(struct etw_payload_predicate *q, USHORT in,
				unsigned int bytes, const char *s)
{
	bool sg = etw_pf_is_signed(in);
	bool two = q->op == ETW_PAYLOAD_OP_BETWEEN ||
		   q->op == ETW_PAYLOAD_OP_NOTBETWEEN;

	if (q->op > ETW_PAYLOAD_OP_MODULO)
		return ERROR_INVALID_PARAMETER;
	q->type = sg ? ETW_PAYLOAD_INT : ETW_PAYLOAD_UINT;
	if (!etw_pf_number(&s, sg, bytes, &q->value))
		return ERROR_INVALID_PARAMETER;
	if (two && (*s++ != ',' || !etw_pf_number(&s, sg, bytes, &q->value2)))
		return ERROR_INVALID_PARAMETER;
	if (*s || (q->op == ETW_PAYLOAD_OP_MODULO && !q->value))
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

/* A string or GUID predicate's operand, into @val. */
static ULONG etw_pf_bytes_operand(struct etw_payload_predicate *q, USHORT in,
				  const WCHAR *w, uint8_t *val)
{
	size_t n;
	char *s;

	if (in == TDH_INTYPE_GUID) {
		if (q->op != ETW_PAYLOAD_OP_IS && q->op != ETW_PAYLOAD_OP_ISNOT)
			return ERROR_INVALID_PARAMETER;
		if (IIDFromString(w, (GUID *)val) != S_OK)
			return ERROR_INVALID_PARAMETER;
		q->type = ETW_PAYLOAD_BYTES;
		q->value_len = sizeof(GUID);
		return ERROR_SUCCESS;
	}
	if (q->op != ETW_PAYLOAD_OP_CONTAINS &&
	    q->op != ETW_PAYLOAD_OP_DOESNTCONTAIN &&
	    q->op != ETW_PAYLOAD_OP_IS && q->op != ETW_PAYLOAD_OP_ISNOT)
		return ERROR_INVALID_PARAMETER;
	if (in == TDH_INTYPE_UNICODESTRING) {
		n = etw_pf_wcslen(w) * sizeof(WCHAR);
		if (n > ETW_MAX_PAYLOAD_VALUE)
			return ERROR_INVALID_PARAMETER;
		memcpy(val, w, n);
		q->type = ETW_PAYLOAD_STR16;
		q->value_len = (uint16_t)n;
		return ERROR_SUCCESS;
	}
	s = etw_pf_utf8(w);
	if (!s)
		return ERROR_NOT_ENOUGH_MEMORY;
	n = strlen(s);
	if (n <= ETW_MAX_PAYLOAD_VALUE)
		memcpy(val, s, n);
	free(s);
	if (n > ETW_MAX_PAYLOAD_VALUE)
		return ERROR_INVALID_PARAMETER;
	q->type = ETW_PAYLOAD_STR8;
	q->value_len = (uint16_t)n;
	return ERROR_SUCCESS;
}

/* Resolve one predicate against property @i of @t. */
static ULONG etw_pf_predicate(const struct etw_mf_template *t, int i,
			      const PAYLOAD_FILTER_PREDICATE *in,
			      struct etw_payload_predicate *q, uint8_t *val)
{
	const EVENT_PROPERTY_INFO *epi = &t->p[i].epi;
	USHORT type = epi->nonStructType.InType;
	ULONG ret;
	char *s;

	memset(q, 0, sizeof(*q));
	q->field = (uint8_t)i;
	q->op = (uint8_t)in->CompareOp;
	if (in->CompareOp > PAYLOADFIELD_ISNOT || !in->Value)
		return ERROR_INVALID_PARAMETER;
	/* One value: not a struct, not an array. */
	if (epi->Flags & (PropertyStruct | PropertyParamCount |
			  PropertyParamFixedCount))
		return ERROR_NOT_SUPPORTED;
	if (etw_pf_is_string(type) || type == TDH_INTYPE_GUID)
		return etw_pf_bytes_operand(q, type, in->Value, val);
	if (!etw_pf_is_int(type))
		return ERROR_NOT_SUPPORTED;
	s = etw_pf_utf8(in->Value);
	if (!s)
		return ERROR_NOT_ENOUGH_MEMORY;
	ret = etw_pf_int_operand(q, type, etw_tdh_fixed_size(type, 8), s);
	free(s);
	return ret;
}

/* The property index of each predicate's field; the last one in *@last. */
static ULONG etw_pf_fields_named(const struct etw_mf_template *t, ULONG n,
				 const PAYLOAD_FILTER_PREDICATE *p, int *idx,
				 uint32_t *last)
{
	ULONG i;
	char *name;

	*last = 0;
	for (i = 0; i < n; i++) {
		if (!p[i].FieldName)
			return ERROR_INVALID_PARAMETER;
		name = etw_pf_utf8(p[i].FieldName);
		if (!name)
			return ERROR_NOT_ENOUGH_MEMORY;
		idx[i] = etw_pf_top_index(t, name);
		free(name);
		if (idx[i] < 0)
			return ERROR_NOT_FOUND;
		if ((uint32_t)idx[i] > *last)
			*last = idx[i];
	}
	return ERROR_SUCCESS;
}

/* Lay out @b into a struct etw_tdh_payload for @guid. */
static ULONG etw_pf_emit(const GUID *guid, struct etw_pf_build *b,
			 PVOID *out)
{
	size_t preds = ETW_PAYLOAD_PREDICATES_OFF(b->ev.nfields);
	size_t head = preds + b->ev.npreds * sizeof(b->pred[0]), size = head, i;
	struct etw_tdh_payload *r;
	uint8_t *p;

	for (i = 0; i < b->ev.npreds; i++)
		size += b->pred[i].value_len;
	size = (size + 7) & ~(size_t)7;
	if (sizeof(struct etw_payload_filter) + size > ETW_MAX_PAYLOAD_FILTER)
		return ERROR_INSUFFICIENT_BUFFER;
	r = calloc(1, sizeof(*r) + size);
	if (!r)
		return ERROR_NOT_ENOUGH_MEMORY;
	r->provider = *guid;
	r->size = (uint32_t)size;
	b->ev.size = (uint32_t)size;
	p = r->block;
	memcpy(p, &b->ev, sizeof(b->ev));
	memcpy(p + sizeof(b->ev), b->field,
	       b->ev.nfields * sizeof(b->field[0]));
	for (i = 0, size = head; i < b->ev.npreds; i++) {
		if (b->pred[i].value_len) {
			b->pred[i].value_off = (uint16_t)size;
			memcpy(p + size, b->val[i], b->pred[i].value_len);
			size += b->pred[i].value_len;
		}
	}
	memcpy(p + preds, b->pred, b->ev.npreds * sizeof(b->pred[0]));
	*out = r;
	return ERROR_SUCCESS;
}

static ULONG etw_pf_create(const struct etw_mf_provider *prov,
			   const EVENT_DESCRIPTOR *d, BOOLEAN any, ULONG n,
			   const PAYLOAD_FILTER_PREDICATE *preds,
			   struct etw_pf_build *b, PVOID *out)
{
	const struct etw_mf_event *ev = etw_pf_event_of(prov, d);
	int idx[MAX_PAYLOAD_PREDICATES];
	uint32_t last;
	ULONG i, ret;

	if (!ev)
		return ERROR_NOT_FOUND;
	ret = etw_pf_fields_named(ev->tmpl, n, preds, idx, &last);
	if (!ret)
		ret = etw_pf_layout(ev->tmpl, last, b);
	for (i = 0; !ret && i < n; i++)
		ret = etw_pf_predicate(ev->tmpl, idx[i], &preds[i],
				       &b->pred[i], b->val[i]);
	if (ret)
		return ret;
	b->ev.id = d->Id;
	b->ev.version = d->Version;
	b->ev.match_any = any ? 1 : 0;
	b->ev.npreds = (uint8_t)n;
	return etw_pf_emit(&prov->guid, b, out);
}

/**
 * TdhCreatePayloadFilter - builds a payload filter for one event
 * @ProviderGuid: the manifest provider
 * @EventDescriptor: the event (its Id and Version)
 * @EventMatchANY: TRUE: the event passes when any predicate holds; FALSE:
 *	when all do
 * @PayloadPredicateCount: predicates, 1..MAX_PAYLOAD_PREDICATES
 * @PayloadPredicates: the predicates
 * @PayloadFilter: receives the filter; free it with TdhDeletePayloadFilter()
 *
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER (an argument, an
 * operator that does not fit the field's type, an operand that is not of
 * that type, or a string operand over 1,024 bytes); ERROR_FILE_NOT_FOUND
 * (no manifest describes the provider); ERROR_NOT_FOUND (the manifest has
 * no such event, or its template no such top-level property);
 * ERROR_NOT_SUPPORTED (a field of a type payload filters do not compare,
 * or one the kernel cannot find, see above); ERROR_INSUFFICIENT_BUFFER
 * (larger than MAX_EVENT_FILTER_PAYLOAD_SIZE); ERROR_NOT_ENOUGH_MEMORY.
 */
TDHSTATUS WINAPI TdhCreatePayloadFilter(LPCGUID ProviderGuid,
	PCEVENT_DESCRIPTOR EventDescriptor, BOOLEAN EventMatchANY,
	ULONG PayloadPredicateCount,
	PPAYLOAD_FILTER_PREDICATE PayloadPredicates, PVOID *PayloadFilter)
{
	const struct etw_mf_provider *prov;
	struct etw_pf_build *b;
	ULONG ret;

	if (!PayloadFilter)
		return ERROR_INVALID_PARAMETER;
	*PayloadFilter = NULL;
	if (!ProviderGuid || !EventDescriptor || !PayloadPredicates ||
	    !PayloadPredicateCount ||
	    PayloadPredicateCount > MAX_PAYLOAD_PREDICATES)
		return ERROR_INVALID_PARAMETER;
	b = calloc(1, sizeof(*b));
	if (!b)
		return ERROR_NOT_ENOUGH_MEMORY;
	etw_manifest_read_lock();
	prov = etw_mf_provider_of(ProviderGuid);
	ret = prov ? etw_pf_create(prov, EventDescriptor, EventMatchANY,
				   PayloadPredicateCount, PayloadPredicates,
				   b, PayloadFilter) :
		     ERROR_FILE_NOT_FOUND;
	etw_manifest_read_unlock();
	free(b);
	return ret;
}

/**
 * TdhDeletePayloadFilter - frees what TdhCreatePayloadFilter() made
 * @PayloadFilter: the filter; set to NULL
 *
 * Return: ERROR_SUCCESS, or ERROR_INVALID_PARAMETER for a NULL pointer.
 */
TDHSTATUS WINAPI TdhDeletePayloadFilter(PVOID *PayloadFilter)
{
	if (!PayloadFilter)
		return ERROR_INVALID_PARAMETER;
	free(*PayloadFilter);
	*PayloadFilter = NULL;
	return ERROR_SUCCESS;
}

/**
 * TdhAggregatePayloadFilters - one EVENT_FILTER_TYPE_PAYLOAD descriptor
 * from filters of one provider
 * @PayloadFilterCount: filters, 1..64
 * @PayloadFilterPtrs: filters TdhCreatePayloadFilter() made
 * @EventMatchALLFlags: per filter, TRUE to make it one an event must pass
 *	(with the other flagged filters of its event), FALSE for one of
 *	those of which an event must pass one; NULL: all FALSE
 * @EventFilterDescriptor: receives the descriptor; free it with
 *	TdhCleanupPayloadEventFilterDescriptor()
 *
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER (an argument, filters of
 * different providers); ERROR_INSUFFICIENT_BUFFER (together larger than
 * MAX_EVENT_FILTER_PAYLOAD_SIZE); ERROR_NOT_ENOUGH_MEMORY.
 */
TDHSTATUS WINAPI TdhAggregatePayloadFilters(ULONG PayloadFilterCount,
	PVOID *PayloadFilterPtrs, PBOOLEAN EventMatchALLFlags,
	PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor)
{
	struct etw_payload_filter *h;
	const struct etw_tdh_payload *f;
	size_t size = sizeof(*h), off;
	ULONG i;

	if (!PayloadFilterCount || !PayloadFilterPtrs ||
	    !EventFilterDescriptor || PayloadFilterCount > ETW_MAX_PAYLOAD_EVENTS)
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < PayloadFilterCount; i++) {
		f = PayloadFilterPtrs[i];
		if (!f || memcmp(&f->provider,
				 &((const struct etw_tdh_payload *)
				   PayloadFilterPtrs[0])->provider,
				 sizeof(GUID)))
			return ERROR_INVALID_PARAMETER;
		size += f->size;
	}
	if (size > MAX_EVENT_FILTER_PAYLOAD_SIZE)
		return ERROR_INSUFFICIENT_BUFFER;
	h = calloc(1, size);
	if (!h)
		return ERROR_NOT_ENOUGH_MEMORY;
	h->size = (uint32_t)size;
	h->count = (uint16_t)PayloadFilterCount;
	for (i = 0, off = sizeof(*h); i < PayloadFilterCount; i++) {
		struct etw_payload_event *e = (void *)((uint8_t *)h + off);

		f = PayloadFilterPtrs[i];
		memcpy(e, f->block, f->size);
		e->match_all_group = EventMatchALLFlags &&
				     EventMatchALLFlags[i] ? 1 : 0;
		off += f->size;
	}
	EventFilterDescriptor->Ptr = (ULONGLONG)(uintptr_t)h;
	EventFilterDescriptor->Size = (ULONG)size;
	EventFilterDescriptor->Type = EVENT_FILTER_TYPE_PAYLOAD;
	return ERROR_SUCCESS;
}

/**
 * TdhCleanupPayloadEventFilterDescriptor - frees what
 * TdhAggregatePayloadFilters() put in a descriptor
 * @EventFilterDescriptor: the descriptor; zeroed
 *
 * Return: ERROR_SUCCESS; ERROR_INVALID_PARAMETER for NULL or a descriptor
 * of another type.
 */
TDHSTATUS WINAPI TdhCleanupPayloadEventFilterDescriptor(
	PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor)
{
	if (!EventFilterDescriptor ||
	    (EventFilterDescriptor->Ptr &&
	     EventFilterDescriptor->Type != EVENT_FILTER_TYPE_PAYLOAD))
		return ERROR_INVALID_PARAMETER;
	free((void *)(uintptr_t)EventFilterDescriptor->Ptr);
	memset(EventFilterDescriptor, 0, sizeof(*EventFilterDescriptor));
	return ERROR_SUCCESS;
}
