// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_filter.c: the level/keyword predicate with every
 * special case, event-ID, PID, executable-name and event-name filters,
 * TraceLogging's event name, and how sessions combine.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "../compat.h"
#include "../etw_filter.h"

struct etw_lk_case {
	const char *name;
	u8 session_level;	/* as passed by the controller */
	u64 any;		/* as passed by the controller */
	u64 all;
	bool ignore_kw0;
	u8 level;		/* the event's */
	u64 keyword;
	bool expect;
};

static const struct etw_lk_case etw_lk_cases[] = {
	{ "level below session", 4, 0, 0, false, 3, 0x1, true },
	{ "level equal to session", 4, 0, 0, false, 4, 0x1, true },
	{ "level above session", 4, 0, 0, false, 5, 0x1, false },
	{ "event level 0 always passes", 1, 0, 0, false, 0, 0x1, true },
	{ "session level 0 means all", 0, 0, 0, false, 255, 0x1, true },
	{ "session level 255", 255, 0, 0, false, 200, 0x1, true },
	{ "keyword 0 passes any mask", 5, 0x10, 0x30, false, 5, 0, true },
	{ "keyword 0 dropped with IGNORE_KEYWORD_0", 5, 0, 0, true, 5, 0, false },
	{ "IGNORE_KEYWORD_0 keeps keyworded", 5, 0, 0, true, 5, 0x4, true },
	{ "MatchAny 0 means all", 5, 0, 0, false, 5, 1ULL << 63, true },
	{ "MatchAny hit", 5, 0x6, 0, false, 5, 0x4, true },
	{ "MatchAny miss", 5, 0x6, 0, false, 5, 0x8, false },
	{ "MatchAll subset passes", 5, 0x1, 0x3, false, 5, 0x7, true },
	{ "MatchAll missing bit fails", 5, 0x1, 0x3, false, 5, 0x5, false },
	{ "MatchAll alone does not replace MatchAny", 5, 0x8, 0x1, false, 5, 0x1, false },
	{ "MatchAll applies when MatchAny is 0", 5, 0, 0x2, false, 5, 0x1, false },
	{ "seed 003: local reads", 5, 0x1, 0x3, false, 5, 0x1 | 0x2, true },
	{ "seed 003: remote reads excluded", 5, 0x1, 0x3, false, 5, 0x1 | 0x4, false },
	{ "level and keyword both checked", 2, 0x1, 0, false, 3, 0x1, false },
};

static void etw_lk_desc(const struct etw_lk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_lk, etw_lk_cases, etw_lk_desc);

static void etw_level_kw_test(struct kunit *test)
{
	const struct etw_lk_case *c = test->param_value;
	struct etw_level_kw f = {
		.level = etw_level_norm(c->session_level),
		.ignore_keyword0 = c->ignore_kw0,
		.match_any = etw_match_any_norm(c->any, false),
		.match_all = c->all,
	};

	KUNIT_EXPECT_EQ(test, etw_level_kw_match(&f, c->level, c->keyword),
			c->expect);
}

static void etw_classic_match_any_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, etw_match_any_norm(0, true), 0ULL);
	KUNIT_EXPECT_EQ(test, etw_match_any_norm(~0ULL, true), 0xffffffffULL);
	KUNIT_EXPECT_EQ(test, etw_match_any_norm(0, false), ~0ULL);
	KUNIT_EXPECT_EQ(test, etw_match_any_norm(0x30, false), 0x30ULL);
}

static struct etw_id_filter *etw_make_id_filter(struct kunit *test,
						bool in, const u16 *ids, u16 n)
{
	struct etw_id_filter *f;

	f = kunit_kzalloc(test, struct_size(f, ids, n), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	memcpy(f->ids, ids, n * sizeof(u16));
	f->count = etw_id_filter_sort(f->ids, n);
	f->filter_in = in;
	return f;
}

static void etw_event_id_in_test(struct kunit *test)
{
	static const u16 ids[] = { 30, 10, 20, 10 };
	struct etw_id_filter *f = etw_make_id_filter(test, true, ids, 4);

	KUNIT_EXPECT_EQ(test, f->count, 3);
	KUNIT_EXPECT_TRUE(test, etw_event_id_match(f, 10));
	KUNIT_EXPECT_TRUE(test, etw_event_id_match(f, 30));
	KUNIT_EXPECT_FALSE(test, etw_event_id_match(f, 15));
	KUNIT_EXPECT_FALSE(test, etw_event_id_match(f, 0));
}

static void etw_event_id_out_test(struct kunit *test)
{
	static const u16 ids[] = { 7, 65535 };
	struct etw_id_filter *f = etw_make_id_filter(test, false, ids, 2);

	KUNIT_EXPECT_FALSE(test, etw_event_id_match(f, 7));
	KUNIT_EXPECT_FALSE(test, etw_event_id_match(f, 65535));
	KUNIT_EXPECT_TRUE(test, etw_event_id_match(f, 8));
}

static void etw_event_id_none_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, etw_event_id_match(NULL, 1234));
}

static void etw_pid_filter_test(struct kunit *test)
{
	static const u32 pids[] = { 100, 200 };

	KUNIT_EXPECT_TRUE(test, etw_pid_filter_match(pids, 0, 5));
	KUNIT_EXPECT_TRUE(test, etw_pid_filter_match(pids, 2, 200));
	KUNIT_EXPECT_FALSE(test, etw_pid_filter_match(pids, 2, 300));
}

/*
 * EVENT_FILTER_TYPE_EXECUTABLE_NAME lists (ns-evntprov-event_filter_descriptor:
 * "a single string that can contain multiple executable file names
 * separated by semicolons"): what each list parses to, NUL-separated.
 */
struct etw_exe_parse_case {
	const char *name;
	const char *list;
	u32 list_size;	/* bytes of @list, NULs included */
	u32 len;	/* bytes passed: @list_size, or this when larger */
	int err;
	u16 count;
	const char *names;
	u32 names_len;
};

#define ETW_LIST(s) .list = s, .list_size = sizeof(s) - 1
#define ETW_NAMES(s) .names = s, .names_len = sizeof(s) - 1

static const struct etw_exe_parse_case etw_exe_parse_cases[] = {
	{ "one name", ETW_LIST("a.exe"), 0, 0, 1, ETW_NAMES("a.exe\0") },
	{ "two names", ETW_LIST("a.exe;b"), 0, 0, 2, ETW_NAMES("a.exe\0b\0") },
	{ "empty items skipped", ETW_LIST(";;a;;b;"), 0, 0, 2,
	  ETW_NAMES("a\0b\0") },
	{ "case kept as given", ETW_LIST("Foo.EXE"), 0, 0, 1,
	  ETW_NAMES("Foo.EXE\0") },
	{ "spaces are part of a name", ETW_LIST(" a "), 0, 0, 1,
	  ETW_NAMES(" a \0") },
	{ "only separators", ETW_LIST(";;;"), 0, -EINVAL },
	{ "empty list", ETW_LIST(""), 0, -EINVAL },
	{ "NUL inside", ETW_LIST("a\0b"), 0, -EINVAL },
	{ "trailing NUL", ETW_LIST("ab\0"), 0, -EINVAL },
	{ "longer than the limit", ETW_LIST("a"), ETW_MAX_EXE_FILTER + 1,
	  -EINVAL },
};

static void etw_exe_parse_desc(const struct etw_exe_parse_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}
KUNIT_ARRAY_PARAM(etw_exe_parse, etw_exe_parse_cases, etw_exe_parse_desc);

static void etw_exe_filter_parse_test(struct kunit *test)
{
	const struct etw_exe_parse_case *c = test->param_value;
	u32 len = max(c->len, c->list_size);
	struct etw_exe_filter *f;
	char *list;

	/* Exactly @len bytes, so that KASAN sees a read past them. */
	list = kunit_kzalloc(test, len ?: 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);
	memset(list, 'a', len);		/* a long list is all name */
	memcpy(list, c->list, c->list_size);
	f = etw_exe_filter_parse(list, len, GFP_KERNEL);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), c->err);
		return;
	}
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, f->count, c->count);
	KUNIT_EXPECT_MEMEQ(test, f->names, c->names, c->names_len);
	kfree(f);
}

/* A name longer than a file name can be is refused; NAME_MAX is not. */
static void etw_exe_filter_name_max_test(struct kunit *test)
{
	char *list = kunit_kzalloc(test, NAME_MAX + 3, GFP_KERNEL);
	struct etw_exe_filter *f;

	KUNIT_ASSERT_NOT_NULL(test, list);
	memset(list, 'x', NAME_MAX + 1);
	f = etw_exe_filter_parse(list, NAME_MAX + 1, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -EINVAL);
	list[NAME_MAX] = ';';
	list[NAME_MAX + 1] = 'y';
	f = etw_exe_filter_parse(list, NAME_MAX + 2, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, f->count, 2);
	KUNIT_EXPECT_EQ(test, strlen(f->names), NAME_MAX);
	KUNIT_EXPECT_STREQ(test, f->names + NAME_MAX + 1, "y");
	kfree(f);
}

struct etw_exe_match_case {
	const char *list;
	const char *exe;	/* NULL: an in-kernel provider */
	bool expect;
};

static const struct etw_exe_match_case etw_exe_match_cases[] = {
	{ "app", "app", true },
	{ "APP", "app", true },			/* ASCII case ignored */
	{ "App.Exe", "aPP.eXE", true },
	{ "other;app", "app", true },
	{ "other;app", "apps", false },		/* whole names only */
	{ "app", "ap", false },
	{ "app", "", false },
	{ "app", NULL, false },			/* scope filters: user mode only */
	{ "\xc3\x89t\xc3\xa9", "\xc3\x89t\xc3\xa9", true },
	{ "\xc3\x89t\xc3\xa9", "\xc3\xa9t\xc3\xa9", false }, /* not ASCII */
};

static void etw_exe_filter_match_test(struct kunit *test)
{
	struct etw_exe_filter *f;
	unsigned int i;

	KUNIT_EXPECT_TRUE(test, etw_exe_filter_match(NULL, "app"));
	KUNIT_EXPECT_TRUE(test, etw_exe_filter_match(NULL, NULL));
	for (i = 0; i < ARRAY_SIZE(etw_exe_match_cases); i++) {
		const struct etw_exe_match_case *c = &etw_exe_match_cases[i];

		f = etw_exe_filter_parse(c->list, strlen(c->list), GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(f));
		KUNIT_EXPECT_EQ_MSG(test, etw_exe_filter_match(f, c->exe),
				    c->expect, "case %u", i);
		kfree(f);
	}
}

/* An EVENT_FILTER_EVENT_NAME block: names from byte 20, into @room. */
#define NAMES_OF(b)	((char *)(b) + ETW_EVENT_NAME_FILTER_NAMES)

struct etw_name_block {
	struct etw_event_name_filter f;
	char room[40];
};

static struct etw_name_filter *etw_names_of(struct kunit *test, u8 level,
					    u64 any, u64 all, bool in)
{
	struct etw_name_block b = {
		.f = { .match_any = any, .match_all = all, .level = level,
		       .filter_in = in, .name_count = 2 },
	};
	struct etw_name_filter *f;

	memcpy(NAMES_OF(&b), "Start\0Stop", 11);
	f = etw_name_filter_parse(&b, ETW_EVENT_NAME_FILTER_NAMES + 11,
				  GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	return f;
}

/*
 * EVENT_FILTER_EVENT_NAME: the filter decides for the events its level
 * and keywords select (ns-evntprov-event_filter_event_name: the keywords
 * "determine the category of events to filter on"); FilterIn lets the
 * listed names in, else keeps them out.
 */
static void etw_name_filter_match_test(struct kunit *test)
{
	static const struct {
		bool in;
		u8 level;
		u64 keyword;
		const char *name;
		bool expect;
	} cases[] = {
		{ true, 4, 0x1, "Start", true },
		{ true, 4, 0x1, "Stop", true },
		{ true, 4, 0x1, "Other", false },
		{ true, 4, 0x1, "start", false },	/* byte for byte */
		{ true, 4, 0x1, "Sta", false },		/* whole names */
		{ true, 4, 0x1, "", false },
		{ true, 5, 0x1, "Other", true },	/* not selected: level */
		{ true, 4, 0x4, "Other", true },	/* nor keyword */
		{ true, 4, 0, "Other", false },		/* keyword 0 selected */
		{ false, 4, 0x1, "Start", false },
		{ false, 4, 0x1, "Other", true },
		{ false, 5, 0x1, "Start", true },
	};
	struct etw_name_filter *f[2];
	unsigned int i;

	f[0] = etw_names_of(test, 4, 0x3, 0, false);
	f[1] = etw_names_of(test, 4, 0x3, 0, true);
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    etw_name_filter_match(f[cases[i].in],
							  cases[i].level,
							  cases[i].keyword,
							  cases[i].name),
				    cases[i].expect, "case %u", i);
	kfree(f[0]);
	kfree(f[1]);
}

/* Level 0 and MatchAnyKeyword 0 select every event, as for sessions. */
static void etw_name_filter_selects_all_test(struct kunit *test)
{
	struct etw_name_filter *f = etw_names_of(test, 0, 0, 0x2, true);

	KUNIT_EXPECT_FALSE(test, etw_name_filter_match(f, 255, 0x2, "Other"));
	KUNIT_EXPECT_TRUE(test, etw_name_filter_match(f, 255, 0x2, "Stop"));
	/* MatchAllKeyword still applies: 0x1 lacks bit 0x2. */
	KUNIT_EXPECT_TRUE(test, etw_name_filter_match(f, 1, 0x1, "Other"));
	kfree(f);
}

static void etw_name_filter_parse_test(struct kunit *test)
{
	static const struct {
		const char *what;
		u16 count;
		u8 in;
		const char *names;
		u32 len;
		int err;
	} cases[] = {
		{ "one name", 1, 1, "a", 2, 0 },
		{ "padding after the last name", 1, 0, "a\0\0", 3, 0 },
		{ "no name", 0, 1, "a", 2, -EINVAL },
		{ "empty name", 2, 1, "a\0", 3, -EINVAL },
		{ "unterminated", 1, 1, "ab", 2, -EINVAL },
		{ "count past the names", 3, 1, "a\0b", 4, -EINVAL },
		{ "filter_in 2", 1, 2, "a", 2, -EINVAL },
	};
	struct etw_name_block b;
	struct etw_name_filter *f;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&b, 0, sizeof(b));
		b.f.name_count = cases[i].count;
		b.f.filter_in = cases[i].in;
		memcpy(NAMES_OF(&b), cases[i].names, cases[i].len);
		f = etw_name_filter_parse(&b, ETW_EVENT_NAME_FILTER_NAMES +
					  cases[i].len, GFP_KERNEL);
		KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(f), cases[i].err,
				    "%s", cases[i].what);
		if (!IS_ERR(f))
			kfree(f);
	}
	f = etw_name_filter_parse(&b, ETW_EVENT_NAME_FILTER_NAMES - 1,
				  GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -EINVAL);
}

/* Names of ETW_MAX_EVENT_NAME bytes are taken, longer ones are not. */
static void etw_name_filter_name_max_test(struct kunit *test)
{
	u32 len = ETW_EVENT_NAME_FILTER_NAMES + ETW_MAX_EVENT_NAME + 2;
	struct etw_event_name_filter *b = kunit_kzalloc(test, len, GFP_KERNEL);
	struct etw_name_filter *f;

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->name_count = 1;
	memset(NAMES_OF(b), 'n', ETW_MAX_EVENT_NAME);
	f = etw_name_filter_parse(b, len - 1, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(f));
	KUNIT_EXPECT_EQ(test, strlen(f->names), ETW_MAX_EVENT_NAME);
	kfree(f);
	NAMES_OF(b)[ETW_MAX_EVENT_NAME] = 'n';
	f = etw_name_filter_parse(b, len, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -EINVAL);
}

/* TraceLogging metadata: UINT16 size, tags (bit 7: more), then the name. */
static void etw_tlg_event_name_test(struct kunit *test)
{
	static const struct {
		const char *meta;
		u32 len;
		const char *name;
	} cases[] = {
		{ "\x09\0\0Start\0", 9, "Start" },
		{ "\x0a\0\x81\x02Stop\0", 9, "Stop" },	/* two tag bytes */
		{ "\x0c\0\x81\x82\x83\x04Go\0", 9, "Go" },	/* four */
		{ "\x08\0\0Start", 8, "" },			/* no NUL */
		{ "\x03\0\0", 3, "" },				/* no name */
		{ "\x02\0", 2, "" },
		{ "", 0, "" },
	};
	char buf[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memcpy(buf, cases[i].meta, cases[i].len);
		KUNIT_EXPECT_STREQ_MSG(test,
				       etw_tlg_event_name(buf, cases[i].len),
				       cases[i].name, "case %u", i);
	}
}

static void etw_combine_test(struct kunit *test)
{
	struct etw_level_kw a = { .level = 3, .match_any = 0x1, .match_all = 0x1 };
	struct etw_level_kw b = { .level = 5, .match_any = 0x6, .match_all = 0x3 };
	struct etw_combined c;

	etw_combine_init(&c);
	KUNIT_EXPECT_FALSE(test, c.enabled);
	etw_combine_add(&c, &a, 3);
	etw_combine_add(&c, &b, 5);
	KUNIT_EXPECT_TRUE(test, c.enabled);
	KUNIT_EXPECT_EQ(test, c.level, 5);
	KUNIT_EXPECT_EQ(test, c.session_level, 5);
	KUNIT_EXPECT_EQ(test, c.match_any, 0x7ULL);
	KUNIT_EXPECT_EQ(test, c.match_all, 0x1ULL);
}

static void etw_combine_level0_test(struct kunit *test)
{
	struct etw_level_kw a = { .level = etw_level_norm(0), .match_any = ~0ULL };
	struct etw_level_kw b = { .level = 2, .match_any = 0x1 };
	struct etw_combined c;

	etw_combine_init(&c);
	etw_combine_add(&c, &b, 2);
	etw_combine_add(&c, &a, 0);
	KUNIT_EXPECT_EQ(test, c.level, 255);
	KUNIT_EXPECT_EQ(test, c.session_level, 0);
	KUNIT_EXPECT_EQ(test, c.match_any, ~0ULL);
}

/* A session's 0 stays 0 as passed whichever order the sessions come in. */
static void etw_combine_session_level_test(struct kunit *test)
{
	static const u8 cases[][3] = {
		/* first, second, combined as passed */
		{ 0, 2, 0 }, { 2, 0, 0 }, { 0, 0, 0 },
		{ 255, 4, 255 }, { 4, 255, 255 }, { 1, 4, 4 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct etw_level_kw a = { .level = etw_level_norm(cases[i][0]) };
		struct etw_level_kw b = { .level = etw_level_norm(cases[i][1]) };
		struct etw_combined c;

		etw_combine_init(&c);
		etw_combine_add(&c, &a, cases[i][0]);
		KUNIT_EXPECT_EQ(test, c.session_level, cases[i][0]);
		etw_combine_add(&c, &b, cases[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, c.session_level, cases[i][2],
				    "case %u", i);
		KUNIT_EXPECT_EQ(test, c.level, etw_level_norm(cases[i][2]));
	}
}

static struct kunit_case etw_filter_cases[] = {
	KUNIT_CASE_PARAM(etw_level_kw_test, etw_lk_gen_params),
	KUNIT_CASE(etw_classic_match_any_test),
	KUNIT_CASE(etw_event_id_in_test),
	KUNIT_CASE(etw_event_id_out_test),
	KUNIT_CASE(etw_event_id_none_test),
	KUNIT_CASE(etw_pid_filter_test),
	KUNIT_CASE_PARAM(etw_exe_filter_parse_test, etw_exe_parse_gen_params),
	KUNIT_CASE(etw_exe_filter_name_max_test),
	KUNIT_CASE(etw_exe_filter_match_test),
	KUNIT_CASE(etw_name_filter_match_test),
	KUNIT_CASE(etw_name_filter_selects_all_test),
	KUNIT_CASE(etw_name_filter_parse_test),
	KUNIT_CASE(etw_name_filter_name_max_test),
	KUNIT_CASE(etw_tlg_event_name_test),
	KUNIT_CASE(etw_combine_test),
	KUNIT_CASE(etw_combine_level0_test),
	KUNIT_CASE(etw_combine_session_level_test),
	{}
};

static struct kunit_suite etw_filter_suite = {
	.name = "etw_filter",
	.test_cases = etw_filter_cases,
};
kunit_test_suite(etw_filter_suite);
