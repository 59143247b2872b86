// SPDX-License-Identifier: GPL-2.0
/*
 * write_bench: the cost of etw's write path, measured in one run against
 * baselines measured in the same run (Documentation/performance.rst):
 *
 *   floor      ETW_IOC_NULL on /dev/etw (a bare ioctl)
 *   etw        ETW_IOC_WRITE of 16, 64, 512-byte payloads to 1, 2 and 8 sessions
 *   peer       write() of the same payload to ftrace's trace_marker
 *   peer       writev() of the same payload to a user_event of that size,
 *              recorded in a tracefs instance of its own
 *   check      the mapped enable check of a disabled provider
 *   empty      an empty loop iteration
 *
 * Each figure is the best of several rounds (the least disturbed one), in
 * nanoseconds per operation; the ratios are what the targets are about.
 *
 * With --insns N it times nothing: it runs each system call N times
 * between two markers for scripts/icount-plugin.c, which counts the guest
 * instructions in between, and prints one label per marker pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "bench_session.h"
/* After bench_session.h, whose helpers name their file "fd" too. */
#include "bench_loop.h"

#define SESSIONS_MAX	8

#define TRACEFS		"/sys/kernel/tracing"
#define UEV_INSTANCE	TRACEFS "/instances/etwbench"

/*
 * user_events' registration ABI (include/uapi/linux/user_events.h, Linux
 * 6.4 on), which the build host's installed headers may predate.
 */
struct uev_reg {
	__u32 size;
	__u8 enable_bit;
	__u8 enable_size;
	__u16 flags;
	__u64 enable_addr;	/* the kernel sets enable_bit here while on */
	__u64 name_args;
	__u32 write_index;	/* out: leads every write of the event */
} __attribute__((packed));

#define UEV_IOCSREG	_IOWR('*', 0, struct uev_reg *)

static const struct etw_guid bench_guid = {
	0xbe7c0001, 0x1111, 0x2222, { 3, 3, 3, 3, 4, 4, 4, 4 } };

struct write_ctx {
	struct etw_write_args args;
	struct etw_data_descriptor desc;
	char payload[512];
};

static void bench_write(void *ctx, unsigned long n)
{
	struct write_ctx *w = ctx;

	while (n--)
		if (ioctl(fd, ETW_IOC_WRITE, &w->args) && errno != ENOBUFS)
			die("ETW_IOC_WRITE");
}

/*
 * A staging ring (ETW_IOC_BATCH_OPEN) written as a batched writer does:
 * the clock (the TSC where the ring takes it), the header fields a writer
 * sets, the payload, the head; a drain once half of the ring is staged.
 * Each operation pays its share of the drains.
 */
struct staged_ctx {
	int rfd;
	struct etw_batch_ctl *ctl;
	char *ring;
	__u32 mask;
	__u32 clock;
	__u64 word0;		/* size, flags */
	__u64 word1;		/* registration */
	struct etw_event_descriptor desc;
	const char *payload;
	__u32 len;
};

static __u64 staged_time(const struct staged_ctx *b)
{
	struct timespec ts;

#ifdef __x86_64__
	if (b->clock == ETW_BATCH_CLOCK_TSC)
		return __builtin_ia32_rdtsc();
#endif
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void bench_staged(void *ctx, unsigned long n)
{
	struct staged_ctx *b = ctx;
	__u32 rec = (sizeof(struct etw_staged_event) + b->len + 7) & ~7u;
	__u64 head = b->ctl->head;

	b->word0 = sizeof(struct etw_staged_event) + b->len;
	while (n--) {
		/* Pairs with the kernel's release store of tail in its drain. */
		__u64 tail = __atomic_load_n(&b->ctl->tail, __ATOMIC_ACQUIRE);
		__u32 off = head & b->mask, room = b->mask + 1 - off;
		__u64 *h;

		if (room < rec) {
			*(__u64 *)(b->ring + off) = ETW_STAGED_WRAP;
			head += room;
			off = 0;
		}
		if (head + rec - tail > b->mask + 1) {
			/* Full: publish the wrap, drain, go on. */
			__atomic_store_n(&b->ctl->head, head, __ATOMIC_RELEASE);
			if (ioctl(b->rfd, ETW_IOC_BATCH_DRAIN))
				die("ETW_IOC_BATCH_DRAIN");
		}
		h = (__u64 *)(b->ring + off);
		h[0] = b->word0;
		h[1] = b->word1;
		h[2] = staged_time(b);
		memcpy(&h[5], &b->desc, sizeof(b->desc));
		h[8] = 0;		/* the activity ID */
		h[9] = 0;
		memcpy(&h[10], b->payload, b->len);
		head += rec;
		/* Pairs with the kernel's acquire load of head in its drain. */
		__atomic_store_n(&b->ctl->head, head, __ATOMIC_RELEASE);
		if (head - tail > (b->mask + 1) / 2 &&
		    ioctl(b->rfd, ETW_IOC_BATCH_DRAIN))
			die("ETW_IOC_BATCH_DRAIN");
	}
}

static void staged_open(struct staged_ctx *b, __u32 reg_id)
{
	struct etw_batch_args a = { .size = sizeof(a), .flags = O_CLOEXEC,
				    .clock = ETW_BATCH_CLOCK_TSC };
	char *m;

	b->rfd = ioctl(fd, ETW_IOC_BATCH_OPEN, &a);
	if (b->rfd < 0)
		die("ETW_IOC_BATCH_OPEN");
	m = mmap(NULL, a.ctl_size + a.ring_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, b->rfd, 0);
	if (m == MAP_FAILED)
		die("mmap staging ring");
	b->ctl = (struct etw_batch_ctl *)m;
	b->ring = m + a.ctl_size;
	b->mask = a.ring_size - 1;
	b->clock = a.clock;
	b->word1 = reg_id;
	b->desc.level = 4;
	b->desc.keyword = 1;
}

struct marker_ctx {
	int fd;
	size_t len;
	char payload[512];
};

static void bench_marker(void *ctx, unsigned long n)
{
	struct marker_ctx *m = ctx;

	while (n--)
		if (write(m->fd, m->payload, m->len) < 0)
			die("trace_marker");
}

struct uevent_ctx {
	int fd;
	__u32 write_index;
	volatile __u32 enabled;		/* bit 0, written by the kernel */
	struct iovec iov[2];		/* write_index, then the payload */
	char payload[512];
};

static void bench_uevent(void *ctx, unsigned long n)
{
	struct uevent_ctx *u = ctx;

	while (n--) {
		/* As its users do: no system call while nothing records. */
		if (!(u->enabled & 1))
			continue;
		if (writev(u->fd, u->iov, 2) < 0)
			die("user_events_data");
	}
}

static int write_file(const char *path, const char *text)
{
	int f = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (f < 0)
		return -1;
	if (write(f, text, strlen(text)) < 0)
		ret = -1;
	close(f);
	return ret;
}

/*
 * Register etwbench_<size>, a user_event whose payload is @size bytes,
 * and enable it in the benchmark's own tracefs instance: a ring buffer
 * with no reader, the cheapest consumer ftrace has.
 */
static int uevent_setup(struct uevent_ctx *u, int ufd, unsigned int size)
{
	struct uev_reg reg = { .size = sizeof(reg) };
	char args[64], path[128];

	snprintf(args, sizeof(args), "etwbench_%u char[%u] data", size, size);
	reg.enable_size = sizeof(u->enabled);
	reg.enable_addr = (uintptr_t)&u->enabled;
	reg.name_args = (uintptr_t)args;
	if (ioctl(ufd, UEV_IOCSREG, &reg))
		return -1;
	u->fd = ufd;
	u->write_index = reg.write_index;
	u->iov[0].iov_base = &u->write_index;
	u->iov[0].iov_len = sizeof(u->write_index);
	u->iov[1].iov_base = u->payload;
	u->iov[1].iov_len = size;
	memset(u->payload, 'x', sizeof(u->payload));
	snprintf(path, sizeof(path),
		 UEV_INSTANCE "/events/user_events/etwbench_%u/enable", size);
	if (write_file(path, "1"))
		return -1;
	/* Else the loop would time the skipped write of a disabled event. */
	if (!(u->enabled & 1)) {
		fprintf(stderr,
			"write_bench: etwbench_%u: enable bit not set\n", size);
		exit(1);
	}
	return 0;
}

static void uevent_disable(unsigned int size)
{
	char path[128];

	snprintf(path, sizeof(path),
		 UEV_INSTANCE "/events/user_events/etwbench_%u/enable", size);
	write_file(path, "0");
}

/* Events the instance's buffers took: those held plus those overwritten. */
static unsigned long long uevent_recorded(void)
{
	unsigned long long total = 0, v;
	char path[128], line[128];
	FILE *f;
	int cpu;

	for (cpu = 0; ; cpu++) {
		snprintf(path, sizeof(path),
			 UEV_INSTANCE "/per_cpu/cpu%d/stats", cpu);
		f = fopen(path, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "entries: %llu", &v) == 1 ||
			    sscanf(line, "overrun: %llu", &v) == 1)
				total += v;
		fclose(f);
	}
	return total;
}

/* The operations report() runs: warm-up and measured loops. */
static unsigned long report_ops(void)
{
	if (insns_iters)
		return insns_iters / 10 + insns_iters;
	return iters / 10 + ROUNDS * iters;
}

static void bench_uevents(const unsigned int sizes[3])
{
	/* One enable word each: an address and bit serve one event only. */
	static struct uevent_ctx u[3];
	unsigned long long before, landed;
	unsigned int i;
	int ufd;

	ufd = open(TRACEFS "/user_events_data", O_RDWR | O_CLOEXEC);
	if (ufd < 0) {
		/* A heading line: the counting boot's labels stay paired. */
		printf("# user_events: not available (%s)\n", strerror(errno));
		return;
	}
	if (mkdir(UEV_INSTANCE, 0755) && errno != EEXIST)
		die(UEV_INSTANCE);
	for (i = 0; i < 3; i++) {
		char label[64];

		if (uevent_setup(&u[i], ufd, sizes[i]))
			die("user_events registration");
		snprintf(label, sizeof(label), "user_events %3u B (peer)",
			 sizes[i]);
		before = uevent_recorded();
		report(label, bench_uevent, &u[i]);
		landed = uevent_recorded() - before;
		uevent_disable(sizes[i]);
		/* The peer is measured only if every write was recorded. */
		if (landed < report_ops()) {
			fprintf(stderr,
				"write_bench: %s: %llu of %lu recorded\n",
				label, landed, report_ops());
			exit(1);
		}
	}
	close(ufd);
}

struct check_ctx {
	const volatile struct etw_enable_state *state;
	unsigned long hits;
};

/* What follows a passed check: the write, kept out of the loop's line. */
static __attribute__((noinline, cold)) void check_passed(struct check_ctx *c)
{
	c->hits++;
}

static void bench_check(void *ctx, unsigned long n)
{
	struct check_ctx *c = ctx;
	/* A provider's state address is a constant or sits in a register. */
	const volatile struct etw_enable_state *state = c->state;

	while (n--) {
		/* What EventEnabled does for a disabled provider: one load. */
		if (state->enabled)
			check_passed(c);
		__asm__ volatile("" ::: "memory");
	}
}

static void bench_empty(void *ctx, unsigned long n)
{
	while (n--)
		__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 16, 64, 512 };
	/* Two as well: 8 less 2 over 6 is what each further session costs. */
	static const unsigned int nsessions[] = { 1, 2, SESSIONS_MAX };
	struct etw_register_args reg = { .size = sizeof(reg), .guid = bench_guid };
	static struct write_ctx w;
	static struct marker_ctx m;
	static struct staged_ctx b;
	struct etw_info info = { .size = sizeof(info) };
	struct check_ctx c = { 0 };
	__u32 ids[SESSIONS_MAX];
	double check_ns, empty_ns;
	const struct etw_enable_state *map;
	unsigned int i, n, s;

	bench_args(argc, argv);
	fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("/dev/etw");
	if (ioctl(fd, ETW_IOC_GET_INFO, &info) || ioctl(fd, ETW_IOC_REGISTER, &reg))
		die("setup");
	map = mmap(NULL, info.enable_map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	m.fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY | O_CLOEXEC);
	memset(w.payload, 'x', sizeof(w.payload));
	memset(m.payload, 'x', sizeof(m.payload));
	w.args.size = sizeof(w.args);
	w.args.reg_id = reg.reg_id;
	w.args.descriptor.level = 4;
	w.args.descriptor.keyword = 1;
	w.args.data_count = 1;
	w.args.data_ptr = (uintptr_t)&w.desc;
	w.desc.ptr = (uintptr_t)w.payload;

	if (!insns_iters)
		printf("# etw write path, %lu operations per round, best of %d "
		       "rounds, %ld CPUs\n", iters, ROUNDS,
		       sysconf(_SC_NPROCESSORS_ONLN));
	report("null ioctl (floor)", bench_null, NULL);
	/* After the floor: every other ioctl of this thread drains the ring. */
	staged_open(&b, reg.reg_id);
	b.payload = w.payload;

	for (i = 0; i < SESSIONS_MAX; i++) {
		char name[32];

		snprintf(name, sizeof(name), "write-bench-%d", i);
		/* A flight recorder: no consumer needed, buffers are reused. */
		ids[i] = bench_start_session(fd, name, ETW_MODE_BUFFERING);
	}
	for (n = 0; n < 3; n++) {
		s = nsessions[n];
		for (i = 0; i < SESSIONS_MAX; i++)
			bench_enable(fd, ids[i], &bench_guid,
				     i < s ? ETW_CONTROL_ENABLE :
					     ETW_CONTROL_DISABLE, 0);
		for (i = 0; i < 3; i++) {
			char label[64];

			w.desc.size = sizeof(w.payload) < sizes[i] ?
				      sizeof(w.payload) : sizes[i];
			snprintf(label, sizeof(label), "write %3u B to %u session%s",
				 sizes[i], s, s > 1 ? "s" : "");
			report(label, bench_write, &w);
			if (s != 1)
				continue;
			b.len = w.desc.size;
			snprintf(label, sizeof(label),
				 "staged %3u B to 1 session (batched)", sizes[i]);
			report(label, bench_staged, &b);
		}
	}
	for (i = 0; i < SESSIONS_MAX; i++)
		bench_stop_session(fd, ids[i]);

	if (m.fd >= 0) {
		for (i = 0; i < 3; i++) {
			char label[64];

			m.len = sizes[i];
			snprintf(label, sizeof(label), "trace_marker %3u B (peer)",
				 sizes[i]);
			report(label, bench_marker, &m);
		}
	} else {
		printf("trace_marker: not available (%s)\n", strerror(errno));
	}
	bench_uevents(sizes);

	/* The enable check makes no system call: nothing to count. */
	if (insns_iters)
		return 0;
	c.state = &map[reg.enable_index];
	empty_ns = measure(bench_empty, NULL, iters * 100);
	check_ns = measure(bench_check, &c, iters * 100);
	printf("%-34s %9.2f ns\n", "empty loop iteration", empty_ns);
	printf("%-34s %9.2f ns   %.2fx empty\n", "disabled enable check", check_ns,
	       check_ns / empty_ns);
	return c.hits ? 1 : 0;
}
