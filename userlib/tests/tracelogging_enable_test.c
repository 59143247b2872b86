// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * TraceLogging's enable state, through the test double: what the enable
 * callback records, the level and keyword rules of
 * TraceLoggingProviderEnabled, that a disabled write evaluates none of
 * its arguments, and the registration calls' results.
 */
#include "kselftest_harness.h"
#include "tracelogging_double.h"

#include <TraceLoggingProvider.h>

TRACELOGGING_DEFINE_PROVIDER(prov, "Etw-TraceLogging-Enable",
	(0x6f0b9a1e, 0x4c1d, 0x5e2f, 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
	 0x77));

/* A handle of internal linkage, over storage defined apart. */
TRACELOGGING_DEFINE_PROVIDER_STORAGE(stored_provider, "Etw-Stored",
	(0x6f0b9a1e, 0x4c1d, 0x5e2f, 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
	 0x78));
static TraceLoggingHProvider const stored = &stored_provider;

static int evaluated;

static int side_effect(void)
{
	return ++evaluated;
}

static void write_event(void)
{
	TraceLoggingWrite(prov, "E", TraceLoggingLevel(WINEVENT_LEVEL_INFO),
			  TraceLoggingKeyword(0x2),
			  TraceLoggingInt32(side_effect(), "n"));
}

static int user_calls;
static ULONG user_code;
static PVOID user_ctx;

static VOID NTAPI user_callback(LPCGUID src, ULONG code, UCHAR level,
				ULONGLONG any, ULONGLONG all,
				PEVENT_FILTER_DESCRIPTOR filter, PVOID ctx)
{
	user_calls++;
	user_code = code;
	user_ctx = ctx;
}

FIXTURE(reg) {
	int unused;
};

FIXTURE_SETUP(reg)
{
	tld_reset();
	evaluated = 0;
	user_calls = 0;
	ASSERT_EQ(0, TraceLoggingRegister(prov));
}

FIXTURE_TEARDOWN(reg)
{
	TraceLoggingUnregister(prov);
}

/* Registered but not enabled: nothing written, nothing evaluated. */
TEST_F(reg, disabled_evaluates_nothing)
{
	write_event();
	EXPECT_EQ(0, tld.writes);
	EXPECT_EQ(0, evaluated);
	EXPECT_FALSE(TraceLoggingProviderEnabled(prov, 0, 0));
}

TEST_F(reg, enabled_writes_once)
{
	tld_notify(1, 4, 0x2, 0);
	write_event();
	EXPECT_EQ(1, tld.writes);
	EXPECT_EQ(1, evaluated);
}

/* Level rule: an event is enabled up to the session's level. */
TEST_F(reg, level_rule)
{
	tld_notify(1, 3, ~0ull, 0);
	EXPECT_TRUE(TraceLoggingProviderEnabled(prov, 3, 0));
	EXPECT_FALSE(TraceLoggingProviderEnabled(prov, 4, 0));
	write_event();
	EXPECT_EQ(0, tld.writes);
	EXPECT_EQ(0, evaluated);
}

/* Level 0 from the session enables every level, 255 included. */
TEST_F(reg, level_zero_is_all)
{
	tld_notify(1, 0, ~0ull, 0);
	EXPECT_TRUE(TraceLoggingProviderEnabled(prov, 255, 0));
}

/* Keyword rules: 0 always; else any bit of Any and all bits of All. */
TEST_F(reg, keyword_rules)
{
	static const struct {
		ULONGLONG any, all, kw;
		BOOLEAN on;
	} rules[] = {
		{ 0x6, 0, 0, TRUE },
		{ 0x6, 0, 0x2, TRUE },
		{ 0x6, 0, 0x1, FALSE },
		{ 0x6, 0x4, 0x2, FALSE },
		{ 0x6, 0x4, 0x6, TRUE },
	};
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		tld_notify(1, 5, rules[i].any, rules[i].all);
		EXPECT_EQ(rules[i].on,
			  TraceLoggingProviderEnabled(prov, 5, rules[i].kw));
	}
}

TEST_F(reg, disable_stops_writes)
{
	tld_notify(1, 5, ~0ull, 0);
	tld_notify(0, 0, 0, 0);
	write_event();
	EXPECT_EQ(0, tld.writes);
}

/* A capture-state request (code 2) leaves the state as it was. */
TEST_F(reg, capture_state_keeps_state)
{
	tld_notify(1, 5, ~0ull, 0);
	tld_notify(2, 0, 0, 0);
	EXPECT_TRUE(TraceLoggingProviderEnabled(prov, 5, 0x2));
}

TEST_F(reg, unregister_disables)
{
	tld_notify(1, 5, ~0ull, 0);
	TraceLoggingUnregister(prov);
	EXPECT_EQ(1, tld.unregisters);
	EXPECT_FALSE(TraceLoggingProviderEnabled(prov, 0, 0));
	write_event();
	EXPECT_EQ(0, tld.writes);
	/* A second unregistration is a no-op. */
	TraceLoggingUnregister(prov);
	EXPECT_EQ(1, tld.unregisters);
}

TEST_F(reg, register_twice)
{
	EXPECT_EQ((HRESULT)0x80070057, TraceLoggingRegister(prov));
}

TEST(register_ex_callback)
{
	int ctx;

	tld_reset();
	user_calls = 0;
	ASSERT_EQ(0, TraceLoggingRegisterEx(prov, user_callback, &ctx));
	tld_notify(1, 5, ~0ull, 0);
	EXPECT_EQ(1, user_calls);
	EXPECT_EQ(1u, user_code);
	EXPECT_EQ(&ctx, user_ctx);
	EXPECT_TRUE(TraceLoggingProviderEnabled(prov, 5, 0));
	TraceLoggingUnregister(prov);
}

/* The traits cannot be set: the registration is undone. */
TEST(register_traits_fail)
{
	tld_reset();
	tld.set_error = 1;	/* ERROR_INVALID_FUNCTION */
	EXPECT_EQ((HRESULT)0x80070001, TraceLoggingRegister(prov));
	EXPECT_FALSE(tld.registered);
	EXPECT_EQ(1, tld.unregisters);
	EXPECT_EQ(0u, prov->RegHandle);
}

TEST(provider_id)
{
	static const GUID id = { 0x6f0b9a1e, 0x4c1d, 0x5e2f,
				 { 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
				   0x77 } };

	EXPECT_EQ(0, memcmp(&id, TraceLoggingProviderId(prov), sizeof(id)));
}

/* WriteActivity passes both activity ids. */
TEST(write_activity)
{
	GUID act = { 1, 2, 3, { 4 } }, rel = { 5, 6, 7, { 8 } };

	tld_reset();
	ASSERT_EQ(0, TraceLoggingRegister(prov));
	tld_notify(1, 0, ~0ull, 0);
	TraceLoggingWriteActivity(prov, "A", &act, &rel,
				  TraceLoggingInt32(1, "one"));
	EXPECT_EQ(1, tld.writes);
	EXPECT_TRUE(tld.has_activity);
	EXPECT_EQ(0, memcmp(&act, &tld.activity, sizeof(act)));
	EXPECT_TRUE(tld.has_related);
	EXPECT_EQ(0, memcmp(&rel, &tld.related, sizeof(rel)));
	TraceLoggingUnregister(prov);
}

/* Storage defined apart works as a provider: traits, GUID, writes. */
TEST(define_provider_storage)
{
	static const UCHAR traits[] = "\x0d\x00" "Etw-Stored";

	tld_reset();
	ASSERT_EQ(0, TraceLoggingRegister(stored));
	EXPECT_EQ(0x78, TraceLoggingProviderId(stored)->Data4[7]);
	ASSERT_EQ(sizeof(traits), tld.traits_len);
	EXPECT_EQ(0, memcmp(traits, tld.traits, sizeof(traits)));
	tld_notify(1, 0, ~0ull, 0);
	TraceLoggingWrite(stored, "S", TraceLoggingInt32(7, "seven"));
	EXPECT_EQ(1, tld.writes);
	TraceLoggingUnregister(stored);
}

TEST_HARNESS_MAIN
