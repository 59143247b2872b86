// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c: TraceLogging self-describing events (extended item
 * EVENT_SCHEMA_TL) decoded to named fields, and times as text.
 *
 * The metadata blob is: UINT16 size, event tags (7 bits a byte, bit 7 =
 * another byte follows), the NUL-terminated event name, then one entry
 * per field: NUL-terminated name, InType byte (low 5 bits the type,
 * 0x20 constant count, 0x40 variable count, 0x60 custom, 0x80 an OutType
 * byte follows), OutType byte (bit 7 = field tags follow, coded like event
 * tags), a UINT16 count for constant-count arrays, a UINT16-sized schema
 * for custom fields.  A struct is InType 24 whose OutType holds its field
 * count; its fields follow.  Payload values are packed in field order:
 * variable counts, counted strings and binaries carry a UINT16 prefix.
 *
 * Nothing in the event is trusted: every read is checked against the end
 * of its blob, and a field this decoder does not know ends the decoding
 * with -EOPNOTSUPP so that the caller falls back to hex.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "etwctl.h"

/* TraceLogging InTypes (TraceLoggingProvider.h). */
enum {
	TLG_IN_NULL,
	TLG_IN_UNICODESTRING,
	TLG_IN_ANSISTRING,
	TLG_IN_INT8,
	TLG_IN_UINT8,
	TLG_IN_INT16,
	TLG_IN_UINT16,
	TLG_IN_INT32,
	TLG_IN_UINT32,
	TLG_IN_INT64,
	TLG_IN_UINT64,
	TLG_IN_FLOAT,
	TLG_IN_DOUBLE,
	TLG_IN_BOOL32,
	TLG_IN_BINARY,
	TLG_IN_GUID,
	TLG_IN_POINTER,
	TLG_IN_FILETIME,
	TLG_IN_SYSTEMTIME,
	TLG_IN_SID,
	TLG_IN_HEXINT32,
	TLG_IN_HEXINT64,
	TLG_IN_COUNTEDSTRING,
	TLG_IN_COUNTEDANSISTRING,
	TLG_IN_STRUCT,
	TLG_IN_COUNTEDBINARY,
};

#define TLG_IN_TYPE_MASK	0x1f
#define TLG_IN_COUNT_MASK	0x60
#define TLG_IN_CCOUNT		0x20
#define TLG_IN_VCOUNT		0x40
#define TLG_IN_CUSTOM		0x60
#define TLG_IN_CHAIN		0x80
#define TLG_OUT_TYPE_MASK	0x7f
#define TLG_OUT_CHAIN		0x80

/* OutTypes that change how a value is shown. */
#define TLG_OUT_STRING		2
#define TLG_OUT_BOOLEAN		3
#define TLG_OUT_HEX		4
#define TLG_OUT_PORT		7
#define TLG_OUT_IPV4		8

/* Deepest struct nesting followed; metadata cannot be deeper in practice. */
#define TLG_MAX_DEPTH		8
/* FILETIME of 1970-01-01, in 100 ns ticks since 1601. */
#define ETWCTL_FT_UNIX_EPOCH	116444736000000000ll
#define ETWCTL_FT_PER_SEC	10000000ll

struct tlg_cursor {
	const uint8_t *p;
	const uint8_t *end;
};

/* One field's metadata. */
struct tlg_field {
	const char *name;
	uint8_t in;
	uint8_t out;
	uint16_t ccount;
};

/* A growing string; @oom latches allocation failure. */
struct etwctl_sb {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

struct tlg_decoder {
	struct tlg_cursor meta;
	struct tlg_cursor data;
	etwctl_field_fn fn;
	void *ctx;
};

static void sb_reserve(struct etwctl_sb *sb, size_t more)
{
	size_t cap = sb->cap ? sb->cap : 64;
	char *s;

	if (sb->oom || sb->len + more + 1 <= sb->cap)
		return;
	while (cap < sb->len + more + 1)
		cap *= 2;
	s = realloc(sb->s, cap);
	if (!s) {
		sb->oom = true;
		return;
	}
	sb->s = s;
	sb->cap = cap;
}

static void sb_printf(struct etwctl_sb *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sb_printf(struct etwctl_sb *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_reserve(sb, (size_t)n);
	if (sb->oom)
		return;
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

/**
 * etwctl_utf8_len - the length of the UTF-8 sequence at @p
 * @p: NUL-terminated bytes
 *
 * ANSI strings in events are bytes of any code page; JSON output must be
 * UTF-8, so invalid sequences are replaced by U+FFFD there.
 *
 * Return: 1-4 for a valid (shortest-form, non-surrogate) sequence, 0 for
 * an invalid one.
 */
int etwctl_utf8_len(const unsigned char *p)
{
	uint32_t cp;
	int n, i;

	if (*p < 0x80)
		return 1;
	if ((*p & 0xe0) == 0xc0)
		n = 2, cp = *p & 0x1f;
	else if ((*p & 0xf0) == 0xe0)
		n = 3, cp = *p & 0x0f;
	else if ((*p & 0xf8) == 0xf0)
		n = 4, cp = *p & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp < 0xe000))
		return 0;
	return n;
}

/* @s as a JSON string literal (quotes included), valid UTF-8. */
static void sb_json(struct etwctl_sb *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	sb_printf(sb, "\"");
	for (; *p; p += n ? n : 1) {
		n = etwctl_utf8_len(p);
		if (!n)
			sb_printf(sb, "\\ufffd");
		else if (*p == '"' || *p == '\\')
			sb_printf(sb, "\\%c", *p);
		else if (*p == '\n')
			sb_printf(sb, "\\n");
		else if (*p == '\t')
			sb_printf(sb, "\\t");
		else if (*p < 0x20)
			sb_printf(sb, "\\u%04x", *p);
		else
			sb_printf(sb, "%.*s", n, (const char *)p);
	}
	sb_printf(sb, "\"");
}

static int tlg_take(struct tlg_cursor *c, size_t n, const uint8_t **out)
{
	if ((size_t)(c->end - c->p) < n)
		return -EBADMSG;
	*out = c->p;
	c->p += n;
	return 0;
}

static int tlg_u8(struct tlg_cursor *c, uint8_t *v)
{
	const uint8_t *p;

	if (tlg_take(c, 1, &p))
		return -EBADMSG;
	*v = *p;
	return 0;
}

static int tlg_u16(struct tlg_cursor *c, uint16_t *v)
{
	const uint8_t *p;

	if (tlg_take(c, 2, &p))
		return -EBADMSG;
	memcpy(v, p, 2);
	return 0;
}

/* A NUL-terminated string inside the cursor's blob. */
static int tlg_cstr(struct tlg_cursor *c, const char **s)
{
	const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

	if (!nul)
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p = nul + 1;
	return 0;
}

/* Tags: 7 bits per byte, bit 7 set on all but the last, at most 4 bytes. */
static int tlg_tags(struct tlg_cursor *c)
{
	uint8_t b;
	int i;

	for (i = 0; i < 4; i++) {
		if (tlg_u8(c, &b))
			return -EBADMSG;
		if (!(b & 0x80))
			return 0;
	}
	return -EBADMSG;
}

static int tlg_field_meta(struct tlg_cursor *m, struct tlg_field *f)
{
	uint16_t len;
	const uint8_t *skip;

	memset(f, 0, sizeof(*f));
	if (tlg_cstr(m, &f->name) || tlg_u8(m, &f->in))
		return -EBADMSG;
	if (f->in & TLG_IN_CHAIN) {
		if (tlg_u8(m, &f->out))
			return -EBADMSG;
		if ((f->out & TLG_OUT_CHAIN) && tlg_tags(m))
			return -EBADMSG;
	}
	switch (f->in & TLG_IN_COUNT_MASK) {
	case TLG_IN_CCOUNT:
		return tlg_u16(m, &f->ccount);
	case TLG_IN_CUSTOM:
		if (tlg_u16(m, &len) || tlg_take(m, len, &skip))
			return -EBADMSG;
		return 0;
	}
	return 0;
}

static uint8_t tlg_type(const struct tlg_field *f)
{
	return f->in & TLG_IN_TYPE_MASK;
}

static uint8_t tlg_members(const struct tlg_field *f)
{
	return f->out & TLG_OUT_TYPE_MASK;
}

/* Pass over @n fields' metadata (structs with their members). */
static int tlg_skip_meta(struct tlg_cursor *m, unsigned int n, int depth)
{
	struct tlg_field f;

	if (depth > TLG_MAX_DEPTH)
		return -EBADMSG;
	while (n--) {
		if (tlg_field_meta(m, &f))
			return -EBADMSG;
		if (tlg_type(&f) == TLG_IN_STRUCT &&
		    tlg_skip_meta(m, tlg_members(&f), depth + 1))
			return -EBADMSG;
	}
	return 0;
}

static int tlg_fixed(struct tlg_cursor *d, size_t n, void *v)
{
	const uint8_t *p;

	if (tlg_take(d, n, &p))
		return -EBADMSG;
	memcpy(v, p, n);
	return 0;
}

/* A UINT16 byte count, then that many bytes. */
static int tlg_counted(struct tlg_cursor *d, const uint8_t **p, uint16_t *n)
{
	if (tlg_u16(d, n))
		return -EBADMSG;
	return tlg_take(d, *n, p);
}

static int tlg_utf16_text(struct etwctl_sb *sb, const uint8_t *p,
			  size_t units)
{
	char *s = etw_etl_utf16_to_utf8(p, units);

	if (!s)
		return -ENOMEM;
	sb_printf(sb, "%s", s);
	free(s);
	return 0;
}

static int tlg_unicode(struct tlg_cursor *d, struct etwctl_sb *sb)
{
	size_t units = 0, max = (size_t)(d->end - d->p) / 2;
	const uint8_t *p = d->p;

	while (units < max && (p[2 * units] || p[2 * units + 1]))
		units++;
	if (units == max)
		return -EBADMSG;
	d->p += 2 * (units + 1);
	return tlg_utf16_text(sb, p, units);
}

static int tlg_ansi(struct tlg_cursor *d, struct etwctl_sb *sb)
{
	const char *s;

	if (tlg_cstr(d, &s))
		return -EBADMSG;
	sb_printf(sb, "%s", s);
	return 0;
}

static void tlg_hex(struct etwctl_sb *sb, const uint8_t *p, size_t n)
{
	size_t i;

	sb_printf(sb, "0x");
	for (i = 0; i < n; i++)
		sb_printf(sb, "%02X", p[i]);
}

static void tlg_systemtime(struct etwctl_sb *sb, const uint16_t st[8])
{
	/* Year, Month, DayOfWeek, Day, Hour, Minute, Second, Milliseconds. */
	sb_printf(sb, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", st[0], st[1],
		  st[3], st[4], st[5], st[6], st[7]);
}

/* SID: revision, count, 48-bit big-endian authority, 32-bit subauths. */
static int tlg_sid(struct tlg_cursor *d, struct etwctl_sb *sb)
{
	const uint8_t *p;
	uint64_t auth = 0;
	uint32_t sub;
	uint8_t hdr[2];
	int i;

	if (tlg_fixed(d, 2, hdr) || tlg_take(d, 6 + 4u * hdr[1], &p))
		return -EBADMSG;
	for (i = 0; i < 6; i++)
		auth = auth << 8 | p[i];
	sb_printf(sb, "S-%u-%llu", hdr[0], (unsigned long long)auth);
	for (i = 0; i < hdr[1]; i++) {
		memcpy(&sub, p + 6 + 4 * i, 4);
		sb_printf(sb, "-%u", sub);
	}
	return 0;
}

static int tlg_int(struct tlg_cursor *d, const struct tlg_field *f,
		   size_t size, bool is_signed, struct etwctl_sb *sb,
		   bool *quoted)
{
	uint8_t out = f->out & TLG_OUT_TYPE_MASK;
	uint64_t u = 0;
	int64_t s;

	if (tlg_fixed(d, size, &u))
		return -EBADMSG;
	s = size == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * size)) >>
				     (64 - 8 * size);
	if (size == 1 && out == TLG_OUT_BOOLEAN) {
		sb_printf(sb, u ? "true" : "false");
	} else if (size == 1 && out == TLG_OUT_STRING) {
		*quoted = true;
		sb_printf(sb, "%c", (char)u);
	} else if (out == TLG_OUT_HEX) {
		*quoted = true;
		sb_printf(sb, "0x%llX", (unsigned long long)u);
	} else if (size == 2 && out == TLG_OUT_PORT) {
		sb_printf(sb, "%u", (unsigned int)((u >> 8) | (u & 0xff) << 8));
	} else if (size == 4 && out == TLG_OUT_IPV4) {
		*quoted = true;
		sb_printf(sb, "%u.%u.%u.%u", (unsigned int)(u & 0xff),
			  (unsigned int)(u >> 8 & 0xff),
			  (unsigned int)(u >> 16 & 0xff),
			  (unsigned int)(u >> 24));
	} else if (is_signed) {
		sb_printf(sb, "%lld", (long long)s);
	} else {
		sb_printf(sb, "%llu", (unsigned long long)u);
	}
	return 0;
}

static int tlg_real(struct tlg_cursor *d, bool dbl, struct etwctl_sb *sb,
		    bool *quoted)
{
	double v;
	float fv;

	if (dbl ? tlg_fixed(d, 8, &v) : tlg_fixed(d, 4, &fv))
		return -EBADMSG;
	if (!dbl)
		v = fv;
	/* JSON has no literal for these. */
	*quoted = !isfinite(v);
	sb_printf(sb, dbl ? "%.17g" : "%.9g", v);
	return 0;
}

static int tlg_blob(struct tlg_cursor *d, uint8_t type, struct etwctl_sb *sb)
{
	const uint8_t *p;
	uint16_t n;

	if (tlg_counted(d, &p, &n))
		return -EBADMSG;
	if (type == TLG_IN_COUNTEDSTRING)
		return n % 2 ? -EBADMSG : tlg_utf16_text(sb, p, n / 2);
	if (type == TLG_IN_COUNTEDANSISTRING)
		sb_printf(sb, "%.*s", (int)strnlen((const char *)p, n), p);
	else
		tlg_hex(sb, p, n);
	return 0;
}

/* One value of a non-struct field into @sb; *quoted: it is a string. */
static int tlg_value(struct tlg_cursor *d, const struct tlg_field *f,
		     struct etwctl_sb *sb, bool *quoted)
{
	static const uint8_t int_size[] = {
		[TLG_IN_INT8] = 1, [TLG_IN_UINT8] = 1, [TLG_IN_INT16] = 2,
		[TLG_IN_UINT16] = 2, [TLG_IN_INT32] = 4, [TLG_IN_UINT32] = 4,
		[TLG_IN_INT64] = 8, [TLG_IN_UINT64] = 8,
	};
	uint8_t type = tlg_type(f);
	uint16_t st[8];
	uint32_t u32;
	uint64_t u64;
	GUID g;
	char text[64];

	*quoted = true;
	switch (type) {
	case TLG_IN_INT8: case TLG_IN_UINT8: case TLG_IN_INT16:
	case TLG_IN_UINT16: case TLG_IN_INT32: case TLG_IN_UINT32:
	case TLG_IN_INT64: case TLG_IN_UINT64:
		*quoted = false;
		return tlg_int(d, f, int_size[type], type % 2 == 1, sb, quoted);
	case TLG_IN_FLOAT:
	case TLG_IN_DOUBLE:
		return tlg_real(d, type == TLG_IN_DOUBLE, sb, quoted);
	case TLG_IN_BOOL32:
		*quoted = false;
		if (tlg_fixed(d, 4, &u32))
			return -EBADMSG;
		sb_printf(sb, u32 ? "true" : "false");
		return 0;
	case TLG_IN_HEXINT32:
		if (tlg_fixed(d, 4, &u32))
			return -EBADMSG;
		sb_printf(sb, "0x%X", u32);
		return 0;
	case TLG_IN_HEXINT64:
	case TLG_IN_POINTER:
		if (tlg_fixed(d, 8, &u64))
			return -EBADMSG;
		sb_printf(sb, "0x%llX", (unsigned long long)u64);
		return 0;
	case TLG_IN_GUID:
		if (tlg_fixed(d, sizeof(g), &g))
			return -EBADMSG;
		etwctl_guid_format(&g, text);
		sb_printf(sb, "%s", text);
		return 0;
	case TLG_IN_FILETIME:
		if (tlg_fixed(d, 8, &u64))
			return -EBADMSG;
		etwctl_filetime_format((int64_t)u64, text, sizeof(text));
		sb_printf(sb, "%s", text);
		return 0;
	case TLG_IN_SYSTEMTIME:
		if (tlg_fixed(d, sizeof(st), st))
			return -EBADMSG;
		tlg_systemtime(sb, st);
		return 0;
	case TLG_IN_SID:
		return tlg_sid(d, sb);
	case TLG_IN_UNICODESTRING:
		return tlg_unicode(d, sb);
	case TLG_IN_ANSISTRING:
		return tlg_ansi(d, sb);
	case TLG_IN_BINARY:
	case TLG_IN_COUNTEDBINARY:
	case TLG_IN_COUNTEDSTRING:
	case TLG_IN_COUNTEDANSISTRING:
		return tlg_blob(d, type, sb);
	}
	return -EOPNOTSUPP;
}

static int tlg_emit(struct tlg_decoder *dec, const char *name,
		    struct etwctl_sb *sb, bool quoted)
{
	if (sb->oom)
		return -ENOMEM;
	dec->fn(dec->ctx, name, sb->len ? sb->s : "", quoted);
	return 0;
}

/* An array of @count non-struct values as a JSON array literal. */
static int tlg_array(struct tlg_decoder *dec, const struct tlg_field *f,
		     const char *name, uint16_t count)
{
	struct etwctl_sb sb = { 0 }, elem = { 0 };
	bool quoted;
	uint16_t i;
	int ret = 0;

	sb_printf(&sb, "[");
	for (i = 0; i < count && !ret; i++) {
		elem.len = 0;
		ret = tlg_value(&dec->data, f, &elem, &quoted);
		if (ret || elem.oom)
			break;
		sb_printf(&sb, i ? "," : "");
		if (quoted)
			sb_json(&sb, elem.len ? elem.s : "");
		else
			sb_printf(&sb, "%s", elem.s);
	}
	sb_printf(&sb, "]");
	if (!ret)
		ret = elem.oom ? -ENOMEM : tlg_emit(dec, name, &sb, false);
	free(elem.s);
	free(sb.s);
	return ret;
}

static int tlg_fields(struct tlg_decoder *dec, unsigned int n,
		      const char *prefix, int depth);

/* A struct (or struct array): its members, prefixed "name." / "name[i]." */
static int tlg_struct(struct tlg_decoder *dec, const struct tlg_field *f,
		      const char *name, uint16_t count, bool array, int depth)
{
	struct tlg_cursor members = dec->meta;
	char prefix[528];
	uint16_t i;
	int ret;

	for (i = 0; i < count; i++) {
		dec->meta = members;
		if (array)
			snprintf(prefix, sizeof(prefix), "%s[%u].", name, i);
		else
			snprintf(prefix, sizeof(prefix), "%s.", name);
		ret = tlg_fields(dec, tlg_members(f), prefix, depth + 1);
		if (ret)
			return ret;
	}
	dec->meta = members;
	return tlg_skip_meta(&dec->meta, tlg_members(f), depth + 1);
}

static int tlg_field(struct tlg_decoder *dec, const char *prefix, int depth)
{
	struct etwctl_sb sb = { 0 };
	struct tlg_field f;
	uint16_t count = 1;
	char name[512];
	bool quoted;
	int ret;

	if (tlg_field_meta(&dec->meta, &f))
		return -EBADMSG;
	snprintf(name, sizeof(name), "%s%s", prefix, f.name);
	if ((f.in & TLG_IN_COUNT_MASK) == TLG_IN_CUSTOM)
		return -EOPNOTSUPP;
	if ((f.in & TLG_IN_COUNT_MASK) == TLG_IN_VCOUNT &&
	    tlg_u16(&dec->data, &count))
		return -EBADMSG;
	if ((f.in & TLG_IN_COUNT_MASK) == TLG_IN_CCOUNT)
		count = f.ccount;
	if (tlg_type(&f) == TLG_IN_STRUCT)
		return tlg_struct(dec, &f, name, count,
				  f.in & TLG_IN_COUNT_MASK, depth);
	if (f.in & TLG_IN_COUNT_MASK)
		return tlg_array(dec, &f, name, count);
	ret = tlg_value(&dec->data, &f, &sb, &quoted);
	if (!ret)
		ret = tlg_emit(dec, name, &sb, quoted);
	free(sb.s);
	return ret;
}

static int tlg_fields(struct tlg_decoder *dec, unsigned int n,
		      const char *prefix, int depth)
{
	int ret;

	if (depth > TLG_MAX_DEPTH)
		return -EBADMSG;
	while (n--) {
		ret = tlg_field(dec, prefix, depth);
		if (ret)
			return ret;
	}
	return 0;
}

/* The metadata after its size and tags: the event name comes next. */
static int tlg_open(const void *meta, size_t len, struct tlg_cursor *m)
{
	uint16_t size;

	m->p = meta;
	m->end = m->p + len;
	if (tlg_u16(m, &size) || size < 2 || size > len)
		return -EBADMSG;
	m->end = (const uint8_t *)meta + size;
	return tlg_tags(m);
}

/**
 * etwctl_tl_event_name - the event name in TraceLogging metadata
 * @meta: the EVENT_SCHEMA_TL item's data
 * @len: its size
 * @out: out: the name
 * @size: bytes at @out
 *
 * Return: 0, or -EBADMSG for malformed metadata.
 */
int etwctl_tl_event_name(const void *meta, size_t len, char *out,
			 size_t size)
{
	struct tlg_cursor m;
	const char *name;

	if (tlg_open(meta, len, &m) || tlg_cstr(&m, &name))
		return -EBADMSG;
	snprintf(out, size, "%s", name);
	return 0;
}

/**
 * etwctl_tl_decode - decode a TraceLogging payload field by field
 * @meta: the EVENT_SCHEMA_TL item's data
 * @meta_len: its size
 * @data: the event's user data
 * @len: its size
 * @fn: called once per field, in order
 * @ctx: passed to @fn
 *
 * Return: 0; -EBADMSG when the metadata or payload is malformed or short;
 * -EOPNOTSUPP for a field type this decoder does not know.  Fields
 * before the failing one have been passed to @fn.
 */
int etwctl_tl_decode(const void *meta, size_t meta_len, const void *data,
		     size_t len, etwctl_field_fn fn, void *ctx)
{
	struct tlg_decoder dec = { .fn = fn, .ctx = ctx };
	const char *name;
	int ret;

	if (tlg_open(meta, meta_len, &dec.meta) ||
	    tlg_cstr(&dec.meta, &name))
		return -EBADMSG;
	dec.data.p = data;
	dec.data.end = dec.data.p + len;
	while (dec.meta.p < dec.meta.end) {
		ret = tlg_field(&dec, "", 0);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * etwctl_traits_name - the provider name in a provider-traits blob
 * @traits: the PROV_TRAITS item's data (UINT16 size, name, traits)
 * @len: its size
 * @out: out: the name
 * @size: bytes at @out
 *
 * Return: 0, or -EBADMSG.
 */
int etwctl_traits_name(const void *traits, size_t len, char *out,
		       size_t size)
{
	struct tlg_cursor c = { traits, (const uint8_t *)traits + len };
	const char *name;
	uint16_t total;

	if (tlg_u16(&c, &total) || total < 3 || total > len)
		return -EBADMSG;
	c.end = (const uint8_t *)traits + total;
	if (tlg_cstr(&c, &name))
		return -EBADMSG;
	snprintf(out, size, "%s", name);
	return 0;
}

/**
 * etwctl_filetime_format - a FILETIME as ISO 8601 UTC with 100 ns digits
 * @ft: 100 ns ticks since 1601-01-01
 * @out: out: "2021-09-09T14:59:35.7991234Z"
 * @size: bytes at @out
 */
void etwctl_filetime_format(int64_t ft, char *out, size_t size)
{
	int64_t rel = ft - ETWCTL_FT_UNIX_EPOCH;
	int64_t secs = rel / ETWCTL_FT_PER_SEC, frac = rel % ETWCTL_FT_PER_SEC;
	time_t t;
	struct tm tm;

	if (frac < 0) {
		frac += ETWCTL_FT_PER_SEC;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm)) {
		snprintf(out, size, "%lld", (long long)ft);
		return;
	}
	snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%07lldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long long)frac);
}

/* "YYYY-MM-DDTHH:MM:SS[.fffffff]Z" to a FILETIME. */
static int etwctl_iso_parse(const char *s, int64_t *ft)
{
	struct tm tm = { 0 };
	int64_t frac = 0, scale = ETWCTL_FT_PER_SEC;
	const char *p;
	time_t t;

	p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!p)
		return -EINVAL;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (*p - '0') * scale;
		}
	}
	if (strcmp(p, "Z"))
		return -EINVAL;
	t = timegm(&tm);
	*ft = (int64_t)t * ETWCTL_FT_PER_SEC + frac + ETWCTL_FT_UNIX_EPOCH;
	return 0;
}

/**
 * etwctl_time_parse - a --from/--to time
 * @s: ISO 8601 UTC ("2021-09-09T14:59:35.5Z") or seconds after @start
 *	("1.5")
 * @start: FILETIME the relative form counts from
 * @ft: out: the FILETIME
 *
 * Return: 0, or -EINVAL.
 */
int etwctl_time_parse(const char *s, int64_t start, int64_t *ft)
{
	char *end;
	double secs;

	if (strchr(s, 'T'))
		return etwctl_iso_parse(s, ft);
	if (!*s || *s == '-' || *s == ' ')
		return -EINVAL;
	secs = strtod(s, &end);
	if (*end || !isfinite(secs) || secs > 1e9)
		return -EINVAL;
	*ft = start + (int64_t)(secs * ETWCTL_FT_PER_SEC + 0.5);
	return 0;
}
