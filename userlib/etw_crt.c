// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_crt.c - the parts of Microsoft's C runtime that Windows ETW code
 * calls on WCHAR strings: the wide printf family as MSVC reads its formats,
 * the wcs* string functions on 16-bit units, the _s functions.
 *
 * glibc's wide functions take a 32-bit wchar_t; a program built with
 * -fshort-wchar reaches these instead through <etw_crt.h>, which renames
 * its calls (asm labels).  libetw is built without the flag: WCHAR is a
 * 16-bit unit here whatever the caller's wchar_t.
 *
 * Text is UTF-16 in WCHAR strings and UTF-8 in char strings (where MSVC
 * uses the ANSI code page); what one cannot hold of the other becomes
 * U+FFFD.  Output to a FILE is UTF-8.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <windows.h>

#include <etw_crt.h>

/* A growing buffer of WCHARs (wide) or bytes (narrow). */
struct crt_sink {
	int wide;
	unsigned char *buf;
	size_t len;	/* units */
	size_t cap;	/* units */
	int oom;
};

static void sink_unit(struct crt_sink *s, unsigned int u)
{
	size_t usz = s->wide ? 2 : 1;

	if (s->oom)
		return;
	if (s->len == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 128;
		unsigned char *p = realloc(s->buf, cap * usz);

		if (!p) {
			s->oom = 1;
			return;
		}
		s->buf = p;
		s->cap = cap;
	}
	if (s->wide) {
		uint16_t w = (uint16_t)u;

		memcpy(s->buf + s->len * 2, &w, 2);
	} else {
		s->buf[s->len] = (unsigned char)u;
	}
	s->len++;
}

/* One code point, encoded as the sink's units. */
static void sink_cp(struct crt_sink *s, uint32_t cp)
{
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (s->wide) {
		if (cp >= 0x10000) {
			cp -= 0x10000;
			sink_unit(s, 0xD800 | (cp >> 10));
			sink_unit(s, 0xDC00 | (cp & 0x3FF));
		} else {
			sink_unit(s, cp);
		}
		return;
	}
	if (cp < 0x80) {
		sink_unit(s, cp);
	} else if (cp < 0x800) {
		sink_unit(s, 0xC0 | (cp >> 6));
		sink_unit(s, 0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		sink_unit(s, 0xE0 | (cp >> 12));
		sink_unit(s, 0x80 | ((cp >> 6) & 0x3F));
		sink_unit(s, 0x80 | (cp & 0x3F));
	} else {
		sink_unit(s, 0xF0 | (cp >> 18));
		sink_unit(s, 0x80 | ((cp >> 12) & 0x3F));
		sink_unit(s, 0x80 | ((cp >> 6) & 0x3F));
		sink_unit(s, 0x80 | (cp & 0x3F));
	}
}

/* Decodes one code point of UTF-16 at @w (@n units left); its units. */
static size_t utf16_next(const WCHAR *w, size_t n, uint32_t *cp)
{
	uint32_t u = w[0];

	if (u >= 0xD800 && u <= 0xDBFF && n > 1 && w[1] >= 0xDC00 &&
	    w[1] <= 0xDFFF) {
		*cp = 0x10000 + ((u - 0xD800) << 10) + (w[1] - 0xDC00);
		return 2;
	}
	*cp = (u >= 0xD800 && u <= 0xDFFF) ? 0xFFFD : u;
	return 1;
}

/* Decodes one code point of UTF-8 at @c (@n bytes left); its bytes. */
static size_t utf8_next(const unsigned char *c, size_t n, uint32_t *cp)
{
	uint32_t v;
	size_t len, i;

	if (c[0] < 0x80) {
		*cp = c[0];
		return 1;
	}
	if (c[0] >= 0xC2 && c[0] <= 0xDF) {
		len = 2;
		v = c[0] & 0x1F;
	} else if (c[0] >= 0xE0 && c[0] <= 0xEF) {
		len = 3;
		v = c[0] & 0x0F;
	} else if (c[0] >= 0xF0 && c[0] <= 0xF4) {
		len = 4;
		v = c[0] & 0x07;
	} else {
		*cp = 0xFFFD;
		return 1;
	}
	if (n < len)
		goto bad;
	for (i = 1; i < len; i++) {
		if ((c[i] & 0xC0) != 0x80)
			goto bad;
		v = (v << 6) | (c[i] & 0x3F);
	}
	/* Overlong forms, surrogates and values past U+10FFFF. */
	if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 ||
	    v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = 0xFFFD;
	return 1;
}

static void sink_wstr(struct crt_sink *s, const WCHAR *w, size_t n)
{
	size_t i = 0;
	uint32_t cp;

	if (s->wide) {
		for (; i < n; i++)
			sink_unit(s, w[i]);
		return;
	}
	while (i < n) {
		i += utf16_next(w + i, n - i, &cp);
		sink_cp(s, cp);
	}
}

static void sink_nstr(struct crt_sink *s, const char *c, size_t n)
{
	const unsigned char *u = (const unsigned char *)c;
	size_t i = 0;
	uint32_t cp;

	if (!s->wide) {
		for (; i < n; i++)
			sink_unit(s, u[i]);
		return;
	}
	while (i < n) {
		i += utf8_next(u + i, n - i, &cp);
		sink_cp(s, cp);
	}
}

static size_t wlen(const WCHAR *w)
{
	size_t n = 0;

	while (w[n])
		n++;
	return n;
}

/* A format string of either width, read a unit at a time. */
struct crt_fmt {
	const void *p;
	int wide;
};

static unsigned int fmt_at(const struct crt_fmt *f, size_t i)
{
	if (f->wide)
		return ((const WCHAR *)f->p)[i];
	return ((const unsigned char *)f->p)[i];
}

enum crt_size { SZ_INT, SZ_CHAR, SZ_SHORT, SZ_32, SZ_64, SZ_PTR, SZ_MAX,
		SZ_NARROW, SZ_WIDE };

/* Pads @t (already formatted) to @width in @s: spaces, left or right. */
static void sink_pad(struct crt_sink *s, struct crt_sink *t, int width,
		     int left)
{
	size_t i, pad = width > 0 && (size_t)width > t->len ?
		(size_t)width - t->len : 0;

	if (!left)
		for (i = 0; i < pad; i++)
			sink_unit(s, ' ');
	for (i = 0; i < t->len; i++) {
		if (s->wide) {
			uint16_t w;

			memcpy(&w, t->buf + i * 2, 2);
			sink_unit(s, w);
		} else {
			sink_unit(s, t->buf[i]);
		}
	}
	if (left)
		for (i = 0; i < pad; i++)
			sink_unit(s, ' ');
	if (t->oom)
		s->oom = 1;
}

/* A glibc conversion of one number; its text into @s. */
static void sink_printf(struct crt_sink *s, const char *spec, ...)
{
	char small[128], *out = small;
	va_list ap;
	int n;

	va_start(ap, spec);
	n = vsnprintf(small, sizeof(small), spec, ap);
	va_end(ap);
	if (n < 0) {
		s->oom = 1;
		return;
	}
	if ((size_t)n >= sizeof(small)) {
		out = malloc((size_t)n + 1);
		if (!out) {
			s->oom = 1;
			return;
		}
		va_start(ap, spec);
		vsnprintf(out, (size_t)n + 1, spec, ap);
		va_end(ap);
	}
	sink_nstr(s, out, (size_t)n);
	if (out != small)
		free(out);
}

/*
 * Formats @fmt into @s as MSVC's printf family does: in a wide format %s
 * and %c take WCHARs and %S and %C chars, in a narrow one the other way
 * round; h and hs/hc force narrow, l and w wide.  Integer sizes are
 * LLP64's: l is 32 bits, ll, I64 and L 64, I, z and t pointer-sized, I32
 * 32.  %p is 16 upper-case hex digits.  %n and unknown conversions are
 * errors.  Returns 0 or -1.
 */
static int crt_format(struct crt_sink *s, const struct crt_fmt *f,
		      va_list *ap)
{
	size_t i = 0;
	unsigned int c;

	while ((c = fmt_at(f, i++)) != 0) {
		char flags[8], spec[48];
		int nflags = 0, width = -1, prec = -1, left = 0;
		enum crt_size size = SZ_INT;
		struct crt_sink t = { .wide = s->wide };

		if (c != '%') {
			sink_unit(s, c);
			continue;
		}
		while ((c = fmt_at(f, i)) && strchr("-+ #0", (int)c)) {
			if (c == '-')
				left = 1;
			if (nflags < 5 && !memchr(flags, (int)c, nflags))
				flags[nflags++] = (char)c;
			i++;
		}
		flags[nflags] = 0;
		if (fmt_at(f, i) == '*') {
			width = va_arg(*ap, int);
			if (width < 0) {
				left = 1;
				width = -width;
			}
			i++;
		} else {
			for (width = 0; (c = fmt_at(f, i)) >= '0' && c <= '9';
			     i++) {
				if (width > 100000000)
					return -1;
				width = width * 10 + (int)(c - '0');
			}
		}
		if (fmt_at(f, i) == '.') {
			i++;
			if (fmt_at(f, i) == '*') {
				prec = va_arg(*ap, int);
				i++;
			} else {
				for (prec = 0; (c = fmt_at(f, i)) >= '0' &&
				     c <= '9'; i++) {
					if (prec > 100000000)
						return -1;
					prec = prec * 10 + (int)(c - '0');
				}
			}
		}
		c = fmt_at(f, i);
		if (c == 'h') {
			i++;
			size = SZ_SHORT;
			if (fmt_at(f, i) == 'h') {
				i++;
				size = SZ_CHAR;
			}
		} else if (c == 'l') {
			i++;
			size = SZ_32;
			if (fmt_at(f, i) == 'l') {
				i++;
				size = SZ_64;
			}
		} else if (c == 'w') {
			i++;
			size = SZ_WIDE;
		} else if (c == 'L') {
			i++;
			size = SZ_64;
		} else if (c == 'I') {
			i++;
			size = SZ_PTR;
			if (fmt_at(f, i) == '6' && fmt_at(f, i + 1) == '4') {
				i += 2;
				size = SZ_64;
			} else if (fmt_at(f, i) == '3' &&
				   fmt_at(f, i + 1) == '2') {
				i += 2;
				size = SZ_32;
			}
		} else if (c == 'z' || c == 't') {
			i++;
			size = SZ_PTR;
		} else if (c == 'j') {
			i++;
			size = SZ_MAX;
		}
		c = fmt_at(f, i++);
		switch (c) {
		case '%':
			sink_unit(s, '%');
			break;
		case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': {
			int sgn = c == 'd' || c == 'i';
			long long v;
			unsigned long long uv;

			switch (size) {
			case SZ_64:
			case SZ_MAX:
				v = va_arg(*ap, long long);
				uv = (unsigned long long)v;
				break;
			case SZ_PTR:
				v = (long long)va_arg(*ap, intptr_t);
				uv = (uintptr_t)v;
				break;
			case SZ_SHORT:
				v = (short)va_arg(*ap, int);
				uv = (unsigned short)v;
				break;
			case SZ_CHAR:
				v = (signed char)va_arg(*ap, int);
				uv = (unsigned char)v;
				break;
			default:
				v = va_arg(*ap, int);
				uv = (unsigned int)v;
				break;
			}
			if (prec >= 0)
				snprintf(spec, sizeof(spec), "%%%s%d.%dll%c",
					 flags, width, prec, c);
			else
				snprintf(spec, sizeof(spec), "%%%s%dll%c",
					 flags, width, c);
			if (sgn)
				sink_printf(s, spec, v);
			else
				sink_printf(s, spec, uv);
			break;
		}
		case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
		case 'a': case 'A': {
			double d = va_arg(*ap, double);

			if (prec >= 0)
				snprintf(spec, sizeof(spec), "%%%s%d.%d%c",
					 flags, width, prec, c);
			else
				snprintf(spec, sizeof(spec), "%%%s%d%c",
					 flags, width, c);
			sink_printf(s, spec, d);
			break;
		}
		case 'p': {
			void *p = va_arg(*ap, void *);

			snprintf(spec, sizeof(spec), "%016llX",
				 (unsigned long long)(uintptr_t)p);
			sink_nstr(&t, spec, 16);
			sink_pad(s, &t, width, left);
			break;
		}
		case 'c': case 'C': {
			int narrow = size == SZ_SHORT || size == SZ_CHAR ||
				(size != SZ_32 && size != SZ_WIDE &&
				 (c == 'C') == !!f->wide);
			int v = va_arg(*ap, int);

			if (narrow) {
				char ch = (char)v;

				sink_nstr(&t, &ch, 1);
			} else {
				WCHAR w = (WCHAR)v;

				sink_wstr(&t, &w, 1);
			}
			sink_pad(s, &t, width, left);
			break;
		}
		case 's': case 'S': {
			int narrow = size == SZ_SHORT || size == SZ_CHAR ||
				(size != SZ_32 && size != SZ_WIDE &&
				 (c == 'S') == !!f->wide);
			const void *p = va_arg(*ap, const void *);
			size_t n;

			if (!p) {
				p = "(null)";
				narrow = 1;
			}
			if (narrow) {
				const char *str = p;

				n = prec >= 0 ? strnlen(str, (size_t)prec) :
					strlen(str);
				sink_nstr(&t, str, n);
			} else {
				const WCHAR *w = p;

				for (n = 0; (prec < 0 || n < (size_t)prec) &&
				     w[n]; n++)
					;
				sink_wstr(&t, w, n);
			}
			sink_pad(s, &t, width, left);
			break;
		}
		default:
			/* %n (which MSVC refuses too) and what it does not know. */
			free(t.buf);
			return -1;
		}
		free(t.buf);
		if (s->oom)
			return -1;
	}
	return s->oom ? -1 : 0;
}

/* Formats @fmt (@fmt_wide) into a new sink of @wide units; -1 or 0. */
static int crt_vformat(struct crt_sink *s, int wide, const void *fmt,
		       int fmt_wide, va_list ap)
{
	struct crt_fmt f = { .p = fmt, .wide = fmt_wide };
	va_list aq;
	int ret;

	memset(s, 0, sizeof(*s));
	s->wide = wide;
	if (!fmt) {
		errno = EINVAL;
		return -1;
	}
	va_copy(aq, ap);
	ret = crt_format(s, &f, &aq);
	va_end(aq);
	if (ret) {
		free(s->buf);
		s->buf = NULL;
		errno = s->oom ? ENOMEM : EINVAL;
	}
	return ret;
}

int etw_crt_vsnprintf_w(WCHAR *buf, size_t count, const WCHAR *fmt,
			va_list ap)
{
	struct crt_sink s;
	size_t n;

	if (crt_vformat(&s, 1, fmt, 1, ap))
		return -1;
	if (s.len > INT32_MAX) {
		free(s.buf);
		errno = EOVERFLOW;
		return -1;
	}
	if (buf && count) {
		n = s.len < count ? s.len : count - 1;
		if (n)
			memcpy(buf, s.buf, n * 2);
		buf[n] = 0;
	}
	free(s.buf);
	return (int)s.len;
}

int etw_crt_vsnprintf_a(char *buf, size_t count, const char *fmt,
			va_list ap)
{
	struct crt_sink s;
	size_t n;

	if (crt_vformat(&s, 0, fmt, 0, ap))
		return -1;
	if (s.len > INT32_MAX) {
		free(s.buf);
		errno = EOVERFLOW;
		return -1;
	}
	if (buf && count) {
		n = s.len < count ? s.len : count - 1;
		memcpy(buf, s.buf, n);
		buf[n] = 0;
	}
	free(s.buf);
	return (int)s.len;
}

/* The wide printf family. */

int etw_crt_vfwprintf(FILE *fp, const WCHAR *fmt, va_list ap)
{
	struct crt_sink s, out = { .wide = 0 };
	int ret = -1;

	if (!fp) {
		errno = EINVAL;
		return -1;
	}
	if (crt_vformat(&s, 1, fmt, 1, ap))
		return -1;
	sink_wstr(&out, (const WCHAR *)s.buf, s.len);
	if (!out.oom && s.len <= INT32_MAX &&
	    fwrite(out.buf, 1, out.len, fp) == out.len)
		ret = (int)s.len;
	free(out.buf);
	free(s.buf);
	return ret;
}

int etw_crt_fwprintf(FILE *fp, const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vfwprintf(fp, fmt, ap);
	va_end(ap);
	return ret;
}

int etw_crt_vwprintf(const WCHAR *fmt, va_list ap)
{
	return etw_crt_vfwprintf(stdout, fmt, ap);
}

int etw_crt_wprintf(const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vfwprintf(stdout, fmt, ap);
	va_end(ap);
	return ret;
}

/* ISO swprintf: -1 when it does not fit, the buffer then truncated. */
int etw_crt_vswprintf(WCHAR *buf, size_t count, const WCHAR *fmt,
		      va_list ap)
{
	int n;

	if (!buf || !count) {
		errno = EINVAL;
		return -1;
	}
	n = etw_crt_vsnprintf_w(buf, count, fmt, ap);
	if (n < 0) {
		buf[0] = 0;
		return -1;
	}
	return (size_t)n < count ? n : -1;
}

int etw_crt_swprintf(WCHAR *buf, size_t count, const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vswprintf(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * _snwprintf: what fits of count, NUL-terminated only when shorter;
 * the length when it fits, -1 when it was cut.
 */
int etw_crt_vsnwprintf_ms(WCHAR *buf, size_t count, const WCHAR *fmt,
			  va_list ap)
{
	struct crt_sink s;
	size_t n;
	int ret;

	if (!buf && count) {
		errno = EINVAL;
		return -1;
	}
	if (crt_vformat(&s, 1, fmt, 1, ap))
		return -1;
	n = s.len < count ? s.len : count;
	if (n)
		memcpy(buf, s.buf, n * 2);
	if (s.len < count)
		buf[s.len] = 0;
	ret = s.len <= count && s.len <= INT32_MAX ? (int)s.len : -1;
	free(s.buf);
	return ret;
}

int etw_crt_snwprintf_ms(WCHAR *buf, size_t count, const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnwprintf_ms(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

/* swprintf_s: an empty buffer and -1 (errno ERANGE) when it does not fit. */
int etw_crt_vswprintf_s(WCHAR *buf, size_t count, const WCHAR *fmt,
			va_list ap)
{
	int n;

	if (!buf || !count || !fmt) {
		if (buf && count)
			buf[0] = 0;
		errno = EINVAL;
		return -1;
	}
	n = etw_crt_vsnprintf_w(buf, count, fmt, ap);
	if (n < 0 || (size_t)n >= count) {
		buf[0] = 0;
		if (n >= 0)
			errno = ERANGE;
		return -1;
	}
	return n;
}

int etw_crt_swprintf_s(WCHAR *buf, size_t count, const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vswprintf_s(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

int etw_crt_vscwprintf(const WCHAR *fmt, va_list ap)
{
	return etw_crt_vsnprintf_w(NULL, 0, fmt, ap);
}

int etw_crt_scwprintf(const WCHAR *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnprintf_w(NULL, 0, fmt, ap);
	va_end(ap);
	return ret;
}

/* Wide output of strings and characters, as UTF-8. */

int etw_crt_fputws(const WCHAR *str, FILE *fp)
{
	struct crt_sink out = { .wide = 0 };
	int ret = -1;

	if (!str || !fp) {
		errno = EINVAL;
		return -1;
	}
	sink_wstr(&out, str, wlen(str));
	if (!out.oom && fwrite(out.buf, 1, out.len, fp) == out.len)
		ret = 0;
	free(out.buf);
	return ret;
}

int etw_crt_putws(const WCHAR *str)
{
	if (etw_crt_fputws(str, stdout) < 0 || fputc('\n', stdout) == EOF)
		return -1;
	return 0;
}

/*
 * One unit: a lone surrogate half is held until the next one, so a pair
 * written a unit at a time comes out as its character.
 */
static _Thread_local WCHAR crt_pending_high;

unsigned int etw_crt_fputwc(unsigned int wc, FILE *fp)
{
	struct crt_sink out = { .wide = 0 };
	WCHAR pair[2];
	size_t n = 0;
	int ok;

	if (!fp)
		return 0xFFFF;
	if (crt_pending_high) {
		pair[n++] = crt_pending_high;
		crt_pending_high = 0;
	}
	if ((WCHAR)wc >= 0xD800 && (WCHAR)wc <= 0xDBFF && !n) {
		crt_pending_high = (WCHAR)wc;
		return wc & 0xFFFF;
	}
	pair[n++] = (WCHAR)wc;
	sink_wstr(&out, pair, n);
	ok = !out.oom && fwrite(out.buf, 1, out.len, fp) == out.len;
	free(out.buf);
	return ok ? (wc & 0xFFFF) : 0xFFFF;
}

unsigned int etw_crt_putwchar(unsigned int wc)
{
	return etw_crt_fputwc(wc, stdout);
}

/* The wcs* functions on 16-bit units. */

size_t etw_crt_wcslen(const WCHAR *s)
{
	return wlen(s);
}

size_t etw_crt_wcsnlen(const WCHAR *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

WCHAR *etw_crt_wcscpy(WCHAR *dst, const WCHAR *src)
{
	memmove(dst, src, (wlen(src) + 1) * 2);
	return dst;
}

WCHAR *etw_crt_wcsncpy(WCHAR *dst, const WCHAR *src, size_t n)
{
	size_t i = 0;

	for (; i < n && src[i]; i++)
		dst[i] = src[i];
	for (; i < n; i++)
		dst[i] = 0;
	return dst;
}

WCHAR *etw_crt_wcscat(WCHAR *dst, const WCHAR *src)
{
	etw_crt_wcscpy(dst + wlen(dst), src);
	return dst;
}

WCHAR *etw_crt_wcsncat(WCHAR *dst, const WCHAR *src, size_t n)
{
	WCHAR *d = dst + wlen(dst);
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		d[i] = src[i];
	d[i] = 0;
	return dst;
}

int etw_crt_wcsncmp(const WCHAR *a, const WCHAR *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
		if (!a[i])
			break;
	}
	return 0;
}

int etw_crt_wcscmp(const WCHAR *a, const WCHAR *b)
{
	return etw_crt_wcsncmp(a, b, SIZE_MAX);
}

/* MSVC's _wcsicmp folds ASCII letters only in the "C" locale. */
static unsigned int fold(unsigned int u)
{
	return u >= 'A' && u <= 'Z' ? u + 32 : u;
}

int etw_crt_wcsnicmp(const WCHAR *a, const WCHAR *b, size_t n)
{
	size_t i;

	if (!a || !b) {
		errno = EINVAL;
		return INT32_MAX;
	}
	for (i = 0; i < n; i++) {
		unsigned int x = fold(a[i]), y = fold(b[i]);

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			break;
	}
	return 0;
}

int etw_crt_wcsicmp(const WCHAR *a, const WCHAR *b)
{
	return etw_crt_wcsnicmp(a, b, SIZE_MAX);
}

int etw_crt_strnicmp(const char *a, const char *b, size_t n)
{
	size_t i;

	if (!a || !b) {
		errno = EINVAL;
		return INT32_MAX;
	}
	for (i = 0; i < n; i++) {
		unsigned int x = fold((unsigned char)a[i]);
		unsigned int y = fold((unsigned char)b[i]);

		if (x != y)
			return x < y ? -1 : 1;
		if (!x)
			break;
	}
	return 0;
}

int etw_crt_stricmp(const char *a, const char *b)
{
	return etw_crt_strnicmp(a, b, SIZE_MAX);
}

WCHAR *etw_crt_wcschr(const WCHAR *s, unsigned int c)
{
	for (;; s++) {
		if (*s == (WCHAR)c)
			return (WCHAR *)s;
		if (!*s)
			return NULL;
	}
}

WCHAR *etw_crt_wcsrchr(const WCHAR *s, unsigned int c)
{
	const WCHAR *last = NULL;

	for (;; s++) {
		if (*s == (WCHAR)c)
			last = s;
		if (!*s)
			return (WCHAR *)last;
	}
}

WCHAR *etw_crt_wcsstr(const WCHAR *hay, const WCHAR *needle)
{
	size_t n = wlen(needle);

	for (; *hay; hay++)
		if (!etw_crt_wcsncmp(hay, needle, n))
			return (WCHAR *)hay;
	return n ? NULL : (WCHAR *)hay;
}

int etw_crt_wmemcmp(const WCHAR *a, const WCHAR *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

WCHAR *etw_crt_wmemcpy(WCHAR *dst, const WCHAR *src, size_t n)
{
	return memcpy(dst, src, n * 2);
}

WCHAR *etw_crt_wmemmove(WCHAR *dst, const WCHAR *src, size_t n)
{
	return memmove(dst, src, n * 2);
}

WCHAR *etw_crt_wmemset(WCHAR *dst, unsigned int c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = (WCHAR)c;
	return dst;
}

WCHAR *etw_crt_wmemchr(const WCHAR *s, unsigned int c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == (WCHAR)c)
			return (WCHAR *)s + i;
	return NULL;
}

WCHAR *etw_crt_wcsdup(const WCHAR *s)
{
	size_t n = (wlen(s) + 1) * 2;
	WCHAR *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* wcstol and friends: the ASCII digits of the string through strtoll. */
static int narrow_number(const WCHAR *s, char *buf, size_t max,
			 size_t *skipped)
{
	size_t i = 0, n = 0;

	while (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))
		i++;
	*skipped = i;
	while (n + 1 < max && s[i] && s[i] < 0x80)
		buf[n++] = (char)s[i++];
	buf[n] = 0;
	return 0;
}

#define WCSTO(name, type, conv)						\
type name(const WCHAR *s, WCHAR **end, int base)			\
{									\
	char buf[80], *e;						\
	size_t skip;							\
	type v;								\
									\
	narrow_number(s, buf, sizeof(buf), &skip);			\
	v = conv(buf, &e, base);					\
	if (end)							\
		*end = (WCHAR *)(e == buf ? s : s + skip + (e - buf));	\
	return v;							\
}

WCSTO(etw_crt_wcstol, long, strtol)
WCSTO(etw_crt_wcstoul, unsigned long, strtoul)
WCSTO(etw_crt_wcstoll, long long, strtoll)
WCSTO(etw_crt_wcstoull, unsigned long long, strtoull)

/* _wtoi reads an int, as atoi; MSVC's _wtol a 32-bit long. */
int etw_crt_wtoi(const WCHAR *s)
{
	return (int)etw_crt_wcstol(s, NULL, 10);
}

long long etw_crt_wtoi64(const WCHAR *s)
{
	return etw_crt_wcstoll(s, NULL, 10);
}

double etw_crt_wcstod(const WCHAR *s, WCHAR **end)
{
	char buf[128], *e;
	size_t skip;
	double v;

	narrow_number(s, buf, sizeof(buf), &skip);
	v = strtod(buf, &e);
	if (end)
		*end = (WCHAR *)(e == buf ? s : s + skip + (e - buf));
	return v;
}

/* mbstowcs/wcstombs: UTF-8 to UTF-16 and back, as many as fit. */
size_t etw_crt_mbstowcs(WCHAR *dst, const char *src, size_t max)
{
	struct crt_sink s = { .wide = 1 };
	size_t n;

	sink_nstr(&s, src, strlen(src));
	if (s.oom) {
		free(s.buf);
		return (size_t)-1;
	}
	n = s.len;
	if (dst) {
		if (n > max)
			n = max;
		memcpy(dst, s.buf, n * 2);
		if (n < max)
			dst[n] = 0;
	}
	free(s.buf);
	return n;
}

size_t etw_crt_wcstombs(char *dst, const WCHAR *src, size_t max)
{
	struct crt_sink s = { .wide = 0 };
	size_t n;

	sink_wstr(&s, src, wlen(src));
	if (s.oom) {
		free(s.buf);
		return (size_t)-1;
	}
	n = s.len;
	if (dst) {
		/* Whole characters only: back off to a lead byte. */
		if (n > max) {
			n = max;
			while (n && (s.buf[n] & 0xC0) == 0x80)
				n--;
		}
		memcpy(dst, s.buf, n);
		if (n < max)
			dst[n] = 0;
	}
	free(s.buf);
	return n;
}

/*
 * The _s functions: on a bad argument or a destination too small they
 * return the errno value (EINVAL, ERANGE) and leave the destination empty,
 * where MSVC's default handler would end the process.
 */
int etw_crt_wcsncpy_s(WCHAR *dst, size_t size, const WCHAR *src,
		      size_t count)
{
	size_t n;

	if (!dst || !size)
		return EINVAL;
	if (!src) {
		dst[0] = 0;
		return EINVAL;
	}
	n = etw_crt_wcsnlen(src, count);
	if (n >= size) {
		if (count == (size_t)-1) {
			/* _TRUNCATE: what fits, and STRUNCATE. */
			memcpy(dst, src, (size - 1) * 2);
			dst[size - 1] = 0;
			return 80;
		}
		dst[0] = 0;
		return ERANGE;
	}
	memmove(dst, src, n * 2);
	dst[n] = 0;
	return 0;
}

int etw_crt_wcscpy_s(WCHAR *dst, size_t size, const WCHAR *src)
{
	if (dst && size && src && wlen(src) >= size) {
		dst[0] = 0;
		return ERANGE;
	}
	return etw_crt_wcsncpy_s(dst, size, src, SIZE_MAX - 1);
}

int etw_crt_wcscat_s(WCHAR *dst, size_t size, const WCHAR *src)
{
	size_t d;

	if (!dst || !size)
		return EINVAL;
	if (!src) {
		dst[0] = 0;
		return EINVAL;
	}
	d = etw_crt_wcsnlen(dst, size);
	if (d == size) {
		/* Not terminated within its size. */
		dst[0] = 0;
		return EINVAL;
	}
	if (wlen(src) >= size - d) {
		dst[0] = 0;
		return ERANGE;
	}
	etw_crt_wcscpy(dst + d, src);
	return 0;
}

int etw_crt_strcpy_s(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!dst || !size)
		return EINVAL;
	if (!src) {
		dst[0] = 0;
		return EINVAL;
	}
	n = strlen(src);
	if (n >= size) {
		dst[0] = 0;
		return ERANGE;
	}
	memmove(dst, src, n + 1);
	return 0;
}

/* wcsncpy_s's rule on bytes: at most @count of @src, _TRUNCATE cuts. */
int etw_crt_strncpy_s(char *dst, size_t size, const char *src, size_t count)
{
	size_t n;

	if (!dst || !size)
		return EINVAL;
	if (!src) {
		dst[0] = 0;
		return EINVAL;
	}
	n = strnlen(src, count);
	if (n >= size) {
		if (count == (size_t)-1) {
			memcpy(dst, src, size - 1);
			dst[size - 1] = 0;
			return 80;
		}
		dst[0] = 0;
		return ERANGE;
	}
	memmove(dst, src, n);
	dst[n] = 0;
	return 0;
}

int etw_crt_strcat_s(char *dst, size_t size, const char *src)
{
	size_t d;

	if (!dst || !size)
		return EINVAL;
	if (!src) {
		dst[0] = 0;
		return EINVAL;
	}
	d = strnlen(dst, size);
	if (d == size) {
		dst[0] = 0;
		return EINVAL;
	}
	if (strlen(src) >= size - d) {
		dst[0] = 0;
		return ERANGE;
	}
	memmove(dst + d, src, strlen(src) + 1);
	return 0;
}

/*
 * memcpy_s/memmove_s: a destination too small is zeroed and ERANGE, a
 * NULL source with a count EINVAL (the destination zeroed).
 */
int etw_crt_memcpy_s(void *dst, size_t size, const void *src, size_t count)
{
	if (!count)
		return 0;
	if (!dst)
		return EINVAL;
	if (!src || size < count) {
		memset(dst, 0, size);
		return src ? ERANGE : EINVAL;
	}
	memmove(dst, src, count);
	return 0;
}

int etw_crt_memmove_s(void *dst, size_t size, const void *src, size_t count)
{
	if (!count)
		return 0;
	if (!dst || !src)
		return EINVAL;
	if (size < count)
		return ERANGE;
	memmove(dst, src, count);
	return 0;
}

/* The narrow MSVC-only printf forms, with MSVC's formats. */

int etw_crt_vsnprintf_ms(char *buf, size_t count, const char *fmt,
			 va_list ap)
{
	struct crt_sink s;
	size_t n;
	int ret;

	if (!buf && count) {
		errno = EINVAL;
		return -1;
	}
	if (crt_vformat(&s, 0, fmt, 0, ap))
		return -1;
	n = s.len < count ? s.len : count;
	if (n)
		memcpy(buf, s.buf, n);
	if (s.len < count)
		buf[s.len] = 0;
	ret = s.len <= count && s.len <= INT32_MAX ? (int)s.len : -1;
	free(s.buf);
	return ret;
}

int etw_crt_snprintf_ms(char *buf, size_t count, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnprintf_ms(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

int etw_crt_vsprintf_s(char *buf, size_t count, const char *fmt,
		       va_list ap)
{
	int n;

	if (!buf || !count || !fmt) {
		if (buf && count)
			buf[0] = 0;
		errno = EINVAL;
		return -1;
	}
	n = etw_crt_vsnprintf_a(buf, count, fmt, ap);
	if (n < 0 || (size_t)n >= count) {
		buf[0] = 0;
		if (n >= 0)
			errno = ERANGE;
		return -1;
	}
	return n;
}

int etw_crt_sprintf_s(char *buf, size_t count, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsprintf_s(buf, count, fmt, ap);
	va_end(ap);
	return ret;
}

int etw_crt_scprintf(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vsnprintf_a(NULL, 0, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * The narrow printf that <tchar.h>'s ANSI _tprintf and _ftprintf name:
 * MSVC's formats (%I64x, %S for a wide string), unlike glibc's printf.
 */
int etw_crt_vfprintf_ms(FILE *fp, const char *fmt, va_list ap)
{
	struct crt_sink s;
	int ret = -1;

	if (!fp) {
		errno = EINVAL;
		return -1;
	}
	if (crt_vformat(&s, 0, fmt, 0, ap))
		return -1;
	if (s.len <= INT32_MAX && fwrite(s.buf, 1, s.len, fp) == s.len)
		ret = (int)s.len;
	free(s.buf);
	return ret;
}

int etw_crt_fprintf_ms(FILE *fp, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vfprintf_ms(fp, fmt, ap);
	va_end(ap);
	return ret;
}

int etw_crt_vprintf_ms(const char *fmt, va_list ap)
{
	return etw_crt_vfprintf_ms(stdout, fmt, ap);
}

int etw_crt_printf_ms(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = etw_crt_vfprintf_ms(stdout, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * _fullpath: @rel made absolute against the working directory, without
 * resolving links or requiring it to exist; "." and ".." are removed.
 * NULL when it does not fit @max (a NULL @abs gets a malloc()ed buffer).
 */
char *etw_crt_fullpath(char *abs, const char *rel, size_t max)
{
	char *path, *out, *seg, *save = NULL;
	size_t n = 0, len;

	if (!rel || !*rel) {
		path = getcwd(NULL, 0);
	} else if (rel[0] == '/') {
		path = strdup(rel);
	} else {
		char *cwd = getcwd(NULL, 0);

		path = NULL;
		if (cwd && asprintf(&path, "%s/%s", cwd, rel) < 0)
			path = NULL;
		free(cwd);
	}
	if (!path)
		return NULL;
	out = malloc(strlen(path) + 2);
	if (!out) {
		free(path);
		return NULL;
	}
	for (seg = strtok_r(path, "/", &save); seg;
	     seg = strtok_r(NULL, "/", &save)) {
		if (!strcmp(seg, "."))
			continue;
		if (!strcmp(seg, "..")) {
			while (n && out[n - 1] != '/')
				n--;
			if (n)
				n--;
			continue;
		}
		out[n++] = '/';
		len = strlen(seg);
		memcpy(out + n, seg, len);
		n += len;
	}
	if (!n)
		out[n++] = '/';
	out[n] = 0;
	free(path);
	if (!abs)
		return out;
	if (n + 1 > max) {
		free(out);
		errno = ERANGE;
		return NULL;
	}
	memcpy(abs, out, n + 1);
	free(out);
	return abs;
}

WCHAR *etw_crt_wfullpath(WCHAR *abs, const WCHAR *rel, size_t max)
{
	char *nrel = NULL, *nabs;
	size_t n;
	WCHAR *ret = NULL;

	if (rel) {
		n = etw_crt_wcstombs(NULL, rel, 0);
		nrel = malloc(n + 1);
		if (!nrel)
			return NULL;
		etw_crt_wcstombs(nrel, rel, n + 1);
	}
	nabs = etw_crt_fullpath(NULL, nrel, 0);
	free(nrel);
	if (!nabs)
		return NULL;
	n = etw_crt_mbstowcs(NULL, nabs, 0);
	if (!abs) {
		abs = malloc((n + 1) * 2);
		max = n + 1;
	}
	if (abs && n + 1 <= max) {
		etw_crt_mbstowcs(abs, nabs, n + 1);
		ret = abs;
	} else if (abs) {
		errno = ERANGE;
	}
	free(nabs);
	return ret;
}
