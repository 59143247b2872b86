// SPDX-License-Identifier: GPL-2.0
/*
 * etl_bench: file logging and etwctl's file commands
 * (Documentation/performance.rst):
 *
 *   logging    a session with a log file (StartTrace: the file logger
 *              daemon) while one thread, then two (one per CPU), write
 *              64-byte events back to back with ETW_IOC_WRITE: what
 *              reaches the file per second and what the session lost, at
 *              the default buffer settings and, while events are lost,
 *              with more buffers
 *   etwctl     "etwctl dump" and "etwctl merge" of a file of the given
 *              number of events, timed around fork/exec/wait, against
 *              ProcessTrace of the same file in this process
 *
 * Timed runs of the same operation are repeated and the best one kept
 * (the least disturbed one).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "windows.h"
#include "evntrace.h"
#include "evntcons.h"

#define ROUNDS		3
#define PAYLOAD		64
#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 256)
#define SESSION		"etl-bench"
#define LOG_PATH	"/tmp/etl-bench.etl"
#define MERGED_PATH	"/tmp/etl-bench-merged.etl"
#define ERR_PATH	"/tmp/etl-bench.err"
#define ETWCTL		"/etw/ctl/etwctl"
/* Buffers tried, doubling, while the default settings lose events. */
#define SWEEP_MAX_BUFFERS	256
/* Runs in a row that must lose nothing before a setting counts. */
#define LOSS_FREE_RUNS		3

static const GUID bench_guid = { 0xbe7c0004, 0x1111, 0x2222,
	{ 3, 3, 3, 3, 4, 4, 4, 7 } };

static unsigned long iters = 100000;
static int dev_fd;
static __u32 reg_id;

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[1024];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, unsigned long err)
{
	fprintf(stderr, "etl_bench: %s: %lu (%s)\n", what, err,
		strerror(errno));
	exit(1);
}

/* --- the session and the writer ------------------------------------------ */

static void props_init(struct props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.LoggerNameOffset = NAME_OFF;
}

static void start_session(struct props *b)
{
	CONTROLTRACE_ID h;
	ULONG err;

	err = StartTraceA(&h, SESSION, &b->p);
	if (err)
		die("StartTrace", err);
	err = EnableTraceEx2(h, &bench_guid,
			     EVENT_CONTROL_CODE_ENABLE_PROVIDER,
			     TRACE_LEVEL_VERBOSE, 0, 0, 0, NULL);
	if (err)
		die("EnableTraceEx2", err);
}

/*
 * Start the logged session; @buffer_kb and @max_buffers 0 are the
 * defaults.  @b returns the settings the session got.
 */
static void start_logging(ULONG buffer_kb, ULONG max_buffers, struct props *b)
{
	unlink(LOG_PATH);
	props_init(b);
	b->p.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
	b->p.BufferSize = buffer_kb;
	b->p.MaximumBuffers = max_buffers;
	b->p.LogFileNameOffset = FILE_OFF;
	strcpy((char *)b + FILE_OFF, LOG_PATH);
	start_session(b);
}

/* Stop the session once its file is complete; @b returns its statistics. */
static void stop_session(struct props *b)
{
	ULONG err;

	props_init(b);
	err = StopTraceA(0, SESSION, &b->p);
	if (err)
		die("StopTrace", err);
}

/* Write @n events back to back; returns how many the kernel refused. */
static unsigned long write_events(unsigned long n)
{
	static char payload[PAYLOAD];
	struct etw_data_descriptor d = {
		.ptr = (uintptr_t)payload, .size = sizeof(payload),
	};
	struct etw_write_args w = {
		.size = sizeof(w),
		.descriptor = { .level = 4, .keyword = 1 },
		.data_count = 1,
		.data_ptr = (uintptr_t)&d,
	};
	unsigned long refused = 0;

	w.reg_id = reg_id;
	while (n--) {
		if (!ioctl(dev_fd, ETW_IOC_WRITE, &w))
			continue;
		/* A session with no free buffer loses the event. */
		if (errno != ENOBUFS)
			die("ETW_IOC_WRITE", 0);
		refused++;
	}
	return refused;
}

static void writer_init(void)
{
	struct etw_register_args reg = { .size = sizeof(reg) };

	dev_fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	memcpy(&reg.guid, &bench_guid, sizeof(reg.guid));
	if (dev_fd < 0 || ioctl(dev_fd, ETW_IOC_REGISTER, &reg))
		die("registration", 0);
	reg_id = reg.reg_id;
}

/* --- counting a file's events -------------------------------------------- */

static VOID WINAPI count_record(PEVENT_RECORD r)
{
	unsigned long *n = r->UserContext;

	if (!memcmp(&r->EventHeader.ProviderId, &bench_guid, sizeof(GUID)))
		(*n)++;
}

/* The benchmark's events in @path, read with ProcessTrace. */
static unsigned long count_events(const char *path)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	unsigned long n = 0;
	ULONG err;

	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = count_record;
	lf.Context = &n;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		die(path, GetLastError());
	err = ProcessTrace(&h, 1, NULL, NULL);
	if (err)
		die("ProcessTrace", err);
	CloseTrace(h);
	return n;
}

static double file_mb(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		die(path, 0);
	return st.st_size / 1e6;
}

/* --- sustained logging ---------------------------------------------------- */

/* A writer pinned to one CPU; refused events come back in @refused. */
struct pinned_writer {
	pthread_t thread;
	long cpu;
	unsigned long n;
	unsigned long refused;
};

static void *pinned_write(void *arg)
{
	struct pinned_writer *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	/* With one CPU the threads share it. */
	sched_setaffinity(0, sizeof(set), &set);
	w->refused = write_events(w->n);
	return NULL;
}

/* @n events from @nwriters threads, one per CPU; returns those refused. */
static unsigned long write_pinned(unsigned long n, int nwriters)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct pinned_writer w[2];
	unsigned long refused = 0;
	int i;

	if (nwriters == 1)
		return write_events(n);
	for (i = 0; i < nwriters; i++) {
		w[i].cpu = i % cpus;
		w[i].n = n / nwriters;
		if (pthread_create(&w[i].thread, NULL, pinned_write, &w[i]))
			die("pthread_create", 0);
	}
	for (i = 0; i < nwriters; i++) {
		pthread_join(w[i].thread, NULL);
		refused += w[i].refused;
	}
	return refused;
}

/*
 * One logged run of @n events: the rate counts from the first write to
 * StopTrace's return, when the file is complete.  Returns the events the
 * session lost.
 */
static unsigned long log_run(ULONG buffer_kb, ULONG max_buffers,
			     unsigned long n, int nwriters)
{
	unsigned long refused, in_file;
	struct props b;
	double t0, t1, t2, mb;
	char label[64];

	start_logging(buffer_kb, max_buffers, &b);
	snprintf(label, sizeof(label), "%dw %lu KiB x %lu buffers%s", nwriters,
		 (unsigned long)b.p.BufferSize,
		 (unsigned long)b.p.MaximumBuffers,
		 buffer_kb || max_buffers ? "" : " (default)");
	t0 = now_ns();
	refused = write_pinned(n, nwriters);
	t1 = now_ns();
	stop_session(&b);
	t2 = now_ns();
	in_file = count_events(LOG_PATH);
	mb = file_mb(LOG_PATH);
	if (in_file + b.p.EventsLost != n || refused != b.p.EventsLost)
		printf("# %s: %lu written, %lu in the file, %lu refused, "
		       "%lu lost by the session's count\n", label, n, in_file,
		       refused, (unsigned long)b.p.EventsLost);
	printf("%-30s %9.0f ev/s %7.1f MB/s   writer %9.0f ev/s   "
	       "lost %lu (%.1f%%)\n", label, in_file / (t2 - t0) * 1e9,
	       mb / (t2 - t0) * 1e9, n / (t1 - t0) * 1e9,
	       (unsigned long)b.p.EventsLost, 100.0 * b.p.EventsLost / n);
	unlink(LOG_PATH);
	return b.p.EventsLost;
}

/* The writers with no consumer: a flight recorder of the default size. */
static void writer_alone(unsigned long n, int nwriters)
{
	struct props b;
	double t0, t;
	char label[32];

	props_init(&b);
	b.p.LogFileMode = EVENT_TRACE_BUFFERING_MODE;
	start_session(&b);
	t0 = now_ns();
	if (write_pinned(n, nwriters))
		die("a flight recorder refused events", 0);
	t = now_ns() - t0;
	stop_session(&b);
	snprintf(label, sizeof(label), "%dw alone", nwriters);
	printf("%-30s %9.0f ev/s (no consumer, base)\n", label, n / t * 1e9);
}

/* True when LOSS_FREE_RUNS runs in a row at @max_buffers lose nothing. */
static bool loss_free(ULONG max_buffers, unsigned long n, int nwriters)
{
	int r;

	for (r = 0; r < LOSS_FREE_RUNS; r++)
		if (log_run(0, max_buffers, n, nwriters))
			return false;
	return true;
}

/* The default settings, then more buffers while events are lost. */
static void report_logging_by(int nwriters)
{
	/* About a second of writing: long enough to be sustained. */
	unsigned long n = iters * 5;
	ULONG bufs;

	printf("# file logging: %lu events of %d B from %d thread%s (one per "
	       "CPU), sequential file on tmpfs, up to %d runs per setting\n",
	       n, PAYLOAD, nwriters, nwriters > 1 ? "s" : "",
	       LOSS_FREE_RUNS);
	writer_alone(n, nwriters);
	if (loss_free(0, n, nwriters))
		return;
	for (bufs = 8; bufs <= SWEEP_MAX_BUFFERS; bufs *= 2)
		if (loss_free(bufs, n, nwriters))
			return;
	printf("# events still lost at %d buffers\n", SWEEP_MAX_BUFFERS);
}

static void report_logging(void)
{
	report_logging_by(1);
	report_logging_by(2);
}

/* --- etwctl dump and merge ------------------------------------------------ */

/*
 * A file of iters events written by two threads, one per CPU when there
 * are two, so that readers merge two interleaved streams.
 */
static void make_file(void)
{
	unsigned long in_file;
	struct props b;

	/* Enough buffers that the logger never falls behind. */
	start_logging(64, 256, &b);
	if (write_pinned(iters / 2 * 2, 2))
		die("events lost while making the file", 0);
	stop_session(&b);
	in_file = count_events(LOG_PATH);
	if (in_file != iters / 2 * 2)
		die("events in the file", in_file);
}

/* Run etwctl with @argv, output to /dev/null; ns from fork to wait. */
static double run_etwctl(char *const argv[])
{
	double t0 = now_ns(), t;
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork", 0);
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, STDOUT_FILENO);
		/* Not a terminal: etwctl shows no progress line. */
		fd = open(ERR_PATH, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDERR_FILENO);
		execv(ETWCTL, argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid", 0);
	t = now_ns() - t0;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char msg[512];
		ssize_t r;

		fd = open(ERR_PATH, O_RDONLY);
		r = fd >= 0 ? read(fd, msg, sizeof(msg) - 1) : 0;
		msg[r > 0 ? r : 0] = 0;
		fprintf(stderr, "etl_bench: %s %s failed (%#x): %s\n", ETWCTL,
			argv[1], status, msg);
		exit(1);
	}
	return t;
}

static double best_etwctl(char *const argv[])
{
	double best = 0, t;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		t = run_etwctl(argv);
		if (!r || t < best)
			best = t;
	}
	return best;
}

static double best_process_trace(void)
{
	double best = 0, t0, t;
	int r;

	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ns();
		if (count_events(LOG_PATH) != iters / 2 * 2)
			die("ProcessTrace count", 0);
		t = now_ns() - t0;
		if (!r || t < best)
			best = t;
	}
	return best;
}

static void print_cmd(const char *label, double ns, double base,
		      unsigned long events)
{
	printf("%-34s %8.1f ms %10.0f ev/s   %.2fx\n", label, ns / 1e6,
	       events / ns * 1e9, ns / base);
}

static void report_etwctl(void)
{
	char *help[] = { "etwctl", "--help", NULL };
	char *dump[] = { "etwctl", "dump", LOG_PATH, NULL };
	char *merge[] = { "etwctl", "merge", MERGED_PATH, LOG_PATH, NULL };
	unsigned long events = iters / 2 * 2;
	double base;

	if (access(ETWCTL, X_OK)) {
		printf("# %s: not available (%s)\n", ETWCTL, strerror(errno));
		return;
	}
	make_file();
	printf("# etwctl: a %.1f MB file of %lu events of %d B from 2 threads, "
	       "output to /dev/null, best of %d runs\n", file_mb(LOG_PATH),
	       events, PAYLOAD, ROUNDS);
	base = best_process_trace();
	print_cmd("ProcessTrace in process (base)", base, base, events);
	/* Also brings etwctl and its libraries into the page cache. */
	printf("%-34s %8.1f ms\n", "etwctl --help (process floor)",
	       best_etwctl(help) / 1e6);
	print_cmd("etwctl dump (table)", best_etwctl(dump), base, events);
	unlink(MERGED_PATH);
	print_cmd("etwctl merge OUT IN", best_etwctl(merge), base, events);
	if (count_events(MERGED_PATH) != events)
		die("events in the merged file", 0);
	unlink(MERGED_PATH);
	unlink(LOG_PATH);
	unlink(ERR_PATH);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	if (iters < 2)
		iters = 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# file logging and etwctl, %lu events, %ld CPUs\n", iters,
	       sysconf(_SC_NPROCESSORS_ONLN));
	writer_init();
	report_logging();
	report_etwctl();
	return 0;
}
