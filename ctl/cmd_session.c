// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_session.c: start, stop, flush, update, query and list sessions
 * through libetw's controller API (StartTraceA, ControlTraceA,
 * QueryAllTracesA), as tracelog and xperf do on Windows.
 *
 * A session with a log file is written by libetw's file logger daemon,
 * which StartTrace spawns: it outlives etwctl, and StopTrace returns only
 * once it has completed the file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etwctl.h"

/* Room after the fixed part for the session name and the file name. */
#define ETWCTL_PROPS_NAMES	(ETW_MAX_NAME_LEN + 1 + 4096 + 8)
#define ETWCTL_PROPS_SIZE	(sizeof(EVENT_TRACE_PROPERTIES) + \
				 ETWCTL_PROPS_NAMES)

static const char etwctl_start_usage[] =
"usage: etwctl start NAME [options]\n"
"Start a session.  With -f its buffers go to an ETL file, written by a\n"
"logger that runs in the background until the session stops.\n"
"  -f, --file FILE        log to FILE (NEWFILE: a pattern with %d)\n"
"      --mode MODE        sequential (default), circular, newfile, append\n"
"      --max-file MB      file size limit (needed by circular, newfile)\n"
"      --buffer-size KB   KiB per buffer (4-16384)\n"
"      --min-buffers N    buffers allocated at start\n"
"      --max-buffers N    most buffers\n"
"      --flush-timer S    seal partial buffers every S seconds\n"
"      --realtime         deliver buffers to real-time consumers\n"
"      --buffering        keep events in an in-memory ring only\n"
"      --independent      independent session mode\n"
"      --private          private (in-process) session\n"
"  -on, --on FLAGS        a kernel logger recording FLAGS (xperf's flag\n"
"                         and group names, joined with +): PROC_THREAD\n"
"                         (PROCESS+THREAD), LOADER (IMAGE_LOAD), PROCESS,\n"
"                         THREAD, IMAGE_LOAD, CSWITCH, DISPATCHER, PROFILE\n"
"                         (CPU samples), SYSCALL, ALL_FAULTS (page\n"
"                         faults); the group SysProf;\n"
"                         xperf's other names are refused, etw does not\n"
"                         record them yet;\n"
"                         a session not named \"NT Kernel Logger\" gets\n"
"                         the system logger mode\n"
"  -stackwalk, --stackwalk EVENTS\n"
"                         a kernel logger's events to record the stacks of\n"
"                         (xperf's names, joined with +): Profile (its CPU\n"
"                         samples), CSwitch, ReadyThread, SyscallEnter,\n"
"                         SyscallExit; needs -on\n"
"A session needs -f, --realtime or --buffering.\n";

static const char etwctl_update_usage[] =
"usage: etwctl update NAME [options]\n"
"Change a running session.\n"
"      --flush-timer S    seal partial buffers every S seconds\n"
"      --max-buffers N    raise the buffer count to N (it cannot shrink)\n"
"      --realtime on|off  turn real-time delivery on or off\n"
"  -on, --on FLAGS        a kernel logger's new flags (as for start; the\n"
"                         flags left out are turned off)\n";

static const char etwctl_name_usage_fmt[] =
"usage: etwctl %s NAME\n%s\n";

static const struct {
	ULONG bit;
	const char *name;
} etwctl_mode_names[] = {
	{ EVENT_TRACE_FILE_MODE_SEQUENTIAL, "sequential" },
	{ EVENT_TRACE_FILE_MODE_CIRCULAR, "circular" },
	{ EVENT_TRACE_FILE_MODE_APPEND, "append" },
	{ EVENT_TRACE_FILE_MODE_NEWFILE, "newfile" },
	{ EVENT_TRACE_REAL_TIME_MODE, "realtime" },
	{ EVENT_TRACE_BUFFERING_MODE, "buffering" },
	{ EVENT_TRACE_PRIVATE_LOGGER_MODE, "private" },
	{ EVENT_TRACE_USE_KBYTES_FOR_SIZE, "kbytes" },
	{ EVENT_TRACE_INDEPENDENT_SESSION_MODE, "independent" },
	{ EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING, "no-per-processor" },
	{ EVENT_TRACE_SYSTEM_LOGGER_MODE, "system-logger" },
};

struct etwctl_kflag_name {
	ULONG flags;
	const char *name;
};

/*
 * The kernel logger flags etw records (Documentation/abi.rst), by xperf's
 * names ("xperf -providers KF") and etw's own spellings PROCESS, THREAD
 * and IMAGE_LOAD.  A group of bits comes before its members, so that query
 * names the group when all of it is on.  The bash completion offers these.
 */
static const struct etwctl_kflag_name etwctl_kernel_flag_names[] = {
	{ EVENT_TRACE_FLAG_PROCESS | EVENT_TRACE_FLAG_THREAD, "PROC_THREAD" },
	{ EVENT_TRACE_FLAG_PROCESS, "PROCESS" },
	{ EVENT_TRACE_FLAG_THREAD, "THREAD" },
	{ EVENT_TRACE_FLAG_IMAGE_LOAD, "LOADER" },
	{ EVENT_TRACE_FLAG_IMAGE_LOAD, "IMAGE_LOAD" },
	{ EVENT_TRACE_FLAG_CSWITCH, "CSWITCH" },
	{ EVENT_TRACE_FLAG_DISPATCHER, "DISPATCHER" },
	{ EVENT_TRACE_FLAG_PROFILE, "PROFILE" },
	{ EVENT_TRACE_FLAG_SYSTEMCALL, "SYSCALL" },
	{ EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS, "ALL_FAULTS" },
};

/*
 * xperf's other kernel flags, which etw does not record yet: refused by
 * name.  Those without a bit are Windows' extended flags (a group mask,
 * which EnableFlags cannot carry); the groups below name them.
 */
static const struct etwctl_kflag_name etwctl_kernel_flags_later[] = {
	{ EVENT_TRACE_FLAG_PROCESS_COUNTERS, "PERF_COUNTER" },
	{ EVENT_TRACE_FLAG_DPC, "DPC" },
	{ EVENT_TRACE_FLAG_INTERRUPT, "INTERRUPT" },
	{ EVENT_TRACE_FLAG_DISK_IO, "DISK_IO" },
	{ EVENT_TRACE_FLAG_DISK_FILE_IO, "FILENAME" },
	{ EVENT_TRACE_FLAG_DISK_IO_INIT, "DISK_IO_INIT" },
	{ EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS, "HARD_FAULTS" },
	{ EVENT_TRACE_FLAG_VIRTUAL_ALLOC, "VIRT_ALLOC" },
	{ EVENT_TRACE_FLAG_VAMAP, "VAMAP" },
	{ EVENT_TRACE_FLAG_NETWORK_TCPIP, "NETWORKTRACE" },
	{ EVENT_TRACE_FLAG_REGISTRY, "REGISTRY" },
	{ EVENT_TRACE_FLAG_DBGPRINT, "DBGPRINT" },
	{ EVENT_TRACE_FLAG_JOB, "JOB" },
	{ EVENT_TRACE_FLAG_ALPC, "ALPC" },
	{ EVENT_TRACE_FLAG_SPLIT_IO, "SPLIT_IO" },
	{ EVENT_TRACE_FLAG_DRIVER, "DRIVERS" },
	{ EVENT_TRACE_FLAG_FILE_IO, "FILE_IO" },
	{ EVENT_TRACE_FLAG_FILE_IO_INIT, "FILE_IO_INIT" },
	{ 0, "COMPACT_CSWITCH" },
	{ 0, "FOOTPRINT" },
	{ 0, "MEMINFO" },
	{ 0, "MEMINFO_WS" },
	{ 0, "MEMORY" },
	{ 0, "POWER" },
	{ 0, "REFSET" },
	{ 0, "SESSION" },
};

#define ETWCTL_NKFLAGS	(sizeof(etwctl_kernel_flag_names) / \
			 sizeof(etwctl_kernel_flag_names[0]))
#define ETWCTL_NKFLAGS_LATER	(sizeof(etwctl_kernel_flags_later) / \
				 sizeof(etwctl_kernel_flags_later[0]))

/* xperf's kernel groups ("xperf -providers KG"). */
static const struct {
	const char *name;
	const char *flags;
} etwctl_kernel_groups[] = {
	{ "Base", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+PROFILE+MEMINFO+"
		  "MEMINFO_WS" },
	{ "Diag", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+"
		  "CSWITCH+PERF_COUNTER+COMPACT_CSWITCH" },
	{ "DiagEasy", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+"
		      "CSWITCH+PERF_COUNTER" },
	{ "Latency", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+DPC+INTERRUPT+"
		     "CSWITCH+PROFILE" },
	{ "FileIO", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+FILE_IO+"
		    "FILE_IO_INIT" },
	{ "IOTrace", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+CSWITCH" },
	{ "ResumeTrace", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+PROFILE+"
			 "POWER" },
	{ "SysProf", "PROC_THREAD+LOADER+PROFILE" },
	{ "ResidentSet", "PROC_THREAD+LOADER+DISK_IO+HARD_FAULTS+MEMORY+"
			 "MEMINFO+VAMAP+SESSION+VIRT_ALLOC" },
	{ "ReferenceSet", "PROC_THREAD+LOADER+HARD_FAULTS+MEMORY+FOOTPRINT+"
			  "VIRT_ALLOC+MEMINFO+VAMAP+SESSION+REFSET+"
			  "MEMINFO_WS" },
	{ "Network", "PROC_THREAD+LOADER+NETWORKTRACE" },
};

#define ETWCTL_NKGROUPS	(sizeof(etwctl_kernel_groups) / \
			 sizeof(etwctl_kernel_groups[0]))

/* Is the @n bytes at @s @name, case aside? */
static bool etwctl_name_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && !strncasecmp(s, name, n);
}

/*
 * One flag name of @n bytes at @s, OR'ed into *@flags: 0, -EINVAL when it
 * is no flag's, -EOPNOTSUPP when etw does not record it.
 */
static int etwctl_kernel_flag(const char *s, size_t n, ULONG *flags)
{
	size_t i;

	for (i = 0; i < ETWCTL_NKFLAGS; i++) {
		if (etwctl_name_is(s, n, etwctl_kernel_flag_names[i].name)) {
			*flags |= etwctl_kernel_flag_names[i].flags;
			return 0;
		}
	}
	for (i = 0; i < ETWCTL_NKFLAGS_LATER; i++)
		if (etwctl_name_is(s, n, etwctl_kernel_flags_later[i].name))
			return -EOPNOTSUPP;
	return -EINVAL;
}

/* Flags of a group's members, all known; the first not recorded. */
static int etwctl_kernel_group(const char *members, ULONG *flags,
			       struct etwctl_kflag_bad *bad)
{
	const char *s = members;
	size_t n;
	int ret;

	for (;;) {
		n = strcspn(s, "+");
		ret = etwctl_kernel_flag(s, n, flags);
		if (ret) {
			bad->name = s;
			bad->len = n;
			return ret;
		}
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/**
 * etwctl_kernel_flags - parse xperf's kernel flags and groups,
 *	"NAME+NAME..."
 * @s: the names (case-insensitive)
 * @flags: out: the EVENT_TRACE_FLAG_* bits
 * @bad: out: on failure, the first name at fault: within @s, or a member
 *	of the group @bad->group names
 *
 * Return: 0; -EINVAL for an unknown or empty name; -EOPNOTSUPP for a flag
 * xperf knows and etw does not record (a group with such a member).
 */
int etwctl_kernel_flags(const char *s, ULONG *flags,
			struct etwctl_kflag_bad *bad)
{
	size_t n, i;
	int ret;

	*flags = 0;
	for (;;) {
		n = strcspn(s, "+");
		bad->group = NULL;
		bad->name = s;
		bad->len = n;
		for (i = 0; i < ETWCTL_NKGROUPS; i++)
			if (etwctl_name_is(s, n, etwctl_kernel_groups[i].name))
				break;
		if (i < ETWCTL_NKGROUPS) {
			bad->group = etwctl_kernel_groups[i].name;
			ret = etwctl_kernel_group(etwctl_kernel_groups[i].flags,
						  flags, bad);
		} else {
			ret = etwctl_kernel_flag(s, n, flags);
		}
		if (ret)
			return ret;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/* xperf spells --on and --stackwalk with a single dash. */
static void etwctl_xperf_on(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-on"))
			argv[i] = "--on";
		else if (!strcmp(argv[i], "-stackwalk"))
			argv[i] = "--stackwalk";
	}
}

/* The usage error for what etwctl_kernel_flags() refused. */
static int etwctl_kernel_flags_usage(const char *cmd, int err,
				     const struct etwctl_kflag_bad *bad)
{
	if (err == -EINVAL)
		return etwctl_usage(cmd, "unknown kernel flag '%.*s'",
				    (int)bad->len, bad->name);
	if (bad->group)
		return etwctl_usage(cmd, "kernel flag '%.*s' (of group '%s') "
				    "is not recorded by etw yet (only "
				    "PROC_THREAD, LOADER, CSWITCH, "
				    "DISPATCHER and PROFILE are)",
				    (int)bad->len, bad->name, bad->group);
	return etwctl_usage(cmd, "kernel flag '%.*s' is not recorded by etw "
			    "yet (only PROC_THREAD, LOADER, CSWITCH, "
			    "DISPATCHER and PROFILE are)",
			    (int)bad->len, bad->name);
}

static void etwctl_print_kernel_flags(ULONG flags)
{
	ULONG left = flags;
	bool any = false;
	size_t i;

	for (i = 0; i < ETWCTL_NKFLAGS; i++) {
		if ((left & etwctl_kernel_flag_names[i].flags) !=
		    etwctl_kernel_flag_names[i].flags)
			continue;
		printf("%s%s", any ? "+" : "", etwctl_kernel_flag_names[i].name);
		left &= ~etwctl_kernel_flag_names[i].flags;
		any = true;
	}
	printf(" (0x%08x)\n", flags);
}

static EVENT_TRACE_PROPERTIES *etwctl_props_alloc(void)
{
	EVENT_TRACE_PROPERTIES *p = calloc(1, ETWCTL_PROPS_SIZE);

	if (!p)
		return NULL;
	p->Wnode.BufferSize = ETWCTL_PROPS_SIZE;
	p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	return p;
}

static const char *etwctl_props_name(const EVENT_TRACE_PROPERTIES *p,
				     ULONG off)
{
	return off ? (const char *)p + off : "";
}

/* A name as an argument: the kernel's limit, and no empty names. */
static int etwctl_check_name(const char *cmd, const char *name)
{
	if (!*name)
		return etwctl_usage(cmd, "empty session name");
	if (strlen(name) > ETW_MAX_NAME_LEN)
		return etwctl_usage(cmd, "session name longer than %d bytes",
				    ETW_MAX_NAME_LEN);
	return 0;
}

static int etwctl_win32_fail(const char *cmd, const char *name, ULONG err)
{
	return etwctl_fail(cmd, "session '%s': %s", name,
			   etwctl_win32_str(err));
}

static void etwctl_print_mode(ULONG mode)
{
	bool any = false;
	size_t i;

	for (i = 0; i < sizeof(etwctl_mode_names) /
			sizeof(etwctl_mode_names[0]); i++) {
		if (!(mode & etwctl_mode_names[i].bit))
			continue;
		printf("%s%s", any ? "," : "", etwctl_mode_names[i].name);
		any = true;
	}
	printf("%s (0x%08x)\n", any ? "" : "none", mode);
}

/* The session's properties and statistics, as "tracelog -q" prints them. */
static void etwctl_print_props(const EVENT_TRACE_PROPERTIES *p)
{
	printf("Session:            %s\n",
	       etwctl_props_name(p, p->LoggerNameOffset));
	printf("Logger id:          %llu\n",
	       (unsigned long long)p->Wnode.HistoricalContext);
	printf("Mode:               ");
	etwctl_print_mode(p->LogFileMode);
	if (p->EnableFlags) {
		printf("Kernel flags:       ");
		etwctl_print_kernel_flags(p->EnableFlags);
	}
	printf("Log file:           %s\n",
	       *etwctl_props_name(p, p->LogFileNameOffset) ?
	       etwctl_props_name(p, p->LogFileNameOffset) : "-");
	printf("Logger pid:         %llu\n",
	       (unsigned long long)(uintptr_t)p->LoggerThreadId);
	printf("Buffer size:        %u KB\n", p->BufferSize);
	printf("Buffers:            %u (min %u, max %u, free %u)\n",
	       p->NumberOfBuffers, p->MinimumBuffers, p->MaximumBuffers,
	       p->FreeBuffers);
	printf("Flush timer:        %u s\n", p->FlushTimer);
	printf("Events lost:        %u\n", p->EventsLost);
	printf("Buffers written:    %u\n", p->BuffersWritten);
	printf("Log buffers lost:   %u\n", p->LogBuffersLost);
	printf("RT buffers lost:    %u\n", p->RealTimeBuffersLost);
}

/**
 * etwctl_session_handle - the CONTROLTRACE_ID of a running session
 * @name: the session name
 * @id: out: its handle
 *
 * Return: a Win32 error.
 */
int etwctl_session_handle(const char *name, CONTROLTRACE_ID *id)
{
	EVENT_TRACE_PROPERTIES *p = etwctl_props_alloc();
	ULONG err;

	if (!p)
		return ERROR_NOT_ENOUGH_MEMORY;
	err = QueryTraceA(0, name, p);
	if (!err || err == ERROR_MORE_DATA) {
		*id = p->Wnode.HistoricalContext;
		err = ERROR_SUCCESS;
	}
	free(p);
	return (int)err;
}

/* --- start ---------------------------------------------------------------- */

/* PerfInfoGuid: the event class of SampledProfile, SysCallEnter/Exit. */
static const GUID etwctl_perfinfo_guid = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };
/* ThreadGuid: the event class of CSwitch and ReadyThread. */
static const GUID etwctl_thread_guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };

/*
 * xperf's -stackwalk names of the events etw records stacks of: a name
 * for each distinct event, so that a list cannot outgrow them.
 */
static const struct {
	const char *name;
	const GUID *guid;
	UCHAR type;
} etwctl_stackwalk_names[] = {
	{ "Profile", &etwctl_perfinfo_guid, 46 },
	{ "CSwitch", &etwctl_thread_guid, 36 },
	{ "ReadyThread", &etwctl_thread_guid, 50 },
	{ "SyscallEnter", &etwctl_perfinfo_guid, 51 },
	{ "SyscallExit", &etwctl_perfinfo_guid, 52 },
};

#define ETWCTL_MAX_STACKWALK	(sizeof(etwctl_stackwalk_names) / \
				 sizeof(etwctl_stackwalk_names[0]))

enum {
	OPT_MODE = 0x100,
	OPT_MAX_FILE,
	OPT_BUFFER_SIZE,
	OPT_MIN_BUFFERS,
	OPT_MAX_BUFFERS,
	OPT_FLUSH_TIMER,
	OPT_REALTIME,
	OPT_BUFFERING,
	OPT_INDEPENDENT,
	OPT_PRIVATE,
	OPT_ON,
	OPT_STACKWALK,
};

static const struct option etwctl_start_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "file", required_argument, NULL, 'f' },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "max-file", required_argument, NULL, OPT_MAX_FILE },
	{ "buffer-size", required_argument, NULL, OPT_BUFFER_SIZE },
	{ "min-buffers", required_argument, NULL, OPT_MIN_BUFFERS },
	{ "max-buffers", required_argument, NULL, OPT_MAX_BUFFERS },
	{ "flush-timer", required_argument, NULL, OPT_FLUSH_TIMER },
	{ "realtime", no_argument, NULL, OPT_REALTIME },
	{ "buffering", no_argument, NULL, OPT_BUFFERING },
	{ "independent", no_argument, NULL, OPT_INDEPENDENT },
	{ "private", no_argument, NULL, OPT_PRIVATE },
	{ "on", required_argument, NULL, OPT_ON },
	{ "stackwalk", required_argument, NULL, OPT_STACKWALK },
	{ NULL, 0, NULL, 0 }
};

/*
 * @stacks: the events of --stackwalk, @nstacks of them
 */
struct etwctl_start_opts {
	const char *file;
	const char *mode;
	const char *on;
	const char *stackwalk;
	CLASSIC_EVENT_ID stacks[ETWCTL_MAX_STACKWALK];
	size_t nstacks;
	EVENT_TRACE_PROPERTIES *p;
};

static int etwctl_file_mode(const char *s, ULONG *mode)
{
	static const struct {
		const char *name;
		ULONG mode;
	} modes[] = {
		{ "sequential", EVENT_TRACE_FILE_MODE_SEQUENTIAL },
		{ "circular", EVENT_TRACE_FILE_MODE_CIRCULAR },
		{ "newfile", EVENT_TRACE_FILE_MODE_NEWFILE },
		{ "append", EVENT_TRACE_FILE_MODE_APPEND },
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcasecmp(s, modes[i].name)) {
			*mode = modes[i].mode;
			return 0;
		}
	}
	return -EINVAL;
}

static int etwctl_u32_opt(const char *s, ULONG *out)
{
	uint64_t v;

	if (etwctl_parse_u64(s, UINT32_MAX, &v))
		return -EINVAL;
	*out = (ULONG)v;
	return 0;
}

static int etwctl_start_option(struct etwctl_start_opts *o, int c,
			       const char *arg)
{
	EVENT_TRACE_PROPERTIES *p = o->p;

	switch (c) {
	case 'f':
		o->file = arg;
		return *arg ? 0 : -EINVAL;
	case OPT_MODE:
		o->mode = arg;
		return 0;
	case OPT_MAX_FILE:
		return etwctl_u32_opt(arg, &p->MaximumFileSize);
	case OPT_BUFFER_SIZE:
		return etwctl_u32_opt(arg, &p->BufferSize);
	case OPT_MIN_BUFFERS:
		return etwctl_u32_opt(arg, &p->MinimumBuffers);
	case OPT_MAX_BUFFERS:
		return etwctl_u32_opt(arg, &p->MaximumBuffers);
	case OPT_FLUSH_TIMER:
		return etwctl_u32_opt(arg, &p->FlushTimer);
	case OPT_REALTIME:
		p->LogFileMode |= EVENT_TRACE_REAL_TIME_MODE;
		return 0;
	case OPT_BUFFERING:
		p->LogFileMode |= EVENT_TRACE_BUFFERING_MODE;
		return 0;
	case OPT_INDEPENDENT:
		p->LogFileMode |= EVENT_TRACE_INDEPENDENT_SESSION_MODE;
		return 0;
	case OPT_PRIVATE:
		p->LogFileMode |= EVENT_TRACE_PRIVATE_LOGGER_MODE;
		return 0;
	case OPT_ON:
		o->on = arg;
		return 0;
	case OPT_STACKWALK:
		o->stackwalk = arg;
		return 0;
	}
	return -EINVAL;
}

/* --stackwalk NAME+NAME...: the events, each once; 0 or the usage status. */
static int etwctl_start_stackwalk(struct etwctl_start_opts *o)
{
	const char *s = o->stackwalk;
	size_t n, i, k;

	if (!o->on)
		return etwctl_usage("start", "--stackwalk needs -on");
	for (;;) {
		n = strcspn(s, "+");
		for (i = 0; i < ETWCTL_MAX_STACKWALK; i++)
			if (etwctl_name_is(s, n, etwctl_stackwalk_names[i].name))
				break;
		if (i == ETWCTL_MAX_STACKWALK)
			return etwctl_usage("start", "stack walk event '%.*s' "
					    "is not recorded by etw (only "
					    "Profile, CSwitch, ReadyThread, "
					    "SyscallEnter and SyscallExit "
					    "are)", (int)n, s);
		for (k = 0; k < o->nstacks; k++)
			if (o->stacks[k].Type == etwctl_stackwalk_names[i].type &&
			    !memcmp(&o->stacks[k].EventGuid,
				    etwctl_stackwalk_names[i].guid,
				    sizeof(GUID)))
				break;
		if (k == o->nstacks) {
			memset(&o->stacks[k], 0, sizeof(o->stacks[k]));
			o->stacks[k].EventGuid = *etwctl_stackwalk_names[i].guid;
			o->stacks[k].Type = etwctl_stackwalk_names[i].type;
			o->nstacks++;
		}
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/*
 * -on: the flags, and the system logger mode for a session that is not
 * the NT Kernel Logger by name.
 */
static int etwctl_start_on(struct etwctl_start_opts *o, const char *name)
{
	struct etwctl_kflag_bad bad;
	int err;

	err = etwctl_kernel_flags(o->on, &o->p->EnableFlags, &bad);
	if (err)
		return etwctl_kernel_flags_usage("start", err, &bad);
	if (strcasecmp(name, KERNEL_LOGGER_NAMEA))
		o->p->LogFileMode |= EVENT_TRACE_SYSTEM_LOGGER_MODE;
	return 0;
}

/* Checks that need the whole command line; 0 or the usage status. */
static int etwctl_start_check(struct etwctl_start_opts *o, const char *name)
{
	EVENT_TRACE_PROPERTIES *p = o->p;
	ULONG mode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;

	int ret = o->on ? etwctl_start_on(o, name) : 0;

	if (!ret && o->stackwalk)
		ret = etwctl_start_stackwalk(o);
	if (ret)
		return ret;

	if (o->mode && !o->file)
		return etwctl_usage("start", "--mode needs -f FILE");
	if (o->mode && etwctl_file_mode(o->mode, &mode))
		return etwctl_usage("start", "bad --mode '%s'", o->mode);
	if (!o->file && !(p->LogFileMode & (EVENT_TRACE_REAL_TIME_MODE |
					    EVENT_TRACE_BUFFERING_MODE)))
		return etwctl_usage("start",
				    "need -f FILE, --realtime or --buffering");
	if (!o->file)
		return 0;
	if (strlen(o->file) >= 4096)
		return etwctl_usage("start", "file name too long");
	if ((mode & (EVENT_TRACE_FILE_MODE_CIRCULAR |
		     EVENT_TRACE_FILE_MODE_NEWFILE)) && !p->MaximumFileSize)
		return etwctl_usage("start", "--mode %s needs --max-file",
				    o->mode);
	if ((mode & EVENT_TRACE_FILE_MODE_NEWFILE) && !strstr(o->file, "%d"))
		return etwctl_usage("start",
				    "--mode newfile needs %%d in the file name");
	p->LogFileMode |= mode;
	return 0;
}

static int etwctl_start(const char *name, struct etwctl_start_opts *o)
{
	EVENT_TRACE_PROPERTIES *p = o->p;
	CONTROLTRACE_ID id = 0;
	size_t name_len = strlen(name) + 1;
	ULONG err;

	p->LoggerNameOffset = sizeof(*p);
	if (o->file) {
		p->LogFileNameOffset = sizeof(*p) + name_len;
		strcpy((char *)p + p->LogFileNameOffset, o->file);
	}
	err = StartTraceA(&id, name, p);
	if (err)
		return etwctl_win32_fail("start", name, err);
	/* The stack list is the running logger's: all or nothing. */
	if (o->nstacks) {
		err = TraceSetInformation(id, TraceStackTracingInfo, o->stacks,
					  o->nstacks * sizeof(o->stacks[0]));
		if (err) {
			ControlTraceA(id, NULL, p, EVENT_TRACE_CONTROL_STOP);
			return etwctl_win32_fail("start", name, err);
		}
	}
	printf("started session '%s' (logger id %llu)%s%s\n", name,
	       (unsigned long long)id, o->file ? ", logging to " : "",
	       o->file ? o->file : "");
	return 0;
}

/**
 * etwctl_cmd_start - "etwctl start"
 * @argc: argument count, argv[0] is "start"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_start(int argc, char **argv)
{
	struct etwctl_start_opts o = { 0 };
	int c, ret;

	o.p = etwctl_props_alloc();
	if (!o.p)
		return etwctl_fail("start", "out of memory");
	etwctl_xperf_on(argc, argv);
	etwctl_getopt_reset();
	ret = 0;
	while (!ret && (c = getopt_long(argc, argv, ":hf:",
					etwctl_start_options, NULL)) != -1) {
		if (c == 'h')
			ret = -1;
		else if (c == '?' || c == ':')
			ret = etwctl_bad_option("start", c, argv);
		else if (etwctl_start_option(&o, c, optarg))
			ret = etwctl_usage("start", "bad value '%s' for '%s'",
					   optarg, argv[optind - 1]);
	}
	if (ret < 0)
		ret = etwctl_help(etwctl_start_usage);
	else if (!ret && argc - optind != 1)
		ret = etwctl_usage("start", "need exactly one session NAME");
	if (!ret && optind < argc)
		ret = etwctl_check_name("start", argv[optind]);
	if (!ret && optind < argc)
		ret = etwctl_start_check(&o, argv[optind]);
	if (!ret && optind < argc)
		ret = etwctl_need_device("start");
	if (!ret && optind < argc)
		ret = etwctl_start(argv[optind], &o);
	free(o.p);
	return ret;
}

/* --- commands that take just NAME ----------------------------------------- */

/* Parse "CMD NAME" with only --help; *name is NULL when done already. */
static int etwctl_name_args(const char *cmd, const char *what, int argc,
			    char **argv, const char **name)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	*name = NULL;
	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c != 'h')
			return etwctl_bad_option(cmd, c, argv);
		printf(etwctl_name_usage_fmt, cmd, what);
		return 0;
	}
	if (argc - optind != 1)
		return etwctl_usage(cmd, "need exactly one session NAME");
	c = etwctl_check_name(cmd, argv[optind]);
	if (!c)
		c = etwctl_need_device(cmd);
	if (!c)
		*name = argv[optind];
	return c;
}

/* ControlTraceA on a named session, then print what it reports. */
static int etwctl_control(const char *cmd, const char *name, ULONG code,
			  EVENT_TRACE_PROPERTIES *p)
{
	ULONG err = ControlTraceA(0, name, p, code);

	if (err)
		return etwctl_win32_fail(cmd, name, err);
	return 0;
}

static int etwctl_simple(int argc, char **argv, ULONG code,
			 const char *what)
{
	EVENT_TRACE_PROPERTIES *p;
	const char *name;
	int ret;

	ret = etwctl_name_args(argv[0], what, argc, argv, &name);
	if (ret || !name)
		return ret;
	p = etwctl_props_alloc();
	if (!p)
		return etwctl_fail(argv[0], "out of memory");
	ret = etwctl_control(argv[0], name, code, p);
	if (!ret && code == EVENT_TRACE_CONTROL_QUERY)
		etwctl_print_props(p);
	else if (!ret && code == EVENT_TRACE_CONTROL_STOP)
		printf("stopped session '%s': %u buffers written, %u events "
		       "lost%s%s\n", name, p->BuffersWritten, p->EventsLost,
		       p->LogFileNameOffset ? ", file " : "",
		       etwctl_props_name(p, p->LogFileNameOffset));
	free(p);
	return ret;
}

/**
 * etwctl_cmd_stop - "etwctl stop NAME"; returns once the file is complete
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_stop(int argc, char **argv)
{
	return etwctl_simple(argc, argv, EVENT_TRACE_CONTROL_STOP,
			     "Stop a session; its log file is complete when "
			     "this returns.");
}

/**
 * etwctl_cmd_flush - "etwctl flush NAME"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_flush(int argc, char **argv)
{
	return etwctl_simple(argc, argv, EVENT_TRACE_CONTROL_FLUSH,
			     "Seal the session's partial buffers and deliver "
			     "them.");
}

/**
 * etwctl_cmd_query - "etwctl query NAME"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_query(int argc, char **argv)
{
	return etwctl_simple(argc, argv, EVENT_TRACE_CONTROL_QUERY,
			     "Print a session's properties and statistics.");
}

/* --- update --------------------------------------------------------------- */

/*
 * @flush_timer: new FlushTimer, with @set_flush
 * @max_buffers: new MaximumBuffers, 0 to leave it
 * @realtime: 1 turns real-time delivery on, 0 off, -1 leaves it
 * @on: a kernel logger's new flags, with @set_flags
 */
struct etwctl_update {
	bool set_flush;
	ULONG flush_timer;
	ULONG max_buffers;
	int realtime;
	bool set_flags;
	ULONG on;
};

static int etwctl_update_option(struct etwctl_update *u, int c,
				const char *arg)
{
	if (c == OPT_ON) {
		struct etwctl_kflag_bad bad;
		int err = etwctl_kernel_flags(arg, &u->on, &bad);

		u->set_flags = true;
		return err ? etwctl_kernel_flags_usage("update", err, &bad) : 0;
	}
	if (c == OPT_FLUSH_TIMER) {
		u->set_flush = true;
		return etwctl_u32_opt(arg, &u->flush_timer);
	}
	if (c == OPT_MAX_BUFFERS) {
		/* 0 is how UPDATE says "unchanged": not a value to ask for. */
		if (etwctl_u32_opt(arg, &u->max_buffers) || !u->max_buffers)
			return -EINVAL;
		return 0;
	}
	if (c == OPT_REALTIME && !strcmp(arg, "on"))
		u->realtime = 1;
	else if (c == OPT_REALTIME && !strcmp(arg, "off"))
		u->realtime = 0;
	else
		return -EINVAL;
	return 0;
}

/* Return: 0, -1 for --help, or the usage status. */
static int etwctl_update_parse(int argc, char **argv, struct etwctl_update *u)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "flush-timer", required_argument, NULL, OPT_FLUSH_TIMER },
		{ "max-buffers", required_argument, NULL, OPT_MAX_BUFFERS },
		{ "realtime", required_argument, NULL, OPT_REALTIME },
		{ "on", required_argument, NULL, OPT_ON },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	etwctl_xperf_on(argc, argv);
	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == 'h')
			return -1;
		if (c == '?' || c == ':')
			return etwctl_bad_option("update", c, argv);
		/* --on reports its own error: the name at fault. */
		ret = etwctl_update_option(u, c, optarg);
		if (ret && c == OPT_ON)
			return ret;
		if (ret)
			return etwctl_usage("update", "bad value '%s' for '%s'",
					    optarg, argv[optind - 1]);
	}
	if (argc - optind != 1)
		return etwctl_usage("update", "need exactly one session NAME");
	if (!u->set_flush && !u->max_buffers && u->realtime < 0 &&
	    !u->set_flags)
		return etwctl_usage("update", "nothing to change");
	return etwctl_check_name("update", argv[optind]);
}

/* UPDATE takes the whole mode: start from the session's current one. */
static int etwctl_update(const char *name, const struct etwctl_update *u)
{
	EVENT_TRACE_PROPERTIES *p = etwctl_props_alloc();
	int ret;

	if (!p)
		return etwctl_fail("update", "out of memory");
	ret = etwctl_control("update", name, EVENT_TRACE_CONTROL_QUERY, p);
	/* UPDATE ignores other sessions' flags: say so rather than succeed. */
	if (!ret && u->set_flags && strcasecmp(name, KERNEL_LOGGER_NAMEA) &&
	    !(p->LogFileMode & EVENT_TRACE_SYSTEM_LOGGER_MODE))
		ret = etwctl_fail("update", "session '%s' is not a kernel "
				  "logger: --on changes a kernel logger's "
				  "flags", name);
	if (!ret) {
		if (u->set_flags)
			p->EnableFlags = u->on;
		if (u->set_flush)
			p->FlushTimer = u->flush_timer;
		if (u->max_buffers)
			p->MaximumBuffers = u->max_buffers;
		if (u->realtime == 1)
			p->LogFileMode |= EVENT_TRACE_REAL_TIME_MODE;
		else if (!u->realtime)
			p->LogFileMode &= ~EVENT_TRACE_REAL_TIME_MODE;
		/* The file is not switched. */
		p->LogFileNameOffset = 0;
		ret = etwctl_control("update", name,
				     EVENT_TRACE_CONTROL_UPDATE, p);
	}
	free(p);
	return ret;
}

/**
 * etwctl_cmd_update - "etwctl update NAME [--flush-timer S] [--max-buffers N]
 *	[--realtime X] [--on FLAGS]"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_update(int argc, char **argv)
{
	struct etwctl_update u = { .realtime = -1 };
	int ret;

	ret = etwctl_update_parse(argc, argv, &u);
	if (ret < 0)
		return etwctl_help(etwctl_update_usage);
	if (!ret)
		ret = etwctl_need_device("update");
	return ret ?: etwctl_update(argv[optind], &u);
}

/* --- list ----------------------------------------------------------------- */

static int etwctl_list(void)
{
	EVENT_TRACE_PROPERTIES *arr[ETW_MAX_GLOBAL_SESSIONS] = { 0 };
	ULONG count = 0, err, i;
	int ret = 0;

	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		arr[i] = etwctl_props_alloc();
		if (!arr[i])
			ret = etwctl_fail("list", "out of memory");
	}
	err = ret ? ERROR_SUCCESS :
		    QueryAllTracesA(arr, ETW_MAX_GLOBAL_SESSIONS, &count);
	if (err && err != ERROR_MORE_DATA)
		ret = etwctl_fail("list", "%s", etwctl_win32_str(err));
	for (i = 0; !ret && i < count; i++) {
		if (i)
			putchar('\n');
		etwctl_print_props(arr[i]);
	}
	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++)
		free(arr[i]);
	return ret;
}

/**
 * etwctl_cmd_list - "etwctl list": every session, as "tracelog -l"
 * @argc: argument count
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c != 'h')
			return etwctl_bad_option("list", c, argv);
		printf("usage: etwctl list\nPrint every running session: "
		       "mode, log file, buffers and loss statistics.\n");
		return 0;
	}
	if (optind != argc)
		return etwctl_usage("list", "unexpected argument '%s'",
				    argv[optind]);
	return etwctl_need_device("list") ?: etwctl_list();
}
