// SPDX-License-Identifier: GPL-2.0
/*
 * decode_bench: how fast an ETL file of TraceLogging events is read and
 * decoded on the host, run by `make bench-host` (scripts/bench-host.sh,
 * Documentation/performance.rst "Host decoding").
 *
 *   decode_bench gen FILE EVENTS     write EVENTS TraceLogging events
 *   decode_bench MODE FILE           one pass of MODE (for callgrind)
 *   decode_bench table FILE ETWCTL   every mode, best of BENCH_ROUNDS
 *
 * The modes: read (the file with read(), the baseline), process
 * (ProcessTrace, empty callback), tdh (ProcessTrace,
 * TdhGetEventInformation and TdhFormatProperty of every property),
 * stats (ETWCTL stats FILE > /dev/null), dump, dump-json and dump-csv
 * (ETWCTL dump [--format json|csv] FILE > /dev/null), and for a file with
 * CPU samples speedscope (ETWCTL export --format speedscope -o /dev/null
 * FILE), its rates per SampledProfile record.  Each pass runs in a child,
 * so its peak RSS is its own.
 *
 * The generated file is what a TraceLogging provider writes through the
 * kernel: 64 KiB buffers of two CPUs, EVENT_HEADER64 records with the
 * provider traits and event schema items, three event shapes of a few
 * integers, a string and a GUID.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <windows.h>
#include <evntrace.h>
#include <evntcons.h>
#include <tdh.h>
#include <TraceLoggingProvider.h>

#include "etl_test.h"

#define BENCH_BS	65536
#define BENCH_CPUS	2
#define BENCH_ROUNDS	5

/* --- the file ------------------------------------------------------------ */

static const char bench_traits[] = "\x11\0" "Bench.Provider";

/* Metadata blobs: UINT16 size, tag byte, name, then name and InType. */
#define FIELD(name, in) name "\0" in
static const char meta_request[] =
	"\0" "Request\0" FIELD("Id", "\x07") FIELD("Bytes", "\x0a")
	FIELD("Flags", "\x14") FIELD("Path", "\x02") FIELD("Activity", "\x0f");
static const char meta_response[] =
	"\0" "Response\0" FIELD("Status", "\x08") FIELD("Elapsed", "\x09")
	FIELD("Name", "\x02") FIELD("Session", "\x0f");
static const char meta_tick[] =
	"\0" "Tick\0" FIELD("Count", "\x08") FIELD("Value", "\x07")
	FIELD("Label", "\x02") FIELD("Id", "\x0f");

struct bench_shape {
	const char *meta;
	size_t len;		/* without the size prefix */
};

static const struct bench_shape bench_shapes[] = {
	{ meta_request, sizeof(meta_request) - 1 },
	{ meta_response, sizeof(meta_response) - 1 },
	{ meta_tick, sizeof(meta_tick) - 1 },
};

static const struct etw_guid bench_provider = {
	0x3970f9cf, 0x2c0c, 0x4f11,
	{ 0xb1, 0xcc, 0xe3, 0xa1, 0xe9, 0x58, 0x83, 0x3d }
};

static uint8_t *bench_put_ext(uint8_t *p, uint16_t type, const void *data,
			      uint16_t len, bool more)
{
	struct etw_ext_item x = {
		.item_size = sizeof(x) + ((len + 7u) & ~7u),
		.ext_type = type,
		.linkage = more ? ETW_EXT_LINKAGE : 0,
		.data_size = len,
	};

	memcpy(p, &x, sizeof(x));
	memset(p + sizeof(x), 0, x.item_size - sizeof(x));
	memcpy(p + sizeof(x), data, len);
	return p + x.item_size;
}

/* Event @n's payload for its shape; returns its size. */
static size_t bench_payload(uint64_t n, uint8_t *p)
{
	uint32_t u32 = (uint32_t)(n * 2654435761u);
	uint64_t u64 = n * 4096 + 17;
	uint8_t guid[16];
	size_t len = 0;
	int i;

	for (i = 0; i < 16; i++)
		guid[i] = (uint8_t)(n >> (i % 8) * 8) ^ (uint8_t)(i * 37);
	memcpy(p + len, &u32, 4);
	len += 4;
	memcpy(p + len, &u64, n % 3 == 2 ? 4 : 8);
	len += n % 3 == 2 ? 4 : 8;
	if (n % 3 == 0) {
		memcpy(p + len, &u32, 4);
		len += 4;
	}
	len += sprintf((char *)p + len, "%s-%llu",
		       n % 3 ? "worker" : "/srv/data/item",
		       (unsigned long long)n) + 1;
	memcpy(p + len, guid, 16);
	return len + 16;
}

/* Append event @n to @buf; false when it does not fit. */
static bool bench_add(uint8_t *buf, uint64_t n, uint64_t ts)
{
	const struct bench_shape *s = &bench_shapes[n % 3];
	struct etw_buffer_header *bh = (struct etw_buffer_header *)buf;
	uint8_t rec[1024], meta[128], *p;
	struct etw_event_header eh = {
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.flags = ETW_EVENT_FLAG_EXTENDED_INFO,
		.thread_id = 4243 + (uint32_t)(n % 4),
		.process_id = 4242,
		.timestamp = ts,
		.provider_id = bench_provider,
		.descriptor = { .level = 4, .channel = 11, .keyword = 0x10 },
	};
	uint16_t mlen = (uint16_t)(s->len + 2);
	uint32_t size;

	memcpy(meta, &mlen, 2);
	memcpy(meta + 2, s->meta, s->len);
	p = rec + sizeof(eh);
	p = bench_put_ext(p, ETW_EXT_PROV_TRAITS, bench_traits,
			  sizeof(bench_traits), true);
	p = bench_put_ext(p, ETW_EXT_EVENT_SCHEMA_TL, meta, mlen, false);
	p += bench_payload(n, p);
	size = (uint32_t)(p - rec);
	eh.size = (uint16_t)size;
	memcpy(rec, &eh, sizeof(eh));
	if (bh->offset + ((size + 7) & ~7u) > BENCH_BS)
		return false;
	memset(buf + bh->offset, 0, (size + 7) & ~7u);
	memcpy(buf + bh->offset, rec, size);
	bh->offset += (size + 7) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
	return true;
}

static int bench_gen(const char *path, uint64_t events)
{
	struct etw_etl_writer_params prm = etl_test_params();
	static uint8_t buf[BENCH_CPUS][BENCH_BS];
	uint64_t seq[BENCH_CPUS] = { 0 }, n;
	struct etw_etl_writer *w;
	unsigned int cpu;
	int ret;

	prm.buffer_size = BENCH_BS;
	prm.number_of_processors = BENCH_CPUS;
	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm, &w);
	for (cpu = 0; cpu < BENCH_CPUS; cpu++)
		etl_buf_init(buf[cpu], BENCH_BS, cpu);
	/* Events alternate between the CPUs, 1 us apart. */
	for (n = 0; !ret && n < events; n++) {
		cpu = n % BENCH_CPUS;
		if (bench_add(buf[cpu], n, ETL_TEST_START_RAW + n * 1000))
			continue;
		((struct etw_buffer_header *)buf[cpu])->sequence_number =
			seq[cpu]++;
		ret = etw_etl_writer_append(w, buf[cpu]);
		etl_buf_init(buf[cpu], BENCH_BS, cpu);
		n--;
	}
	for (cpu = 0; !ret && cpu < BENCH_CPUS; cpu++) {
		((struct etw_buffer_header *)buf[cpu])->sequence_number =
			seq[cpu];
		ret = etw_etl_writer_append(w, buf[cpu]);
	}
	if (!ret)
		ret = etw_etl_writer_close(w, NULL);
	if (ret)
		fprintf(stderr, "decode_bench: writing %s: %s\n", path,
			strerror(-ret));
	return ret ? 1 : 0;
}

/* --- the modes ----------------------------------------------------------- */

static uint64_t bench_events;
static uint64_t bench_samples;
static uint64_t bench_sink;

/* PerfInfoGuid: the kernel logger's SampledProfile (opcode 46) class. */
static const GUID bench_perfinfo = {
	0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc }
};

static int bench_read(const char *path)
{
	static char buf[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		bench_sink += (uint8_t)buf[n - 1];
	close(fd);
	return n < 0;
}

static VOID WINAPI bench_empty_cb(PEVENT_RECORD r)
{
	bench_events++;
	bench_samples += r->EventHeader.EventDescriptor.Opcode == 46 &&
			 IsEqualGUID(&r->EventHeader.ProviderId,
				     &bench_perfinfo);
}

/* A property's values: each element, struct members in turn. */
struct bench_tdh {
	TRACE_EVENT_INFO *tei;
	USHORT ints[256];
	const BYTE *p;
	USHORT left;
	WCHAR text[1024];
};

static ULONG bench_prop(struct bench_tdh *d, ULONG i)
{
	const EVENT_PROPERTY_INFO *e = &d->tei->EventPropertyInfoArray[i];
	ULONG count = e->Flags & PropertyParamCount ?
		      d->ints[e->countPropertyIndex & 0xff] : e->count;
	ULONG k, j, size, st = ERROR_SUCCESS;
	USHORT len, used;

	for (k = 0; k < count && !st; k++) {
		if (e->Flags & PropertyStruct) {
			for (j = 0; j < e->structType.NumOfStructMembers &&
				    !st; j++)
				st = bench_prop(d,
						e->structType.StructStartIndex + j);
			continue;
		}
		len = e->Flags & PropertyParamLength ?
		      d->ints[e->lengthPropertyIndex & 0xff] : e->length;
		size = sizeof(d->text);
		st = TdhFormatProperty(d->tei, NULL, 8, e->nonStructType.InType,
				       e->nonStructType.OutType, len, d->left,
				       (PBYTE)d->p, &size, d->text, &used);
		if (st)
			break;
		if (used >= 2)
			d->ints[i & 0xff] = (USHORT)(d->p[0] | d->p[1] << 8);
		d->p += used;
		d->left -= used;
	}
	return st;
}

static VOID WINAPI bench_tdh_cb(PEVENT_RECORD r)
{
	static union {
		TRACE_EVENT_INFO tei;
		char bytes[8192];
	} buf;
	/* Not cleared per event: the counts are written before they are read. */
	static struct bench_tdh d;
	ULONG size = sizeof(buf), i;

	bench_events++;
	d.tei = &buf.tei;
	if (TdhGetEventInformation(r, 0, NULL, d.tei, &size))
		return;
	d.p = r->UserData;
	d.left = r->UserDataLength;
	for (i = 0; i < d.tei->TopLevelPropertyCount; i++)
		if (bench_prop(&d, i))
			break;
	bench_sink += d.text[0];
}

static int bench_process(const char *path, PEVENT_RECORD_CALLBACK cb)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;
	ULONG err;

	lf.LogFileName = (char *)path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = cb;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return 1;
	err = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return err != ERROR_SUCCESS;
}

/*
 * @format: "json", "csv", NULL for dump's table, "stats" for stats,
 * "speedscope" for the export.
 */
static int bench_dump(const char *etwctl, const char *path,
		      const char *format)
{
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		return 1;
	if (format && !strcmp(format, "stats"))
		execl(etwctl, etwctl, "stats", path, NULL);
	else if (format && !strcmp(format, "speedscope"))
		execl(etwctl, etwctl, "export", "--format", format, "-o",
		      "/dev/null", path, NULL);
	else if (format)
		execl(etwctl, etwctl, "dump", "--format", format, path, NULL);
	else
		execl(etwctl, etwctl, "dump", path, NULL);
	return 127;
}

static const char *const bench_modes[] = {
	"read", "process", "tdh", "stats", "dump", "dump-json", "dump-csv",
};

static int bench_mode(const char *mode, const char *path,
		      const char *etwctl)
{
	if (!strcmp(mode, "read"))
		return bench_read(path);
	if (!strcmp(mode, "process"))
		return bench_process(path, bench_empty_cb);
	if (!strcmp(mode, "tdh"))
		return bench_process(path, bench_tdh_cb);
	if (!strcmp(mode, "stats"))
		return bench_dump(etwctl, path, "stats");
	if (!strcmp(mode, "dump"))
		return bench_dump(etwctl, path, NULL);
	if (!strcmp(mode, "dump-json"))
		return bench_dump(etwctl, path, "json");
	if (!strcmp(mode, "dump-csv"))
		return bench_dump(etwctl, path, "csv");
	if (!strcmp(mode, "speedscope"))
		return bench_dump(etwctl, path, "speedscope");
	fprintf(stderr, "decode_bench: unknown mode '%s'\n", mode);
	return 2;
}

/* --- the table ----------------------------------------------------------- */

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double bench_tv(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/*
 * One pass in a child: its wall time, CPU time (user and system: what
 * other jobs on the machine take from the wall time does not count) and
 * peak RSS (KiB); < 0 on failure.
 */
static double bench_child(const char *mode, const char *path,
			  const char *etwctl, double *cpu, long *rss_kb)
{
	struct rusage ru;
	double t0 = bench_now();
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(bench_mode(mode, path, etwctl));
	if (wait4(pid, &status, 0, &ru) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	*rss_kb = ru.ru_maxrss;
	*cpu = bench_tv(&ru.ru_utime) + bench_tv(&ru.ru_stime);
	return bench_now() - t0;
}

/* The best wall and CPU time of @rounds passes of @mode; their peak RSS. */
struct bench_best {
	double wall;
	double cpu;
	long rss_kb;
};

static int bench_rounds(const char *mode, const char *path,
			const char *etwctl, int rounds, struct bench_best *b)
{
	double t, cpu;
	long rss;
	int r;

	memset(b, 0, sizeof(*b));
	for (r = 0; r < (rounds > 0 ? rounds : 1); r++) {
		t = bench_child(mode, path, etwctl, &cpu, &rss);
		if (t < 0) {
			fprintf(stderr, "decode_bench: %s failed\n", mode);
			return -1;
		}
		b->wall = !r || t < b->wall ? t : b->wall;
		/* Clock ticks: a pass shorter than one counts one. */
		cpu = cpu > 1e-3 ? cpu : 1e-3;
		b->cpu = !r || cpu < b->cpu ? cpu : b->cpu;
		b->rss_kb = rss > b->rss_kb ? rss : b->rss_kb;
	}
	return 0;
}

/* A row: rates per @n records (events or samples), ratios to @base. */
static void bench_row(const char *mode, uint64_t n, const struct bench_best *b,
		      const struct bench_best *base)
{
	printf("%-10s %10.0f %9.1f %8.2f %10.0f %9.1f %8.2f %6ld KiB\n",
	       mode, n / b->wall, b->wall * 1e9 / n, b->wall / base->wall,
	       n / b->cpu, b->cpu * 1e9 / n, b->cpu / base->cpu, b->rss_kb);
}

static int bench_table(const char *path, const char *etwctl)
{
	const char *env = getenv("BENCH_ROUNDS");
	int rounds = env ? atoi(env) : BENCH_ROUNDS;
	struct bench_best base, b;
	size_t m;

	if (bench_process(path, bench_empty_cb) || !bench_events)
		return 1;
	printf("# %s: %llu events, best of %d\n", path,
	       (unsigned long long)bench_events, rounds);
	printf("%-10s %10s %9s %8s %10s %9s %8s %10s\n", "mode", "events/s",
	       "ns/event", "x read()", "CPU ev/s", "CPU ns/ev", "x read()",
	       "peak RSS");
	for (m = 0; m < sizeof(bench_modes) / sizeof(bench_modes[0]); m++) {
		if (bench_rounds(bench_modes[m], path, etwctl, rounds, &b))
			return 1;
		if (!m)
			base = b;
		bench_row(bench_modes[m], bench_events, &b, &base);
	}
	if (!bench_samples)
		return 0;
	printf("# %llu SampledProfile records: per sample, not per event\n",
	       (unsigned long long)bench_samples);
	if (bench_rounds("speedscope", path, etwctl, rounds, &b))
		return 1;
	bench_row("speedscope", bench_samples, &b, &base);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return bench_gen(argv[2], strtoull(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "table"))
		return bench_table(argv[2], argv[3]);
	if (argc == 3 || argc == 4)
		return bench_mode(argv[1], argv[2], argc == 4 ? argv[3] : NULL);
	fprintf(stderr, "usage: decode_bench gen FILE EVENTS\n"
		"       decode_bench table FILE ETWCTL\n"
		"       decode_bench read|process|tdh FILE\n"
		"       decode_bench stats|dump|dump-json|dump-csv FILE ETWCTL\n");
	return 2;
}
