/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Events of tdh_manifest_sample.man decoded through TDH: the names and
 * property array TdhGetEventInformation gives, the maps of
 * TdhGetEventMapInformation, TdhFormatProperty with a map, and every
 * value of events read from an ETL file by OpenTrace/ProcessTrace.
 */
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "etl_test.h"
#include "tdh_test.h"

#define SAMPLE	SRC_DIR "/userlib/tests/tdh_manifest_sample.man"
#define ALL	0xFFFFFFFFu

static GUID sample_guid = { 0x12345678, 0x9abc, 0xdef0,
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } };

/* Event 1's payload (T_Conn), 8-byte pointers. */
static const uint8_t conn_data[] = {
	0x00, 0x50,				/* Port 80, network order */
	0x01, 0x00, 0x00, 0x00,			/* State: Busy */
	0x05, 0x00, 0x00, 0x00,			/* Flags: Read | Exec */
	'a', 0, 'b', 0, 0, 0,			/* Name */
	0x02, 0x00,				/* Count */
	0x7f, 0x00, 0x00, 0x01, 'x', 0,		/* Peers[0] */
	0x0a, 0x00, 0x00, 0x02, 'y', 'z', 0,	/* Peers[1] */
	0x03, 0x00, 0x00, 0x00,			/* Len */
	0xde, 0xad, 0xbe,			/* Blob */
	0x07, 0x08,				/* Pair */
	0x00, 0x10, 0, 0, 0, 0, 0, 0,		/* Where */
};

static void load(struct __test_metadata *_metadata)
{
	WCHAR w[512];

	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(SAMPLE, w)));
}

/* A manifest event: no extended data, the descriptor of the manifest. */
static void event(EVENT_RECORD *r, USHORT id, const void *data, USHORT len)
{
	memset(r, 0, sizeof(*r));
	r->EventHeader.ProviderId = sample_guid;
	r->EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r->EventHeader.EventDescriptor.Id = id;
	r->EventHeader.EventDescriptor.Version = 1;
	r->EventHeader.EventDescriptor.Level = 4;
	r->UserData = (void *)data;
	r->UserDataLength = len;
}

TEST(event_names)
{
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	char s[64];
	ULONG st;

	load(_metadata);
	event(&r, 1, conn_data, sizeof(conn_data));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(DecodingSourceXMLFile, tei->DecodingSource);
	EXPECT_EQ(0, memcmp(&sample_guid, &tei->ProviderGuid, sizeof(GUID)));
	EXPECT_EQ(1, tei->EventDescriptor.Id);
	EXPECT_STREQ("Etw-Test-Manifest",
		     tdh_tei_str(tei, tei->ProviderNameOffset, s, 64));
	EXPECT_STREQ("Information",
		     tdh_tei_str(tei, tei->LevelNameOffset, s, 64));
	EXPECT_STREQ("Etw-Test-Manifest/Operational",
		     tdh_tei_str(tei, tei->ChannelNameOffset, s, 64));
	EXPECT_STREQ("Connecting", tdh_tei_str(tei, tei->TaskNameOffset, s, 64));
	EXPECT_STREQ("Start", tdh_tei_str(tei, tei->OpcodeNameOffset, s, 64));
	EXPECT_STREQ("Connected to %4",
		     tdh_tei_str(tei, tei->EventMessageOffset, s, 64));
	EXPECT_STREQ("A test provider",
		     tdh_tei_str(tei, tei->ProviderMessageOffset, s, 64));
	EXPECT_EQ(0u, tei->EventNameOffset);
	/* Keyword names: a list of strings ended by an empty one. */
	ASSERT_NE(0u, tei->KeywordsNameOffset);
	EXPECT_STREQ("Network", tdh_tei_str(tei, tei->KeywordsNameOffset,
					    s, 64));
	EXPECT_STREQ("Disk", tdh_tei_str(tei, tei->KeywordsNameOffset + 16,
					 s, 64));
	EXPECT_STREQ("", tdh_tei_str(tei, tei->KeywordsNameOffset + 26, s, 64));
	EXPECT_EQ(0, *((BYTE *)tei + tei->KeywordsNameOffset + 26));
	EXPECT_EQ(12u, tei->PropertyCount);
	EXPECT_EQ(10u, tei->TopLevelPropertyCount);
	free(tei);
}

TEST(task_opcode_and_provider_level)
{
	EVENT_DESCRIPTOR d = { .Id = 2, .Version = 1 };
	TRACE_EVENT_INFO *tei;
	ULONG size = 0;
	char s[64];

	load(_metadata);
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetManifestEventInformation(&sample_guid, &d, NULL,
						 &size));
	tei = malloc(size);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhGetManifestEventInformation(&sample_guid, &d, tei,
						 &size));
	/* The manifest's descriptor, not the one asked with. */
	EXPECT_EQ(16, tei->EventDescriptor.Level);
	EXPECT_EQ(3, tei->EventDescriptor.Task);
	EXPECT_EQ(11, tei->EventDescriptor.Opcode);
	EXPECT_EQ(0x40ull, tei->EventDescriptor.Keyword);
	EXPECT_STREQ("Very chatty",
		     tdh_tei_str(tei, tei->LevelNameOffset, s, 64));
	EXPECT_STREQ("Retrying", tdh_tei_str(tei, tei->OpcodeNameOffset, s, 64));
	EXPECT_STREQ("Mem", tdh_tei_str(tei, tei->KeywordsNameOffset, s, 64));
	EXPECT_EQ(0u, tei->ChannelNameOffset);
	EXPECT_EQ(0u, tei->PropertyCount);
	free(tei);
}

TEST(info_codes)
{
	EVENT_DESCRIPTOR d = { .Id = 1, .Version = 1 };
	EVENT_RECORD r;
	TRACE_EVENT_INFO tei;
	ULONG size = 0, small = sizeof(tei);

	load(_metadata);
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetManifestEventInformation(NULL, &d, NULL, &size));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetManifestEventInformation(&sample_guid, NULL, NULL,
						 &size));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetManifestEventInformation(&sample_guid, &d, NULL,
						 NULL));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetManifestEventInformation(&sample_guid, &d, NULL,
						 &small));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetManifestEventInformation(&sample_guid, &d, &tei,
						 &small));
	ASSERT_LT(sizeof(tei), small);
	d.Version = 0;
	ASSERT_EQ(ERROR_NOT_FOUND,
		  TdhGetManifestEventInformation(&sample_guid, &d, NULL,
						 &size));
	event(&r, 9, NULL, 0);
	ASSERT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventInformation(&r, 0, NULL, NULL, &size));
}

/* T_Conn's properties in TDH's order: top level, then Peers' members. */
static const struct {
	const char *name;
	ULONG flags;
	USHORT in, out;		/* struct: first member, member count */
	USHORT count, length;	/* or the index of the count/length */
	const char *map;
} props[] = {
	{ "Port", 0, TDH_INTYPE_UINT16, TDH_OUTTYPE_PORT, 1, 2, NULL },
	{ "State", 0, TDH_INTYPE_UINT32, 0, 1, 4, "StateMap" },
	{ "Flags", 0, TDH_INTYPE_UINT32, 0, 1, 4, "FlagMap" },
	{ "Name", 0, TDH_INTYPE_UNICODESTRING, 0, 1, 0, NULL },
	{ "Count", 0, TDH_INTYPE_UINT16, 0, 1, 2, NULL },
	{ "Peers", PropertyStruct | PropertyParamCount, 10, 2, 4, 0, NULL },
	{ "Len", 0, TDH_INTYPE_UINT32, 0, 1, 4, NULL },
	{ "Blob", PropertyParamLength, TDH_INTYPE_BINARY, 0, 1, 6, NULL },
	{ "Pair", PropertyParamFixedCount, TDH_INTYPE_UINT8, 0, 2, 1, NULL },
	{ "Where", 0, TDH_INTYPE_POINTER, 0, 1, 8, NULL },
	{ "Addr", 0, TDH_INTYPE_UINT32, TDH_OUTTYPE_IPV4, 1, 4, NULL },
	{ "Tag", 0, TDH_INTYPE_ANSISTRING, 0, 1, 0, NULL },
};

TEST(property_array)
{
	const EVENT_PROPERTY_INFO *p;
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	char s[64];
	ULONG st, i;

	load(_metadata);
	event(&r, 1, conn_data, sizeof(conn_data));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	ASSERT_EQ(sizeof(props) / sizeof(props[0]), tei->PropertyCount);
	for (i = 0; i < tei->PropertyCount; i++) {
		p = &tei->EventPropertyInfoArray[i];
		TH_LOG("property %lu", (unsigned long)i);
		EXPECT_STREQ(props[i].name, tdh_tei_str(tei, p->NameOffset,
							s, 64));
		EXPECT_EQ(props[i].flags, (ULONG)p->Flags);
		EXPECT_EQ(props[i].in, p->nonStructType.InType);
		EXPECT_EQ(props[i].out, p->nonStructType.OutType);
		EXPECT_EQ(props[i].count, p->count);
		EXPECT_EQ(props[i].length, p->length);
		if (props[i].flags & PropertyStruct)
			continue;
		EXPECT_STREQ(props[i].map ? props[i].map : "",
			     tdh_tei_str(tei, p->nonStructType.MapNameOffset,
					 s, 64));
	}
	free(tei);
}

/* win:Pointer is as wide as the event's header flag says. */
TEST(pointer_size_from_header_flag)
{
	PROPERTY_DATA_DESCRIPTOR d = { 0, 0xFFFFFFFFu, 0 };
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	WCHAR where[8];
	ULONG st, size = 0;

	load(_metadata);
	d.PropertyName = (uintptr_t)tdh_wide("Where", where);
	/* The same payload, written by a 32-bit process: 4-byte Where. */
	event(&r, 1, conn_data, sizeof(conn_data) - 4);
	r.EventHeader.Flags = EVENT_HEADER_FLAG_32_BIT_HEADER;
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_EQ(4, tei->EventPropertyInfoArray[9].length);
	free(tei);
	ASSERT_EQ(ERROR_SUCCESS, TdhGetPropertySize(&r, 0, NULL, 1, &d, &size));
	EXPECT_EQ(4u, size);
	r.EventHeader.Flags = EVENT_HEADER_FLAG_64_BIT_HEADER;
	r.UserDataLength = sizeof(conn_data);
	ASSERT_EQ(ERROR_SUCCESS, TdhGetPropertySize(&r, 0, NULL, 1, &d, &size));
	EXPECT_EQ(8u, size);
}

TEST(map_information)
{
	EVENT_MAP_INFO *m;
	EVENT_RECORD r;
	ULONG size = 0, small = sizeof(EVENT_MAP_INFO);
	WCHAR name[16];
	char s[32];

	load(_metadata);
	event(&r, 1, NULL, 0);
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(NULL, tdh_wide("FlagMap", name),
					    NULL, &size));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(&r, NULL, NULL, &size));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(&r, name, NULL, NULL));
	ASSERT_EQ(ERROR_INVALID_PARAMETER,
		  TdhGetEventMapInformation(&r, name, NULL, &small));
	ASSERT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventMapInformation(&r, tdh_wide("NoMap", name), NULL,
					    &size));
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventMapInformation(&r, tdh_wide("FlagMap", name),
					    NULL, &size));
	m = malloc(size);
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhGetEventMapInformation(&r, name, m, &size));
	EXPECT_STREQ("FlagMap", tdh_utf8(EMI_MAP_NAME(m), s, 32));
	EXPECT_EQ(EVENTMAP_INFO_FLAG_MANIFEST_BITMAP, m->Flag);
	EXPECT_EQ(EVENTMAP_ENTRY_VALUETYPE_ULONG, m->MapEntryValueType);
	ASSERT_EQ(3u, m->EntryCount);
	EXPECT_EQ(4u, m->MapEntryArray[2].Value);
	EXPECT_STREQ("Exec", tdh_utf8(EMI_MAP_OUTPUT(m, &m->MapEntryArray[2]),
				      s, 32));
	free(m);
	/* Another provider's events see no map. */
	r.EventHeader.ProviderId.Data1++;
	size = 0;
	ASSERT_EQ(ERROR_NOT_FOUND,
		  TdhGetEventMapInformation(&r, name, NULL, &size));
}

/* The map @name of event 1, allocated. */
static EVENT_MAP_INFO *map_of(const char *name)
{
	EVENT_MAP_INFO *m;
	EVENT_RECORD r;
	WCHAR w[16];
	ULONG size = 0;

	event(&r, 1, NULL, 0);
	if (TdhGetEventMapInformation(&r, tdh_wide(name, w), NULL, &size) !=
	    ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	m = malloc(size);
	if (m && TdhGetEventMapInformation(&r, w, m, &size)) {
		free(m);
		return NULL;
	}
	return m;
}

static const struct {
	const char *map;
	USHORT in;
	uint32_t value;
	ULONG want;
	const char *text;
} mapped[] = {
	{ "StateMap", TDH_INTYPE_UINT32, 0, ERROR_SUCCESS, "Idle" },
	{ "StateMap", TDH_INTYPE_UINT32, 2, ERROR_SUCCESS, "Gone" },
	{ "StateMap", TDH_INTYPE_UINT32, 7, ERROR_SUCCESS, "7" },
	{ "StateMap", TDH_INTYPE_UINT16, 1, ERROR_SUCCESS, "Busy" },
	{ "StateMap", TDH_INTYPE_UINT8, 1, ERROR_SUCCESS, "Busy" },
	{ "FlagMap", TDH_INTYPE_UINT32, 5, ERROR_SUCCESS, "Read | Exec" },
	{ "FlagMap", TDH_INTYPE_UINT32, 2, ERROR_SUCCESS, "Write" },
	{ "FlagMap", TDH_INTYPE_UINT32, 0x9, ERROR_SUCCESS, "Read | 0x8" },
	{ "FlagMap", TDH_INTYPE_UINT32, 0, ERROR_SUCCESS, "0" },
	{ "FlagMap", TDH_INTYPE_UINT32, 0x10, ERROR_SUCCESS, "16" },
	{ "FlagMap", TDH_INTYPE_UINT64, 1, ERROR_NOT_SUPPORTED, NULL },
	{ "FlagMap", TDH_INTYPE_DOUBLE, 1, ERROR_NOT_SUPPORTED, NULL },
	{ "FlagMap", TDH_INTYPE_UNICODESTRING, 0x61, ERROR_NOT_SUPPORTED,
	  NULL },
};

TEST(format_with_maps)
{
	TRACE_EVENT_INFO tei = { 0 };
	EVENT_MAP_INFO *m;
	WCHAR buf[64];
	uint64_t v;	/* room for the 8-byte InTypes */
	ULONG size, i;
	USHORT used;
	char s[64];

	load(_metadata);
	for (i = 0; i < sizeof(mapped) / sizeof(mapped[0]); i++) {
		TH_LOG("case %lu", (unsigned long)i);
		m = map_of(mapped[i].map);
		ASSERT_NE(NULL, m);
		v = mapped[i].value;
		size = sizeof(buf);
		EXPECT_EQ(mapped[i].want,
			  TdhFormatProperty(&tei, m, 8, mapped[i].in, 0,
					    0, sizeof(v), (PBYTE)&v, &size,
					    buf, &used));
		if (mapped[i].text)
			EXPECT_STREQ(mapped[i].text, tdh_utf8(buf, s, 64));
		free(m);
	}
}

/* What the callback decoded: "Name=text" lines. */
static struct {
	int events;
	ULONG status;
	char line[2][16][48];
	int lines[2];
	USHORT left[2];
	BYTE tag[4];
	ULONG tag_size;
} res;

static USHORT vals[16];

static ULONG format_one(PEVENT_RECORD r, TRACE_EVENT_INFO *tei, ULONG i,
			BYTE **data, USHORT *left, int n)
{
	const EVENT_PROPERTY_INFO *p = &tei->EventPropertyInfoArray[i];
	EVENT_MAP_INFO *m = NULL;
	USHORT len = p->Flags & PropertyParamLength ?
		     vals[p->lengthPropertyIndex] : p->length, used;
	WCHAR buf[64];
	char name[16], text[32];
	ULONG size = sizeof(buf), st;

	if (p->nonStructType.MapNameOffset) {
		size = 0;
		TdhGetEventMapInformation(r, TEI_MAP_NAME(tei, p), NULL, &size);
		m = malloc(size);
		TdhGetEventMapInformation(r, TEI_MAP_NAME(tei, p), m, &size);
		size = sizeof(buf);
	}
	st = TdhFormatProperty(tei, m, 8, p->nonStructType.InType,
			       p->nonStructType.OutType, len, *left, *data,
			       &size, buf, &used);
	free(m);
	if (st)
		return st;
	if (p->nonStructType.InType == TDH_INTYPE_UINT16 ||
	    p->nonStructType.InType == TDH_INTYPE_UINT32)
		vals[i] = (USHORT)((*data)[0] | (*data)[1] << 8);
	if (res.lines[n] < 16)
		snprintf(res.line[n][res.lines[n]++], 48, "%s=%s",
			 tdh_tei_str(tei, p->NameOffset, name, 16),
			 tdh_utf8(buf, text, 32));
	*data += used;
	*left -= used;
	return ERROR_SUCCESS;
}

/* Property @i, every element, struct members in turn. */
static ULONG format_prop(PEVENT_RECORD r, TRACE_EVENT_INFO *tei, ULONG i,
			 BYTE **data, USHORT *left, int n)
{
	const EVENT_PROPERTY_INFO *p = &tei->EventPropertyInfoArray[i];
	ULONG count = p->Flags & PropertyParamCount ?
		      vals[p->countPropertyIndex] : p->count, k, j, st;

	for (k = 0; k < count; k++) {
		if (!(p->Flags & PropertyStruct)) {
			st = format_one(r, tei, i, data, left, n);
		} else {
			for (j = p->structType.StructStartIndex, st = 0;
			     j < p->structType.StructStartIndex +
				 p->structType.NumOfStructMembers && !st; j++)
				st = format_prop(r, tei, j, data, left, n);
		}
		if (st)
			return st;
	}
	return ERROR_SUCCESS;
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	PROPERTY_DATA_DESCRIPTOR d[2] = { { 0, 1, 0 }, { 0, ALL, 0 } };
	TRACE_EVENT_INFO *tei;
	WCHAR peers[8], tag[8];
	BYTE *data = r->UserData;
	USHORT left = r->UserDataLength;
	ULONG st = 0, i;
	int n;

	if (!IsEqualGUID(&r->EventHeader.ProviderId, &sample_guid) ||
	    res.events >= 2)
		return;
	n = res.events++;
	tei = tdh_info(r, &st);
	for (i = 0; tei && i < tei->TopLevelPropertyCount && !st; i++)
		st = format_prop(r, tei, i, &data, &left, n);
	res.left[n] = left;
	if (st)
		res.status = st;
	if (tei && n == 0) {
		d[0].PropertyName = (uintptr_t)tdh_wide("Peers", peers);
		d[1].PropertyName = (uintptr_t)tdh_wide("Tag", tag);
		TdhGetPropertySize(r, 0, NULL, 2, d, &res.tag_size);
		TdhGetProperty(r, 0, NULL, 2, d, sizeof(res.tag), res.tag);
	}
	free(tei);
}

/* An ETL file with event 1 (T_Conn) and event 2 (no data). */
static void write_etl(struct __test_metadata *_metadata, const char *path)
{
	struct etw_etl_writer_params prm = etl_test_params();
	struct etw_etl_writer *w;
	static uint8_t buf[ETL_TEST_BS];
	uint32_t off;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	off = etl_buf_add_ext(buf, 1, ETL_TEST_START_RAW + 1000, 100, 0, 0,
			      sizeof(conn_data));
	ASSERT_NE(0u, off);
	memcpy(buf + off + sizeof(struct etw_event_header), conn_data,
	       sizeof(conn_data));
	ASSERT_NE(0u, etl_buf_add_ext(buf, 2, ETL_TEST_START_RAW + 2000, 100,
				      0, 0, 0));
	ASSERT_EQ(0, etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm,
					 &w));
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
}

static const char *const want[] = {
	"Port=80", "State=Busy", "Flags=Read | Exec", "Name=ab", "Count=2",
	"Addr=127.0.0.1", "Tag=x", "Addr=10.0.0.2", "Tag=yz", "Len=3",
	"Blob=0xDEADBE", "Pair=7", "Pair=8", "Where=0x1000",
};

TEST(etl_through_process_trace)
{
	char *dir = etl_mkdtemp(), *path;
	EVENT_TRACE_LOGFILEA lf = { 0 };
	TRACEHANDLE h;
	size_t i;

	ASSERT_NE(NULL, dir);
	path = etl_path(dir, "m.etl");
	write_etl(_metadata, path);
	load(_metadata);
	lf.LogFileName = path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	CloseTrace(h);
	free(path);
	etl_rmdir(dir);
	ASSERT_EQ(2, res.events);
	ASSERT_EQ(ERROR_SUCCESS, res.status);
	ASSERT_EQ(sizeof(want) / sizeof(want[0]), (size_t)res.lines[0]);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		EXPECT_STREQ(want[i], res.line[0][i]);
	EXPECT_EQ(0, res.left[0]);
	EXPECT_EQ(0, res.lines[1]);
	EXPECT_EQ(0, res.left[1]);
	EXPECT_EQ(3u, res.tag_size);
	EXPECT_EQ(0, memcmp("yz", res.tag, 3));
}

TEST_HARNESS_MAIN
