// SPDX-License-Identifier: GPL-2.0
/*
 * lttng_bench: LTTng-UST, the in-process peer of issue 17's batched write
 * mode, writing the payloads write_bench writes (16, 64 and 512 bytes) as
 * one event each, next to the same run's floor (Documentation/
 * performance.rst):
 *
 *   floor      ETW_IOC_NULL on /dev/etw (a bare ioctl)
 *   peer       lttng_ust_tracepoint() of a byte sequence of that size
 *
 * selftests/bench/lttng_session.sh runs it inside an LTTng session (the
 * session daemon started in the VM, a per-UID channel enabled for the
 * event): the tracepoint must be enabled, or it measures nothing and says
 * so.  Figures and --insns N as in write_bench.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng_bench_tp.h"
#include "icount_marker.h"

#define ROUNDS		5

static int fd;
static unsigned long iters = 100000;
static unsigned long insns_iters;	/* --insns: count, do not time */
static double floor_ns;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "lttng_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

typedef void (*bench_fn)(void *ctx, unsigned long n);

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

static void bench_null(void *ctx, unsigned long n)
{
	while (n--)
		if (ioctl(fd, ETW_IOC_NULL, NULL))
			die("ETW_IOC_NULL");
}

struct lttng_ctx {
	unsigned int len;
	uint8_t payload[512];
};

static void bench_lttng(void *ctx, unsigned long n)
{
	struct lttng_ctx *l = ctx;

	while (n--)
		lttng_ust_tracepoint(etw_bench, payload, l->payload, l->len);
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 16, 64, 512 };
	static struct lttng_ctx l;
	unsigned int i;
	char label[64];

	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/etw");
	if (!lttng_ust_tracepoint_enabled(etw_bench, payload)) {
		/* A heading line: the counting boot's labels stay paired. */
		printf("# lttng-ust: etw_bench:payload is not enabled (no session daemon?)\n");
		return 1;
	}
	printf("# LTTng-UST, per-UID channel, %s\n",
	       insns_iters ? "guest instructions" : "ns per operation");
	report("null ioctl on /dev/etw (floor)", bench_null, NULL);
	memset(l.payload, 0x5a, sizeof(l.payload));
	for (i = 0; i < 3; i++) {
		l.len = sizes[i];
		snprintf(label, sizeof(label), "lttng-ust %3u B (peer)",
			 sizes[i]);
		report(label, bench_lttng, &l);
	}
	return 0;
}
