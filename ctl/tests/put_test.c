// SPDX-License-Identifier: GPL-2.0
/*
 * dump's printf-free formatting (ctl/put.c and etwctl_filetime_format()
 * in ctl/decode.c) writes the bytes libc's printf writes: numbers at the
 * edges of each digit count, in decimal with widths and in hex; bytes
 * as hex digits in both cases; the run of bytes a JSON string keeps;
 * text in every buffering mode; GUIDs; and FILETIMEs across second and
 * day boundaries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_test.h"
#include "kselftest_harness.h"

/* What @fn writes to a memory stream, NUL-terminated, malloc'ed. */
#define CAPTURE(out, call) do {					\
	size_t _len;							\
	FILE *f = open_memstream(&(out), &_len);			\
	ASSERT_NE(NULL, f);						\
	call;								\
	ASSERT_EQ(0, fclose(f));					\
} while (0)

static const uint64_t numbers[] = {
	0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65535, 4294967295u,
	4294967296ull, 9999999999999999999ull, 10000000000000000000ull,
	UINT64_MAX,
};

TEST(u64_text_matches_printf)
{
	char want[32], got[ETWCTL_U64_LEN + 1];
	size_t i, n;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)numbers[i]);
		n = etwctl_u64_text(numbers[i], got);
		got[n] = 0;
		EXPECT_STREQ(want, got);
	}
}

/* Every count of digits, at each side of each power of ten and of two. */
TEST(u64_digits_at_every_boundary)
{
	char want[32];
	uint64_t p, v;
	int i, k;

	EXPECT_EQ(1, etwctl_u64_digits(0));
	for (p = 1, i = 0; i < 20; i++, p *= 10) {
		for (k = -1; k <= 1; k++) {
			v = p + (uint64_t)k;
			if (!p || (k < 0 && p == 1))
				continue;
			snprintf(want, sizeof(want), "%llu",
				 (unsigned long long)v);
			EXPECT_EQ(strlen(want), etwctl_u64_digits(v))
				TH_LOG("%llu", (unsigned long long)v);
		}
		if (i == 19)
			break;
	}
	for (i = 0; i < 64; i++) {
		v = 1ull << i;
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v);
		EXPECT_EQ(strlen(want), etwctl_u64_digits(v));
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)(v - 1 + !i));
		EXPECT_EQ(strlen(want), etwctl_u64_digits(v - 1 + !i));
	}
	EXPECT_EQ(20, etwctl_u64_digits(UINT64_MAX));
}

/* Fixed widths, zero-padded, odd and even, as "%0*llu" writes them. */
TEST(dec_fixed_matches_printf)
{
	static const struct { uint64_t v; size_t n; } cases[] = {
		{ 0, 1 }, { 7, 1 }, { 0, 7 }, { 42, 7 }, { 9999999, 7 },
		{ 1234567, 7 }, { 5, 2 }, { 99, 2 }, { 123, 4 },
	};
	char want[32], got[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(want, sizeof(want), "%0*llu", (int)cases[i].n,
			 (unsigned long long)cases[i].v);
		memset(got, 0, sizeof(got));
		etwctl_dec_fixed(cases[i].v, cases[i].n, got);
		EXPECT_STREQ(want, got);
	}
}

TEST(put_u64_matches_fprintf)
{
	static const int widths[] = { 0, 1, 3, 7, 25 };
	char *want, *got;
	size_t i, w;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			CAPTURE(want, fprintf(f, "%*llu", widths[w],
					      (unsigned long long)numbers[i]));
			CAPTURE(got, etwctl_put_u64(f, numbers[i], widths[w]));
			EXPECT_STREQ(want, got);
			free(want);
			free(got);
		}
	}
}

TEST(put_hex_matches_fprintf)
{
	char *want, *got;
	size_t i;

	for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		CAPTURE(want, fprintf(f, "0x%llx",
				      (unsigned long long)numbers[i]));
		CAPTURE(got, etwctl_put_hex(f, numbers[i]));
		EXPECT_STREQ(want, got);
		free(want);
		free(got);
	}
}

/* Printable ASCII but '"' and '\\' runs on; anything else stops it. */
TEST(hex_text_matches_printf)
{
	char want[2 * 256 + 1], got[2 * 256 + 1];
	uint8_t bytes[256];
	int upper;
	size_t i;

	for (i = 0; i < 256; i++)
		bytes[i] = (uint8_t)(255 - i);
	for (upper = 0; upper < 2; upper++) {
		for (i = 0; i < 256; i++)
			snprintf(want + 2 * i, 3, upper ? "%02X" : "%02x",
				 bytes[i]);
		memset(got, 0, sizeof(got));
		etwctl_hex_text(bytes, 256, upper, got);
		EXPECT_STREQ(want, got);
		/* Each count past a multiple of the four a step takes. */
		for (i = 0; i < 10; i++) {
			memset(got, 0, sizeof(got));
			etwctl_hex_text(bytes, i, upper, got);
			EXPECT_EQ(0, strncmp(want, got, 2 * i));
			EXPECT_EQ(2 * i, strlen(got));
		}
	}
}

TEST(json_plain_run)
{
	static const struct {
		const char *s;
		size_t run;
	} cases[] = {
		{ "", 0 }, { "abc", 3 }, { "a b~\x7f", 5 }, { "ab\"c", 2 },
		{ "ab\\c", 2 }, { "ab\nc", 2 }, { "\x1f", 0 }, { "a\xc3\xa9", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		EXPECT_EQ(cases[i].run, etwctl_json_plain(
				  (const unsigned char *)cases[i].s));
}

/* JSON string literals: escapes, U+FFFD for bad UTF-8, long text. */
TEST(json_string_escapes)
{
	static const struct {
		const char *s;
		const char *json;
	} cases[] = {
		{ "", "\"\"" },
		{ "plain text", "\"plain text\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "\n\r\t", "\"\\n\\r\\t\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xff\xc3x", "\"\\ufffd\\ufffdx\"" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
	};
	char *got;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CAPTURE(got, etwctl_json_string(f, cases[i].s));
		EXPECT_STREQ(cases[i].json, got);
		free(got);
	}
}

/* A long string: 600 quotes are 1200 bytes escaped. */
TEST(json_string_long)
{
	char s[601], want[1203], *got;
	int i;

	memset(s, '"', 600);
	s[600] = 0;
	want[0] = '"';
	for (i = 0; i < 600; i++)
		memcpy(want + 1 + 2 * i, "\\\"", 2);
	memcpy(want + 1201, "\"", 2);
	CAPTURE(got, etwctl_json_string(f, s));
	EXPECT_STREQ(want, got);
	free(got);
}

/*
 * etwctl_put() writes into the stream's buffer itself: every buffering
 * mode, with pieces that fit, straddle and exceed a small buffer, gives
 * the bytes in order.  A line-buffered stream once took it past its end.
 */
TEST(put_every_buffer_mode)
{
	static const int modes[] = { _IOFBF, _IOLBF, _IONBF };
	char want[512], got[512], piece[24], buf[16];
	size_t len, n, k;
	unsigned int m;
	FILE *f;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		f = tmpfile();
		ASSERT_NE(NULL, f);
		ASSERT_EQ(0, setvbuf(f, buf, modes[m], sizeof(buf)));
		len = 0;
		for (n = 0; n <= sizeof(piece); n++) {
			for (k = 0; k < n; k++)
				piece[k] = k % 5 == 4 ? '\n' : 'a' + (n + k) % 26;
			etwctl_put(f, piece, n);
			memcpy(want + len, piece, n);
			len += n;
		}
		ASSERT_EQ(0, fflush(f));
		rewind(f);
		EXPECT_EQ(len, fread(got, 1, sizeof(got), f));
		EXPECT_EQ(0, memcmp(want, got, len)) {
			TH_LOG("buffer mode %d", modes[m]);
		}
		fclose(f);
	}
}

TEST(guid_format_matches_printf)
{
	static const GUID guids[] = {
		{ 0, 0, 0, { 0 } },
		{ 0x3970f9cf, 0x2c0c, 0x4f11,
		  { 0xb1, 0xcc, 0xe3, 0xa1, 0xe9, 0x58, 0x83, 0x3d } },
		{ 0xffffffff, 0xffff, 0xffff,
		  { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ 0x01020304, 0x0a0b, 0xf0f1, { 0, 1, 2, 3, 4, 5, 6, 7 } },
	};
	char want[ETWCTL_GUID_LEN], got[ETWCTL_GUID_LEN];
	const uint8_t *d;
	size_t i;

	for (i = 0; i < sizeof(guids) / sizeof(guids[0]); i++) {
		d = guids[i].Data4;
		snprintf(want, sizeof(want),
			 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
			 guids[i].Data1, guids[i].Data2, guids[i].Data3, d[0],
			 d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
		etwctl_guid_format(&guids[i], got);
		EXPECT_STREQ(want, got);
	}
}

/*
 * The date is kept from one call to the next while the second is the
 * same: times in and out of order, across a second, a day and a year,
 * and before 1970, each as a fresh call would print it.
 */
TEST(filetime_sequence)
{
	static const struct {
		int64_t ft;
		const char *text;
	} cases[] = {
		{ 132756731758001567ll, "2021-09-09T14:59:35.8001567Z" },
		{ 132756731759999999ll, "2021-09-09T14:59:35.9999999Z" },
		{ 132756731760000000ll, "2021-09-09T14:59:36.0000000Z" },
		{ 132756731758000000ll, "2021-09-09T14:59:35.8000000Z" },
		{ 132540191999999999ll, "2021-01-01T23:59:59.9999999Z" },
		{ 132540192000000001ll, "2021-01-02T00:00:00.0000001Z" },
		{ 132539327999999999ll, "2020-12-31T23:59:59.9999999Z" },
		{ 116444735999999999ll, "1969-12-31T23:59:59.9999999Z" },
		{ 116444736000000000ll, "1970-01-01T00:00:00.0000000Z" },
	};
	char s[40];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		etwctl_filetime_format(cases[i].ft, s, sizeof(s));
		EXPECT_STREQ(cases[i].text, s);
	}
}

/* A short buffer gets what snprintf would have put there. */
TEST(filetime_truncated)
{
	char s[40];

	etwctl_filetime_format(132756731758001567ll, s, 12);
	EXPECT_STREQ("2021-09-09T", s);
	etwctl_filetime_format(132756731758001567ll, s, 28);
	EXPECT_STREQ("2021-09-09T14:59:35.8001567", s);
	etwctl_filetime_format(132756731758001567ll, s, 29);
	EXPECT_STREQ("2021-09-09T14:59:35.8001567Z", s);
}

TEST_HARNESS_MAIN
