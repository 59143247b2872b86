// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl end to end in the VM: sessions logged to files in each file
 * mode, a provider written through the raw ABI, the files dumped and the
 * events counted; list, query, dump --session, providers (also past one
 * LIST_PROVIDERS page); a killed file logger; and a bad argument or a
 * failing operation for every command.
 *
 * etwctl is run as a program (ctl/etwctl next to this binary's
 * directory), as a user would run it.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_selftest.h"

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
		dup2(out[1], 1);
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

static int writer_open(struct writer *w)
{
	struct etw_register_args r = { .size = sizeof(r), .guid = test_guid };

	w->fd = etw_open();
	if (w->fd < 0)
		return -errno;
	return etw_ioctl(w->fd, ETW_IOC_REGISTER, &r) ?:
	       (w->reg_id = r.reg_id, 0);
}

/* @n events: id 7, level 4, keyword 1, payload the event's number. */
static int writer_write(struct writer *w, int n)
{
	struct etw_data_descriptor d;
	struct etw_write_args a;
	__u32 v;
	int i, ret;

	for (i = 0; i < n; i++) {
		v = (__u32)i;
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
		if (ret)
			return ret;
	}
	return 0;
}

FIXTURE(ctl) {
	struct writer w;
	struct run r;
};

FIXTURE_SETUP(ctl)
{
	mkdir(DIR, 0755);
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

TEST_F(ctl, circular_file)
{
	ASSERT_EQ(0, log_events(_metadata, self, DIR "/circ.etl", "circular",
				"1", 200));
	EXPECT_EQ(200, dump_count(&self->r, DIR "/circ.etl"))
		TH_LOG("%s", self->r.err);
	unlink(DIR "/circ.etl");
}

TEST_F(ctl, newfile_files)
{
	ASSERT_EQ(0, log_events(_metadata, self, DIR "/new_%d.etl", "newfile",
				"1", 200));
	EXPECT_EQ(200, dump_count(&self->r, DIR "/new_1.etl"))
		TH_LOG("%s", self->r.err);
	unlink(DIR "/new_1.etl");
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
	EXPECT_STREQ("[\n\n]\n", r->out);
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

TEST_F(ctl, capture_state_and_disallow)
{
	struct run *r = &self->r;

	ASSERT_EQ(0, etwctl(r, "start", SESSION, "--realtime", NULL));
	ASSERT_EQ(0, etwctl(r, "enable", SESSION, TEST_GUID, NULL));
	EXPECT_EQ(0, etwctl(r, "capture-state", SESSION, TEST_GUID, NULL))
		TH_LOG("%s", r->err);
	EXPECT_EQ(0, etwctl(r, "disallow", SESSION, TEST_GUID, TEST_GUID,
			    NULL)) TH_LOG("%s", r->err);
	EXPECT_EQ(0, etwctl(r, "disallow", SESSION, TEST_GUID, NULL))
		TH_LOG("%s", r->err);
}

/* view prints events as buffers are delivered and ends with the session. */
TEST_F(ctl, view)
{
	struct run *r = &self->r;
	char out[4096];
	int p[2], ws;
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
	/* Let view open its consumer before the events are sealed. */
	usleep(300000);
	ASSERT_EQ(0, writer_write(&self->w, 3));
	ASSERT_EQ(0, etwctl(r, "stop", SESSION, NULL));
	read_fd(p[0], out, sizeof(out));
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &ws, 0));
	EXPECT_TRUE(WIFEXITED(ws) && !WEXITSTATUS(ws));
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

/* One bad argument or failing operation per command, as a user sees it. */
TEST_F(ctl, errors)
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
