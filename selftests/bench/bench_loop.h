/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_loop.h: the measuring loop write_bench and lttng_bench share.
 * Each figure is the best of ROUNDS rounds of iters operations, in
 * nanoseconds per operation and as a ratio to the first figure reported
 * (the floor, a null ioctl on /dev/etw).  With --insns N nothing is
 * timed: N operations run between two icount markers and the label is
 * printed for scripts/icount-plugin.c's count.
 */
#ifndef ETW_BENCH_LOOP_H
#define ETW_BENCH_LOOP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <linux/etw.h>

#include "icount_marker.h"

#define ROUNDS		5

static int fd;				/* /dev/etw */
static unsigned long iters = 100000;
static unsigned long insns_iters;	/* --insns: count, do not time */
static double floor_ns;

typedef void (*bench_fn)(void *ctx, unsigned long n);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(1);
}

/* "[ITERS]" or "--insns N". */
static void bench_args(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
}

/* Best per-operation time over ROUNDS rounds of @n operations. */
static double measure(bench_fn fn, void *ctx, unsigned long n)
{
	double best = 0;
	int r;

	fn(ctx, n / 10);	/* warm up */
	for (r = 0; r < ROUNDS; r++) {
		double t0 = now_ns(), t;

		fn(ctx, n);
		t = (now_ns() - t0) / n;
		if (!r || t < best)
			best = t;
	}
	return best;
}

/* Time @fn, or with --insns have its instructions counted. */
static void report(const char *label, bench_fn fn, void *ctx)
{
	double t;

	if (insns_iters) {
		fn(ctx, insns_iters / 10);	/* warm up */
		icount_marker();
		fn(ctx, insns_iters);
		icount_marker();
		printf("%s\n", label);
		return;
	}
	t = measure(fn, ctx, iters);
	if (!floor_ns)
		floor_ns = t;
	printf("%-34s %9.1f ns   %.2fx\n", label, t, t / floor_ns);
}

/* The floor: a bare ioctl on /dev/etw. */
static void bench_null(void *ctx, unsigned long n)
{
	while (n--)
		if (ioctl(fd, ETW_IOC_NULL, NULL))
			die("ETW_IOC_NULL");
}

#endif
