// SPDX-License-Identifier: GPL-2.0
/*
 * output.c: what dump writes for every event, without printf: the few
 * conversions its lines use, JSON string literals, and the copy of a
 * decoded field.
 *
 * glibc's vfprintf parses its format, looks up the locale and goes
 * through the stream's vtable once per conversion: several thousand
 * instructions for a table row, more than reading and decoding the
 * event.  etwctl_putf() and etwctl_json_string() format into a line
 * buffer and write it with one fwrite.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"

/* A line being formatted; long strings are written through. */
struct etwctl_line {
	FILE *f;
	size_t len;
	char buf[512];
};

/**
 * etwctl_put - write @n bytes of @s to @f
 * @f: the stream
 * @s: the bytes
 * @n: how many
 *
 * etwctl writes its output from one thread: no stream lock.  A line is
 * made of many short pieces; while the stream's buffer has room they are
 * copied into it the way glibc's inline putc_unlocked() stores a byte,
 * not through fwrite()'s call into the stream's vtable.  A line-buffered
 * or unbuffered stream shows no room, so its writes all take fwrite,
 * which flushes them as their mode asks.
 */
void etwctl_put(FILE *f, const char *s, size_t n)
{
	/* A line-buffered stream's pointer runs past the end it shows. */
	if (f->_IO_write_ptr < f->_IO_write_end &&
	    (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n) {
		memcpy(f->_IO_write_ptr, s, n);
		f->_IO_write_ptr += n;
		return;
	}
	fwrite_unlocked(s, 1, n, f);
}

/**
 * etwctl_puts - fputs(@s, @f), as etwctl_put() writes
 * @f: the stream
 * @s: NUL-terminated text
 */
void etwctl_puts(FILE *f, const char *s)
{
	etwctl_put(f, s, strlen(s));
}

static void etwctl_line_flush(struct etwctl_line *l)
{
	etwctl_put(l->f, l->buf, l->len);
	l->len = 0;
}

/* Room for @n more bytes, which must be at most the buffer's size. */
static char *etwctl_line_room(struct etwctl_line *l, size_t n)
{
	if (l->len + n > sizeof(l->buf))
		etwctl_line_flush(l);
	return l->buf + l->len;
}

static void etwctl_line_add(struct etwctl_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->buf)) {
		etwctl_line_flush(l);
		fwrite_unlocked(s, 1, n, l->f);
		return;
	}
	memcpy(etwctl_line_room(l, n), s, n);
	l->len += n;
}

/* @v right-aligned in @width columns, as "%*llu". */
static void etwctl_line_u64(struct etwctl_line *l, uint64_t v, int width)
{
	char *p;
	size_t n;

	for (; width > ETWCTL_U64_LEN; width--)
		etwctl_line_add(l, " ", 1);
	p = etwctl_line_room(l, ETWCTL_U64_LEN);
	n = etwctl_u64_text(v, p);
	if ((size_t)width > n) {
		memmove(p + width - n, p, n);
		memset(p, ' ', width - n);
		n = width;
	}
	l->len += n;
}

static void etwctl_line_hex(struct etwctl_line *l, uint64_t v)
{
	char buf[16];
	int i = sizeof(buf);

	do {
		buf[--i] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	etwctl_line_add(l, buf + i, sizeof(buf) - i);
}

/*
 * The conversion at @fmt (after a '%'): its width, its type ('u', 's',
 * 'x' for "llx", 'U' for "llu", '%'; 0 for any other, whose '%' and
 * width are then text) and the characters it takes after the '%'.
 */
static size_t etwctl_conv_parse(const char *fmt, int *width, char *type)
{
	size_t i = 0;
	int w = 0;

	while (fmt[i] >= '0' && fmt[i] <= '9')
		w = w * 10 + fmt[i++] - '0';
	*width = w;
	*type = 0;
	if (fmt[i] == 'u')
		*type = 'u';
	else if (!w && (fmt[i] == 's' || fmt[i] == '%'))
		*type = fmt[i];
	else if (!w && fmt[i] == 'l' && fmt[i + 1] == 'l' &&
		 (fmt[i + 2] == 'x' || fmt[i + 2] == 'u'))
		*type = fmt[i + 2] == 'x' ? 'x' : 'U';
	if (*type == 'x' || *type == 'U')
		return i + 3;
	return *type ? i + 1 : i;
}

/* The conversion after the '%' at @fmt - 1; returns what follows it. */
static const char *etwctl_line_conv(struct etwctl_line *l, const char *fmt,
				    va_list *ap)
{
	size_t n;
	int width;
	char type;
	const char *s;

	n = etwctl_conv_parse(fmt, &width, &type);
	switch (type) {
	case 'u':
		etwctl_line_u64(l, va_arg(*ap, unsigned int), width);
		break;
	case 's':
		s = va_arg(*ap, const char *);
		etwctl_line_add(l, s, strlen(s));
		break;
	case 'x':
		etwctl_line_hex(l, va_arg(*ap, unsigned long long));
		break;
	case 'U':
		etwctl_line_u64(l, va_arg(*ap, unsigned long long), 0);
		break;
	case '%':
		etwctl_line_add(l, "%", 1);
		break;
	default:
		etwctl_line_add(l, fmt - 1, n + 1);
	}
	return fmt + n;
}

#define ETWCTL_FMT_CACHED	8
#define ETWCTL_FMT_RUNS		32

/*
 * The lengths of a format's runs of literal text, in order, found on its
 * first use: dump's formats are a few literals printed for every event,
 * JSON's with some 200 bytes of keys between the conversions.
 */
struct etwctl_fmt {
	const char *fmt;
	unsigned int nruns;
	uint16_t run[ETWCTL_FMT_RUNS];
};

static __thread struct etwctl_fmt etwctl_fmts[ETWCTL_FMT_CACHED];

/* The runs of @fmt, measured now if new; NULL when there is no room. */
static const struct etwctl_fmt *etwctl_fmt_runs(const char *fmt)
{
	struct etwctl_fmt *c = NULL;
	const char *p = fmt, *run;
	int width;
	char type;
	size_t i;

	for (i = 0; i < ETWCTL_FMT_CACHED; i++) {
		if (etwctl_fmts[i].fmt == fmt)
			return &etwctl_fmts[i];
		if (!etwctl_fmts[i].fmt && !c)
			c = &etwctl_fmts[i];
	}
	if (!c)
		return NULL;
	c->nruns = 0;
	while (*p) {
		if (*p == '%') {
			/* As etwctl_putf() will step over it. */
			p += 1 + etwctl_conv_parse(p + 1, &width, &type);
			continue;
		}
		run = strchrnul(p, '%');
		if (c->nruns == ETWCTL_FMT_RUNS || run - p > UINT16_MAX)
			return NULL;
		c->run[c->nruns++] = (uint16_t)(run - p);
		p = run;
	}
	c->fmt = fmt;
	return c;
}

/**
 * etwctl_putf - fprintf() for dump's hot lines
 * @f: the stream
 * @fmt: text with %s, %u, %Nu (N columns, right-aligned), %llu, %llx and
 *	%% only; other conversions are written as they stand
 *
 * The bytes are those fprintf() writes for the same format.
 */
void etwctl_putf(FILE *f, const char *fmt, ...)
{
	const struct etwctl_fmt *c = etwctl_fmt_runs(fmt);
	struct etwctl_line l;
	unsigned int r = 0;
	const char *run;
	va_list ap;

	/* Not an initializer: that would clear the buffer on every call. */
	l.f = f;
	l.len = 0;
	va_start(ap, fmt);
	while (*fmt) {
		if (*fmt == '%') {
			fmt = etwctl_line_conv(&l, fmt + 1, &ap);
			continue;
		}
		if (c)
			run = fmt + c->run[r++];
		else
			run = strchrnul(fmt, '%');
		etwctl_line_add(&l, fmt, (size_t)(run - fmt));
		fmt = run;
	}
	va_end(ap);
	etwctl_line_flush(&l);
}

/**
 * etwctl_put_u64 - fprintf(@f, "%*llu", @width, @v) without the printf
 * @f: the stream
 * @v: the number
 * @width: the minimum width, right-aligned with spaces
 */
void etwctl_put_u64(FILE *f, uint64_t v, int width)
{
	struct etwctl_line l;

	l.f = f;
	l.len = 0;
	etwctl_line_u64(&l, v, width);
	etwctl_line_flush(&l);
}

/**
 * etwctl_put_hex - fprintf(@f, "0x%llx", @v) without the printf
 * @f: the stream
 * @v: the number
 */
void etwctl_put_hex(FILE *f, uint64_t v)
{
	struct etwctl_line l;

	l.f = f;
	l.len = 0;
	etwctl_line_add(&l, "0x", 2);
	etwctl_line_hex(&l, v);
	etwctl_line_flush(&l);
}

/*
 * The escape of @c: '"', '\\' or a control character, which a JSON string
 * cannot hold as they are.  @named pairs a character with its letter.
 */
static size_t etwctl_json_esc(unsigned char c, char esc[8])
{
	const char *named = strchr("\"\"\\\\\nn\rr\tt", c);

	esc[0] = '\\';
	if (c && named) {
		esc[1] = named[1];
		return 2;
	}
	return (size_t)snprintf(esc, 8, "\\u%04x", c);
}

/**
 * etwctl_json_string - write @s as a JSON string literal
 * @f: the stream
 * @s: text; bytes that are not UTF-8 become U+FFFD
 *
 * Runs that need no escape are written as they stand, by etwctl_put().
 */
void etwctl_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t n;

	putc_unlocked('"', f);
	for (; *p; p += n ? n : 1) {
		n = etwctl_json_plain(p);
		if (n) {
			etwctl_put(f, (const char *)p, n);
			continue;
		}
		n = (size_t)etwctl_utf8_len(p);
		if (!n)
			etwctl_put(f, "\\ufffd", 6);
		else if (*p < 0x20 || *p == '"' || *p == '\\')
			etwctl_put(f, esc, etwctl_json_esc(*p, esc));
		else
			etwctl_put(f, (const char *)p, n);
	}
	putc_unlocked('"', f);
}

/**
 * etwctl_strdup2 - two strings in one allocation
 * @a: the first
 * @b: the second
 * @b_copy: out: the copy of @b, inside the block returned
 *
 * Return: the copy of @a, to free() (which frees both), or NULL.
 */
char *etwctl_strdup2(const char *a, const char *b, char **b_copy)
{
	size_t na = strlen(a) + 1, nb = strlen(b) + 1;
	char *p = malloc(na + nb);

	if (!p)
		return NULL;
	memcpy(p, a, na);
	memcpy(p + na, b, nb);
	*b_copy = p + na;
	return p;
}
