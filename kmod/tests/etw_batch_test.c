// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of etw_batch.c: the TSC rate a ring's drain converts
 * readings with, including intervals whose quotient would not fit.
 */
#include <kunit/test.h>

#include "../compat.h"
#include "../etw_internal.h"

/**
 * struct etw_bt_rate - one interval and the rate it gives
 * @name: the case
 * @ns: nanoseconds
 * @ticks: TSC ticks
 * @mult: ns per tick << 24, 0 for none
 */
struct etw_bt_rate {
	const char *name;
	u64 ns;
	u64 ticks;
	u32 mult;
};

static const struct etw_bt_rate etw_bt_rates[] = {
	{ "3 GHz over 1 s", 1000000000, 3000000000ULL, 5592405 },
	{ "1 GHz over 1 s", 1000000000, 1000000000, 1 << 24 },
	{ "just under 2^8 ns a tick", 255, 1, 255U << 24 },
	{ "2^8 ns a tick does not fit", 256, 1, 0 },
	/* The quotient needs 65 bits: a division would trap. */
	{ "2^41 ns in one tick", 1ULL << 41, 1, 0 },
	{ "every ns in one tick", U64_MAX, 1, 0 },
	{ "under 2^-24 ns a tick rounds to 0", 1, 1ULL << 25, 0 },
	{ "ticks past 2^56", 1ULL << 40, 1ULL << 60, 16 },
	{ "all ticks", U64_MAX, U64_MAX, 1 << 24 },
};

static void etw_bt_rate_desc(const struct etw_bt_rate *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(etw_bt_rate, etw_bt_rates, etw_bt_rate_desc);

static void etw_batch_rate_test(struct kunit *test)
{
	const struct etw_bt_rate *r = test->param_value;

	KUNIT_EXPECT_EQ(test, etw_batch_rate(r->ns, r->ticks), r->mult);
}

static struct kunit_case etw_batch_cases[] = {
	KUNIT_CASE_PARAM(etw_batch_rate_test, etw_bt_rate_gen_params),
	{}
};

static struct kunit_suite etw_batch_suite = {
	.name = "etw_batch",
	.test_cases = etw_batch_cases,
};
kunit_test_suite(etw_batch_suite);
