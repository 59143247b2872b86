// SPDX-License-Identifier: GPL-2.0
/*
 * TraceLogging end to end in the VM: the events of
 * userlib/tests/tracelogging_events.c (every field macro, the event
 * options, tags, a provider group) written through libetw by
 * <TraceLoggingProvider.h>, recorded by a file session that etwctl
 * started and enabled, and decoded by `etwctl dump`: each event must be
 * in the file once, under the provider's and the event's names, with its
 * fields reading as the table says.  An unenabled provider records
 * nothing, and a fork child writes only once it registered again.
 *
 * etwctl is run as a program (ctl/etwctl next to this binary's
 * directory), as a user would run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define TLE_REAL_API
#include "../userlib/tests/tracelogging_events.c"

#define PROVIDER_GUID	"8b1dd10c-8e7e-5b2c-9f0e-2cb0c1a0e001"
#define PROVIDER_NAME	"Etw-TraceLogging-Test"
#define OUT_MAX		(256 * 1024)

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

/* Run "etwctl ARGS"; its stdout into @out; returns its exit status. */
static int etwctl(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int etwctl(char *out, size_t size, const char *fmt, ...)
{
	char args[1024], cmd[5200];
	size_t len = 0, n;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s %s", etwctl_path(), args);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (out && len + 1 < size &&
	       (n = fread(out + len, 1, size - 1 - len, f)) > 0)
		len += n;
	if (out)
		out[len] = 0;
	return pclose(f);
}

/* The dump line of event @name; NULL unless there is exactly one. */
static const char *event_line(const char *dump, const char *name, char *line,
			      size_t size)
{
	char key[128];
	const char *p, *end, *found = NULL;

	snprintf(key, sizeof(key), " " PROVIDER_NAME " %s id=", name);
	for (p = dump; (p = strstr(p, key)); p++) {
		if (found)
			return NULL;
		found = p;
	}
	if (!found)
		return NULL;
	while (found > dump && found[-1] != '\n')
		found--;
	end = strchr(found, '\n');
	snprintf(line, size, "%.*s", (int)(end ? end - found : strlen(found)),
		 found);
	return line;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && s[a - b - 1] == ' ' && !strcmp(s + a - b, suffix);
}

FIXTURE(session) {
	char name[64];
	char file[128];
	char *out;
	bool started;
};

FIXTURE_SETUP(session)
{
	snprintf(self->name, sizeof(self->name), "tlg-selftest-%d", getpid());
	snprintf(self->file, sizeof(self->file), "/tmp/tlg-selftest-%d.etl",
		 getpid());
	self->out = malloc(OUT_MAX);
	ASSERT_NE(NULL, self->out);
	ASSERT_EQ(0, etwctl(NULL, 0, "start %s -f %s >/dev/null", self->name,
			    self->file));
	self->started = true;
}

FIXTURE_TEARDOWN(session)
{
	TraceLoggingUnregister(tle_provider);
	if (self->started)
		etwctl(NULL, 0, "stop %s >/dev/null 2>&1", self->name);
	unlink(self->file);
	free(self->out);
}

/* Write every event, stop, dump, and find each one decoded. */
TEST_F(session, round_trip)
{
	char line[8192];
	const char *name, *expect;
	int i;

	ASSERT_EQ(0, etwctl(NULL, 0, "enable %s %s >/dev/null", self->name,
			    PROVIDER_GUID));
	ASSERT_EQ(0, TraceLoggingRegister(tle_provider));
	/* The registration-time callback ran before Register returned. */
	ASSERT_TRUE(TraceLoggingProviderEnabled(tle_provider, 255, 0));
	for (i = 0; tle_write(i, &name, &expect) == 0; i++)
		;
	EXPECT_EQ(12, i);
	TraceLoggingUnregister(tle_provider);
	ASSERT_EQ(0, etwctl(NULL, 0, "stop %s >/dev/null", self->name));
	self->started = false;
	ASSERT_EQ(0, etwctl(self->out, OUT_MAX, "dump %s 2>/dev/null", self->file));
	for (i = 0; tle_write(i, &name, &expect) == 0; i++) {
		const char *l = event_line(self->out, name, line,
					   sizeof(line));

		EXPECT_NE(NULL, l)
			TH_LOG("event %s: not recorded once", name);
		if (l)
			EXPECT_TRUE(ends_with(l, expect))
				TH_LOG("event %s: '%s' does not end with '%s'",
				       name, l, expect);
	}
}

/* The options reach the recorded descriptor. */
TEST_F(session, options_recorded)
{
	char line[8192];

	ASSERT_EQ(0, etwctl(NULL, 0, "enable %s %s >/dev/null", self->name,
			    PROVIDER_GUID));
	ASSERT_EQ(0, TraceLoggingRegister(tle_provider));
	tle_options();
	TraceLoggingUnregister(tle_provider);
	ASSERT_EQ(0, etwctl(NULL, 0, "stop %s >/dev/null", self->name));
	self->started = false;
	ASSERT_EQ(0, etwctl(self->out, OUT_MAX, "dump %s 2>/dev/null", self->file));
	ASSERT_NE(NULL, event_line(self->out, "Options", line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, " id=0 v=0 lvl=3 op=1 task=0 kw=0x13 "));
}

/* Not enabled: the write records nothing and evaluates nothing. */
TEST_F(session, not_enabled)
{
	int evaluated = 0;

	ASSERT_EQ(0, TraceLoggingRegister(tle_provider));
	EXPECT_FALSE(TraceLoggingProviderEnabled(tle_provider, 0, 0));
	TraceLoggingWrite(tle_provider, "Unwanted",
			  TraceLoggingInt32(++evaluated, "n"));
	EXPECT_EQ(0, evaluated);
	TraceLoggingUnregister(tle_provider);
	ASSERT_EQ(0, etwctl(NULL, 0, "stop %s >/dev/null", self->name));
	self->started = false;
	ASSERT_EQ(0, etwctl(self->out, OUT_MAX, "dump %s 2>/dev/null", self->file));
	EXPECT_EQ(NULL, strstr(self->out, PROVIDER_NAME));
}

/*
 * A fork child keeps the provider's enable state but not libetw's
 * registration: its writes are dropped until it registers again.
 */
TEST_F(session, fork_child_reregisters)
{
	char line[8192];
	int status;
	pid_t pid;

	ASSERT_EQ(0, etwctl(NULL, 0, "enable %s %s >/dev/null", self->name,
			    PROVIDER_GUID));
	ASSERT_EQ(0, TraceLoggingRegister(tle_provider));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		TraceLoggingWrite(tle_provider, "ChildBefore");
		TraceLoggingUnregister(tle_provider);
		if (TraceLoggingRegister(tle_provider))
			_exit(1);
		TraceLoggingWrite(tle_provider, "ChildAfter");
		TraceLoggingUnregister(tle_provider);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	TraceLoggingWrite(tle_provider, "Parent");
	TraceLoggingUnregister(tle_provider);
	ASSERT_EQ(0, etwctl(NULL, 0, "stop %s >/dev/null", self->name));
	self->started = false;
	ASSERT_EQ(0, etwctl(self->out, OUT_MAX, "dump %s 2>/dev/null",
			    self->file));
	EXPECT_EQ(NULL, strstr(self->out, " ChildBefore "));
	EXPECT_NE(NULL, event_line(self->out, "ChildAfter", line,
				   sizeof(line)));
	EXPECT_NE(NULL, event_line(self->out, "Parent", line, sizeof(line)));
}

TEST_HARNESS_MAIN
