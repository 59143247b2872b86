// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl top without BPF (ctl/top.c, ctl/top_layout.c): the check of a
 * tracepoint's format file against the offsets the BPF programs read, the
 * sums per (provider, session), the rows per provider and per session,
 * busiest first, and their rates in the JSON line.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "top.h"

/* What the 6.12 kernel prints for etw_write (kmod/etw_trace.h). */
#define COMMON \
"name: etw_write\n" \
"ID: 1510\n" \
"format:\n" \
"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
"\n"
#define TAIL "\nprint fmt: \"session=%u size=%u\", REC->logger_id, REC->size\n"

static const struct etwctl_top_field write_fields[] = {
	{ "logger_id", 8, 4 },
	{ "size", 14, 2 },
	{ "provider", 16, 16 },
};

static const struct {
	const char *name;
	const char *format;
	int ret;
	const char *why;
} format_cases[] = {
	{ "as the module lays it out", COMMON
	  "\tfield:u32 logger_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u16 event_id;\toffset:12;\tsize:2;\tsigned:0;\n"
	  "\tfield:u16 size;\toffset:14;\tsize:2;\tsigned:0;\n"
	  "\tfield:u8 provider[16];\toffset:16;\tsize:16;\tsigned:0;\n" TAIL,
	  0, "" },
	{ "a field moved", COMMON
	  "\tfield:u16 event_id;\toffset:8;\tsize:2;\tsigned:0;\n"
	  "\tfield:u32 logger_id;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u16 size;\toffset:14;\tsize:2;\tsigned:0;\n"
	  "\tfield:u8 provider[16];\toffset:16;\tsize:16;\tsigned:0;\n" TAIL,
	  -1, "field logger_id at offset 12 size 4, expected offset 8 size 4" },
	{ "a field grown", COMMON
	  "\tfield:u32 logger_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u32 size;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:u8 provider[16];\toffset:16;\tsize:16;\tsigned:0;\n" TAIL,
	  -1, "field size at offset 12 size 4, expected offset 14 size 2" },
	{ "a field missing", COMMON
	  "\tfield:u32 logger_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u16 size;\toffset:14;\tsize:2;\tsigned:0;\n" TAIL,
	  -1, "no field provider" },
	{ "a name that only ends like one", COMMON
	  "\tfield:u32 logger_id;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:u16 rec_size;\toffset:14;\tsize:2;\tsigned:0;\n"
	  "\tfield:u8 provider[16];\toffset:16;\tsize:16;\tsigned:0;\n" TAIL,
	  -1, "no field size" },
	{ "no format at all", "", -1, "no field logger_id" },
};

TEST(layout_check_table)
{
	char why[160];
	size_t i;

	for (i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++) {
		why[0] = 0;
		EXPECT_EQ(format_cases[i].ret,
			  etwctl_top_layout_check(format_cases[i].format,
						  write_fields, 3, why,
						  sizeof(why)))
			TH_LOG("%s", format_cases[i].name);
		EXPECT_STREQ(format_cases[i].why, why)
			TH_LOG("%s", format_cases[i].name);
	}
}

static struct etwctl_top_count count(uint8_t provider, uint32_t logger_id,
				     uint64_t events, uint64_t bytes,
				     uint64_t lost)
{
	struct etwctl_top_count c = {
		.logger_id = logger_id, .events = events, .bytes = bytes,
		.lost = lost,
	};

	memset(&c.provider, provider, sizeof(c.provider));
	return c;
}

TEST(snap_add_sums_one_pair_over_cpus)
{
	struct etwctl_top_snap s = { 0 };
	struct etwctl_top_count a = count(1, 3, 10, 100, 1);
	struct etwctl_top_count b = count(1, 3, 5, 50, 2);
	struct etwctl_top_count other = count(1, 4, 7, 70, 0);

	ASSERT_EQ(0, etwctl_top_snap_add(&s, &a));
	ASSERT_EQ(0, etwctl_top_snap_add(&s, &other));
	ASSERT_EQ(0, etwctl_top_snap_add(&s, &b));
	ASSERT_EQ(2, s.n);
	EXPECT_EQ(15, s.v[0].events);
	EXPECT_EQ(150, s.v[0].bytes);
	EXPECT_EQ(3, s.v[0].lost);
	EXPECT_EQ(7, s.v[1].events);
	etwctl_top_snap_free(&s);
}

/* Provider 1 in sessions 1 and 2, provider 2 in session 1. */
static void three_pairs(struct __test_metadata *_metadata,
			struct etwctl_top_snap *s, uint64_t scale)
{
	struct etwctl_top_count c[] = {
		count(1, 1, 10 * scale, 1000 * scale, 1 * scale),
		count(1, 2, 5 * scale, 500 * scale, 0),
		count(2, 1, 20 * scale, 800 * scale, 2 * scale),
	};
	size_t i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, etwctl_top_snap_add(s, &c[i]));
}

TEST(group_per_provider_busiest_first)
{
	struct etwctl_top_snap s = { 0 };
	struct etwctl_top_rows r;
	GUID two;

	three_pairs(_metadata, &s, 1);
	ASSERT_EQ(0, etwctl_top_group(&s, NULL, false, &r));
	ASSERT_EQ(2, r.n);
	memset(&two, 2, sizeof(two));
	EXPECT_EQ(0, memcmp(&two, &r.v[0].c.provider, sizeof(two)));
	EXPECT_EQ(20, r.v[0].c.events);
	EXPECT_EQ(15, r.v[1].c.events);
	EXPECT_EQ(1500, r.v[1].c.bytes);
	EXPECT_EQ(1, r.v[1].c.lost);
	free(r.v);
	etwctl_top_snap_free(&s);
}

TEST(group_per_session_busiest_first)
{
	struct etwctl_top_snap s = { 0 };
	struct etwctl_top_rows r;

	three_pairs(_metadata, &s, 1);
	ASSERT_EQ(0, etwctl_top_group(&s, NULL, true, &r));
	ASSERT_EQ(2, r.n);
	EXPECT_EQ(1, r.v[0].c.logger_id);
	EXPECT_EQ(30, r.v[0].c.events);
	EXPECT_EQ(1800, r.v[0].c.bytes);
	EXPECT_EQ(3, r.v[0].c.lost);
	EXPECT_EQ(2, r.v[1].c.logger_id);
	EXPECT_EQ(5, r.v[1].c.events);
	free(r.v);
	etwctl_top_snap_free(&s);
}

TEST(group_orders_by_the_interval_not_the_totals)
{
	struct etwctl_top_snap prev = { 0 }, now = { 0 };
	struct etwctl_top_count quiet = count(1, 1, 100, 0, 0);
	struct etwctl_top_count busy = count(2, 1, 10, 0, 0);
	struct etwctl_top_rows r;

	ASSERT_EQ(0, etwctl_top_snap_add(&prev, &quiet));
	ASSERT_EQ(0, etwctl_top_snap_add(&now, &quiet));
	ASSERT_EQ(0, etwctl_top_snap_add(&now, &busy));
	ASSERT_EQ(0, etwctl_top_group(&now, &prev, false, &r));
	ASSERT_EQ(2, r.n);
	EXPECT_EQ(10, r.v[0].c.events);
	EXPECT_EQ(0, r.v[0].past_events);
	EXPECT_EQ(100, r.v[1].past_events);
	free(r.v);
	etwctl_top_snap_free(&prev);
	etwctl_top_snap_free(&now);
}

static const char *name_of(void *ctx, uint32_t logger_id)
{
	return logger_id == 1 ? "one \"quoted\"" : NULL;
}

TEST(json_line_has_totals_and_rates)
{
	static const char want[] =
		"{\"seconds\":2.000,\"untracked\":4,\"providers\":["
		"{\"provider\":\"02020202-0202-0202-0202-020202020202\","
		"\"events\":60,\"bytes\":2400,\"lost\":6,\"events_per_s\":20.0,"
		"\"bytes_per_s\":800.0,\"lost_per_s\":2.0},"
		"{\"provider\":\"01010101-0101-0101-0101-010101010101\","
		"\"events\":45,\"bytes\":4500,\"lost\":3,\"events_per_s\":15.0,"
		"\"bytes_per_s\":1500.0,\"lost_per_s\":1.0}],\"sessions\":["
		"{\"logger_id\":1,\"name\":\"one \\\"quoted\\\"\",\"events\":90,"
		"\"bytes\":5400,\"lost\":9,\"events_per_s\":30.0,"
		"\"bytes_per_s\":1800.0,\"lost_per_s\":3.0},"
		"{\"logger_id\":2,\"name\":null,\"events\":15,\"bytes\":1500,"
		"\"lost\":0,\"events_per_s\":5.0,\"bytes_per_s\":500.0,"
		"\"lost_per_s\":0.0}]}\n";
	struct etwctl_top_snap prev = { .time = 10 }, now = { .time = 12 };
	struct etwctl_top_names names = { name_of, NULL };
	char *out;
	size_t len;
	FILE *f;

	three_pairs(_metadata, &prev, 1);
	three_pairs(_metadata, &now, 3);
	now.untracked = 4;
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, etwctl_top_print(f, &now, &prev, true, &names));
	ASSERT_EQ(0, fclose(f));
	EXPECT_STREQ(want, out);
	free(out);
	etwctl_top_snap_free(&prev);
	etwctl_top_snap_free(&now);
}

TEST(json_first_refresh_rates_over_the_whole_span)
{
	struct etwctl_top_snap now = { .start = 5, .time = 9 };
	struct etwctl_top_count c = count(1, 7, 8, 80, 4);
	char *out;
	size_t len;
	FILE *f;

	ASSERT_EQ(0, etwctl_top_snap_add(&now, &c));
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, etwctl_top_print(f, &now, NULL, true, NULL));
	ASSERT_EQ(0, fclose(f));
	EXPECT_NE(NULL, strstr(out, "{\"seconds\":4.000,"));
	EXPECT_NE(NULL, strstr(out, "{\"logger_id\":7,\"name\":null,\"events\":8,"
			       "\"bytes\":80,\"lost\":4,\"events_per_s\":2.0,"
			       "\"bytes_per_s\":20.0,\"lost_per_s\":1.0}"));
	free(out);
	etwctl_top_snap_free(&now);
}

TEST_HARNESS_MAIN
