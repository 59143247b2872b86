// SPDX-License-Identifier: GPL-2.0
/*
 * output.c: the few printf conversions dump's lines use, without
 * printf.
 *
 * glibc's vfprintf parses its format, looks up the locale and goes
 * through the stream's vtable once per conversion: several thousand
 * instructions for a table row, more than reading and decoding the
 * event.  etwctl_putf() formats into a line buffer and writes it with
 * one fwrite.
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

/* etwctl writes its output from one thread: no stream lock. */
static void etwctl_line_flush(struct etwctl_line *l)
{
	fwrite_unlocked(l->buf, 1, l->len, l->f);
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
 * One conversion at @fmt (after the '%'); returns what follows it.
 * Anything but the conversions etwctl_putf() lists is copied as is.
 */
static const char *etwctl_line_conv(struct etwctl_line *l, const char *fmt,
				    va_list *ap)
{
	const char *start = fmt - 1, *s;
	int width = 0;

	while (*fmt >= '0' && *fmt <= '9')
		width = width * 10 + *fmt++ - '0';
	if (fmt[0] == 'u') {
		etwctl_line_u64(l, va_arg(*ap, unsigned int), width);
		return fmt + 1;
	}
	if (!width && fmt[0] == 's') {
		s = va_arg(*ap, const char *);
		etwctl_line_add(l, s, strlen(s));
		return fmt + 1;
	}
	if (!width && fmt[0] == 'l' && fmt[1] == 'l' &&
	    (fmt[2] == 'x' || fmt[2] == 'u')) {
		if (fmt[2] == 'x')
			etwctl_line_hex(l, va_arg(*ap, unsigned long long));
		else
			etwctl_line_u64(l, va_arg(*ap, unsigned long long), 0);
		return fmt + 3;
	}
	if (!width && fmt[0] == '%') {
		etwctl_line_add(l, "%", 1);
		return fmt + 1;
	}
	etwctl_line_add(l, start, (size_t)(fmt - start));
	return fmt;
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
	struct etwctl_line l;
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
		/* Found inline: the runs of literal text are short. */
		for (run = fmt; *run && *run != '%'; run++)
			;
		etwctl_line_add(&l, fmt, (size_t)(run - fmt));
		fmt = run;
	}
	va_end(ap);
	etwctl_line_flush(&l);
}

/**
 * etwctl_json_write - @s as a JSON string literal, quotes included
 * @f: the stream
 * @s: text; bytes that are not UTF-8 become U+FFFD
 *
 * Escaped in a line buffer and written with one fwrite.
 */
void etwctl_json_write(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	struct etwctl_line l;
	char esc[8];
	size_t n;

	l.f = f;
	l.len = 0;
	etwctl_line_add(&l, "\"", 1);
	for (; *p; p += n ? n : 1) {
		n = etwctl_json_plain(p);
		if (n) {
			etwctl_line_add(&l, (const char *)p, n);
			continue;
		}
		n = (size_t)etwctl_utf8_len(p);
		if (!n)
			etwctl_line_add(&l, "\\ufffd", 6);
		else if (*p == '"' || *p == '\\' || *p == '\n' || *p == '\r' ||
			 *p == '\t')
			etwctl_line_add(&l, esc, (size_t)snprintf(esc,
				sizeof(esc), "\\%c", *p == '\n' ? 'n' :
				*p == '\r' ? 'r' : *p == '\t' ? 't' : *p));
		else if (*p < 0x20)
			etwctl_line_add(&l, esc, (size_t)snprintf(esc,
				sizeof(esc), "\\u%04x", *p));
		else
			etwctl_line_add(&l, (const char *)p, n);
	}
	etwctl_line_add(&l, "\"", 1);
	etwctl_line_flush(&l);
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
