// SPDX-License-Identifier: GPL-2.0
/*
 * ext_items_bench: what the extended items enable properties add cost a
 * 16-byte write to one session (Documentation/performance.rst):
 *
 *   base       no property (the write path every other write takes)
 *   ids        SID, TS_ID, PROCESS_START_KEY and EVENT_KEY
 *   stack      STACK_TRACE, the write made 14 calls deep: the user stack
 *              walked through frame pointers holds the ioctl's address,
 *              14 returns and main's, 16 frames (the count is read back
 *              from one record and printed)
 *
 * Built with frame pointers (Makefile).  Each figure is the best of
 * several rounds in nanoseconds per operation; with --insns N it times
 * nothing and runs each case N times between two markers for
 * scripts/icount-plugin.c, printing one label per marker pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "bench_session.h"
#include "icount_marker.h"

#define ROUNDS		5
#define DEPTH		14

static const struct etw_guid bench_guid = {
	0xbe7c0002, 0x1111, 0x2222, { 3, 3, 3, 3, 4, 4, 4, 5 } };

static int fd;
static unsigned long iters = 100000;
static unsigned long insns_iters;	/* --insns: count, do not time */
static double base_ns;
static struct etw_write_args args;

static void die(const char *what)
{
	fprintf(stderr, "ext_items_bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* @n writes, from @depth calls below here. */
static __attribute__((noinline)) void writes(unsigned long n, int depth)
{
	if (depth > 1) {
		writes(n, depth - 1);
		__asm__ volatile("" ::: "memory");	/* no tail call */
		return;
	}
	while (n--)
		if (ioctl(fd, ETW_IOC_WRITE, &args) && errno != ENOBUFS)
			die("ETW_IOC_WRITE");
}

static void report(const char *label, int depth)
{
	double best = 0, t, t0;
	int r;

	writes((insns_iters ?: iters) / 10, depth);	/* warm up */
	if (insns_iters) {
		icount_marker();
		writes(insns_iters, depth);
		icount_marker();
		printf("%s\n", label);
		return;
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_ns();
		writes(iters, depth);
		t = (now_ns() - t0) / iters;
		if (!r || t < best)
			best = t;
	}
	if (!base_ns)
		base_ns = best;
	printf("%-40s %9.1f ns   %.2fx\n", label, best, best / base_ns);
}

/* Frames of one stack written from @depth calls down: 0 when none. */
static unsigned int frames_at(int depth)
{
	struct etw_consume_args c = { .size = sizeof(c), .flags = O_CLOEXEC };
	static char buf[64 * 1024];
	const struct etw_event_header *h = (const void *)
					   (buf + ETW_BUFFER_HEADER_SIZE);
	const struct etw_ext_item *it = (const void *)(h + 1);
	__u32 id = bench_start_session(fd, "ext-items-bench-probe",
				       ETW_MODE_NO_PER_PROCESSOR);
	int cfd;

	c.logger_id = id;
	cfd = ioctl(fd, ETW_IOC_CONSUME, &c);
	if (cfd < 0)
		die("ETW_IOC_CONSUME");
	bench_enable(fd, id, &bench_guid, ETW_CONTROL_ENABLE,
		     ETW_ENABLE_STACK_TRACE);
	writes(1, depth);
	bench_stop_session(fd, id);
	if (read(cfd, buf, sizeof(buf)) != sizeof(buf))
		die("read");
	close(cfd);
	if (!(h->flags & ETW_EVENT_FLAG_EXTENDED_INFO) ||
	    it->ext_type != ETW_EXT_STACK_TRACE64)
		return 0;
	return (it->data_size - 8) / 8;
}

int main(int argc, char **argv)
{
	struct etw_register_args reg = { .size = sizeof(reg),
					 .guid = bench_guid };
	static char payload[16];
	struct etw_data_descriptor d = { .ptr = (uintptr_t)payload,
					 .size = sizeof(payload) };
	char label[64];
	__u32 id;

	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/etw");
	if (ioctl(fd, ETW_IOC_REGISTER, &reg))
		die("ETW_IOC_REGISTER");
	args.size = sizeof(args);
	args.reg_id = reg.reg_id;
	args.descriptor.level = 4;
	args.descriptor.keyword = 1;
	args.data_count = 1;
	args.data_ptr = (uintptr_t)&d;
	snprintf(label, sizeof(label), "write 16 B + stack (%u frames)",
		 frames_at(DEPTH));

	if (!insns_iters)
		printf("# extended items on a 16 B write to 1 session, %lu "
		       "operations per round, best of %d rounds\n", iters,
		       ROUNDS);
	/* A flight recorder: no consumer needed, buffers are reused. */
	id = bench_start_session(fd, "ext-items-bench", ETW_MODE_BUFFERING);
	bench_enable(fd, id, &bench_guid, ETW_CONTROL_ENABLE, 0);
	report("write 16 B, no property (base)", DEPTH);
	bench_enable(fd, id, &bench_guid, ETW_CONTROL_ENABLE,
		     ETW_ENABLE_SID | ETW_ENABLE_TS_ID |
		     ETW_ENABLE_PROCESS_START_KEY | ETW_ENABLE_EVENT_KEY);
	report("write 16 B + SID, TS_ID, PSK, EVENT_KEY", DEPTH);
	bench_enable(fd, id, &bench_guid, ETW_CONTROL_ENABLE,
		     ETW_ENABLE_STACK_TRACE);
	report(label, DEPTH);
	bench_stop_session(fd, id);
	return 0;
}
