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
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "lttng_bench_tp.h"
#include "bench_loop.h"

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

	bench_args(argc, argv);
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
