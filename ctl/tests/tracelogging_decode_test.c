// SPDX-License-Identifier: GPL-2.0
/*
 * Every TraceLogging field macro, written and decoded: the events of
 * userlib/tests/tracelogging_events.c (C build) as the test double
 * captured them, decoded by etwctl's TraceLogging decoder, must read as
 * each entry expects.  Also the event options in the descriptor, the
 * tag encoding, and the provider traits with a group.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "etwctl.h"
#include "kselftest_harness.h"
#include "tracelogging_events.h"

#include <TraceLoggingProvider.h>

struct joined {
	char text[4096];
	size_t len;
};

static void join(void *ctx, const struct etwctl_field_text *f)
{
	struct joined *j = ctx;

	j->len += snprintf(j->text + j->len, sizeof(j->text) - j->len,
			   f->quoted ? "%s%s=\"%s\"" : "%s%s=%s",
			   j->len ? " " : "", f->name, f->value);
}

/* Decode event @i's capture; returns its expected text. */
static const char *decode(int i, struct tle_capture *c, struct joined *j)
{
	const char *expect;

	memset(j, 0, sizeof(*j));
	if (tle_run_c(i, c, &expect))
		return NULL;
	if (etwctl_tl_decode(c->meta, c->meta_len, c->payload,
			     c->payload_len, join, j))
		return NULL;
	return expect;
}

static int event_index(const char *name)
{
	static const char *const names[] = {
		"Integers", "Hex", "Scalars", "Network", "Times", "Strings",
		"Binary", "Arrays", "Structs", "Options", "Values",
		"StringArrays",
	};
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

/* One test per event: its fields decode to the expected text. */
FIXTURE(decoded) {
	struct tle_capture c;
	struct joined j;
};

FIXTURE_VARIANT(decoded) {
	const char *event;
};

#define EVENT_VARIANT(n) \
	FIXTURE_VARIANT_ADD(decoded, n) { .event = #n }
EVENT_VARIANT(Integers);
EVENT_VARIANT(Hex);
EVENT_VARIANT(Scalars);
EVENT_VARIANT(Network);
EVENT_VARIANT(Times);
EVENT_VARIANT(Strings);
EVENT_VARIANT(Binary);
EVENT_VARIANT(Arrays);
EVENT_VARIANT(Structs);
EVENT_VARIANT(Options);
EVENT_VARIANT(Values);
EVENT_VARIANT(StringArrays);

FIXTURE_SETUP(decoded)
{
}

FIXTURE_TEARDOWN(decoded)
{
}

TEST_F(decoded, fields)
{
	int i = event_index(variant->event);
	const char *expect;
	char name[64];

	ASSERT_LE(0, i);
	expect = decode(i, &self->c, &self->j);
	ASSERT_NE(NULL, expect);
	ASSERT_EQ(0, etwctl_tl_event_name(self->c.meta, self->c.meta_len,
					  name, sizeof(name)));
	EXPECT_STREQ(variant->event, name);
	EXPECT_STREQ(expect, self->j.text);
}

/* Defaults: level 5, channel 11, no keyword, id/version/task/opcode 0. */
TEST(default_descriptor)
{
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(event_index("Integers"), &c, &j));
	EXPECT_EQ(0, c.desc.Id);
	EXPECT_EQ(0, c.desc.Version);
	EXPECT_EQ(11, c.desc.Channel);
	EXPECT_EQ(5, c.desc.Level);
	EXPECT_EQ(0, c.desc.Opcode);
	EXPECT_EQ(0, c.desc.Task);
	EXPECT_EQ(0ull, c.desc.Keyword);
}

TEST(options_descriptor)
{
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(event_index("Options"), &c, &j));
	EXPECT_EQ(3, c.desc.Level);
	EXPECT_EQ(0x13ull, c.desc.Keyword);
	EXPECT_EQ(1, c.desc.Opcode);
	EXPECT_EQ(9, c.desc.Channel);
	EXPECT_EQ(0, c.desc.Task);
}

/*
 * Tags, 7 bits a byte from the top of 28, as few bytes as the value
 * needs: event tags 0x0a00000 -> 05; field tags 0x0200000 -> 01,
 * 0x0fffffff -> ff ff ff 7f; the field without tags has no OutType.
 */
TEST(tags)
{
	static const UINT8 expect[] = {
		0, 0, 0x05, 'O', 'p', 't', 'i', 'o', 'n', 's', 0,
		't', '1', 0, TlgInINT32 | 0x80, 0x80, 0x01,
		't', '4', 0, TlgInINT32 | 0x80, 0x80, 0xff, 0xff, 0xff, 0x7f,
		'T', 'L', 'E', '_', 'T', 'H', 'R', 'E', 'E', 0, TlgInINT32,
	};
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(event_index("Options"), &c, &j));
	ASSERT_EQ(sizeof(expect), c.meta_len);
	EXPECT_EQ(sizeof(expect), c.meta[0] | c.meta[1] << 8);
	EXPECT_EQ(0, memcmp(expect + 2, c.meta + 2, sizeof(expect) - 2));
}

/* Fixed-count arrays carry their count in the metadata, after OutType. */
TEST(fixed_array_metadata)
{
	static const UINT8 fa[] = {
		'f', 'a', 0, TlgInINT32 | ETW_TLG_IN_CCOUNT, 2, 0,
	};
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(event_index("Arrays"), &c, &j));
	EXPECT_NE(NULL, memmem(c.meta, c.meta_len, fa, sizeof(fa)));
}

/*
 * Arrays of strings, byte for byte as the SDK's header documents them:
 * the InType with TlgInVcount (0x40), an OutType byte only for
 * PackedFieldEx; in the payload a UINT16 count, then each element as if
 * alone ({ "ABC", "DE", "F" } is 03 00 'A' 'B' 'C' 0 'D' 'E' 0 'F' 0).
 */
TEST(string_array_bytes)
{
	static const char meta[] =
		"\0" "StringArrays\0"
		"sa\0" "\x42" "u8a\0" "\xc2\x23" "wa\0" "\x41"
		"ca\0" "\x57" "cwa\0" "\x56" "none\0" "\x42"
		"split\0" "\x42";
	static const char payload[] =
		"\x03\0" "ABC\0" "DE\0" "F\0"
		"\x02\0" "caf\xc3\xa9\0" "x\0"
		"\x02\0" "w\0i\0\0\0" "d\0\0\0"
		"\x02\0" "\x02\0" "ab" "\x01\0" "c"
		"\x01\0" "\x04\0" "h\0i\0"
		"\0\0"
		"\x02\0" "one\0" "two\0";
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(event_index("StringArrays"), &c, &j));
	ASSERT_EQ(2 + sizeof(meta) - 1, c.meta_len);
	EXPECT_EQ(c.meta_len, c.meta[0] | c.meta[1] << 8);
	EXPECT_EQ(0, memcmp(meta, c.meta + 2, sizeof(meta) - 1));
	ASSERT_EQ(sizeof(payload) - 1, c.payload_len);
	EXPECT_EQ(0, memcmp(payload, c.payload, sizeof(payload) - 1));
}

/* Traits: size, name, then the group trait (19 bytes, type 1, GUID). */
TEST(traits_with_group)
{
	static const UINT8 expect[] = {
		43, 0, 'E', 't', 'w', '-', 'T', 'r', 'a', 'c', 'e', 'L', 'o',
		'g', 'g', 'i', 'n', 'g', '-', 'T', 'e', 's', 't', 0,
		19, 0, 1, 0x44, 0x33, 0x22, 0x11, 0x66, 0x55, 0x88, 0x77,
		0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
	};
	struct tle_capture c;
	struct joined j;

	ASSERT_NE(NULL, decode(0, &c, &j));
	ASSERT_EQ(sizeof(expect), c.prov_len);
	EXPECT_EQ(0, memcmp(expect, c.prov, sizeof(expect)));
}

TEST_HARNESS_MAIN
