// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * <TraceLoggingProvider.h> in C and C++: tracelogging_events.c built with
 * gcc (C99), g++ (C++11) and, when installed, clang (C11) and clang++
 * (C++17) must hand the provider API the same bytes for every event:
 * traits, metadata, payload and descriptor; and a C++ file that only
 * declares the provider must write through the one a C file defined.  (The C build's bytes are
 * checked against Windows' and the decoder by tracelogging_etl_test and
 * ctl/tests/tracelogging_decode_test.)
 */
#include <string.h>

#include "kselftest_harness.h"
#include "tracelogging_events.h"

typedef int (*tle_run_fn)(int i, struct tle_capture *c, const char **expect);

static struct tle_capture ref, got;

/* Every event of @run equals the gcc C build's; returns the count. */
static int compare_builds(struct __test_metadata *_metadata, tle_run_fn run)
{
	const char *e1, *e2;
	int i;

	for (i = 0; tle_run_c(i, &ref, &e1) == 0; i++) {
		EXPECT_EQ(0, run(i, &got, &e2));
		EXPECT_EQ(i + 1, got.writes);
		EXPECT_EQ(0, memcmp(&ref.desc, &got.desc, sizeof(ref.desc)));
		EXPECT_EQ(ref.prov_len, got.prov_len);
		EXPECT_EQ(0, memcmp(ref.prov, got.prov, sizeof(ref.prov)));
		EXPECT_EQ(ref.meta_len, got.meta_len);
		EXPECT_EQ(0, memcmp(ref.meta, got.meta, sizeof(ref.meta)));
		EXPECT_EQ(ref.payload_len, got.payload_len);
		EXPECT_EQ(0, memcmp(ref.payload, got.payload,
				    sizeof(ref.payload)));
		if (_metadata->exit_code)
			TH_LOG("event %d differs", i);
	}
	EXPECT_EQ(-1, run(i, &got, &e2));
	return i;
}

TEST(gxx_cxx11)
{
	EXPECT_EQ(12, compare_builds(_metadata, tle_run_cxx));
}

/* A C++ file writes through the provider the C file defined. */
TEST(declared_in_other_tu)
{
	const char *expect;

	ASSERT_EQ(0, tle_run_c(0, &ref, &expect));
	ASSERT_EQ(0, tle_run_other_tu(&got));
	EXPECT_EQ(1, got.writes);
	EXPECT_EQ(0, memcmp(&ref.desc, &got.desc, sizeof(ref.desc)));
	EXPECT_EQ(ref.prov_len, got.prov_len);
	EXPECT_EQ(0, memcmp(ref.prov, got.prov, sizeof(ref.prov)));
	EXPECT_EQ(ref.meta_len, got.meta_len);
	EXPECT_EQ(0, memcmp(ref.meta, got.meta, sizeof(ref.meta)));
	EXPECT_EQ(ref.payload_len, got.payload_len);
	EXPECT_EQ(0, memcmp(ref.payload, got.payload, sizeof(ref.payload)));
}

/* TraceLoggingValue deduces the types the typed macros name. */
TEST(value_deduces_types)
{
	const char *expect;

	ASSERT_EQ(0, tle_run_c(10, &ref, &expect));
	ASSERT_EQ(0, tle_run_values_auto(&got));
	EXPECT_EQ(1, got.writes);
	EXPECT_EQ(ref.meta_len, got.meta_len);
	EXPECT_EQ(0, memcmp(ref.meta, got.meta, sizeof(ref.meta)));
	EXPECT_EQ(ref.payload_len, got.payload_len);
	EXPECT_EQ(0, memcmp(ref.payload, got.payload, sizeof(ref.payload)));
}

#ifdef TLE_CLANG
TEST(clang_c11)
{
	EXPECT_EQ(12, compare_builds(_metadata, tle_run_clang));
}

TEST(clangxx_cxx17)
{
	EXPECT_EQ(12, compare_builds(_metadata, tle_run_clangxx));
}
#endif

TEST_HARNESS_MAIN
