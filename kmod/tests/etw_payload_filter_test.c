// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_payload_filter.c: every operator on every field type
 * of a known payload, how predicates and blocks combine, fields that do
 * not lie within the payload, and blobs the parser refuses.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../compat.h"
#include "../etw_filter.h"
#include "../etw_payload_filter.h"

/* A block as a test describes it; pf_build() lays it out. */
struct pf_pred_d {
	u8 field;
	u8 op;
	u8 type;
	u64 v1;
	u64 v2;
	const void *val;
	u16 vlen;
};

struct pf_block_d {
	u16 id;
	u8 version;
	u8 any;
	u8 group;
	u8 nfields;
	u8 npreds;
	const struct etw_payload_field *fields;
	const struct pf_pred_d *preds;
};

static u32 pf_build(u8 *out, const struct pf_block_d *b, unsigned int n)
{
	struct etw_payload_filter *h = (void *)out;
	u32 off = sizeof(*h), start, i, j;

	for (i = 0; i < n; i++) {
		struct etw_payload_event *e = (void *)(out + off);
		struct etw_payload_predicate *p;

		start = off;
		e->id = b[i].id;
		e->version = b[i].version;
		e->match_any = b[i].any;
		e->match_all_group = b[i].group;
		e->nfields = b[i].nfields;
		e->npreds = b[i].npreds;
		off += sizeof(*e);
		memcpy(out + off, b[i].fields,
		       b[i].nfields * sizeof(*b[i].fields));
		off = start + ETW_PAYLOAD_PREDICATES_OFF(b[i].nfields);
		p = (void *)(out + off);
		off += b[i].npreds * sizeof(*p);
		for (j = 0; j < b[i].npreds; j++) {
			const struct pf_pred_d *d = &b[i].preds[j];

			p[j].field = d->field;
			p[j].op = d->op;
			p[j].type = d->type;
			p[j].value = d->v1;
			p[j].value2 = d->v2;
			if (!d->val)
				continue;
			p[j].value_off = off - start;
			p[j].value_len = d->vlen;
			memcpy(out + off, d->val, d->vlen);
			off += d->vlen;
		}
		off = ALIGN(off, 8);
		e->size = off - start;
	}
	h->size = off;
	h->count = n;
	return off;
}

/*
 * The payload: Count (u32 10), Delta (s16 -3), Name (UTF-16 "Alpha"),
 * Path (ANSI "C:\aaab\File.TXT"), Len (u16 5), Text (5 UTF-16 units
 * "HeLLo", counted by Len), Id (a GUID), Big (u64 ~0xf).
 */
static const struct etw_payload_field pf_fields[] = {
	{ ETW_PAYLOAD_FIELD_FIXED, 0, 4 },
	{ ETW_PAYLOAD_FIELD_FIXED, 0, 2 },
	{ ETW_PAYLOAD_FIELD_SZ16, 0, 0 },
	{ ETW_PAYLOAD_FIELD_SZ8, 0, 0 },
	{ ETW_PAYLOAD_FIELD_FIXED, 0, 2 },
	{ ETW_PAYLOAD_FIELD_COUNTED, 4, 2 },
	{ ETW_PAYLOAD_FIELD_FIXED, 0, 16 },
	{ ETW_PAYLOAD_FIELD_FIXED, 0, 8 },
};

enum { F_COUNT, F_DELTA, F_NAME, F_PATH, F_LEN, F_TEXT, F_ID, F_BIG };

static const u8 pf_guid[16] = {
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

static const char pf_path[] = "C:\\aaab\\File.TXT";

static u32 pf_payload(u8 *p)
{
	static const char name[] = "Alpha", text[] = "HeLLo";
	u32 off = 0, i;

	put_unaligned_le32(10, p);
	put_unaligned_le16((u16)-3, p + 4);
	off = 6;
	for (i = 0; i <= strlen(name); i++, off += 2)
		put_unaligned_le16(name[i], p + off);
	memcpy(p + off, pf_path, sizeof(pf_path));
	off += sizeof(pf_path);
	put_unaligned_le16(5, p + off);
	off += 2;
	for (i = 0; i < 5; i++, off += 2)
		put_unaligned_le16(text[i], p + off);
	memcpy(p + off, pf_guid, 16);
	off += 16;
	put_unaligned_le64(~0xfULL, p + off);
	return off + 8;
}

/* ASCII @s as UTF-16LE at @out; returns its bytes (no NUL). */
static u16 pf_utf16(u8 *out, const char *s)
{
	u16 i;

	for (i = 0; s[i]; i++)
		put_unaligned_le16(s[i], out + 2 * i);
	return 2 * i;
}

struct pf_case {
	u8 field;
	u8 op;
	u8 type;
	u64 v1;
	u64 v2;
	const char *str;	/* STR8 as it is; STR16 converted; BYTES: guid */
	bool expect;
};

#define I(f, o, v, e)	{ F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_UINT, v, 0, \
			  NULL, e }
#define S(f, o, v, e)	{ F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_INT, \
			  (u64)(v), 0, NULL, e }
#define R(f, o, a, b, e) { F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_UINT, a, b, \
			   NULL, e }
#define SR(f, o, a, b, e) { F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_INT, \
			    (u64)(a), (u64)(b), NULL, e }
#define W(f, o, s, e)	{ F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_STR16, 0, 0, \
			  s, e }
#define A(f, o, s, e)	{ F_##f, ETW_PAYLOAD_OP_##o, ETW_PAYLOAD_STR8, 0, 0, \
			  s, e }

/*
 * PAYLOAD_FILTER_PREDICATE (ns-tdh-payload_filter_predicate): integer
 * operators EQ..MODULO, BETWEEN a closed interval; string operators
 * case-insensitive; a GUID compared with IS and ISNOT only.
 */
static const struct pf_case pf_cases[] = {
	I(COUNT, EQ, 10, true), I(COUNT, EQ, 11, false),
	I(COUNT, NE, 11, true), I(COUNT, NE, 10, false),
	I(COUNT, LE, 10, true), I(COUNT, LE, 9, false),
	I(COUNT, GT, 9, true), I(COUNT, GT, 10, false),
	I(COUNT, LT, 11, true), I(COUNT, LT, 10, false),
	I(COUNT, GE, 10, true), I(COUNT, GE, 11, false),
	R(COUNT, BETWEEN, 10, 12, true), R(COUNT, BETWEEN, 8, 10, true),
	R(COUNT, BETWEEN, 11, 12, false), R(COUNT, NOTBETWEEN, 11, 12, true),
	R(COUNT, NOTBETWEEN, 1, 10, false),
	/* An empty interval: nothing is between, everything not between. */
	R(COUNT, BETWEEN, 12, 10, false), R(COUNT, NOTBETWEEN, 12, 10, true),
	I(COUNT, LT, 0, false), I(COUNT, GE, 0, true),
	I(BIG, LE, U64_MAX, true), I(BIG, GT, U64_MAX, false),
	SR(DELTA, BETWEEN, -4, -2, true), SR(DELTA, BETWEEN, -2, 4, false),
	SR(DELTA, NOTBETWEEN, -2, 4, true), SR(DELTA, BETWEEN, 2, -4, false),
	S(DELTA, LE, -3, true), S(DELTA, GE, S64_MIN, true),
	S(BIG, LT, S64_MIN, false), S(BIG, GT, S64_MAX, false),
	/* Operands the field cannot hold. */
	I(DELTA, LT, 0x10000, true), I(DELTA, EQ, 0x1fffd, false),
	S(DELTA, GT, -40000, true), S(DELTA, LT, 40000, true),
	SR(DELTA, BETWEEN, -40000, -3, true),
	I(COUNT, MODULO, 5, true), I(COUNT, MODULO, 3, false),
	S(DELTA, LT, 0, true), S(DELTA, GT, -4, true), S(DELTA, LT, -3, false),
	S(DELTA, EQ, -3, true), S(DELTA, MODULO, -3, true),
	S(DELTA, MODULO, 2, false),
	I(DELTA, GT, 65532, true),	/* unsigned: 0xfffd */
	I(BIG, GT, 0x7fffffffffffffffULL, true),
	S(BIG, LT, 0, true), S(BIG, EQ, -16, true),
	W(NAME, IS, "alpha", true), W(NAME, IS, "Alph", false),
	W(NAME, IS, "Alphas", false), W(NAME, ISNOT, "ALPHA", false),
	W(NAME, ISNOT, "Beta", true), W(NAME, CONTAINS, "LPH", true),
	W(NAME, CONTAINS, "xyz", false), W(NAME, DOESNTCONTAIN, "xyz", true),
	W(NAME, DOESNTCONTAIN, "pha", false), W(NAME, CONTAINS, "", true),
	A(PATH, CONTAINS, "AAB\\file", true),
	A(PATH, CONTAINS, "aab", true),		/* after a partial match */
	A(PATH, CONTAINS, "aaab\\f", true), A(PATH, CONTAINS, "abab", false),
	A(PATH, IS, "c:\\aaab\\file.txt", true),
	A(PATH, CONTAINS, "file.txtx", false),
	W(TEXT, IS, "hello", true), W(TEXT, CONTAINS, "LLO", true),
	W(TEXT, IS, "hell", false),
	{ F_ID, ETW_PAYLOAD_OP_IS, ETW_PAYLOAD_BYTES, 0, 0, "guid", true },
	{ F_ID, ETW_PAYLOAD_OP_ISNOT, ETW_PAYLOAD_BYTES, 0, 0, "guid", false },
};

static void pf_case_desc(const struct pf_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "field %u op %u %lld,%lld %s",
		 c->field, c->op, (s64)c->v1, (s64)c->v2, c->str ?: "");
}

KUNIT_ARRAY_PARAM(pf, pf_cases, pf_case_desc);

/* A one-predicate filter for event 7 version 1, parsed. */
static struct etw_payload_set *pf_one(struct kunit *test,
				      const struct pf_pred_d *p, u8 nfields)
{
	struct pf_block_d b = {
		.id = 7, .version = 1, .nfields = nfields, .npreds = 1,
		.fields = pf_fields, .preds = p,
	};
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	len = pf_build(blob, &b, 1);
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(set));
	return set;
}

static void pf_pred_of(const struct pf_case *c, struct pf_pred_d *p, u8 *val)
{
	memset(p, 0, sizeof(*p));
	p->field = c->field;
	p->op = c->op;
	p->type = c->type;
	p->v1 = c->v1;
	p->v2 = c->v2;
	if (c->type == ETW_PAYLOAD_STR16) {
		p->val = val;
		p->vlen = pf_utf16(val, c->str);
	} else if (c->type == ETW_PAYLOAD_STR8) {
		p->val = c->str;
		p->vlen = strlen(c->str);
	} else if (c->type == ETW_PAYLOAD_BYTES) {
		p->val = pf_guid;
		p->vlen = sizeof(pf_guid);
	}
}

static void etw_payload_predicate_test(struct kunit *test)
{
	const struct pf_case *c = test->param_value;
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	u8 val[64];
	struct pf_pred_d p;
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	len = pf_payload(pl);
	pf_pred_of(c, &p, val);
	set = pf_one(test, &p, ARRAY_SIZE(pf_fields));
	KUNIT_EXPECT_EQ(test, etw_payload_filter_match(set, 7, 1, pl, len),
			c->expect);
	etw_payload_filter_free(set);
}

/*
 * The integer cases on Count and Delta again, with those two fields only:
 * a block of FIXED fields and integer predicates, decided without
 * stepping over fields (quick, by intervals, but for MODULO), must answer
 * the same.
 */
static void etw_payload_fixed_int_test(struct kunit *test)
{
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	struct pf_pred_d p;
	unsigned int i, n = 0;
	u8 val[64];
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	len = pf_payload(pl);
	for (i = 0; i < ARRAY_SIZE(pf_cases); i++) {
		const struct pf_case *c = &pf_cases[i];

		if (c->field > F_DELTA)
			continue;
		pf_pred_of(c, &p, val);
		set = pf_one(test, &p, F_DELTA + 1);
		/* Decided by its interval, inline: all but MODULO. */
		KUNIT_EXPECT_EQ_MSG(test, set->quick,
				    c->op != ETW_PAYLOAD_OP_MODULO, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    etw_payload_filter_match(set, 7, 1, pl, len),
				    c->expect, "case %u", i);
		/* Other events pass, whatever the predicate. */
		KUNIT_EXPECT_TRUE(test,
				  etw_payload_filter_match(set, 7, 2, pl, len));
		etw_payload_filter_free(set);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 41u);
}

/* A field that does not lie within the payload: its predicates are false. */
static void etw_payload_short_payload_test(struct kunit *test)
{
	static const struct pf_pred_d ne = {
		F_BIG, ETW_PAYLOAD_OP_NE, ETW_PAYLOAD_UINT, 1,
	};
	static const struct pf_pred_d count = {
		F_COUNT, ETW_PAYLOAD_OP_EQ, ETW_PAYLOAD_UINT, 10,
	};
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	len = pf_payload(pl);
	set = pf_one(test, &ne, ARRAY_SIZE(pf_fields));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, len));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl,
							  len - 1));
	/* Name's NUL cut off: Name and every field after it are missing. */
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, 16));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, 0));
	etw_payload_filter_free(set);
	set = pf_one(test, &count, ARRAY_SIZE(pf_fields));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, 4));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, 3));
	etw_payload_filter_free(set);
}

/*
 * The bytes a filter reads: with FIXED fields only, where the last ends,
 * and a payload cut there answers as the whole; with a string field, all.
 */
static void etw_payload_extent_test(struct kunit *test)
{
	static const struct pf_pred_d delta = {
		F_DELTA, ETW_PAYLOAD_OP_EQ, ETW_PAYLOAD_INT, (u64)-3,
	};
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, pl);
	len = pf_payload(pl);
	set = pf_one(test, &delta, F_DELTA + 1);
	KUNIT_EXPECT_EQ(test, etw_payload_filter_extent(set), 6u);
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, len));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, 6));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, 5));
	etw_payload_filter_free(set);
	set = pf_one(test, &delta, F_NAME + 1);
	KUNIT_EXPECT_EQ(test, etw_payload_filter_extent(set), U32_MAX);
	etw_payload_filter_free(set);
}

/* A count that reaches past the payload's end leaves the field out. */
static void etw_payload_counted_past_end_test(struct kunit *test)
{
	static const struct pf_pred_d text = {
		F_TEXT, ETW_PAYLOAD_OP_ISNOT, ETW_PAYLOAD_STR16, 0, 0, "", 0,
	};
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len, off_len = 6 + 12 + sizeof(pf_path);

	KUNIT_ASSERT_NOT_NULL(test, pl);
	len = pf_payload(pl);
	set = pf_one(test, &text, F_TEXT + 1);
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, len));
	put_unaligned_le16(0xffff, pl + off_len);
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, len));
	etw_payload_filter_free(set);
}

static const struct pf_pred_d pf_true = {
	F_COUNT, ETW_PAYLOAD_OP_EQ, ETW_PAYLOAD_UINT, 10,
};

static const struct pf_pred_d pf_false = {
	F_COUNT, ETW_PAYLOAD_OP_EQ, ETW_PAYLOAD_UINT, 11,
};

/*
 * TdhCreatePayloadFilter's EventMatchANY: any predicate, or all of them.
 * Events other than the block's id and version pass.
 */
static void etw_payload_match_any_all_test(struct kunit *test)
{
	struct pf_pred_d two[2] = { pf_true, pf_false };
	struct pf_block_d b = {
		.id = 7, .version = 1, .nfields = 1, .npreds = 2,
		.fields = pf_fields, .preds = two,
	};
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len, plen;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	KUNIT_ASSERT_NOT_NULL(test, pl);
	plen = pf_payload(pl);
	len = pf_build(blob, &b, 1);
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(set));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 7, 1, pl, plen));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 8, 1, pl, plen));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 0, pl, plen));
	etw_payload_filter_free(set);
	b.any = 1;
	len = pf_build(blob, &b, 1);
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(set));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 7, 1, pl, plen));
	etw_payload_filter_free(set);
}

/*
 * TdhAggregatePayloadFilters' EventMatchALLFlags: every flagged block of
 * the event must pass, and one of the others if there are any.
 */
static void etw_payload_groups_test(struct kunit *test)
{
	static const struct {
		bool group[3];
		bool pass[3];
		u8 n;
		bool expect;
	} cases[] = {
		{ { 1, 1 }, { 1, 1 }, 2, true },
		{ { 1, 1 }, { 1, 0 }, 2, false },
		{ { 0, 0 }, { 0, 1 }, 2, true },
		{ { 0, 0 }, { 0, 0 }, 2, false },
		{ { 1, 0 }, { 1, 0 }, 2, false },
		{ { 1, 0, 0 }, { 1, 0, 1 }, 3, true },
		{ { 1, 0 }, { 0, 1 }, 2, false },
		{ { 1 }, { 1 }, 1, true },
	};
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	u8 *pl = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct etw_payload_set *set;
	struct pf_block_d b[3];
	unsigned int i, j;
	u32 len, plen;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	KUNIT_ASSERT_NOT_NULL(test, pl);
	plen = pf_payload(pl);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (j = 0; j < cases[i].n; j++) {
			b[j] = (struct pf_block_d){
				.id = 7, .version = 1, .nfields = 1,
				.npreds = 1, .group = cases[i].group[j],
				.fields = pf_fields, .preds = &pf_false,
			};
			if (cases[i].pass[j])
				b[j].preds = &pf_true;
		}
		len = pf_build(blob, b, cases[i].n);
		set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(set));
		KUNIT_EXPECT_EQ_MSG(test,
				    etw_payload_filter_match(set, 7, 1, pl,
							     plen),
				    cases[i].expect, "case %u", i);
		etw_payload_filter_free(set);
	}
}

/* The blob's layout, as etw_payload_filter_parse() refuses it. */
struct pf_bad {
	const char *what;
	u32 off;	/* where to write @val, from the blob's start */
	u8 width;	/* 1, 2 or 4 bytes; 0: cut the blob to @val bytes */
	u32 val;
};

/* Offsets in pf_valid()'s blob: the header, then one block. */
#define PF_EV		sizeof(struct etw_payload_filter)
#define PF_FIELD(i)	(PF_EV + sizeof(struct etw_payload_event) + 4 * (i))
#define PF_PRED(i)	(PF_EV + ETW_PAYLOAD_PREDICATES_OFF(3) + \
			 sizeof(struct etw_payload_predicate) * (i))

static const struct pf_bad pf_bads[] = {
	{ "header size", 0, 4, 1000 },
	{ "no block", 4, 2, 0 },
	{ "header reserved", 6, 2, 1 },
	{ "block size odd", PF_EV, 4, 68 },
	{ "block size past end", PF_EV, 4, 4096 },
	{ "no field", PF_EV + 9, 1, 0 },
	{ "65 fields", PF_EV + 9, 1, 65 },
	{ "no predicate", PF_EV + 10, 1, 0 },
	{ "9 predicates", PF_EV + 10, 1, 9 },
	{ "match_any 2", PF_EV + 7, 1, 2 },
	{ "group 2", PF_EV + 8, 1, 2 },
	{ "block reserved", PF_EV + 11, 1, 1 },
	{ "unknown kind", PF_FIELD(0), 1, 4 },
	{ "fixed of 0 bytes", PF_FIELD(0) + 2, 2, 0 },
	{ "fixed with ref", PF_FIELD(0) + 1, 1, 1 },
	{ "sz with size", PF_FIELD(1) + 2, 2, 1 },
	{ "counted by itself", PF_FIELD(2) + 1, 1, 2 },
	{ "counted by a string", PF_FIELD(2) + 1, 1, 1 },
	{ "counted unit 0", PF_FIELD(2) + 2, 2, 0 },
	{ "counted by 8 bytes", PF_FIELD(0) + 2, 2, 8 },
	{ "predicate field", PF_PRED(0), 1, 3 },
	{ "unknown op", PF_PRED(0) + 1, 1, 9 },
	{ "string op on an integer", PF_PRED(0) + 1, 1, 20 },
	{ "unknown type", PF_PRED(0) + 2, 1, 5 },
	{ "predicate reserved", PF_PRED(0) + 3, 1, 1 },
	{ "integer with operand bytes", PF_PRED(0) + 6, 2, 2 },
	{ "integer op on a string", PF_PRED(1) + 1, 1, 0 },
	{ "operand in the predicates", PF_PRED(1) + 4, 2, 20 },
	{ "operand past the block", PF_PRED(1) + 6, 2, 200 },
	{ "odd UTF-16 operand", PF_PRED(2) + 6, 2, 3 },
	{ "STR16 on an ANSI field", PF_PRED(1) + 2, 1, 3 },
	{ "blob cut", 0, 0, 16 },
};

/*
 * A valid blob: fields u8 Count, SZ8 Path, COUNTED(Count, 2); predicates
 * Count EQ 1, Path CONTAINS "ab", the counted text IS "xy" (UTF-16).
 */
static u32 pf_valid(u8 *blob)
{
	static const struct etw_payload_field f[] = {
		{ ETW_PAYLOAD_FIELD_FIXED, 0, 1 },
		{ ETW_PAYLOAD_FIELD_SZ8, 0, 0 },
		{ ETW_PAYLOAD_FIELD_COUNTED, 0, 2 },
	};
	static const struct pf_pred_d p[] = {
		{ 0, ETW_PAYLOAD_OP_EQ, ETW_PAYLOAD_UINT, 1 },
		{ 1, ETW_PAYLOAD_OP_CONTAINS, ETW_PAYLOAD_STR8, 0, 0, "ab", 2 },
		{ 2, ETW_PAYLOAD_OP_IS, ETW_PAYLOAD_STR16, 0, 0, "x\0y\0", 4 },
	};
	struct pf_block_d b = {
		.id = 1, .nfields = 3, .npreds = 3, .fields = f, .preds = p,
	};

	return pf_build(blob, &b, 1);
}

static void pf_bad_desc(const struct pf_bad *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pf_bad, pf_bads, pf_bad_desc);

static void etw_payload_parse_valid_test(struct kunit *test)
{
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	u8 pl[] = { 2, 'x', 'a', 'b', 0, 'X', 0, 'Y', 0 };
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	len = pf_valid(blob);
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(set));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 1, 0, pl,
							  sizeof(pl)));
	pl[0] = 1;	/* Count 1: the text is one unit, "X" */
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_match(set, 1, 0, pl,
							  sizeof(pl) - 2));
	etw_payload_filter_free(set);
	((struct etw_payload_predicate *)(blob + PF_PRED(0)))->value = 2;
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(set));
	pl[0] = 2;
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_match(set, 1, 0, pl,
							 sizeof(pl)));
	etw_payload_filter_free(set);
	/* MODULO needs a divisor. */
	((struct etw_payload_predicate *)(blob + PF_PRED(0)))->op =
		ETW_PAYLOAD_OP_MODULO;
	((struct etw_payload_predicate *)(blob + PF_PRED(0)))->value = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(etw_payload_filter_parse(blob, len,
							       GFP_KERNEL)),
			-EINVAL);
}

static void etw_payload_parse_bad_test(struct kunit *test)
{
	const struct pf_bad *c = test->param_value;
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	struct etw_payload_set *set;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	len = pf_valid(blob);
	if (!c->width)
		len = c->val;
	else if (c->width == 1)
		blob[c->off] = c->val;
	else if (c->width == 2)
		put_unaligned((u16)c->val, (u16 *)(blob + c->off));
	else
		put_unaligned(c->val, (u32 *)(blob + c->off));
	set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(set), -EINVAL);
	if (!IS_ERR(set))
		etw_payload_filter_free(set);
}

static void etw_payload_parse_size_test(struct kunit *test)
{
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER + 8, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, blob);
	pf_valid(blob);
	put_unaligned((u32)ETW_MAX_PAYLOAD_FILTER + 8, (u32 *)blob);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(etw_payload_filter_parse(blob,
							 ETW_MAX_PAYLOAD_FILTER + 8,
							 GFP_KERNEL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(etw_payload_filter_parse(blob, 4,
							       GFP_KERNEL)),
			-EINVAL);
}

/*
 * Random blobs: refused or parsed, never read out of bounds (KASAN), and
 * cut at their extent, a payload gives the same answer.
 */
static void etw_payload_parse_random_test(struct kunit *test)
{
	u8 *blob = kunit_kzalloc(test, 256, GFP_KERNEL);
	u8 pl[64] = { 3, 'a', 0 };
	struct etw_payload_set *set;
	u32 len, cut, i, seed = 1;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	for (i = 0; i < 2000; i++) {
		u32 j;

		len = pf_valid(blob);
		for (j = 0; j < 4; j++) {
			seed = seed * 1103515245 + 12345;
			blob[(seed >> 8) % len] = seed >> 24;
		}
		set = etw_payload_filter_parse(blob, len, GFP_KERNEL);
		if (IS_ERR(set)) {
			KUNIT_EXPECT_EQ(test, PTR_ERR(set), -EINVAL);
			continue;
		}
		len = seed % sizeof(pl);
		cut = min(len, etw_payload_filter_extent(set));
		/* A payload cut at the extent answers as the whole does. */
		KUNIT_EXPECT_EQ(test,
				etw_payload_filter_match(set, 1, 0, pl, len),
				etw_payload_filter_match(set, 1, 0, pl, cut));
		etw_payload_filter_free(set);
	}
}

static void etw_payload_same_test(struct kunit *test)
{
	u8 *blob = kunit_kzalloc(test, ETW_MAX_PAYLOAD_FILTER, GFP_KERNEL);
	struct etw_payload_set *a, *b, *c;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, blob);
	len = pf_valid(blob);
	a = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	b = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	blob[len - 8] ^= 1;	/* a byte of an operand */
	c = etw_payload_filter_parse(blob, len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b) || IS_ERR(c));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_same(a, b));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_same(a, c));
	KUNIT_EXPECT_FALSE(test, etw_payload_filter_same(a, NULL));
	KUNIT_EXPECT_TRUE(test, etw_payload_filter_same(NULL, NULL));
	etw_payload_filter_free(a);
	etw_payload_filter_free(b);
	etw_payload_filter_free(c);
}

static struct kunit_case etw_payload_filter_cases[] = {
	KUNIT_CASE_PARAM(etw_payload_predicate_test, pf_gen_params),
	KUNIT_CASE(etw_payload_fixed_int_test),
	KUNIT_CASE(etw_payload_short_payload_test),
	KUNIT_CASE(etw_payload_extent_test),
	KUNIT_CASE(etw_payload_counted_past_end_test),
	KUNIT_CASE(etw_payload_match_any_all_test),
	KUNIT_CASE(etw_payload_groups_test),
	KUNIT_CASE(etw_payload_parse_valid_test),
	KUNIT_CASE_PARAM(etw_payload_parse_bad_test, pf_bad_gen_params),
	KUNIT_CASE(etw_payload_parse_size_test),
	KUNIT_CASE(etw_payload_parse_random_test),
	KUNIT_CASE(etw_payload_same_test),
	{}
};

static struct kunit_suite etw_payload_filter_suite = {
	.name = "etw_payload_filter",
	.test_cases = etw_payload_filter_cases,
};

kunit_test_suite(etw_payload_filter_suite);
