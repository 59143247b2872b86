/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The .NET runtime's GC events Windows wrote (testdata/etl/clr-gc-events.etl)
 * decoded through TDH with the CLR manifest libetw installs
 * (userlib/manifests/clr.man), the way a Windows consumer walks them
 * (tdh_walk.h: TdhGetEventInformation, then TdhFormatProperty on every
 * property in turn, counts and lengths from the properties they name,
 * each value advancing by its UserDataConsumed).  Every event must be
 * known and its payload consumed to the byte; the values must then agree
 * with what the runtime documents and with each other.  Expected values
 * were read from the file's bytes with a throwaway script, not from this
 * decoder.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "tdh_walk.h"
#include "testdata.h"

#define CLR_MAN	SRC_DIR "/userlib/manifests/clr.man"
#define CLR_ETL	TESTDATA "/etl/clr-gc-events.etl"
#define MAX_EVENTS	80
#define MAX_VALS	128

static GUID clr_guid = { 0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } };

/* 68fdd900-4a3e-11d1-84f4-0000f80464e3: the logfile header records. */
static GUID event_trace_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };

struct clr_event {
	USHORT id;
	UCHAR version;
	ULONG status;		/* first TDH error, 0 if none */
	USHORT left;		/* payload bytes no property consumed */
	/* Top-level properties TdhGetPropertySize sized otherwise. */
	ULONG size_mismatch;
	int n;
	struct tdh_walk_val v[MAX_VALS];
};

static struct {
	struct clr_event ev[MAX_EVENTS];
	int n;
	int headers;		/* records of EventTraceGuid */
	int others;		/* records of any other provider */
} clr;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	struct clr_event *e;
	struct tdh_walk w;

	if (IsEqualGUID(&r->EventHeader.ProviderId, &event_trace_guid)) {
		clr.headers++;
		return;
	}
	if (!IsEqualGUID(&r->EventHeader.ProviderId, &clr_guid)) {
		clr.others++;
		return;
	}
	if (clr.n >= MAX_EVENTS)
		return;
	e = &clr.ev[clr.n++];
	e->id = r->EventHeader.EventDescriptor.Id;
	e->version = r->EventHeader.EventDescriptor.Version;
	tdh_walk(&w, r, e->v, MAX_VALS);
	e->n = w.n;
	/* Every value is kept: one more than MAX_VALS is a failure too. */
	e->status = w.status ? w.status :
		    w.seen > w.n ? ERROR_BUFFER_OVERFLOW : ERROR_SUCCESS;
	e->left = w.left;
	e->size_mismatch = w.size_mismatch;
	tdh_walk_done(&w);
}

/* Every record of the file through OpenTrace/ProcessTrace, into clr. */
static void read_file(struct __test_metadata *_metadata)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	WCHAR path[512];
	TRACEHANDLE h;

	ASSERT_EQ(ERROR_SUCCESS, TdhLoadManifest(tdh_wide(CLR_MAN, path)));
	memset(&clr, 0, sizeof(clr));
	lf.LogFileName = CLR_ETL;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	CloseTrace(h);
}

/* The @k-th value named @name of @e (k from 0); NULL when there is none. */
static const struct tdh_walk_val *val(const struct clr_event *e, const char *name,
				 int k)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name) && k-- == 0)
			return &e->v[i];
	return NULL;
}

static uint64_t num(const struct clr_event *e, const char *name, int k)
{
	const struct tdh_walk_val *v = val(e, name, k);

	return v ? v->num : ~0ull;
}

static const char *text(const struct clr_event *e, const char *name, int k)
{
	const struct tdh_walk_val *v = val(e, name, k);

	return v ? v->text : "(none)";
}

/* (event id, version) -> how many the file holds. */
static const struct {
	USHORT id;
	UCHAR version;
	int count;
} expected[] = {
	{ 1, 2, 2 },	/* GCStart */
	{ 2, 1, 2 },	/* GCEnd */
	{ 3, 1, 2 },	/* GCRestartEEEnd */
	{ 4, 2, 2 },	/* GCHeapStats */
	{ 5, 1, 7 },	/* GCCreateSegment */
	{ 7, 1, 2 },	/* GCRestartEEBegin */
	{ 8, 1, 2 },	/* GCSuspendEEEnd */
	{ 9, 1, 2 },	/* GCSuspendEEBegin */
	{ 10, 4, 12 },	/* GCAllocationTick */
	{ 13, 1, 3 },	/* GCFinalizersEnd */
	{ 14, 1, 3 },	/* GCFinalizersBegin */
	{ 29, 0, 6 },	/* FinalizeObject */
	{ 33, 0, 2 },	/* PinObjectAtGCTime */
	{ 35, 0, 2 },	/* GCTriggered */
	{ 187, 0, 1 },	/* RuntimeInformationStart */
	{ 202, 0, 13 },	/* GCMarkWithType */
	{ 204, 3, 2 },	/* GCPerHeapHistory */
	{ 205, 4, 2 },	/* GCGlobalHeapHistory */
	{ 208, 0, 1 },	/* GCLOHCompact */
	{ 209, 0, 1 },	/* GCFitBucketInfo */
};

#define EXPECTED	(sizeof(expected) / sizeof(expected[0]))

static int count_of(USHORT id, UCHAR version)
{
	int i, n = 0;

	for (i = 0; i < clr.n; i++)
		n += clr.ev[i].id == id && clr.ev[i].version == version;
	return n;
}

/* The @k-th event @id (k from 0). */
static const struct clr_event *nth(USHORT id, int k)
{
	int i;

	for (i = 0; i < clr.n; i++)
		if (clr.ev[i].id == id && k-- == 0)
			return &clr.ev[i];
	return NULL;
}

TEST(every_event_of_the_file_counted)
{
	size_t i;
	int total = 0;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (i = 0; i < EXPECTED; i++) {
		EXPECT_EQ(expected[i].count,
			  count_of(expected[i].id, expected[i].version)) {
			TH_LOG("event %u version %u", expected[i].id,
			       expected[i].version);
		}
		total += expected[i].count;
	}
	EXPECT_EQ(69, total);
	EXPECT_EQ(total, clr.n);
	/* Besides them, only the logfile's two header records: no rundown. */
	EXPECT_EQ(2, clr.headers);
	EXPECT_EQ(0, clr.others);
}

TEST(every_event_decodes_to_its_last_byte)
{
	int i;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	ASSERT_EQ(69, clr.n);
	for (i = 0; i < clr.n; i++) {
		EXPECT_EQ(0u, clr.ev[i].status) {
			TH_LOG("event %d (id %u)", i, clr.ev[i].id);
		}
		EXPECT_EQ(0, clr.ev[i].left) {
			TH_LOG("event %d (id %u)", i, clr.ev[i].id);
		}
		EXPECT_EQ(0u, clr.ev[i].size_mismatch) {
			TH_LOG("event %d (id %u)", i, clr.ev[i].id);
		}
		/* Every runtime event ends (or starts) with ClrInstanceID. */
		EXPECT_NE(NULL, val(&clr.ev[i], "ClrInstanceID", 0));
	}
}

TEST(clr_instance_id_constant)
{
	int i;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	ASSERT_EQ(69, clr.n);
	for (i = 0; i < clr.n; i++) {
		EXPECT_EQ(8u, num(&clr.ev[i], "ClrInstanceID", 0));
		EXPECT_STREQ("8", text(&clr.ev[i], "ClrInstanceID", 0));
	}
}

static bool documented_reason(const char *s)
{
	static const char *const reasons[] = {
		"AllocSmall", "Induced", "LowMemory", "Empty", "AllocLarge",
		"OutOfSpaceSmallObjectHeap", "OutOfSpaceLargeObjectHeap",
		"InducedNoForce", "Stress", "InducedLowMemory",
	};
	size_t i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strcmp(s, reasons[i]))
			return true;
	return false;
}

/* GCStart/GCEnd pair up in order; counts rise; depth and reason valid. */
TEST(gc_start_end_sequence)
{
	const struct clr_event *e;
	uint64_t count = 0, open = 0;
	int i, starts = 0;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (i = 0; i < clr.n; i++) {
		e = &clr.ev[i];
		if (e->id == 1) {
			EXPECT_EQ(0u, open);
			EXPECT_GT(num(e, "Count", 0), count);
			count = open = num(e, "Count", 0);
			EXPECT_LE(num(e, "Depth", 0), 2u);
			EXPECT_TRUE(documented_reason(text(e, "Reason", 0))) {
				TH_LOG("Reason %s", text(e, "Reason", 0));
			}
			EXPECT_STREQ("NonConcurrentGC", text(e, "Type", 0));
			starts++;
		} else if (e->id == 2) {
			EXPECT_EQ(open, num(e, "Count", 0));
			open = 0;
		}
	}
	EXPECT_EQ(0u, open);
	EXPECT_EQ(2, starts);
	/* Two induced GCs, of generation 1 then 2. */
	e = nth(1, 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("1", text(e, "Count", 0));
	EXPECT_STREQ("1", text(e, "Depth", 0));
	EXPECT_STREQ("Induced", text(e, "Reason", 0));
	EXPECT_EQ(0u, num(e, "ClientSequenceNumber", 0));
	e = nth(1, 1);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("2", text(e, "Depth", 0));
	e = nth(2, 1);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(2u, num(e, "Depth", 0));
	e = nth(35, 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("Induced", text(e, "Reason", 0));
	e = nth(9, 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("SuspendForGC", text(e, "Reason", 0));
}

/* Heap sizes fit in the segments the GC reserved; the counts agree. */
TEST(heap_stats_plausible)
{
	const struct clr_event *e;
	uint64_t reserved = 0, heap;
	char name[32];
	int i, g, pins = 0;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (i = 0; (e = nth(5, i)); i++) {
		EXPECT_NE(0u, num(e, "Size", 0));
		EXPECT_EQ(0u, num(e, "Address", 0) & 7);
		reserved += num(e, "Size", 0);
	}
	EXPECT_EQ(7, i);
	for (i = 0; i < clr.n; i++) {
		e = &clr.ev[i];
		if (e->id == 33) {
			pins++;
			EXPECT_STREQ("System.Object", text(e, "TypeName", 0));
			EXPECT_EQ(24u, num(e, "ObjectSize", 0));
		}
		if (e->id != 4)
			continue;
		for (g = 0, heap = 0; g <= 4; g++) {
			snprintf(name, sizeof(name), "GenerationSize%d", g);
			EXPECT_LT(num(e, name, 0), 64ull << 20);
			heap += num(e, name, 0);
		}
		EXPECT_LE(heap, reserved);
		/* One pinned object per GC, as PinObjectAtGCTime said. */
		EXPECT_EQ(1u, num(e, "PinnedObjectCount", 0));
		EXPECT_EQ(1, pins);
		pins = 0;
		EXPECT_EQ(53u, num(e, "GCHandleCount", 0));
	}
	e = nth(4, 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("0x248", text(e, "GenerationSize0", 0));
	EXPECT_EQ(310952u, num(e, "TotalPromotedSize0", 0));
	EXPECT_EQ(326056u, num(e, "GenerationSize3", 0));
	EXPECT_EQ(16368u, num(e, "GenerationSize4", 0));
	EXPECT_EQ(6u, num(e, "FinalizationPromotedCount", 0));
}

/* The runtime puts objects of 85000 bytes or more on the large object heap. */
TEST(allocation_tick_kinds)
{
	const struct clr_event *e;
	int i, large = 0;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (i = 0; (e = nth(10, i)); i++) {
		EXPECT_EQ(num(e, "AllocationAmount", 0),
			  num(e, "AllocationAmount64", 0));
		EXPECT_STREQ(num(e, "ObjectSize", 0) >= 85000 ?
			     "Large" : "Small", text(e, "AllocationKind", 0));
		large += num(e, "ObjectSize", 0) >= 85000;
		EXPECT_NE(0u, num(e, "TypeID", 0));
		EXPECT_NE(0u, num(e, "Address", 0));
		EXPECT_EQ(0u, num(e, "HeapIndex", 0));
		EXPECT_NE(0, strlen(text(e, "TypeName", 0)));
	}
	EXPECT_EQ(12, i);
	EXPECT_EQ(2, large);
	e = nth(10, 1);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("System.Text.StringBuilder", text(e, "TypeName", 0));
	EXPECT_EQ(48u, num(e, "ObjectSize", 0));
}

/* GCFitBucketInfo's buckets, padded as the runtime writes them. */
TEST(fit_buckets_add_up)
{
	const struct clr_event *e = NULL;
	uint64_t sum = 0;
	int k;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	e = nth(209, 0);
	ASSERT_NE(NULL, e);
	EXPECT_STREQ("Plug", text(e, "BucketKind", 0));
	ASSERT_EQ(9u, num(e, "Count", 0));
	for (k = 0; k < 9; k++) {
		EXPECT_EQ((uint64_t)k, num(e, "Index", k));
		EXPECT_EQ(0u, num(e, "Padding", k));
		EXPECT_NE(0u, num(e, "Count", k + 1));
		sum += num(e, "Size", k);
	}
	EXPECT_EQ(NULL, val(e, "Index", 9));
	EXPECT_EQ(310848u, num(e, "TotalSize", 0));
	EXPECT_EQ(num(e, "TotalSize", 0), sum);
	EXPECT_STREQ("0x6720", text(e, "Size", 0));
	e = nth(208, 0);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(1u, num(e, "Count", 0));
	EXPECT_EQ(1u, num(e, "TimePlan", 0));
	EXPECT_EQ(17u, num(e, "TimeCompact", 0));
	EXPECT_EQ(0u, num(e, "Padding", 0));
}

/* The per-heap and global histories describe the GC that GCStart began. */
TEST(heap_histories)
{
	const struct clr_event *e, *start;
	int k;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (k = 0; k < 2; k++) {
		start = nth(1, k);
		ASSERT_NE(NULL, start);
		e = nth(205, k);
		ASSERT_NE(NULL, e);
		EXPECT_EQ(num(start, "Depth", 0),
			  num(e, "CondemnedGeneration", 0));
		EXPECT_STREQ("1", text(e, "NumHeaps", 0));
		EXPECT_EQ(num(start, "Reason", 0), num(e, "Reason", 0));
		EXPECT_EQ(8u, num(e, "Count", 0));
		EXPECT_NE(NULL, val(e, "Time", 7));
		EXPECT_EQ(NULL, val(e, "Time", 8));
		e = nth(204, k);
		ASSERT_NE(NULL, e);
		/* One entry per generation: 0-2, large and pinned heaps. */
		EXPECT_EQ(5u, num(e, "Count", 0));
		EXPECT_NE(NULL, val(e, "NewAllocation", 4));
		EXPECT_EQ(NULL, val(e, "NewAllocation", 5));
		EXPECT_EQ(0u, num(e, "HeapIndex", 0));
	}
	e = nth(204, 0);
	EXPECT_STREQ("0x112D30", text(e, "SizeBefore", 0));
	EXPECT_EQ(5u, num(e, "CondemnReasons0", 0));
	EXPECT_STREQ("2147483650", text(e, "CompactMechanisms", 0));
}

/* Root kinds as GCRootKindMap names them, bytes marked per kind. */
TEST(mark_with_type_kinds)
{
	static const char *const kinds[] = {
		"Stack", "Finalizer", "Handle", "Older", "DependentHandle",
		"NewFQ", "DependentHandle",
	};
	const struct clr_event *e;
	size_t k;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		e = nth(202, (int)k);
		ASSERT_NE(NULL, e);
		EXPECT_STREQ(kinds[k], text(e, "Type", 0));
		EXPECT_EQ(0u, num(e, "HeapNum", 0));
	}
	e = nth(202, 3);
	EXPECT_EQ(0x47aa8u, num(e, "Bytes", 0));
}

/* Finalization as GCHeapStats, GCMarkWithType and the finalizer saw it. */
TEST(finalization_agrees)
{
	const struct clr_event *e, *stats;
	uint64_t in_run = 0, ran = 0;
	int i, k = 0, runs = 0;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	stats = nth(4, 0);
	ASSERT_NE(NULL, stats);
	/* Bytes marked from the new finalization queue in the first GC. */
	while ((e = nth(202, k++)) && strcmp(text(e, "Type", 0), "NewFQ"))
		;
	ASSERT_NE(NULL, e);
	EXPECT_EQ(num(stats, "FinalizationPromotedSize", 0), num(e, "Bytes", 0));
	EXPECT_EQ(13948u, num(e, "Bytes", 0));
	/* Each FinalizeObject between GCFinalizersBegin and End is counted. */
	for (i = 0; i < clr.n; i++) {
		e = &clr.ev[i];
		if (e->id == 14)
			in_run = 0;
		if (e->id == 29) {
			in_run++;
			EXPECT_EQ(num(nth(29, 0), "TypeID", 0),
				  num(e, "TypeID", 0));
		}
		if (e->id == 13) {
			EXPECT_EQ(in_run, num(e, "Count", 0));
			ran += num(e, "Count", 0);
			runs++;
		}
	}
	EXPECT_EQ(3, runs);
	EXPECT_EQ(num(stats, "FinalizationPromotedCount", 0), ran);
	EXPECT_EQ(6u, ran);
}

TEST(runtime_information)
{
	const struct clr_event *e;
	const char *path;

	REQUIRE_TESTDATA();
	read_file(_metadata);
	e = nth(187, 0);
	ASSERT_NE(NULL, e);
	EXPECT_EQ(&clr.ev[0], e);
	EXPECT_STREQ("CoreClr", text(e, "Sku", 0));
	EXPECT_EQ(8u, num(e, "BclMajorVersion", 0));
	EXPECT_EQ(42u, num(e, "VMMajorVersion", 0));
	EXPECT_EQ(42424u, num(e, "VMQfeNumber", 0));
	EXPECT_EQ(0x800003u, num(e, "StartupFlags", 0));
	EXPECT_EQ(0u, num(e, "StartupMode", 0));
	EXPECT_STREQ("", text(e, "CommandLine", 0));
	EXPECT_STREQ("{00000000-0000-0000-0000-000000000000}",
		     text(e, "ComObjectGuid", 0));
	path = text(e, "RuntimeDllPath", 0);
	ASSERT_GT(strlen(path), strlen("coreclr.dll"));
	EXPECT_STREQ("\\coreclr.dll",
		     path + strlen(path) - strlen("\\coreclr.dll"));
}

TEST_HARNESS_MAIN
