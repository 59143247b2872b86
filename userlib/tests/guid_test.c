/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * EtwProviderGuidFromName (the EventSource/TraceLogging name hash) and the
 * SHA-1 underneath it.
 */
#include <stdio.h>
#include <string.h>

#include <windows.h>
#include <evntprov.h>

#include "etw_sha1.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define VECTORS TESTDATA "/vectors/provider-guid-from-name.tsv"

static void guid_str(const GUID *g, char out[37])
{
	snprintf(out, 37,
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g->Data1, g->Data2, g->Data3, g->Data4[0], g->Data4[1],
		 g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
		 g->Data4[6], g->Data4[7]);
}

/* The GUID of @name as a string, or "" if the call failed. */
static const char *guid_of(const char *name, char out[37])
{
	GUID g;

	out[0] = 0;
	if (EtwProviderGuidFromName(name, &g) == ERROR_SUCCESS)
		guid_str(&g, out);
	return out;
}

/* Every line of the shared vector file: "name<TAB>guid". */
TEST(shared_vectors)
{
	char line[512], got[37], *tab, *want;
	int n = 0;
	FILE *f;

	REQUIRE_TESTDATA();
	f = fopen(VECTORS, "r");
	ASSERT_NE(NULL, f) TH_LOG("cannot open %s", VECTORS);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		line[strcspn(line, "\r\n")] = 0;
		tab = strchr(line, '\t');
		ASSERT_NE(NULL, tab) TH_LOG("bad line: %s", line);
		*tab = 0;
		want = tab + 1;
		EXPECT_STREQ(want, guid_of(line, got)) TH_LOG("name %s", line);
		n++;
	}
	fclose(f);
	EXPECT_GE(n, 7);
}

/*
 * Names beyond ASCII, computed with the reference's Python recipe using
 * per-character (simple) uppercasing, i.e. what .NET's ToUpperInvariant
 * does; see etw_guid.c for the characters libetw uppercases.
 */
static const struct {
	const char *name;
	const char *guid;
} more_vectors[] = {
	{ "MyCompany-MyProvider", "1a2d7041-4940-515a-b679-a861b3e17f74" },
	{ "", "4445ee6c-fd5a-5b15-047a-5866ffa76aa6" },
	{ "\xc3\x9cn\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9-Pr\xc3\xb6vider",
	  "80e065a9-0cec-5ea3-18bf-7101096d872d" },	/* Latin-1 */
	{ "\xce\x94\xce\xbf\xce\xba\xce\xb9\xce\xbc\xce\xae-"
	  "\xcf\x80\xce\xac\xcf\x81\xce\xbf\xcf\x87\xce\xbf\xcf\x82",
	  "eb3bbbf2-5354-51a7-da54-eae9ed5413a2" },	/* Greek */
	{ "\xd0\xa2\xd0\xb5\xd1\x81\xd1\x82-\xd0\x9f\xd1\x80\xd0\xbe"
	  "\xd0\xb2\xd0\xb0\xd0\xb9\xd0\xb4\xd0\xb5\xd1\x80-\xd1\x91",
	  "4b450c78-20f9-5121-17a6-b4467eb7a4e8" },	/* Cyrillic */
	{ "Prov-\xf0\x9f\x98\x80",
	  "1fcc498a-d9bd-5019-2953-0ef1ec9a6ae1" },	/* surrogate pair */
	{ "\xc2\xb5-\xc3\xbf-stra\xc3\x9f" "e",
	  /* micro sign, y with diaeresis, sharp s (kept) */
	  "9c458b57-f165-5431-f8e4-2a0d21d15772" },
	{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "ea164f05-5a64-58e5-7ec5-91d348a5951b" },	/* several blocks */
};

TEST(extra_vectors)
{
	char got[37];
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(more_vectors); i++)
		EXPECT_STREQ(more_vectors[i].guid,
			     guid_of(more_vectors[i].name, got))
			TH_LOG("vector %u", i);
}

/* Each row: spellings of one name that must give one GUID. */
TEST(case_insensitive)
{
	static const char *const same[][3] = {
		{ "MyProvider", "myprovider", "MYPROVIDER" },
		{ "Microsoft-Windows-Foo", "microsoft-windows-foo",
		  "mICROSOFT-wINDOWS-fOO" },
		{ "\xc3\x9cn\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9",	/* Latin-1 */
		  "\xc3\xbcn\xc3\xaf" "c\xc3\xb8" "d\xc3\xa9",
		  "\xc3\x9cN\xc3\x8f" "C\xc3\x98" "D\xc3\x89" },
		{ "\xd1\x91\xd0\xb6",				/* Cyrillic */
		  "\xd0\x81\xd0\x96", "\xd1\x91\xd0\x96" },
	};
	char a[37], b[37];
	unsigned int i, j;

	for (i = 0; i < ARRAYSIZE(same); i++) {
		guid_of(same[i][0], a);
		ASSERT_NE(0, a[0]);
		for (j = 1; j < 3; j++)
			EXPECT_STREQ(a, guid_of(same[i][j], b))
				TH_LOG("row %u spelling %u", i, j);
	}
}

TEST(distinct_names_differ)
{
	char a[37], b[37];

	EXPECT_STRNE(guid_of("MyProvider", a), guid_of("MyProvider2", b));
	EXPECT_STRNE(guid_of("My-Provider", a), guid_of("My_Provider", b));
}

TEST(version_nibble_and_no_variant_bits)
{
	static const char *const names[] = {
		"A", "MyProvider", "Microsoft-Diagnostics-DiagnosticSource",
	};
	unsigned int i;
	GUID g;

	for (i = 0; i < ARRAYSIZE(names); i++) {
		ASSERT_EQ(ERROR_SUCCESS, EtwProviderGuidFromName(names[i], &g));
		EXPECT_EQ(5, g.Data3 >> 12);
	}
	/* c125: byte 8 keeps the hash's bits (no RFC 4122 variant). */
	ASSERT_EQ(ERROR_SUCCESS, EtwProviderGuidFromName(names[2], &g));
	EXPECT_EQ(0xc1, g.Data4[0]);
}

TEST(null_arguments)
{
	GUID g, before;

	memset(&g, 0xab, sizeof(g));
	before = g;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EtwProviderGuidFromName(NULL, &g));
	EXPECT_EQ(0, memcmp(&g, &before, sizeof(g)));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EtwProviderGuidFromName("MyProvider", NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EtwProviderGuidFromName(NULL, NULL));
}

TEST(malformed_utf8)
{
	static const char *const bad[] = {
		"\x80",			/* lone continuation byte */
		"ab\xc3",		/* truncated 2-byte sequence */
		"\xe2\x82",		/* truncated 3-byte sequence */
		"\xc0\x80",		/* overlong NUL */
		"\xe0\x80\xaf",		/* overlong '/' */
		"\xed\xa0\x80",		/* UTF-16 surrogate */
		"\xf4\x90\x80\x80",	/* above U+10FFFF */
		"\xf8\x88\x80\x80\x80",	/* 5-byte form */
		"\xff",
	};
	unsigned int i;
	GUID g;

	for (i = 0; i < ARRAYSIZE(bad); i++)
		EXPECT_EQ(ERROR_INVALID_PARAMETER,
			  EtwProviderGuidFromName(bad[i], &g))
			TH_LOG("input %u", i);
}

/* --------------------------------------------------------------------- */
/* SHA-1 (FIPS 180-4 examples, padding boundaries, incremental input). */

static void hex(const uint8_t *d, char out[41])
{
	int i;

	for (i = 0; i < ETW_SHA1_DIGEST_SIZE; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

TEST(sha1_fips_vectors)
{
	static const struct {
		const char *msg;
		const char *digest;
	} t[] = {
		{ "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
		{ "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
	};
	uint8_t d[ETW_SHA1_DIGEST_SIZE];
	char s[41];
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(t); i++) {
		etw_sha1(t[i].msg, strlen(t[i].msg), d);
		hex(d, s);
		EXPECT_STREQ(t[i].digest, s) TH_LOG("message %u", i);
	}
}

/* One million 'a's, fed in uneven pieces to exercise block carry-over. */
TEST(sha1_million_a)
{
	static char chunk[997];
	struct etw_sha1_ctx ctx;
	uint8_t d[ETW_SHA1_DIGEST_SIZE];
	size_t left = 1000000, n;
	char s[41];

	memset(chunk, 'a', sizeof(chunk));
	etw_sha1_init(&ctx);
	while (left) {
		n = left < sizeof(chunk) ? left : sizeof(chunk);
		etw_sha1_update(&ctx, chunk, n);
		left -= n;
	}
	etw_sha1_final(&ctx, d);
	hex(d, s);
	EXPECT_STREQ("34aa973cd4c4daa4f61eeb2bdbad27316534016f", s);
}

/* Lengths around the 56-byte padding limit and the 64-byte block. */
TEST(sha1_padding_boundaries)
{
	static const struct {
		size_t len;
		const char *digest;
	} t[] = {
		{ 55, "cef734ba81a024479e09eb5a75b6ddae62e6abf1" },
		{ 56, "901305367c259952f4e7af8323f480d59f81335b" },
		{ 63, "0ddc4e0cccd9a12850deb5abb0853a4425559fec" },
		{ 64, "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163" },
		{ 65, "78c741ddc482e4cdf8c474a0876347a0905b6233" },
		{ 119, "4300320394f7ee239bcdce7d3b8bcee173a0cd5c" },
		{ 120, "ceb2821639c4b6dcb10bce0e522ca2e608ce056d" },
	};
	uint8_t d[ETW_SHA1_DIGEST_SIZE];
	char buf[128], s[41];
	unsigned int i;

	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < ARRAYSIZE(t); i++) {
		etw_sha1(buf, t[i].len, d);
		hex(d, s);
		EXPECT_STREQ(t[i].digest, s) TH_LOG("length %zu", t[i].len);
	}
}

TEST(sha1_byte_at_a_time_matches_one_shot)
{
	static const char msg[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t a[ETW_SHA1_DIGEST_SIZE], b[ETW_SHA1_DIGEST_SIZE];
	struct etw_sha1_ctx ctx;
	size_t i;

	etw_sha1(msg, sizeof(msg) - 1, a);
	etw_sha1_init(&ctx);
	for (i = 0; i < sizeof(msg) - 1; i++)
		etw_sha1_update(&ctx, msg + i, 1);
	etw_sha1_final(&ctx, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
}

TEST_HARNESS_MAIN
