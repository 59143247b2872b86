// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The per-thread schema cache behind TdhGetEventInformation for
 * TraceLogging events (userlib/etw_tdh_cache.c): a second event with
 * the same metadata gets the schema the first one built, with its own
 * header fields, and whatever the schema depends on besides (the traits,
 * the metadata's bytes at the same address, the pointer size) gives a
 * schema of its own.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "tdh_test.h"

static const char fields[] = "a\0\x07" "b\0\x02";
static const char data[] = "\x01\0\0\0" "x";

static const char *tei_str(const TRACE_EVENT_INFO *tei, ULONG off,
			   char *out)
{
	return tdh_tei_str(tei, off, out, 32);
}

/* ProviderGuid and EventDescriptor are the event's, not the first one's. */
TEST(header_fields_per_event)
{
	static const GUID other = { 0x11223344, 0x5566, 0x7788,
				    { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG st;

	TDH_EVENT(&e, fields, data);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	free(tei);
	e.rec.EventHeader.ProviderId = other;
	e.rec.EventHeader.EventDescriptor.Id = 42;
	e.rec.EventHeader.EventDescriptor.Level = 2;
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(0, memcmp(&other, &tei->ProviderGuid, sizeof(other)));
	EXPECT_EQ(42, tei->EventDescriptor.Id);
	EXPECT_EQ(2, tei->EventDescriptor.Level);
	EXPECT_EQ(2u, tei->TopLevelPropertyCount);
	free(tei);
}

/* The provider name comes from the traits, which are part of the key. */
TEST(traits_are_in_the_key)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	char s[32];
	ULONG st;

	TDH_EVENT(&e, fields, data);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("prov", tei_str(tei, tei->ProviderNameOffset, s));
	free(tei);
	memcpy(e.traits, "\x07\x00" "next", 7);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("next", tei_str(tei, tei->ProviderNameOffset, s));
	free(tei);
	e.rec.ExtendedDataCount = 1;
	e.rec.ExtendedData = &e.x[1];
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(0u, tei->ProviderNameOffset);
	free(tei);
}

/* Metadata rewritten in place, at the same address, is a new schema. */
TEST(metadata_bytes_not_address)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	char s[32];
	ULONG st;

	TDH_EVENT(&e, fields, data);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("a", tei_str(tei, tei->EventPropertyInfoArray[0].NameOffset,
				  s));
	free(tei);
	e.meta[5] = 'z';
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("z", tei_str(tei, tei->EventPropertyInfoArray[0].NameOffset,
				  s));
	free(tei);
}

/* A pointer field is 4 or 8 bytes as the context says, cached or not. */
TEST(pointer_size_is_in_the_key)
{
	TDH_CONTEXT ctx = { 4, TDH_CONTEXT_POINTERSIZE, 0 };
	union {
		TRACE_EVENT_INFO tei;
		char bytes[512];
	} buf;
	static const USHORT want[] = { 8, 4, 8 };
	struct tdh_event e;
	ULONG size;
	int i;

	TDH_EVENT(&e, "p\0\x10", "");
	for (i = 0; i < 3; i++) {
		size = sizeof(buf);
		ASSERT_EQ(ERROR_SUCCESS,
			  TdhGetEventInformation(&e.rec, i == 1, &ctx, &buf.tei,
						 &size));
		EXPECT_EQ(want[i], buf.tei.EventPropertyInfoArray[0].length);
	}
}

/* A cached schema still answers a short buffer with the size it needs. */
TEST(short_buffer_on_a_hit)
{
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	ULONG st, size, need;

	TDH_EVENT(&e, fields, data);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	need = 0;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &need));
	size = need - 1;
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 0, NULL, tei, &size));
	EXPECT_EQ(need, size);
	size = need;
	EXPECT_EQ(ERROR_SUCCESS,
		  TdhGetEventInformation(&e.rec, 0, NULL, tei, &size));
	free(tei);
}

TEST_HARNESS_MAIN
