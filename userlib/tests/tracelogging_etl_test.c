// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * <TraceLoggingProvider.h> against Windows: primitive-types.etl holds five
 * "PrimitiveTypesTest" events of provider "solar_system" that the Windows
 * SDK's macros wrote.  This test writes the same events (same field
 * macros, names and values) and compares, byte for byte, what the macros
 * hand to the provider API with what the file recorded: the provider
 * traits (PROV_TRAITS item), the event metadata (EVENT_SCHEMA_TL item),
 * the payload and the event descriptor.  (The file's "int64_type" field
 * is declared UINT64, so it is written with TraceLoggingUInt64.)
 */
#include "etl_test.h"
#include "kselftest_harness.h"
#include "testdata.h"
#include "tracelogging_double.h"

#include <TraceLoggingProvider.h>

#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define EVENTS		5

/* d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615, the file's provider. */
TRACELOGGING_DEFINE_PROVIDER(solar_system, "solar_system",
	(0xd3dd3dd4, 0xaac2, 0x4e2a, 0x8d, 0xd4, 0xa8, 0xfb, 0x61, 0xb7, 0x76,
	 0x15));

/* The values the Windows program wrote, one row per event. */
struct planet {
	const char *name;
	UINT8 boolean;
	char initial;
	INT16 i16;
	INT32 i32;
	UINT16 u16;
	UINT32 u32;
	INT64 i64;
	UINT64 u64;
	GUID guid;
	ULONGLONG filetime;
	SYSTEMTIME systime;
};

static const struct planet planets[EVENTS] = {
	{ "Mercury", 0, 'M', -51, -102, 51, 102, -204, 204,
	  { 0x0ad614c4, 0x0ef4, 0x4225,
	    { 0x80, 0x13, 0xf4, 0x4f, 0x37, 0xcb, 0x03, 0x97 } },
	  0x01d7a58b4dfa1070ull, { 2021, 9, 4, 9, 14, 59, 35, 799 } },
	{ "Venus", 1, 'V', -95, -190, 95, 190, -380, 380,
	  { 0xe04ff801, 0x9ea3, 0x494f,
	    { 0xa1, 0x0e, 0x8e, 0xf8, 0x33, 0xe9, 0x09, 0x9f } },
	  0x01d7a58b4e3d33f0ull, { 2021, 9, 4, 9, 14, 59, 36, 239 } },
	{ "Earth", 0, 'E', -65, -130, 65, 130, -260, 260,
	  { 0xc7a6c80e, 0xf2a6, 0x4220,
	    { 0xab, 0x98, 0xd7, 0xc2, 0x1a, 0x58, 0xf9, 0xfb } },
	  0x01d7a58b4e7f1ef0ull, { 2021, 9, 4, 9, 14, 59, 36, 671 } },
	{ "Mars", 0, 'M', -29, -58, 29, 58, -116, 116,
	  { 0x0a922cee, 0x67c1, 0x4108,
	    { 0xb3, 0x9d, 0xb1, 0x32, 0xe4, 0x70, 0x33, 0xc4 } },
	  0x01d7a58b4eb8a580ull, { 2021, 9, 4, 9, 14, 59, 37, 48 } },
	{ "Jupiter", 1, 'J', -69, -138, 69, 138, -276, 276,
	  { 0xbb11b97b, 0x1110, 0x4eb6,
	    { 0xbc, 0x33, 0xfd, 0x71, 0x21, 0x9d, 0x32, 0x2e } },
	  0x01d7a58b4efb2cc0ull, { 2021, 9, 4, 9, 14, 59, 37, 484 } },
};

static void write_planet(const struct planet *p)
{
	FILETIME ft = { (DWORD)p->filetime, (DWORD)(p->filetime >> 32) };

	TraceLoggingWrite(solar_system, "PrimitiveTypesTest",
		TraceLoggingString(p->name, "string_type"),
		TraceLoggingBoolean(p->boolean, "boolean_type"),
		TraceLoggingChar(p->initial, "char_type"),
		TraceLoggingInt16(p->i16, "int16_type"),
		TraceLoggingInt32(p->i32, "int32_type"),
		TraceLoggingUInt16(p->u16, "uint16_type"),
		TraceLoggingUInt32(p->u32, "uint32_type"),
		TraceLoggingUInt64(p->i64, "int64_type"),
		TraceLoggingUInt64(p->u64, "uint64_type"),
		TraceLoggingGuid(p->guid, "guid_type"),
		TraceLoggingFileTime(ft, "file_time_type"),
		TraceLoggingSystemTime(p->systime, "system_time_type"));
}

struct file_event {
	struct etw_event_descriptor desc;
	struct etw_guid provider;
	struct etw_etl_ext traits;
	struct etw_etl_ext schema;
	const void *payload;
	uint32_t payload_len;
};

static const struct etw_etl_ext *find_ext(const struct etw_etl_event *ev,
					  uint16_t type)
{
	uint32_t i;

	for (i = 0; i < ev->ext_count; i++)
		if (ev->ext[i].type == type)
			return &ev->ext[i];
	return NULL;
}

/* The file's events, pointing into @buf (its second buffer). */
static int read_events(uint8_t *buf, size_t size, struct file_event *out)
{
	struct etw_etl_reader *r;
	struct etw_etl_records it;
	struct etw_etl_event ev;
	int n = 0;

	if (etw_etl_reader_open(PRIMITIVE, &r))
		return -1;
	if (etw_etl_reader_buffer(r, 1, buf) ||
	    etw_etl_records_init(&it, buf, size, etw_etl_reader_clock(r))) {
		etw_etl_reader_close(r);
		return -1;
	}
	while (n < EVENTS && etw_etl_records_next(&it, &ev) == 1) {
		out[n].desc = ev.descriptor;
		out[n].provider = ev.provider_id;
		if (!find_ext(&ev, ETW_EXT_PROV_TRAITS) ||
		    !find_ext(&ev, ETW_EXT_EVENT_SCHEMA_TL))
			break;
		out[n].traits = *find_ext(&ev, ETW_EXT_PROV_TRAITS);
		out[n].schema = *find_ext(&ev, ETW_EXT_EVENT_SCHEMA_TL);
		out[n].payload = ev.user_data;
		out[n].payload_len = ev.user_data_len;
		n++;
	}
	etw_etl_reader_close(r);
	return n;
}

FIXTURE(primitive) {
	uint8_t buf[8192];
	struct file_event ev[EVENTS];
};

FIXTURE_SETUP(primitive)
{
	REQUIRE_TESTDATA();
	ASSERT_EQ(EVENTS, read_events(self->buf, sizeof(self->buf),
				      self->ev));
	tld_reset();
	ASSERT_EQ(0, TraceLoggingRegister(solar_system));
	/* A session enables every level and keyword. */
	tld_notify(1, 0, ~0ull, 0);
}

FIXTURE_TEARDOWN(primitive)
{
	TraceLoggingUnregister(solar_system);
}

/* The registered GUID and the traits set are the file's. */
TEST_F(primitive, provider)
{
	EXPECT_EQ(0, memcmp(&tld.provider, &self->ev[0].provider,
			    sizeof(GUID)));
	EXPECT_EQ(0, memcmp(TraceLoggingProviderId(solar_system),
			    &self->ev[0].provider, sizeof(GUID)));
	EXPECT_EQ(1, tld.traits_sets);
	ASSERT_EQ(self->ev[0].traits.size, tld.traits_len);
	EXPECT_EQ(0, memcmp(self->ev[0].traits.data, tld.traits,
			    tld.traits_len));
}

/* Each event: traits, metadata, payload and descriptor, byte for byte. */
TEST_F(primitive, events)
{
	int i;

	for (i = 0; i < EVENTS; i++) {
		const struct file_event *f = &self->ev[i];

		write_planet(&planets[i]);
		ASSERT_EQ(i + 1, tld.writes);
		EXPECT_EQ(0, tld.bad_desc);
		ASSERT_EQ(f->traits.size, tld.prov_meta_len);
		EXPECT_EQ(0, memcmp(f->traits.data, tld.prov_meta,
				    tld.prov_meta_len));
		ASSERT_EQ(f->schema.size, tld.meta_len);
		EXPECT_EQ(0, memcmp(f->schema.data, tld.meta, tld.meta_len));
		ASSERT_EQ(f->payload_len, tld.payload_len);
		EXPECT_EQ(0, memcmp(f->payload, tld.payload,
				    tld.payload_len));
		ASSERT_EQ(sizeof(f->desc), sizeof(tld.desc));
		EXPECT_EQ(0, memcmp(&f->desc, &tld.desc, sizeof(tld.desc)));
		EXPECT_FALSE(tld.has_activity);
		EXPECT_FALSE(tld.has_related);
	}
}

TEST_HARNESS_MAIN
