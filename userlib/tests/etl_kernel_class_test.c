// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Kernel records (SYSTEM_TRACE_HEADER, PERFINFO_TRACE_HEADER) reach
 * consumers with ProviderId = the event class of their hook's group, as
 * ProcessTrace gives them: the class GUIDs of Microsoft's "NT Kernel
 * Logger Constants" and MOF class pages, typed in here from those pages.
 * One row per group; a group with no documented class keeps a zero GUID.
 */
#include "etl_test.h"
#include "kselftest_harness.h"

#define SYSTEM64	0xc002
#define PERFINFO64	0xc011

struct class_row {
	const char *name;
	uint16_t hook;
	const char *guid;	/* NULL: zero */
};

static const struct class_row rows[] = {
	{ "header",   0x0000, "68fdd900-4a3e-11d1-84f4-0000f80464e3" },
	{ "diskio",   0x010a, "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c" },
	{ "pagefault", 0x020a, "3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c" },
	{ "process",  0x0301, "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c" },
	{ "fileio",   0x0440, "90cbdc39-4a3e-11d1-84f4-0000f80464e3" },
	{ "thread",   0x0524, "3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c" },
	{ "tcpip",    0x060a, "9a280ac0-c8e0-11d1-84e2-00c04fb998a2" },
	{ "job",      0x0701, NULL },
	{ "udpip",    0x080b, "bf3a50c5-a9c9-4988-a005-2df0b7c80f80" },
	{ "registry", 0x090a, "ae53722e-c863-11d2-8659-00c04fa321a1" },
	{ "config",   0x0b0a, "01853a65-418f-4f36-aefc-dc0f1d2fd235" },
	{ "perfinfo", 0x0f2e, "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc" },
	{ "image",    0x140a, "2cb15d1d-5fc1-11d2-abe1-00a0c911f518" },
	{ "stackwalk", 0x1820, "def2fe46-7bd6-4b80-bd94-f57fe20d0ce3" },
	{ "alpc",     0x1a21, "45d8cccd-539f-4b72-a8b7-5c683142609a" },
	{ "splitio",  0x1b20, "d837ca92-12b9-44a5-ad6a-3a65b3578aa8" },
	{ "group_ff", 0xff01, NULL },
};

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; 0 when it is one. */
static int guid_parse(const char *s, struct etw_guid *g)
{
	unsigned int d[8], i;

	if (strlen(s) != 36 ||
	    sscanf(s, "%8x-%4hx-%4hx-%2x%2x-%2x%2x%2x%2x%2x%2x", &g->data1,
		   &g->data2, &g->data3, &d[0], &d[1], &d[2], &d[3], &d[4],
		   &d[5], &d[6], &d[7]) != 11)
		return -1;
	for (i = 0; i < 8; i++)
		g->data4[i] = (uint8_t)d[i];
	return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Append a kernel record of @type with @hook and 8 data bytes. */
static void add_kernel(void *buf, uint16_t type, uint16_t hook)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *rec = (uint8_t *)buf + bh->offset;
	uint16_t size = (type == SYSTEM64 ? 32 : 16) + 8;

	memset(rec, 0, size);
	put16(rec, 2);			/* version */
	put16(rec + 2, type);
	put16(rec + 4, size);
	put16(rec + 6, hook);
	rec[16] = 1;			/* a timestamp */
	bh->offset += (size + 7) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
}

static void expect_class(struct __test_metadata *_metadata, uint16_t type,
			 const struct class_row *row)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it;
	struct etw_etl_event ev;
	struct etw_guid want = { 0 };

	if (row->guid)
		ASSERT_EQ(0, guid_parse(row->guid, &want)) TH_LOG("%s",
								  row->guid);
	etl_buf_init(buf, ETL_TEST_BS, 0);
	add_kernel(buf, type, row->hook);
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, ETL_TEST_BS, NULL));
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(row->hook, ev.hook_id);
	EXPECT_EQ(row->hook & 0xff, ev.descriptor.opcode);
	EXPECT_EQ(0, memcmp(&want, &ev.provider_id, sizeof(want)))
		TH_LOG("%s: hook 0x%04x", row->name, row->hook);
}

TEST(system_records_name_their_group_class)
{
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		expect_class(_metadata, SYSTEM64, &rows[i]);
}

TEST(perfinfo_records_name_their_group_class)
{
	unsigned int i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		expect_class(_metadata, PERFINFO64, &rows[i]);
}

TEST_HARNESS_MAIN
