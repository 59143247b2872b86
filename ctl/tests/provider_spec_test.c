// SPDX-License-Identifier: GPL-2.0
/*
 * The xperf-style provider spec parser and GUID text: pure functions,
 * checked against tables.  The *Name GUIDs are the EventSource values
 * the reference lists (section 6).
 */
#include <errno.h>
#include <string.h>

#include "etwctl.h"
#include "kselftest_harness.h"

#define CLR_RUNTIME	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"

static const struct {
	const char *spec;
	int ret;
	const char *guid;	/* NULL: a name left to resolve */
	const char *name;
	uint64_t keywords;
	uint8_t level;
} spec_cases[] = {
	{ CLR_RUNTIME, 0, CLR_RUNTIME, CLR_RUNTIME, ~0ull, 255 },
	{ CLR_RUNTIME ":0xFFFFFFFF:0x5", 0, CLR_RUNTIME, CLR_RUNTIME,
	  0xffffffffull, 5 },
	{ CLR_RUNTIME ":0x1FC1F:5", 0, CLR_RUNTIME, CLR_RUNTIME, 0x1fc1f, 5 },
	{ "{E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4}:16", 0, CLR_RUNTIME,
	  "{E13C0D23-CCBC-4E12-931B-D9CC2EEE27E4}", 16, 255 },
	{ CLR_RUNTIME "::4", 0, CLR_RUNTIME, CLR_RUNTIME, ~0ull, 4 },
	{ CLR_RUNTIME ":0:", 0, CLR_RUNTIME, CLR_RUNTIME, 0, 255 },
	{ CLR_RUNTIME "::verbose", 0, CLR_RUNTIME, CLR_RUNTIME, ~0ull, 5 },
	{ CLR_RUNTIME "::Error", 0, CLR_RUNTIME, CLR_RUNTIME, ~0ull, 2 },
	{ CLR_RUNTIME ":0xffffffffffffffff:0", 0, CLR_RUNTIME, CLR_RUNTIME,
	  ~0ull, 0 },
	{ "*MyCompany.MyComponent", 0, "ce5fa4ea-ab00-5402-8b76-9f76ac858fb5",
	  "*MyCompany.MyComponent", ~0ull, 255 },
	{ "solar_system:0x10:info", 0, NULL, "solar_system", 0x10, 4 },
	{ "", -EINVAL, NULL, NULL, 0, 0 },
	{ ":1:2", -EINVAL, NULL, NULL, 0, 0 },
	{ "*", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":1:2:3", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":zz", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":-1", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":0x10000000000000000", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":1:256", -EINVAL, NULL, NULL, 0, 0 },
	{ CLR_RUNTIME ":1:loud", -EINVAL, NULL, NULL, 0, 0 },
};

TEST(spec_table)
{
	struct etwctl_provider_spec spec;
	char g[ETWCTL_GUID_LEN];
	size_t i;

	for (i = 0; i < sizeof(spec_cases) / sizeof(spec_cases[0]); i++) {
		const char *s = spec_cases[i].spec;

		ASSERT_EQ(spec_cases[i].ret,
			  etwctl_provider_spec_parse(s, &spec)) TH_LOG("%s", s);
		if (spec_cases[i].ret)
			continue;
		EXPECT_STREQ(spec_cases[i].name, spec.name) TH_LOG("%s", s);
		EXPECT_EQ(spec_cases[i].keywords, spec.keywords)
			TH_LOG("%s", s);
		EXPECT_EQ(spec_cases[i].level, spec.level) TH_LOG("%s", s);
		EXPECT_EQ(spec_cases[i].guid != NULL, spec.has_guid)
			TH_LOG("%s", s);
		if (!spec_cases[i].guid)
			continue;
		etwctl_guid_format(&spec.guid, g);
		EXPECT_STREQ(spec_cases[i].guid, g) TH_LOG("%s", s);
	}
}

static const struct {
	const char *text;
	int ret;
} guid_cases[] = {
	{ "68fdd900-4a3e-11d1-84f4-0000f80464e3", 0 },
	{ "{68FDD900-4A3E-11D1-84F4-0000F80464E3}", 0 },
	{ "68fdd9004a3e11d184f40000f80464e3", -EINVAL },
	{ "{68fdd900-4a3e-11d1-84f4-0000f80464e3", -EINVAL },
	{ "68fdd900-4a3e-11d1-84f4-0000f80464e3}", -EINVAL },
	{ "68fdd900-4a3e-11d1-84f4-0000f80464e", -EINVAL },
	{ "68fdd900-4a3e-11d1-84f4-0000f80464e3a", -EINVAL },
	{ "68fdd900-4a3e-11d1-84f4-0000f80464g3", -EINVAL },
	{ "68fdd900_4a3e-11d1-84f4-0000f80464e3", -EINVAL },
	{ "", -EINVAL },
};

TEST(guid_parse_table)
{
	GUID g;
	size_t i;

	for (i = 0; i < sizeof(guid_cases) / sizeof(guid_cases[0]); i++) {
		EXPECT_EQ(guid_cases[i].ret,
			  etwctl_guid_parse(guid_cases[i].text, &g))
			TH_LOG("%s", guid_cases[i].text);
	}
}

/* EventTraceGuid, field by field, in both directions. */
TEST(guid_fields)
{
	static const GUID want = { 0x68fdd900, 0x4a3e, 0x11d1,
		{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };
	char text[ETWCTL_GUID_LEN];
	GUID g;

	ASSERT_EQ(0, etwctl_guid_parse("{68FDD900-4A3E-11D1-84F4-0000F80464E3}",
				       &g));
	EXPECT_EQ(0, memcmp(&want, &g, sizeof(g)));
	etwctl_guid_format(&want, text);
	EXPECT_STREQ("68fdd900-4a3e-11d1-84f4-0000f80464e3", text);
}

static const struct {
	const char *text;
	int ret;
	uint8_t level;
} level_cases[] = {
	{ "critical", 0, 1 }, { "error", 0, 2 }, { "warning", 0, 3 },
	{ "info", 0, 4 }, { "Informational", 0, 4 }, { "verbose", 0, 5 },
	{ "0", 0, 0 }, { "0xff", 0, 255 }, { "255", 0, 255 },
	{ "256", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "5x", -EINVAL, 0 },
	{ " 5", -EINVAL, 0 },
};

TEST(level_table)
{
	uint8_t level;
	size_t i;

	for (i = 0; i < sizeof(level_cases) / sizeof(level_cases[0]); i++) {
		level = 0xaa;
		ASSERT_EQ(level_cases[i].ret,
			  etwctl_level_parse(level_cases[i].text, &level))
			TH_LOG("%s", level_cases[i].text);
		if (!level_cases[i].ret)
			EXPECT_EQ(level_cases[i].level, level)
				TH_LOG("%s", level_cases[i].text);
	}
}

TEST(number_list)
{
	uint64_t v[3];
	size_t n;

	ASSERT_EQ(0, etwctl_parse_list("1,0x10,65535", 0xffff, v, 3, &n));
	EXPECT_EQ(3u, n);
	EXPECT_EQ(1u, v[0]);
	EXPECT_EQ(16u, v[1]);
	EXPECT_EQ(65535u, v[2]);
	EXPECT_EQ(-ERANGE, etwctl_parse_list("65536", 0xffff, v, 3, &n));
	EXPECT_EQ(-E2BIG, etwctl_parse_list("1,2,3,4", 0xffff, v, 3, &n));
	EXPECT_EQ(-EINVAL, etwctl_parse_list("1,,2", 0xffff, v, 3, &n));
	EXPECT_EQ(-EINVAL, etwctl_parse_list(",1", 0xffff, v, 3, &n));
	EXPECT_EQ(-EINVAL, etwctl_parse_list("1,", 0xffff, v, 3, &n));
	EXPECT_EQ(-EINVAL, etwctl_parse_list("", 0xffff, v, 3, &n));
}

TEST_HARNESS_MAIN
