// SPDX-License-Identifier: GPL-2.0
/*
 * "etwctl export --format speedscope" on the PerfView trace Windows
 * recorded (testdata/etl/net.4.5.2.x86.etl): a sampled profile per
 * process and thread, one sample per SampledProfile record weighted by
 * its Count, frames outermost first.  The file is read back with
 * Python's json module (it must parse); the samples and weights it holds
 * are compared with those read from the records through OpenTrace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_test.h"
#include "etl_test.h"
#include "evntcons.h"
#include "kselftest_harness.h"

#define NET		ETL_DIR "/net.4.5.2.x86.etl"

static const GUID perfinfo = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };

static struct {
	unsigned long samples;
	unsigned long long weight;
} rec;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	uint16_t count;

	if (!IsEqualGUID(&r->EventHeader.ProviderId, &perfinfo) ||
	    r->EventHeader.EventDescriptor.Opcode != 46 ||
	    r->UserDataLength < 14)
		return;
	memcpy(&count, (const uint8_t *)r->UserData + 12, sizeof(count));
	rec.samples++;
	rec.weight += count ? count : 1;
}

static void read_records(void)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;

	memset(&rec, 0, sizeof(rec));
	lf.LogFileName = (LPSTR)NET;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return;
	ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
}

/*
 * What the file holds, one line: samples, weight, profiles, the shown
 * profile's name, and the innermost five frames of the first sample of
 * pid 3988, tid 2784.
 */
static const char summary_py[] =
	"import json, sys\n"
	"d = json.load(open(sys.argv[1]))\n"
	"f = [x['name'] for x in d['shared']['frames']]\n"
	"ps = d['profiles']\n"
	"n = sum(len(p['samples']) for p in ps)\n"
	"w = sum(sum(p['weights']) for p in ps)\n"
	"ok = all(len(p['samples']) == len(p['weights']) and "
	"p['endValue'] == sum(p['weights']) and p['type'] == 'sampled' "
	"for p in ps)\n"
	"t = [p for p in ps if p['name'] == 'pid 3988, tid 2784'][0]\n"
	"top = ','.join(f[i] for i in t['samples'][0][-5:])\n"
	"print(n, w, len(ps), ok, ps[d['activeProfileIndex']]['name'] + ';',"
	" top)\n";

TEST(samples_become_weighted_thread_profiles)
{
	char *dir, *out, *py, cmd[1024], line[1024];
	struct ctl_run run;
	FILE *f;

	REQUIRE_TESTDATA();
	read_records();
	ASSERT_EQ(88809, rec.samples);
	dir = etl_mkdtemp();
	ASSERT_NE(NULL, dir);
	out = etl_path(dir, "net.json");
	py = etl_path(dir, "summary.py");
	f = fopen(py, "w");
	ASSERT_NE(NULL, f);
	fputs(summary_py, f);
	fclose(f);
	run = ctl_run(etwctl_cmd_export,
		      CTL_ARGV("export", "--format", "speedscope", "-o", out,
			       NET));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_STREQ("", run.err);
	ctl_run_free(&run);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", py, out);
	f = popen(cmd, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	pclose(f);
	snprintf(cmd, sizeof(cmd), "%lu %llu ", rec.samples, rec.weight);
	EXPECT_EQ(0, strncmp(line, cmd, strlen(cmd))) TH_LOG("%s", line);
	/*
	 * 84 threads; the busiest not of the idle process shown first; the
	 * first sample of PerfView's thread ends in the frames its StackWalk
	 * record gives (dump_stacks_net_test), innermost last.
	 */
	EXPECT_NE(NULL, strstr(line, " 84 True pid 3644, tid 3708; "
			       "ntoskrnl.exe+0x4d36a6,fltmgr.sys+0x36521,"
			       "fltmgr.sys+0x6c83,fltmgr.sys+0x6e43,"
			       "ntoskrnl.exe+0xd8f43\n")) TH_LOG("%s", line);
	free(out);
	free(py);
	etl_rmdir(dir);
}

/* The innermost frames of the first sample of pid 3988, tid 2784, as above. */
static const char first_2784[] =
	";ntoskrnl.exe+0x4d36a6;fltmgr.sys+0x36521;fltmgr.sys+0x6c83;"
	"fltmgr.sys+0x6e43;ntoskrnl.exe+0xd8f43 1\n";

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && !strcmp(s + n - k, tail);
}

/*
 * --format folded: a line per thread and distinct stack, their weights
 * summing to the records'; 84 threads, by process and thread id; the
 * first line of PerfView's thread is its first sample's stack.
 */
TEST(folded_stacks_sum_the_samples)
{
	unsigned long long total = 0, w;
	char *dir, *out, line[65536], *sp, *tid;
	unsigned long lines = 0, threads = 0;
	char last[64] = "", who[64];
	bool seen = false;
	struct ctl_run run;
	FILE *f;

	REQUIRE_TESTDATA();
	read_records();
	dir = etl_mkdtemp();
	ASSERT_NE(NULL, dir);
	out = etl_path(dir, "net.folded");
	run = ctl_run(etwctl_cmd_export,
		      CTL_ARGV("export", "--format", "folded", "-o", out, NET));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_STREQ("", run.err);
	ctl_run_free(&run);
	f = fopen(out, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		sp = strrchr(line, ' ');
		ASSERT_NE(NULL, sp);
		ASSERT_EQ(1, sscanf(sp, " %llu\n", &w));
		ASSERT_LT(0, w);
		total += w;
		lines++;
		/* "pid P;tid T": a new thread starts a run of lines. */
		ASSERT_EQ(0, strncmp(line, "pid ", 4));
		tid = strchr(line, ';');
		tid = tid ? strchr(tid + 1, ';') : NULL;
		ASSERT_NE(NULL, tid);
		snprintf(who, sizeof(who), "%.*s", (int)(tid - line), line);
		if (strcmp(who, last)) {
			threads++;
			strcpy(last, who);
			if (!strcmp(who, "pid 3988;tid 2784")) {
				seen = true;
				EXPECT_TRUE(ends_with(line, first_2784))
					TH_LOG("%s", line);
			}
		}
	}
	fclose(f);
	EXPECT_EQ(rec.weight, total);
	EXPECT_EQ(2937, lines);
	EXPECT_EQ(84, threads);
	EXPECT_TRUE(seen);
	free(out);
	etl_rmdir(dir);
}

TEST(unknown_format_is_a_usage_error)
{
	struct ctl_run run = ctl_run(etwctl_cmd_export,
				     CTL_ARGV("export", "--format", "pprof",
					      NET));

	EXPECT_EQ(2, run.status);
	EXPECT_NE(NULL, strstr(run.err, "bad value 'pprof' for '--format'"));
	ctl_run_free(&run);
}

TEST_HARNESS_MAIN
