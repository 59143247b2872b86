// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The per-thread schema cache behind TdhGetEventInformation
 * (userlib/etw_tdh_cache.c): a second event with the same schema gets
 * the one the first built, with its own header fields, and whatever the
 * schema depends on besides (TraceLogging's traits, the metadata's bytes
 * at the same address, the pointer size, a kernel event's frame count,
 * which manifests are loaded) gives a schema of its own.
 */
#include <stdio.h>

#include "etw_tdh.h"
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

static const GUID process_guid = { 0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID stackwalk_guid = { 0xdef2fe46, 0x7bd6, 0x4b80,
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } };
static const GUID system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

static void kernel_event(EVENT_RECORD *r, uint8_t *data, size_t len,
			 const GUID *guid, UCHAR version, UCHAR opcode)
{
	memset(r, 0, sizeof(*r));
	memset(data, 0, len);
	r->EventHeader.Flags = EVENT_HEADER_FLAG_CLASSIC_HEADER |
			       EVENT_HEADER_FLAG_64_BIT_HEADER;
	r->EventHeader.ProviderId = *guid;
	r->EventHeader.EventDescriptor.Version = version;
	r->EventHeader.EventDescriptor.Opcode = opcode;
	r->UserData = data;
	r->UserDataLength = (USHORT)len;
}

/*
 * A kernel class's schema is the class's: the second Process_V4 Start
 * has its own Level, and ProviderGuid stays MSNT_SystemTrace's.
 */
TEST(kernel_header_fields_per_event)
{
	uint8_t data[128];
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	ULONG st;
	int i;

	for (i = 0; i < 2; i++) {
		kernel_event(&r, data, sizeof(data), &process_guid, 4, 1);
		r.EventHeader.EventDescriptor.Level = (UCHAR)(2 + i);
		tei = tdh_info(&r, &st);
		ASSERT_NE(NULL, tei);
		EXPECT_EQ(2 + i, tei->EventDescriptor.Level);
		EXPECT_EQ(1, tei->EventDescriptor.Opcode);
		EXPECT_EQ(0, memcmp(&system_trace, &tei->ProviderGuid,
				    sizeof(GUID)));
		EXPECT_EQ(0, memcmp(&process_guid, &tei->EventGuid,
				    sizeof(GUID)));
		free(tei);
	}
}

/* StackWalk's Stack1 ... follow each payload: 3, 1, then 3 frames again. */
TEST(kernel_frame_count_is_in_the_key)
{
	static const ULONG frames[] = { 3, 1, 3 };
	uint8_t data[16 + 8 * 3];
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	ULONG st;
	size_t i;

	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		kernel_event(&r, data, 16 + 8 * frames[i], &stackwalk_guid, 2,
			     32);
		tei = tdh_info(&r, &st);
		ASSERT_NE(NULL, tei);
		EXPECT_EQ(3 + frames[i], tei->TopLevelPropertyCount)
			TH_LOG("event %zu", i);
		free(tei);
	}
}

/* The frames' names, as "Stack%u" writes them, up to the 192nd. */
TEST(kernel_frame_names)
{
	static const ULONG at[] = { 1, 9, 10, 99, 100, 192 };
	uint8_t data[16 + 8 * 192];
	TRACE_EVENT_INFO *tei;
	char want[16], s[32];
	EVENT_RECORD r;
	ULONG st;
	size_t i;

	kernel_event(&r, data, sizeof(data), &stackwalk_guid, 2, 32);
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	ASSERT_EQ(3 + 192, tei->TopLevelPropertyCount);
	for (i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		snprintf(want, sizeof(want), "Stack%u", at[i]);
		EXPECT_STREQ(want, tei_str(tei, tei->EventPropertyInfoArray[
					   2 + at[i]].NameOffset, s));
	}
	free(tei);
}

#define MAN(field) \
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/" \
	"win/2004/08/events\"><instrumentation><events>" \
	"<provider name=\"P\" " \
	"guid=\"{0BADF00D-0001-0002-0304-05060708090A}\">" \
	"<templates><template tid=\"T\">" \
	"<data name=\"" field "\" inType=\"win:UInt32\"/>" \
	"</template></templates>" \
	"<events><event value=\"1\" version=\"0\" template=\"T\"/>" \
	"</events></provider></events></instrumentation>" \
	"</instrumentationManifest>"

/*
 * A manifest's schema lasts as long as the manifest: unloaded, the event
 * has none; loaded again with another template, it has the new one.
 */
TEST(manifest_changes_are_new_schemas)
{
	static const GUID prov = { 0x0badf00d, 0x0001, 0x0002,
		{ 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a } };
	static const char first[] = MAN("first"), second[] = MAN("second");
	uint8_t data[4] = { 0 };
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	char s[32];
	ULONG st;

	memset(&r, 0, sizeof(r));
	r.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r.EventHeader.ProviderId = prov;
	r.EventHeader.EventDescriptor.Id = 1;
	r.UserData = data;
	r.UserDataLength = sizeof(data);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhLoadManifestFromMemory((PVOID)first, sizeof(first) - 1));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("first",
		     tei_str(tei, tei->EventPropertyInfoArray[0].NameOffset, s));
	free(tei);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhUnloadManifestFromMemory((PVOID)first, sizeof(first) - 1));
	EXPECT_EQ(NULL, tdh_info(&r, &st));
	EXPECT_EQ(ERROR_NOT_FOUND, st);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhLoadManifestFromMemory((PVOID)second, sizeof(second) - 1));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("second",
		     tei_str(tei, tei->EventPropertyInfoArray[0].NameOffset, s));
	free(tei);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhUnloadManifestFromMemory((PVOID)second,
					      sizeof(second) - 1));
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

/*
 * etw_tdh_event_schema(): the cached schema itself, by its number.  The
 * same schema has the same number and bytes for every event (those of
 * the event it was built for, the descriptor included); another schema
 * has another number; the bytes are TdhGetEventInformation's.
 */
TEST(schema_numbers)
{
	const TRACE_EVENT_INFO *a, *b;
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	uint64_t ida, idb;
	ULONG st, sa, sb, need;

	TDH_EVENT(&e, fields, data);
	e.rec.EventHeader.EventDescriptor.Id = 7;
	ASSERT_EQ(ERROR_SUCCESS,
		  etw_tdh_event_schema(&e.rec, &a, &sa, &ida));
	EXPECT_NE(0, ida);
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	need = 0;
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&e.rec, 0, NULL, NULL, &need));
	ASSERT_EQ(sa, need);
	EXPECT_EQ(0, memcmp(a, tei, sa));
	free(tei);
	e.rec.EventHeader.EventDescriptor.Id = 8;
	ASSERT_EQ(ERROR_SUCCESS,
		  etw_tdh_event_schema(&e.rec, &b, &sb, &idb));
	EXPECT_EQ(ida, idb);
	EXPECT_EQ(sa, sb);
	EXPECT_EQ(7, b->EventDescriptor.Id);
	e.meta[5] = 'z';
	ASSERT_EQ(ERROR_SUCCESS,
		  etw_tdh_event_schema(&e.rec, &b, &sb, &idb));
	EXPECT_NE(ida, idb);
	e.meta[5] = 'a';
	ASSERT_EQ(ERROR_SUCCESS,
		  etw_tdh_event_schema(&e.rec, &b, &sb, &idb));
	EXPECT_EQ(ida, idb);
}

/*
 * A schema the cache does not keep (its key, the metadata, more than 4
 * KiB) is ERROR_MORE_DATA, which TdhGetEventInformation still gives; an
 * event without one is ERROR_NOT_FOUND.
 */
TEST(schema_numbers_uncached)
{
	static const GUID unknown = { 0x0badf00d, 0x0001, 0x0002,
		{ 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0b } };
	const size_t name = 5000;
	const TRACE_EVENT_INFO *p;
	struct tdh_event e;
	TRACE_EVENT_INFO *tei;
	uint8_t *meta;
	uint16_t size;
	uint64_t id;
	ULONG st, n;

	TDH_EVENT(&e, fields, data);
	size = (uint16_t)(2 + 1 + name + 1 + sizeof(fields) - 1);
	meta = calloc(1, size);
	ASSERT_NE(NULL, meta);
	memcpy(meta, &size, 2);
	memset(meta + 3, 'E', name);
	memcpy(meta + 3 + name + 1, fields, sizeof(fields) - 1);
	e.x[1].DataPtr = (uintptr_t)meta;
	e.x[1].DataSize = size;
	EXPECT_EQ(ERROR_MORE_DATA, etw_tdh_event_schema(&e.rec, &p, &n, &id));
	tei = tdh_info(&e.rec, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(2u, tei->TopLevelPropertyCount);
	free(tei);
	free(meta);
	memset(&e.rec, 0, sizeof(e.rec));
	e.rec.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	e.rec.EventHeader.ProviderId = unknown;
	EXPECT_EQ(ERROR_NOT_FOUND, etw_tdh_event_schema(&e.rec, &p, &n, &id));
}

TEST_HARNESS_MAIN
