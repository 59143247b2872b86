// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_format.c: TdhFormatProperty, one property value as text, and
 * the size of a value in the event data.
 *
 * The text is UTF-16, NUL-terminated.  Integers are decimal unless the
 * OutType says otherwise (hex "0x2A", Boolean "true"/"false", a CHAR or
 * WCHAR, a big-endian port, a dotted IPv4 address, HRESULT and NTSTATUS
 * as "0x%08X", Win32 errors as decimal numbers: there is no message
 * table to turn them into text).  Floats print with enough digits to
 * read back the same value.  GUIDs are "{XXXXXXXX-XXXX-...}", FILETIMEs
 * ISO 8601 UTC with 100 ns digits ("2021-09-09T14:59:35.7990000Z"),
 * SYSTEMTIMEs with milliseconds ("Z" only when the OutType says UTC),
 * SIDs "S-1-5-32-544", binary "0x" and uppercase hex (an IPv6 address
 * when the OutType says so).  ANSI strings are taken as UTF-8, the
 * code page of Linux; a byte that is not UTF-8 becomes U+FFFD.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "etw_tdh.h"

/* FILETIME of 1970-01-01, in 100 ns ticks since 1601. */
#define ETW_TDH_FT_UNIX_EPOCH	116444736000000000ll
#define ETW_TDH_FT_PER_SEC	10000000ll
#define ETW_TDH_REPLACEMENT	0xfffd

/* Output: as many units as fit at @buf, all of them counted in @len. */
struct etw_wsink {
	WCHAR *buf;
	size_t cap;
	size_t len;
};

static void etw_ws_unit(struct etw_wsink *w, uint32_t u)
{
	if (w->len < w->cap)
		w->buf[w->len] = (WCHAR)u;
	w->len++;
}

static void etw_ws_ascii(struct etw_wsink *w, const char *s)
{
	while (*s)
		etw_ws_unit(w, (unsigned char)*s++);
}

static void etw_ws_printf(struct etw_wsink *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void etw_ws_printf(struct etw_wsink *w, const char *fmt, ...)
{
	char text[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	etw_ws_ascii(w, text);
}

/* The @digits low hex digits of @v, uppercase, as "%0*X" writes them. */
static void etw_ws_hex(struct etw_wsink *w, uint64_t v, int digits)
{
	while (digits--)
		etw_ws_unit(w, "0123456789ABCDEF"[(v >> 4 * digits) & 0xf]);
}

/* Decimal (with a '-' when @neg) or "0x" and uppercase hex, no printf. */
static void etw_ws_number(struct etw_wsink *w, uint64_t v, bool neg, bool hex)
{
	char text[24];
	int i = sizeof(text);

	do {
		text[--i] = "0123456789ABCDEF"[hex ? v % 16 : v % 10];
		v = hex ? v / 16 : v / 10;
	} while (v);
	if (hex) {
		text[--i] = 'x';
		text[--i] = '0';
	} else if (neg) {
		text[--i] = '-';
	}
	while (i < (int)sizeof(text))
		etw_ws_unit(w, (unsigned char)text[i++]);
}

/* The length of a valid UTF-8 sequence at @p (at most @n bytes), or 0. */
static size_t etw_utf8_seq(const uint8_t *p, size_t n, uint32_t *cp)
{
	size_t len, i;

	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, *cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, *cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, *cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && *cp < 0x80) || (len == 3 && *cp < 0x800) ||
	    (len == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp < 0xe000))
		return 0;
	return len;
}

static void etw_ws_utf8(struct etw_wsink *w, const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len;

	while (n) {
		len = etw_utf8_seq(p, n, &cp);
		if (!len) {
			cp = ETW_TDH_REPLACEMENT;
			len = 1;
		}
		if (cp >= 0x10000) {
			etw_ws_unit(w, 0xd800 | (cp - 0x10000) >> 10);
			etw_ws_unit(w, 0xdc00 | (cp & 0x3ff));
		} else {
			etw_ws_unit(w, cp);
		}
		p += len;
		n -= len;
	}
}

/* UTF-16LE code units as they are, up to a NUL. */
static void etw_ws_utf16(struct etw_wsink *w, const uint8_t *p, size_t units)
{
	uint32_t u;
	size_t i;

	for (i = 0; i < units; i++) {
		u = p[2 * i] | p[2 * i + 1] << 8;
		if (!u)
			break;
		etw_ws_unit(w, u);
	}
}

static uint64_t etw_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* An integer of @bytes (1, 2, 4, 8) as @out says; @hex: the default. */
static void etw_tdh_int(struct etw_wsink *w, const uint8_t *p, size_t bytes,
			bool is_signed, bool hex, USHORT out)
{
	uint64_t u = etw_le(p, bytes);
	int shift = 64 - 8 * (int)bytes;
	int64_t s = (int64_t)(u << shift) >> shift;

	switch (out) {
	case TDH_OUTTYPE_BOOLEAN:
		etw_ws_ascii(w, u ? "true" : "false");
		return;
	case TDH_OUTTYPE_STRING:
		if (bytes == 1) {
			etw_ws_utf8(w, p, 1);
			return;
		}
		if (bytes == 2) {
			etw_ws_unit(w, (uint32_t)u);
			return;
		}
		break;
	case TDH_OUTTYPE_HEXINT8:
	case TDH_OUTTYPE_HEXINT16:
	case TDH_OUTTYPE_HEXINT32:
	case TDH_OUTTYPE_HEXINT64:
	case TDH_OUTTYPE_CODE_POINTER:
		hex = true;
		break;
	case TDH_OUTTYPE_PORT:
		if (bytes == 2) {
			etw_ws_printf(w, "%u", (unsigned int)(u >> 8 |
							      (u & 0xff) << 8));
			return;
		}
		break;
	case TDH_OUTTYPE_IPV4:
		if (bytes == 4) {
			etw_ws_printf(w, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
			return;
		}
		break;
	case TDH_OUTTYPE_HRESULT:
	case TDH_OUTTYPE_NTSTATUS:
		if (bytes == 4) {
			etw_ws_printf(w, "0x%08llX", (unsigned long long)u);
			return;
		}
		break;
	case TDH_OUTTYPE_WIN32ERROR:
		if (bytes == 4) {
			etw_ws_number(w, u, false, false);
			return;
		}
		break;
	case TDH_OUTTYPE_UNSIGNEDBYTE:
	case TDH_OUTTYPE_UNSIGNEDSHORT:
	case TDH_OUTTYPE_UNSIGNEDINT:
	case TDH_OUTTYPE_UNSIGNEDLONG:
		is_signed = false;
		hex = false;
		break;
	case TDH_OUTTYPE_BYTE:
	case TDH_OUTTYPE_SHORT:
	case TDH_OUTTYPE_INT:
	case TDH_OUTTYPE_LONG:
		is_signed = true;
		hex = false;
		break;
	}
	if (is_signed && !hex && s < 0)
		etw_ws_number(w, -(uint64_t)s, true, false);
	else
		etw_ws_number(w, u, false, hex);
}

static void etw_tdh_guid(struct etw_wsink *w, const uint8_t *p)
{
	int i;

	/* {%08X-%04X-%04X-%02X%02X-%02X...}, without printf: every GUID. */
	etw_ws_unit(w, '{');
	etw_ws_hex(w, etw_le(p, 4), 8);
	etw_ws_unit(w, '-');
	etw_ws_hex(w, etw_le(p + 4, 2), 4);
	etw_ws_unit(w, '-');
	etw_ws_hex(w, etw_le(p + 6, 2), 4);
	etw_ws_unit(w, '-');
	for (i = 8; i < 16; i++) {
		if (i == 10)
			etw_ws_unit(w, '-');
		etw_ws_hex(w, p[i], 2);
	}
	etw_ws_unit(w, '}');
}

static void etw_tdh_filetime(struct etw_wsink *w, const uint8_t *p)
{
	/* Unsigned, as Windows' two DWORDs: seconds first, then the epoch. */
	uint64_t ft = etw_le(p, 8);
	int64_t secs = (int64_t)(ft / ETW_TDH_FT_PER_SEC) -
		       ETW_TDH_FT_UNIX_EPOCH / ETW_TDH_FT_PER_SEC;
	int64_t frac = (int64_t)(ft % ETW_TDH_FT_PER_SEC);
	time_t t = (time_t)secs;
	struct tm tm;

	if (!gmtime_r(&t, &tm)) {
		etw_ws_printf(w, "%llu", (unsigned long long)ft);
		return;
	}
	etw_ws_printf(w, "%04d-%02d-%02dT%02d:%02d:%02d.%07lldZ",
		      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		      tm.tm_min, tm.tm_sec, (long long)frac);
}

/* Year, Month, DayOfWeek, Day, Hour, Minute, Second, Milliseconds. */
static void etw_tdh_systemtime(struct etw_wsink *w, const uint8_t *p,
			       USHORT out)
{
	unsigned int st[8];
	int i;

	for (i = 0; i < 8; i++)
		st[i] = (unsigned int)etw_le(p + 2 * i, 2);
	etw_ws_printf(w, "%04u-%02u-%02uT%02u:%02u:%02u.%03u%s", st[0], st[1],
		      st[3], st[4], st[5], st[6], st[7],
		      out == TDH_OUTTYPE_DATETIME_UTC ? "Z" : "");
}

/* Revision, sub-authority count, 48-bit big-endian authority, subauths. */
static void etw_tdh_sid(struct etw_wsink *w, const uint8_t *p)
{
	uint64_t auth = 0;
	int i;

	for (i = 0; i < 6; i++)
		auth = auth << 8 | p[2 + i];
	etw_ws_printf(w, "S-%u-%llu", p[0], (unsigned long long)auth);
	for (i = 0; i < p[1]; i++)
		etw_ws_printf(w, "-%u", (unsigned int)etw_le(p + 8 + 4 * i, 4));
}

static void etw_tdh_binary(struct etw_wsink *w, const uint8_t *p, size_t n,
			   USHORT out)
{
	char text[INET6_ADDRSTRLEN];
	size_t i;

	if (out == TDH_OUTTYPE_IPV6 && n == 16 &&
	    inet_ntop(AF_INET6, p, text, sizeof(text))) {
		etw_ws_ascii(w, text);
		return;
	}
	etw_ws_ascii(w, "0x");
	for (i = 0; i < n; i++)
		etw_ws_hex(w, p[i], 2);
}

static void etw_tdh_real(struct etw_wsink *w, const uint8_t *p, bool dbl)
{
	uint64_t u = etw_le(p, dbl ? 8 : 4);
	uint32_t u32 = (uint32_t)u;
	double d;
	float f;

	if (dbl) {
		memcpy(&d, &u, sizeof(d));
		etw_ws_printf(w, "%.17g", d);
	} else {
		memcpy(&f, &u32, sizeof(f));
		etw_ws_printf(w, "%.9g", f);
	}
}

static size_t etw_tdh_strnlen(const uint8_t *p, size_t n)
{
	const uint8_t *nul = memchr(p, 0, n);

	return nul ? (size_t)(nul - p) : n;
}

/* The text of a value of @size bytes (etw_tdh_value_size's) at @p. */
static void etw_tdh_text(struct etw_wsink *w, USHORT in, USHORT out,
			 ULONG ptr_size, const uint8_t *p, ULONG size)
{
	switch (in) {
	case TDH_INTYPE_INT8: case TDH_INTYPE_INT16:
	case TDH_INTYPE_INT32: case TDH_INTYPE_INT64:
		etw_tdh_int(w, p, size, true, false, out);
		break;
	case TDH_INTYPE_UINT8: case TDH_INTYPE_UINT16:
	case TDH_INTYPE_UINT32: case TDH_INTYPE_UINT64:
	case TDH_INTYPE_SIZET:
		etw_tdh_int(w, p, size, false, false, out);
		break;
	case TDH_INTYPE_UNICODECHAR:
	case TDH_INTYPE_ANSICHAR:
		etw_tdh_int(w, p, size, false, false, TDH_OUTTYPE_STRING);
		break;
	case TDH_INTYPE_HEXINT32: case TDH_INTYPE_HEXINT64:
	case TDH_INTYPE_POINTER:
		etw_tdh_int(w, p, size, false, true, out);
		break;
	case TDH_INTYPE_FLOAT: case TDH_INTYPE_DOUBLE:
		etw_tdh_real(w, p, in == TDH_INTYPE_DOUBLE);
		break;
	case TDH_INTYPE_BOOLEAN:
		etw_ws_ascii(w, etw_le(p, 4) ? "true" : "false");
		break;
	case TDH_INTYPE_GUID:
		etw_tdh_guid(w, p);
		break;
	case TDH_INTYPE_FILETIME:
		etw_tdh_filetime(w, p);
		break;
	case TDH_INTYPE_SYSTEMTIME:
		etw_tdh_systemtime(w, p, out);
		break;
	case TDH_INTYPE_SID:
		etw_tdh_sid(w, p);
		break;
	case TDH_INTYPE_WBEMSID:
		/* A TOKEN_USER (two pointers) before the SID. */
		etw_tdh_sid(w, p + 2 * ptr_size);
		break;
	case TDH_INTYPE_BINARY:
		etw_tdh_binary(w, p, size, out);
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDBINARY:
		etw_tdh_binary(w, p + 2, size - 2, out);
		break;
	case TDH_INTYPE_HEXDUMP:
		etw_tdh_binary(w, p + 4, size - 4, out);
		break;
	case TDH_INTYPE_UNICODESTRING:
		etw_ws_utf16(w, p, size / 2);
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDSTRING:
	case TDH_INTYPE_COUNTEDSTRING:
	case TDH_INTYPE_REVERSEDCOUNTEDSTRING:
		etw_ws_utf16(w, p + 2, (size - 2) / 2);
		break;
	case TDH_INTYPE_NONNULLTERMINATEDSTRING:
		etw_ws_utf16(w, p, size / 2);
		break;
	case TDH_INTYPE_ANSISTRING:
		etw_ws_utf8(w, p, etw_tdh_strnlen(p, size));
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDANSISTRING:
	case TDH_INTYPE_COUNTEDANSISTRING:
	case TDH_INTYPE_REVERSEDCOUNTEDANSISTRING:
		etw_ws_utf8(w, p + 2, etw_tdh_strnlen(p + 2, size - 2));
		break;
	case TDH_INTYPE_NONNULLTERMINATEDANSISTRING:
		etw_ws_utf8(w, p, etw_tdh_strnlen(p, size));
		break;
	}
}

/**
 * etw_tdh_fixed_size - the bytes of a value of a fixed-size InType
 * @in: the InType
 * @ptr_size: 4 or 8, for TDH_INTYPE_POINTER
 *
 * Context: any thread.
 * Return: the size, or 0 for a variable-size or unknown InType.
 */
ULONG etw_tdh_fixed_size(USHORT in, ULONG ptr_size)
{
	switch (in) {
	case TDH_INTYPE_INT8: case TDH_INTYPE_UINT8:
		return 1;
	case TDH_INTYPE_INT16: case TDH_INTYPE_UINT16:
		return 2;
	case TDH_INTYPE_INT32: case TDH_INTYPE_UINT32:
	case TDH_INTYPE_HEXINT32: case TDH_INTYPE_FLOAT:
	case TDH_INTYPE_BOOLEAN:
		return 4;
	case TDH_INTYPE_INT64: case TDH_INTYPE_UINT64:
	case TDH_INTYPE_HEXINT64: case TDH_INTYPE_DOUBLE:
	case TDH_INTYPE_FILETIME:
		return 8;
	case TDH_INTYPE_GUID: case TDH_INTYPE_SYSTEMTIME:
		return 16;
	case TDH_INTYPE_POINTER: case TDH_INTYPE_SIZET:
		return ptr_size;
	case TDH_INTYPE_UNICODECHAR:
		return 2;
	case TDH_INTYPE_ANSICHAR:
		return 1;
	}
	return 0;
}

/* A NUL-terminated string of @unit-byte characters: its bytes with NUL. */
static ULONG etw_tdh_sz_size(const BYTE *p, size_t avail, size_t unit,
			     ULONG *size)
{
	size_t i;

	for (i = 0; i + unit <= avail; i += unit)
		if (!p[i] && (unit == 1 || !p[i + 1])) {
			*size = (ULONG)(i + unit);
			return ERROR_SUCCESS;
		}
	return ERROR_EVT_INVALID_EVENT_DATA;
}

/**
 * etw_tdh_value_size - the bytes one value takes in the event data
 * @in: its InType
 * @out: its OutType
 * @length: its length: characters of a fixed-length string, bytes of
 *	binary data; 0 for none
 * @ptr_size: 4 or 8
 * @p: the value
 * @avail: bytes at @p
 * @size: out: its size
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_EVT_INVALID_EVENT_DATA when the value does
 * not fit @avail or a string has no NUL; ERROR_INVALID_PARAMETER for a
 * struct (TDH_INTYPE_RESERVED24); ERROR_NOT_SUPPORTED for an InType
 * that is none of TDH's.
 */
ULONG etw_tdh_value_size(USHORT in, USHORT out, USHORT length,
			 ULONG ptr_size, const BYTE *p, size_t avail,
			 ULONG *size)
{
	ULONG ret = ERROR_SUCCESS;

	*size = etw_tdh_fixed_size(in, ptr_size);
	switch (in) {
	case TDH_INTYPE_NULL:
		break;
	case TDH_INTYPE_UNICODESTRING:
		if (length)
			*size = 2u * length;
		else
			ret = etw_tdh_sz_size(p, avail, 2, size);
		break;
	case TDH_INTYPE_ANSISTRING:
		if (length)
			*size = length;
		else
			ret = etw_tdh_sz_size(p, avail, 1, size);
		break;
	case TDH_INTYPE_BINARY:
		*size = length;
		break;
	case TDH_INTYPE_SID:
		*size = avail < 8 ? 8 : 8 + 4u * p[1];
		break;
	case TDH_INTYPE_MANIFEST_COUNTEDSTRING:
	case TDH_INTYPE_MANIFEST_COUNTEDANSISTRING:
	case TDH_INTYPE_MANIFEST_COUNTEDBINARY:
	case TDH_INTYPE_COUNTEDSTRING:
	case TDH_INTYPE_COUNTEDANSISTRING:
		*size = avail < 2 ? 2 : 2 + (ULONG)etw_le(p, 2);
		break;
	case TDH_INTYPE_REVERSEDCOUNTEDSTRING:
	case TDH_INTYPE_REVERSEDCOUNTEDANSISTRING:
		*size = avail < 2 ? 2 : 2 + (ULONG)(p[0] << 8 | p[1]);
		break;
	case TDH_INTYPE_NONNULLTERMINATEDSTRING:
	case TDH_INTYPE_NONNULLTERMINATEDANSISTRING:
		/* The rest of the data, or @length characters. */
		*size = !length ? (ULONG)avail :
			in == TDH_INTYPE_NONNULLTERMINATEDSTRING ?
			2u * length : length;
		break;
	case TDH_INTYPE_HEXDUMP:
		/* A UINT32 size: clamp it before adding, not to wrap. */
		*size = avail < 4 ? 4 : etw_le(p, 4) > avail ?
			(ULONG)avail + 1 : 4 + (ULONG)etw_le(p, 4);
		break;
	case TDH_INTYPE_WBEMSID:
		*size = avail < 2 * ptr_size + 8 ? 2 * ptr_size + 8 :
			2 * ptr_size + 8 + 4u * p[2 * ptr_size + 1];
		break;
	case TDH_INTYPE_RESERVED24:
		return ERROR_INVALID_PARAMETER;
	default:
		if (!*size)
			return ERROR_NOT_SUPPORTED;
	}
	/* UTF-16 byte counts are even. */
	if (!ret && (in == TDH_INTYPE_MANIFEST_COUNTEDSTRING ||
		     in == TDH_INTYPE_COUNTEDSTRING ||
		     in == TDH_INTYPE_REVERSEDCOUNTEDSTRING) && *size % 2)
		ret = ERROR_EVT_INVALID_EVENT_DATA;
	if (!ret && *size > avail)
		ret = ERROR_EVT_INVALID_EVENT_DATA;
	return ret;
}

static const WCHAR *etw_tdh_map_out(const EVENT_MAP_INFO *m,
				    const EVENT_MAP_ENTRY *e)
{
	return (const WCHAR *)((const BYTE *)m + e->OutputOffset);
}

static void etw_ws_wstr(struct etw_wsink *w, const WCHAR *s)
{
	while (*s)
		etw_ws_unit(w, *s++);
}

/*
 * An integer through a manifest map: a valueMap's entry, else the number;
 * a bitMap's entries whose bits are all set, joined by " | ", then any
 * bits left as hex (the number when no entry matches).
 */
static ULONG etw_tdh_map_text(struct etw_wsink *w, const EVENT_MAP_INFO *m,
			      USHORT in, USHORT out, ULONG ptr_size,
			      const uint8_t *p, size_t size)
{
	uint32_t v, left;
	ULONG i;
	bool any = false;

	if (size > 4 || (in != TDH_INTYPE_UINT8 && in != TDH_INTYPE_UINT16 &&
			 in != TDH_INTYPE_UINT32 && in != TDH_INTYPE_INT8 &&
			 in != TDH_INTYPE_INT16 && in != TDH_INTYPE_INT32 &&
			 in != TDH_INTYPE_HEXINT32) ||
	    (m->Flag != EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP &&
	     m->Flag != EVENTMAP_INFO_FLAG_MANIFEST_BITMAP))
		return ERROR_NOT_SUPPORTED;
	v = (uint32_t)etw_le(p, size);
	left = v;
	for (i = 0; i < m->EntryCount; i++) {
		const EVENT_MAP_ENTRY *e = &m->MapEntryArray[i];

		if (m->Flag == EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP) {
			if (e->Value != v)
				continue;
			etw_ws_wstr(w, etw_tdh_map_out(m, e));
			return ERROR_SUCCESS;
		}
		if (!e->Value || (v & e->Value) != e->Value)
			continue;
		if (any)
			etw_ws_ascii(w, " | ");
		etw_ws_wstr(w, etw_tdh_map_out(m, e));
		left &= ~e->Value;
		any = true;
	}
	if (!any)
		etw_tdh_text(w, in, out, ptr_size, p, size);
	else if (left)
		etw_ws_printf(w, " | 0x%X", left);
	return ERROR_SUCCESS;
}

/**
 * TdhFormatProperty - one property value as text
 * @EventInfo: the event's TRACE_EVENT_INFO (TdhGetEventInformation)
 * @MapInfo: the property's manifest map (TdhGetEventMapInformation), or
 *	NULL
 * @PointerSize: 4 or 8, from the event header's flags
 * @PropertyInType: EVENT_PROPERTY_INFO.nonStructType.InType
 * @PropertyOutType: EVENT_PROPERTY_INFO.nonStructType.OutType
 * @PropertyLength: the property's length (its length property's value
 *	with PropertyParamLength)
 * @UserDataLength: bytes at @UserData
 * @UserData: the value, then the rest of the event data
 * @BufferSize: in: bytes at @Buffer; out: bytes used or needed
 * @Buffer: receives the NUL-terminated UTF-16 text
 * @UserDataConsumed: out: bytes the value took at @UserData
 *
 * A consumer formats the properties in order, moving @UserData on by
 * *@UserDataConsumed each time.
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_INSUFFICIENT_BUFFER when *@BufferSize is
 * too small (it then holds the size needed, and *@UserDataConsumed is
 * set); ERROR_INVALID_PARAMETER for a NULL @EventInfo, @BufferSize or
 * @UserDataConsumed, a NULL @UserData or @Buffer with a non-zero size, a
 * @PointerSize other than 4 or 8, or a struct's InType;
 * ERROR_EVT_INVALID_EVENT_DATA when the data is too short for the value
 * or a string lacks its NUL; ERROR_NOT_SUPPORTED for an InType that is
 * none of TDH's, or a @MapInfo that is no manifest valueMap or bitMap or
 * is given for a property that is no integer of up to 32 bits.
 */
TDHSTATUS WINAPI TdhFormatProperty(PTRACE_EVENT_INFO EventInfo,
		PEVENT_MAP_INFO MapInfo, ULONG PointerSize,
		USHORT PropertyInType, USHORT PropertyOutType,
		USHORT PropertyLength, USHORT UserDataLength, PBYTE UserData,
		PULONG BufferSize, PWCHAR Buffer, PUSHORT UserDataConsumed)
{
	struct etw_wsink w = { 0 };
	ULONG size, ret;

	if (!EventInfo || !BufferSize || !UserDataConsumed ||
	    (!UserData && UserDataLength) || (!Buffer && *BufferSize) ||
	    (PointerSize != 4 && PointerSize != 8))
		return ERROR_INVALID_PARAMETER;
	ret = etw_tdh_value_size(PropertyInType, PropertyOutType,
				 PropertyLength, PointerSize, UserData,
				 UserDataLength, &size);
	if (ret)
		return ret;
	w.buf = Buffer;
	w.cap = Buffer ? *BufferSize / sizeof(WCHAR) : 0;
	if (MapInfo)
		ret = etw_tdh_map_text(&w, MapInfo, PropertyInType,
				       PropertyOutType, PointerSize, UserData,
				       size);
	else
		etw_tdh_text(&w, PropertyInType, PropertyOutType, PointerSize,
			     UserData, size);
	if (ret)
		return ret;
	*UserDataConsumed = (USHORT)size;
	if (w.len + 1 > w.cap) {
		*BufferSize = (ULONG)((w.len + 1) * sizeof(WCHAR));
		return ERROR_INSUFFICIENT_BUFFER;
	}
	Buffer[w.len] = 0;
	*BufferSize = (ULONG)((w.len + 1) * sizeof(WCHAR));
	return ERROR_SUCCESS;
}
