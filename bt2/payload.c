// SPDX-License-Identifier: GPL-2.0
/*
 * payload.c: an event's payload fields, through TDH.
 *
 * The properties are walked in the order of the event class's schema
 * (classes.c made the field classes from the same walk).  Each value goes
 * through TdhFormatProperty, which says how many bytes it took and gives
 * its text; numbers are then read from those bytes, text from the text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etwbt.h"

/* One event being decoded. */
struct etwbt_fill {
	struct etwbt_class *cls;
	const TRACE_EVENT_INFO *tei;
	const uint8_t *p;
	const uint8_t *end;
	ULONG ptr_size;
	struct etwbt_text *t;
};

static const EVENT_PROPERTY_INFO *etwbt_epi(const struct etwbt_fill *d,
					    ULONG i)
{
	return &d->tei->EventPropertyInfoArray[i];
}

/* TdhFormatProperty into d->t, growing it as asked. */
static ULONG etwbt_format(struct etwbt_fill *d, const EVENT_PROPERTY_INFO *epi,
			  EVENT_MAP_INFO *map, ULONG *size, USHORT *used)
{
	USHORT length = epi->Flags & PropertyParamLength ?
			d->cls->ints[epi->lengthPropertyIndex] : epi->length;
	ULONG ret;
	WCHAR *text;

	for (;;) {
		*size = d->t->size;
		ret = TdhFormatProperty((PTRACE_EVENT_INFO)d->tei, map,
					d->ptr_size, epi->nonStructType.InType,
					epi->nonStructType.OutType, length,
					(USHORT)(d->end - d->p), (PBYTE)d->p,
					size, d->t->text, used);
		if (ret != ERROR_INSUFFICIENT_BUFFER)
			return ret;
		text = realloc(d->t->text, *size);
		if (!text)
			return ERROR_OUTOFMEMORY;
		d->t->text = text;
		d->t->size = *size;
	}
}

static int etwbt_set_bytes(bt_field *f, const uint8_t *p, size_t n)
{
	size_t i;

	if (bt_field_array_dynamic_set_length(f, n))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		bt_field_integer_unsigned_set_value(
			bt_field_array_borrow_element_field_by_index(f, i),
			p[i]);
	return 0;
}

static int etwbt_set_string(bt_field *f, const char *s, size_t len)
{
	bt_field_string_clear(f);
	return bt_field_string_append_with_length(f, s, len) ? -ENOMEM : 0;
}

static int etwbt_set_text(bt_field *f, const struct etwbt_text *t,
			  ULONG size, bool number)
{
	char *utf8 = etw_etl_utf16_to_utf8((const uint8_t *)t->text,
					   size / 2), *end;
	int ret = 0;

	if (!utf8)
		return -ENOMEM;
	if (!number) {
		ret = etwbt_set_string(f, utf8, strlen(utf8));
	} else {
		bt_field_integer_unsigned_set_value(f,
			strtoull(utf8, &end, 10));
		if (end == utf8 || *end)
			ret = -EBADMSG;
	}
	free(utf8);
	return ret;
}

/* Set @f from the @n bytes of one value at @raw. */
static int etwbt_set(bt_field *f, const struct etwbt_scalar *s,
		     const uint8_t *raw, USHORT n, const struct etwbt_text *t,
		     ULONG size)
{
	char guid[ETWBT_GUID_LEN];
	int shift = 64 - (int)s->bits;
	uint64_t u = 0;
	double dbl;
	float flt;

	if (n < s->skip ||
	    (s->kind == ETWBT_REAL32 && n != sizeof(flt)) ||
	    (s->kind == ETWBT_REAL64 && n != sizeof(dbl)) ||
	    (s->kind == ETWBT_GUID && n != sizeof(GUID)))
		return -EBADMSG;
	memcpy(&u, raw, n < 8 ? n : 8);
	switch (s->kind) {
	case ETWBT_SINT:
		bt_field_integer_signed_set_value(f,
			(int64_t)(u << shift) >> shift);
		return 0;
	case ETWBT_UINT:
	case ETWBT_HEX:
		bt_field_integer_unsigned_set_value(f, u);
		return 0;
	case ETWBT_BOOL:
		bt_field_bool_set_value(f, u != 0);
		return 0;
	case ETWBT_REAL32:
		memcpy(&flt, raw, sizeof(flt));
		bt_field_real_single_precision_set_value(f, flt);
		return 0;
	case ETWBT_REAL64:
		memcpy(&dbl, raw, sizeof(dbl));
		bt_field_real_double_precision_set_value(f, dbl);
		return 0;
	case ETWBT_ANSI:
		return etwbt_set_string(f, (const char *)raw + s->skip,
			strnlen((const char *)raw + s->skip, n - s->skip));
	case ETWBT_GUID:
		etwbt_guid_format(raw, guid);
		return etwbt_set_string(f, guid, strlen(guid));
	case ETWBT_BYTES:
		return etwbt_set_bytes(f, raw + s->skip, n - s->skip);
	case ETWBT_PORT:
	case ETWBT_TEXT:
		break;
	}
	return etwbt_set_text(f, t, size, s->kind == ETWBT_PORT);
}

/*
 * One value of non-struct property @i into @f (NULL: a count or length,
 * only remembered).
 */
static int etwbt_value(struct etwbt_fill *d, ULONG i, bt_field *f)
{
	const EVENT_PROPERTY_INFO *epi = etwbt_epi(d, i);
	USHORT in = epi->nonStructType.InType;
	const uint8_t *raw = d->p;
	struct etwbt_scalar s;
	ULONG size, ret, v = 0;
	USHORT used;

	ret = etwbt_format(d, epi, d->cls->maps[i], &size, &used);
	if (ret)
		return ret == ERROR_OUTOFMEMORY ? -ENOMEM : -EBADMSG;
	d->p += used;
	if (in == TDH_INTYPE_UINT8 || in == TDH_INTYPE_UINT16 ||
	    in == TDH_INTYPE_UINT32) {
		memcpy(&v, raw, used < sizeof(v) ? used : sizeof(v));
		d->cls->ints[i] = v > 0xffff ? 0xffff : (USHORT)v;
	}
	if (!f)
		return 0;
	etwbt_scalar_of(in, epi->nonStructType.OutType, &s);
	if (d->cls->maps[i])
		s.kind = ETWBT_TEXT;
	return etwbt_set(f, &s, raw, used, d->t, size);
}

static int etwbt_struct(struct etwbt_fill *d, bt_field *st, ULONG first,
			ULONG n);

static int etwbt_one(struct etwbt_fill *d, ULONG i, bt_field *f)
{
	const EVENT_PROPERTY_INFO *epi = etwbt_epi(d, i);

	if (epi->Flags & PropertyStruct)
		return etwbt_struct(d, f, epi->structType.StructStartIndex,
				    epi->structType.NumOfStructMembers);
	return etwbt_value(d, i, f);
}

/* Property @i into @f: one value, or an array of them. */
static int etwbt_prop(struct etwbt_fill *d, ULONG i, bt_field *f)
{
	const EVENT_PROPERTY_INFO *epi = etwbt_epi(d, i);
	bool dynamic = epi->Flags & PropertyParamCount;
	ULONG count, k;
	int ret;

	count = dynamic ? d->cls->ints[epi->countPropertyIndex] : epi->count;
	if (!dynamic && !(epi->Flags & PropertyParamFixedCount) && count == 1)
		return etwbt_one(d, i, f);
	if (dynamic &&
	    bt_field_array_dynamic_set_length(f, count) !=
	    BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK)
		return -ENOMEM;
	for (k = 0; k < count; k++) {
		ret = etwbt_one(d, i,
				bt_field_array_borrow_element_field_by_index(f,
									     k));
		if (ret)
			return ret;
	}
	return 0;
}

/* The members of a struct (or of the top level) into @st. */
static int etwbt_struct(struct etwbt_fill *d, bt_field *st, ULONG first,
			ULONG n)
{
	uint64_t member = 0;
	ULONG i;
	int ret;

	for (i = first; i < first + n; i++) {
		if (etwbt_is_prefix(d->tei, i, first + n))
			ret = etwbt_value(d, i, NULL);
		else
			ret = etwbt_prop(d, i,
				bt_field_structure_borrow_member_field_by_index(
					st, member++));
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * etwbt_payload_fill - an event's payload, decoded through TDH
 * @cls: the event's class (with a schema)
 * @rec: the event
 * @payload: the event's payload structure field
 * @scratch: text buffer for TdhFormatProperty, kept between events
 *
 * Return: 0; -EBADMSG when TDH cannot decode the payload (short or
 * malformed), -ENOMEM.  The fields are then partly set: the caller makes
 * another event.
 */
int etwbt_payload_fill(struct etwbt_class *cls, const EVENT_RECORD *rec,
		       bt_field *payload, struct etwbt_text *scratch)
{
	struct etwbt_fill d = {
		.cls = cls,
		.tei = cls->tei,
		.p = rec->UserData ? rec->UserData : (const uint8_t *)"",
		.ptr_size = rec->EventHeader.Flags &
			    EVENT_HEADER_FLAG_32_BIT_HEADER ? 4 : 8,
		.t = scratch,
	};

	d.end = d.p + rec->UserDataLength;
	memset(cls->ints, 0, (cls->tei->PropertyCount + 1) * sizeof(*cls->ints));
	return etwbt_struct(&d, payload, 0, cls->tei->TopLevelPropertyCount);
}

/**
 * etwbt_raw_fill - a raw class's payload: the event's bytes
 * @ev: the event
 * @payload: the event's payload structure field
 *
 * Return: 0, or -ENOMEM.
 */
int etwbt_raw_fill(const struct etw_etl_event *ev, bt_field *payload)
{
	return etwbt_set_bytes(
		bt_field_structure_borrow_member_field_by_index(payload, 0),
		ev->user_data, ev->user_data_len);
}
