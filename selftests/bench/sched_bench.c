// SPDX-License-Identifier: GPL-2.0
/*
 * sched_bench: what recording context switches costs a pipe ping-pong
 * (Documentation/performance.rst).  Two threads pass a byte back and
 * forth through two pipes; on one CPU each round trip is two context
 * switches and two wakeups.  Cases, in one boot:
 *
 *   no tracing     neither etw nor ftrace records anything (base)
 *   ftrace         tracefs' sched/sched_switch event on (its ring buffer
 *                  overwrites, no reader): the peer
 *   CSWITCH        a kernel logger recording CSwitch
 *   ftrace +waking sched_switch and sched_waking
 *   CSWITCH+DISPATCHER  CSwitch and ReadyThread
 *   none after stop     neither again: etw's probes are gone
 *
 * The logger is a flight recorder (ETW_MODE_BUFFERING): no consumer, no
 * loss.  Each figure is the best of several rounds in nanoseconds per
 * round trip; with --insns N it times nothing and runs N round trips
 * between two markers for scripts/icount-plugin.c, printing one label per
 * marker pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "bench_session.h"
#include "icount_marker.h"

#define ROUNDS		5
#define TRACEFS		"/sys/kernel/tracing/events/sched/"

static int fd, ping[2], pong[2];
static unsigned long iters = 2000;
static unsigned long insns_iters;	/* --insns: count, do not time */
static double base_ns;

static void *ponger(void *arg)
{
	char c;

	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			err(1, "write");
	return NULL;
}

static void round_trip(void)
{
	char c = 1;

	if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
		err(1, "ping-pong");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void run(const char *cfg, bool base)
{
	unsigned long i;
	double best = 0, t;
	int r;

	if (insns_iters) {
		icount_marker();
		for (i = 0; i < insns_iters; i++)
			round_trip();
		icount_marker();
		printf("pipe round trip (2 switches), %s%s\n", cfg,
		       base ? " (base)" : "");
		return;
	}
	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (i = 0; i < iters; i++)
			round_trip();
		t = (now_ns() - t) / iters;
		if (!r || t < best)
			best = t;
	}
	if (base)
		base_ns = best;
	printf("%-30s %-22s %10.1f ns   %.2fx\n", "pipe round trip", cfg,
	       best, best / base_ns);
}

/* Turn tracefs' sched event @name on or off. */
static void ftrace_event(const char *name, bool on)
{
	char path[128];
	int f;

	snprintf(path, sizeof(path), TRACEFS "%s/enable", name);
	f = open(path, O_WRONLY | O_CLOEXEC);
	if (f < 0 || write(f, on ? "1" : "0", 1) != 1)
		err(1, "%s", path);
	close(f);
}

/* A kernel logger with @flags, or none for 0; its logger id or 0. */
static __u32 start(__u32 flags)
{
	static struct etw_session_args a;

	if (!flags)
		return 0;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	snprintf(a.name, sizeof(a.name), "%s", ETW_KERNEL_LOGGER_NAME);
	a.config.buffer_kb = 64;
	a.config.min_buffers = 8;
	a.config.mode = ETW_MODE_BUFFERING;
	a.config.enable_flags = flags;
	if (ioctl(fd, ETW_IOC_START, &a))
		err(1, "ETW_IOC_START");
	return a.logger_id;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		__u32 flags;
		bool ftrace_switch, ftrace_waking;
	} cfgs[] = {
		{ "no tracing", 0, false, false },
		{ "ftrace sched_switch", 0, true, false },
		{ "CSWITCH", ETW_KFLAG_CSWITCH, false, false },
		{ "ftrace switch+waking", 0, true, true },
		{ "CSWITCH+DISPATCHER", ETW_KFLAG_CSWITCH | ETW_KFLAG_DISPATCHER,
		  false, false },
		{ "none after stop", 0, false, false },
	};
	pthread_t t;
	size_t k;
	__u32 id;

	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		err(1, "open");
	if (pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL))
		err(1, "pipe");
	printf("# context switch recording, per pipe round trip%s\n",
	       insns_iters ? " (guest instructions)" : "");
	for (k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		id = start(cfgs[k].flags);
		if (cfgs[k].ftrace_switch)
			ftrace_event("sched_switch", true);
		if (cfgs[k].ftrace_waking)
			ftrace_event("sched_waking", true);
		run(cfgs[k].name, k == 0);
		if (cfgs[k].ftrace_switch)
			ftrace_event("sched_switch", false);
		if (cfgs[k].ftrace_waking)
			ftrace_event("sched_waking", false);
		if (id)
			bench_stop_session(fd, id);
	}
	close(ping[1]);
	pthread_join(t, NULL);
	return 0;
}
