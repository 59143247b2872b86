/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Layout of the Windows-compatible headers: every struct's size and field
 * offsets against the SDK's x64 numbers (data/layout_table.h), bit-field
 * placement, the uapi structs libetw passes to the kernel unchanged, the
 * well-known GUIDs and constants, and the SDK's inline helpers.
 */
#define INITGUID	/* this unit defines the well-known GUIDs */
#include <stdint.h>
#include <string.h>

#include <windows.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>
#include <linux/etw.h>

#include "kselftest_harness.h"
#include "data/layout_table.h"

/* The sizes everything else depends on, checked at compile time too. */
_Static_assert(sizeof(ULONG) == 4, "ULONG is 32-bit (LLP64)");
_Static_assert(sizeof(LONG) == 4, "LONG is 32-bit (LLP64)");
_Static_assert(sizeof(WCHAR) == 2, "WCHAR is a UTF-16 code unit");
_Static_assert(sizeof(HANDLE) == 8, "HANDLE is pointer-sized");
_Static_assert(sizeof(BOOLEAN) == 1, "BOOLEAN is a byte");
_Static_assert(sizeof(BOOL) == 4, "BOOL is an int");
_Static_assert(sizeof(GUID) == 16, "GUID");
_Static_assert(sizeof(WNODE_HEADER) == 48, "WNODE_HEADER");
_Static_assert(sizeof(EVENT_DESCRIPTOR) == 16, "EVENT_DESCRIPTOR");
_Static_assert(sizeof(EVENT_DATA_DESCRIPTOR) == 16, "EVENT_DATA_DESCRIPTOR");
_Static_assert(sizeof(EVENT_FILTER_HEADER) == 24, "EVENT_FILTER_HEADER");
_Static_assert(sizeof(EVENT_HEADER) == 80, "EVENT_HEADER");
_Static_assert(sizeof(EVENT_RECORD) == 112, "EVENT_RECORD");
_Static_assert(sizeof(EVENT_TRACE_PROPERTIES) == 120, "EVENT_TRACE_PROPERTIES");
_Static_assert(sizeof(EVENT_TRACE_PROPERTIES_V2) == 144,
	       "EVENT_TRACE_PROPERTIES_V2");
_Static_assert(sizeof(TRACE_LOGFILE_HEADER) == 0x118, "TRACE_LOGFILE_HEADER");
_Static_assert(offsetof(TRACE_LOGFILE_HEADER, BootTime) == 0xF8,
	       "4 bytes of padding after TimeZone");
_Static_assert(sizeof(EVENT_TRACE_LOGFILEW) == 448, "EVENT_TRACE_LOGFILEW");
_Static_assert(sizeof(EVENT_TRACE_LOGFILEA) == 448, "EVENT_TRACE_LOGFILEA");
_Static_assert(sizeof(ENABLE_TRACE_PARAMETERS) == 48,
	       "ENABLE_TRACE_PARAMETERS");
_Static_assert(sizeof(EVENT_TRACE) == 88, "EVENT_TRACE");

/* --------------------------------------------------------------------- */
/*
 * Sizes and offsets, one variant per struct and one result per struct:
 * the TH_LOG lines name each field that differs.
 */

FIXTURE(layout) {
	int unused;
};

FIXTURE_VARIANT(layout) {
	const struct etw_layout *l;
};

#define ETW_ADD_VARIANT(name)						\
	FIXTURE_VARIANT_ADD(layout, name) { .l = &etw_layout_##name };
ETW_LAYOUTS(ETW_ADD_VARIANT)

FIXTURE_SETUP(layout) {}
FIXTURE_TEARDOWN(layout) {}

TEST_F(layout, size_and_offsets)
{
	const struct etw_layout *l = variant->l;
	size_t i;

	EXPECT_EQ(l->want, l->size)
		TH_LOG("sizeof(%s) is %zu, the SDK has %zu", l->name, l->size,
		       l->want);
	for (i = 0; i < l->nfields; i++) {
		const struct etw_field *f = &l->fields[i];

		EXPECT_EQ(f->want, f->off)
			TH_LOG("%s.%s is at %zu, the SDK has %zu", l->name,
			       f->name, f->off, f->want);
	}
}

/* --------------------------------------------------------------------- */
/* Bit-fields: offsetof cannot see them, so check their bits. */

TEST(bitfield_extended_item_linkage)
{
	EVENT_HEADER_EXTENDED_DATA_ITEM item;
	USHORT word;

	memset(&item, 0, sizeof(item));
	item.Linkage = 1;
	memcpy(&word, (char *)&item + 4, sizeof(word));
	EXPECT_EQ(0x0001, word);

	memset(&item, 0, sizeof(item));
	item.Reserved2 = 0x7fff;
	memcpy(&word, (char *)&item + 4, sizeof(word));
	EXPECT_EQ(0xfffe, word);
}

TEST(bitfield_properties_v2_version)
{
	EVENT_TRACE_PROPERTIES_V2 p;

	memset(&p, 0, sizeof(p));
	p.VersionNumber = 2;
	EXPECT_EQ(2, p.V2Control);
}

TEST(bitfield_properties_v2_options)
{
	static const struct {
		const char *name;
		ULONG64 bit;
	} bits[] = {
		{ "Wow", 1 }, { "QpcDeltaTracking", 2 },
		{ "LargeMdlPages", 4 }, { "ExcludeKernelStack", 8 },
	};
	EVENT_TRACE_PROPERTIES_V2 p;
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(bits); i++) {
		memset(&p, 0, sizeof(p));
		switch (i) {
		case 0: p.Wow = 1; break;
		case 1: p.QpcDeltaTracking = 1; break;
		case 2: p.LargeMdlPages = 1; break;
		case 3: p.ExcludeKernelStack = 1; break;
		}
		EXPECT_EQ(bits[i].bit, p.V2Options)
			TH_LOG("%s", bits[i].name);
	}
}

/* --------------------------------------------------------------------- */
/* The uapi structs must be the Windows ones byte for byte. */

#define SAME_FIELD(win, wf, lin, lf)					\
	do {								\
		EXPECT_EQ(offsetof(win, wf), offsetof(struct lin, lf))	\
			TH_LOG(#win "." #wf " vs " #lin "." #lf);	\
		EXPECT_EQ(sizeof(((win *)0)->wf),			\
			  sizeof(((struct lin *)0)->lf))		\
			TH_LOG(#win "." #wf " vs " #lin "." #lf);	\
	} while (0)

TEST(uapi_guid)
{
	EXPECT_EQ(sizeof(GUID), sizeof(struct etw_guid));
	SAME_FIELD(GUID, Data1, etw_guid, data1);
	SAME_FIELD(GUID, Data2, etw_guid, data2);
	SAME_FIELD(GUID, Data3, etw_guid, data3);
	SAME_FIELD(GUID, Data4, etw_guid, data4);
}

TEST(uapi_event_descriptor)
{
	EXPECT_EQ(sizeof(EVENT_DESCRIPTOR),
		  sizeof(struct etw_event_descriptor));
	SAME_FIELD(EVENT_DESCRIPTOR, Id, etw_event_descriptor, id);
	SAME_FIELD(EVENT_DESCRIPTOR, Version, etw_event_descriptor, version);
	SAME_FIELD(EVENT_DESCRIPTOR, Channel, etw_event_descriptor, channel);
	SAME_FIELD(EVENT_DESCRIPTOR, Level, etw_event_descriptor, level);
	SAME_FIELD(EVENT_DESCRIPTOR, Opcode, etw_event_descriptor, opcode);
	SAME_FIELD(EVENT_DESCRIPTOR, Task, etw_event_descriptor, task);
	SAME_FIELD(EVENT_DESCRIPTOR, Keyword, etw_event_descriptor, keyword);
}

TEST(uapi_data_descriptor)
{
	EXPECT_EQ(sizeof(EVENT_DATA_DESCRIPTOR),
		  sizeof(struct etw_data_descriptor));
	SAME_FIELD(EVENT_DATA_DESCRIPTOR, Ptr, etw_data_descriptor, ptr);
	SAME_FIELD(EVENT_DATA_DESCRIPTOR, Size, etw_data_descriptor, size);
	SAME_FIELD(EVENT_DATA_DESCRIPTOR, Type, etw_data_descriptor, type);
	SAME_FIELD(EVENT_DATA_DESCRIPTOR, Reserved1, etw_data_descriptor,
		   reserved1);
	SAME_FIELD(EVENT_DATA_DESCRIPTOR, Reserved2, etw_data_descriptor,
		   reserved2);
	EXPECT_EQ(EVENT_DATA_DESCRIPTOR_TYPE_NONE, ETW_DATA_TYPE_PAYLOAD);
	EXPECT_EQ(EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA,
		  ETW_DATA_TYPE_EVENT_METADATA);
	EXPECT_EQ(EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA,
		  ETW_DATA_TYPE_PROVIDER_METADATA);
	EXPECT_EQ(EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE,
		  ETW_DATA_TYPE_TIMESTAMP);
}

TEST(uapi_event_header)
{
	EXPECT_EQ(sizeof(EVENT_HEADER), sizeof(struct etw_event_header));
	SAME_FIELD(EVENT_HEADER, Size, etw_event_header, size);
	SAME_FIELD(EVENT_HEADER, HeaderType, etw_event_header, header_type);
	SAME_FIELD(EVENT_HEADER, Flags, etw_event_header, flags);
	SAME_FIELD(EVENT_HEADER, EventProperty, etw_event_header,
		   event_property);
	SAME_FIELD(EVENT_HEADER, ThreadId, etw_event_header, thread_id);
	SAME_FIELD(EVENT_HEADER, ProcessId, etw_event_header, process_id);
	SAME_FIELD(EVENT_HEADER, TimeStamp, etw_event_header, timestamp);
	SAME_FIELD(EVENT_HEADER, ProviderId, etw_event_header, provider_id);
	SAME_FIELD(EVENT_HEADER, EventDescriptor, etw_event_header,
		   descriptor);
	SAME_FIELD(EVENT_HEADER, ProcessorTime, etw_event_header,
		   processor_time);
	SAME_FIELD(EVENT_HEADER, ActivityId, etw_event_header, activity_id);
}

/* A descriptor array built with the SDK helpers reads back as uapi. */
TEST(uapi_data_descriptor_array_passes_through)
{
	static const char payload[] = "abc";
	EVENT_DATA_DESCRIPTOR d[2];
	struct etw_data_descriptor k[2];

	EventDataDescCreate(&d[0], payload, sizeof(payload));
	EventDataDescCreate(&d[1], &d[0], 7);
	d[1].Type = EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA;
	memcpy(k, d, sizeof(k));
	EXPECT_EQ((uintptr_t)payload, k[0].ptr);
	EXPECT_EQ(sizeof(payload), k[0].size);
	EXPECT_EQ(0, k[0].type);
	EXPECT_EQ((uintptr_t)&d[0], k[1].ptr);
	EXPECT_EQ(7, k[1].size);
	EXPECT_EQ(ETW_DATA_TYPE_PROVIDER_METADATA, k[1].type);
}

/* --------------------------------------------------------------------- */
/* Well-known GUIDs (defined here through INITGUID) and constants. */

static void guid_str(const GUID *g, char out[37])
{
	snprintf(out, 37,
		 "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g->Data1, g->Data2, g->Data3, g->Data4[0], g->Data4[1],
		 g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
		 g->Data4[6], g->Data4[7]);
}

TEST(well_known_guids)
{
	static const struct {
		const GUID *guid;
		const char *want;
	} t[] = {
		{ &EventTraceGuid, "68fdd900-4a3e-11d1-84f4-0000f80464e3" },
		{ &SystemTraceControlGuid,
		  "9e814aad-3204-11d2-9a82-006008a86939" },
		{ &EventTraceConfigGuid,
		  "01853a65-418f-4f36-aefc-dc0f1d2fd235" },
		{ &DefaultTraceSecurityGuid,
		  "0811c1af-7a07-4a06-82ed-869455cdf713" },
		{ &PrivateLoggerNotificationGuid,
		  "3595ab5c-042a-4c8e-b942-2d059bfeb1b1" },
	};
	char s[37];
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(t); i++) {
		guid_str(t[i].guid, s);
		EXPECT_STREQ(t[i].want, s);
	}
}

TEST(is_equal_guid)
{
	GUID a = SystemTraceControlGuid, b = SystemTraceControlGuid;

	EXPECT_TRUE(IsEqualGUID(&a, &b));
	EXPECT_TRUE(InlineIsEqualGUID(&a, &b));
	b.Data4[7] ^= 1;
	EXPECT_FALSE(IsEqualGUID(&a, &b));
	EXPECT_FALSE(InlineIsEqualGUID(&a, &b));
}

TEST(handle_and_status_values)
{
	EXPECT_EQ(UINT64_MAX, INVALID_PROCESSTRACE_HANDLE);
	EXPECT_EQ(8, sizeof(TRACEHANDLE));
	EXPECT_EQ(8, sizeof(CONTROLTRACE_ID));
	EXPECT_EQ(8, sizeof(PROCESSTRACE_HANDLE));
	EXPECT_EQ(8, sizeof(REGHANDLE));
	EXPECT_EQ(0xC0000188u, (ULONG)STATUS_LOG_FILE_FULL);
	EXPECT_EQ((uintptr_t)-1, (uintptr_t)INVALID_HANDLE_VALUE);
}

/* Values from the reference (sections 1, 3, 4, 8), table-driven. */
TEST(constants)
{
	static const struct {
		const char *name;
		unsigned long long value, want;
	} t[] = {
#define C(n, v) { #n, (unsigned long long)(n), (v) }
		C(ERROR_SUCCESS, 0), C(ERROR_INVALID_FUNCTION, 1),
		C(ERROR_FILE_NOT_FOUND, 2), C(ERROR_ACCESS_DENIED, 5),
		C(ERROR_INVALID_HANDLE, 6), C(ERROR_NOT_ENOUGH_MEMORY, 8),
		C(ERROR_INVALID_DATA, 13), C(ERROR_OUTOFMEMORY, 14),
		C(ERROR_BAD_LENGTH, 24), C(ERROR_GEN_FAILURE, 31),
		C(ERROR_NOT_SUPPORTED, 50), C(ERROR_INVALID_PARAMETER, 87),
		C(ERROR_BUFFER_OVERFLOW, 111), C(ERROR_DISK_FULL, 112),
		C(ERROR_INSUFFICIENT_BUFFER, 122), C(ERROR_BAD_PATHNAME, 161),
		C(ERROR_BUSY, 170), C(ERROR_ALREADY_EXISTS, 183),
		C(ERROR_MORE_DATA, 234), C(ERROR_ARITHMETIC_OVERFLOW, 534),
		C(ERROR_NOACCESS, 998), C(ERROR_CANCELLED, 1223),
		C(ERROR_FILE_CORRUPT, 1392),
		C(ERROR_NO_SYSTEM_RESOURCES, 1450), C(ERROR_TIMEOUT, 1460),
		C(ERROR_INVALID_TIME, 1901), C(ERROR_ACTIVE_CONNECTIONS, 2402),
		C(ERROR_WMI_GUID_NOT_FOUND, 4200),
		C(ERROR_WMI_INSTANCE_NOT_FOUND, 4201),
		C(ERROR_WMI_ALREADY_ENABLED, 4206),
		C(ERROR_WMI_INVALID_REGINFO, 4211),
		C(ERROR_WMI_ALREADY_DISABLED, 4212),
		C(ERROR_CTX_CLOSE_PENDING, 7007),
		C(WNODE_FLAG_TRACED_GUID, 0x20000),
		C(WNODE_FLAG_VERSIONED_PROPERTIES, 0x800000),
		C(EVENT_TRACE_REAL_TIME_MODE, 0x100),
		C(EVENT_TRACE_BUFFERING_MODE, 0x400),
		C(EVENT_TRACE_PRIVATE_LOGGER_MODE, 0x800),
		C(EVENT_TRACE_INDEPENDENT_SESSION_MODE, 0x08000000),
		C(EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING, 0x10000000),
		C(EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME, 5),
		C(EVENT_CONTROL_CODE_CAPTURE_STATE, 2),
		C(EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0, 0x10),
		C(EVENT_ENABLE_PROPERTY_PROVIDER_GROUP, 0x20),
		C(EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING, 0x800),
		C(EVENT_FILTER_TYPE_EVENT_NAME, 0x80000400),
		C(EVENT_FILTER_TYPE_CONTAINER, 0x80008000),
		C(MAX_EVENT_FILTERS_COUNT, 13),
		C(MAX_EVENT_DATA_DESCRIPTORS, 128),
		C(EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL, 0x0B),
		C(EVENT_HEADER_EXT_TYPE_PROV_TRAITS, 0x0C),
		C(EVENT_HEADER_EXT_TYPE_MAX, 0x13),
		C(EVENT_HEADER_FLAG_PROCESSOR_INDEX, 0x200),
		C(PROCESS_TRACE_MODE_EVENT_RECORD, 0x10000000),
		C(EventProviderSetTraits, 2), C(MaxEventInfo, 5),
		C(TraceProviderBinaryTracking, 18),
		C(TraceContextRegisterInfo, 28),
		C(EtwProviderTraitDecodeGuid, 2),
		/* libetw's own ABI reuses ETW's numbers. */
		C(ETW_MODE_REAL_TIME, EVENT_TRACE_REAL_TIME_MODE),
		C(ETW_MODE_BUFFERING, EVENT_TRACE_BUFFERING_MODE),
		C(ETW_MODE_PRIVATE, EVENT_TRACE_PRIVATE_LOGGER_MODE),
		C(ETW_MODE_INDEPENDENT, EVENT_TRACE_INDEPENDENT_SESSION_MODE),
		C(ETW_MODE_NO_PER_PROCESSOR,
		  EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING),
		C(ETW_ENABLE_IGNORE_KEYWORD_0,
		  EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0),
		C(ETW_ENABLE_PROVIDER_GROUP,
		  EVENT_ENABLE_PROPERTY_PROVIDER_GROUP),
		C(ETW_CONTROL_CAPTURE_STATE, EVENT_CONTROL_CODE_CAPTURE_STATE),
		C(ETW_EXT_EVENT_SCHEMA_TL,
		  EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL),
		C(ETW_EXT_PROV_TRAITS, EVENT_HEADER_EXT_TYPE_PROV_TRAITS),
		C(ETW_MAX_DATA_DESCRIPTORS, MAX_EVENT_DATA_DESCRIPTORS),
#undef C
	};
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(t); i++) {
		const char *name = t[i].name;

		EXPECT_EQ(t[i].want, t[i].value) TH_LOG("%s", name);
	}
}

/* --------------------------------------------------------------------- */
/* The SDK's inline helpers. */

TEST(event_desc_create_argument_order)
{
	EVENT_DESCRIPTOR d;

	/* Id, Version, Channel, Level, Task, Opcode, Keyword. */
	EventDescCreate(&d, 0x1234, 2, 16, 4, 0x5678, 1, 0x8000000000000001ull);
	EXPECT_EQ(0x1234, EventDescGetId(&d));
	EXPECT_EQ(2, EventDescGetVersion(&d));
	EXPECT_EQ(16, EventDescGetChannel(&d));
	EXPECT_EQ(4, EventDescGetLevel(&d));
	EXPECT_EQ(0x5678, EventDescGetTask(&d));
	EXPECT_EQ(1, EventDescGetOpcode(&d));
	EXPECT_EQ(0x8000000000000001ull, EventDescGetKeyword(&d));
}

TEST(event_desc_setters_and_zero)
{
	EVENT_DESCRIPTOR d, zero;

	memset(&zero, 0, sizeof(zero));
	EventDescZero(&d);
	EXPECT_EQ(0, memcmp(&d, &zero, sizeof(d)));
	EXPECT_EQ(&d, EventDescSetId(&d, 7));
	EventDescSetVersion(&d, 1);
	EventDescSetChannel(&d, 11);
	EventDescSetLevel(&d, 5);
	EventDescSetOpcode(&d, 9);
	EventDescSetTask(&d, 300);
	EventDescSetKeyword(&d, 0x10);
	EventDescOrKeyword(&d, 0x01);
	EXPECT_EQ(7, d.Id);
	EXPECT_EQ(1, d.Version);
	EXPECT_EQ(11, d.Channel);
	EXPECT_EQ(5, d.Level);
	EXPECT_EQ(9, d.Opcode);
	EXPECT_EQ(300, d.Task);
	EXPECT_EQ(0x11, d.Keyword);
}

TEST(event_data_desc_create_clears_reserved)
{
	EVENT_DATA_DESCRIPTOR d;
	int x = 5;

	memset(&d, 0xff, sizeof(d));
	EventDataDescCreate(&d, &x, sizeof(x));
	EXPECT_EQ((uintptr_t)&x, d.Ptr);
	EXPECT_EQ(sizeof(x), d.Size);
	EXPECT_EQ(0, d.Reserved);
}

TEST(get_event_processor_index)
{
	EVENT_RECORD r;

	memset(&r, 0, sizeof(r));
	r.BufferContext.ProcessorIndex = 0x0102;
	EXPECT_EQ(0x02, GetEventProcessorIndex(&r));
	r.EventHeader.Flags = EVENT_HEADER_FLAG_PROCESSOR_INDEX;
	EXPECT_EQ(0x0102, GetEventProcessorIndex(&r));
}

/* TraitsSize, "prov\0", a group trait (GUID), a custom trait. */
static const UCHAR traits_blob[] = {
	30, 0, 'p', 'r', 'o', 'v', 0,
	19, 0, EtwProviderTraitTypeGroup,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	4, 0, 200, 0xaa,
};

TEST(get_trait_finds_each_type)
{
	PVOID trait;
	USHORT size;

	ASSERT_EQ(sizeof(traits_blob), 30);
	EtwGetTraitFromProviderTraits((PVOID)traits_blob,
				      EtwProviderTraitTypeGroup, &trait, &size);
	EXPECT_EQ(traits_blob + 10, trait);
	EXPECT_EQ(16, size);
	EtwGetTraitFromProviderTraits((PVOID)traits_blob, 200, &trait, &size);
	EXPECT_EQ(traits_blob + 29, trait);
	EXPECT_EQ(1, size);
	EtwGetTraitFromProviderTraits((PVOID)traits_blob,
				      EtwProviderTraitDecodeGuid, &trait,
				      &size);
	EXPECT_EQ(NULL, trait);
	EXPECT_EQ(0, size);
}

TEST(get_trait_rejects_malformed_blobs)
{
	UCHAR blob[sizeof(traits_blob)];
	PVOID trait;
	USHORT size;

	/* A trait whose size runs past the blob. */
	memcpy(blob, traits_blob, sizeof(blob));
	blob[7] = 40;
	EtwGetTraitFromProviderTraits(blob, EtwProviderTraitTypeGroup,
				      &trait, &size);
	EXPECT_EQ(NULL, trait);
	/* A trait size below the 3-byte trait header. */
	blob[7] = 2;
	EtwGetTraitFromProviderTraits(blob, 200, &trait, &size);
	EXPECT_EQ(NULL, trait);
	EXPECT_EQ(0, size);
	/* A blob too short to hold a name. */
	blob[0] = 2;
	EtwGetTraitFromProviderTraits(blob, EtwProviderTraitTypeGroup,
				      &trait, &size);
	EXPECT_EQ(NULL, trait);
}

TEST_HARNESS_MAIN
