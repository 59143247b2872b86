// SPDX-License-Identifier: GPL-2.0
/*
 * put.c: what dump writes for every event, without printf: text,
 * numbers in decimal and hex, JSON string literals, and the pieces the
 * decoder builds its values from (digits, UTF-8 sequences, the runs of
 * bytes JSON keeps as they are).
 *
 * glibc's fprintf parses its format, looks up the locale and goes
 * through the stream's vtable once per conversion, and fputs and fputc
 * take the stream's lock: thousands of instructions for a row, more than
 * reading and decoding the event.  These write into the stream's buffer.
 */
#include <endian.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"

/**
 * etwctl_u64_digits - how many digits "%llu" writes for @v
 * @v: the number
 *
 * Return: 1 to 20.
 */
size_t etwctl_u64_digits(uint64_t v)
{
	static const uint64_t pow10[] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull,
		1000000ull, 10000000ull, 100000000ull, 1000000000ull,
		10000000000ull, 100000000000ull, 1000000000000ull,
		10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull,
		100000000000000000ull, 1000000000000000000ull,
		10000000000000000000ull,
	};
	/*
	 * From the bits, t is log10(v) or one more (1233 / 4096 is just
	 * over log10(2)), then a comparison tells: no division a digit.
	 */
	size_t t = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + 1 - (v < pow10[t]) + !v;
}

/**
 * etwctl_u64_text - @v in decimal, as "%llu" writes it, without a NUL
 * @v: the number
 * @out: out: at least %ETWCTL_U64_LEN bytes
 *
 * Return: the number of digits.
 */
/* Two digits a step: "00" to "99". */
static const char etwctl_dec_pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

size_t etwctl_u64_text(uint64_t v, char *out)
{
	/* Counted first, then written from the last digit, in place. */
	size_t n = etwctl_u64_digits(v), i = n;

	while (v >= 100) {
		i -= 2;
		memcpy(out + i, etwctl_dec_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(out + i - 2, etwctl_dec_pairs + 2 * v, 2);
	else
		out[i - 1] = (char)('0' + v);
	return n;
}

/**
 * etwctl_dec_fixed - @v as @n decimal digits, zero-padded, as "%0*llu"
 * @v: the number, less than 10 to the @n
 * @n: how many digits
 * @out: out: @n bytes, no NUL
 *
 * Two digits a step: every event's time has seven of them.
 */
void etwctl_dec_fixed(uint64_t v, size_t n, char *out)
{
	for (; n >= 2; n -= 2, v /= 100)
		memcpy(out + n - 2, etwctl_dec_pairs + 2 * (v % 100), 2);
	if (n)
		out[0] = (char)('0' + v % 10);
}

#define ETWCTL_HEX_ROW(h) \
	#h "0", #h "1", #h "2", #h "3", #h "4", #h "5", #h "6", #h "7", \
	#h "8", #h "9", #h "a", #h "b", #h "c", #h "d", #h "e", #h "f"
#define ETWCTL_HEX_ROW_UP(h) \
	#h "0", #h "1", #h "2", #h "3", #h "4", #h "5", #h "6", #h "7", \
	#h "8", #h "9", #h "A", #h "B", #h "C", #h "D", #h "E", #h "F"

/* Each byte's two hex digits (no NUL), lower case then upper case. */
const char etwctl_hex_pairs[2][256][2] = {
	{
		ETWCTL_HEX_ROW(0), ETWCTL_HEX_ROW(1), ETWCTL_HEX_ROW(2),
		ETWCTL_HEX_ROW(3), ETWCTL_HEX_ROW(4), ETWCTL_HEX_ROW(5),
		ETWCTL_HEX_ROW(6), ETWCTL_HEX_ROW(7), ETWCTL_HEX_ROW(8),
		ETWCTL_HEX_ROW(9), ETWCTL_HEX_ROW(a), ETWCTL_HEX_ROW(b),
		ETWCTL_HEX_ROW(c), ETWCTL_HEX_ROW(d), ETWCTL_HEX_ROW(e),
		ETWCTL_HEX_ROW(f),
	}, {
		ETWCTL_HEX_ROW_UP(0), ETWCTL_HEX_ROW_UP(1),
		ETWCTL_HEX_ROW_UP(2), ETWCTL_HEX_ROW_UP(3),
		ETWCTL_HEX_ROW_UP(4), ETWCTL_HEX_ROW_UP(5),
		ETWCTL_HEX_ROW_UP(6), ETWCTL_HEX_ROW_UP(7),
		ETWCTL_HEX_ROW_UP(8), ETWCTL_HEX_ROW_UP(9),
		ETWCTL_HEX_ROW_UP(A), ETWCTL_HEX_ROW_UP(B),
		ETWCTL_HEX_ROW_UP(C), ETWCTL_HEX_ROW_UP(D),
		ETWCTL_HEX_ROW_UP(E), ETWCTL_HEX_ROW_UP(F),
	},
};

/**
 * etwctl_hex_text - @n bytes as hex digits, two a byte, without a NUL
 * @p: the bytes
 * @n: how many
 * @upper: upper-case digits, else lower-case
 * @out: out: 2 * @n bytes
 *
 * One copy of a table entry a byte: undecoded payloads are most of what
 * dump writes for some traces.
 */
void etwctl_hex_text(const uint8_t *p, size_t n, bool upper, char *out)
{
	const char (*pairs)[2] = etwctl_hex_pairs[upper];
	uint16_t d[4];
	uint64_t w;
	size_t i = 0, k;

	/* Four bytes a step, their eight digits stored as one word. */
	for (; i + 4 <= n; i += 4) {
		for (k = 0; k < 4; k++) {
			memcpy(&d[k], pairs[p[i + k]], 2);
			d[k] = le16toh(d[k]);
		}
		w = d[0] | (uint64_t)d[1] << 16 | (uint64_t)d[2] << 32 |
		    (uint64_t)d[3] << 48;
		w = htole64(w);
		memcpy(out + 2 * i, &w, 8);
	}
	for (; i < n; i++)
		memcpy(out + 2 * i, pairs[p[i]], 2);
}

/* The bytes etwctl_json_plain() (etwctl.h) lets through. */
const bool etwctl_json_plain_bytes[256] = {
	[0x20 ... 0x21] = true,		/* not '"' */
	[0x23 ... 0x5b] = true,		/* not '\\' */
	[0x5d ... 0x7f] = true,
};

/**
 * etwctl_puts - fputs(@s, @f), as etwctl_put() writes
 * @f: the stream
 * @s: NUL-terminated text
 */
void etwctl_puts(FILE *f, const char *s)
{
	etwctl_put(f, s, strlen(s));
}

/**
 * etwctl_put_u64 - fprintf(@f, "%*llu", @width, @v) without the printf
 * @f: the stream
 * @v: the number
 * @width: the minimum width, right-aligned with spaces
 */
void etwctl_put_u64(FILE *f, uint64_t v, int width)
{
	char buf[ETWCTL_U64_LEN], *p;
	size_t n;

	/* Straight into the stream's buffer when it has room: no copy. */
	p = etwctl_room(f, ETWCTL_PAD_MAX + ETWCTL_U64_LEN);
	if (p && width <= ETWCTL_PAD_MAX) {
		/* Most of a row's numbers (CPU, id, level...) are one digit. */
		n = v < 10 ? 1 : etwctl_u64_digits(v);
		/* All the spaces it may take, stored at once, then skipped. */
		memset(p, ' ', ETWCTL_PAD_MAX);
		p += width > (int)n ? (size_t)width - n : 0;
		if (v < 10)
			*p++ = (char)('0' + v);
		else
			p += etwctl_u64_text(v, p);
		f->_IO_write_ptr = p;
		return;
	}
	n = etwctl_u64_text(v, buf);
	for (; width > 0 && (size_t)width > n; width--)
		putc_unlocked(' ', f);
	etwctl_put(f, buf, n);
}

/**
 * etwctl_put_hex - fprintf(@f, "0x%llx", @v) without the printf
 * @f: the stream
 * @v: the number
 */
void etwctl_put_hex(FILE *f, uint64_t v)
{
	char buf[ETWCTL_HEX_LEN];

	etwctl_put(f, buf, etwctl_hex_u64_text(v, buf));
}

/**
 * etwctl_hex_u64_text - "0x%llx" of @v, without a NUL
 * @v: the number
 * @out: out: at least %ETWCTL_HEX_LEN bytes
 *
 * Return: the bytes written.
 */
size_t etwctl_hex_u64_text(uint64_t v, char *out)
{
	size_t n = v ? (67 - (size_t)__builtin_clzll(v)) / 4 : 1, i;

	out[0] = '0';
	out[1] = 'x';
	for (i = n + 1; i > 1; i--, v >>= 4)
		out[i] = "0123456789abcdef"[v & 0xf];
	return n + 2;
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

