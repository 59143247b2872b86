// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * XPRESS plain LZ77 ([MS-XCA] 2.3, 2.4): the decompressor against streams
 * built by hand from the specification, one rule per row; the compressor
 * by round trips and by the forms it must choose.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etw_etl.h"
#include "kselftest_harness.h"

/*
 * One stream: @in (@in_len bytes, NULs included) inflated into @cap
 * bytes gives @ret and, on success, @out_len bytes: @out followed by
 * @fill up to @out_len.
 */
struct xpress_case {
	const char *name;
	const char *in;
	size_t in_len;
	size_t cap;
	int ret;
	const char *out;
	size_t out_len;
	char fill;
};

#define S(s) s, sizeof(s) - 1
/* Flags: three literals, then ones up to the end of the word. */
#define F3 "\xff\xff\xff\x1f"
/* Flags: one literal, then match tokens. */
#define F1 "\xff\xff\xff\x7f"
/* 32 literal flags. */
#define F0 "\x00\x00\x00\x00"
#define L32 "abcdefghijklmnopqrstuvwxyz012345"

static const struct xpress_case xpress_cases[] = {
	{ "empty input", S(""), 16, 0, "", 0, 0 },
	{ "literals, end at a match flag", S(F3 "abc"), 16, 0, "abc", 3, 0 },
	{ "literals, end at a literal flag", S(F0 "abc"), 16, 0, "abc", 3, 0 },
	{ "32 literals fill a flag word", S(F0 L32), 32, 0, L32, 32, 0 },
	{ "second flag word", S(F0 L32 "\xff\xff\xff\x7f" "z"), 64, 0,
	  L32 "z", 33, 0 },
	{ "overlapping match, offset 1", S(F1 "a" "\x02\x00"), 16, 0,
	  "", 6, 'a' },
	{ "overlapping match, offset 2", S("\xff\xff\xff\x3f" "ab" "\x0b\x00"),
	  16, 0, "abababab", 8, 0 },
	{ "match not overlapping", S("\xff\xff\xff\x0f" "abcd" "\x18\x00"),
	  16, 0, "abcdabc", 7, 0 },
	{ "length 9: largest in 3 bits", S(F1 "a" "\x06\x00"), 16, 0,
	  "", 10, 'a' },
	{ "length 10: half byte 0", S(F1 "a" "\x07\x00\x00"), 16, 0,
	  "", 11, 'a' },
	{ "half byte shared by two matches",
	  S(F1 "a" "\x07\x00\xa2" "\x07\x00"), 64, 0, "", 33, 'a' },
	{ "third extended match takes a new byte",
	  S(F1 "a" "\x07\x00\x21" "\x07\x00" "\x07\x00\x03"), 64, 0,
	  "", 1 + 11 + 12 + 13, 'a' },
	{ "length 24: half byte 14", S(F1 "a" "\x07\x00\x0e"), 64, 0,
	  "", 25, 'a' },
	{ "length 25: byte form 0", S(F1 "a" "\x07\x00\x0f\x00"), 64, 0,
	  "", 26, 'a' },
	{ "length 279: byte form 254", S(F1 "a" "\x07\x00\x0f\xfe"), 512, 0,
	  "", 280, 'a' },
	{ "length 280: 16-bit form", S(F1 "a" "\x07\x00\x0f\xff\x15\x01"),
	  512, 0, "", 281, 'a' },
	{ "length 65538: 16-bit form 65535",
	  S(F1 "a" "\x07\x00\x0f\xff\xff\xff"), 70000, 0, "", 65539, 'a' },
	{ "length 65539: 32-bit form",
	  S(F1 "a" "\x07\x00\x0f\xff\x00\x00\x00\x00\x01\x00"), 70000, 0,
	  "", 65540, 'a' },
	{ "16-bit form below 22", S(F1 "a" "\x07\x00\x0f\xff\x15\x00"), 512,
	  -EBADMSG, "", 0, 0 },
	{ "32-bit form below 22",
	  S(F1 "a" "\x07\x00\x0f\xff\x00\x00\x15\x00\x00\x00"), 512,
	  -EBADMSG, "", 0, 0 },
	{ "32-bit form past the output",
	  S(F1 "a" "\x07\x00\x0f\xff\x00\x00\xff\xff\xff\xff"), 512,
	  -EBADMSG, "", 0, 0 },
	{ "end inside a flag word", S("\x00\x00\x00"), 16, -EBADMSG, "", 0, 0 },
	{ "end inside the second flag word", S(F0 L32 "\x00\x00"), 64,
	  -EBADMSG, "", 0, 0 },
	{ "end inside a match word", S(F1 "a" "\x02"), 16, -EBADMSG, "", 0, 0 },
	{ "end before the half byte", S(F1 "a" "\x07\x00"), 16, -EBADMSG, "", 0, 0 },
	{ "end before the length byte", S(F1 "a" "\x07\x00\x0f"), 64,
	  -EBADMSG, "", 0, 0 },
	{ "end inside the 16-bit length", S(F1 "a" "\x07\x00\x0f\xff\x15"),
	  512, -EBADMSG, "", 0, 0 },
	{ "end inside the 32-bit length",
	  S(F1 "a" "\x07\x00\x0f\xff\x00\x00\x00\x00\x01"), 70000, -EBADMSG, "", 0, 0 },
	{ "match before any output", S("\xff\xff\xff\xff" "\x00\x00"), 16,
	  -EBADMSG, "", 0, 0 },
	{ "offset before the start", S(F1 "a" "\x08\x00"), 16, -EBADMSG, "", 0, 0 },
	{ "largest offset, before the start",
	  S(F1 "a" "\xf8\xff"), 16, -EBADMSG, "", 0, 0 },
	{ "literal past the output", S(F3 "abc"), 2, -EBADMSG, "", 0, 0 },
	{ "match past the output", S(F1 "a" "\x02\x00"), 5, -EBADMSG, "", 0, 0 },
	{ "match fills the output exactly", S(F1 "a" "\x02\x00"), 6, 0,
	  "", 6, 'a' },
};

TEST(decompress_table)
{
	uint8_t *out = malloc(70000), *want = malloc(70000);
	const struct xpress_case *c;
	size_t i, n;
	int ret;

	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, want);
	for (i = 0; i < sizeof(xpress_cases) / sizeof(*xpress_cases); i++) {
		c = &xpress_cases[i];
		n = 12345;
		ret = etw_xpress_decompress(c->in, c->in_len, out, c->cap, &n);
		EXPECT_EQ(c->ret, ret) TH_LOG("%s", c->name);
		if (ret || c->ret)
			continue;
		EXPECT_EQ(c->out_len, n) TH_LOG("%s", c->name);
		memset(want, c->fill, c->out_len);
		memcpy(want, c->out, strlen(c->out));
		EXPECT_EQ(0, memcmp(want, out, n)) TH_LOG("%s", c->name);
	}
	free(out);
	free(want);
}

/* Compress @len bytes of @in, inflate them, and compare. */
static ssize_t xpress_round_trip(struct __test_metadata *_metadata,
				 const uint8_t *in, size_t len)
{
	size_t cap = len + len / 8 + 16, n = 0;
	uint8_t *z = malloc(cap), *back = malloc(len + 1);
	ssize_t zlen;

	zlen = etw_xpress_compress(in, len, z, cap);
	EXPECT_LT(0, zlen);
	if (zlen > 0) {
		EXPECT_EQ(0, etw_xpress_decompress(z, zlen, back, len, &n));
		EXPECT_EQ(len, n);
		EXPECT_EQ(0, memcmp(in, back, len));
	}
	free(z);
	free(back);
	return zlen;
}

static uint32_t xpress_rand(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

TEST(round_trip_sizes)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 31, 32, 33, 63, 64, 65,
					1000, 8193, 65536 };
	uint8_t *in = malloc(65536);
	uint32_t seed = 1;
	size_t i, j;

	ASSERT_NE(NULL, in);
	/* Text-like: a small alphabet, so that short matches abound. */
	for (j = 0; j < 65536; j++)
		in[j] = "etw xpress "[xpress_rand(&seed) % 11];
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		xpress_round_trip(_metadata, in, sizes[i]);
	free(in);
}

/* Runs take the byte, 16-bit and 32-bit length forms. */
TEST(round_trip_runs)
{
	static const size_t runs[] = { 10, 24, 25, 279, 280, 65538, 65539,
				       200000 };
	uint8_t *in = malloc(200001);
	size_t i;
	ssize_t z;

	ASSERT_NE(NULL, in);
	for (i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		in[0] = 'x';
		memset(in + 1, 'a', runs[i]);
		z = xpress_round_trip(_metadata, in, runs[i] + 1);
		/* A flag word, two literals and one match of at most 11. */
		EXPECT_GE(17, z) TH_LOG("run of %zu", runs[i]);
	}
	free(in);
}

/* No three bytes repeat: all literals, a flag word per 32 and the last. */
TEST(round_trip_no_repeats)
{
	uint8_t *in = malloc(65536);
	size_t j;

	ASSERT_NE(NULL, in);
	/* 16-bit big-endian counters: each 3-byte string occurs once. */
	for (j = 0; j < 65536; j += 2) {
		in[j] = j / 2 >> 8;
		in[j + 1] = j / 2 & 0xff;
	}
	EXPECT_EQ(65536 + 65536 / 32 * 4 + 4,
		  xpress_round_trip(_metadata, in, 65536));
	free(in);
}

/* Matches reach back 8192 bytes and no further. */
TEST(round_trip_window)
{
	uint8_t *in = malloc(3 * 8192);
	uint32_t seed = 3;
	size_t j;

	ASSERT_NE(NULL, in);
	for (j = 0; j < 8192; j++)
		in[j] = xpress_rand(&seed) & 0xff;
	memcpy(in + 8192, in, 8192);
	/* 8193 back: out of reach; 8192 back: the copy above. */
	memcpy(in + 2 * 8192, in + 8191, 8192);
	xpress_round_trip(_metadata, in, 3 * 8192);
	free(in);
}

TEST(compress_does_not_fit)
{
	uint8_t in[64], out[64];
	uint32_t seed = 5;
	size_t j;

	for (j = 0; j < sizeof(in); j++)
		in[j] = xpress_rand(&seed) & 0xff;
	EXPECT_EQ(0, etw_xpress_compress(in, sizeof(in), out, sizeof(out)));
	EXPECT_EQ(0, etw_xpress_compress(in, 1, out, 4));
	EXPECT_EQ(12, etw_xpress_compress(in, 8, out, 12));
}

TEST(compress_empty)
{
	uint8_t out[8];
	size_t n = 1;

	/* A flag word of ones: the stream ends at once. */
	ASSERT_EQ(4, etw_xpress_compress("", 0, out, sizeof(out)));
	EXPECT_EQ(0, memcmp(out, "\xff\xff\xff\xff", 4));
	EXPECT_EQ(0, etw_xpress_decompress(out, 4, out + 4, 4, &n));
	EXPECT_EQ(0u, n);
}

TEST_HARNESS_MAIN
