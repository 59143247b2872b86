// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_traits.c: every provider-traits case observed on
 * Windows 11 (etw-reference.md section 10) and the group GUID extracted.
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "../compat.h"
#include "../etw_internal.h"

#define ETW_TT_MAX_BLOB	64

static const u8 etw_tt_group_guid[16] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01,
};

/* TraitSize 19, type 1 (provider group), the group GUID. */
static const u8 etw_tt_group_trait[] = {
	0x13, 0x00, 0x01,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01,
};

/* A group trait whose TraitSize (20) runs one byte past the blob. */
static const u8 etw_tt_group_past_end[] = {
	0x14, 0x00, 0x01,
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x01,
};

static const u8 etw_tt_size0[] = { 0x00, 0x00, 0x01 };
static const u8 etw_tt_size2[] = { 0x02, 0x00, 0x01 };
/* A size of 2 that ends the blob exactly: no bytes left over to refuse. */
static const u8 etw_tt_size2_end[] = { 0x02, 0x00 };
static const u8 etw_tt_group_size3[] = { 0x03, 0x00, 0x01 };
static const u8 etw_tt_custom7[] = { 0x05, 0x00, 0x07, 0xaa, 0xbb };
static const u8 etw_tt_type0[] = { 0x03, 0x00, 0x00 };
static const u8 etw_tt_one_byte[] = { 0x03 };

/**
 * struct etw_tt_case - one traits blob
 * @name: case description
 * @provider: provider name bytes (without NUL)
 * @nul: terminate the name
 * @trait: the bytes after the name, or NULL
 * @trait_len: bytes of @trait
 * @size_delta: TraitsSize minus the real blob length
 * @ret: expected return
 * @group: expect the group GUID to be found
 */
struct etw_tt_case {
	const char *name;
	const char *provider;
	bool nul;
	const u8 *trait;
	u8 trait_len;
	int size_delta;
	int ret;
	bool group;
};

#define ETW_TT_TRAIT(t)	.trait = (t), .trait_len = sizeof(t)

static const struct etw_tt_case etw_tt_cases[] = {
	{ "name and group trait (30 bytes)", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_group_trait), 0, 0, true },
	{ "name only", "TestProv", true, NULL, 0, 0, 0, false },
	{ "empty name and group trait", "", true,
	  ETW_TT_TRAIT(etw_tt_group_trait), 0, 0, true },
	{ "name without NUL", "TestProv", false, NULL, 0, 0, -EBADMSG, false },
	{ "trait size 0", "TestProv", true, ETW_TT_TRAIT(etw_tt_size0), 0,
	  -EBADMSG, false },
	{ "trait size 2", "TestProv", true, ETW_TT_TRAIT(etw_tt_size2), 0,
	  -EBADMSG, false },
	{ "trait size 2 at the blob's end", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_size2_end), 0, -EBADMSG, false },
	{ "group trait of size 3 names no group", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_group_size3), 0, 0, false },
	{ "trait size runs past the blob", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_group_past_end), 0, -EBADMSG, false },
	{ "trait too short for its size field", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_one_byte), 0, -EBADMSG, false },
	{ "custom trait type 7 size 5", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_custom7), 0, 0, false },
	{ "trait type 0 size 3", "TestProv", true, ETW_TT_TRAIT(etw_tt_type0),
	  0, 0, false },
	{ "TraitsSize one more than the length", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_group_trait), 1, -EBADMSG, false },
	{ "TraitsSize one less than the length", "TestProv", true,
	  ETW_TT_TRAIT(etw_tt_group_trait), -1, -EBADMSG, false },
};

static void etw_tt_desc(const struct etw_tt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_tt, etw_tt_cases, etw_tt_desc);

/* Lay out a case's blob in @blob; returns its length. */
static u32 etw_tt_build(const struct etw_tt_case *c, u8 *blob)
{
	u32 len = 2, n = strlen(c->provider);

	memcpy(blob + len, c->provider, n);
	len += n;
	if (c->nul)
		blob[len++] = 0;
	if (c->trait) {
		memcpy(blob + len, c->trait, c->trait_len);
		len += c->trait_len;
	}
	put_unaligned_le16(len + c->size_delta, blob);
	return len;
}

static void etw_traits_parse_test(struct kunit *test)
{
	const struct etw_tt_case *c = test->param_value;
	u8 blob[ETW_TT_MAX_BLOB];
	static const u8 zero[16];
	struct etw_guid group;
	u32 len;

	memset(&group, 0x5a, sizeof(group));
	len = etw_tt_build(c, blob);
	KUNIT_EXPECT_EQ(test, etw_traits_parse(blob, len, &group), c->ret);
	KUNIT_EXPECT_MEMEQ(test, &group, c->group ? etw_tt_group_guid : zero,
			   sizeof(group));
}

static void etw_traits_30_bytes_test(struct kunit *test)
{
	u8 blob[ETW_TT_MAX_BLOB];

	KUNIT_EXPECT_EQ(test, etw_tt_build(&etw_tt_cases[0], blob), 30);
}

static void etw_traits_too_short_test(struct kunit *test)
{
	static const u8 two[] = { 0x02, 0x00 };
	struct etw_guid group;

	KUNIT_EXPECT_EQ(test, etw_traits_parse(two, sizeof(two), &group),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, etw_traits_parse(two, 0, &group), -EBADMSG);
}

static struct kunit_case etw_traits_cases[] = {
	KUNIT_CASE_PARAM(etw_traits_parse_test, etw_tt_gen_params),
	KUNIT_CASE(etw_traits_30_bytes_test),
	KUNIT_CASE(etw_traits_too_short_test),
	{}
};

static struct kunit_suite etw_traits_suite = {
	.name = "etw_traits",
	.test_cases = etw_traits_cases,
};
kunit_test_suite(etw_traits_suite);
