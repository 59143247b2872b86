// SPDX-License-Identifier: GPL-2.0
/*
 * klogger_bench: what a kernel logger costs the system calls it hooks and
 * those it does not (Documentation/performance.rst):
 *
 *   getppid        a system call no flag records
 *   fork           fork(), the child's _exit(0), waitpid(): Process and
 *                  Thread Start and End
 *   mmap           mmap() of this program with PROT_EXEC, munmap(): Image
 *                  Load and Unload
 *
 * each with no kernel logger (base), with PROC_THREAD, with LOADER, with
 * both, with SYSCALL (a SysCallEnter and a SysCallExit per call), with
 * ftrace's raw_syscalls sys_enter and sys_exit events (tracefs, its ring
 * buffer; the peer of SYSCALL), and with none again after they stopped
 * (their probes are gone).
 * The logger is a flight recorder (ETW_MODE_BUFFERING): it needs no
 * consumer and loses nothing.  Each figure is the best of several rounds
 * in nanoseconds per operation; with --insns N it times nothing and runs
 * each case N times between two markers for scripts/icount-plugin.c,
 * printing one label per marker pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "bench_session.h"
#include "icount_marker.h"

#define ROUNDS		5
#define TRACEFS		"/sys/kernel/tracing/events/raw_syscalls/"

static int fd, exe;
static unsigned long iters = 2000;
static unsigned long insns_iters;	/* --insns: count, do not time */

struct bench_case {
	const char *name;
	void (*op)(void);
	unsigned long div;	/* timed runs do iters / div of it */
	double base_ns;
};

static void op_getppid(void)
{
	syscall(SYS_getppid);
}

static void op_fork(void)
{
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		err(1, "fork");
}

static void op_mmap(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, exe, 0);

	if (p == MAP_FAILED || munmap(p, 4096))
		err(1, "mmap");
}

static struct bench_case cases[] = {
	{ "getppid", op_getppid, 1, 0 },
	{ "fork+exit+wait", op_fork, 20, 0 },
	{ "mmap+munmap PROT_EXEC file", op_mmap, 2, 0 },
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void run(struct bench_case *c, const char *cfg, bool base)
{
	unsigned long i, n = iters / c->div;
	double best = 0, t;
	int r;

	if (insns_iters) {
		icount_marker();
		for (i = 0; i < insns_iters; i++)
			c->op();
		icount_marker();
		printf("%s, %s%s\n", c->name, cfg, base ? " (base)" : "");
		return;
	}
	for (r = 0; r < ROUNDS; r++) {
		t = now_ns();
		for (i = 0; i < n; i++)
			c->op();
		t = (now_ns() - t) / n;
		if (!r || t < best)
			best = t;
	}
	if (base)
		c->base_ns = best;
	printf("%-28s %-20s %10.1f ns   %.2fx\n", c->name, cfg, best,
	       best / c->base_ns);
}

/* Turn tracefs' raw_syscalls events on or off. */
static void ftrace_syscalls(bool on)
{
	static const char *const names[] = { "sys_enter", "sys_exit" };
	char path[128];
	size_t i;
	int f;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), TRACEFS "%s/enable", names[i]);
		f = open(path, O_WRONLY | O_CLOEXEC);
		if (f < 0 || write(f, on ? "1" : "0", 1) != 1)
			err(1, "%s", path);
		close(f);
	}
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
		bool ftrace;
	} cfgs[] = {
		{ "no logger", 0, false },
		{ "PROC_THREAD", ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD, false },
		{ "LOADER", ETW_KFLAG_IMAGE_LOAD, false },
		{ "PROC_THREAD+LOADER", ETW_KFLAG_PROCESS | ETW_KFLAG_THREAD |
		  ETW_KFLAG_IMAGE_LOAD, false },
		{ "SYSCALL", ETW_KFLAG_SYSCALL, false },
		{ "ftrace raw_syscalls", 0, true },
		{ "none after stop", 0, false },
	};
	size_t c, k;
	__u32 id;

	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || exe < 0)
		err(1, "open");
	printf("# kernel logger cost, per operation%s\n",
	       insns_iters ? " (guest instructions)" : "");
	for (k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		id = start(cfgs[k].flags);
		if (cfgs[k].ftrace)
			ftrace_syscalls(true);
		for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
			run(&cases[c], cfgs[k].name, k == 0);
		if (cfgs[k].ftrace)
			ftrace_syscalls(false);
		if (id)
			bench_stop_session(fd, id);
	}
	return 0;
}
