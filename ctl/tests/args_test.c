// SPDX-License-Identifier: GPL-2.0
/*
 * Every command's argument checking: bad arguments give exit status 2,
 * failed operations 1, and either way exactly one line on stderr and
 * nothing on stdout; --help prints usage on stdout and succeeds.
 */
#include <errno.h>
#include <string.h>

#include "ctl_test.h"
#include "kselftest_harness.h"

#define G	"e13c0d23-ccbc-4e12-931b-d9cc2eee27e4"
#define A(...)	{ __VA_ARGS__, NULL }
/* 512 UTF-16 units with the NUL: past EXECUTABLE_NAME's 1,024 bytes. */
#define LONG_EXE	X64 X64 X64 X64 X64 X64 X64 X64
#define X64	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

struct arg_case {
	int (*fn)(int, char **);
	int status;
	const char *argv[12];
};

static const struct arg_case usage_cases[] = {
	{ etwctl_cmd_start, 2, A("start") },
	{ etwctl_cmd_start, 2, A("start", "s", "--bogus") },
	{ etwctl_cmd_start, 2, A("start", "s") },
	{ etwctl_cmd_start, 2, A("start", "", "--realtime") },
	{ etwctl_cmd_start, 2, A("start", "a", "b", "--realtime") },
	{ etwctl_cmd_start, 2, A("start", "s", "--mode", "sequential") },
	{ etwctl_cmd_start, 2, A("start", "s", "-f", "x.etl", "--mode",
				 "ring") },
	{ etwctl_cmd_start, 2, A("start", "s", "-f", "x.etl", "--mode",
				 "circular") },
	{ etwctl_cmd_start, 2, A("start", "s", "-f", "x.etl", "--mode",
				 "newfile", "--max-file", "1") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "--buffer-size",
				 "big") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "--min-buffers",
				 "-1") },
	{ etwctl_cmd_start, 2, A("start", "s", "-f") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "-on", "DISK_IO") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "-on",
				 "PROC_THREAD+") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "--on", "") },
	{ etwctl_cmd_start, 2, A("start", "s", "--realtime", "-on") },
	{ etwctl_cmd_stop, 2, A("stop") },
	{ etwctl_cmd_stop, 2, A("stop", "a", "b") },
	{ etwctl_cmd_stop, 2, A("stop", "--force", "a") },
	{ etwctl_cmd_flush, 2, A("flush") },
	{ etwctl_cmd_flush, 2, A("flush", "") },
	{ etwctl_cmd_query, 2, A("query") },
	{ etwctl_cmd_query, 2, A("query", "a", "b") },
	{ etwctl_cmd_update, 2, A("update") },
	{ etwctl_cmd_update, 2, A("update", "s") },
	{ etwctl_cmd_update, 2, A("update", "s", "--realtime", "maybe") },
	{ etwctl_cmd_update, 2, A("update", "s", "--flush-timer", "soon") },
	{ etwctl_cmd_update, 2, A("update", "s", "--max-buffers", "0") },
	{ etwctl_cmd_update, 2, A("update", "s", "--max-buffers", "many") },
	{ etwctl_cmd_list, 2, A("list", "extra") },
	{ etwctl_cmd_list, 2, A("list", "--all") },
	{ etwctl_cmd_enable, 2, A("enable") },
	{ etwctl_cmd_enable, 2, A("enable", "s") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G ":1:2:3") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G ":nokw") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "extra") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--pids",
				  "1,2,3,4,5,6,7,8,9") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--event-ids", "1",
				  "--exclude-ids", "2") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--event-ids", "65536") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--timeout", "x") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--exe", "") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--exe", LONG_EXE) },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--event-names", "a,") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--event-names", ",a") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--event-names", "a",
				  "--exclude-names", "b") },
	{ etwctl_cmd_disable, 2, A("disable", "s", G, "--exe", "a") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--match-all") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--extended", "pid") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--extended", "sid,") },
	{ etwctl_cmd_enable, 2, A("enable", "s", G, "--extended",
				  "sid,,stack") },
	{ etwctl_cmd_disable, 2, A("disable", "s", G, "--extended", "sid") },
	{ etwctl_cmd_disable, 2, A("disable", "s") },
	{ etwctl_cmd_disable, 2, A("disable", "s", G, "--timeout", "5") },
	{ etwctl_cmd_capture_state, 2, A("capture-state", "s") },
	{ etwctl_cmd_capture_state, 2, A("capture-state", "s", G, "--pids",
					 "1") },
	{ etwctl_cmd_disallow, 2, A("disallow", "s") },
	{ etwctl_cmd_disallow, 2, A("disallow", "s", "group", G) },
	{ etwctl_cmd_disallow, 2, A("disallow", "s", G, G ":1") },
	{ etwctl_cmd_providers, 2, A("providers", "x") },
	{ etwctl_cmd_providers, 2, A("providers", "-v") },
	{ etwctl_cmd_view, 2, A("view") },
	{ etwctl_cmd_view, 2, A("view", "s", "--format", "xml") },
	{ etwctl_cmd_dump, 2, A("dump") },
	{ etwctl_cmd_dump, 2, A("dump", "--format", "xml", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--session", "s", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--id", "70000", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--level", "loud", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--pid", "-3", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--from", "yesterday", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--to", "1970-01-01", PRIMITIVE) },
	{ etwctl_cmd_dump, 2, A("dump", "--provider", G ":1", PRIMITIVE) },
	{ etwctl_cmd_merge, 2, A("merge") },
	{ etwctl_cmd_merge, 2, A("merge", "out.etl") },
	{ etwctl_cmd_merge, 2, A("merge", "--fast", "out.etl", PRIMITIVE) },
	{ etwctl_cmd_merge, 2, A("merge", PRIMITIVE, PRIMITIVE) },
	{ etwctl_cmd_stats, 2, A("stats") },
	{ etwctl_cmd_stats, 2, A("stats", "--cpu", PRIMITIVE) },
	/* Operations that fail, whatever the device. */
	{ etwctl_cmd_dump, 1, A("dump", "/nonexistent.etl") },
	{ etwctl_cmd_dump, 1, A("dump", PRIMITIVE, "/nonexistent.etl") },
	{ etwctl_cmd_dump, 1, A("dump", SRC_DIR "/ctl/tests/args_test.c") },
	{ etwctl_cmd_stats, 1, A("stats", "/nonexistent.etl") },
	{ etwctl_cmd_stats, 1, A("stats", SRC_DIR "/Makefile") },
	{ etwctl_cmd_merge, 1, A("merge", "/nonexistent/out.etl", PRIMITIVE) },
	{ etwctl_cmd_merge, 1, A("merge", "/tmp/etwctl_never.etl",
				 "/nonexistent.etl") },
};

static struct ctl_run run_case(const struct arg_case *c)
{
	char *argv[12];
	int i;

	for (i = 0; c->argv[i]; i++)
		argv[i] = (char *)c->argv[i];
	argv[i] = NULL;
	return ctl_run(c->fn, argv);
}

static void case_text(const struct arg_case *c, char *out, size_t size)
{
	size_t len = 0;
	int i;

	out[0] = 0;
	for (i = 0; c->argv[i] && len < size; i++)
		len += snprintf(out + len, size - len, "%s ", c->argv[i]);
}

TEST(bad_arguments)
{
	char what[256];
	struct ctl_run r;
	size_t i;

	REQUIRE_TESTDATA();
	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		r = run_case(&usage_cases[i]);
		case_text(&usage_cases[i], what, sizeof(what));
		EXPECT_EQ(usage_cases[i].status, r.status) TH_LOG("%s", what);
		EXPECT_EQ(1, ctl_lines(r.err)) TH_LOG("%s: %s", what, r.err);
		EXPECT_EQ(0, strncmp(r.err, "etwctl ", 7)) TH_LOG("%s", what);
		EXPECT_STREQ("", r.out) TH_LOG("%s", what);
		ctl_run_free(&r);
	}
}

/*
 * xperf's kernel flag and group names, "+"-joined, any case: what etw
 * records; the first name refused, unknown (EINVAL) or not recorded
 * (EOPNOTSUPP, a group's member named with its group).
 */
TEST(kernel_flags_table)
{
	static const struct {
		const char *in;
		int ret;
		ULONG flags;
		const char *bad;
		const char *group;
	} cases[] = {
		{ "PROC_THREAD", 0, 3, NULL, NULL },
		{ "PROC_THREAD+LOADER", 0, 7, NULL, NULL },
		{ "process+image_load", 0, 5, NULL, NULL },
		{ "THREAD", 0, 2, NULL, NULL },
		{ "LOADER+LOADER", 0, 4, NULL, NULL },
		{ "PROC_THREAD+DISK_IO", -EOPNOTSUPP, 0, "DISK_IO", NULL },
		{ "PROFILE", 0, 0x01000000, NULL, NULL },
		{ "cswitch", 0, 0x10, NULL, NULL },
		{ "LOADER+DISPATCHER", 0, 0x804, NULL, NULL },
		{ "PROC_THREAD+CSWITCH+DISPATCHER", 0, 0x813, NULL, NULL },
		{ "CSWITCH+DPC", -EOPNOTSUPP, 0, "DPC", NULL },
		{ "DISK_IO_INIT", -EOPNOTSUPP, 0, "DISK_IO_INIT", NULL },
		{ "HARD_FAULTS", -EOPNOTSUPP, 0, "HARD_FAULTS", NULL },
		{ "SYSCALL", 0, 0x80, NULL, NULL },
		{ "PROC_THREAD+SYSCALL+CSWITCH", 0, 0x93, NULL, NULL },
		{ "ALL_FAULTS", 0, 0x1000, NULL, NULL },
		{ "LOADER+all_faults", 0, 0x1004, NULL, NULL },
		{ "NETWORKTRACE", -EOPNOTSUPP, 0, "NETWORKTRACE", NULL },
		{ "FILE_IO", -EOPNOTSUPP, 0, "FILE_IO", NULL },
		{ "FILE_IO_INIT", -EOPNOTSUPP, 0, "FILE_IO_INIT", NULL },
		{ "MEMINFO", -EOPNOTSUPP, 0, "MEMINFO", NULL },
		/* Groups: their first member etw does not record. */
		{ "Base", -EOPNOTSUPP, 0, "DISK_IO", "Base" },
		{ "LOADER+diag", -EOPNOTSUPP, 0, "DISK_IO", "Diag" },
		{ "Latency", -EOPNOTSUPP, 0, "DISK_IO", "Latency" },
		{ "SysProf", 0, 0x01000007, NULL, NULL },
		{ "Network", -EOPNOTSUPP, 0, "NETWORKTRACE", "Network" },
		{ "PROC_THREAD+", -EINVAL, 0, "", NULL },
		{ "+LOADER", -EINVAL, 0, "", NULL },
		{ "", -EINVAL, 0, "", NULL },
		{ "PROC", -EINVAL, 0, "PROC", NULL },
		{ "LOADER+Basic", -EINVAL, 0, "Basic", NULL },
	};
	struct etwctl_kflag_bad bad;
	ULONG flags;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_EQ(cases[i].ret, etwctl_kernel_flags(cases[i].in, &flags,
							     &bad))
			TH_LOG("%s", cases[i].in);
		if (cases[i].ret) {
			EXPECT_EQ(strlen(cases[i].bad), bad.len)
				TH_LOG("%s", cases[i].in);
			EXPECT_EQ(0, strncmp(cases[i].bad, bad.name, bad.len))
				TH_LOG("%s", cases[i].in);
			EXPECT_STREQ(cases[i].group ?: "(none)",
				     bad.group ?: "(none)")
				TH_LOG("%s", cases[i].in);
		} else {
			EXPECT_EQ(cases[i].flags, flags)
				TH_LOG("%s", cases[i].in);
		}
	}
}

/*
 * The one-line errors: a flag etw does not record is named, with its
 * group; start and update alike; update --on is an update by itself.
 */
TEST(kernel_flags_errors)
{
	static const struct {
		const char *argv[8];
		const char *msg;
	} cases[] = {
		{ { "start", "k", "--realtime", "-on", "PROC_THREAD+DPC" },
		  "etwctl start: kernel flag 'DPC' is not recorded by etw "
		  "yet (only PROC_THREAD, LOADER, CSWITCH, DISPATCHER and "
		  "PROFILE are)" },
		{ { "start", "k", "--realtime", "--on", "Latency" },
		  "etwctl start: kernel flag 'DISK_IO' (of group 'Latency') is "
		  "not recorded by etw yet (only PROC_THREAD, LOADER, "
		  "CSWITCH, DISPATCHER and PROFILE are)" },
		{ { "start", "k", "--realtime", "--on", "LOADER+BOGUS" },
		  "etwctl start: unknown kernel flag 'BOGUS'" },
		{ { "update", "k", "-on", "PROFILE+DPC" },
		  "etwctl update: kernel flag 'DPC' is not recorded by etw "
		  "yet (only PROC_THREAD, LOADER, CSWITCH, DISPATCHER and "
		  "PROFILE are)" },
		{ { "update", "k", "--on", "Base" },
		  "etwctl update: kernel flag 'DISK_IO' (of group 'Base') is "
		  "not recorded by etw yet (only PROC_THREAD, LOADER, "
		  "CSWITCH, DISPATCHER and PROFILE are)" },
		{ { "update", "k", "--on", "NOPE" },
		  "etwctl update: unknown kernel flag 'NOPE'" },
	};
	char *argv[8];
	struct ctl_run r;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (j = 0; j < 8; j++)
			argv[j] = (char *)cases[i].argv[j];
		r = ctl_run(cases[i].argv[0][0] == 's' ? etwctl_cmd_start :
			    etwctl_cmd_update, argv);
		EXPECT_EQ(ETWCTL_EXIT_USAGE, r.status) TH_LOG("case %zu", i);
		EXPECT_STREQ("", r.out) TH_LOG("case %zu", i);
		EXPECT_EQ(1, ctl_lines(r.err)) TH_LOG("case %zu: %s", i, r.err);
		EXPECT_EQ(0, strncmp(r.err, cases[i].msg, strlen(cases[i].msg)))
			TH_LOG("case %zu: %s", i, r.err);
		ctl_run_free(&r);
	}
}

/*
 * start -stackwalk: xperf's event names, of which etw records the stacks
 * of Profile, CSwitch, ReadyThread, SyscallEnter and SyscallExit; it needs
 * -on.  Refused before anything is started.
 */
TEST(stackwalk_errors)
{
	static const struct {
		const char *argv[8];
		const char *msg;
	} cases[] = {
		{ { "start", "k", "--realtime", "--stackwalk", "Profile" },
		  "etwctl start: --stackwalk needs -on" },
		{ { "start", "k", "--realtime", "-on", "PROFILE", "-stackwalk",
		    "Profile+CSwitch+DiskRead" },
		  "etwctl start: stack walk event 'DiskRead' is not recorded by "
		  "etw (only Profile, CSwitch, ReadyThread, SyscallEnter and "
		  "SyscallExit are)" },
		{ { "start", "k", "--realtime", "-on", "PROFILE", "-stackwalk",
		    "" },
		  "etwctl start: stack walk event '' is not recorded by etw "
		  "(only Profile, CSwitch, ReadyThread, SyscallEnter and "
		  "SyscallExit are)" },
	};
	char *argv[8];
	struct ctl_run r;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (j = 0; j < 8; j++)
			argv[j] = (char *)cases[i].argv[j];
		r = ctl_run(etwctl_cmd_start, argv);
		EXPECT_EQ(ETWCTL_EXIT_USAGE, r.status) TH_LOG("case %zu", i);
		EXPECT_STREQ("", r.out) TH_LOG("case %zu", i);
		EXPECT_EQ(0, strncmp(r.err, cases[i].msg, strlen(cases[i].msg)))
			TH_LOG("case %zu: %s", i, r.err);
		ctl_run_free(&r);
	}
}

static int (*const all_cmds[])(int, char **) = {
	etwctl_cmd_start, etwctl_cmd_stop, etwctl_cmd_flush,
	etwctl_cmd_update, etwctl_cmd_query, etwctl_cmd_list,
	etwctl_cmd_enable, etwctl_cmd_disable, etwctl_cmd_capture_state,
	etwctl_cmd_disallow, etwctl_cmd_providers, etwctl_cmd_view,
	etwctl_cmd_dump, etwctl_cmd_merge, etwctl_cmd_stats,
};

TEST(help)
{
	struct ctl_run r;
	size_t i;

	for (i = 0; i < sizeof(all_cmds) / sizeof(all_cmds[0]); i++) {
		r = ctl_run(all_cmds[i], CTL_ARGV("cmd", "--help"));
		EXPECT_EQ(0, r.status) TH_LOG("command %zu", i);
		EXPECT_EQ(0, strncmp(r.out, "usage: etwctl ", 14))
			TH_LOG("command %zu", i);
		EXPECT_STREQ("", r.err) TH_LOG("command %zu", i);
		ctl_run_free(&r);
	}
}

/* Without etw.ko the device commands fail cleanly (status 1). */
TEST(no_device)
{
	static const struct arg_case cases[] = {
		{ etwctl_cmd_start, 1, A("start", "s", "--realtime") },
		{ etwctl_cmd_start, 1, A("start", "NT Kernel Logger",
					 "--realtime", "-on",
					 "proc_thread+LOADER") },
		{ etwctl_cmd_stop, 1, A("stop", "s") },
		{ etwctl_cmd_flush, 1, A("flush", "s") },
		{ etwctl_cmd_query, 1, A("query", "s") },
		{ etwctl_cmd_update, 1, A("update", "s", "--flush-timer",
					  "2") },
		{ etwctl_cmd_list, 1, A("list") },
		{ etwctl_cmd_enable, 1, A("enable", "s", G) },
		{ etwctl_cmd_enable, 1, A("enable", "s", G, "--extended",
					  "sid,ts-id,stack,process-start-key,"
					  "event-key,container-id") },
		{ etwctl_cmd_disable, 1, A("disable", "s", G) },
		{ etwctl_cmd_capture_state, 1, A("capture-state", "s", G) },
		{ etwctl_cmd_disallow, 1, A("disallow", "s", G, G) },
		{ etwctl_cmd_providers, 1, A("providers") },
		{ etwctl_cmd_view, 1, A("view", "s") },
		{ etwctl_cmd_dump, 1, A("dump", "--session", "s") },
	};
	char what[256];
	struct ctl_run r;
	size_t i;

	if (!access("/dev/etw", F_OK))
		SKIP(return, "/dev/etw exists: the VM selftest covers these");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = run_case(&cases[i]);
		case_text(&cases[i], what, sizeof(what));
		EXPECT_EQ(1, r.status) TH_LOG("%s", what);
		EXPECT_EQ(1, ctl_lines(r.err)) TH_LOG("%s: %s", what, r.err);
		EXPECT_NE(NULL, strstr(r.err, "/dev/etw")) TH_LOG("%s", what);
		ctl_run_free(&r);
	}
}

TEST_HARNESS_MAIN
