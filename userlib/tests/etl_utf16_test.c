// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * UTF-16LE strings of event data (etw_etl.c): the units before a NUL,
 * and their UTF-8, which both take four ASCII units at a time.  Every
 * position of a NUL and of a unit past 0x7f in and around a run of
 * four, surrogates paired and not.
 */
#include "etw_etl.h"
#include "kselftest_harness.h"

/* @s as UTF-16LE units into @out (ASCII, '~' standing for U+00E9). */
static size_t units_of(const char *s, uint8_t *out)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++) {
		out[2 * i] = s[i] == '~' ? 0xe9 : s[i] == '0' ? 0 : s[i];
		out[2 * i + 1] = 0;
	}
	return n;
}

/* A NUL ('0') at every position of 0 to 11 units: the units before it. */
TEST(units_before_a_nul)
{
	uint8_t le[64];
	char s[16];
	size_t at;

	for (at = 0; at < 12; at++) {
		memset(s, 0, sizeof(s));
		memset(s, 'a', 12);
		s[at] = '0';
		units_of(s, le);
		EXPECT_EQ(at, etw_etl_utf16_units(le, 12)) TH_LOG("at %zu", at);
		EXPECT_EQ(at < 7 ? at : 7, etw_etl_utf16_units(le, 7));
	}
	units_of("abcdefghi", le);
	EXPECT_EQ(9, etw_etl_utf16_units(le, 9));
	EXPECT_EQ(0, etw_etl_utf16_units(le, 0));
	/* A unit past 0x7f is no NUL, nor is a high byte of 0. */
	units_of("~~~~~0", le);
	EXPECT_EQ(5, etw_etl_utf16_units(le, 6));
	le[1] = 0x01;
	le[0] = 0;
	EXPECT_EQ(5, etw_etl_utf16_units(le, 6));
}

static const struct {
	const char *in;
	const char *out;
} cases[] = {
	{ "", "" },
	{ "abc", "abc" },
	{ "abcd", "abcd" },
	{ "abcdefgh", "abcdefgh" },
	{ "abcdefghi", "abcdefghi" },
	{ "~bcdefgh", "\xc3\xa9" "bcdefgh" },
	{ "abc~efghij", "abc\xc3\xa9" "efghij" },
	{ "abcd~", "abcd\xc3\xa9" },
	{ "ab0cdefgh", "ab" },
	{ "abcde0fgh", "abcde" },
	{ "~0abcd", "\xc3\xa9" },
};

/* ASCII runs broken by a unit past 0x7f or a NUL: the same UTF-8. */
TEST(utf8_of_runs)
{
	uint8_t le[64];
	char out[64];
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = units_of(cases[i].in, le);
		memset(out, 0x55, sizeof(out));
		EXPECT_EQ(strlen(cases[i].out),
			  etw_etl_utf16_utf8(le, n, out)) TH_LOG("%s",
								 cases[i].in);
		EXPECT_STREQ(cases[i].out, out) TH_LOG("%s", cases[i].in);
	}
}

/*
 * A pair after a run, a high surrogate alone before a unit, at the end
 * of the units and before a NUL: U+1F600, else U+FFFD.
 */
TEST(utf8_of_surrogates)
{
	static const uint8_t pair[] = { 'a', 0, 'b', 0, 'c', 0, 'd', 0,
					0x3d, 0xd8, 0x00, 0xde };
	static const uint8_t alone[] = { 'a', 0, 0x3d, 0xd8, 'b', 0 };
	static const uint8_t last[] = { 'a', 0, 0x3d, 0xd8 };
	static const uint8_t nul[] = { 0x3d, 0xd8, 0, 0, 0x00, 0xde };
	char out[32];

	EXPECT_EQ(8, etw_etl_utf16_utf8(pair, 6, out));
	EXPECT_STREQ("abcd\xf0\x9f\x98\x80", out);
	EXPECT_EQ(5, etw_etl_utf16_utf8(alone, 3, out));
	EXPECT_STREQ("a\xef\xbf\xbd" "b", out);
	EXPECT_EQ(4, etw_etl_utf16_utf8(last, 2, out));
	EXPECT_STREQ("a\xef\xbf\xbd", out);
	EXPECT_EQ(3, etw_etl_utf16_utf8(nul, 3, out));
	EXPECT_STREQ("\xef\xbf\xbd", out);
}

TEST_HARNESS_MAIN
