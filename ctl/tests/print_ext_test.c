// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl_print_ext(): the SID, TS_ID, STACK_TRACE64, PROCESS_START_KEY,
 * EVENT_KEY and CONTAINER_ID items as dump's table words and JSON members, exactly; items
 * of other types and malformed ones print nothing; stacks symbolised
 * through an image map; which records etwctl_image_event() takes.
 */
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
#include "symbols.h"
#include "kselftest_harness.h"

/* S-1-22-1-1000: revision 1, two sub-authorities, authority 22. */
static const uint8_t sid_user[16] = {
	1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 0xe8, 3, 0, 0,
};
static const uint32_t ts_id = 4242;
/* MatchId 0, then two addresses. */
static const uint64_t stack[3] = { 0, 0x401000, 0x7f0000001234 };
static const uint64_t start_key = 0x12345678c00001f4;
static const uint64_t event_key = 7;
static const uint8_t guid[16];
/* A pid namespace's inode, 4026531836, as CONTAINER_ID's Data1. */
static const uint8_t container[16] = { 0xfc, 0xff, 0xff, 0xef };

static const struct {
	const char *name;
	struct etw_etl_ext x;
	const char *table;
	const char *json;
} cases[] = {
	{ "sid", { EVENT_HEADER_EXT_TYPE_SID, 16, sid_user },
	  "sid=S-1-22-1-1000 ", ",\"sid\":\"S-1-22-1-1000\"" },
	{ "ts_id", { EVENT_HEADER_EXT_TYPE_TS_ID, 4, &ts_id },
	  "session_id=4242 ", ",\"session_id\":4242" },
	{ "stack", { EVENT_HEADER_EXT_TYPE_STACK_TRACE64, 24, stack },
	  "stack=0x401000,0x7f0000001234 ",
	  ",\"stack\":[\"0x401000\",\"0x7f0000001234\"]" },
	{ "empty stack", { EVENT_HEADER_EXT_TYPE_STACK_TRACE64, 8, stack },
	  "stack= ", ",\"stack\":[]" },
	{ "process start key",
	  { EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY, 8, &start_key },
	  "process_start_key=0x12345678c00001f4 ",
	  ",\"process_start_key\":\"0x12345678c00001f4\"" },
	{ "event key", { EVENT_HEADER_EXT_TYPE_EVENT_KEY, 8, &event_key },
	  "event_key=0x7 ", ",\"event_key\":\"0x7\"" },
	{ "container id", { EVENT_HEADER_EXT_TYPE_CONTAINER_ID, 16, container },
	  "container_id=effffffc-0000-0000-0000-000000000000 ",
	  ",\"container_id\":\"effffffc-0000-0000-0000-000000000000\"" },
	{ "container id of 8 bytes",
	  { EVENT_HEADER_EXT_TYPE_CONTAINER_ID, 8, container }, "", "" },
	{ "other type", { EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID, 16, guid },
	  "", "" },
	{ "SID shorter than its count", { EVENT_HEADER_EXT_TYPE_SID, 12,
					  sid_user }, "", "" },
	{ "TS_ID of 8 bytes", { EVENT_HEADER_EXT_TYPE_TS_ID, 8, stack },
	  "", "" },
	{ "stack not in 8-byte steps",
	  { EVENT_HEADER_EXT_TYPE_STACK_TRACE64, 12, stack }, "", "" },
	{ "event key of 4 bytes", { EVENT_HEADER_EXT_TYPE_EVENT_KEY, 4,
				    &event_key }, "", "" },
};

/* What etwctl_print_ext() writes for @ev; malloc'ed. */
static char *printed_with(const struct etw_etl_event *ev, bool json,
			  struct etwctl_symbols *syms)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	etwctl_print_ext(f, ev, json, syms);
	fclose(f);
	return s;
}

static char *printed(const struct etw_etl_event *ev, bool json)
{
	return printed_with(ev, json, NULL);
}

TEST(each_item)
{
	static struct etw_etl_event ev;
	unsigned int i;
	char *s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TH_LOG("%s", cases[i].name);
		ev.ext_count = 1;
		ev.ext[0] = cases[i].x;
		s = printed(&ev, false);
		ASSERT_NE(NULL, s);
		EXPECT_STREQ(cases[i].table, s);
		free(s);
		s = printed(&ev, true);
		ASSERT_NE(NULL, s);
		EXPECT_STREQ(cases[i].json, s);
		free(s);
	}
}

/* Several items in record order; none prints nothing. */
TEST(items_in_order)
{
	static struct etw_etl_event ev;
	char *s;

	s = printed(&ev, false);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("", s);
	free(s);
	ev.ext_count = 3;
	ev.ext[0] = cases[1].x;
	ev.ext[1] = cases[8].x;	/* a type dump does not print */
	ev.ext[2] = cases[0].x;
	s = printed(&ev, false);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("session_id=4242 sid=S-1-22-1-1000 ", s);
	free(s);
}

/* --- stacks through an image map ------------------------------------------ */

static const struct etw_guid image_guid = {
	0x2cb15d1d, 0x5fc1, 0x11d2,
	{ 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 }
};

#define IMAGE_LEN	(56 + 2 * 8)	/* the fields, then "/x/a.so" */

/* Image_Load on 64-bit: /x/a.so of process 7 at 0x400000, 0x1000 bytes. */
static void image_payload(uint8_t *d)
{
	static const char path[] = "/x/a.so";
	uint64_t base = 0x400000, size = 0x1000;
	uint32_t pid = 7;
	size_t i;

	memset(d, 0, IMAGE_LEN);
	memcpy(d, &base, 8);
	memcpy(d + 8, &size, 8);
	memcpy(d + 16, &pid, 4);
	for (i = 0; i < sizeof(path); i++)
		d[56 + 2 * i] = (uint8_t)path[i];
}

/* A record at time 50; 0x400010 of process 7 looked up at time 100. */
static const struct {
	const char *name;
	enum etw_etl_kind kind;
	uint16_t header_type;
	bool other_class;
	uint8_t version;
	uint8_t opcode;
	uint32_t len;
	const char *frame;
} image_cases[] = {
	{ "load", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64, false, 3, 10,
	  IMAGE_LEN, "a.so+0x10" },
	{ "DCStart, version 2", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64,
	  false, 2, 3, IMAGE_LEN, "a.so+0x10" },
	{ "DCEnd, compact header", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_COMPACT64,
	  false, 3, 4, IMAGE_LEN, "a.so+0x10" },
	{ "unload before the look-up", ETW_ETL_KIND_SYSTEM,
	  ETW_ETL_HT_SYSTEM64, false, 3, 2, IMAGE_LEN, "0x400010" },
	{ "version 1", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64, false, 1, 10,
	  IMAGE_LEN, "0x400010" },
	{ "32-bit header", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM32, false, 3,
	  10, IMAGE_LEN, "0x400010" },
	{ "not a kernel record", ETW_ETL_KIND_EVENT, ETW_ETL_HT_EVENT64,
	  false, 3, 10, IMAGE_LEN, "0x400010" },
	{ "another class", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64, true, 3,
	  10, IMAGE_LEN, "0x400010" },
	{ "another opcode", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64, false, 3,
	  5, IMAGE_LEN, "0x400010" },
	{ "no file name", ETW_ETL_KIND_SYSTEM, ETW_ETL_HT_SYSTEM64, false, 3,
	  10, 56, "0x400010" },
};

TEST(image_records)
{
	static struct etw_etl_event ev;
	struct etwctl_symbols *syms;
	uint8_t data[IMAGE_LEN];
	char frame[64];
	unsigned int i;

	image_payload(data);
	for (i = 0; i < sizeof(image_cases) / sizeof(image_cases[0]); i++) {
		TH_LOG("%s", image_cases[i].name);
		syms = etwctl_symbols_new();
		ASSERT_NE(NULL, syms);
		memset(&ev, 0, sizeof(ev));
		ev.kind = image_cases[i].kind;
		ev.header_type = image_cases[i].header_type;
		ev.provider_id = image_guid;
		ev.provider_id.data4[7] ^= image_cases[i].other_class;
		ev.descriptor.version = image_cases[i].version;
		ev.descriptor.opcode = image_cases[i].opcode;
		ev.timestamp = 50;
		ev.user_data = data;
		ev.user_data_len = image_cases[i].len;
		EXPECT_EQ(0, etwctl_image_event(syms, &ev));
		etwctl_symbols_frame(syms, 7, 100, 0x400010, frame,
				     sizeof(frame));
		EXPECT_STREQ(image_cases[i].frame, frame);
		etwctl_symbols_free(syms);
	}
}

/* A stack of process 7 at time 100: each frame through the map. */
TEST(stack_symbolised)
{
	static const uint64_t frames[3] = { 0, 0x400010, 0x7f0000000000 };
	static struct etw_etl_event ev;
	struct etwctl_symbols *syms = etwctl_symbols_new();
	uint8_t data[IMAGE_LEN];
	char *s;

	ASSERT_NE(NULL, syms);
	image_payload(data);
	ev.kind = ETW_ETL_KIND_SYSTEM;
	ev.header_type = ETW_ETL_HT_SYSTEM64;
	ev.provider_id = image_guid;
	ev.descriptor.version = 3;
	ev.descriptor.opcode = 10;
	ev.timestamp = 50;
	ev.user_data = data;
	ev.user_data_len = IMAGE_LEN;
	ASSERT_EQ(0, etwctl_image_event(syms, &ev));
	memset(&ev, 0, sizeof(ev));
	ev.process_id = 7;
	ev.timestamp = 100;
	ev.ext_count = 1;
	ev.ext[0] = (struct etw_etl_ext){ EVENT_HEADER_EXT_TYPE_STACK_TRACE64,
					  sizeof(frames), frames };
	EXPECT_TRUE(etwctl_event_has_stack(&ev));
	s = printed_with(&ev, false, syms);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("stack=a.so+0x10,0x7f0000000000 ", s);
	free(s);
	s = printed_with(&ev, true, syms);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ(",\"stack\":[\"a.so+0x10\",\"0x7f0000000000\"]", s);
	free(s);
	ev.ext[0].size = 12;
	EXPECT_FALSE(etwctl_event_has_stack(&ev));
	etwctl_symbols_free(syms);
}

TEST_HARNESS_MAIN
