// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_klogger.c's UTF-8 to UTF-16 conversion, which every
 * command line and file name of the kernel logger's records goes through.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../compat.h"
#include "../etw_internal.h"

#define ETW_ST_MAX_UNITS	8

/**
 * struct etw_st_case - one conversion
 * @name: case description
 * @in: the bytes
 * @in_len: bytes of @in
 * @max: units of room, the NUL included
 * @out: expected units, NUL excluded
 * @nout: entries of @out
 */
struct etw_st_case {
	const char *name;
	const char *in;
	u32 in_len;
	u32 max;
	u16 out[ETW_ST_MAX_UNITS];
	u32 nout;
};

static const struct etw_st_case etw_st_cases[] = {
	{ "ascii", "ab", 2, 8, { 'a', 'b' }, 2 },
	{ "empty", "", 0, 8, { 0 }, 0 },
	{ "nul between arguments is a space", "a\0b", 3, 8,
	  { 'a', ' ', 'b' }, 3 },
	{ "two-byte e-acute", "\xc3\xa9", 2, 8, { 0xe9 }, 1 },
	{ "three-byte euro", "\xe2\x82\xac", 3, 8, { 0x20ac }, 1 },
	{ "four-byte emoji is a surrogate pair", "\xf0\x9f\x98\x80", 4, 8,
	  { 0xd83d, 0xde00 }, 2 },
	{ "stray continuation byte", "\x80" "a", 2, 8, { 0xfffd, 'a' }, 2 },
	{ "overlong two-byte form", "\xc0\xaf", 2, 8, { 0xfffd, 0xfffd }, 2 },
	{ "encoded surrogate", "\xed\xa0\x80", 3, 8,
	  { 0xfffd, 0xfffd, 0xfffd }, 3 },
	{ "sequence cut by the end", "\xe2\x82", 2, 8, { 0xfffd, 0xfffd }, 2 },
	{ "above U+10FFFF", "\xf4\x90\x80\x80", 4, 8,
	  { 0xfffd, 0xfffd, 0xfffd, 0xfffd }, 4 },
	{ "byte that never starts a sequence", "\xff" "a", 2, 8,
	  { 0xfffd, 'a' }, 2 },
	{ "cut to the room", "abcdef", 6, 4, { 'a', 'b', 'c' }, 3 },
	{ "a pair that does not fit is left out", "a\xf0\x9f\x98\x80", 5, 3,
	  { 'a' }, 1 },
};

static void etw_st_desc(const struct etw_st_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(etw_st, etw_st_cases, etw_st_desc);

static void etw_klogger_utf16_test(struct kunit *test)
{
	const struct etw_st_case *c = test->param_value;
	u8 out[2 * ETW_ST_MAX_UNITS + 2];
	u32 i, n;

	memset(out, 0xaa, sizeof(out));
	n = etw_klogger_utf16(out, c->max, c->in, c->in_len);
	KUNIT_ASSERT_EQ(test, n, 2 * (c->nout + 1));
	for (i = 0; i < c->nout; i++)
		KUNIT_EXPECT_EQ_MSG(test, get_unaligned_le16(out + 2 * i),
				    c->out[i], "unit %u", i);
	KUNIT_EXPECT_EQ(test, get_unaligned_le16(out + 2 * c->nout), 0);
	/* Nothing is written past the NUL. */
	KUNIT_EXPECT_EQ(test, out[n], 0xaa);
}

static struct kunit_case etw_klogger_cases[] = {
	KUNIT_CASE_PARAM(etw_klogger_utf16_test, etw_st_gen_params),
	{}
};

static struct kunit_suite etw_klogger_suite = {
	.name = "etw_klogger",
	.test_cases = etw_klogger_cases,
};
kunit_test_suite(etw_klogger_suite);
