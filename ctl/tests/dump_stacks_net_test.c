// SPDX-License-Identifier: GPL-2.0
/*
 * "etwctl dump --stacks" on the PerfView trace Windows recorded
 * (testdata/etl/net.4.5.2.x86.etl): the NT Kernel Logger's stack records
 * (StackWalk_Event, and with stack caching the StackKeyKernel/User
 * references whose frames a KeyDelete or KeyRundown record gives) joined
 * to the events they name, as Windows' consumers join them: by the
 * event's raw timestamp (EventTimeStamp) and thread (StackThread).
 *
 * The expected joins are worked out here from the records themselves,
 * read through OpenTrace/ProcessTrace, apart from etwctl's stacks.c.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl_test.h"
#include "evntcons.h"
#include "kselftest_harness.h"

#define NET		ETL_DIR "/net.4.5.2.x86.etl"
/* Records dump prints (less the two header records) ... */
#define NET_EVENTS	168296
/* ... of which StackWalk records (types 32, 35, 36, 37, 38). */
#define NET_STACKWALK	(229 + 3049 + 1024 + 3640 + 8532)

static const GUID stackwalk = { 0xdef2fe46, 0x7bd6, 0x4b80,
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } };
static const GUID perfinfo = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };

/* A stack part: its event, and its frames or its key. */
struct part {
	uint64_t ts, ref_ts, key;
	uint32_t tid, nframes;
	int is_key;
};

struct def {
	uint64_t key, ts;
	uint32_t nframes;
	int create;
};

struct sample {
	uint64_t ts;
	uint32_t tid;
};

static struct {
	struct part *parts;
	size_t nparts;
	struct def *defs;
	size_t ndefs;
	struct sample *samples;
	size_t nsamples;
} rec;

static void *grow(void *v, size_t n, size_t size)
{
	/* Powers of two: room for one more. */
	if (n & (n - 1) || !n)
		return n ? v : malloc(size);
	return realloc(v, 2 * n * size);
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	const uint8_t *p = r->UserData;
	USHORT len = r->UserDataLength;
	UCHAR op = r->EventHeader.EventDescriptor.Opcode;
	struct part t = { 0 };
	struct def d = { 0 };

	if (IsEqualGUID(&r->EventHeader.ProviderId, &perfinfo) && op == 46 &&
	    len >= 12) {
		rec.samples = grow(rec.samples, rec.nsamples,
				   sizeof(*rec.samples));
		rec.samples[rec.nsamples].ts = r->EventHeader.TimeStamp.QuadPart;
		memcpy(&rec.samples[rec.nsamples++].tid, p + 8, 4);
		return;
	}
	if (!IsEqualGUID(&r->EventHeader.ProviderId, &stackwalk))
		return;
	if (op == 35 || op == 36) {
		memcpy(&d.key, p, 8);
		d.ts = r->EventHeader.TimeStamp.QuadPart;
		d.nframes = (len - 8) / 8;
		rec.defs = grow(rec.defs, rec.ndefs, sizeof(*rec.defs));
		rec.defs[rec.ndefs++] = d;
		return;
	}
	if (op != 32 && op != 37 && op != 38)
		return;
	memcpy(&t.ts, p, 8);
	memcpy(&t.tid, p + 12, 4);
	t.ref_ts = r->EventHeader.TimeStamp.QuadPart;
	if (op == 32) {
		t.nframes = (len - 16) / 8;
	} else {
		t.is_key = 1;
		memcpy(&t.key, p + 16, 8);
	}
	rec.parts = grow(rec.parts, rec.nparts, sizeof(*rec.parts));
	rec.parts[rec.nparts++] = t;
}

/* The frames of key @t->key's definition: the first at or after @t. */
static uint32_t key_frames(const struct part *t, int *found)
{
	const struct def *best = NULL;
	size_t i;

	for (i = 0; i < rec.ndefs; i++) {
		const struct def *d = &rec.defs[i];

		if (d->key == t->key && d->ts >= t->ref_ts &&
		    (!best || d->ts < best->ts))
			best = d;
	}
	*found = !!best;
	return best ? best->nframes : 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* Samples that some stack record names, and the frames they get. */
static void expected(size_t *joined, uint64_t *frames, size_t *unresolved)
{
	struct part key;
	size_t i, lo, hi, mid;
	int found;

	*joined = 0;
	*frames = 0;
	*unresolved = 0;
	for (i = 0; i < rec.nparts; i++) {
		if (rec.parts[i].is_key) {
			rec.parts[i].nframes = key_frames(&rec.parts[i],
							  &found);
			*unresolved += !found;
		}
	}
	qsort(rec.parts, rec.nparts, sizeof(*rec.parts), cmp_part);
	for (i = 0; i < rec.nsamples; i++) {
		key.ts = rec.samples[i].ts;
		key.tid = rec.samples[i].tid;
		lo = 0;
		hi = rec.nparts;
		while (lo < hi) {
			mid = (lo + hi) / 2;
			if (cmp_part(&rec.parts[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == rec.nparts || cmp_part(&rec.parts[lo], &key))
			continue;
		(*joined)++;
		for (; lo < rec.nparts && !cmp_part(&rec.parts[lo], &key); lo++)
			*frames += rec.parts[lo].nframes;
	}
}

static void read_records(void)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;

	memset(&rec, 0, sizeof(rec));
	lf.LogFileName = (LPSTR)NET;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD |
			      PROCESS_TRACE_MODE_RAW_TIMESTAMP;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return;
	ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
}

static size_t count_lines(const char *s, const char *with)
{
	size_t n = 0;
	const char *nl;

	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			break;
		if (!with || memmem(s, nl - s, with, strlen(with)))
			n++;
	}
	return n;
}

/* The frames of the stacks on SampleProf lines: their commas plus one. */
static void dumped_samples(const char *s, size_t *joined, uint64_t *frames)
{
	const char *nl, *st, *q;

	*joined = 0;
	*frames = 0;
	for (; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			break;
		if (!memmem(s, nl - s, "\"opcode\":\"SampleProf\"", 21))
			continue;
		st = memmem(s, nl - s, "\"stack\":[", 9);
		if (!st)
			continue;
		(*joined)++;
		(*frames)++;
		for (q = st + 9; q < nl && *q != ']'; q++)
			*frames += *q == ',';
	}
}

TEST(every_sample_gets_the_stacks_that_name_it)
{
	size_t want_joined, want_unresolved, joined;
	uint64_t want_frames, frames;
	struct ctl_run run;

	REQUIRE_TESTDATA();
	read_records();
	ASSERT_EQ(88809, rec.nsamples);
	ASSERT_EQ(229 + 3640 + 8532, rec.nparts);
	expected(&want_joined, &want_frames, &want_unresolved);
	/* Every key the trace references is defined in it. */
	EXPECT_EQ(0, want_unresolved);
	run = ctl_run(etwctl_cmd_dump,
		      CTL_ARGV("dump", "--stacks", "--no-symbols",
			       "--format=json", NET));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_STREQ("", run.err);
	/* The stack records are under their events, not beside them. */
	EXPECT_EQ(NET_EVENTS - NET_STACKWALK, count_lines(run.out, NULL));
	EXPECT_EQ(0, count_lines(run.out, "\"task\":\"StackWalk\""));
	dumped_samples(run.out, &joined, &frames);
	EXPECT_LT(0, want_joined);
	EXPECT_EQ(want_joined, joined);
	EXPECT_EQ(want_frames, frames);
	ctl_run_free(&run);
	free(rec.parts);
	free(rec.defs);
	free(rec.samples);
}

/*
 * The first sample (raw time 1534538769, thread 2784): its StackWalk
 * record's frames, named from the trace's Image events and the CLR's
 * method events.  ntoskrnl.exe's
 * base is 0xFFFFF80021489000 (its Image rundown and the KernelBase
 * record); the sample's InstructionPointer 0xFFFFF80021561F43 is the
 * first frame.  A PERFINFO header has no process or thread: the sample
 * takes the stack's (process 0xF94 = 3988).
 */
TEST(a_sample_stack_is_named_from_the_trace_images)
{
	struct ctl_run run = ctl_run(etwctl_cmd_dump,
				     CTL_ARGV("dump", "--stacks", NET));

	REQUIRE_TESTDATA();
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_NE(NULL, strstr(run.out, "7    3988    2784 MSNT_SystemTrace - "
			       "id=0 v=2 lvl=0 op=SampleProf task=PerfInfo "
			       "kw=0x0 act=- stack=ntoskrnl.exe+0xd8f43,"
			       "fltmgr.sys+0x6e43,fltmgr.sys+0x6c83,"));
	/* User frames of the WOW64 process, from its rundown and loads. */
	EXPECT_NE(NULL, strstr(run.out, ",ntdll.dll+0x455b,wow64.dll+0x2aeb9,"
			       "wow64.dll+0xc363,wow64cpu.dll+0x25a7,"));
	/*
	 * JIT-compiled methods, from the CLR's MethodDCEndVerbose records
	 * and their modules' ModuleDCEnd: StartKernelSession lies at
	 * 0xa58a3a0 (0xeb bytes) in OSExtensions, the frame is 0xa58a456;
	 * the P/Invoke stub at 0xa58ab48 in WindowsBase, the frame 0xa58abba.
	 */
	EXPECT_NE(NULL, strstr(run.out, ",KernelTraceControl.dll+0x4a76,"
			       "WindowsBase!dynamicClass.IL_STUB_PInvoke+0x72,"
			       "OSExtensions!Microsoft.Diagnostics.Tracing."
			       "Extensions.ETWKernelControl.StartKernelSession"
			       "+0xb6,"));
	ctl_run_free(&run);
}

TEST(stacks_need_files)
{
	struct ctl_run run = ctl_run(etwctl_cmd_dump,
				     CTL_ARGV("dump", "--stacks", "--session",
					      "x"));

	EXPECT_EQ(2, run.status);
	EXPECT_STREQ("etwctl dump: --stacks reads files, not a session "
		     "(see 'etwctl dump --help')\n",
		     run.err);
	ctl_run_free(&run);
}

TEST_HARNESS_MAIN
