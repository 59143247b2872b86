// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl_print_ext(): the SID, TS_ID, STACK_TRACE64, PROCESS_START_KEY and
 * EVENT_KEY items as dump's table words and JSON members, exactly; items
 * of other types and malformed ones print nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "etwctl.h"
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
static char *printed(const struct etw_etl_event *ev, bool json)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	etwctl_print_ext(f, ev, json, NULL);
	fclose(f);
	return s;
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
	ev.ext[1] = cases[6].x;
	ev.ext[2] = cases[0].x;
	s = printed(&ev, false);
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("session_id=4242 sid=S-1-22-1-1000 ", s);
	free(s);
}

TEST_HARNESS_MAIN
