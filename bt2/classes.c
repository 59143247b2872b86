// SPDX-License-Identifier: GPL-2.0
/*
 * classes.c: event classes, made on demand.
 *
 * A kind of event is its provider GUID, id, version and opcode, and for
 * TraceLogging events its metadata (the EVENT_SCHEMA_TL item), since
 * TraceLogging events of one provider share id 0.  Its first event gives
 * TDH's TRACE_EVENT_INFO, which names the class "Provider:Event" and
 * gives the payload field class: a structure with one member per
 * property.  The properties that only hold the count or length of the
 * next one (which TDH adds for TraceLogging arrays and binary fields) are
 * left out: the dynamic array they measure has its own length.
 *
 * An event TDH cannot describe (no schema, a custom schema, a malformed
 * one) gets a "raw" class named "Provider:ID" whose payload is its bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etwbt.h"

/* FNV-1a, 64-bit. */
#define ETWBT_FNV_BASIS	0xcbf29ce484222325ull
#define ETWBT_FNV_PRIME	0x100000001b3ull

static uint64_t etwbt_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * ETWBT_FNV_PRIME;
	return h;
}

/**
 * etwbt_scalar_of - the field kind of an InType and OutType
 * @in: TDH_INTYPE_*
 * @out: TDH_OUTTYPE_*
 * @s: out: the mapping
 *
 * Integers keep their size and sign, hexadecimal OutTypes become
 * hexadecimal integers, a 1-byte integer shown as a Boolean becomes a
 * Boolean, a port the number TDH reads; what is text rather than a number
 * (a 1-byte CHAR, an IPv4 address, times, SIDs, strings) becomes the text
 * TdhFormatProperty gives, except ANSI strings, whose bytes are kept as
 * they are, as etwctl does.
 */
void etwbt_scalar_of(USHORT in, USHORT out, struct etwbt_scalar *s)
{
	s->bits = 64;
	s->skip = 0;
	switch (in) {
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
		s->bits = 8u << ((in - TDH_INTYPE_INT8) / 2);
		if (s->bits == 8 && out == TDH_OUTTYPE_BOOLEAN)
			s->kind = ETWBT_BOOL;
		else if (s->bits == 16 && out == TDH_OUTTYPE_PORT)
			s->kind = ETWBT_PORT;
		else if ((s->bits == 8 && out == TDH_OUTTYPE_STRING) ||
			 (s->bits == 32 && out == TDH_OUTTYPE_IPV4))
			s->kind = ETWBT_TEXT;
		else if (out >= TDH_OUTTYPE_HEXINT8 &&
			 out <= TDH_OUTTYPE_HEXINT64)
			s->kind = ETWBT_HEX;
		else
			s->kind = in % 2 ? ETWBT_SINT : ETWBT_UINT;
		return;
	case TDH_INTYPE_HEXINT32:
		s->bits = 32;
		s->kind = ETWBT_HEX;
		return;
	case TDH_INTYPE_HEXINT64:
	case TDH_INTYPE_POINTER:
		s->kind = ETWBT_HEX;
		return;
	case TDH_INTYPE_BOOLEAN:
		s->kind = ETWBT_BOOL;
		return;
	case TDH_INTYPE_FLOAT:
		s->kind = ETWBT_REAL32;
		return;
	case TDH_INTYPE_DOUBLE:
		s->kind = ETWBT_REAL64;
		return;
	case TDH_INTYPE_GUID:
		s->kind = ETWBT_GUID;
		return;
	case TDH_INTYPE_ANSISTRING:
		s->kind = ETWBT_ANSI;
		return;
	case TDH_INTYPE_MANIFEST_COUNTEDANSISTRING:
		s->kind = ETWBT_ANSI;
		s->skip = 2;
		return;
	case TDH_INTYPE_BINARY:
	case TDH_INTYPE_HEXDUMP:
		s->kind = ETWBT_BYTES;
		return;
	case TDH_INTYPE_MANIFEST_COUNTEDBINARY:
		s->kind = ETWBT_BYTES;
		s->skip = 2;
		return;
	}
	s->kind = ETWBT_TEXT;
}

/**
 * etwbt_is_prefix - property @i only holds the count or length of the next
 * @tei: the schema
 * @i: a property
 * @end: the end of @i's struct (or of the top level)
 *
 * Return: true when property @i + 1 takes its count or length from @i.
 */
bool etwbt_is_prefix(const TRACE_EVENT_INFO *tei, ULONG i, ULONG end)
{
	const EVENT_PROPERTY_INFO *next;

	if (i + 1 >= end)
		return false;
	next = &tei->EventPropertyInfoArray[i + 1];
	return ((next->Flags & PropertyParamCount) &&
		next->countPropertyIndex == i) ||
	       ((next->Flags & PropertyParamLength) &&
		next->lengthPropertyIndex == i);
}

/**
 * etwbt_tei_string - a string of a TRACE_EVENT_INFO as UTF-8
 * @tei: the schema
 * @off: the string's offset, 0 for none
 *
 * Return: the string, malloc'ed ("" for none), or NULL.
 */
char *etwbt_tei_string(const TRACE_EVENT_INFO *tei, ULONG off)
{
	const uint8_t *s = (const uint8_t *)tei + off;
	size_t n = 0;

	if (!off)
		return strdup("");
	while (s[2 * n] || s[2 * n + 1])
		n++;
	return etw_etl_utf16_to_utf8(s, n);
}

static bt_field_class *etwbt_int_fc(bt_trace_class *tc,
				    const struct etwbt_scalar *s)
{
	bt_field_class *fc;

	fc = s->kind == ETWBT_SINT ? bt_field_class_integer_signed_create(tc) :
				     bt_field_class_integer_unsigned_create(tc);
	if (!fc)
		return NULL;
	bt_field_class_integer_set_field_value_range(fc, s->bits);
	if (s->kind == ETWBT_HEX)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	return fc;
}

static bt_field_class *etwbt_bytes_fc(bt_trace_class *tc)
{
	struct etwbt_scalar u8 = { .kind = ETWBT_HEX, .bits = 8 };
	bt_field_class *elem = etwbt_int_fc(tc, &u8), *fc;

	if (!elem)
		return NULL;
	fc = bt_field_class_array_dynamic_create(tc, elem, NULL);
	bt_field_class_put_ref(elem);
	return fc;
}

/* A property's value; a mapped one is text (the map's names). */
static bt_field_class *etwbt_scalar_fc(bt_trace_class *tc,
				       const EVENT_PROPERTY_INFO *epi,
				       bool mapped)
{
	struct etwbt_scalar s;

	if (epi->Flags & PropertyHasCustomSchema)
		return NULL;
	etwbt_scalar_of(epi->nonStructType.InType,
			epi->nonStructType.OutType, &s);
	switch (mapped ? ETWBT_TEXT : s.kind) {
	case ETWBT_SINT:
	case ETWBT_UINT:
	case ETWBT_HEX:
	case ETWBT_PORT:
		return etwbt_int_fc(tc, &s);
	case ETWBT_BOOL:
		return bt_field_class_bool_create(tc);
	case ETWBT_REAL32:
		return bt_field_class_real_single_precision_create(tc);
	case ETWBT_REAL64:
		return bt_field_class_real_double_precision_create(tc);
	case ETWBT_BYTES:
		return etwbt_bytes_fc(tc);
	default:
		return bt_field_class_string_create(tc);
	}
}

static bt_field_class *etwbt_struct_fc(bt_trace_class *tc,
				       const struct etwbt_class *k,
				       ULONG first, ULONG n);

/*
 * A property: its value's class, in an array when it has a count (a
 * dynamic one when an earlier property gives the count).
 */
static bt_field_class *etwbt_prop_fc(bt_trace_class *tc,
				     const struct etwbt_class *k, ULONG i)
{
	const EVENT_PROPERTY_INFO *epi = &k->tei->EventPropertyInfoArray[i];
	bt_field_class *elem, *fc;

	if (epi->Flags & PropertyStruct)
		elem = etwbt_struct_fc(tc, k, epi->structType.StructStartIndex,
				       epi->structType.NumOfStructMembers);
	else
		elem = etwbt_scalar_fc(tc, epi, k->maps[i]);
	if (!elem)
		return NULL;
	if (epi->Flags & PropertyParamCount)
		fc = bt_field_class_array_dynamic_create(tc, elem, NULL);
	else if ((epi->Flags & PropertyParamFixedCount) || epi->count != 1)
		fc = bt_field_class_array_static_create(tc, elem, epi->count);
	else
		return elem;
	bt_field_class_put_ref(elem);
	return fc;
}

/*
 * A member name CTF 1.8 takes: an identifier.  ETW names are any text
 * (TraceLogging's especially), so other characters become '_', a leading
 * digit gets a '_' before it, and a name an earlier member already has
 * gets "_2", "_3"... after it.  NULL when out of memory.
 */
static char *etwbt_member_name(const bt_field_class *st, const char *text)
{
	size_t len = strlen(text), i;
	char *name = malloc(len + 16), *p = name;
	unsigned int n;

	if (!name)
		return NULL;
	if (!*text || (*text >= '0' && *text <= '9'))
		*p++ = '_';
	for (i = 0; i < len; i++) {
		bool ok = (text[i] >= 'a' && text[i] <= 'z') ||
			  (text[i] >= 'A' && text[i] <= 'Z') ||
			  (text[i] >= '0' && text[i] <= '9');

		*p++ = ok ? text[i] : '_';
	}
	*p = 0;
	for (n = 2; bt_field_class_structure_borrow_member_by_name_const(st,
									 name);
	     n++)
		sprintf(p, "_%u", n);
	return name;
}

static int etwbt_member(bt_trace_class *tc, const struct etwbt_class *k,
			ULONG i, bt_field_class *st)
{
	const EVENT_PROPERTY_INFO *epi = &k->tei->EventPropertyInfoArray[i];
	bt_field_class *fc = NULL;
	char *text, *name = NULL;
	int ret = -EINVAL;

	/* A struct member list must come after its struct. */
	if ((epi->Flags & PropertyStruct) &&
	    epi->structType.StructStartIndex <= i)
		return -EINVAL;
	text = etwbt_tei_string(k->tei, epi->NameOffset);
	if (text)
		name = etwbt_member_name(st, text);
	if (name)
		fc = etwbt_prop_fc(tc, k, i);
	if (fc && bt_field_class_structure_append_member(st, name, fc) ==
		  BT_FIELD_CLASS_STRUCTURE_APPEND_MEMBER_STATUS_OK)
		ret = 0;
	bt_field_class_put_ref(fc);
	free(name);
	free(text);
	return ret;
}

static bt_field_class *etwbt_struct_fc(bt_trace_class *tc,
				       const struct etwbt_class *k,
				       ULONG first, ULONG n)
{
	const TRACE_EVENT_INFO *tei = k->tei;
	bt_field_class *st;
	ULONG i;

	if (first > tei->PropertyCount || n > tei->PropertyCount - first)
		return NULL;
	st = bt_field_class_structure_create(tc);
	for (i = first; st && i < first + n; i++) {
		if (etwbt_is_prefix(tei, i, first + n))
			continue;
		if (etwbt_member(tc, k, i, st)) {
			bt_field_class_put_ref(st);
			return NULL;
		}
	}
	return st;
}

/* The raw payload: "data", the event's bytes. */
static bt_field_class *etwbt_raw_fc(bt_trace_class *tc)
{
	bt_field_class *st = bt_field_class_structure_create(tc);
	bt_field_class *data = st ? etwbt_bytes_fc(tc) : NULL;

	if (!data || bt_field_class_structure_append_member(st, "data", data)) {
		bt_field_class_put_ref(st);
		st = NULL;
	}
	bt_field_class_put_ref(data);
	return st;
}

/* The provider's name: from the schema, the traits item, or the GUID. */
static char *etwbt_provider_name(const struct etw_etl_event *ev,
				 const TRACE_EVENT_INFO *tei)
{
	char guid[ETWBT_GUID_LEN];
	const char *name;
	uint16_t total;
	uint32_t i;

	if (tei && tei->ProviderNameOffset)
		return etwbt_tei_string(tei, tei->ProviderNameOffset);
	for (i = 0; i < ev->ext_count; i++) {
		if (ev->ext[i].type != ETW_EXT_PROV_TRAITS ||
		    ev->ext[i].size < 3)
			continue;
		/* UINT16 size, then the NUL-terminated name. */
		memcpy(&total, ev->ext[i].data, sizeof(total));
		name = (const char *)ev->ext[i].data + 2;
		if (total <= ev->ext[i].size &&
		    memchr(name, 0, ev->ext[i].size - 2u))
			return strdup(name);
	}
	etwbt_guid_format(&ev->provider_id, guid);
	return strdup(guid);
}

/*
 * The event's name in the schema: its own, else "Task/Opcode" (or the
 * task alone), as Windows tools name manifest events without one.
 */
static char *etwbt_event_name(const TRACE_EVENT_INFO *tei)
{
	char *task, *opcode, *name;

	if (tei->EventNameOffset)
		return etwbt_tei_string(tei, tei->EventNameOffset);
	if (!tei->OpcodeNameOffset)
		return etwbt_tei_string(tei, tei->TaskNameOffset);
	task = etwbt_tei_string(tei, tei->TaskNameOffset);
	opcode = etwbt_tei_string(tei, tei->OpcodeNameOffset);
	if (!task || !opcode || asprintf(&name, "%s/%s", task, opcode) < 0)
		name = NULL;
	free(task);
	free(opcode);
	return name;
}

/* "Provider:Event", or "Provider:ID" when the schema names no event. */
static char *etwbt_class_name(const struct etw_etl_event *ev,
			      const TRACE_EVENT_INFO *tei)
{
	char *provider = etwbt_provider_name(ev, tei), *event = NULL, *name;

	if (tei && (tei->EventNameOffset || tei->TaskNameOffset))
		event = etwbt_event_name(tei);
	else if (asprintf(&event, "%u", ev->descriptor.id) < 0)
		event = NULL;
	if (!provider || !event || asprintf(&name, "%s:%s", provider,
					    event) < 0)
		name = NULL;
	free(provider);
	free(event);
	return name;
}

/* The schema of @rec, malloc'ed, or NULL when TDH has none. */
static TRACE_EVENT_INFO *etwbt_tei(EVENT_RECORD *rec)
{
	TRACE_EVENT_INFO *tei = NULL, *bigger;
	ULONG size = 0, ret;

	ret = TdhGetEventInformation(rec, 0, NULL, NULL, &size);
	while (ret == ERROR_INSUFFICIENT_BUFFER) {
		bigger = realloc(tei, size);
		if (!bigger)
			break;
		tei = bigger;
		ret = TdhGetEventInformation(rec, 0, NULL, tei, &size);
	}
	if (ret != ERROR_SUCCESS) {
		free(tei);
		return NULL;
	}
	return tei;
}

static bt_event_class *etwbt_event_class(struct etwbt_comp *c,
					 const struct etw_etl_event *ev,
					 const struct etwbt_class *k)
{
	bt_event_class *ec = bt_event_class_create(c->sc);
	bt_field_class *payload;
	char *name;
	int ret = -ENOMEM;

	if (!ec)
		return NULL;
	name = etwbt_class_name(ev, k->tei);
	payload = k->tei ? etwbt_struct_fc(c->tc, k, 0,
					   k->tei->TopLevelPropertyCount) :
			   etwbt_raw_fc(c->tc);
	if (name && payload &&
	    !bt_event_class_set_name(ec, name) &&
	    !bt_event_class_set_payload_field_class(ec, payload))
		ret = 0;
	free(name);
	bt_field_class_put_ref(payload);
	if (ret) {
		bt_event_class_put_ref(ec);
		return NULL;
	}
	return ec;
}

static const struct etw_etl_ext *etwbt_tl_meta(const struct etw_etl_event *ev)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == ETW_EXT_EVENT_SCHEMA_TL)
			return &ev->ext[i];
	return NULL;
}

static uint64_t etwbt_key_hash(const struct etw_etl_event *ev,
			       const struct etw_etl_ext *meta, bool raw)
{
	uint64_t h = ETWBT_FNV_BASIS;

	h = etwbt_fnv(h, &ev->provider_id, sizeof(ev->provider_id));
	h = etwbt_fnv(h, &ev->descriptor.id, sizeof(ev->descriptor.id));
	h = etwbt_fnv(h, &ev->descriptor.version, 1);
	h = etwbt_fnv(h, &ev->descriptor.opcode, 1);
	h = etwbt_fnv(h, &raw, sizeof(raw));
	if (meta)
		h = etwbt_fnv(h, meta->data, meta->size);
	return h;
}

static bool etwbt_key_match(const struct etwbt_class *k, uint64_t hash,
			    const struct etw_etl_event *ev,
			    const struct etw_etl_ext *meta, bool raw)
{
	return k->hash == hash && k->raw == raw &&
	       k->id == ev->descriptor.id &&
	       k->version == ev->descriptor.version &&
	       k->opcode == ev->descriptor.opcode &&
	       !memcmp(&k->provider, &ev->provider_id, sizeof(k->provider)) &&
	       (meta ? k->meta && k->meta_len == meta->size &&
		       !memcmp(k->meta, meta->data, meta->size) : !k->meta);
}

/* The schema and what goes with it: the scratch counts, the maps. */
static void etwbt_class_drop_schema(struct etwbt_class *k)
{
	ULONG i;

	for (i = 0; k->maps && i < k->tei->PropertyCount; i++)
		free(k->maps[i]);
	free(k->maps);
	free(k->ints);
	free(k->tei);
	k->maps = NULL;
	k->ints = NULL;
	k->tei = NULL;
}

static void etwbt_class_free(struct etwbt_class *k)
{
	bt_event_class_put_ref(k->ec);
	if (k->tei)
		etwbt_class_drop_schema(k);
	free(k->meta);
	free(k);
}

/* The value map of property @i, or NULL when it has none TDH knows. */
static EVENT_MAP_INFO *etwbt_map(const struct etwbt_class *k, ULONG i,
				 EVENT_RECORD *rec)
{
	const EVENT_PROPERTY_INFO *epi = &k->tei->EventPropertyInfoArray[i];
	PWSTR name = (PWSTR)((BYTE *)k->tei + epi->nonStructType.MapNameOffset);
	EVENT_MAP_INFO *map;
	ULONG size = 0;

	if ((epi->Flags & PropertyStruct) || !epi->nonStructType.MapNameOffset ||
	    TdhGetEventMapInformation(rec, name, NULL, &size) !=
	    ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	map = malloc(size);
	if (map && TdhGetEventMapInformation(rec, name, map, &size)) {
		free(map);
		return NULL;
	}
	return map;
}

/* What decoding needs besides the schema: scratch counts and the maps. */
static int etwbt_class_schema(struct etwbt_class *k, EVENT_RECORD *rec)
{
	ULONG i, n = k->tei->PropertyCount;

	k->ints = calloc(n + 1, sizeof(*k->ints));
	k->maps = calloc(n + 1, sizeof(*k->maps));
	if (!k->ints || !k->maps)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		k->maps[i] = etwbt_map(k, i, rec);
	return 0;
}

static struct etwbt_class *etwbt_class_new(struct etwbt_comp *c,
					   const struct etw_etl_event *ev,
					   const struct etw_etl_ext *meta,
					   EVENT_RECORD *rec, bool raw)
{
	struct etwbt_class *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->provider = ev->provider_id;
	k->id = ev->descriptor.id;
	k->version = ev->descriptor.version;
	k->opcode = ev->descriptor.opcode;
	k->raw = raw;
	if (meta) {
		k->meta = malloc(meta->size ? meta->size : 1);
		if (!k->meta)
			goto fail;
		memcpy(k->meta, meta->data, meta->size);
		k->meta_len = meta->size;
	}
	k->tei = raw ? NULL : etwbt_tei(rec);
	if (k->tei && etwbt_class_schema(k, rec))
		goto fail;
	k->ec = etwbt_event_class(c, ev, k);
	/* A schema babeltrace2 cannot take: the event's bytes, then. */
	if (!k->ec && k->tei) {
		etwbt_class_drop_schema(k);
		k->ec = etwbt_event_class(c, ev, k);
	}
	if (k->ec)
		return k;
fail:
	etwbt_class_free(k);
	return NULL;
}

/**
 * etwbt_class_get - the event class of @ev, made on first use
 * @c: the component
 * @ev: the event
 * @rec: @ev as an EVENT_RECORD, for TdhGetEventInformation
 * @raw: the raw class of @ev's kind, whose payload is its bytes
 *
 * A kind of event TDH has no usable schema for gets a raw class even
 * when @raw is false; the class's @tei says which it got.
 *
 * Return: the class, or NULL when out of memory.
 */
struct etwbt_class *etwbt_class_get(struct etwbt_comp *c,
				    const struct etw_etl_event *ev,
				    EVENT_RECORD *rec, bool raw)
{
	const struct etw_etl_ext *meta = etwbt_tl_meta(ev);
	uint64_t hash = etwbt_key_hash(ev, meta, raw);
	struct etwbt_class **head = &c->classes[hash % ETWBT_CLASS_BUCKETS];
	struct etwbt_class *k;

	for (k = *head; k; k = k->next)
		if (etwbt_key_match(k, hash, ev, meta, raw))
			return k;
	k = etwbt_class_new(c, ev, meta, rec, raw);
	if (!k)
		return NULL;
	k->hash = hash;
	k->next = *head;
	*head = k;
	return k;
}

/**
 * etwbt_classes_free - drop every event class of @c
 * @c: the component
 */
void etwbt_classes_free(struct etwbt_comp *c)
{
	struct etwbt_class *k, *next;
	unsigned int i;

	for (i = 0; i < ETWBT_CLASS_BUCKETS; i++) {
		for (k = c->classes[i]; k; k = next) {
			next = k->next;
			etwbt_class_free(k);
		}
		c->classes[i] = NULL;
	}
}
