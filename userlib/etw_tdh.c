// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh.c: the schema of a TraceLogging event as TDH describes it
 * (TdhGetEventInformation), and TdhGetEventMapInformation.
 *
 * The TraceLogging metadata (extended item EVENT_SCHEMA_TL) is: UINT16
 * size, event tags (7 bits a byte, highest first, bit 7 = another byte
 * follows, at most 4 bytes), the NUL-terminated event name, then one
 * entry per field: NUL-terminated name, InType byte (low 5 bits the type,
 * 0x20 constant count, 0x40 variable count, 0x60 custom, 0x80 an OutType
 * byte follows), OutType byte (bit 7 = field tags follow), a UINT16 count
 * for constant-count arrays, or for a custom-serialized field a UINT16
 * size and its schema (the OutType slot then holds the protocol).  A
 * struct is InType 24 whose OutType holds its member count; its members
 * follow it.  In the payload, variable counts, binary sizes and custom
 * data sizes are UINT16 prefixes.
 *
 * TDH lists top-level properties first, then each struct's members (a
 * breadth-first order), and gives a prefix its own UINT16 property, named
 * after the field with ".Count" or ".Length", that the field refers to
 * with PropertyParamCount / PropertyParamLength: consumers that follow
 * countPropertyIndex and lengthPropertyIndex then decode TraceLogging
 * like manifest events.  A custom field is described with
 * PropertyHasCustomSchema and a copy of its protocol, size and schema.
 * TraceLogging InTypes are TDH's; OutTypes are renumbered to TDH's.
 * Nothing in the event is trusted: the metadata is read with bounds
 * checks, and is ERROR_INVALID_DATA when malformed.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"
#include "etw_tdh.h"
#include "etw_tdh_manifest.h"

#define ETW_TLG_IN_TYPE_MASK	0x1f
#define ETW_TLG_IN_COUNT_MASK	0x60
#define ETW_TLG_IN_CCOUNT	0x20
#define ETW_TLG_IN_VCOUNT	0x40
#define ETW_TLG_IN_CUSTOM	0x60
#define ETW_TLG_IN_CHAIN	0x80
#define ETW_TLG_OUT_TYPE_MASK	0x7f
#define ETW_TLG_OUT_CHAIN	0x80
#define ETW_TLG_IN_STRUCT	24
/* Deepest struct nesting accepted; real metadata is far shallower. */
#define ETW_TLG_MAX_DEPTH	8

enum etw_tdh_synth {
	ETW_TDH_REAL,
	ETW_TDH_COUNT,
	ETW_TDH_LENGTH,
};

static const char *const etw_tdh_suffix[] = {
	[ETW_TDH_REAL] = "", [ETW_TDH_COUNT] = ".Count",
	[ETW_TDH_LENGTH] = ".Length",
};

struct etw_tlg_cursor {
	const uint8_t *p;
	const uint8_t *end;
};

/* One field of the metadata; @end: index after its members. */
struct etw_tlg_field {
	const char *name;
	uint8_t in;
	uint8_t out;
	uint16_t ccount;
	uint32_t tags;
	bool has_tags;
	const uint8_t *schema;	/* a custom serializer's schema */
	uint16_t schema_len;
	uint32_t end;
};

/* A group of sibling fields and the struct property that owns it. */
struct etw_tdh_group {
	uint32_t first;
	uint32_t count;
	int32_t owner;
};

struct etw_tdh_schema {
	const char *provider;
	const char *event;
	uint32_t event_tags;
	struct etw_tlg_field *f;
	uint32_t nf, capf;
	uint32_t top;
	uint32_t top_props;
	/* The properties in TDH order, and where each one's name comes from. */
	EVENT_PROPERTY_INFO *epi;
	uint32_t *src;
	uint8_t *synth;
	uint32_t np, capp;
};

static int etw_tlg_take(struct etw_tlg_cursor *c, size_t n,
			const uint8_t **out)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	*out = c->p;
	c->p += n;
	return 0;
}

static int etw_tlg_u8(struct etw_tlg_cursor *c, uint8_t *v)
{
	const uint8_t *p;

	if (etw_tlg_take(c, 1, &p))
		return -1;
	*v = *p;
	return 0;
}

static int etw_tlg_u16(struct etw_tlg_cursor *c, uint16_t *v)
{
	const uint8_t *p;

	if (etw_tlg_take(c, 2, &p))
		return -1;
	*v = (uint16_t)(p[0] | p[1] << 8);
	return 0;
}

static int etw_tlg_cstr(struct etw_tlg_cursor *c, const char **s)
{
	const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!nul)
		return -1;
	*s = (const char *)c->p;
	c->p = nul + 1;
	return 0;
}

/* Tags: 7 bits a byte, the highest first; absent low bytes are zero. */
static int etw_tlg_tags(struct etw_tlg_cursor *c, uint32_t *tags)
{
	uint8_t b;
	int i;

	*tags = 0;
	for (i = 0; i < 4; i++) {
		if (etw_tlg_u8(c, &b))
			return -1;
		*tags |= (uint32_t)(b & 0x7f) << (21 - 7 * i);
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

static ULONG etw_tlg_field_meta(struct etw_tlg_cursor *m,
				struct etw_tlg_field *f)
{
	uint8_t type;

	memset(f, 0, sizeof(*f));
	if (etw_tlg_cstr(m, &f->name) || etw_tlg_u8(m, &f->in))
		return ERROR_INVALID_DATA;
	if (f->in & ETW_TLG_IN_CHAIN) {
		if (etw_tlg_u8(m, &f->out))
			return ERROR_INVALID_DATA;
		if (f->out & ETW_TLG_OUT_CHAIN) {
			if (etw_tlg_tags(m, &f->tags))
				return ERROR_INVALID_DATA;
			f->has_tags = true;
		}
		f->out &= ETW_TLG_OUT_TYPE_MASK;
	}
	switch (f->in & ETW_TLG_IN_COUNT_MASK) {
	case ETW_TLG_IN_CCOUNT:
		if (etw_tlg_u16(m, &f->ccount))
			return ERROR_INVALID_DATA;
		break;
	case ETW_TLG_IN_CUSTOM:
		/* The OutType slot holds the serializer's protocol. */
		if (etw_tlg_u16(m, &f->schema_len) ||
		    etw_tlg_take(m, f->schema_len, &f->schema))
			return ERROR_INVALID_DATA;
		break;
	}
	type = f->in & ETW_TLG_IN_TYPE_MASK;
	if (f->schema && type == ETW_TLG_IN_STRUCT)
		return ERROR_INVALID_DATA;
	/* Each element would need its own length property. */
	if (type == TDH_INTYPE_BINARY &&
	    ((f->in & ETW_TLG_IN_COUNT_MASK) == ETW_TLG_IN_CCOUNT ||
	     (f->in & ETW_TLG_IN_COUNT_MASK) == ETW_TLG_IN_VCOUNT))
		return ERROR_NOT_SUPPORTED;
	return ERROR_SUCCESS;
}

static ULONG etw_tdh_add_field(struct etw_tdh_schema *s, uint32_t *idx)
{
	struct etw_tlg_field *f;
	uint32_t cap;

	if (s->nf == s->capf) {
		cap = s->capf ? 2 * s->capf : 16;
		f = realloc(s->f, cap * sizeof(*f));
		if (!f)
			return ERROR_OUTOFMEMORY;
		s->f = f;
		s->capf = cap;
	}
	*idx = s->nf++;
	return ERROR_SUCCESS;
}

/* @n fields (all up to the end of the metadata when @top), with members. */
static ULONG etw_tlg_parse(struct etw_tlg_cursor *m, struct etw_tdh_schema *s,
			   unsigned int n, bool top, int depth)
{
	uint32_t idx;
	ULONG ret;

	if (depth > ETW_TLG_MAX_DEPTH)
		return ERROR_INVALID_DATA;
	while (top ? m->p < m->end : n-- > 0) {
		ret = etw_tdh_add_field(s, &idx);
		if (!ret)
			ret = etw_tlg_field_meta(m, &s->f[idx]);
		if (!ret && (s->f[idx].in & ETW_TLG_IN_TYPE_MASK) ==
			    ETW_TLG_IN_STRUCT)
			ret = etw_tlg_parse(m, s, s->f[idx].out, false,
					    depth + 1);
		if (ret)
			return ret;
		s->f[idx].end = s->nf;
		if (top)
			s->top++;
	}
	return ERROR_SUCCESS;
}

static ULONG etw_tdh_add_prop(struct etw_tdh_schema *s, uint32_t field,
			      enum etw_tdh_synth synth,
			      EVENT_PROPERTY_INFO **epi)
{
	uint32_t cap = s->capp ? 2 * s->capp : 16;
	void *p;

	/* Indexes are USHORTs. */
	if (s->np > 0xffff)
		return ERROR_INVALID_DATA;
	if (s->np == s->capp) {
		p = realloc(s->epi, cap * sizeof(*s->epi));
		if (!p)
			return ERROR_OUTOFMEMORY;
		s->epi = p;
		p = realloc(s->src, cap * sizeof(*s->src));
		if (!p)
			return ERROR_OUTOFMEMORY;
		s->src = p;
		p = realloc(s->synth, cap);
		if (!p)
			return ERROR_OUTOFMEMORY;
		s->synth = p;
		s->capp = cap;
	}
	*epi = &s->epi[s->np];
	memset(*epi, 0, sizeof(**epi));
	s->src[s->np] = field;
	s->synth[s->np++] = synth;
	return ERROR_SUCCESS;
}

/* TDH's OutType for a TraceLogging OutType; some depend on the size. */
static USHORT etw_tdh_out_type(uint8_t type, uint8_t out)
{
	static const USHORT simple[] = {
		[1] = TDH_OUTTYPE_NOPRINT, [2] = TDH_OUTTYPE_STRING,
		[3] = TDH_OUTTYPE_BOOLEAN, [5] = TDH_OUTTYPE_PID,
		[6] = TDH_OUTTYPE_TID, [7] = TDH_OUTTYPE_PORT,
		[8] = TDH_OUTTYPE_IPV4, [9] = TDH_OUTTYPE_IPV6,
		[10] = TDH_OUTTYPE_SOCKETADDRESS, [11] = TDH_OUTTYPE_XML,
		[12] = TDH_OUTTYPE_JSON, [13] = TDH_OUTTYPE_WIN32ERROR,
		[14] = TDH_OUTTYPE_NTSTATUS, [15] = TDH_OUTTYPE_HRESULT,
		[16] = TDH_OUTTYPE_DATETIME,
		[33] = TDH_OUTTYPE_CULTURE_INSENSITIVE_DATETIME,
		[35] = TDH_OUTTYPE_UTF8,
		[36] = TDH_OUTTYPE_PKCS7_WITH_TYPE_INFO,
		[37] = TDH_OUTTYPE_CODE_POINTER,
		[38] = TDH_OUTTYPE_DATETIME_UTC,
	};
	/* Per InType: HEX, SIGNED and UNSIGNED at that size. */
	static const USHORT sized[][3] = {
		[TDH_INTYPE_INT8] = { TDH_OUTTYPE_HEXINT8, TDH_OUTTYPE_BYTE,
				      TDH_OUTTYPE_UNSIGNEDBYTE },
		[TDH_INTYPE_UINT8] = { TDH_OUTTYPE_HEXINT8, TDH_OUTTYPE_BYTE,
				       TDH_OUTTYPE_UNSIGNEDBYTE },
		[TDH_INTYPE_INT16] = { TDH_OUTTYPE_HEXINT16, TDH_OUTTYPE_SHORT,
				       TDH_OUTTYPE_UNSIGNEDSHORT },
		[TDH_INTYPE_UINT16] = { TDH_OUTTYPE_HEXINT16,
					TDH_OUTTYPE_SHORT,
					TDH_OUTTYPE_UNSIGNEDSHORT },
		[TDH_INTYPE_INT32] = { TDH_OUTTYPE_HEXINT32, TDH_OUTTYPE_INT,
				       TDH_OUTTYPE_UNSIGNEDINT },
		[TDH_INTYPE_UINT32] = { TDH_OUTTYPE_HEXINT32, TDH_OUTTYPE_INT,
					TDH_OUTTYPE_UNSIGNEDINT },
		[TDH_INTYPE_INT64] = { TDH_OUTTYPE_HEXINT64, TDH_OUTTYPE_LONG,
				       TDH_OUTTYPE_UNSIGNEDLONG },
		[TDH_INTYPE_UINT64] = { TDH_OUTTYPE_HEXINT64, TDH_OUTTYPE_LONG,
					TDH_OUTTYPE_UNSIGNEDLONG },
		[TDH_INTYPE_BINARY] = { TDH_OUTTYPE_HEXBINARY },
		[TDH_INTYPE_HEXINT32] = { TDH_OUTTYPE_HEXINT32 },
		[TDH_INTYPE_HEXINT64] = { TDH_OUTTYPE_HEXINT64 },
		[TDH_INTYPE_MANIFEST_COUNTEDBINARY] = {
			TDH_OUTTYPE_HEXBINARY },
	};

	if (out == 4 || out == 17 || out == 18)
		return type < sizeof(sized) / sizeof(sized[0]) ?
		       sized[type][out == 4 ? 0 : out - 16] : TDH_OUTTYPE_NULL;
	return out < sizeof(simple) / sizeof(simple[0]) ? simple[out] :
	       TDH_OUTTYPE_NULL;
}

static ULONG etw_tdh_synth_prop(struct etw_tdh_schema *s, uint32_t field,
				enum etw_tdh_synth synth, uint32_t *idx)
{
	EVENT_PROPERTY_INFO *epi;
	ULONG ret = etw_tdh_add_prop(s, field, synth, &epi);

	if (ret)
		return ret;
	epi->nonStructType.InType = TDH_INTYPE_UINT16;
	epi->count = 1;
	epi->length = 2;
	*idx = s->np - 1;
	return ERROR_SUCCESS;
}

/* The properties of field @fi: a prefix property first when it has one. */
static ULONG etw_tdh_field_props(struct etw_tdh_schema *s, uint32_t fi,
				 ULONG ptr_size, bool *is_struct)
{
	const struct etw_tlg_field *f = &s->f[fi];
	uint8_t type = f->in & ETW_TLG_IN_TYPE_MASK;
	uint8_t cnt = f->in & ETW_TLG_IN_COUNT_MASK;
	EVENT_PROPERTY_INFO *epi;
	uint32_t prefix = 0;
	ULONG ret = ERROR_SUCCESS;

	if (cnt == ETW_TLG_IN_VCOUNT)
		ret = etw_tdh_synth_prop(s, fi, ETW_TDH_COUNT, &prefix);
	else if (type == TDH_INTYPE_BINARY && !f->schema)
		ret = etw_tdh_synth_prop(s, fi, ETW_TDH_LENGTH, &prefix);
	if (!ret)
		ret = etw_tdh_add_prop(s, fi, ETW_TDH_REAL, &epi);
	if (ret)
		return ret;
	*is_struct = type == ETW_TLG_IN_STRUCT;
	if (*is_struct) {
		epi->Flags = PropertyStruct;
	} else if (f->schema) {
		epi->Flags = PropertyHasCustomSchema;
		epi->customSchemaType.InType = type;
	} else {
		epi->nonStructType.InType = type;
		epi->nonStructType.OutType = etw_tdh_out_type(type, f->out);
		epi->length = (USHORT)etw_tdh_fixed_size(type, ptr_size);
	}
	epi->count = 1;
	if (cnt == ETW_TLG_IN_VCOUNT) {
		epi->Flags |= PropertyParamCount;
		epi->countPropertyIndex = (USHORT)prefix;
	} else if (cnt == ETW_TLG_IN_CCOUNT && !f->schema) {
		epi->Flags |= PropertyParamFixedCount;
		epi->count = f->ccount;
	}
	if (type == TDH_INTYPE_BINARY && !f->schema) {
		epi->Flags |= PropertyParamLength;
		epi->lengthPropertyIndex = (USHORT)prefix;
	}
	if (f->has_tags) {
		epi->Flags |= PropertyHasTags;
		epi->Tags = f->tags;
	}
	return ERROR_SUCCESS;
}

/* Lays the fields out in TDH's order: each group after the one before. */
static ULONG etw_tdh_layout(struct etw_tdh_schema *s, ULONG ptr_size)
{
	struct etw_tdh_group *q = malloc((s->nf + 1) * sizeof(*q));
	uint32_t head = 0, tail = 0, fi, k, start;
	bool is_struct;
	ULONG ret = ERROR_SUCCESS;

	if (!q)
		return ERROR_OUTOFMEMORY;
	q[tail++] = (struct etw_tdh_group){ 0, s->top, -1 };
	while (head < tail && !ret) {
		struct etw_tdh_group g = q[head++];

		start = s->np;
		for (k = 0, fi = g.first; k < g.count && !ret;
		     k++, fi = s->f[fi].end) {
			ret = etw_tdh_field_props(s, fi, ptr_size, &is_struct);
			if (!ret && is_struct)
				q[tail++] = (struct etw_tdh_group){
					fi + 1, s->f[fi].out,
					(int32_t)s->np - 1 };
		}
		if (g.owner < 0) {
			s->top_props = s->np;
		} else {
			s->epi[g.owner].structType.StructStartIndex =
				(USHORT)start;
			s->epi[g.owner].structType.NumOfStructMembers =
				(USHORT)(s->np - start);
		}
	}
	free(q);
	return ret;
}

/**
 * etw_tdh_ext - an event's first extended item of @type that has data
 * @ev: the event
 * @type: EVENT_HEADER_EXT_TYPE_*
 *
 * Return: the item, or NULL.
 */
const EVENT_HEADER_EXTENDED_DATA_ITEM *
etw_tdh_ext(const EVENT_RECORD *ev, USHORT type)
{
	USHORT i;

	if (!ev->ExtendedData)
		return NULL;
	for (i = 0; i < ev->ExtendedDataCount; i++)
		if (ev->ExtendedData[i].ExtType == type &&
		    ev->ExtendedData[i].DataPtr)
			return &ev->ExtendedData[i];
	return NULL;
}

/* The provider name in a traits blob (UINT16 size, name), if well formed. */
static const char *etw_tdh_traits_name(const EVENT_RECORD *ev)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *x =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_PROV_TRAITS);
	struct etw_tlg_cursor c;
	const char *name;
	uint16_t total;

	if (!x)
		return NULL;
	c.p = (const uint8_t *)(uintptr_t)x->DataPtr;
	c.end = c.p + x->DataSize;
	if (etw_tlg_u16(&c, &total) || total < 3 || total > x->DataSize)
		return NULL;
	c.end = (const uint8_t *)(uintptr_t)x->DataPtr + total;
	return etw_tlg_cstr(&c, &name) ? NULL : name;
}

static ULONG etw_tdh_parse_event(const EVENT_RECORD *ev,
				 struct etw_tdh_schema *s, ULONG ptr_size)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *x =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
	struct etw_tlg_cursor m;
	uint16_t size;
	ULONG ret;

	if (!x)
		return ERROR_NOT_FOUND;
	m.p = (const uint8_t *)(uintptr_t)x->DataPtr;
	m.end = m.p + x->DataSize;
	if (etw_tlg_u16(&m, &size) || size < 2 || size > x->DataSize)
		return ERROR_INVALID_DATA;
	m.end = (const uint8_t *)(uintptr_t)x->DataPtr + size;
	if (etw_tlg_tags(&m, &s->event_tags) || etw_tlg_cstr(&m, &s->event))
		return ERROR_INVALID_DATA;
	ret = etw_tlg_parse(&m, s, 0, true, 0);
	if (!ret)
		ret = etw_tdh_layout(s, ptr_size);
	s->provider = etw_tdh_traits_name(ev);
	return ret;
}

/* Appends @s@suffix as UTF-16 at *@off of @buf (what fits @cap). */
static ULONG etw_tdh_put_name(BYTE *buf, ULONG cap, ULONG *off,
			      const char *s, const char *suffix)
{
	ULONG at = *off;
	size_t room = buf && at < cap ? (cap - at) / 2 : 0;
	BYTE *p = room ? buf + at : NULL;
	size_t n = etw_etl_utf8_to_utf16(s, p, room);

	n += etw_etl_utf8_to_utf16(suffix, n < room ? p + 2 * n : NULL,
				   n < room ? room - n : 0);
	if (n < room) {
		p[2 * n] = 0;
		p[2 * n + 1] = 0;
	}
	*off += 2 * (n + 1);
	return at;
}

/* A custom field's UINT16 protocol, UINT16 size and schema, 2-aligned. */
static ULONG etw_tdh_put_schema(BYTE *buf, ULONG cap, ULONG *off,
				const struct etw_tlg_field *f)
{
	ULONG at = *off, n = 4 + f->schema_len;

	*off += n + n % 2;
	if (*off > cap)
		return at;
	buf[at] = f->out;
	buf[at + 1] = 0;
	buf[at + 2] = f->schema_len & 0xff;
	buf[at + 3] = f->schema_len >> 8;
	memcpy(buf + at + 4, f->schema, f->schema_len);
	return at;
}

/* Serialises the schema at @buf; *@needed: its size, even if over @cap. */
static void etw_tdh_emit(const EVENT_RECORD *ev,
			 const struct etw_tdh_schema *s, BYTE *buf,
			 ULONG cap, ULONG *needed)
{
	ULONG off = offsetof(TRACE_EVENT_INFO, EventPropertyInfoArray) +
		    s->np * sizeof(EVENT_PROPERTY_INFO);
	TRACE_EVENT_INFO tei;
	EVENT_PROPERTY_INFO epi;
	uint32_t i;

	memset(&tei, 0, sizeof(tei));
	tei.ProviderGuid = ev->EventHeader.ProviderId;
	tei.EventDescriptor = ev->EventHeader.EventDescriptor;
	tei.DecodingSource = DecodingSourceTlg;
	tei.PropertyCount = s->np;
	tei.TopLevelPropertyCount = s->top_props;
	tei.Tags = s->event_tags;
	if (s->provider)
		tei.ProviderNameOffset = etw_tdh_put_name(buf, cap, &off,
							  s->provider, "");
	/* Decoders read a TraceLogging event's name from either. */
	tei.TaskNameOffset = etw_tdh_put_name(buf, cap, &off, s->event, "");
	tei.EventNameOffset = tei.TaskNameOffset;
	for (i = 0; i < s->np; i++) {
		epi = s->epi[i];
		epi.NameOffset = etw_tdh_put_name(buf, cap, &off,
						  s->f[s->src[i]].name,
						  etw_tdh_suffix[s->synth[i]]);
		if (epi.Flags & PropertyHasCustomSchema)
			epi.customSchemaType.CustomSchemaOffset =
				etw_tdh_put_schema(buf, cap, &off,
						   &s->f[s->src[i]]);
		if (off <= cap)
			memcpy(buf + offsetof(TRACE_EVENT_INFO,
					      EventPropertyInfoArray) +
			       i * sizeof(epi), &epi, sizeof(epi));
	}
	if (off <= cap)
		memcpy(buf, &tei, offsetof(TRACE_EVENT_INFO,
					   EventPropertyInfoArray));
	*needed = off;
}

static void etw_tdh_schema_free(struct etw_tdh_schema *s)
{
	free(s->f);
	free(s->epi);
	free(s->src);
	free(s->synth);
}

/*
 * A TraceLogging schema is a function of the metadata and traits bytes
 * (an empty traits item differs from none) and the pointer size.
 */
static void etw_tdh_tl_key(const EVENT_HEADER_EXTENDED_DATA_ITEM *m,
			   const EVENT_RECORD *ev, ULONG ptr_size,
			   struct etw_tdh_cache_key *k)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *t =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_PROV_TRAITS);

	k->tag = ETW_TDH_CACHE_TL | ptr_size << 8 | (t ? 1u << 16 : 0);
	k->a = (const void *)(uintptr_t)m->DataPtr;
	k->a_len = m->DataSize;
	k->b = t ? (const void *)(uintptr_t)t->DataPtr : NULL;
	k->b_len = t ? t->DataSize : 0;
}

static ULONG etw_tdh_tl_build(const EVENT_HEADER_EXTENDED_DATA_ITEM *m,
			      const EVENT_RECORD *ev, ULONG ptr_size,
			      BYTE *buf, ULONG cap, ULONG *needed)
{
	struct etw_tdh_cache_key k;
	struct etw_tdh_schema s;
	ULONG ret;

	etw_tdh_tl_key(m, ev, ptr_size, &k);
	if (etw_tdh_cache_lookup(&k, &ev->EventHeader.EventDescriptor, buf,
				 cap, needed, &ret)) {
		if (!ret)
			((TRACE_EVENT_INFO *)buf)->ProviderGuid =
				ev->EventHeader.ProviderId;
		return ret;
	}
	memset(&s, 0, sizeof(s));
	ret = etw_tdh_parse_event(ev, &s, ptr_size);
	if (!ret) {
		etw_tdh_emit(ev, &s, buf, cap, needed);
		if (*needed > cap)
			ret = ERROR_INSUFFICIENT_BUFFER;
		else
			etw_tdh_cache_store(&k, buf, *needed);
	}
	etw_tdh_schema_free(&s);
	return ret;
}

static ULONG etw_tdh_build(const EVENT_RECORD *ev, ULONG ptr_size,
			   BYTE *buf, ULONG cap, ULONG *needed)
{
	const EVENT_HEADER_EXTENDED_DATA_ITEM *m =
		etw_tdh_ext(ev, EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL);
	ULONG ret;

	if (m)
		return etw_tdh_tl_build(m, ev, ptr_size, buf, cap, needed);
	/*
	 * No TraceLogging metadata: a kernel logger class or a loaded
	 * manifest may describe it.
	 */
	ret = etw_tdh_kernel_build(ev, ptr_size, buf, cap, needed);
	if (ret != ERROR_NOT_FOUND)
		return ret;
	return etw_manifest_build(ev, &ev->EventHeader.ProviderId,
				  &ev->EventHeader.EventDescriptor,
				  ptr_size, buf, cap, needed);
}

/**
 * etw_tdh_pointer_size - the pointer size an event's data uses
 * @ev: the event
 * @count: entries at @ctx
 * @ctx: TDH_CONTEXT entries; TDH_CONTEXT_POINTERSIZE overrides the header
 * @ptr_size: out: 4 or 8
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS, or ERROR_INVALID_PARAMETER for a context entry
 * of an unknown type or a pointer size other than 4 or 8.
 */
ULONG etw_tdh_pointer_size(const EVENT_RECORD *ev, ULONG count,
			   const TDH_CONTEXT *ctx, ULONG *ptr_size)
{
	ULONG i;

	*ptr_size = ev->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ?
		    4 : 8;
	if (count && !ctx)
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < count; i++) {
		if (ctx[i].ParameterType >= TDH_CONTEXT_MAXIMUM)
			return ERROR_INVALID_PARAMETER;
		if (ctx[i].ParameterType != TDH_CONTEXT_POINTERSIZE)
			continue;
		if (ctx[i].ParameterValue != 4 && ctx[i].ParameterValue != 8)
			return ERROR_INVALID_PARAMETER;
		*ptr_size = (ULONG)ctx[i].ParameterValue;
	}
	return ERROR_SUCCESS;
}

/**
 * etw_tdh_event_info - an event's TRACE_EVENT_INFO, allocated
 * @ev: the event
 * @tei: out: the schema, to free()
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS, or TdhGetEventInformation's codes.
 */
ULONG etw_tdh_event_info(const EVENT_RECORD *ev, TRACE_EVENT_INFO **tei)
{
	ULONG ptr_size, size = 0, ret;

	etw_tdh_pointer_size(ev, 0, NULL, &ptr_size);
	ret = etw_tdh_build(ev, ptr_size, NULL, 0, &size);
	if (ret != ERROR_INSUFFICIENT_BUFFER)
		return ret;
	*tei = malloc(size);
	if (!*tei)
		return ERROR_OUTOFMEMORY;
	ret = etw_tdh_build(ev, ptr_size, (BYTE *)*tei, size, &size);
	if (ret) {
		free(*tei);
		*tei = NULL;
	}
	return ret;
}

/**
 * etw_tdh_event_schema - an event's schema as this thread's cache keeps it
 * @ev: the event
 * @tei: out: the TRACE_EVENT_INFO, valid until this thread next asks TDH
 *	for a schema; its EventDescriptor (and a TraceLogging schema's
 *	ProviderGuid) are those of the event it was built for
 * @size: out: its bytes
 * @id: out: its number, unique in the thread: the same number, the same
 *	schema
 *
 * TdhGetEventInformation without the copy: a caller that decodes every
 * event keeps what it derives from a schema (etwctl: the names as UTF-8)
 * by its number, and looks the schema up for each event at the cost of
 * the look-up alone.  A schema not yet cached is built and cached.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_MORE_DATA for a schema the cache does not
 * keep (its key or itself too large: TdhGetEventInformation gives it);
 * TdhGetEventInformation's other codes.
 */
ULONG etw_tdh_event_schema(const EVENT_RECORD *ev, const TRACE_EVENT_INFO **tei,
			   ULONG *size, uint64_t *id)
{
	ULONG ptr_size, needed = 0, ret;
	const BYTE *p;
	BYTE *buf;

	etw_tdh_pointer_size(ev, 0, NULL, &ptr_size);
	etw_tdh_cache_last(&p, size);
	/* No room: a cached schema is found, not copied. */
	ret = etw_tdh_build(ev, ptr_size, NULL, 0, &needed);
	if (ret != ERROR_INSUFFICIENT_BUFFER)
		return ret;
	*id = etw_tdh_cache_last(&p, size);
	if (!*id) {
		buf = malloc(needed);
		if (!buf)
			return ERROR_OUTOFMEMORY;
		ret = etw_tdh_build(ev, ptr_size, buf, needed, &needed);
		free(buf);
		if (ret)
			return ret;
		*id = etw_tdh_cache_last(&p, size);
		if (!*id)
			return ERROR_MORE_DATA;
	}
	*tei = (const TRACE_EVENT_INFO *)p;
	return ERROR_SUCCESS;
}

/**
 * TdhGetEventInformation - the schema of an event's data
 * @Event: the event, as ProcessTrace delivered it
 * @TdhContextCount: entries at @TdhContext
 * @TdhContext: decoding parameters; TDH_CONTEXT_POINTERSIZE is used
 * @Buffer: receives a TRACE_EVENT_INFO and the strings it points to
 * @BufferSize: in: bytes at @Buffer; out: bytes needed
 *
 * Events with TraceLogging metadata are described with DecodingSource
 * DecodingSourceTlg, the kernel logger's Process, Thread and Image events
 * from their MOF classes with DecodingSourceWbem (etw_tdh_kernel.c), others
 * from a loaded manifest of their provider with DecodingSourceXMLFile;
 * names are UTF-16 strings at offsets into @Buffer.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER when *@BufferSize is
 * too small (it then holds the size needed); ERROR_INVALID_PARAMETER for
 * a NULL @Event or @BufferSize, a NULL @Buffer with a non-zero size or a
 * bad context entry; ERROR_NOT_FOUND when the event has no schema;
 * ERROR_INVALID_DATA for malformed metadata (or structs nested deeper
 * than 8); ERROR_NOT_SUPPORTED for an array of TlgInBINARY, which TDH
 * cannot describe (each element has its own size); ERROR_OUTOFMEMORY.
 */
TDHSTATUS WINAPI TdhGetEventInformation(PEVENT_RECORD Event,
		ULONG TdhContextCount, PTDH_CONTEXT TdhContext,
		PTRACE_EVENT_INFO Buffer, PULONG BufferSize)
{
	ULONG ptr_size, ret;

	if (!Event || !BufferSize || (!Buffer && *BufferSize))
		return ERROR_INVALID_PARAMETER;
	ret = etw_tdh_pointer_size(Event, TdhContextCount, TdhContext,
				   &ptr_size);
	if (ret)
		return ret;
	return etw_tdh_build(Event, ptr_size, (BYTE *)Buffer,
			     Buffer ? *BufferSize : 0, BufferSize);
}

/**
 * TdhGetEventMapInformation - a value map an event's properties refer to
 * @pEvent: the event
 * @pMapName: the map's name (EVENT_PROPERTY_INFO.nonStructType.MapNameOffset)
 * @pBuffer: receives the EVENT_MAP_INFO
 * @pBufferSize: in: bytes at @pBuffer; out: bytes needed
 *
 * Maps come from the instrumentation manifest loaded for the event's
 * provider (TraceLogging metadata has none): valueMap and bitMap, with
 * EVENTMAP_ENTRY_VALUETYPE_ULONG entries in the manifest's order.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER when *@pBufferSize is
 * too small (it then holds the size needed); ERROR_INVALID_PARAMETER for
 * a NULL @pEvent, @pMapName or @pBufferSize, or a NULL @pBuffer with a
 * non-zero size; ERROR_NOT_FOUND when no loaded manifest of the provider
 * has the map; ERROR_OUTOFMEMORY.
 */
TDHSTATUS WINAPI TdhGetEventMapInformation(PEVENT_RECORD pEvent,
		PWSTR pMapName, PEVENT_MAP_INFO pBuffer, ULONG *pBufferSize)
{
	if (!pEvent || !pMapName || !pBufferSize ||
	    (!pBuffer && *pBufferSize))
		return ERROR_INVALID_PARAMETER;
	return etw_manifest_map(pEvent, pMapName, pBuffer, pBufferSize);
}
