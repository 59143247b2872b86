// SPDX-License-Identifier: GPL-2.0
/*
 * libetw_bench: what libetw adds to the kernel's cost, each figure against
 * a baseline measured in the same run (Documentation/performance.rst):
 *
 *   enabled    EventEnabled of a disabled provider vs the same loop with a
 *              load of a local volatile in place of the call; likewise a
 *              TraceLoggingWrite of a disabled TraceLogging provider
 *   activity   EventActivityIdControl(CREATE_ID) vs a getpid() system call
 *   write      EventWrite vs the ETW_IOC_WRITE it wraps, same payload,
 *              same session; and EventEnabled of the enabled provider,
 *              the check EventWrite makes first; TraceLoggingWrite of
 *              a fixed array of the same size vs EventWrite, and vs
 *              EventWrite of the same record (its three descriptors
 *              with their types); EventWrite of the three as plain payload;
 *              batched EventWrite (EtwSetBatchedWrites) vs the same ioctl,
 *              after every other write figure: once a process switched
 *              batching on, its direct writes take another path
 *   consume    ProcessTrace over an .etl file vs read() of the same file
 *
 * With --insns N it times nothing: it runs the write pair N times each
 * between two markers for scripts/icount-plugin.c, which counts the guest
 * instructions in between, and prints one label per marker pair.
 *
 * Paired figures are measured in alternating rounds, and each is the best
 * of its rounds (the least disturbed one), so that a disturbance in the
 * machine does not land on one side of a ratio only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/etw.h>

#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"
#include "evntcons.h"
#include "TraceLoggingProvider.h"

#include "icount_marker.h"

#define ROUNDS		5
#define PAYLOAD_MAX	512
#define PAYLOAD		64	/* of the events in the file */
#define READ_CHUNK	(64 * 1024)
#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 256)
#define ETL_PATH	"/tmp/libetw-bench.etl"

/* Enabled by the benchmark's sessions. */
static const GUID bench_guid = { 0xbe7c0002, 0x1111, 0x2222,
	{ 3, 3, 3, 3, 4, 4, 4, 5 } };
/* Registered, never enabled. */
static const GUID idle_guid = { 0xbe7c0003, 0x1111, 0x2222,
	{ 3, 3, 3, 3, 4, 4, 4, 6 } };

/* The same two GUIDs as TraceLogging providers. */
TRACELOGGING_DEFINE_PROVIDER(tlg_bench, "Etw-Bench-TraceLogging",
	(0xbe7c0002, 0x1111, 0x2222, 3, 3, 3, 3, 4, 4, 4, 5));
TRACELOGGING_DEFINE_PROVIDER(tlg_idle, "Etw-Bench-TraceLogging-Idle",
	(0xbe7c0003, 0x1111, 0x2222, 3, 3, 3, 3, 4, 4, 4, 6));

static unsigned long iters = 100000;
static unsigned long insns_iters;	/* --insns: count, do not time */

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[1024];
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, unsigned long err)
{
	fprintf(stderr, "libetw_bench: %s: %lu (%s)\n", what, err,
		strerror(errno));
	exit(1);
}

typedef void (*bench_fn)(void *ctx, unsigned long n);

struct bench {
	bench_fn fn;
	void *ctx;
	double best;	/* ns per operation */
};

/*
 * Run @a and @b in alternating rounds of @n operations each and keep the
 * best time per operation of each.
 */
static void measure_pair(struct bench *a, struct bench *b, unsigned long n)
{
	struct bench *side[2] = { a, b };
	int r, i;

	for (i = 0; i < 2; i++)		/* warm up */
		side[i]->fn(side[i]->ctx, n >= 10 ? n / 10 : 1);
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 2; i++) {
			double t0 = now_ns(), t;

			side[i]->fn(side[i]->ctx, n);
			t = (now_ns() - t0) / n;
			if (!r || t < side[i]->best)
				side[i]->best = t;
		}
	}
}

/* Run @b between two markers, after a warm-up, and print @label. */
static void count_insns(struct bench *b, const char *label)
{
	b->fn(b->ctx, insns_iters / 10);
	icount_marker();
	b->fn(b->ctx, insns_iters);
	icount_marker();
	printf("%s\n", label);
}

/* --- EventEnabled -------------------------------------------------------- */

struct enabled_ctx {
	REGHANDLE h;
	EVENT_DESCRIPTOR desc;
	unsigned long hits;
};

/* The two loops differ only in the condition of the if. */
static void bench_enabled(void *ctx, unsigned long n)
{
	struct enabled_ctx *c = ctx;

	while (n--)
		if (EventEnabled(c->h, &c->desc))
			c->hits++;
}

static void bench_volatile(void *ctx, unsigned long n)
{
	struct enabled_ctx *c = ctx;
	volatile BOOLEAN off = FALSE;

	while (n--)
		if (off)
			c->hits++;
}

/* What one out-of-line call costs, for scale: the volatile load inside. */
static __attribute__((noinline)) BOOLEAN empty_fn(volatile BOOLEAN *off)
{
	return *off;
}

static BOOLEAN (*volatile empty_call)(volatile BOOLEAN *) = empty_fn;

static void bench_call(void *ctx, unsigned long n)
{
	struct enabled_ctx *c = ctx;
	volatile BOOLEAN off = FALSE;

	while (n--)
		if (empty_call(&off))
			c->hits++;
}

/* Nothing but the enable check runs: the arguments are not evaluated. */
static void bench_tlg_disabled(void *ctx, unsigned long n)
{
	struct enabled_ctx *c = ctx;

	while (n--)
		TraceLoggingWrite(tlg_idle, "Idle", TraceLoggingLevel(4),
				  TraceLoggingKeyword(1),
				  TraceLoggingUInt64(++c->hits, "hits"));
}

static void report_tlg_disabled(struct bench *base, struct enabled_ctx *c)
{
	struct bench tlg = { .fn = bench_tlg_disabled, .ctx = c };
	HRESULT hr = TraceLoggingRegister(tlg_idle);

	if (hr)
		die("TraceLoggingRegister", (ULONG)hr);
	if (TraceLoggingProviderEnabled(tlg_idle, 4, 1))
		die("idle TraceLogging provider is enabled", 0);
	measure_pair(base, &tlg, iters * 100);
	printf("%-40s %9.2f ns   %.2fx\n",
	       "TraceLoggingWrite, disabled provider", tlg.best,
	       tlg.best / base->best);
	if (c->hits)
		die("a disabled TraceLoggingWrite evaluated its arguments", 0);
	TraceLoggingUnregister(tlg_idle);
}

static void report_enabled(void)
{
	struct enabled_ctx c = { .desc = { .Level = 4, .Keyword = 1 } };
	struct bench call = { .fn = bench_enabled, .ctx = &c };
	struct bench base = { .fn = bench_volatile, .ctx = &c };
	struct bench empty = { .fn = bench_call, .ctx = &c };
	ULONG err = EventRegister(&idle_guid, NULL, NULL, &c.h);

	if (err)
		die("EventRegister", err);
	if (EventEnabled(c.h, &c.desc))
		die("idle provider is enabled", 0);
	measure_pair(&base, &call, iters * 100);
	printf("%-40s %9.2f ns   1.00x\n", "loop with a volatile load (base)",
	       base.best);
	printf("%-40s %9.2f ns   %.2fx\n", "EventEnabled, disabled provider",
	       call.best, call.best / base.best);
	measure_pair(&base, &empty, iters * 100);
	printf("%-40s %9.2f ns   %.2fx\n", "indirect call of an empty function",
	       empty.best, empty.best / base.best);
	if (c.hits)
		die("EventEnabled of a disabled provider returned TRUE", 0);
	EventUnregister(c.h);
	report_tlg_disabled(&base, &c);
}

/* The check EventWrite makes first, with the provider enabled. */
static void report_enabled_check(REGHANDLE h)
{
	struct enabled_ctx c = { .h = h, .desc = { .Level = 4, .Keyword = 1 } };
	struct bench call = { .fn = bench_enabled, .ctx = &c };
	struct bench base = { .fn = bench_volatile, .ctx = &c };

	measure_pair(&base, &call, iters * 10);
	printf("%-40s %9.2f ns   %.2fx volatile load\n",
	       "EventEnabled, enabled provider", call.best,
	       call.best / base.best);
}

/* --- EventActivityIdControl ---------------------------------------------- */

static void bench_create_id(void *ctx, unsigned long n)
{
	GUID *id = ctx;

	while (n--)
		if (EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, id))
			die("EventActivityIdControl", 0);
}

static void bench_getpid(void *ctx, unsigned long n)
{
	pid_t *pid = ctx;

	/* glibc has not cached getpid() since 2.25: one system call each. */
	while (n--)
		*pid = getpid();
}

static void report_activity(void)
{
	GUID id;
	pid_t pid;
	struct bench create = { .fn = bench_create_id, .ctx = &id };
	struct bench sys = { .fn = bench_getpid, .ctx = &pid };

	measure_pair(&sys, &create, iters);
	printf("%-40s %9.1f ns   1.00x\n", "getpid() system call (base)",
	       sys.best);
	printf("%-40s %9.1f ns   %.2fx\n", "EventActivityIdControl CREATE_ID",
	       create.best, create.best / sys.best);
}

/* --- EventWrite vs ETW_IOC_WRITE ----------------------------------------- */

static void props_init(struct props *b, ULONG mode)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.LogFileMode = mode;
	b->p.LoggerNameOffset = NAME_OFF;
}

static CONTROLTRACE_ID start_session(const char *name, struct props *b)
{
	CONTROLTRACE_ID h;
	ULONG err = StartTraceA(&h, name, &b->p);

	if (err)
		die(name, err);
	err = EnableTraceEx2(h, &bench_guid,
			     EVENT_CONTROL_CODE_ENABLE_PROVIDER,
			     TRACE_LEVEL_VERBOSE, 0, 0, 0, NULL);
	if (err)
		die("EnableTraceEx2", err);
	return h;
}

/* StopTrace; returns the events the session lost. */
static ULONG stop_session(const char *name)
{
	struct props b;
	ULONG err;

	props_init(&b, 0);
	err = StopTraceA(0, name, &b.p);
	if (err)
		die("StopTrace", err);
	return b.p.EventsLost;
}

struct event_write_ctx {
	REGHANDLE h;
	EVENT_DESCRIPTOR desc;
	EVENT_DATA_DESCRIPTOR data;
};

static void bench_event_write(void *ctx, unsigned long n)
{
	struct event_write_ctx *w = ctx;
	ULONG err;

	while (n--) {
		err = EventWrite(w->h, &w->desc, 1, &w->data);
		if (err)
			die("EventWrite", err);
	}
}

/*
 * The same loop in batched mode: the events stage in the thread's ring,
 * which the kernel drains when half of it is used.  Switched on for the
 * loop only; then one direct write, which has the kernel route what is
 * still staged first, so that a round pays for all of its events and
 * the next starts with an empty ring.
 */
static void bench_event_write_batched(void *ctx, unsigned long n)
{
	EtwSetBatchedWrites(TRUE);
	bench_event_write(ctx, n);
	EtwSetBatchedWrites(FALSE);
	bench_event_write(ctx, 1);
}

/*
 * EventWrite with TraceLoggingWrite's three descriptors as plain payload:
 * what the descriptor count costs apart from the extended items.  With
 * their types (provider traits, event metadata) it writes the record
 * TraceLoggingWrite writes: what the macros cost over EventWrite.
 */
struct event_write3_ctx {
	REGHANDLE h;
	EVENT_DESCRIPTOR desc;
	EVENT_DATA_DESCRIPTOR data[3];
};

static void bench_event_write3(void *ctx, unsigned long n)
{
	struct event_write3_ctx *w = ctx;
	ULONG err;

	while (n--) {
		err = EventWrite(w->h, &w->desc, 3, w->data);
		if (err)
			die("EventWrite", err);
	}
}

struct tlg_write_ctx {
	const UINT8 *data;
	unsigned int size;
};

/* The payload as one fixed-count field: one payload descriptor. */
static void bench_tlg_write(void *ctx, unsigned long n)
{
	struct tlg_write_ctx *w = ctx;

	while (n--) {
		if (w->size == 16)
			TraceLoggingWrite(tlg_bench, "Bench",
				TraceLoggingLevel(4), TraceLoggingKeyword(1),
				TraceLoggingUInt8FixedArray(w->data, 16,
							    "data"));
		else if (w->size == 64)
			TraceLoggingWrite(tlg_bench, "Bench",
				TraceLoggingLevel(4), TraceLoggingKeyword(1),
				TraceLoggingUInt8FixedArray(w->data, 64,
							    "data"));
		else
			TraceLoggingWrite(tlg_bench, "Bench",
				TraceLoggingLevel(4), TraceLoggingKeyword(1),
				TraceLoggingUInt8FixedArray(w->data, 512,
							    "data"));
	}
}

struct ioctl_write_ctx {
	int fd;
	struct etw_write_args args;
	struct etw_data_descriptor desc;
};

static void bench_ioctl_write(void *ctx, unsigned long n)
{
	struct ioctl_write_ctx *w = ctx;

	while (n--)
		if (ioctl(w->fd, ETW_IOC_WRITE, &w->args))
			die("ETW_IOC_WRITE", 0);
}

/* The raw writer: a registration of the same provider on its own file. */
static void raw_writer_init(struct ioctl_write_ctx *w, const void *payload)
{
	struct etw_register_args reg = { .size = sizeof(reg) };

	w->fd = open("/dev/etw", O_RDWR | O_CLOEXEC);
	memcpy(&reg.guid, &bench_guid, sizeof(reg.guid));
	if (w->fd < 0 || ioctl(w->fd, ETW_IOC_REGISTER, &reg))
		die("raw registration", 0);
	w->args.size = sizeof(w->args);
	w->args.reg_id = reg.reg_id;
	w->args.descriptor.level = 4;
	w->args.descriptor.keyword = 1;
	w->args.data_count = 1;
	w->args.data_ptr = (uintptr_t)&w->desc;
	w->desc.ptr = (uintptr_t)payload;
}

/* The payload sizes of the write figures. */
static const unsigned int write_sizes[] = { 16, 64, 512 };

/*
 * Batched EventWrite against the ioctl, as EventWrite is above (compare
 * the two ratios): last, since switching batching on sends the process's
 * later direct writes another way (Documentation/libetw.rst).
 */
static void report_batched(struct ioctl_write_ctx *raw,
			   struct event_write_ctx *lib, const char *payload)
{
	struct bench a = { .fn = bench_ioctl_write, .ctx = raw };
	struct bench bb = { .fn = bench_event_write_batched, .ctx = lib };
	char base_label[64], label[64];
	unsigned int i;

	printf("# batched EventWrite vs the ioctl EventWrite wraps%s\n",
	       insns_iters ? ", in guest instructions per operation" : "");
	for (i = 0; i < sizeof(write_sizes) / sizeof(write_sizes[0]); i++) {
		raw->desc.size = write_sizes[i];
		EventDataDescCreate(&lib->data, payload, write_sizes[i]);
		snprintf(base_label, sizeof(base_label),
			 "ETW_IOC_WRITE %3u B (base)", write_sizes[i]);
		snprintf(label, sizeof(label), "EventWrite batched %3u B",
			 write_sizes[i]);
		if (insns_iters) {
			count_insns(&a, base_label);
			count_insns(&bb, label);
			continue;
		}
		measure_pair(&a, &bb, iters);
		printf("%-40s %9.1f ns   1.00x\n", base_label, a.best);
		printf("%-40s %9.1f ns   %.2fx\n", label, bb.best,
		       bb.best / a.best);
	}
}

static void report_write(void)
{
	static const char session[] = "libetw-bench-write";
	static char payload[PAYLOAD_MAX];
	struct event_write_ctx lib = { .desc = { .Level = 4, .Keyword = 1 } };
	struct ioctl_write_ctx raw = { 0 };
	struct bench a = { .fn = bench_ioctl_write, .ctx = &raw };
	struct bench b = { .fn = bench_event_write, .ctx = &lib };
	struct tlg_write_ctx tw = { .data = (const UINT8 *)payload };
	struct bench t = { .fn = bench_tlg_write, .ctx = &tw };
	struct event_write3_ctx lib3 = { .desc = { .Level = 4, .Keyword = 1 } };
	struct bench b3 = { .fn = bench_event_write3, .ctx = &lib3 };
	struct event_write3_ctx lib3t;
	BOOLEAN use_types = TRUE;
	struct bench b3t = { .fn = bench_event_write3, .ctx = &lib3t };
	/* The Bench event's metadata: size, tags, names, InType, count. */
	const ULONG meta_size = 2 + 1 + sizeof("Bench") + sizeof("data") + 1 +
				2;
	struct props p;
	ULONG err;
	unsigned int i;

	memset(payload, 'x', sizeof(payload));
	/* A flight recorder: no consumer competes for the CPU. */
	props_init(&p, EVENT_TRACE_BUFFERING_MODE);
	p.p.BufferSize = 64;
	p.p.MinimumBuffers = 8;
	start_session(session, &p);
	err = EventRegister(&bench_guid, NULL, NULL, &lib.h);
	if (err)
		die("EventRegister", err);
	if (!EventEnabled(lib.h, &lib.desc))
		die("the session does not enable the provider", 0);
	raw_writer_init(&raw, payload);
	if (TraceLoggingRegister(tlg_bench) ||
	    !TraceLoggingProviderEnabled(tlg_bench, 4, 1))
		die("the session does not enable the TraceLogging provider", 0);
	lib3.h = lib.h;
	lib3t = lib3;
	/* Types count only where the provider asked, as on Windows. */
	err = EventRegister(&bench_guid, NULL, NULL, &lib3t.h) ?:
	      EventSetInformation(lib3t.h, EventProviderUseDescriptorType,
				  &use_types, sizeof(use_types));
	if (err)
		die("EventRegister with descriptor types", err);
	EventDataDescCreate(&lib3.data[0], payload,
			    etw_tlg_le16(tlg_bench->Traits));
	EventDataDescCreate(&lib3.data[1], payload, meta_size);
	if (!insns_iters)
		report_enabled_check(lib.h);
	for (i = 0; i < sizeof(write_sizes) / sizeof(write_sizes[0]); i++) {
		char base_label[64], label[64], tlg_label[64], label3[64];
		char label3t[64];

		raw.desc.size = write_sizes[i];
		EventDataDescCreate(&lib.data, payload, write_sizes[i]);
		EventDataDescCreate(&lib3.data[2], payload, write_sizes[i]);
		memcpy(lib3t.data, lib3.data, sizeof(lib3.data));
		lib3t.data[0].Type = EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA;
		lib3t.data[1].Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
		tw.size = write_sizes[i];
		snprintf(base_label, sizeof(base_label),
			 "ETW_IOC_WRITE %3u B (base)", write_sizes[i]);
		snprintf(label, sizeof(label), "EventWrite %3u B",
			 write_sizes[i]);
		snprintf(tlg_label, sizeof(tlg_label),
			 "TraceLoggingWrite %3u B", write_sizes[i]);
		snprintf(label3, sizeof(label3),
			 "EventWrite 3 descriptors %3u B", write_sizes[i]);
		snprintf(label3t, sizeof(label3t),
			 "EventWrite, TraceLogging record %3u B",
			 write_sizes[i]);
		if (insns_iters) {
			count_insns(&a, base_label);
			count_insns(&b, label);
			count_insns(&b3, label3);
			count_insns(&b3t, label3t);
			count_insns(&t, tlg_label);
			continue;
		}
		measure_pair(&a, &b, iters);
		printf("%-40s %9.1f ns   1.00x\n", base_label, a.best);
		printf("%-40s %9.1f ns   %.2fx\n", label, b.best,
		       b.best / a.best);
		/* Against EventWrite, in rounds of their own. */
		measure_pair(&b, &t, iters);
		printf("%-40s %9.1f ns   %.2fx EventWrite (%.1f ns)\n",
		       tlg_label, t.best, t.best / b.best, b.best);
		measure_pair(&b, &b3, iters);
		printf("%-40s %9.1f ns   %.2fx EventWrite (%.1f ns)\n",
		       label3, b3.best, b3.best / b.best, b.best);
		/* TraceLoggingWrite against EventWrite of the same record. */
		measure_pair(&b3t, &t, iters);
		printf("%-40s %9.1f ns   %.2fx EventWrite of its record (%.1f ns)\n",
		       tlg_label, t.best, t.best / b3t.best, b3t.best);
	}
	report_batched(&raw, &lib, payload);
	TraceLoggingUnregister(tlg_bench);
	EventUnregister(lib3t.h);
	EventUnregister(lib.h);
	close(raw.fd);
	stop_session(session);
}

/* --- ProcessTrace over a file vs read() ---------------------------------- */

struct consume_ctx {
	unsigned long events;
	unsigned long long bytes;
};

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	struct consume_ctx *c = r->UserContext;

	if (!memcmp(&r->EventHeader.ProviderId, &bench_guid, sizeof(GUID))) {
		c->events++;
		c->bytes += r->UserDataLength;
	}
}

static void bench_process_trace(void *ctx, unsigned long n)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	ULONG err;

	while (n--) {
		memset(&lf, 0, sizeof(lf));
		lf.LogFileName = (LPSTR)ETL_PATH;
		lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
		lf.EventRecordCallback = on_record;
		lf.Context = ctx;
		h = OpenTraceA(&lf);
		if (h == INVALID_PROCESSTRACE_HANDLE)
			die("OpenTrace", GetLastError());
		err = ProcessTrace(&h, 1, NULL, NULL);
		if (err)
			die("ProcessTrace", err);
		CloseTrace(h);
	}
}

static void bench_read(void *ctx, unsigned long n)
{
	unsigned long long *total = ctx;
	static char buf[READ_CHUNK];
	ssize_t r;
	int fd;

	while (n--) {
		fd = open(ETL_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(ETL_PATH, 0);
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			*total += r;
		if (r < 0)
			die("read", 0);
		close(fd);
	}
}

/*
 * A sequential file of @events 64-byte events, written by EventWrite.
 * Returns the events in it: those the session did not lose.
 */
static unsigned long make_file(unsigned long events)
{
	static const char session[] = "libetw-bench-file";
	struct event_write_ctx w = { .desc = { .Level = 4, .Keyword = 1 } };
	static char payload[PAYLOAD];
	struct props p;
	ULONG err, lost;

	unlink(ETL_PATH);
	props_init(&p, EVENT_TRACE_FILE_MODE_SEQUENTIAL);
	/* Enough buffers that the file logger never falls behind. */
	p.p.BufferSize = 64;
	p.p.MaximumBuffers = 256;
	p.p.LogFileNameOffset = FILE_OFF;
	strcpy((char *)&p + FILE_OFF, ETL_PATH);
	start_session(session, &p);
	err = EventRegister(&bench_guid, NULL, NULL, &w.h);
	if (err)
		die("EventRegister", err);
	EventDataDescCreate(&w.data, payload, sizeof(payload));
	bench_event_write(&w, events);
	EventUnregister(w.h);
	lost = stop_session(session);
	if (lost)
		printf("# the file session lost %lu events\n",
		       (unsigned long)lost);
	return events - lost;
}

static void report_consume(void)
{
	unsigned long long read_bytes = 0;
	struct consume_ctx c = { 0 };
	struct bench pt = { .fn = bench_process_trace, .ctx = &c };
	struct bench rd = { .fn = bench_read, .ctx = &read_bytes };
	unsigned long rounds = ROUNDS + 1;	/* and one warm-up round */
	unsigned long events = make_file(iters);
	struct stat st;
	double mb;

	if (stat(ETL_PATH, &st))
		die(ETL_PATH, 0);
	/* One file per operation. */
	measure_pair(&rd, &pt, 1);
	if (c.events != events * rounds || c.bytes != c.events * PAYLOAD ||
	    read_bytes != (unsigned long long)st.st_size * rounds)
		die("ProcessTrace or read() saw a different file", c.events);
	mb = st.st_size / 1e6;
	printf("# %lu events of %d B in a %.1f MB file\n", events, PAYLOAD,
	       mb);
	printf("%-40s %9.0f ev/s %7.1f MB/s   1.00x\n",
	       "read() of the file (base)", events / rd.best * 1e9,
	       mb / rd.best * 1e9);
	printf("%-40s %9.0f ev/s %7.1f MB/s   %.2fx\n",
	       "ProcessTrace of the file", events / pt.best * 1e9,
	       mb / pt.best * 1e9, pt.best / rd.best);
	unlink(ETL_PATH);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--insns"))
		insns_iters = strtoul(argv[2], NULL, 0);
	else if (argc > 1)
		iters = strtoul(argv[1], NULL, 0);
	if (!iters)
		iters = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (insns_iters) {
		report_write();
		return 0;
	}
	printf("# libetw, %lu operations per round (x100 for EventEnabled), "
	       "best of %d alternating rounds, %ld CPUs\n", iters, ROUNDS,
	       sysconf(_SC_NPROCESSORS_ONLN));
	report_enabled();
	report_activity();
	report_write();
	report_consume();
	return 0;
}
