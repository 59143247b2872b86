// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Every CLR event of PerfView's trace of a 32-bit .NET Framework 4.5.2
 * program (testdata/etl/net.4.5.2.x86.etl) decoded through TDH with the
 * manifest libetw installs (userlib/manifests/clr.man), found on
 * ETW_MANIFEST_PATH as an installed one is found, no TdhLoadManifest:
 * the runtime's, its rundown's and its private provider's 39,302 events
 * of 69 event id/version pairs.  Each is walked as a Windows consumer
 * walks it (tdh_walk.h) and must decode to its last byte under the
 * runtime's name for it; the counts are the file's, checked against
 * etl_census.py, a reader that shares no code with libetw; and the
 * values of a method, a module, the exception, the runtime information
 * and the stacks are checked against the payload's own bytes.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "tdh_walk.h"
#include "testdata.h"

#define NET		TESTDATA "/etl/net.4.5.2.x86.etl"
#define CENSUS		SRC_DIR "/userlib/tests/etl_census.py"
#define MANIFESTS	SRC_DIR "/userlib/manifests"
#define MAX_PAIRS	128
#define KEEP_VALS	64
#define KEEP_DATA	4096

/* The test data directory may be there without this file. */
#define REQUIRE_NET() do {						\
	REQUIRE_TESTDATA();						\
	if (access(NET, R_OK))						\
		SKIP(return, "no Windows sample files in %s (%s): set TESTDATA", \
		     TESTDATA, "no net.4.5.2.x86.etl");			\
} while (0)

enum { RT, RD, PR, NPROV };

static const GUID clr_guid[NPROV] = {
	{ 0xe13c0d23, 0xccbc, 0x4e12,
	  { 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 } },
	{ 0xa669021c, 0xc450, 0x4609,
	  { 0xa0, 0x35, 0x5a, 0xf5, 0x9a, 0xf4, 0xdf, 0x18 } },
	{ 0x763fd754, 0x7086, 0x4dfe,
	  { 0x95, 0xeb, 0xc0, 0x1a, 0x46, 0xfa, 0xf4, 0xca } },
};

static const char *const clr_provider[NPROV] = {
	"Microsoft-Windows-DotNETRuntime",
	"Microsoft-Windows-DotNETRuntimeRundown",
	"Microsoft-Windows-DotNETRuntimePrivate",
};

static const char *const clr_guid_text[NPROV] = {
	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
	"a669021c-c450-4609-a035-5af59af4df18",
	"763fd754-7086-4dfe-95eb-c01a46faf4ca",
};

/* (provider, event id, version): how many the file holds, and the name. */
static const struct {
	int prov;
	USHORT id;
	UCHAR version;
	int count;
	const char *name;
} expected[] = {
	{ RT, 1, 1, 80, "GCStart" },
	{ RT, 1, 2, 80, "GCStart" },
	{ RT, 2, 1, 80, "GCEnd" },
	{ RT, 3, 1, 81, "GCRestartEEEnd" },
	{ RT, 4, 1, 80, "GCHeapStats" },
	{ RT, 5, 1, 2, "GCCreateSegment" },
	{ RT, 7, 1, 81, "GCRestartEEBegin" },
	{ RT, 8, 1, 81, "GCSuspendEEEnd" },
	{ RT, 9, 1, 81, "GCSuspendEEBegin" },
	{ RT, 10, 3, 3196, "GCAllocationTick" },
	{ RT, 13, 1, 3, "GCFinalizersEnd" },
	{ RT, 14, 1, 3, "GCFinalizersBegin" },
	{ RT, 15, 0, 5, "BulkType" },
	{ RT, 21, 0, 1, "GCBulkSurvivingObjectRanges" },
	{ RT, 23, 0, 640, "GCGenerationRange" },
	{ RT, 25, 0, 80, "GCMarkStackRoots" },
	{ RT, 26, 0, 80, "GCMarkFinalizeQueueRoots" },
	{ RT, 27, 0, 80, "GCMarkHandles" },
	{ RT, 28, 0, 80, "GCMarkOlderGenerationRoots" },
	{ RT, 29, 0, 5, "FinalizeObject" },
	{ RT, 33, 0, 1, "PinObjectAtGCTime" },
	{ RT, 35, 0, 80, "GCTriggered" },
	{ RT, 50, 0, 4, "ThreadPoolWorkerThreadStart" },
	{ RT, 80, 1, 1, "ExceptionThrown" },
	{ RT, 81, 1, 16, "ContentionStart" },
	{ RT, 82, 0, 5206, "CLRStackWalk" },
	{ RT, 85, 0, 6, "ThreadCreated" },
	{ RT, 91, 0, 16, "ContentionStop" },
	{ RT, 143, 1, 405, "MethodLoadVerbose" },
	{ RT, 144, 1, 271, "MethodUnloadVerbose" },
	{ RT, 145, 1, 395, "MethodJittingStarted" },
	{ RT, 151, 1, 1, "DomainModuleLoad" },
	{ RT, 152, 2, 2, "ModuleLoad" },
	{ RT, 153, 2, 2, "ModuleUnload" },
	{ RT, 154, 1, 2, "AssemblyLoad" },
	{ RT, 155, 1, 2, "AssemblyUnload" },
	{ RT, 156, 1, 2, "AppDomainLoad" },
	{ RT, 157, 1, 2, "AppDomainUnload" },
	{ RT, 187, 0, 1, "RuntimeInformationStart" },
	{ RT, 190, 0, 371, "MethodILToNativeMap" },
	{ RT, 200, 0, 3, "IncreaseMemoryPressure" },
	{ RD, 144, 1, 13783, "MethodDCEndVerbose" },
	{ RD, 146, 1, 2, "DCEndComplete" },
	{ RD, 148, 1, 2, "DCEndInit" },
	{ RD, 150, 0, 13329, "MethodDCEndILToNativeMap" },
	{ RD, 152, 1, 17, "DomainModuleDCEnd" },
	{ RD, 154, 2, 18, "ModuleDCEnd" },
	{ RD, 156, 1, 18, "AssemblyDCEnd" },
	{ RD, 158, 1, 2, "AppDomainDCEnd" },
	{ RD, 187, 0, 2, "RuntimeInformationDCStart" },
	{ PR, 2, 1, 1, "GCSettings" },
	{ PR, 4, 2, 80, "GCPerHeapHistory" },
	{ PR, 5, 1, 80, "GCGlobalHeapHistory" },
	{ PR, 7, 1, 80, "PrvGCMarkStackRoots" },
	{ PR, 8, 1, 80, "PrvGCMarkFinalizeQueueRoots" },
	{ PR, 9, 1, 80, "PrvGCMarkHandles" },
	{ PR, 10, 1, 80, "PrvGCMarkCards" },
	{ PR, 161, 0, 1, "BindingNgenPhaseStart" },
	{ PR, 162, 0, 1, "BindingNgenPhaseEnd" },
	{ PR, 165, 0, 1, "LoaderPhaseStart" },
	{ PR, 166, 0, 1, "LoaderPhaseEnd" },
	{ PR, 171, 0, 2, "LoaderAssemblyInitPhaseStart" },
	{ PR, 172, 0, 2, "LoaderAssemblyInitPhaseEnd" },
	{ PR, 173, 0, 3, "LoaderMappingPhaseStart" },
	{ PR, 174, 0, 3, "LoaderMappingPhaseEnd" },
	{ PR, 175, 0, 2, "LoaderDeliverEventsPhaseStart" },
	{ PR, 176, 0, 2, "LoaderDeliverEventsPhaseEnd" },
	{ PR, 188, 0, 2, "NgenBindEvent" },
	{ PR, 196, 0, 20, "FusionMessageEvent" },
};

#define EXPECTED	(sizeof(expected) / sizeof(expected[0]))

/* Each (provider, id, version) as the walk found it. */
struct pair {
	int prov;
	USHORT id;
	UCHAR version;
	int n;
	int failed;		/* events not decoded to their last byte */
	ULONG status;		/* the last failure's */
	USHORT left;
	ULONG size_mismatch;
	int misnamed;		/* events whose names differ from the first's */
	char name[64];
	char provider[64];
};

/* The first event of a kind: its payload and the values TDH gave. */
struct kept {
	bool seen;
	bool ptr32;		/* EVENT_HEADER_FLAG_32_BIT_HEADER */
	USHORT len;
	uint8_t data[KEEP_DATA];
	int n;
	struct tdh_walk_val v[KEEP_VALS];
};

static struct {
	struct pair pair[MAX_PAIRS];
	int npairs;
	int per_prov[NPROV];
	struct kept method, module, exception, runtime, rundown, stack, heap;
	int stacks;
	int stacks_sized;	/* CLRStackWalks of 8 + 4 * FrameCount bytes */
} clr;

static struct pair *pair_of(int prov, USHORT id, UCHAR version)
{
	struct pair *p;
	int i;

	for (i = 0; i < clr.npairs; i++) {
		p = &clr.pair[i];
		if (p->prov == prov && p->id == id && p->version == version)
			return p;
	}
	if (clr.npairs == MAX_PAIRS)
		return NULL;
	p = &clr.pair[clr.npairs++];
	p->prov = prov;
	p->id = id;
	p->version = version;
	return p;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void keep(struct kept *k, PEVENT_RECORD r, const struct tdh_walk *w,
		 const struct tdh_walk_val *v)
{
	if (k->seen || r->UserDataLength > KEEP_DATA)
		return;
	k->seen = true;
	k->ptr32 = r->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER;
	k->len = r->UserDataLength;
	memcpy(k->data, r->UserData, k->len);
	k->n = w->n;
	memcpy(k->v, v, w->n * sizeof(*v));
}

static void keep_some(int prov, PEVENT_RECORD r, const struct tdh_walk *w,
		      const struct tdh_walk_val *v)
{
	const EVENT_DESCRIPTOR *d = &r->EventHeader.EventDescriptor;

	if (prov == RT && d->Id == 143 && d->Version == 1)
		keep(&clr.method, r, w, v);
	else if (prov == RT && d->Id == 152 && d->Version == 2)
		keep(&clr.module, r, w, v);
	else if (prov == RT && d->Id == 80 && d->Version == 1)
		keep(&clr.exception, r, w, v);
	else if (prov == RT && d->Id == 187)
		keep(&clr.runtime, r, w, v);
	else if (prov == RD && d->Id == 187)
		keep(&clr.rundown, r, w, v);
	else if (prov == PR && d->Id == 4 && d->Version == 2)
		keep(&clr.heap, r, w, v);
	if (prov != RT || d->Id != 82)
		return;
	keep(&clr.stack, r, w, v);
	clr.stacks++;
	/* FrameCount, then that many 4-byte return addresses. */
	clr.stacks_sized += r->UserDataLength >= 8 &&
			    r->UserDataLength ==
			    8 + 4 * le32((uint8_t *)r->UserData + 4) &&
			    w->seen == 4 + (int)le32((uint8_t *)r->UserData + 4);
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	struct tdh_walk_val v[KEEP_VALS];
	struct tdh_walk w;
	struct pair *p;
	char name[64];
	int prov;

	for (prov = 0; prov < NPROV; prov++)
		if (IsEqualGUID(&r->EventHeader.ProviderId, &clr_guid[prov]))
			break;
	if (prov == NPROV)
		return;
	clr.per_prov[prov]++;
	p = pair_of(prov, r->EventHeader.EventDescriptor.Id,
		    r->EventHeader.EventDescriptor.Version);
	if (!p)
		return;
	tdh_walk(&w, r, v, KEEP_VALS);
	if (w.status || w.left || w.size_mismatch) {
		p->failed++;
		p->status = w.status;
		p->left = w.left;
		p->size_mismatch = w.size_mismatch;
	}
	if (w.tei) {
		tdh_tei_str(w.tei, w.tei->EventNameOffset, name, sizeof(name));
		if (!p->n) {
			snprintf(p->name, sizeof(p->name), "%s", name);
			tdh_tei_str(w.tei, w.tei->ProviderNameOffset,
				    p->provider, sizeof(p->provider));
		} else if (strcmp(name, p->name)) {
			p->misnamed++;
		}
	} else {
		p->misnamed++;
	}
	p->n++;
	keep_some(prov, r, &w, v);
	tdh_walk_done(&w);
}

/* Every record of the file through OpenTrace/ProcessTrace, into clr. */
static void read_file(struct __test_metadata *_metadata)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	TRACEHANDLE h;

	/* Found as TDH finds an installed manifest: no TdhLoadManifest. */
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", MANIFESTS, 1));
	memset(&clr, 0, sizeof(clr));
	lf.LogFileName = NET;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	CloseTrace(h);
}

static const struct pair *found(int prov, USHORT id, UCHAR version)
{
	int i;

	for (i = 0; i < clr.npairs; i++)
		if (clr.pair[i].prov == prov && clr.pair[i].id == id &&
		    clr.pair[i].version == version)
			return &clr.pair[i];
	return NULL;
}

/* The @k-th value named @name of @e (k from 0); NULL when there is none. */
static const struct tdh_walk_val *val(const struct kept *e, const char *name,
				      int k)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name) && k-- == 0)
			return &e->v[i];
	return NULL;
}

static uint64_t num(const struct kept *e, const char *name)
{
	const struct tdh_walk_val *v = val(e, name, 0);

	return v ? v->num : ~0ull;
}

static const char *text(const struct kept *e, const char *name)
{
	const struct tdh_walk_val *v = val(e, name, 0);

	return v ? v->text : "(none)";
}

/* The payload read by hand: little-endian integers, ASCII UTF-16. */
struct raw {
	const struct kept *e;
	size_t off;
	bool bad;		/* read past the end, or a non-ASCII string */
};

static uint64_t raw_int(struct raw *r, size_t size)
{
	uint64_t v = 0;
	size_t i;

	if (r->off + size > r->e->len) {
		r->bad = true;
		return 0;
	}
	for (i = size; i-- > 0;)
		v = v << 8 | r->e->data[r->off + i];
	r->off += size;
	return v;
}

static const char *raw_str(struct raw *r, char *out, size_t size)
{
	size_t n = 0;
	uint16_t c;

	for (;;) {
		c = (uint16_t)raw_int(r, 2);
		if (r->bad || !c)
			break;
		if (c > 0x7f)
			r->bad = true;
		if (n + 1 < size)
			out[n++] = (char)c;
	}
	out[n] = 0;
	return out;
}

static const char *hex(uint64_t v, char *out, size_t size)
{
	snprintf(out, size, "0x%llX", (unsigned long long)v);
	return out;
}

TEST(every_clr_event_decodes)
{
	const struct pair *p;
	int i, total = 0;

	REQUIRE_NET();
	read_file(_metadata);
	for (i = 0; i < clr.npairs; i++) {
		p = &clr.pair[i];
		EXPECT_EQ(0, p->failed) {
			TH_LOG("%s event %u version %u: %d of %d fail: "
			       "status %lu, %u bytes left, %lu sizes differ",
			       clr_provider[p->prov], p->id, p->version,
			       p->failed, p->n, (unsigned long)p->status,
			       p->left, (unsigned long)p->size_mismatch);
		}
		total += p->n;
	}
	EXPECT_EQ(39302, total);
}

TEST(every_event_named)
{
	const struct pair *p;
	size_t i;

	REQUIRE_NET();
	read_file(_metadata);
	for (i = 0; i < EXPECTED; i++) {
		p = found(expected[i].prov, expected[i].id,
			  expected[i].version);
		ASSERT_NE(NULL, p) {
			TH_LOG("%s event %u version %u: none",
			       clr_provider[expected[i].prov], expected[i].id,
			       expected[i].version);
		}
		EXPECT_STREQ(expected[i].name, p->name);
		EXPECT_STREQ(clr_provider[p->prov], p->provider);
		EXPECT_EQ(0, p->misnamed);
	}
}

TEST(counts)
{
	const struct pair *p;
	int prov[NPROV] = { 0 };
	size_t i;

	REQUIRE_NET();
	read_file(_metadata);
	EXPECT_EQ((int)EXPECTED, clr.npairs);
	for (i = 0; i < EXPECTED; i++) {
		p = found(expected[i].prov, expected[i].id,
			  expected[i].version);
		EXPECT_EQ(expected[i].count, p ? p->n : 0) {
			TH_LOG("%s", expected[i].name);
		}
		prov[expected[i].prov] += expected[i].count;
	}
	EXPECT_EQ(11608, prov[RT]);
	EXPECT_EQ(27173, prov[RD]);
	EXPECT_EQ(521, prov[PR]);
	for (i = 0; i < NPROV; i++)
		EXPECT_EQ(prov[i], clr.per_prov[i]);
}

static bool have_python(void)
{
	return !system("python3 -c '' 2>/dev/null");
}

/* Each "event GUID ID VERSION N" line of the CLR's providers is ours. */
TEST(counts_match_python_reader)
{
	char cmd[1024], line[256], guid[64];
	unsigned int id, version, n;
	const struct pair *p;
	int prov, lines = 0;
	FILE *f;

	REQUIRE_NET();
	if (!have_python())
		SKIP(return, "no python3");
	read_file(_metadata);
	snprintf(cmd, sizeof(cmd), "python3 '%s' --events '%s'", CENSUS, NET);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		ASSERT_EQ(4, sscanf(line, "event %63s %u %u %u", guid, &id,
				    &version, &n)) {
			TH_LOG("%s", line);
		}
		for (prov = 0; prov < NPROV; prov++)
			if (!strcmp(guid, clr_guid_text[prov]))
				break;
		if (prov == NPROV)
			continue;
		lines++;
		p = found(prov, (USHORT)id, (UCHAR)version);
		EXPECT_EQ(n, p ? (unsigned int)p->n : 0u) {
			TH_LOG("%s", line);
		}
	}
	EXPECT_EQ(0, pclose(f));
	EXPECT_EQ(clr.npairs, lines);
}

/* MethodLoadVerbose: three 8-byte ids, three 4-byte ones, names. */
TEST(method_load_verbose)
{
	const struct kept *e = &clr.method;
	struct raw r = { .e = e };
	char s[256], h[32];
	uint64_t v;

	REQUIRE_NET();
	read_file(_metadata);
	ASSERT_TRUE(e->seen);
	v = raw_int(&r, 8);
	EXPECT_EQ(v, num(e, "MethodID"));
	EXPECT_STREQ(hex(v, h, sizeof(h)), text(e, "MethodID"));
	EXPECT_EQ(raw_int(&r, 8), num(e, "ModuleID"));
	v = raw_int(&r, 8);
	EXPECT_EQ(v, num(e, "MethodStartAddress"));
	EXPECT_STREQ("0xA34D418", text(e, "MethodStartAddress"));
	EXPECT_STREQ(hex(raw_int(&r, 4), h, sizeof(h)),
		     text(e, "MethodSize"));
	EXPECT_EQ(raw_int(&r, 4), num(e, "MethodToken"));
	/* Flags 8: a JIT-compiled method, as the MethodFlagsMap names it. */
	EXPECT_EQ(8u, raw_int(&r, 4));
	EXPECT_STREQ("Jitted", text(e, "MethodFlags"));
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "MethodNamespace"));
	EXPECT_STREQ("System.DateTime", s);
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "MethodName"));
	EXPECT_STREQ("op_Subtraction", s);
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "MethodSignature"));
	EXPECT_EQ(raw_int(&r, 2), num(e, "ClrInstanceID"));
	EXPECT_STREQ("11", text(e, "ClrInstanceID"));
	EXPECT_FALSE(r.bad);
	EXPECT_EQ(e->len, r.off);
	EXPECT_EQ(10, e->n);
}

/* ModuleLoad: mscorlib from the GAC, with its PDB's signature. */
TEST(module_load)
{
	const struct kept *e = &clr.module;
	struct raw r = { .e = e };
	char s[512], g[64];
	GUID pdb;
	size_t n;

	REQUIRE_NET();
	read_file(_metadata);
	ASSERT_TRUE(e->seen);
	EXPECT_EQ(raw_int(&r, 8), num(e, "ModuleID"));
	EXPECT_EQ(raw_int(&r, 8), num(e, "AssemblyID"));
	EXPECT_EQ(9u, raw_int(&r, 4));
	EXPECT_STREQ("DomainNeutral | Manifest", text(e, "ModuleFlags"));
	EXPECT_EQ(raw_int(&r, 4), num(e, "Reserved1"));
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "ModuleILPath"));
	n = strlen(s);
	ASSERT_GT(n, strlen("\\mscorlib.dll"));
	EXPECT_STREQ("\\mscorlib.dll", s + n - strlen("\\mscorlib.dll"));
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "ModuleNativePath"));
	EXPECT_EQ(raw_int(&r, 2), num(e, "ClrInstanceID"));
	ASSERT_LE(r.off + sizeof(pdb), e->len);
	memcpy(&pdb, e->data + r.off, sizeof(pdb));
	r.off += sizeof(pdb);
	snprintf(g, sizeof(g),
		 "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
		 pdb.Data1, pdb.Data2, pdb.Data3, pdb.Data4[0], pdb.Data4[1],
		 pdb.Data4[2], pdb.Data4[3], pdb.Data4[4], pdb.Data4[5],
		 pdb.Data4[6], pdb.Data4[7]);
	EXPECT_STREQ(g, text(e, "ManagedPdbSignature"));
	EXPECT_STREQ("{46C7F945-589D-4BF7-BCF8-2771980299F4}", g);
	EXPECT_EQ(raw_int(&r, 4), num(e, "ManagedPdbAge"));
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "ManagedPdbBuildPath"));
	EXPECT_STREQ("mscorlib.pdb", s);
	r.off += sizeof(pdb);
	EXPECT_EQ(raw_int(&r, 4), num(e, "NativePdbAge"));
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "NativePdbBuildPath"));
	EXPECT_FALSE(r.bad);
	EXPECT_EQ(e->len, r.off);
	EXPECT_EQ(13, e->n);
}

/* ExceptionThrown of a 32-bit program: a 4-byte ExceptionEIP. */
TEST(exception_thrown)
{
	const struct kept *e = &clr.exception;
	struct raw r = { .e = e };
	char s[256], h[32];
	uint64_t eip;

	REQUIRE_NET();
	read_file(_metadata);
	ASSERT_TRUE(e->seen);
	EXPECT_TRUE(e->ptr32);
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "ExceptionType"));
	EXPECT_STREQ("System.IO.FileNotFoundException", s);
	EXPECT_STREQ(raw_str(&r, s, sizeof(s)), text(e, "ExceptionMessage"));
	EXPECT_STREQ("The session PerfViewSessionHeap is not active.", s);
	eip = raw_int(&r, 4);
	EXPECT_EQ(eip, num(e, "ExceptionEIP"));
	EXPECT_STREQ(hex(eip, h, sizeof(h)), text(e, "ExceptionEIP"));
	EXPECT_EQ(0x80070002u, raw_int(&r, 4));
	EXPECT_STREQ("0x80070002", text(e, "ExceptionHRESULT"));
	EXPECT_EQ(0x10u, raw_int(&r, 2));
	EXPECT_STREQ("CLSCompliant", text(e, "ExceptionFlags"));
	EXPECT_EQ(11u, raw_int(&r, 2));
	EXPECT_EQ(11u, num(e, "ClrInstanceID"));
	EXPECT_FALSE(r.bad);
	EXPECT_EQ(e->len, r.off);
	EXPECT_EQ(6, e->n);
}

/* RuntimeInformationStart and the rundown's DCStart: the same runtime. */
TEST(runtime_information)
{
	static const char *const u16[] = {
		"ClrInstanceID", "Sku", "BclMajorVersion", "BclMinorVersion",
		"BclBuildNumber", "BclQfeNumber", "VMMajorVersion",
		"VMMinorVersion", "VMBuildNumber", "VMQfeNumber",
	};
	const struct kept *all[] = { &clr.runtime, &clr.rundown }, *e;
	char s[512];
	struct raw r;
	size_t i, k, n;

	REQUIRE_NET();
	read_file(_metadata);
	for (k = 0; k < 2; k++) {
		e = all[k];
		ASSERT_TRUE(e->seen);
		r = (struct raw){ .e = e };
		for (i = 0; i < sizeof(u16) / sizeof(u16[0]); i++)
			EXPECT_EQ(raw_int(&r, 2), num(e, u16[i])) {
				TH_LOG("16-bit field %zu", i);
			}
		EXPECT_EQ(raw_int(&r, 4), num(e, "StartupFlags"));
		EXPECT_EQ(raw_int(&r, 1), num(e, "StartupMode"));
		EXPECT_STREQ(raw_str(&r, s, sizeof(s)),
			     text(e, "CommandLine"));
		r.off += 16;
		EXPECT_STREQ(raw_str(&r, s, sizeof(s)),
			     text(e, "RuntimeDllPath"));
		n = strlen(s);
		ASSERT_GT(n, strlen("\\clr.dll"));
		EXPECT_STREQ("\\clr.dll", s + n - strlen("\\clr.dll"));
		EXPECT_FALSE(r.bad);
		EXPECT_EQ(e->len, r.off);
		EXPECT_STREQ("DesktopClr", text(e, "Sku"));
		EXPECT_EQ(30319u, num(e, "VMBuildNumber"));
		EXPECT_EQ(34209u, num(e, "VMQfeNumber"));
		EXPECT_STREQ("CONCURRENT_GC", text(e, "StartupFlags"));
		EXPECT_STREQ("{00000000-0000-0000-0000-000000000000}",
			     text(e, "ComObjectGuid"));
	}
	EXPECT_STREQ("ManagedExe", text(&clr.runtime, "StartupMode"));
	EXPECT_STREQ("Test.x86.exe", text(&clr.runtime, "CommandLine"));
}

/* CLRStackWalk: FrameCount 4-byte return addresses, in every one. */
TEST(clr_stack_walk)
{
	const struct kept *e = &clr.stack;
	struct raw r = { .e = e };
	uint64_t frames, k;
	char h[32];

	REQUIRE_NET();
	read_file(_metadata);
	EXPECT_EQ(5206, clr.stacks);
	EXPECT_EQ(clr.stacks, clr.stacks_sized);
	ASSERT_TRUE(e->seen);
	EXPECT_TRUE(e->ptr32);
	EXPECT_EQ(raw_int(&r, 2), num(e, "ClrInstanceID"));
	EXPECT_EQ(raw_int(&r, 1), num(e, "Reserved1"));
	EXPECT_EQ(raw_int(&r, 1), num(e, "Reserved2"));
	frames = raw_int(&r, 4);
	EXPECT_EQ(frames, num(e, "FrameCount"));
	EXPECT_EQ(33u, frames);
	ASSERT_EQ(4 + (int)frames, e->n);
	for (k = 0; k < frames; k++)
		EXPECT_STREQ(hex(raw_int(&r, 4), h, sizeof(h)),
			     val(e, "Stack", (int)k)->text);
	EXPECT_STREQ("0x748B4D88", val(e, "Stack", 0)->text);
	EXPECT_FALSE(r.bad);
	EXPECT_EQ(e->len, r.off);
}

/*
 * The private GCPerHeapHistory of .NET Framework 4.5.2: five records of
 * ten 4-byte counters, six 4-byte fields, 8 bytes and a 1-byte
 * ClrInstanceID.
 */
TEST(private_gc_per_heap_history)
{
	const struct kept *e = &clr.heap;
	struct raw r = { .e = e };
	int k;

	REQUIRE_NET();
	read_file(_metadata);
	ASSERT_TRUE(e->seen);
	EXPECT_EQ(233, e->len);
	ASSERT_EQ(58, e->n);
	for (k = 0; k < 50; k++)
		EXPECT_EQ(raw_int(&r, 4), e->v[k].num);
	EXPECT_STREQ("SizeBefore", e->v[0].name);
	EXPECT_STREQ("0x400014", e->v[0].text);
	EXPECT_STREQ("Surv", e->v[49].name);
	for (k = 50; k < 56; k++)
		EXPECT_EQ(raw_int(&r, 4), e->v[k].num);
	EXPECT_EQ(raw_int(&r, 8), num(e, "ExtraGen0Commit"));
	EXPECT_EQ(11u, raw_int(&r, 1));
	EXPECT_STREQ("11", text(e, "ClrInstanceID"));
	EXPECT_EQ(e->len, r.off);
}

TEST_HARNESS_MAIN
