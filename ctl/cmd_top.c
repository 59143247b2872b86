// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_top.c: "etwctl top": events/s, bytes/s and losses per provider and
 * per session, live.  BPF programs (ctl/bpf/top.bpf.c, loaded through the
 * bpftool skeleton with libbpf) count on etw.ko's etw_write and etw_lost
 * tracepoints; this reads their map once per interval (top.c prints).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "etwctl.h"
#include "top.h"
#include "top_maps.h"
#include "top.skel.h"

static const char etwctl_top_usage[] =
"usage: etwctl top [--json] [--once] [-i SECONDS] [-n COUNT]\n"
"       etwctl top [--json] -- COMMAND [ARG]...\n"
"Show events/s, bytes/s and lost events per provider and per session,\n"
"counted by BPF programs on etw.ko's tracepoints, refreshed every\n"
"interval (default 1 s), COUNT times (--once: one), or once COMMAND exits\n"
"(the counts of its lifetime).  --json: one JSON object per line.\n";

#define ETWCTL_TOP_MAX_INTERVAL	3600

/* The fields the BPF programs read, where they read them. */
#define ETWCTL_TOP_FIELD(rec, f) \
	{ #f, offsetof(struct rec, f), sizeof(((struct rec *)0)->f) }

#define ETWCTL_TOP_NFIELDS(a)	(sizeof(a) / sizeof((a)[0]))

static const struct etwctl_top_field etwctl_top_write_fields[] = {
	ETWCTL_TOP_FIELD(etwctl_top_write_rec, logger_id),
	ETWCTL_TOP_FIELD(etwctl_top_write_rec, size),
	ETWCTL_TOP_FIELD(etwctl_top_write_rec, provider),
};

static const struct etwctl_top_field etwctl_top_lost_fields[] = {
	ETWCTL_TOP_FIELD(etwctl_top_lost_rec, logger_id),
	ETWCTL_TOP_FIELD(etwctl_top_lost_rec, provider),
};

struct etwctl_top_opts {
	bool json;
	uint64_t interval;
	uint64_t count;
	char **command;
};

/* Session names by logger id, as QueryAllTraces reports them. */
struct etwctl_top_session_names {
	char *name[ETW_MAX_GLOBAL_SESSIONS];
};

static double etwctl_top_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* libbpf's messages would be several lines for one failure. */
static int etwctl_top_libbpf_quiet(enum libbpf_print_level level,
				   const char *fmt, va_list args)
{
	return 0;
}

/* Read @event's format file; NULL when tracefs has no such event. */
static char *etwctl_top_read_format(const char *event)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[256], *buf;
	size_t i, len = 0;
	ssize_t n;
	int fd = -1;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/events/etw/%s/format",
			 roots[i], event);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0)
		return NULL;
	buf = malloc(16384);
	while (buf && len + 1 < 16384 &&
	       (n = read(fd, buf + len, 16384 - 1 - len)) > 0)
		len += n;
	close(fd);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* The records are laid out as top_maps.h says, or a one-line error. */
static int etwctl_top_check_event(const char *event,
				  const struct etwctl_top_field *want,
				  size_t n)
{
	char *format = etwctl_top_read_format(event);
	char why[160];
	int ret;

	if (!format)
		return etwctl_fail("top", "no tracepoint etw/%s in tracefs "
				   "(etw.ko without tracepoints, or tracefs "
				   "not mounted)", event);
	ret = etwctl_top_layout_check(format, want, n, why, sizeof(why));
	free(format);
	if (ret)
		return etwctl_fail("top", "etw/%s: %s: etw.ko and etwctl differ",
				   event, why);
	return 0;
}

/* Sum every CPU's counts of every pair in the map into @s. */
static int etwctl_top_read(struct etwctl_top *skel,
			   struct etwctl_top_snap *s)
{
	int fd = bpf_map__fd(skel->maps.counts);
	int ncpus = libbpf_num_possible_cpus();
	struct etwctl_top_key key, next, *prev = NULL;
	struct etwctl_top_val *vals;
	int ret = 0, cpu;

	if (ncpus <= 0)
		return -ENOMEM;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	s->n = 0;
	s->time = etwctl_top_now();
	s->untracked = skel->bss->untracked;
	while (!ret && !bpf_map_get_next_key(fd, prev, &next)) {
		struct etwctl_top_count c = { .logger_id = next.logger_id };

		key = next;
		prev = &key;
		/* Gone since the key was read: counted no more. */
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue;
		memcpy(&c.provider, key.provider, sizeof(c.provider));
		for (cpu = 0; cpu < ncpus; cpu++) {
			c.events += vals[cpu].events;
			c.bytes += vals[cpu].bytes;
			c.lost += vals[cpu].lost;
		}
		ret = etwctl_top_snap_add(s, &c);
	}
	free(vals);
	return ret;
}

static const char *etwctl_top_session_name(void *ctx, uint32_t logger_id)
{
	struct etwctl_top_session_names *names = ctx;

	if (logger_id == 0 || logger_id > ETW_MAX_GLOBAL_SESSIONS)
		return NULL;
	return names->name[logger_id - 1];
}

/*
 * The running global sessions' names into empty @names; private sessions
 * have none.  Each properties block has room for a name and a log file
 * path, as "etwctl list" gives it.
 */
static void etwctl_top_names_get(struct etwctl_top_session_names *names)
{
	EVENT_TRACE_PROPERTIES *arr[ETW_MAX_GLOBAL_SESSIONS] = { 0 };
	size_t size = sizeof(EVENT_TRACE_PROPERTIES) + ETW_MAX_NAME_LEN + 1 +
		      4096 + 8;
	ULONG count = 0, i, id;

	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		arr[i] = calloc(1, size);
		if (!arr[i])
			goto out;
		arr[i]->Wnode.BufferSize = size;
		arr[i]->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	}
	if (QueryAllTracesA(arr, ETW_MAX_GLOBAL_SESSIONS, &count) &&
	    !count)
		goto out;
	for (i = 0; i < count && i < ETW_MAX_GLOBAL_SESSIONS; i++) {
		id = (ULONG)arr[i]->Wnode.HistoricalContext;
		if (id && id <= ETW_MAX_GLOBAL_SESSIONS &&
		    arr[i]->LoggerNameOffset)
			names->name[id - 1] = strdup((char *)arr[i] +
						     arr[i]->LoggerNameOffset);
	}
out:
	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++)
		free(arr[i]);
}

static void etwctl_top_names_free(struct etwctl_top_session_names *names)
{
	size_t i;

	for (i = 0; i < ETW_MAX_GLOBAL_SESSIONS; i++)
		free(names->name[i]);
}

/* Print one refresh; @prev becomes @now's copy for the next. */
static int etwctl_top_refresh(struct etwctl_top *skel,
			      const struct etwctl_top_opts *o,
			      struct etwctl_top_snap *now,
			      struct etwctl_top_snap *prev, bool first)
{
	struct etwctl_top_session_names names = { 0 };
	struct etwctl_top_names n = { etwctl_top_session_name, &names };
	struct etwctl_top_snap tmp;
	int ret;

	ret = etwctl_top_read(skel, now);
	if (ret)
		return ret;
	etwctl_top_names_get(&names);
	/* A live table replaces the last one; a single one stays. */
	if (!o->json && !o->command && o->count != 1 &&
	    isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	ret = etwctl_top_print(stdout, now, first ? NULL : prev, o->json, &n);
	fflush(stdout);
	etwctl_top_names_free(&names);
	tmp = *prev;
	*prev = *now;
	*now = tmp;
	now->start = prev->start;
	return ret;
}

/* Run @argv and wait for it: the counts are of its lifetime. */
static int etwctl_top_run(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return etwctl_fail("top", "fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "etwctl: top: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return etwctl_fail("top", "waitpid: %s",
					   strerror(errno));
	return 0;
}

static int etwctl_top_loop(struct etwctl_top *skel,
			   const struct etwctl_top_opts *o)
{
	struct etwctl_top_snap now = { 0 }, prev = { 0 };
	uint64_t i;
	int ret = 0;

	now.start = etwctl_top_now();
	if (o->command) {
		ret = etwctl_top_run(o->command);
		if (!ret)
			ret = etwctl_top_refresh(skel, o, &now, &prev, true);
	}
	for (i = 0; !o->command && !ret && (!o->count || i < o->count); i++) {
		struct timespec ts = { .tv_sec = o->interval };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ret = etwctl_top_refresh(skel, o, &now, &prev, !i);
	}
	etwctl_top_snap_free(&now);
	etwctl_top_snap_free(&prev);
	if (ret < 0)
		return etwctl_fail("top", "%s", strerror(-ret));
	return ret;
}

static int etwctl_top_parse(int argc, char **argv, struct etwctl_top_opts *o)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "once", no_argument, NULL, '1' },
		{ "interval", required_argument, NULL, 'i' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->interval = 1;
	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:hi:n:", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			return etwctl_help(etwctl_top_usage);
		case 'j':
			o->json = true;
			break;
		case '1':
			o->count = 1;
			break;
		case 'i':
			if (etwctl_parse_u64(optarg, ETWCTL_TOP_MAX_INTERVAL,
					     &o->interval) || !o->interval)
				return etwctl_usage("top", "bad interval '%s' "
						    "(1 to %d seconds)", optarg,
						    ETWCTL_TOP_MAX_INTERVAL);
			break;
		case 'n':
			if (etwctl_parse_u64(optarg, UINT32_MAX, &o->count) ||
			    !o->count)
				return etwctl_usage("top", "bad count '%s'",
						    optarg);
			break;
		default:
			return etwctl_bad_option("top", c, argv);
		}
	}
	if (optind < argc)
		o->command = &argv[optind];
	return -1;
}

/**
 * etwctl_cmd_top - "etwctl top"
 * @argc: argument count, argv[0] is "top"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_top(int argc, char **argv)
{
	struct etwctl_top_opts o = { 0 };
	struct etwctl_top *skel;
	int ret;

	ret = etwctl_top_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = etwctl_top_check_event("etw_write", etwctl_top_write_fields,
				     ETWCTL_TOP_NFIELDS(etwctl_top_write_fields)) ?:
	      etwctl_top_check_event("etw_lost", etwctl_top_lost_fields,
				     ETWCTL_TOP_NFIELDS(etwctl_top_lost_fields));
	if (ret)
		return ret;
	libbpf_set_print(etwctl_top_libbpf_quiet);
	skel = etwctl_top__open_and_load();
	if (!skel)
		return etwctl_fail("top", "cannot load the BPF programs: %s "
				   "(root, and a kernel with CONFIG_BPF_EVENTS, "
				   "are needed)", strerror(errno));
	if (etwctl_top__attach(skel)) {
		ret = etwctl_fail("top", "cannot attach to etw's tracepoints: %s",
				  strerror(errno));
		etwctl_top__destroy(skel);
		return ret;
	}
	ret = etwctl_top_loop(skel, &o);
	etwctl_top__destroy(skel);
	return ret;
}
