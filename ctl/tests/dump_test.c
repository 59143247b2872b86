// SPDX-License-Identifier: GPL-2.0
/*
 * dump, stats and merge on the ETL files Windows wrote: exact event
 * counts, filters, and well-formed CSV and JSON.  The counts are the
 * samples' (reference section 5.5: 69 CLR events, 5 TraceLogging events;
 * per-id, per-level and per-CPU counts decoded by hand as for
 * userlib/tests/etl_windows_test.c).
 */
#include <ctype.h>
#include <string.h>

#include "ctl_test.h"
#include "kselftest_harness.h"

/* --- a strict JSON checker (RFC 8259), enough for dump's output --------- */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	for (; *p != '"'; p++) {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\')
			continue;
		p++;
		if (*p == 'u') {
			if (!isxdigit(p[1]) || !isxdigit(p[2]) ||
			    !isxdigit(p[3]) || !isxdigit(p[4]))
				return NULL;
			p += 4;
		} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
			return NULL;
		}
	}
	return p + 1;
}

static const char *json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (!isdigit(*p))
		return NULL;
	if (*p == '0' && isdigit(p[1]))
		return NULL;
	while (isdigit(*p))
		p++;
	if (*p == '.') {
		if (!isdigit(*++p))
			return NULL;
		while (isdigit(*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit(*p))
			return NULL;
		while (isdigit(*p))
			p++;
	}
	return p;
}

static const char *json_members(const char *p, char close, int depth)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			p = json_string(json_ws(p));
			if (!p || *(p = json_ws(p)) != ':')
				return NULL;
			p++;
		}
		p = json_value(p, depth + 1);
		if (!p)
			return NULL;
		p = json_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
	}
}

static const char *json_value(const char *p, int depth)
{
	p = json_ws(p);
	if (depth > 32)
		return NULL;
	if (*p == '{' || *p == '[')
		return json_members(p, *p == '{' ? '}' : ']', depth);
	if (*p == '"')
		return json_string(p);
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return json_number(p);
}

static bool json_valid(const char *s)
{
	const char *end = json_value(s, 0);

	return end && !*json_ws(end);
}

/* Objects of JSON Lines text, each one a valid object; -1 otherwise. */
static int json_lines(const char *s)
{
	const char *nl;
	char *line;
	int n = 0;
	bool ok;

	for (; *s; s = nl + 1, n++) {
		nl = strchr(s, '\n');
		if (!nl || *s != '{')
			return -1;
		line = strndup(s, (size_t)(nl - s));
		ok = line && json_valid(line);
		free(line);
		if (!ok)
			return -1;
	}
	return n;
}

/* Fields of one CSV record (RFC 4180); -1 when malformed. */
static int csv_fields(const char *line, const char **next)
{
	const char *p = line;
	int n = 1;

	for (;;) {
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p)
					return -1;
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
			}
			p++;
			if (*p != ',' && *p != '\n')
				return -1;
		} else {
			while (*p && *p != ',' && *p != '\n') {
				if (*p == '"')
					return -1;
				p++;
			}
		}
		if (*p == '\n') {
			*next = p + 1;
			return n;
		}
		if (!*p)
			return -1;
		p++;
		n++;
	}
}

/* Records of a CSV text, each with @fields fields; -1 when malformed. */
static int csv_records(const char *s, int fields)
{
	int n = 0;

	while (*s) {
		if (csv_fields(s, &s) != fields)
			return -1;
		n++;
	}
	return n;
}

/* --- dump ----------------------------------------------------------------- */

static int dump_lines(char **argv)
{
	struct ctl_run r = ctl_run(etwctl_cmd_dump, argv);
	int n = r.status ? -1 : ctl_lines(r.out);

	ctl_run_free(&r);
	return n;
}

TEST(dump_counts)
{
	REQUIRE_TESTDATA();
	EXPECT_EQ(5, dump_lines(CTL_ARGV("dump", PRIMITIVE)));
	EXPECT_EQ(69, dump_lines(CTL_ARGV("dump", CLR)));
	EXPECT_EQ(74, dump_lines(CTL_ARGV("dump", CLR, PRIMITIVE)));
}

TEST(dump_first_primitive_row)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", PRIMITIVE));
	ASSERT_EQ(0, r.status);
	EXPECT_EQ(0, strncmp(r.out, "2021-09-09T14:59:35.8001567Z   2   33984"
			     "   21768 solar_system PrimitiveTypesTest id=0 v=0 "
			     "lvl=5 op=0 task=0 kw=0x0 act=- string_type="
			     "\"Mercury\" boolean_type=false char_type=\"M\" "
			     "int16_type=-51 ", 151)) TH_LOG("%.160s", r.out);
	EXPECT_STREQ("", r.err);
	ctl_run_free(&r);
}

/* CLR events have no TraceLogging schema: their payload is hex. */
TEST(dump_hex_payload)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", "--id", "187", CLR));
	ASSERT_EQ(0, r.status);
	ASSERT_EQ(1, ctl_lines(r.out));
	EXPECT_NE(NULL, strstr(r.out, " id=187 v=0 lvl=4 op=1 task=19 kw=0x0 "
			       "act=- 0800020008000000"));
	ctl_run_free(&r);
}

static const struct {
	const char *opt;
	const char *val;
	const char *file;
	int lines;
} filter_cases[] = {
	{ "--provider", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4", CLR, 69 },
	{ "--provider", "{E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4}", CLR, 69 },
	{ "--provider", "d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615", CLR, 0 },
	{ "--provider", "solar_system", PRIMITIVE, 5 },
	{ "--provider", "SOLAR_SYSTEM", PRIMITIVE, 5 },
	{ "--provider", "other", PRIMITIVE, 0 },
	{ "--id", "10", CLR, 12 },
	{ "--id", "10,202", CLR, 25 },
	{ "--level", "4", CLR, 48 },
	{ "--level", "info", CLR, 48 },
	{ "--level", "5", CLR, 69 },
	{ "--level", "3", CLR, 0 },
	{ "--keyword", "0x1", CLR, 68 },
	{ "--keyword", "0x2", CLR, 0 },
	{ "--pid", "179596", CLR, 69 },
	{ "--pid", "33984", CLR, 0 },
	{ "--pid", "33984", PRIMITIVE, 5 },
	/* StartTime is 14:59:32.8578510; the events come 2.9-4.6 s later. */
	{ "--from", "2021-09-09T14:59:36.5Z", PRIMITIVE, 3 },
	{ "--to", "2021-09-09T14:59:36.2391104Z", PRIMITIVE, 2 },
	{ "--from", "4", PRIMITIVE, 2 },
	{ "--to", "3.5", PRIMITIVE, 2 },
};

TEST(dump_filters)
{
	size_t i;
	int n;

	REQUIRE_TESTDATA();
	for (i = 0; i < sizeof(filter_cases) / sizeof(filter_cases[0]); i++) {
		n = dump_lines(CTL_ARGV("dump", (char *)filter_cases[i].opt,
					(char *)filter_cases[i].val,
					(char *)filter_cases[i].file));
		EXPECT_EQ(filter_cases[i].lines, n)
			TH_LOG("%s %s", filter_cases[i].opt,
			       filter_cases[i].val);
	}
}

TEST(dump_csv)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "--format", "csv", CLR,
			     PRIMITIVE));
	ASSERT_EQ(0, r.status);
	EXPECT_EQ(0, strncmp(r.out, "time,cpu,pid,tid,provider,", 26));
	/* The header line and one record per event, 17 fields each. */
	EXPECT_EQ(75, csv_records(r.out, 17));
	ctl_run_free(&r);
}

TEST(dump_json)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", CLR,
			     PRIMITIVE));
	ASSERT_EQ(0, r.status);
	EXPECT_EQ(74, json_lines(r.out));
	EXPECT_NE(NULL, strstr(r.out, "\"fields\":{\"string_type\":\"Venus\","
			       "\"boolean_type\":true,\"char_type\":\"V\","
			       "\"int16_type\":-95,"));
	ctl_run_free(&r);
}

TEST(dump_json_empty)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", "--id", "999",
			     CLR));
	ASSERT_EQ(0, r.status);
	EXPECT_STREQ("", r.out);
	ctl_run_free(&r);
}

TEST(json_checker_rejects)
{
	EXPECT_FALSE(json_valid("[{\"a\":1,}]"));
	EXPECT_FALSE(json_valid("[\"a\nb\"]"));
	EXPECT_FALSE(json_valid("[0x10]"));
	EXPECT_FALSE(json_valid("[1] 2"));
	EXPECT_TRUE(json_valid("[{\"a\":[1,-2.5e3,\"\\u0001\"]}]"));
	EXPECT_EQ(-1, json_lines("{\"a\":1}"));
	EXPECT_EQ(-1, json_lines("[1]\n"));
	EXPECT_EQ(-1, json_lines("{\"a\":1}\n{\"a\":}\n"));
	EXPECT_EQ(2, json_lines("{\"a\":1}\n{}\n"));
}

/* --- stats ---------------------------------------------------------------- */

TEST(stats_clr)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_stats, CTL_ARGV("stats", CLR));
	ASSERT_EQ(0, r.status);
	EXPECT_EQ(0, strncmp(r.out, "events: 69 in 5 buffers\nproviders:\n"
			     "  e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 69\n", 76));
	EXPECT_NE(NULL, strstr(r.out, " id=10 12\n"));
	EXPECT_NE(NULL, strstr(r.out, " id=202 13\n"));
	EXPECT_NE(NULL, strstr(r.out, "cpus:\n  cpu 2: 1\n  cpu 4: 45\n"
			       "  cpu 6: 11\n  cpu 7: 12\n"));
	EXPECT_NE(NULL, strstr(r.out, "lost: events 0, buffers 0, buffers "
			       "with lost events 0, corrupt buffers 0\n"));
	ctl_run_free(&r);
}

TEST(stats_primitive)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_stats, CTL_ARGV("stats", PRIMITIVE));
	ASSERT_EQ(0, r.status);
	EXPECT_NE(NULL, strstr(r.out, "events: 5 in 2 buffers\n"));
	EXPECT_NE(NULL, strstr(r.out,
			       "  d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615 id=0 5\n"));
	EXPECT_NE(NULL, strstr(r.out, "cpus:\n  cpu 2: 5\n"));
	ctl_run_free(&r);
}

/* --- merge ---------------------------------------------------------------- */

TEST(merge_two_files)
{
	char dir[] = "/tmp/etwctl_merge.XXXXXX", out[64];
	struct ctl_run a, b, m;

	REQUIRE_TESTDATA();
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/merged.etl", dir);
	m = ctl_run(etwctl_cmd_merge, CTL_ARGV("merge", out, CLR, PRIMITIVE));
	ASSERT_EQ(0, m.status) TH_LOG("%s", m.err);
	/* The same events with the same times, now in one time order. */
	a = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", out));
	b = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", CLR, PRIMITIVE));
	EXPECT_EQ(0, a.status);
	EXPECT_EQ(74, ctl_lines(a.out));
	EXPECT_STREQ(b.out, a.out);
	ctl_run_free(&a);
	a = ctl_run(etwctl_cmd_stats, CTL_ARGV("stats", out));
	EXPECT_NE(NULL, strstr(a.out, "  e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 "
			       "69\n  d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615 5\n"))
		TH_LOG("%s", a.out);
	ctl_run_free(&a);
	ctl_run_free(&b);
	ctl_run_free(&m);
	unlink(out);
	rmdir(dir);
}

TEST(merge_refuses_input_as_output)
{
	char dir[] = "/tmp/etwctl_merge.XXXXXX", out[64];
	struct ctl_run m;

	REQUIRE_TESTDATA();
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(out, sizeof(out), "%s/merged.etl", dir);
	m = ctl_run(etwctl_cmd_merge, CTL_ARGV("merge", out, PRIMITIVE));
	ASSERT_EQ(0, m.status);
	ctl_run_free(&m);
	m = ctl_run(etwctl_cmd_merge, CTL_ARGV("merge", out, out));
	EXPECT_EQ(ETWCTL_EXIT_USAGE, m.status);
	EXPECT_EQ(1, ctl_lines(m.err));
	ctl_run_free(&m);
	EXPECT_EQ(5, dump_lines(CTL_ARGV("dump", out)));
	unlink(out);
	rmdir(dir);
}

TEST_HARNESS_MAIN
