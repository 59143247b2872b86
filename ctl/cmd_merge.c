// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_merge.c: "etwctl merge OUT IN...": one time-ordered ETL file from
 * several, as "xperf -merge" makes.
 *
 * The inputs may use different clocks (QPC rates, session clocks), so
 * every record is re-timed: its FILETIME becomes nanoseconds after the
 * earliest input's start, the clock the ETL writer declares.  Records are
 * repacked into per-CPU buffers in merged order, which keeps each CPU's
 * stream in time order as readers expect; the inputs' own header records
 * are replaced by the output's.  With --compress the output is what
 * Windows' relogger writes: compressed buffers, LoggerName "Relogger",
 * LogFileName "[multiple files]".
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etwctl.h"

#define ETWCTL_NS_PER_TICK	100

static const char etwctl_merge_usage[] =
"usage: etwctl merge [--compress] OUT IN...\n"
"Write the events of the IN files, merged in time order, to the new ETL\n"
"file OUT.\n"
"  -z, --compress  compress OUT's buffers (XPRESS) as Windows' relogger\n"
"                  does, with its header (LoggerName Relogger)\n";

/* The buffer being filled for one CPU. */
struct etwctl_cpu_buf {
	uint16_t cpu;
	uint8_t *buf;
	uint32_t pos;
	uint32_t events;
	uint64_t last_raw;
};

struct etwctl_merger {
	struct etw_etl_writer *writer;
	uint32_t bs;
	uint16_t logger_id;
	int64_t start_time;
	struct etwctl_cpu_buf *cpus;
	size_t ncpus;
	uint64_t events;
};

/* Offset of the raw timestamp in each kind of record header. */
static uint32_t etwctl_ts_offset(const struct etw_etl_event *ev)
{
	return ev->kind == ETW_ETL_KIND_PERFINFO ? 8 : 16;
}

static struct etwctl_cpu_buf *etwctl_merge_cpu(struct etwctl_merger *m,
					       uint16_t cpu)
{
	struct etwctl_cpu_buf *v;
	size_t i;

	for (i = 0; i < m->ncpus; i++)
		if (m->cpus[i].cpu == cpu)
			return &m->cpus[i];
	v = realloc(m->cpus, (m->ncpus + 1) * sizeof(*v));
	if (!v)
		return NULL;
	m->cpus = v;
	v = &m->cpus[m->ncpus];
	memset(v, 0, sizeof(*v));
	v->cpu = cpu;
	v->pos = ETW_BUFFER_HEADER_SIZE;
	v->buf = malloc(m->bs);
	if (!v->buf)
		return NULL;
	m->ncpus++;
	return v;
}

/* Seal @b as the kernel would and hand it to the writer. */
static int etwctl_merge_seal(struct etwctl_merger *m,
			     struct etwctl_cpu_buf *b)
{
	struct etw_buffer_header bh = {
		.buffer_size = m->bs,
		.saved_offset = b->pos,
		.current_offset = b->pos,
		.timestamp = b->last_raw,
		.processor_index = b->cpu,
		.logger_id = m->logger_id,
		.state = ETW_BUFFER_STATE_FLUSH,
		.offset = b->pos,
		.buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX,
		.buffer_type = ETW_BUFFER_TYPE_GENERIC,
		.events = b->events,
	};
	int ret;

	if (!b->events)
		return 0;
	memcpy(b->buf, &bh, sizeof(bh));
	memset(b->buf + b->pos, 0xff, m->bs - b->pos);
	ret = etw_etl_writer_append(m->writer, b->buf);
	b->pos = ETW_BUFFER_HEADER_SIZE;
	b->events = 0;
	return ret;
}

static int etwctl_merge_event(struct etwctl_merger *m,
			      const struct etw_etl_event *ev)
{
	uint32_t size = (ev->size + 7u) & ~7u;
	struct etwctl_cpu_buf *b;
	int64_t rel = ev->timestamp - m->start_time;
	uint64_t raw = rel > 0 ? (uint64_t)rel * ETWCTL_NS_PER_TICK : 0;
	int ret;

	b = etwctl_merge_cpu(m, ev->processor_index);
	if (!b)
		return -ENOMEM;
	if (ETW_BUFFER_HEADER_SIZE + size > m->bs)
		return -EMSGSIZE;
	if (b->pos + size > m->bs) {
		ret = etwctl_merge_seal(m, b);
		if (ret)
			return ret;
	}
	memcpy(b->buf + b->pos, ev->record, ev->size);
	memset(b->buf + b->pos + ev->size, 0, size - ev->size);
	memcpy(b->buf + b->pos + etwctl_ts_offset(ev), &raw, sizeof(raw));
	b->pos += size;
	b->events++;
	b->last_raw = raw;
	m->events++;
	return 0;
}

/* The output header: the largest buffers and CPU count, the first start. */
static void etwctl_merge_params(struct etw_etl_reader *const *r,
				unsigned int n,
				struct etw_etl_writer_params *p)
{
	const struct etw_etl_logfile_header *h;
	struct etw_buffer_header bh;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++) {
		h = etw_etl_reader_header(r[i]);
		if (etw_etl_reader_buffer_size(r[i]) > p->buffer_size)
			p->buffer_size = etw_etl_reader_buffer_size(r[i]);
		/* The recording machine's speed, not the merging one's. */
		if (!p->cpu_speed_mhz)
			p->cpu_speed_mhz = h->cpu_speed_mhz;
		if (h->number_of_processors > p->number_of_processors)
			p->number_of_processors = h->number_of_processors;
		if (!i || h->start_time < p->start_time) {
			p->start_time = h->start_time;
			p->boot_time = h->boot_time;
			p->timer_resolution = h->timer_resolution;
			p->provider_version = h->provider_version;
			p->logger_name = etw_etl_reader_logger_name(r[i]);
			if (!etw_etl_reader_buffer_header(r[i], 0, &bh))
				p->logger_id = bh.logger_id;
		}
	}
	p->process_id = (uint32_t)getpid();
	p->thread_id = (uint32_t)getpid();
}

static int etwctl_merge_run(struct etwctl_merger *m,
			    struct etw_etl_merge *merge, uint64_t span)
{
	struct etw_etl_event ev;
	size_t i;
	int ret;

	while ((ret = etw_etl_merge_next(merge, &ev, NULL)) != 0) {
		if (ret < 0)
			return ret;
		if (span && ev.timestamp > m->start_time)
			etwctl_progress("merge", (uint64_t)ev.timestamp -
					(uint64_t)m->start_time, span);
		if (etwctl_event_is_metadata(&ev))
			continue;
		ret = etwctl_merge_event(m, &ev);
		if (ret)
			return ret;
	}
	for (i = 0; i < m->ncpus; i++) {
		ret = etwctl_merge_seal(m, &m->cpus[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static int etwctl_merge_files(const char *out, struct etw_etl_reader **r,
			      unsigned int n, bool compress)
{
	struct etw_etl_writer_stats stats = { 0 };
	struct etw_etl_writer_params p;
	struct etwctl_merger m = { 0 };
	struct etw_etl_merge *merge;
	uint64_t span = 0;
	unsigned int i;
	int ret;

	etwctl_merge_params(r, n, &p);
	if (compress) {
		p.log_file_mode = ETW_ETL_MODE_COMPRESSED | ETW_ETL_MODE_RELOG;
		p.logger_name = "Relogger";
		p.log_file_name = "[multiple files]";
	}
	for (i = 0; i < n; i++) {
		stats.events_lost += etw_etl_reader_header(r[i])->events_lost;
		stats.buffers_lost += etw_etl_reader_header(r[i])->buffers_lost;
		if (etw_etl_reader_header(r[i])->end_time > p.start_time + span)
			span = etw_etl_reader_header(r[i])->end_time -
			       p.start_time;
	}
	m.bs = p.buffer_size;
	m.logger_id = p.logger_id;
	m.start_time = (int64_t)p.start_time;
	ret = etw_etl_merge_open(r, n, &merge);
	if (ret)
		return etwctl_fail("merge", "%s", etwctl_errno_str(ret));
	ret = etw_etl_writer_open(out, ETW_ETL_MODE_SEQUENTIAL, &p, &m.writer);
	if (ret) {
		etw_etl_merge_close(merge);
		return etwctl_fail("merge", "%s: %s", out, strerror(-ret));
	}
	ret = etwctl_merge_run(&m, merge, span);
	etwctl_progress_end();
	etw_etl_merge_close(merge);
	if (!ret)
		ret = etw_etl_writer_close(m.writer, &stats);
	else
		etw_etl_writer_close(m.writer, &stats);
	for (i = 0; i < m.ncpus; i++)
		free(m.cpus[i].buf);
	free(m.cpus);
	if (ret)
		return etwctl_fail("merge", "%s: %s", out,
				   etwctl_errno_str(ret));
	return 0;
}

/* Writing OUT truncates it: it must not be one of the inputs. */
static bool etwctl_merge_same_file(const char *out, char **in, int n)
{
	struct stat so, si;
	int i;

	if (stat(out, &so))
		return false;
	for (i = 0; i < n; i++)
		if (!stat(in[i], &si) && si.st_dev == so.st_dev &&
		    si.st_ino == so.st_ino)
			return true;
	return false;
}

/**
 * etwctl_cmd_merge - "etwctl merge"
 * @argc: argument count, argv[0] is "merge"
 * @argv: arguments
 *
 * Return: exit status.
 */
int etwctl_cmd_merge(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "compress", no_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 }
	};
	struct etw_etl_reader **r;
	bool compress = false;
	unsigned int n = 0;
	int c, ret = 0;

	etwctl_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hz", options, NULL)) != -1) {
		if (c == 'h')
			return etwctl_help(etwctl_merge_usage);
		if (c == 'z') {
			compress = true;
			continue;
		}
		return etwctl_bad_option("merge", c, argv);
	}
	if (argc - optind < 2)
		return etwctl_usage("merge", "need OUT and at least one IN");
	if (etwctl_merge_same_file(argv[optind], argv + optind + 1,
				   argc - optind - 1))
		return etwctl_usage("merge", "OUT '%s' is also an input",
				    argv[optind]);
	r = calloc((size_t)(argc - optind - 1), sizeof(*r));
	if (!r)
		return etwctl_fail("merge", "out of memory");
	for (c = optind + 1; c < argc && !ret; c++) {
		ret = etw_etl_reader_open(argv[c], &r[n]);
		if (ret)
			ret = etwctl_fail("merge", "%s: %s", argv[c],
					  etwctl_errno_str(ret));
		else
			n++;
	}
	if (!ret)
		ret = etwctl_merge_files(argv[optind], r, n, compress);
	while (n--)
		etw_etl_reader_close(r[n]);
	free(r);
	return ret;
}
