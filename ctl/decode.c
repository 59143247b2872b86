// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c: TraceLogging self-describing events (extended item
 * EVENT_SCHEMA_TL) and events of loaded manifests as named fields, and
 * times as text.
 *
 * The decoding is libetw's, through the TDH functions a Windows consumer
 * uses: TdhGetEventInformation gives the schema, TdhFormatProperty each
 * value and the bytes it took.  This file only lays the values out the
 * way etwctl prints them: struct members as "name.member" and
 * "name[i].member", arrays of values as JSON array literals, the count
 * and length properties TDH adds for TraceLogging hidden, GUIDs in
 * etwctl's lowercase form and ANSI text as its bytes.
 */
#include <endian.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tdh.h>

#include "etw_tdh.h"
#include "etwctl.h"

/* FILETIME of 1970-01-01, in 100 ns ticks since 1601. */
#define ETWCTL_FT_UNIX_EPOCH	116444736000000000ll
#define ETWCTL_FT_PER_SEC	10000000ll

/* A growing string; @oom latches allocation failure. */
struct etwctl_sb {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

/*
 * What a value's text is to JSON: a literal (a number, a Boolean, an
 * array), a string, or a plain string: one of printable ASCII without
 * '"' or '\\', which needs no escapes (hex, GUIDs, addresses, times).
 */
enum etwctl_kind {
	ETWCTL_LITERAL,
	ETWCTL_STRING,
	ETWCTL_PLAIN,
};

static void sb_grow(struct etwctl_sb *sb, size_t more)
{
	size_t cap = sb->cap ? sb->cap : 64;
	char *s;

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

/*
 * Room for @more bytes and a NUL.  Inline, the test that there is: it
 * comes before every value, which seldom needs more.
 */
static __always_inline void sb_reserve(struct etwctl_sb *sb, size_t more)
{
	if (!sb->oom && sb->len + more + 1 > sb->cap)
		sb_grow(sb, more);
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

/* The hot appenders: no format string to parse for every value. */
static void sb_add(struct etwctl_sb *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	if (sb->oom)
		return;
	memcpy(sb->s + sb->len, s, n);
	sb->len += n;
	sb->s[sb->len] = 0;
}

static void sb_str(struct etwctl_sb *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

/* @units UTF-16LE code units at @p (up to a NUL) as UTF-8. */
static void sb_utf16(struct etwctl_sb *sb, const uint8_t *p, size_t units)
{
	sb_reserve(sb, 3 * units);
	if (sb->oom)
		return;
	sb->len += etw_etl_utf16_utf8(p, units, sb->s + sb->len);
}

static __always_inline void sb_u64(struct etwctl_sb *sb, uint64_t v)
{
	sb_reserve(sb, ETWCTL_U64_LEN);
	if (sb->oom)
		return;
	sb->len += etwctl_u64_text(v, sb->s + sb->len);
	sb->s[sb->len] = 0;
}

static void sb_i64(struct etwctl_sb *sb, int64_t v)
{
	if (v < 0) {
		sb_add(sb, "-", 1);
		sb_u64(sb, -(uint64_t)v);
	} else {
		sb_u64(sb, (uint64_t)v);
	}
}

/* "0x" and upper-case hex digits, as "0x%llX". */
static __always_inline void sb_hex64(struct etwctl_sb *sb, uint64_t v)
{
	/* Counted, then written from the last digit, two at a time. */
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;
	char *p;

	sb_reserve(sb, 2 + n);
	if (sb->oom)
		return;
	p = sb->s + sb->len;
	sb->len += 2 + n;
	sb->s[sb->len] = 0;
	p[0] = '0';
	p[1] = 'x';
	for (p += 2 + n; n >= 2; n -= 2, v >>= 8) {
		p -= 2;
		memcpy(p, etwctl_hex_pairs[1][v & 0xff], 2);
	}
	if (n)
		p[-1] = etwctl_hex_pairs[1][v & 0xf][1];
}

/* @s as a JSON string literal (quotes included), valid UTF-8. */
static void sb_json(struct etwctl_sb *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	sb_add(sb, "\"", 1);
	for (; *p; p += n ? n : 1) {
		n = etwctl_json_plain(p);
		if (n) {
			sb_add(sb, (const char *)p, n);
			continue;
		}
		n = etwctl_utf8_len(p);
		if (!n)
			sb_str(sb, "\\ufffd");
		else if (*p == '"' || *p == '\\')
			sb_printf(sb, "\\%c", *p);
		else if (*p == '\n')
			sb_str(sb, "\\n");
		else if (*p == '\t')
			sb_str(sb, "\\t");
		else if (*p < 0x20)
			sb_printf(sb, "\\u%04x", *p);
		else
			sb_add(sb, (const char *)p, n);
	}
	sb_add(sb, "\"", 1);
}

/* Properties whose counts and lengths fit on the stack. */
#define ETWCTL_TDH_INTS		64

/* A property's name, and a struct member's with its parents' prefix. */
#define ETWCTL_NAME_SIZE	512
/*
 * Schemas kept per thread: a direct-mapped table by libetw's number of
 * the schema, of fixed memory, as many as libetw's cache keeps.
 */
#define ETWCTL_SCHEMA_SLOTS	256

/*
 * An event schema's names as UTF-8, converted from the TRACE_EVENT_INFO's
 * UTF-16 once instead of for every event: @names, and property i's name
 * at @text +
 * @name_off[i], up to @name_off[i + 1] - 1 (the names follow each other
 * with their NULs).  @id is the key: the number libetw's cache gives the
 * schema (etw_tdh_event_schema()), 0 for one it does not keep.
 */
struct etwctl_schema {
	struct etwctl_names names;
	char *text;
	size_t *name_off;
	uint64_t id;
};

/*
 * Per thread, the table needs no lock.  etwctl decodes on its main
 * thread, whose table is left for the process's exit to free.
 */
static __thread struct etwctl_schema *etwctl_schemas[ETWCTL_SCHEMA_SLOTS];

static void etwctl_schema_free(struct etwctl_schema *s)
{
	if (!s)
		return;
	free(s->name_off);
	free(s->text);
	free(s);
}

static const char *etwctl_schema_name(const struct etwctl_schema *s,
				      ULONG i)
{
	return s->text + s->name_off[i];
}

static size_t etwctl_schema_name_len(const struct etwctl_schema *s, ULONG i)
{
	return s->name_off[i + 1] - s->name_off[i] - 1;
}

/* One event being decoded through TDH. */
struct etwctl_tdh {
	PEVENT_RECORD rec;
	const TRACE_EVENT_INFO *tei;
	const struct etwctl_schema *schema;
	USHORT *ints;		/* last value of each integer property */
	const uint8_t *p;
	const uint8_t *end;
	WCHAR *text;
	ULONG text_size;
	ULONG ptr_size;
	etwctl_field_fn fn;
	void *ctx;
	struct etwctl_sb *sb;	/* the value being decoded */
};

/*
 * The value being decoded: one buffer for every value of every event of
 * the thread, not a malloc an event.  It grows to the longest value.
 */
static __thread struct etwctl_sb etwctl_value_sb;

static int etwctl_tdh_errno(ULONG err)
{
	switch (err) {
	case ERROR_SUCCESS:
		return 0;
	case ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case ERROR_NOT_FOUND:
		return -ENOENT;
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	}
	return -EBADMSG;
}

/* A string of the TRACE_EVENT_INFO as UTF-8, malloc'ed. */
static char *etwctl_tei_string(const TRACE_EVENT_INFO *tei, ULONG off)
{
	const uint8_t *s = (const uint8_t *)tei + off;
	size_t n = 0;

	if (!off)
		return strdup("");
	while (s[2 * n] || s[2 * n + 1])
		n++;
	return etw_etl_utf16_to_utf8(s, n);
}

/*
 * The string at @off of the TRACE_EVENT_INFO into @out, as snprintf
 * "%s" would write it.  Names are ASCII but for rare ones: those are
 * converted in place, the others through UTF-8 in a copy.
 */
static int etwctl_tei_name(const TRACE_EVENT_INFO *tei, ULONG off,
			   char *out, size_t size)
{
	const uint8_t *s = (const uint8_t *)tei + off;
	size_t n = 0, i;
	char *utf8;

	if (!size)
		return 0;
	/* ASCII (most names) a UTF-16 unit at a time; others through UTF-8. */
	for (i = 0; off; i += 2) {
		uint16_t c = (uint16_t)(s[i] | s[i + 1] << 8);

		if (c < 0x80 && c && n + 1 < size) {
			out[n++] = (char)c;
			continue;
		}
		if (c >= 0x80) {
			utf8 = etwctl_tei_string(tei, off);
			if (!utf8)
				return -ENOMEM;
			snprintf(out, size, "%s", utf8);
			free(utf8);
			return 0;
		}
		if (!c)
			break;
	}
	out[n] = 0;
	return 0;
}

static const EVENT_PROPERTY_INFO *etwctl_epi(const struct etwctl_tdh *d,
					     ULONG i)
{
	return &d->tei->EventPropertyInfoArray[i];
}

/* Property @i only holds the count or length of the next one. */
static bool etwctl_is_prefix(const struct etwctl_tdh *d, ULONG i, ULONG end)
{
	const EVENT_PROPERTY_INFO *next;

	if (i + 1 >= end)
		return false;
	next = etwctl_epi(d, i + 1);
	return ((next->Flags & PropertyParamCount) &&
		next->countPropertyIndex == i) ||
	       ((next->Flags & PropertyParamLength) &&
		next->lengthPropertyIndex == i);
}

static const char *etwctl_digits(const char *s)
{
	while (*s >= '0' && *s <= '9')
		s++;
	return s;
}

/* A JSON number or Boolean literal. */
static bool etwctl_json_literal(const char *s)
{
	const char *e;

	/* A digit or '-' first, most often: no word to compare. */
	if ((*s == 't' && !strcmp(s, "true")) ||
	    (*s == 'f' && !strcmp(s, "false")))
		return true;
	s += *s == '-';
	e = *s == '0' ? s + 1 : etwctl_digits(s);
	if (e == s)
		return false;
	if (*e == '.') {
		s = e + 1;
		e = etwctl_digits(s);
		if (e == s)
			return false;
	}
	if (*e == 'e' || *e == 'E') {
		s = e + 1;
		s += *s == '+' || *s == '-';
		e = etwctl_digits(s);
		if (e == s)
			return false;
	}
	return !*e;
}

/* Numbers and Booleans are literals in JSON; the rest are strings. */
static enum etwctl_kind etwctl_quoted(USHORT in, USHORT out, const char *text)
{
	if (in < TDH_INTYPE_INT8 || in > TDH_INTYPE_BOOLEAN)
		return ETWCTL_STRING;
	/* A CHAR, even a digit. */
	if (out == TDH_OUTTYPE_STRING &&
	    (in == TDH_INTYPE_INT8 || in == TDH_INTYPE_UINT8))
		return ETWCTL_STRING;
	return etwctl_json_literal(text) ? ETWCTL_LITERAL : ETWCTL_STRING;
}

/*
 * A little-endian value of @n bytes (at most 8): the sizes of the integer
 * InTypes a load each (fixed-size memcpy()s compile to one), a byte at a
 * time for others.
 */
static uint64_t etwctl_le(const uint8_t *p, USHORT n)
{
	uint64_t u = 0;
	uint32_t u32;
	uint16_t u16;

	switch (n) {
	case 8:
		memcpy(&u, p, sizeof(u));
		return le64toh(u);
	case 4:
		memcpy(&u32, p, sizeof(u32));
		return le32toh(u32);
	case 2:
		memcpy(&u16, p, sizeof(u16));
		return le16toh(u16);
	}
	while (n--)
		u = u << 8 | p[n];
	return u;
}

/*
 * An integer as etwctl has always shown it: decimal by the InType's
 * sign; a CHAR, a Boolean, a port and an IPv4 address only at the sizes
 * TraceLogging writes them; hex for the hex OutTypes.  Other OutTypes
 * (HRESULT, NTSTATUS, WCHAR...) keep the number.  Return: what the text
 * is to JSON: a string (a CHAR), a plain one (hex, an address), else a
 * literal.
 */
static enum etwctl_kind etwctl_int(USHORT in, USHORT out, const uint8_t *p,
				   USHORT n, struct etwctl_sb *sb)
{
	int shift = 64 - 8 * n;
	uint64_t u = etwctl_le(p, n);
	int64_t s = (int64_t)(u << shift) >> shift;

	if (n == 1 && out == TDH_OUTTYPE_BOOLEAN) {
		sb_str(sb, u ? "true" : "false");
	} else if (n == 1 && out == TDH_OUTTYPE_STRING) {
		sb_printf(sb, "%c", (char)u);
		return ETWCTL_STRING;
	} else if (out >= TDH_OUTTYPE_HEXINT8 && out <= TDH_OUTTYPE_HEXINT64) {
		sb_hex64(sb, u);
		return ETWCTL_PLAIN;
	} else if (n == 2 && out == TDH_OUTTYPE_PORT) {
		sb_u64(sb, u >> 8 | (u & 0xff) << 8);
	} else if (n == 4 && out == TDH_OUTTYPE_IPV4) {
		sb_printf(sb, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
		return ETWCTL_PLAIN;
	} else if (in % 2) {	/* INT8, INT16, INT32, INT64 */
		sb_i64(sb, s);
	} else {
		sb_u64(sb, u);
	}
	return ETWCTL_LITERAL;
}

static void etwctl_hex(const uint8_t *p, size_t n, struct etwctl_sb *sb)
{
	sb_reserve(sb, 2 + 2 * n);
	if (sb->oom)
		return;
	memcpy(sb->s + sb->len, "0x", 2);
	etwctl_hex_text(p, n, true, sb->s + sb->len + 2);
	sb->len += 2 + 2 * n;
	sb->s[sb->len] = 0;
}

/*
 * The values etwctl shows from their bytes, as it did before it used
 * TDH, where TDH's text differs: GUIDs in etwctl's lowercase form, ANSI
 * text as the bytes it is (the JSON writer replaces what is not UTF-8),
 * integers (etwctl_int), binary always as hex, SYSTEMTIME without a
 * zone; and UTF-16 text, which TDH gives as its units, converted here
 * straight from them rather than from TDH's copy: the InTypes of
 * etwctl_is_raw().  Return: what the text is to JSON, as
 * etwctl_quoted() would find it: a string for all but most integers,
 * plain for the hex, GUIDs, addresses and times written here.
 */
static enum etwctl_kind etwctl_raw_text(USHORT in, USHORT out,
					const uint8_t *p, USHORT n,
					struct etwctl_sb *sb)
{
	char text[ETWCTL_GUID_LEN];
	const char *s = (const char *)p;
	uint16_t st[8];
	GUID g;

	switch (in) {
	case TDH_INTYPE_GUID:
		memcpy(&g, p, sizeof(g));
		etwctl_guid_format(&g, text);
		sb_add(sb, text, ETWCTL_GUID_LEN - 1);
		return ETWCTL_PLAIN;
	case TDH_INTYPE_ANSISTRING:
		sb_add(sb, s, strnlen(s, n));
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDANSISTRING:
		sb_add(sb, s + 2, strnlen(s + 2, n - 2u));
		break;
	case TDH_INTYPE_UNICODESTRING:
	case TDH_INTYPE_NONNULLTERMINATEDSTRING:
		sb_utf16(sb, p, n / 2);
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDSTRING:
	case TDH_INTYPE_COUNTEDSTRING:
	case TDH_INTYPE_REVERSEDCOUNTEDSTRING:
		sb_utf16(sb, p + 2, (n - 2u) / 2);
		break;
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
		return etwctl_int(in, out, p, n, sb);
	case TDH_INTYPE_HEXINT32: case TDH_INTYPE_HEXINT64:
	case TDH_INTYPE_POINTER:
		sb_hex64(sb, etwctl_le(p, n));
		return ETWCTL_PLAIN;
	case TDH_INTYPE_BINARY:
		etwctl_hex(p, n, sb);
		return ETWCTL_PLAIN;
	case TDH_INTYPE_MANIFEST_COUNTEDBINARY:
		etwctl_hex(p + 2, n - 2u, sb);
		return ETWCTL_PLAIN;
	case TDH_INTYPE_SYSTEMTIME:
		/* Year, Month, DayOfWeek, Day, Hour, Minute, Second, ms. */
		memcpy(st, p, sizeof(st));
		sb_printf(sb, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", st[0],
			  st[1], st[3], st[4], st[5], st[6], st[7]);
		return ETWCTL_PLAIN;
	}
	return ETWCTL_STRING;
}

/*
 * The InTypes etwctl_raw_text() prints from their bytes; a BINARY shown
 * as an IPv6 address is TDH's text.
 */
static bool etwctl_is_raw(USHORT in, USHORT out)
{
	if (in == TDH_INTYPE_BINARY && out == TDH_OUTTYPE_IPV6)
		return false;
	switch (in) {
	case TDH_INTYPE_GUID:
	case TDH_INTYPE_ANSISTRING:
	case TDH_INTYPE_MANIFEST_COUNTEDANSISTRING:
	case TDH_INTYPE_UNICODESTRING:
	case TDH_INTYPE_NONNULLTERMINATEDSTRING:
	case TDH_INTYPE_MANIFEST_COUNTEDSTRING:
	case TDH_INTYPE_COUNTEDSTRING:
	case TDH_INTYPE_REVERSEDCOUNTEDSTRING:
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
	case TDH_INTYPE_HEXINT32: case TDH_INTYPE_HEXINT64:
	case TDH_INTYPE_POINTER:
	case TDH_INTYPE_BINARY:
	case TDH_INTYPE_MANIFEST_COUNTEDBINARY:
	case TDH_INTYPE_SYSTEMTIME:
		return true;
	}
	return false;
}

/*
 * The bytes a value takes, for a value whose TDH text etwctl does not
 * print: the size and the errors TdhFormatProperty would give (it takes
 * them from the same function), without formatting the text.
 */
static ULONG etwctl_raw_size(struct etwctl_tdh *d,
			     const EVENT_PROPERTY_INFO *epi, USHORT length,
			     USHORT *used)
{
	ULONG size, ret;

	ret = etw_tdh_value_size(epi->nonStructType.InType,
				 epi->nonStructType.OutType, length,
				 d->ptr_size, d->p, (USHORT)(d->end - d->p),
				 &size);
	*used = (USHORT)size;
	return ret;
}

/*
 * The bytes of a value of @epi that etwctl_raw_text() prints and that
 * has the same size whatever its bytes (integers, pointers, GUIDs), or 0
 * for the others, which etw_tdh_value_size() or TdhFormatProperty size:
 * most values of kernel events, sized without a call.
 */
static USHORT etwctl_scalar_size(const EVENT_PROPERTY_INFO *epi,
				 ULONG ptr_size)
{
	if ((epi->Flags & (PropertyParamLength | PropertyHasCustomSchema)) ||
	    epi->nonStructType.MapNameOffset)
		return 0;
	switch (epi->nonStructType.InType) {
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
		return 1;
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
		return 2;
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_HEXINT32:
		return 4;
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
	case TDH_INTYPE_HEXINT64:
		return 8;
	case TDH_INTYPE_POINTER:
		return (USHORT)ptr_size;
	case TDH_INTYPE_GUID:
		return 16;
	}
	return 0;
}

/*
 * The value map of a manifest property (malloc'ed), or NULL when it has
 * none or TDH cannot give it: the value is then shown as a number.
 */
static EVENT_MAP_INFO *etwctl_map(const struct etwctl_tdh *d,
				  const EVENT_PROPERTY_INFO *epi)
{
	PWSTR name = (PWSTR)((BYTE *)d->tei + epi->nonStructType.MapNameOffset);
	EVENT_MAP_INFO *map;
	ULONG size = 0;

	if (!epi->nonStructType.MapNameOffset ||
	    TdhGetEventMapInformation(d->rec, name, NULL, &size) !=
	    ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	map = malloc(size);
	if (map && TdhGetEventMapInformation(d->rec, name, map, &size)) {
		free(map);
		return NULL;
	}
	return map;
}

/* TdhFormatProperty into d->text, growing it as asked. */
static ULONG etwctl_format(struct etwctl_tdh *d,
			   const EVENT_PROPERTY_INFO *epi,
			   EVENT_MAP_INFO *map, USHORT length, ULONG *size,
			   USHORT *used)
{
	ULONG ret;
	WCHAR *text;

	for (;;) {
		*size = d->text_size;
		/* The Windows API's pointer is not const; TDH only reads it. */
		ret = TdhFormatProperty((PTRACE_EVENT_INFO)d->tei, map,
					d->ptr_size,
					epi->nonStructType.InType,
					epi->nonStructType.OutType, length,
					(USHORT)(d->end - d->p), (PBYTE)d->p,
					size, d->text, used);
		if (ret != ERROR_INSUFFICIENT_BUFFER)
			return ret;
		text = realloc(d->text, *size);
		if (!text)
			return ERROR_OUTOFMEMORY;
		d->text = text;
		d->text_size = *size;
	}
}

/* Counts and lengths of later properties: the last value of each. */
static void etwctl_keep_int(struct etwctl_tdh *d, ULONG i, USHORT in,
			    const uint8_t *raw, USHORT used)
{
	uint64_t v;

	if (in != TDH_INTYPE_UINT8 && in != TDH_INTYPE_UINT16 &&
	    in != TDH_INTYPE_UINT32)
		return;
	v = etwctl_le(raw, used < 8 ? used : 8);
	d->ints[i] = v > 0xffff ? 0xffff : (USHORT)v;
}

/*
 * etwctl_value() for a value whose size its bytes or TDH give: through
 * etw_tdh_value_size() or TdhFormatProperty, and their errors.
 */
static int etwctl_value_sized(struct etwctl_tdh *d, ULONG i,
			      struct etwctl_sb *sb, enum etwctl_kind *kind)
{
	const EVENT_PROPERTY_INFO *epi = etwctl_epi(d, i);
	USHORT in = epi->nonStructType.InType, out = epi->nonStructType.OutType;
	const uint8_t *raw = d->p;
	USHORT used, length;
	EVENT_MAP_INFO *map;
	ULONG size, ret;
	bool is_raw;
	char *utf8;

	if (epi->Flags & PropertyHasCustomSchema)
		return -EOPNOTSUPP;
	length = epi->Flags & PropertyParamLength ?
		 d->ints[epi->lengthPropertyIndex] : epi->length;
	/* A mapped value is TDH's text: the map's names. */
	map = etwctl_map(d, epi);
	is_raw = !map && etwctl_is_raw(in, out);
	if (is_raw)
		ret = etwctl_raw_size(d, epi, length, &used);
	else
		ret = etwctl_format(d, epi, map, length, &size, &used);
	free(map);
	if (ret)
		return etwctl_tdh_errno(ret);
	d->p += used;
	etwctl_keep_int(d, i, in, raw, used);
	if (is_raw) {
		*kind = etwctl_raw_text(in, out, raw, used, sb);
		return 0;
	}
	utf8 = etw_etl_utf16_to_utf8((const uint8_t *)d->text, size / 2);
	if (!utf8)
		return -ENOMEM;
	sb_str(sb, utf8);
	free(utf8);
	*kind = etwctl_quoted(in, out, sb->len ? sb->s : "");
	return 0;
}

/*
 * One value of non-struct property @i into @sb; *@kind: what it is to
 * JSON.  Inline: most are integers and pointers, sized by their InType
 * alone.
 */
static __always_inline int etwctl_value(struct etwctl_tdh *d, ULONG i,
					struct etwctl_sb *sb,
					enum etwctl_kind *kind)
{
	const EVENT_PROPERTY_INFO *epi = etwctl_epi(d, i);
	USHORT used = etwctl_scalar_size(epi, d->ptr_size);
	const uint8_t *raw = d->p;

	/* One the data cannot hold takes etw_tdh_value_size()'s error. */
	if (!used || used > d->end - d->p)
		return etwctl_value_sized(d, i, sb, kind);
	d->p += used;
	etwctl_keep_int(d, i, epi->nonStructType.InType, raw, used);
	*kind = etwctl_raw_text(epi->nonStructType.InType,
				epi->nonStructType.OutType, raw, used, sb);
	return 0;
}

static int etwctl_emit(struct etwctl_tdh *d, const char *name,
		       size_t name_len, struct etwctl_sb *sb,
		       enum etwctl_kind kind)
{
	struct etwctl_field_text f = {
		.name = name,
		.name_len = name_len,
		.value = sb->len ? sb->s : "",
		.value_len = sb->len,
		.quoted = kind != ETWCTL_LITERAL,
		.plain = kind == ETWCTL_PLAIN,
	};

	if (sb->oom)
		return -ENOMEM;
	d->fn(d->ctx, &f);
	return 0;
}

/* An array of @count non-struct values as a JSON array literal. */
static int etwctl_array(struct etwctl_tdh *d, ULONG i, const char *name,
			size_t name_len, ULONG count)
{
	struct etwctl_sb sb = { 0 }, elem = { 0 };
	enum etwctl_kind kind;
	ULONG k;
	int ret = 0;

	sb_printf(&sb, "[");
	for (k = 0; k < count && !ret; k++) {
		elem.len = 0;
		ret = etwctl_value(d, i, &elem, &kind);
		if (ret || elem.oom)
			break;
		sb_printf(&sb, k ? "," : "");
		if (kind != ETWCTL_LITERAL)
			sb_json(&sb, elem.len ? elem.s : "");
		else
			sb_printf(&sb, "%s", elem.s);
	}
	sb_printf(&sb, "]");
	if (!ret)
		ret = elem.oom ? -ENOMEM :
		      etwctl_emit(d, name, name_len, &sb, ETWCTL_LITERAL);
	free(elem.s);
	free(sb.s);
	return ret;
}

static int etwctl_props(struct etwctl_tdh *d, ULONG first, ULONG n,
			const char *prefix);

/* A struct (or struct array): its members, prefixed "name." / "name[i]." */
static int etwctl_struct(struct etwctl_tdh *d, ULONG i, const char *name,
			 ULONG count, bool array)
{
	const EVENT_PROPERTY_INFO *epi = etwctl_epi(d, i);
	const uint8_t *start;
	char prefix[528];
	ULONG k;
	int ret;

	for (k = 0; k < count; k++) {
		if (array)
			snprintf(prefix, sizeof(prefix), "%s[%u].", name, k);
		else
			snprintf(prefix, sizeof(prefix), "%s.", name);
		start = d->p;
		ret = etwctl_props(d, epi->structType.StructStartIndex,
				   epi->structType.NumOfStructMembers, prefix);
		if (ret)
			return ret;
		/*
		 * An element of no bytes: the rest are the same, and nested
		 * counts of them would take billions of steps (as libetw's
		 * TdhGetPropertySize, the fuzzers' empty_struct_array_nested).
		 */
		if (d->p == start)
			break;
	}
	return 0;
}

static int etwctl_prop(struct etwctl_tdh *d, ULONG i, ULONG end,
		       const char *prefix)
{
	const EVENT_PROPERTY_INFO *epi = etwctl_epi(d, i);
	struct etwctl_sb *sb = d->sb;
	const char *name = etwctl_schema_name(d->schema, i);
	size_t name_len = etwctl_schema_name_len(d->schema, i);
	char full[ETWCTL_NAME_SIZE];
	enum etwctl_kind kind;
	ULONG count;
	bool array;
	int ret;

	sb->len = 0;
	if (etwctl_is_prefix(d, i, end))
		return etwctl_value(d, i, sb, &kind);
	if (*prefix) {
		name_len = (size_t)snprintf(full, sizeof(full), "%s%s", prefix,
					    name);
		if (name_len >= sizeof(full))
			name_len = sizeof(full) - 1;
		name = full;
	}
	count = epi->Flags & PropertyParamCount ?
		d->ints[epi->countPropertyIndex] : epi->count;
	array = (epi->Flags & (PropertyParamCount | PropertyParamFixedCount)) ||
		count != 1;
	if (epi->Flags & PropertyStruct)
		return etwctl_struct(d, i, name, count, array);
	if (array)
		return etwctl_array(d, i, name, name_len, count);
	ret = etwctl_value(d, i, sb, &kind);
	if (!ret)
		ret = etwctl_emit(d, name, name_len, sb, kind);
	return ret;
}

static int etwctl_props(struct etwctl_tdh *d, ULONG first, ULONG n,
			const char *prefix)
{
	ULONG i;
	int ret;

	for (i = first; i < first + n; i++) {
		ret = etwctl_prop(d, i, first + n, prefix);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A string of the TRACE_EVENT_INFO into @out; "" when @off is 0 or there
 * is no memory to convert it.
 */
static void etwctl_tei_copy(const TRACE_EVENT_INFO *tei, ULONG off,
			    char *out, size_t size)
{
	if (etwctl_tei_name(tei, off, out, size))
		*out = 0;
}

/* The keyword names: UTF-16 strings up to an empty one, joined by ",". */
static void etwctl_tei_keywords(const TRACE_EVENT_INFO *tei, char *out,
				size_t size)
{
	const uint8_t *s = (const uint8_t *)tei + tei->KeywordsNameOffset;
	size_t len = 0, n;
	char *name;

	*out = 0;
	while (tei->KeywordsNameOffset && (s[0] || s[1]) && len + 1 < size) {
		for (n = 0; s[2 * n] || s[2 * n + 1]; n++)
			;
		name = etw_etl_utf16_to_utf8(s, n);
		len += (size_t)snprintf(out + len, size - len, "%s%s",
					len ? "," : "", name ? name : "");
		if (len >= size)
			len = size - 1;
		free(name);
		s += 2 * (n + 1);
	}
}

/*
 * What the schema names.  TraceLogging puts the event name in
 * TaskNameOffset too; it is no task name there.
 */
static void etwctl_tei_names(const TRACE_EVENT_INFO *tei,
			     struct etwctl_names *names)
{
	bool tlg = tei->DecodingSource == DecodingSourceTlg;

	etwctl_tei_copy(tei, tei->ProviderNameOffset, names->provider,
			sizeof(names->provider));
	etwctl_tei_copy(tei, tei->EventNameOffset, names->event,
			sizeof(names->event));
	etwctl_tei_copy(tei, tei->ChannelNameOffset, names->channel,
			sizeof(names->channel));
	etwctl_tei_copy(tei, tei->LevelNameOffset, names->level,
			sizeof(names->level));
	etwctl_tei_copy(tei, tlg ? 0 : tei->TaskNameOffset, names->task,
			sizeof(names->task));
	etwctl_tei_copy(tei, tei->OpcodeNameOffset, names->opcode,
			sizeof(names->opcode));
	etwctl_tei_keywords(tei, names->keywords, sizeof(names->keywords));
}

/* A schema's names, converted for @tei; NULL without memory. */
static struct etwctl_schema *etwctl_schema_new(const TRACE_EVENT_INFO *tei,
					       uint64_t id)
{
	struct etwctl_schema *s = calloc(1, sizeof(*s));
	char name[ETWCTL_NAME_SIZE], *text;
	size_t len = 0, cap = 0, n;
	ULONG i;

	if (!s)
		return NULL;
	s->id = id;
	etwctl_tei_names(tei, &s->names);
	s->names.schema = id ?: ETWCTL_NAMES_OWN;
	s->name_off = calloc(tei->PropertyCount + 1, sizeof(*s->name_off));
	if (!s->name_off)
		goto fail;
	for (i = 0; i < tei->PropertyCount; i++) {
		if (etwctl_tei_name(tei, tei->EventPropertyInfoArray[i].NameOffset,
				    name, sizeof(name)))
			goto fail;
		n = strlen(name) + 1;
		if (len + n > cap) {
			cap = 2 * (len + n);
			text = realloc(s->text, cap);
			if (!text)
				goto fail;
			s->text = text;
		}
		memcpy(s->text + len, name, n);
		s->name_off[i] = len;
		len += n;
	}
	s->name_off[i] = len;
	return s;
fail:
	etwctl_schema_free(s);
	return NULL;
}

/*
 * The schema of @rec: *@tei libetw's cached TRACE_EVENT_INFO, *@schema
 * its names, from this thread's table or converted into it.  A schema
 * libetw's cache does not keep is copied into *@copy (to free) and its
 * names converted into *@own, for this event alone.  Return: 0, or the
 * error of TdhGetEventInformation as an errno.
 */
static int etwctl_schema_of(PEVENT_RECORD rec, const TRACE_EVENT_INFO **tei,
			    const struct etwctl_schema **schema,
			    struct etwctl_schema **own, TRACE_EVENT_INFO **copy)
{
	struct etwctl_schema **slot, *s;
	uint64_t id;
	ULONG size, ret;

	ret = etw_tdh_event_schema(rec, tei, &size, &id);
	if (ret == ERROR_MORE_DATA) {
		ret = etw_tdh_event_info(rec, copy);
		if (ret)
			return etwctl_tdh_errno(ret);
		*tei = *copy;
		*own = etwctl_schema_new(*copy, 0);
		*schema = *own;
		return *own ? 0 : -ENOMEM;
	}
	if (ret)
		return etwctl_tdh_errno(ret);
	slot = &etwctl_schemas[id % ETWCTL_SCHEMA_SLOTS];
	if (!*slot || (*slot)->id != id) {
		s = etwctl_schema_new(*tei, id);
		if (!s)
			return -ENOMEM;
		etwctl_schema_free(*slot);
		*slot = s;
	}
	*schema = *slot;
	return 0;
}

/* All "": the names of an event without a schema. */
static const struct etwctl_names etwctl_no_names;

/*
 * The names of an own schema, which is freed with its event's decoding:
 * per thread, as the table.
 */
static __thread struct etwctl_names etwctl_own_names;

/*
 * *@names (when not NULL) the names of the event's schema (all "" when
 * the schema cannot be read), valid until this thread decodes another
 * event, then its fields to @fn (when not NULL), through
 * TdhGetEventInformation and TdhFormatProperty.
 */
static int etwctl_tdh_decode(PEVENT_RECORD rec,
			     const struct etwctl_names **names,
			     etwctl_field_fn fn, void *ctx)
{
	USHORT ints[ETWCTL_TDH_INTS];
	struct etwctl_tdh d = { .rec = rec, .fn = fn, .ctx = ctx,
				.sb = &etwctl_value_sb };
	struct etwctl_schema *own = NULL;
	TRACE_EVENT_INFO *copy = NULL;
	int ret = etwctl_schema_of(rec, &d.tei, &d.schema, &own, &copy);

	d.sb->oom = false;
	if (names)
		*names = &etwctl_no_names;
	if (ret)
		goto out;
	if (names && own) {
		etwctl_own_names = own->names;
		*names = &etwctl_own_names;
	} else if (names) {
		*names = &d.schema->names;
	}
	if (fn) {
		if (d.tei->PropertyCount < ETWCTL_TDH_INTS) {
			memset(ints, 0, sizeof(ints));
			d.ints = ints;
		} else {
			d.ints = calloc(d.tei->PropertyCount + 1,
					sizeof(*d.ints));
		}
		d.p = rec->UserData ? rec->UserData : (const uint8_t *)"";
		d.end = d.p + rec->UserDataLength;
		d.ptr_size = rec->EventHeader.Flags &
			     EVENT_HEADER_FLAG_32_BIT_HEADER ? 4 : 8;
		ret = d.ints ? etwctl_props(&d, 0, d.tei->TopLevelPropertyCount,
					    "") : -ENOMEM;
	}
out:
	etwctl_schema_free(own);
	if (d.ints != ints)
		free(d.ints);
	free(d.text);
	free(copy);
	return ret;
}

/* An event record of TraceLogging metadata and data alone. */
static void etwctl_tl_record(EVENT_RECORD *rec,
			     EVENT_HEADER_EXTENDED_DATA_ITEM *x,
			     const void *meta, size_t meta_len,
			     const void *data, size_t len)
{
	memset(rec, 0, sizeof(*rec));
	memset(x, 0, sizeof(*x));
	x->ExtType = EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL;
	x->DataSize = (USHORT)(meta_len > 0xffff ? 0xffff : meta_len);
	x->DataPtr = (uintptr_t)meta;
	rec->EventHeader.Flags = EVENT_HEADER_FLAG_EXTENDED_INFO |
				 EVENT_HEADER_FLAG_64_BIT_HEADER;
	rec->ExtendedDataCount = 1;
	rec->ExtendedData = x;
	rec->UserData = (PVOID)data;
	rec->UserDataLength = (USHORT)(len > 0xffff ? 0xffff : len);
}

/**
 * etwctl_tl_event_name - the event name in TraceLogging metadata
 * @meta: the EVENT_SCHEMA_TL item's data
 * @len: its size
 * @out: out: the name
 * @size: bytes at @out
 *
 * Context: any thread.
 * Return: 0, -EBADMSG for malformed metadata, -EOPNOTSUPP for metadata
 * TDH cannot describe, -ENOMEM.
 */
int etwctl_tl_event_name(const void *meta, size_t len, char *out,
			 size_t size)
{
	const struct etwctl_names *names;
	EVENT_HEADER_EXTENDED_DATA_ITEM x;
	EVENT_RECORD rec;
	int ret;

	etwctl_tl_record(&rec, &x, meta, len, NULL, 0);
	ret = etwctl_tdh_decode(&rec, &names, NULL, NULL);
	if (!ret)
		snprintf(out, size, "%s", names->event);
	return ret;
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
 * Context: any thread.
 * Return: 0; -EBADMSG when the metadata or payload is malformed or short;
 * -EOPNOTSUPP for a field type TDH does not decode.  Fields before the
 * failing one have been passed to @fn.
 */
int etwctl_tl_decode(const void *meta, size_t meta_len, const void *data,
		     size_t len, etwctl_field_fn fn, void *ctx)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM x;
	EVENT_RECORD rec;

	etwctl_tl_record(&rec, &x, meta, meta_len, data, len);
	return etwctl_tdh_decode(&rec, NULL, fn, ctx);
}

/**
 * etwctl_decode_names - an event's names and fields, as its schema gives
 * @ev: the event, as read from a file or a session
 * @names: out: the names of its schema ("" for what it does not name),
 *	valid until this thread decodes another event; or NULL
 * @fn: called once per field, in order, or NULL
 * @ctx: passed to @fn
 *
 * The schema is the event's TraceLogging metadata, the MOF class of a
 * kernel logger event TDH knows, or, for other events, a loaded manifest
 * of its provider (TdhLoadManifest).  The names are the schema's own, not
 * a copy: dump shows them once per row.
 *
 * Context: any thread.
 * Return: 0; -ENOENT for an event without a schema; else as
 * etwctl_tl_decode(); *@names is always set, all "" when the schema
 * could not be read.
 */
int etwctl_decode_names(const struct etw_etl_event *ev,
			const struct etwctl_names **names, etwctl_field_fn fn,
			void *ctx)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM x[ETW_ETL_MAX_EXT_ITEMS];
	EVENT_RECORD rec;
	uint32_t i;

	memset(&rec, 0, sizeof(rec));
	/* The items in use, each whole: the rest are never read. */
	for (i = 0; i < ev->ext_count && i < ETW_ETL_MAX_EXT_ITEMS; i++)
		x[i] = (EVENT_HEADER_EXTENDED_DATA_ITEM){
			.ExtType = ev->ext[i].type,
			.DataSize = ev->ext[i].size,
			.DataPtr = (uintptr_t)ev->ext[i].data,
		};
	rec.EventHeader.Flags = ev->flags | etw_event_width(ev);
	/* Kernel records are classic events to TDH, as ProcessTrace says. */
	if (ev->kind == ETW_ETL_KIND_SYSTEM || ev->kind == ETW_ETL_KIND_PERFINFO)
		rec.EventHeader.Flags |= EVENT_HEADER_FLAG_CLASSIC_HEADER;
	memcpy(&rec.EventHeader.ProviderId, &ev->provider_id,
	       sizeof(rec.EventHeader.ProviderId));
	/* A manifest's event is found by its Id and Version. */
	memcpy(&rec.EventHeader.EventDescriptor, &ev->descriptor,
	       sizeof(rec.EventHeader.EventDescriptor));
	rec.ExtendedDataCount = (USHORT)i;
	rec.ExtendedData = x;
	rec.UserData = (PVOID)ev->user_data;
	rec.UserDataLength = (USHORT)(ev->user_data_len > 0xffff ? 0xffff :
				      ev->user_data_len);
	return etwctl_tdh_decode(&rec, names, fn, ctx);
}

/**
 * etwctl_decode_event - etwctl_decode_names(), the names copied
 * @ev: the event
 * @names: out: the names of its schema, or NULL
 * @fn: called once per field, in order, or NULL
 * @ctx: passed to @fn
 *
 * Context: any thread.
 * Return: as etwctl_decode_names().
 */
int etwctl_decode_event(const struct etw_etl_event *ev,
			struct etwctl_names *names, etwctl_field_fn fn,
			void *ctx)
{
	const struct etwctl_names *n;
	int ret = etwctl_decode_names(ev, names ? &n : NULL, fn, ctx);

	if (names)
		*names = *n;
	return ret;
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
	const char *name = (const char *)traits + 2;
	uint16_t total;
	size_t n;

	if (len < 3)
		return -EBADMSG;
	memcpy(&total, traits, sizeof(total));
	if (total < 3 || total > len || !memchr(name, 0, total - 2u))
		return -EBADMSG;
	if (size) {
		/* snprintf "%s" without the printf: once per event. */
		n = strnlen(name, size - 1);
		memcpy(out, name, n);
		out[n] = 0;
	}
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
	/* Events come in time order: the date changes once a second. */
	static __thread int64_t cached_secs = INT64_MIN;
	static __thread char date[32];
	static __thread size_t date_len;
	int64_t rel = ft - ETWCTL_FT_UNIX_EPOCH;
	int64_t secs = rel / ETWCTL_FT_PER_SEC, frac = rel % ETWCTL_FT_PER_SEC;
	time_t t;
	struct tm tm;

	if (frac < 0) {
		frac += ETWCTL_FT_PER_SEC;
		secs--;
	}
	if (secs != cached_secs) {
		t = (time_t)secs;
		if (!gmtime_r(&t, &tm)) {
			snprintf(out, size, "%lld", (long long)ft);
			return;
		}
		date_len = (size_t)snprintf(date, sizeof(date),
					    "%04d-%02d-%02dT%02d:%02d:%02d",
					    tm.tm_year + 1900, tm.tm_mon + 1,
					    tm.tm_mday, tm.tm_hour, tm.tm_min,
					    tm.tm_sec);
		cached_secs = secs;
	}
	/* The date, '.', 7 digits, 'Z' and the NUL; snprintf truncates. */
	if (size < date_len + 10) {
		snprintf(out, size, "%s.%07lldZ", date, (long long)frac);
		return;
	}
	memcpy(out, date, date_len);
	out[date_len] = '.';
	etwctl_dec_fixed((uint64_t)frac, 7, out + date_len + 1);
	out[date_len + 8] = 'Z';
	out[date_len + 9] = 0;
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
