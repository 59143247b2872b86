// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl end to end in the VM: sessions logged to files in each file
 * mode, a provider written through the raw ABI, the files dumped and the
 * events counted; list, query, dump --session, providers (also past one
 * LIST_PROVIDERS page); a kernel logger's CPU samples and their stacks
 * exported as a speedscope profile that names the sampled function; a
 * killed file logger; and a bad argument or a failing operation for
 * every command.
 *
 * etwctl is run as a program (ctl/etwctl next to this binary's
 * directory), as a user would run it.
 */
#include <pthread.h>
#include <sched.h>
#include <poll.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"

/* {5e1f7e57-0c71-4d2a-9a53-e7c7e7c70001} */
static const struct etw_guid test_guid = {
	0x5e1f7e57, 0x0c71, 0x4d2a,
	{ 0x9a, 0x53, 0xe7, 0xc7, 0xe7, 0xc7, 0x00, 0x01 } };
#define TEST_GUID	"5e1f7e57-0c71-4d2a-9a53-e7c7e7c70001"
#define SESSION		"etwctl-selftest"
#define DIR		"/tmp/etwctl-selftest"

struct run {
	int status;
	char out[65536];
	char err[4096];
};

static const char *etwctl_path(void)
{
	static char path[4096];
	char self[4000];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return "/etw/ctl/etwctl";
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	snprintf(path, sizeof(path), "%s/../ctl/etwctl", self);
	return path;
}

static void read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len + 1 < size &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = 0;
}

/* When set, etwctl()'s standard output goes to this file, not r->out. */
static const char *etwctl_stdout;

/* Run etwctl with the NULL-terminated arguments after @r. */
static int etwctl(struct run *r, ...)
{
	char *argv[32];
	int out[2], err[2], ws, argc = 1;
	va_list ap;
	pid_t pid;

	argv[0] = (char *)etwctl_path();
	va_start(ap, r);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	if (pipe(out) || pipe(err))
		return -1;
	pid = fork();
	if (!pid) {
		int o = etwctl_stdout ? open(etwctl_stdout, O_WRONLY | O_CREAT |
					     O_TRUNC, 0644) : out[1];

		if (o < 0)
			_exit(126);
		dup2(o, 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* stderr is one line here: it fits its pipe while stdout drains. */
	read_fd(out[0], r->out, sizeof(r->out));
	read_fd(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	waitpid(pid, &ws, 0);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
	return r->status;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The raw-ABI provider: registers test_guid on its own /dev/etw file. */
struct writer {
	int fd;
	__u32 reg_id;
};

static int writer_open_guid(struct writer *w, const struct etw_guid *g)
{
	struct etw_register_args r = { .size = sizeof(r), .guid = *g };

	w->fd = etw_open();
	if (w->fd < 0)
		return -errno;
	return etw_ioctl(w->fd, ETW_IOC_REGISTER, &r) ?:
	       (w->reg_id = r.reg_id, 0);
}

static int writer_open(struct writer *w)
{
	return writer_open_guid(w, &test_guid);
}

/*
 * Events @first..@first + @n - 1: id 7, level 4, keyword 1, payload the
 * event's number.  With @retry an event the session had no buffer for
 * (ENOBUFS: not recorded) is written again once the logger caught up, so
 * that every number is recorded exactly once.
 */
static int writer_write_from(struct writer *w, __u32 first, int n, int retry)
{
	struct etw_data_descriptor d;
	struct etw_write_args a;
	__u32 v;
	int i, ret;

	for (i = 0; i < n; i++) {
		v = first + (__u32)i;
		d = (struct etw_data_descriptor){ .ptr = (uintptr_t)&v,
						  .size = sizeof(v) };
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.reg_id = w->reg_id;
		a.descriptor.id = 7;
		a.descriptor.level = 4;
		a.descriptor.keyword = 1;
		a.data_count = 1;
		a.data_ptr = (uintptr_t)&d;
		ret = etw_ioctl(w->fd, ETW_IOC_WRITE, &a);
		if (ret == -ENOBUFS && retry) {
			usleep(1000);
			i--;
			continue;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int writer_write(struct writer *w, int n)
{
	return writer_write_from(w, 0, n, 0);
}

FIXTURE(ctl) {
	struct writer w;
	struct run r;
};

FIXTURE_SETUP(ctl)
{
	mkdir(DIR, 0755);
	/*
	 * A session an earlier test left: built with -O2, 6.12's harness
	 * skips the teardown of a test that ended by ASSERT (the pid it
	 * assigned after setjmp() is not volatile).
	 */
	etwctl(&self->r, "stop", SESSION, NULL);
	ASSERT_EQ(0, writer_open(&self->w));
}

FIXTURE_TEARDOWN(ctl)
{
	etwctl(&self->r, "stop", SESSION, NULL);
	close(self->w.fd);
}

/* start logging to @file, enable, write @n events, stop; 0 on success. */
static int log_events(struct __test_metadata *_metadata,
		      FIXTURE_DATA(ctl) *self, const char *file,
		      const char *mode, const char *max, int n)
{
	struct run *r = &self->r;

	/* Small buffers, so that files hold several; enough of them. */
	if (max)
		etwctl(r, "start", SESSION, "-f", file, "--mode", mode,
		       "--max-file", max, "--buffer-size", "4",
		       "--max-buffers", "128", NULL);
	else
		etwctl(r, "start", SESSION, "-f", file, "--mode", mode,
		       "--buffer-size", "4", "--max-buffers", "128", NULL);
	EXPECT_EQ(0, r->status) TH_LOG("start: %s", r->err);
	if (r->status)
		return -1;
	EXPECT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID ":0x1:4", NULL))
		TH_LOG("enable: %s", r->err);
	EXPECT_EQ(0, writer_write(&self->w, n));
	EXPECT_EQ(0, etwctl(r, "stop", SESSION, NULL)) TH_LOG("%s", r->err);
	return 0;
}

static int dump_count(struct run *r, const char *file)
{
	if (etwctl(r, "dump", "--provider", TEST_GUID, "--id", "7", file,
		   NULL))
		return -1;
	return lines(r->out);
}

TEST_F(ctl, sequential_file)
{
	ASSERT_EQ(0, log_events(_metadata, self, DIR "/seq.etl", "sequential",
				NULL, 300));
	/* stop returned: the file is complete. */
	EXPECT_EQ(300, dump_count(&self->r, DIR "/seq.etl"))
		TH_LOG("%s", self->r.err);
	EXPECT_NE(NULL, strstr(self->r.out, " id=7 v=0 lvl=4 op=0 task=0 "
			       "kw=0x1 act=- 00000000\n"));
	EXPECT_EQ(0, etwctl(&self->r, "stats", DIR "/seq.etl", NULL));
	EXPECT_NE(NULL, strstr(self->r.out, "  " TEST_GUID " id=7 300\n"));
	unlink(DIR "/seq.etl");
}

/* Enough 88-byte events for 2 MB of 4 KB buffers: 1 MB files must wrap. */
#define WRAP_EVENTS	25000
#define WRAP_OUT	DIR "/dump.txt"

/*
 * Log WRAP_EVENTS events to @file in @mode with 1 MB files.  The writer
 * stays on one CPU, so its events fill one buffer stream in order: the
 * buffers, and the files, hold consecutive numbers.
 */
static int log_wrapping(struct __test_metadata *_metadata,
			FIXTURE_DATA(ctl) *self, const char *file,
			const char *mode)
{
	struct run *r = &self->r;
	cpu_set_t cpu;

	CPU_ZERO(&cpu);
	CPU_SET(sched_getcpu(), &cpu);
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(cpu), &cpu));
	etwctl(r, "start", SESSION, "-f", file, "--mode", mode, "--max-file",
	       "1", "--buffer-size", "4", "--max-buffers", "128", NULL);
	EXPECT_EQ(0, r->status) TH_LOG("start: %s", r->err);
	if (r->status)
		return -1;
	EXPECT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID ":0x1:4", NULL))
		TH_LOG("enable: %s", r->err);
	EXPECT_EQ(0, writer_write_from(&self->w, 0, WRAP_EVENTS, 1));
	EXPECT_EQ(0, etwctl(r, "stop", SESSION, NULL)) TH_LOG("%s", r->err);
	return 0;
}

/*
 * Dump @file's test events and count each number in @seen (WRAP_EVENTS
 * entries); *@lo and *@hi: the smallest and largest number.
 * Return: events dumped, or -1.
 */
static int dump_numbers(struct run *r, const char *file, int *seen,
			__u32 *lo, __u32 *hi)
{
	char *line = NULL;
	size_t cap = 0;
	int n = 0;
	FILE *f;

	etwctl_stdout = WRAP_OUT;
	etwctl(r, "dump", "--provider", TEST_GUID, "--id", "7", file, NULL);
	etwctl_stdout = NULL;
	if (r->status)
		return -1;
	f = fopen(WRAP_OUT, "r");
	if (!f)
		return -1;
	*lo = ~0u;
	*hi = 0;
	while (getline(&line, &cap, f) > 0) {
		const char *hex = strrchr(line, ' ');
		unsigned int b[4];
		__u32 v;

		if (!hex || sscanf(hex, " %2x%2x%2x%2x", &b[0], &b[1], &b[2],
				   &b[3]) != 4) {
			n = -1;
			break;
		}
		v = b[0] | b[1] << 8 | b[2] << 16 | (__u32)b[3] << 24;
		if (v >= WRAP_EVENTS) {
			n = -1;
			break;
		}
		seen[v]++;
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
		n++;
	}
	free(line);
	fclose(f);
	unlink(WRAP_OUT);
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -errno : (long)st.st_size;
}

/* A circular file that wrapped holds the newest events, the oldest gone. */
TEST_F_TIMEOUT(ctl, circular_file_keeps_newest, 300)
{
	static int seen[WRAP_EVENTS];
	int n, i, first;
	__u32 lo, hi;

	ASSERT_EQ(0, log_wrapping(_metadata, self, DIR "/circ.etl",
				  "circular"));
	/* 1 MB: the header buffer and 255 data buffers. */
	EXPECT_EQ(1 << 20, file_size(DIR "/circ.etl"));
	n = dump_numbers(&self->r, DIR "/circ.etl", seen, &lo, &hi);
	ASSERT_LT(0, n) TH_LOG("%s", self->r.err);
	/* 255 buffers of 45 events at most: less than half of them. */
	EXPECT_GE(255 * 45, n);
	EXPECT_EQ(0, seen[0]);
	EXPECT_EQ(1, seen[WRAP_EVENTS - 1]);
	/* Exactly the last n events, each once. */
	first = WRAP_EVENTS - n;
	EXPECT_EQ(first, lo);
	for (i = 0; i < WRAP_EVENTS; i++)
		if (seen[i] != (i >= first))
			break;
	EXPECT_EQ(WRAP_EVENTS, i) TH_LOG("event %d seen %d times", i,
					  i < WRAP_EVENTS ? seen[i] : 0);
	unlink(DIR "/circ.etl");
}

/* newfile moves on to file 2, 3...: together they hold every event. */
TEST_F_TIMEOUT(ctl, newfile_files_rotate, 300)
{
	static int seen[WRAP_EVENTS];
	char path[64];
	int k, n, i, files = 0, total = 0;
	__u32 lo, hi, prev_hi = 0;

	for (k = 1; k < 10; k++) {
		snprintf(path, sizeof(path), DIR "/new_%d.etl", k);
		unlink(path);
	}
	ASSERT_EQ(0, log_wrapping(_metadata, self, DIR "/new_%d.etl",
				  "newfile"));
	for (k = 1; k < 10; k++) {
		snprintf(path, sizeof(path), DIR "/new_%d.etl", k);
		if (file_size(path) < 0)
			break;
		files++;
		EXPECT_GE(1 << 20, file_size(path)) TH_LOG("%s", path);
		n = dump_numbers(&self->r, path, seen, &lo, &hi);
		EXPECT_LT(0, n) TH_LOG("%s: %s", path, self->r.err);
		if (n <= 0)
			break;
		total += n;
		/* File k + 1 continues where file k ended. */
		if (k > 1)
			EXPECT_EQ(prev_hi + 1, lo) TH_LOG("%s", path);
		prev_hi = hi;
		unlink(path);
	}
	/* 2 MB of buffers in files of 1 MB: at least three files. */
	EXPECT_LE(3, files);
	EXPECT_GT(9, files);
	EXPECT_EQ(WRAP_EVENTS, total);
	for (i = 0; i < WRAP_EVENTS && seen[i] == 1; i++)
		;
	EXPECT_EQ(WRAP_EVENTS, i) TH_LOG("event %d seen %d times", i,
					  i < WRAP_EVENTS ? seen[i] : 0);
}

TEST_F(ctl, append_file)
{
	ASSERT_EQ(0, log_events(_metadata, self, DIR "/app.etl", "sequential",
				NULL, 10));
	ASSERT_EQ(0, log_events(_metadata, self, DIR "/app.etl", "append",
				NULL, 20));
	EXPECT_EQ(30, dump_count(&self->r, DIR "/app.etl"))
		TH_LOG("%s", self->r.err);
	unlink(DIR "/app.etl");
}

TEST_F(ctl, query_and_list)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "-f", DIR "/q.etl",
			    "--buffer-size", "8", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "query", SESSION, NULL)) TH_LOG("%s", r->err);
	EXPECT_NE(NULL, strstr(r->out, "Session:            " SESSION "\n"));
	EXPECT_NE(NULL, strstr(r->out, "Log file:           " DIR "/q.etl\n"));
	EXPECT_NE(NULL, strstr(r->out, "Buffer size:        8 KB\n"));
	EXPECT_NE(NULL, strstr(r->out, "Mode:               sequential"));
	ASSERT_EQ(0, etwctl(r, "list", NULL)) TH_LOG("%s", r->err);
	EXPECT_NE(NULL, strstr(r->out, "Session:            " SESSION "\n"));
	EXPECT_EQ(0, etwctl(r, "update", SESSION, "--flush-timer", "3", NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "query", SESSION, NULL));
	EXPECT_NE(NULL, strstr(r->out, "Flush timer:        3 s\n"));
	EXPECT_EQ(0, etwctl(r, "update", SESSION, "--max-buffers", "100", NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "query", SESSION, NULL));
	EXPECT_NE(NULL, strstr(r->out, "Buffers:            100 (min "));
	EXPECT_NE(NULL, strstr(r->out, ", max 100, free "));
	/* Buffers are never taken away from a running session. */
	EXPECT_EQ(1, etwctl(r, "update", SESSION, "--max-buffers", "50", NULL));
	EXPECT_EQ(0, etwctl(r, "stop", SESSION, NULL));
	EXPECT_EQ(1, etwctl(r, "query", SESSION, NULL));
	unlink(DIR "/q.etl");
}

/*
 * update --on changes a running kernel logger's flags (query shows them);
 * a flag etw does not record is refused with the running one unchanged;
 * --on for a session that is not a kernel logger is an error.
 */
TEST_F(ctl, update_kernel_flags)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", "NT Kernel Logger", "--realtime",
			    "-on", "PROCESS", NULL)) TH_LOG("%s", r->err);
	EXPECT_EQ(0, etwctl(r, "update", "NT Kernel Logger", "-on",
			    "PROC_THREAD+LOADER", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "query", "NT Kernel Logger", NULL));
	EXPECT_NE(NULL, strstr(r->out, "Kernel flags:       PROC_THREAD+LOADER "
				       "(0x00000007)\n")) TH_LOG("%s", r->out);
	EXPECT_EQ(2, etwctl(r, "update", "NT Kernel Logger", "--on",
			    "LOADER+DISK_IO", NULL));
	EXPECT_NE(NULL, strstr(r->err, "kernel flag 'DISK_IO' is not "
				       "recorded")) TH_LOG("%s", r->err);
	EXPECT_EQ(0, etwctl(r, "update", "NT Kernel Logger", "--on", "THREAD",
			    NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "query", "NT Kernel Logger", NULL));
	EXPECT_NE(NULL, strstr(r->out, "Kernel flags:       THREAD "
				       "(0x00000002)\n")) TH_LOG("%s", r->out);
	EXPECT_EQ(0, etwctl(r, "stop", "NT Kernel Logger", NULL));
	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	EXPECT_EQ(1, etwctl(r, "update", SESSION, "--on", "PROC_THREAD",
			    NULL));
	EXPECT_NE(NULL, strstr(r->err, "is not a kernel logger"))
		TH_LOG("%s", r->err);
}

static atomic_bool spin_stop;

/* The function the profile must name: a symbol of this program. */
__attribute__((noinline)) void etwctl_test_spin_target(void)
{
	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
		;
}

static void *spinner(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	etwctl_test_spin_target();
	return NULL;
}

/* The whole of @path, NUL-terminated, or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = 2 * cap + 8192;
			buf = realloc(buf, cap);
			if (!buf)
				break;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n);
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/*
 * xperf's way to a CPU profile: a kernel logger with SysProf (processes,
 * images, samples) and -stackwalk Profile to a file, a thread spinning
 * in a function of this program meanwhile; etwctl dump decodes the
 * samples through TDH as Windows' (PerfInfo's SampleProf with the
 * thread's id), and etwctl export --format speedscope names the
 * function, from the samples' stacks and the program's image.
 */
TEST_F(ctl, profile_export_names_the_spinning_function)
{
	struct run *r = &self->r;
	char want[64], *json, *dump;
	pid_t tid = 0;
	pthread_t th;

	unlink(DIR "/prof.etl");
	ASSERT_EQ(0, etwctl(r, "start", "NT Kernel Logger", "-f",
			    DIR "/prof.etl", "-on", "SysProf", "-stackwalk",
			    "Profile", "--buffer-size", "64", "--max-buffers",
			    "256", NULL)) TH_LOG("%s", r->err);
	atomic_store(&spin_stop, false);
	ASSERT_EQ(0, pthread_create(&th, NULL, spinner, &tid));
	usleep(300 * 1000);
	atomic_store(&spin_stop, true);
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, etwctl(r, "stop", "NT Kernel Logger", NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "export", "--format", "speedscope", "-o",
			    DIR "/prof.speedscope.json", DIR "/prof.etl", NULL))
		TH_LOG("%s", r->err);
	etwctl_stdout = DIR "/prof.dump";
	EXPECT_EQ(0, etwctl(r, "dump", DIR "/prof.etl", NULL))
		TH_LOG("%s", r->err);
	etwctl_stdout = NULL;
	dump = slurp(DIR "/prof.dump");
	ASSERT_NE(NULL, dump);
	snprintf(want, sizeof(want), "ThreadId=%d Count=1 Reserved=0\n", tid);
	EXPECT_NE(NULL, strstr(dump, want));
	EXPECT_NE(NULL, strstr(dump, "op=SampleProf task=PerfInfo "));
	free(dump);
	json = slurp(DIR "/prof.speedscope.json");
	ASSERT_NE(NULL, json);
	EXPECT_NE(NULL, strstr(json, "\"$schema\":\"https://www.speedscope.app/"
				     "file-format-schema.json\""));
	EXPECT_NE(NULL, strstr(json, "!etwctl_test_spin_target"));
	free(json);
}

TEST_F(ctl, dump_session_and_providers)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, "--event-ids",
			    "7", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "providers", NULL));
	EXPECT_NE(NULL, strstr(r->out, TEST_GUID)) TH_LOG("%s", r->out);
	ASSERT_EQ(0, writer_write(&self->w, 5));
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(5, lines(r->out));
	ASSERT_EQ(0, etwctl(r, "flush", SESSION, NULL));
	ASSERT_EQ(0, etwctl(r, "disable", SESSION, TEST_GUID, NULL));
	ASSERT_EQ(0, writer_write(&self->w, 5));
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, "-f", "json",
			    NULL));
	EXPECT_STREQ("", r->out);
}

/* --exe: this program's events only once the list names it. */
TEST_F(ctl, enable_exe_filter)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, "--exe",
			    "other.exe", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, writer_write(&self->w, 3));
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(0, lines(r->out));
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, "--exe",
			    "other.exe;ETWCTL_TEST", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, writer_write(&self->w, 3));
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(3, lines(r->out));
}

/*
 * More registrations than one LIST_PROVIDERS call returns (4096): etwctl
 * pages through them and prints each once.  Its output goes to a file.
 */
TEST(providers_lists_past_one_page)
{
	char path[64], line[512], prefix[32];
	int fds[5], f, n, seen = 0, ws;
	FILE *out;
	pid_t pid;

	for (f = 0; f < 5; f++) {
		fds[f] = etw_open();
		ASSERT_LE(0, fds[f]);
		for (n = 0; n < 1000; n++) {
			struct etw_register_args r = {
				.size = sizeof(r),
				.guid = { 0x5e1f7e58, (__u16)getpid(),
					  (__u16)(f * 1000 + n) },
			};

			ASSERT_EQ(0, etw_ioctl(fds[f], ETW_IOC_REGISTER, &r));
		}
	}
	snprintf(path, sizeof(path), "/tmp/etwctl-providers-%d", getpid());
	pid = fork();
	if (!pid) {
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execl(etwctl_path(), "etwctl", "providers", (char *)NULL);
		_exit(127);
	}
	ASSERT_LT(0, pid);
	waitpid(pid, &ws, 0);
	ASSERT_TRUE(WIFEXITED(ws));
	ASSERT_EQ(0, WEXITSTATUS(ws));
	out = fopen(path, "r");
	ASSERT_NE(NULL, out);
	snprintf(prefix, sizeof(prefix), "5e1f7e58-%04x-",
		 (unsigned int)(__u16)getpid());
	while (fgets(line, sizeof(line), out))
		seen += !strncmp(line, prefix, strlen(prefix));
	fclose(out);
	unlink(path);
	EXPECT_EQ(5000, seen);
	for (f = 0; f < 5; f++)
		close(fds[f]);
}

/*
 * Wait for a notification with @code for @w's registration; the others
 * queued before it are skipped.  Return: 0, or -ETIMEDOUT / -errno.
 */
static int writer_notified(struct writer *w, __u32 code)
{
	static __u8 buf[65536];

	for (;;) {
		struct pollfd p = { .fd = w->fd, .events = POLLIN };
		ssize_t got, off;

		if (poll(&p, 1, 5000) != 1)
			return -ETIMEDOUT;
		got = read(w->fd, buf, sizeof(buf));
		if (got < 0)
			return -errno;
		for (off = 0; off + (ssize_t)sizeof(struct etw_notification) <=
			      got;) {
			const struct etw_notification *n = (const void *)
							   (buf + off);

			if (n->size < sizeof(*n))
				return -EBADMSG;
			if (n->reg_id == w->reg_id && n->control_code == code)
				return 0;
			off += n->size;
		}
	}
}

/* capture-state reaches the provider, which logs its state in answer. */
TEST_F(ctl, capture_state)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, NULL));
	ASSERT_EQ(0, writer_notified(&self->w, ETW_CONTROL_ENABLE));
	EXPECT_EQ(0, etwctl(r, "capture-state", SESSION, TEST_GUID, NULL))
		TH_LOG("%s", r->err);
	ASSERT_EQ(0, writer_notified(&self->w, ETW_CONTROL_CAPTURE_STATE));
	/* The rundown: three events. */
	ASSERT_EQ(0, writer_write(&self->w, 3));
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(3, lines(r->out)) TH_LOG("%s", r->out);
}

/* A traits blob naming @group: TraitsSize, "m", the group trait. */
static int writer_join(struct writer *w, const struct etw_guid *group)
{
	__u8 blob[2 + 2 + 3 + sizeof(*group)] = { sizeof(blob), 0, 'm', 0,
						  3 + sizeof(*group), 0, 1 };
	struct etw_traits_args t = { .size = sizeof(t), .reg_id = w->reg_id,
				     .traits_ptr = (uintptr_t)blob,
				     .traits_len = sizeof(blob) };

	memcpy(blob + 7, group, sizeof(*group));
	return etw_ioctl(w->fd, ETW_IOC_SET_TRAITS, &t);
}

/* {5e1f7e57-0c71-4d2a-9a53-e7c7e7c70002}, {...0003}: a group, a member. */
static const struct etw_guid group_guid = {
	0x5e1f7e57, 0x0c71, 0x4d2a,
	{ 0x9a, 0x53, 0xe7, 0xc7, 0xe7, 0xc7, 0x00, 0x02 } };
static const struct etw_guid other_guid = {
	0x5e1f7e57, 0x0c71, 0x4d2a,
	{ 0x9a, 0x53, 0xe7, 0xc7, 0xe7, 0xc7, 0x00, 0x03 } };
#define GROUP_GUID	"5e1f7e57-0c71-4d2a-9a53-e7c7e7c70002"
#define OTHER_GUID	"5e1f7e57-0c71-4d2a-9a53-e7c7e7c70003"

static int count_of(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/*
 * Two members of group_guid write 2 and 3 events to a session that
 * enabled the group after `etwctl disallow` listed the first member (and,
 * with @clear, a second `disallow` listed none); r->out: the CSV dump.
 */
static void disallow_run(struct __test_metadata *_metadata,
			 FIXTURE_DATA(ctl) *self, int clear)
{
	struct run *r = &self->r;
	struct writer other;

	ASSERT_EQ(0, writer_open_guid(&other, &other_guid));
	ASSERT_EQ(0, writer_join(&self->w, &group_guid));
	ASSERT_EQ(0, writer_join(&other, &group_guid));
	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	ASSERT_EQ(0, etwctl(r, "disallow", SESSION, GROUP_GUID, TEST_GUID,
			    NULL)) TH_LOG("%s", r->err);
	if (clear)
		ASSERT_EQ(0, etwctl(r, "disallow", SESSION, GROUP_GUID, NULL))
			TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, "--group", GROUP_GUID, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(0, writer_write(&self->w, 2));
	EXPECT_EQ(0, writer_write(&other, 3));
	close(other.fd);
	ASSERT_EQ(0, etwctl(r, "dump", "--session", SESSION, "-f", "csv",
			    NULL)) TH_LOG("%s", r->err);
}

/* The disallowed member's events stay out; the other member's arrive. */
TEST_F(ctl, disallow)
{
	disallow_run(_metadata, self, 0);
	EXPECT_EQ(0, count_of(self->r.out, TEST_GUID)) TH_LOG("%s",
							       self->r.out);
	EXPECT_EQ(3, count_of(self->r.out, OTHER_GUID)) TH_LOG("%s",
								self->r.out);
}

/* disallow without providers clears the list: both members arrive. */
TEST_F(ctl, disallow_cleared)
{
	disallow_run(_metadata, self, 1);
	EXPECT_EQ(2, count_of(self->r.out, TEST_GUID)) TH_LOG("%s",
							       self->r.out);
	EXPECT_EQ(3, count_of(self->r.out, OTHER_GUID)) TH_LOG("%s",
								self->r.out);
}

/* Wait up to 30 s for @name to have a consumer file open. */
static bool wait_for_consumer(int fd, const char *name)
{
	struct etw_session_args a;
	int i;

	for (i = 0; i < 3000; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		strcpy(a.name, name);
		if (etw_ioctl(fd, ETW_IOC_QUERY, &a))
			return false;
		if (a.stats.consumers)
			return true;
		usleep(10000);
	}
	return false;
}

/* view prints events as buffers are delivered and ends with the session. */
TEST_F(ctl, view)
{
	struct run *r = &self->r;
	char out[4096];
	int p[2];
	pid_t pid;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, NULL));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		execl(etwctl_path(), "etwctl", "view", SESSION, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/*
	 * view opens its consumer before the events are sealed: a loaded
	 * machine may take longer than any fixed sleep to start it.
	 */
	ASSERT_TRUE(wait_for_consumer(self->w.fd, SESSION));
	ASSERT_EQ(0, writer_write(&self->w, 3));
	ASSERT_EQ(0, etwctl(r, "stop", SESSION, NULL));
	read_fd(p[0], out, sizeof(out));
	close(p[0]);
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(3, lines(out)) TH_LOG("%s", out);
}

/* A killed logger leaves a file readable up to its last whole buffer. */
TEST_F(ctl, killed_logger)
{
	struct run *r = &self->r;
	const char *pid;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "-f", DIR "/kill.etl",
			    "--buffer-size", "4", NULL)) TH_LOG("%s", r->err);
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, NULL));
	ASSERT_EQ(0, writer_write(&self->w, 50));
	ASSERT_EQ(0, etwctl(r, "flush", SESSION, NULL));
	ASSERT_EQ(0, etwctl(r, "query", SESSION, NULL));
	pid = strstr(r->out, "Logger pid:");
	ASSERT_NE(NULL, pid);
	/* Let the logger write what the flush sealed, then kill it. */
	usleep(500000);
	ASSERT_EQ(0, kill(atoi(pid + strlen("Logger pid:")), SIGKILL));
	usleep(100000);
	EXPECT_EQ(50, dump_count(r, DIR "/kill.etl")) TH_LOG("%s", r->err);
	unlink(DIR "/kill.etl");
}

/*
 * One bad argument or failing operation per command, as a user sees it:
 * twenty runs of etwctl, more than the default 30 s on a loaded TCG VM.
 */
TEST_F_TIMEOUT(ctl, errors, 120)
{
	static const struct {
		int status;
		const char *argv[6];
	} cases[] = {
		{ 2, { "start", SESSION, NULL } },
		{ 1, { "stop", "no-such-session", NULL } },
		{ 1, { "flush", "no-such-session", NULL } },
		{ 1, { "update", "no-such-session", "--flush-timer", "1",
		       NULL } },
		{ 1, { "query", "no-such-session", NULL } },
		{ 2, { "list", "x", NULL } },
		{ 1, { "enable", "no-such-session", TEST_GUID, NULL } },
		{ 1, { "enable", SESSION, "no_such_provider_name", NULL } },
		{ 1, { "disable", "no-such-session", TEST_GUID, NULL } },
		{ 1, { "capture-state", "no-such-session", TEST_GUID, NULL } },
		{ 1, { "disallow", "no-such-session", TEST_GUID, NULL } },
		{ 2, { "providers", "x", NULL } },
		{ 1, { "view", "no-such-session", NULL } },
		{ 1, { "dump", "--session", "no-such-session", NULL } },
		{ 2, { "merge", DIR "/out.etl", NULL } },
		{ 1, { "stats", DIR "/missing.etl", NULL } },
		{ 1, { "start", SESSION, "--realtime", NULL } },
		{ 2, { "bogus", NULL } },
	};
	struct run *r = &self->r;
	size_t i;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].argv;

		etwctl(r, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
		EXPECT_EQ(cases[i].status, r->status)
			TH_LOG("%s %s", a[0], a[1]);
		EXPECT_EQ(1, lines(r->err)) TH_LOG("%s: %s", a[0], r->err);
		EXPECT_STREQ("", r->out) TH_LOG("%s", a[0]);
	}
}

TEST_HARNESS_MAIN
