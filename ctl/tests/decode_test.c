// SPDX-License-Identifier: GPL-2.0
/*
 * The TraceLogging decoder: the five events Windows wrote to
 * primitive-types.etl, and hand-built metadata for the types those events
 * do not use.  The expected values of the file's events were decoded from
 * its bytes by a throwaway script following TraceLoggingProvider.h's
 * encoding, not by this decoder (note that the file's "int64_type" field
 * is declared UINT64 in its own metadata).
 */
#include <errno.h>
#include <string.h>

#include "ctl_test.h"
#include "kselftest_harness.h"

#define MAX_FIELDS	16

struct collected {
	int n;
	char name[MAX_FIELDS][64];
	char value[MAX_FIELDS][128];
	size_t name_len[MAX_FIELDS];
	size_t value_len[MAX_FIELDS];
	bool quoted[MAX_FIELDS];
	bool plain[MAX_FIELDS];
};

static void collect(void *ctx, const struct etwctl_field_text *f)
{
	struct collected *c = ctx;

	if (c->n == MAX_FIELDS)
		return;
	snprintf(c->name[c->n], sizeof(c->name[0]), "%s", f->name);
	snprintf(c->value[c->n], sizeof(c->value[0]), "%s", f->value);
	c->name_len[c->n] = f->name_len;
	c->value_len[c->n] = f->value_len;
	c->plain[c->n] = f->plain;
	c->quoted[c->n++] = f->quoted;
}

static const char *const primitive_names[] = {
	"string_type", "boolean_type", "char_type", "int16_type",
	"int32_type", "uint16_type", "uint32_type", "int64_type",
	"uint64_type", "guid_type", "file_time_type", "system_time_type",
};

/* Per event: the values in field order; strings are quoted. */
static const char *const primitive_values[5][12] = {
	{ "Mercury", "false", "M", "-51", "-102", "51", "102",
	  "18446744073709551412", "204", "0ad614c4-0ef4-4225-8013-f44f37cb0397",
	  "2021-09-09T14:59:35.7990000Z", "2021-09-09T14:59:35.799" },
	{ "Venus", "true", "V", "-95", "-190", "95", "190",
	  "18446744073709551236", "380", "e04ff801-9ea3-494f-a10e-8ef833e9099f",
	  "2021-09-09T14:59:36.2390000Z", "2021-09-09T14:59:36.239" },
	{ "Earth", "false", "E", "-65", "-130", "65", "130",
	  "18446744073709551356", "260", "c7a6c80e-f2a6-4220-ab98-d7c21a58f9fb",
	  "2021-09-09T14:59:36.6710000Z", "2021-09-09T14:59:36.671" },
	{ "Mars", "false", "M", "-29", "-58", "29", "58",
	  "18446744073709551500", "116", "0a922cee-67c1-4108-b39d-b132e47033c4",
	  "2021-09-09T14:59:37.0480000Z", "2021-09-09T14:59:37.048" },
	{ "Jupiter", "true", "J", "-69", "-138", "69", "138",
	  "18446744073709551340", "276", "bb11b97b-1110-4eb6-bc33-fd71219d322e",
	  "2021-09-09T14:59:37.4840000Z", "2021-09-09T14:59:37.484" },
};

/* Strings, chars, GUIDs and times are quoted; numbers and bools not. */
static const bool primitive_quoted[12] = {
	true, false, true, false, false, false, false, false, false, true,
	true, true,
};

static const struct etw_etl_ext *find_ext(const struct etw_etl_event *ev,
					  uint16_t type)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == type)
			return &ev->ext[i];
	return NULL;
}

TEST(primitive_fields)
{
	const struct etw_etl_ext *schema, *traits;
	struct etw_etl_records it;
	struct etw_etl_reader *r;
	struct etw_etl_event ev;
	struct collected c;
	uint8_t buf[8192];
	char name[64];
	int n = 0, i;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	ASSERT_EQ(0, etw_etl_reader_buffer(r, 1, buf));
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, sizeof(buf), NULL));
	while (etw_etl_records_next(&it, &ev) == 1) {
		ASSERT_LT(n, 5);
		schema = find_ext(&ev, ETW_EXT_EVENT_SCHEMA_TL);
		traits = find_ext(&ev, ETW_EXT_PROV_TRAITS);
		ASSERT_NE(NULL, schema);
		ASSERT_NE(NULL, traits);
		ASSERT_EQ(0, etwctl_tl_event_name(schema->data, schema->size,
						  name, sizeof(name)));
		EXPECT_STREQ("PrimitiveTypesTest", name);
		ASSERT_EQ(0, etwctl_traits_name(traits->data, traits->size,
						name, sizeof(name)));
		EXPECT_STREQ("solar_system", name);
		memset(&c, 0, sizeof(c));
		ASSERT_EQ(0, etwctl_tl_decode(schema->data, schema->size,
					      ev.user_data, ev.user_data_len,
					      collect, &c));
		ASSERT_EQ(12, c.n);
		for (i = 0; i < 12; i++) {
			EXPECT_STREQ(primitive_names[i], c.name[i]);
			EXPECT_STREQ(primitive_values[n][i], c.value[i])
				TH_LOG("event %d field %s", n, c.name[i]);
			EXPECT_EQ(primitive_quoted[i], c.quoted[i])
				TH_LOG("field %s", c.name[i]);
		}
		n++;
	}
	EXPECT_EQ(5, n);
	etw_etl_reader_close(r);
}

/* Metadata: UINT16 size, one tag byte 0, event name "E", then @fields. */
static size_t make_meta(uint8_t *out, const void *fields, size_t len)
{
	uint16_t size = (uint16_t)(2 + 1 + 2 + len);

	memcpy(out, &size, 2);
	memcpy(out + 2, "\0E", 3);
	memcpy(out + 5, fields, len);
	return size;
}

/* Decode @fields over @data; returns the decoder's result. */
static int decode(const void *fields, size_t flen, const void *data,
		  size_t dlen, struct collected *c)
{
	uint8_t meta[256];
	size_t mlen = make_meta(meta, fields, flen);

	memset(c, 0, sizeof(*c));
	return etwctl_tl_decode(meta, mlen, data, dlen, collect, c);
}

#define DECODE(f, d, c)	decode(f, sizeof(f) - 1, d, sizeof(d) - 1, c)

TEST(variable_count_array)
{
	static const char f[] = "a\0\x46";
	static const char d[] = "\x03\x00\x01\x00\x02\x00\x03\x00";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("a", c.name[0]);
	EXPECT_STREQ("[1,2,3]", c.value[0]);
	EXPECT_FALSE(c.quoted[0]);
}

TEST(constant_count_array)
{
	static const char f[] = "a\0\x24\x02\x00";
	static const char d[] = "\x07\x08";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("[7,8]", c.value[0]);
}

TEST(string_array)
{
	static const char f[] = "a\0\x42";
	static const char d[] = "\x02\x00" "ab\0c\"\0";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("[\"ab\",\"c\\\"\"]", c.value[0]);
}

/* Arrays are JSON text: bytes that are not UTF-8 become U+FFFD. */
TEST(string_array_not_utf8)
{
	static const char f[] = "a\0\x42";
	static const char d[] = "\x01\x00" "\xffok\xc3\xa9\0";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("[\"\\ufffdok\xc3\xa9\"]", c.value[0]);
}

static const struct {
	const char *bytes;
	int len;
} utf8_cases[] = {
	{ "a", 1 }, { "\xc3\xa9", 2 }, { "\xe2\x82\xac", 3 },
	{ "\xf0\x9f\x98\x80", 4 }, { "\xff", 0 }, { "\x80", 0 },
	{ "\xc3", 0 }, { "\xc0\x80", 0 }, { "\xed\xa0\x80", 0 },
	{ "\xf4\x90\x80\x80", 0 }, { "\xe2\x82", 0 },
};

TEST(utf8_table)
{
	size_t i;

	for (i = 0; i < sizeof(utf8_cases) / sizeof(utf8_cases[0]); i++) {
		const unsigned char *p =
			(const unsigned char *)utf8_cases[i].bytes;

		EXPECT_EQ(utf8_cases[i].len, etwctl_utf8_len(p))
			TH_LOG("case %zu", i);
	}
}

TEST(struct_members)
{
	/* s: struct of 2 (x int32, y ansi string); then z uint8. */
	static const char f[] = "s\0\x98\x02x\0\x07y\0\x02z\0\x04";
	static const char d[] = "\xff\xff\xff\xffhi\0\x09";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(3, c.n);
	EXPECT_STREQ("s.x", c.name[0]);
	EXPECT_STREQ("-1", c.value[0]);
	EXPECT_STREQ("s.y", c.name[1]);
	EXPECT_STREQ("hi", c.value[1]);
	EXPECT_TRUE(c.quoted[1]);
	EXPECT_STREQ("z", c.name[2]);
	EXPECT_STREQ("9", c.value[2]);
}

TEST(struct_array)
{
	static const char f[] = "p\0\xd8\x01v\0\x04w\0\x04";
	static const char d[] = "\x02\x00\x05\x06\x07";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(3, c.n);
	EXPECT_STREQ("p[0].v", c.name[0]);
	EXPECT_STREQ("5", c.value[0]);
	EXPECT_STREQ("p[1].v", c.name[1]);
	EXPECT_STREQ("6", c.value[1]);
	EXPECT_STREQ("w", c.name[2]);
	EXPECT_STREQ("7", c.value[2]);
}

/*
 * Schemas of the same shape and size, told apart only by a field's name,
 * more of them than etwctl keeps: each decodes with its own name, first
 * and again after the others (from the kept names or converted anew).
 */
TEST(schemas_keep_their_names)
{
	static const char d[] = "\x2a";
	struct collected c;
	char f[8], want[8];
	int round, i;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < 200; i++) {
			/* "fNNN", NUL, UINT8. */
			snprintf(f, sizeof(f), "f%03d", i);
			f[5] = 0x04;
			snprintf(want, sizeof(want), "f%03d", i);
			ASSERT_EQ(0, decode(f, 6, d, 1, &c));
			ASSERT_EQ(1, c.n);
			EXPECT_STREQ(want, c.name[0]) TH_LOG("round %d", round);
			EXPECT_STREQ("42", c.value[0]);
		}
	}
}

/*
 * 65535 structs of one array of 65535 values of no bytes: the first
 * element stands for all (walking them all would take billions of steps).
 */
TEST(nested_empty_arrays_stop_at_first_element)
{
	static const char f[] = "a\0\xb8\x01\xff\xff" "b\0\x20\xff\xff";
	static const char d[] = "";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("a[0].b", c.name[0]);
	EXPECT_EQ(6, c.name_len[0]);
}

/*
 * An event name of 5,000 characters: metadata too large for libetw's
 * schema cache, whose schema is then copied and converted for each
 * event; the fields are the same.
 */
TEST(schema_too_large_to_cache)
{
	static const char f[] = "a\0\x07" "b\0\x02";
	static const char d[] = "\x01\0\0\0" "x";
	const size_t name = 5000;
	uint16_t size = (uint16_t)(2 + 1 + name + 1 + sizeof(f) - 1);
	uint8_t *meta = calloc(1, size);
	struct collected c;
	int round;

	ASSERT_NE(NULL, meta);
	memcpy(meta, &size, 2);
	memset(meta + 3, 'E', name);
	memcpy(meta + 3 + name + 1, f, sizeof(f) - 1);
	for (round = 0; round < 2; round++) {
		memset(&c, 0, sizeof(c));
		ASSERT_EQ(0, etwctl_tl_decode(meta, size, d, sizeof(d),
					      collect, &c));
		ASSERT_EQ(2, c.n);
		EXPECT_STREQ("a", c.name[0]);
		EXPECT_STREQ("1", c.value[0]);
		EXPECT_STREQ("b", c.name[1]);
		EXPECT_STREQ("x", c.value[1]);
		EXPECT_TRUE(c.quoted[1]);
	}
	free(meta);
}

TEST(empty_struct_array)
{
	static const char f[] = "p\0\xd8\x01v\0\x04w\0\x04";
	static const char d[] = "\x00\x00\x07";
	struct collected c;

	ASSERT_EQ(0, DECODE(f, d, &c));
	ASSERT_EQ(1, c.n);
	EXPECT_STREQ("w", c.name[0]);
	EXPECT_STREQ("7", c.value[0]);
}

static const struct {
	const char *what;
	const char *fields;
	size_t flen;
	const char *data;
	size_t dlen;
	const char *value;
	bool quoted;
} scalar_cases[] = {
#define S(w, f, d, v, q) { w, f, sizeof(f) - 1, d, sizeof(d) - 1, v, q }
	S("unicode", "u\0\x01", "h\0i\0\0\0", "hi", true),
	S("unicode surrogate pair", "u\0\x01", "\x3d\xd8\x00\xde\0\0",
	  "\xf0\x9f\x98\x80", true),
	/* Unpaired surrogates, before a unit and before the NUL: U+FFFD. */
	S("unicode high surrogate alone", "u\0\x01", "\x3d\xd8h\0\0\0",
	  "\xef\xbf\xbdh", true),
	S("unicode low surrogate alone", "u\0\x01", "\x00\xdeh\0\0\0",
	  "\xef\xbf\xbdh", true),
	S("unicode high surrogate last", "u\0\x01", "h\0\x3d\xd8\0\0",
	  "h\xef\xbf\xbd", true),
	S("counted unicode", "u\0\x16", "\x04\x00h\0i\0", "hi", true),
	/* Runs of four ASCII units, broken by a letter past 0x7f, a NUL. */
	S("unicode runs", "u\0\x01",
	  "a\0b\0c\0d\0e\0\xe9\0f\0g\0h\0i\0j\0\0\0",
	  "abcde\xc3\xa9" "fghij", true),
	S("counted unicode, a NUL in a run", "u\0\x16",
	  "\x0a\x00" "a\0b\0\0\0c\0d\0", "ab", true),
	S("counted ansi", "u\0\x17", "\x02\x00hi", "hi", true),
	S("binary", "b\0\x0e", "\x02\x00\xde\xad", "0xDEAD", true),
	S("counted binary", "b\0\x19", "\x01\x00\x7f", "0x7F", true),
	S("int8", "i\0\x03", "\x80", "-128", false),
	S("uint8", "i\0\x04", "\xff", "255", false),
	S("uint8 as hex", "i\0\x84\x04", "\x2a", "0x2A", true),
	S("uint8 as boolean", "i\0\x84\x03", "\x02", "true", false),
	S("int16", "i\0\x05", "\x00\x80", "-32768", false),
	S("uint16 as port", "i\0\x86\x07", "\x1f\x90", "8080", false),
	S("uint32 as ipv4", "i\0\x88\x08", "\x7f\x00\x00\x01", "127.0.0.1",
	  true),
	S("int64", "i\0\x09", "\xfe\xff\xff\xff\xff\xff\xff\xff", "-2", false),
	S("float", "f\0\x0b", "\x00\x00\xc0\x3f", "1.5", false),
	S("double", "f\0\x0c", "\x00\x00\x00\x00\x00\x00\xd0\x3f", "0.25",
	  false),
	S("bool32", "b\0\x0d", "\x01\x00\x00\x00", "true", false),
	S("hexint32", "h\0\x14", "\x1f\x00\x00\x00", "0x1F", true),
	S("hexint64", "h\0\x15", "\x00\x00\x00\x00\x01\x00\x00\x00",
	  "0x100000000", true),
	S("filetime epoch", "t\0\x11", "\x00\x80\x3e\xd5\xde\xb1\x9d\x01",
	  "1970-01-01T00:00:00.0000000Z", true),
	S("sid", "s\0\x13",
	  "\x01\x02\x00\x00\x00\x00\x00\x05\x20\x00\x00\x00\x20\x02\x00\x00",
	  "S-1-5-32-544", true),
	S("tags after out type", "t\0\x88\x80\x81\x02",
	  "\x05\x00\x00\x00", "5", false),
#undef S
};

/*
 * The cases whose strings the decoder calls plain (hex, addresses): JSON
 * writes them as they are.  Others, plain or not, are scanned.
 */
static const char *const plain_cases[] = {
	"binary", "counted binary", "uint8 as hex", "uint32 as ipv4",
	"hexint32", "hexint64",
};

static bool is_plain_case(const char *what)
{
	size_t i;

	for (i = 0; i < sizeof(plain_cases) / sizeof(plain_cases[0]); i++)
		if (!strcmp(plain_cases[i], what))
			return true;
	return false;
}

TEST(scalar_table)
{
	struct collected c;
	size_t i;

	for (i = 0; i < sizeof(scalar_cases) / sizeof(scalar_cases[0]); i++) {
		ASSERT_EQ(0, decode(scalar_cases[i].fields,
				    scalar_cases[i].flen, scalar_cases[i].data,
				    scalar_cases[i].dlen, &c))
			TH_LOG("%s", scalar_cases[i].what);
		ASSERT_EQ(1, c.n) TH_LOG("%s", scalar_cases[i].what);
		EXPECT_STREQ(scalar_cases[i].value, c.value[0])
			TH_LOG("%s", scalar_cases[i].what);
		EXPECT_EQ(strlen(scalar_cases[i].value), c.value_len[0])
			TH_LOG("%s", scalar_cases[i].what);
		EXPECT_EQ(1, c.name_len[0]) TH_LOG("%s", scalar_cases[i].what);
		EXPECT_EQ(scalar_cases[i].quoted, c.quoted[0])
			TH_LOG("%s", scalar_cases[i].what);
		EXPECT_EQ(is_plain_case(scalar_cases[i].what), c.plain[0])
			TH_LOG("%s", scalar_cases[i].what);
	}
}

static const struct {
	const char *what;
	const char *fields;
	size_t flen;
	const char *data;
	size_t dlen;
	int ret;
} bad_cases[] = {
#define B(w, f, d, r) { w, f, sizeof(f) - 1, d, sizeof(d) - 1, r }
	B("short int32", "i\0\x07", "\x01\x02", -EBADMSG),
	B("unterminated ansi", "s\0\x02", "abc", -EBADMSG),
	B("unterminated unicode", "s\0\x01", "a\0b\0", -EBADMSG),
	B("counted past the end", "s\0\x17", "\x05\x00" "ab", -EBADMSG),
	B("array count past the end", "a\0\x44", "\x03\x00\x01", -EBADMSG),
	B("field name without NUL", "abc", "", -EBADMSG),
	B("missing out type", "i\0\x84", "\x01", -EBADMSG),
	B("five tag bytes", "i\0\x84\x80\x81\x81\x81\x81\x81", "\x01",
	  -EBADMSG),
	B("custom field", "c\0\x64\x01\x00\x00", "\x01\x00\x00", -EOPNOTSUPP),
	B("unknown in type", "c\0\x1e", "\x00", -EOPNOTSUPP),
#undef B
};

TEST(bad_table)
{
	struct collected c;
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		EXPECT_EQ(bad_cases[i].ret,
			  decode(bad_cases[i].fields, bad_cases[i].flen,
				 bad_cases[i].data, bad_cases[i].dlen, &c))
			TH_LOG("%s", bad_cases[i].what);
	}
}

TEST(metadata_size_beyond_item)
{
	static const uint8_t meta[] = { 0x40, 0x00, 0x00, 'E', 0 };
	struct collected c = { 0 };
	char name[8];

	EXPECT_EQ(-EBADMSG, etwctl_tl_decode(meta, sizeof(meta), "", 0,
					     collect, &c));
	EXPECT_EQ(-EBADMSG, etwctl_tl_event_name(meta, sizeof(meta), name,
						 sizeof(name)));
}

TEST(filetime_format)
{
	char s[40];

	etwctl_filetime_format(0, s, sizeof(s));
	EXPECT_STREQ("1601-01-01T00:00:00.0000000Z", s);
	etwctl_filetime_format(116444736000000000ll + 15, s, sizeof(s));
	EXPECT_STREQ("1970-01-01T00:00:00.0000015Z", s);
	/* primitive-types.etl's first event (StartTime + raw delta). */
	etwctl_filetime_format(132756731758001567ll, s, sizeof(s));
	EXPECT_STREQ("2021-09-09T14:59:35.8001567Z", s);
}

static const struct {
	const char *text;
	int ret;
	int64_t ft;
} time_cases[] = {
	{ "1970-01-01T00:00:01.5Z", 0, 116444736015000000ll },
	{ "1970-01-01T00:00:00.0000001Z", 0, 116444736000000001ll },
	{ "2.5", 0, 1000 + 25000000 },
	{ "0", 0, 1000 },
	{ "1970-01-01T00:00:00", -EINVAL, 0 },
	{ "1970-01-01T00:00:00.00000001Z", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "soon", -EINVAL, 0 },
	{ "", -EINVAL, 0 },
};

TEST(time_parse_table)
{
	int64_t ft;
	size_t i;

	for (i = 0; i < sizeof(time_cases) / sizeof(time_cases[0]); i++) {
		ft = 0;
		ASSERT_EQ(time_cases[i].ret,
			  etwctl_time_parse(time_cases[i].text, 1000, &ft))
			TH_LOG("%s", time_cases[i].text);
		if (!time_cases[i].ret)
			EXPECT_EQ(time_cases[i].ft, ft)
				TH_LOG("%s", time_cases[i].text);
	}
}

/*
 * A kernel logger Process Start record as etw.ko writes it (SYSTEM64
 * header, Process_V4_TypeGroup1 payload) decodes by its MOF class's names.
 */
TEST(kernel_process_record)
{
	static const struct etw_guid process = { 0x3d6fa8d0, 0xfe05, 0x11d0,
		{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
	static const char *const names[] = {
		"UniqueProcessKey", "ProcessId", "ParentId", "SessionId",
		"ExitStatus", "DirectoryTableBase", "Flags", "UserSID",
		"ImageFileName", "CommandLine", "PackageFullName",
		"ApplicationId",
	};
	static const char *const values[] = {
		"0x2A", "0x1092", "0x1", "7", "0", "0x0", "0", "S-1-22-1-1000",
		"sh", "sh -c x", "", "",
	};
	uint8_t data[128] = { 0 }, *p = data + 68;
	struct etwctl_names n;
	struct etw_etl_event ev;
	struct collected c = { 0 };
	uint32_t v;
	size_t i;

	data[0] = 42;
	v = 4242;
	memcpy(data + 8, &v, 4);
	v = 1;
	memcpy(data + 12, &v, 4);
	v = 7;
	memcpy(data + 16, &v, 4);
	data[36] = 16;				/* TOKEN_USER.Sid */
	memcpy(data + 52, "\x01\x02\0\0\0\0\0\x16\x01\0\0\0\xe8\x03\0\0", 16);
	memcpy(p, "sh", 3);
	p += 3;
	for (i = 0; i < sizeof("sh -c x"); i++, p += 2)
		*p = (uint8_t)"sh -c x"[i];
	p += 4;					/* two empty strings */
	memset(&ev, 0, sizeof(ev));
	ev.kind = ETW_ETL_KIND_SYSTEM;
	ev.header_type = ETW_ETL_HT_SYSTEM64;
	ev.provider_id = process;
	ev.descriptor.version = 4;
	ev.descriptor.opcode = 1;
	ev.user_data = data;
	ev.user_data_len = (uint32_t)(p - data);
	ASSERT_EQ(0, etwctl_decode_event(&ev, &n, collect, &c));
	EXPECT_STREQ("MSNT_SystemTrace", n.provider);
	EXPECT_STREQ("Process", n.task);
	EXPECT_STREQ("Start", n.opcode);
	ASSERT_EQ(12, c.n);
	for (i = 0; i < 12; i++) {
		EXPECT_STREQ(names[i], c.name[i]);
		EXPECT_STREQ(values[i], c.value[i]) TH_LOG("%s", names[i]);
	}
}

TEST_HARNESS_MAIN
