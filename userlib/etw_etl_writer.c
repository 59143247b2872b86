// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_etl_writer.c: write sealed kernel buffers to ETL files.
 *
 * The kernel already fills buffers in the ETL layout, so a buffer goes to
 * the file unchanged except for its sequence number (renumbered per file)
 * and the fill fields.  Every write is one whole buffer at a buffer
 * boundary, and the header buffer is written first, so a writer killed
 * mid-run leaves a file that reads up to its last complete buffer.  The
 * header event's final counts are written at close (and when a NEWFILE
 * file is rotated).
 *
 * A compressed file (%ETW_ETL_MODE_COMPRESSED in the parameters' mode) is
 * laid out as Windows' relogger lays one out: the header buffer rounded
 * up to 512 bytes, then each buffer in its own size right after the
 * previous one, its records XPRESS-compressed after its header when that
 * makes it smaller (BufferSize the stored bytes, Offset the inflated
 * fill), as filled otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "etw_arch.h"
#include "etw_etl.h"

#define ETW_ETL_FILE_MODES	(ETW_ETL_MODE_SEQUENTIAL | \
	ETW_ETL_MODE_CIRCULAR | ETW_ETL_MODE_APPEND | ETW_ETL_MODE_NEWFILE)
/* The session clock: nanoseconds of CLOCK_MONOTONIC. */
#define ETW_ETL_NS_PER_SEC	1000000000ull
#define ETW_ETL_NS_PER_TICK	100	/* a FILETIME tick is 100 ns */
#define ETW_ETL_HEADER_EVENT	ETW_BUFFER_HEADER_SIZE
#define ETW_ETL_LOGFILE_HEADER	(ETW_ETL_HEADER_EVENT + \
	sizeof(struct etw_etl_system_header))
#define ETW_ETL_MIN_BUFFER_SIZE	1024	/* MIN_ETW_BUFFER_SIZE */
/* The header buffer of a compressed file: a multiple of this. */
#define ETW_ETL_HEADER_ROUND	512

/*
 * @max_slots: buffers a file may hold, header buffer included; 0 for no
 *	limit
 * @in_file: data buffers in the current file
 * @appended: data buffers appended to the current file (circular files
 *	hold only the last @max_slots - 1 of them)
 * @seq: sequence number of the next buffer
 * @max_timestamp: the newest buffer seal so far, for EndTime
 * @cpu_mhz: CpuSpeedInMHz for the header, from etw_etl_cpu_speed_mhz()
 * @refused: buffers refused because a sequential file was full
 * @base_events_lost: counts already in an appended file
 * @compressed: a compressed file (etw_etl_append_compressed())
 * @header_size: bytes the header buffer takes in the file
 * @end: compressed files: the offset of the next buffer
 * @zbuf: compressed files: a buffer's compressed records
 */
struct etw_etl_writer {
	int fd;
	uint32_t mode;
	uint32_t bs;
	char *path;
	char *logger_name;
	struct etw_etl_writer_params params;
	uint64_t max_slots;
	uint8_t *header;
	uint8_t *scratch;
	uint64_t in_file;
	uint64_t appended;
	uint64_t seq;
	uint64_t max_timestamp;
	uint32_t cpu_mhz;
	uint32_t file_number;
	uint32_t refused;
	uint32_t base_events_lost;
	uint32_t base_buffers_lost;
	bool compressed;
	uint32_t header_size;
	uint64_t end;
	uint8_t *zbuf;
};

/* The kHz in @root@path as MHz, rounded; 0 if unreadable. */
static uint32_t etw_etl_read_khz(const char *root, const char *path)
{
	char full[512];
	double khz = 0;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%lf", &khz) != 1 || !(khz > 0) ||
	    khz / 1000 > UINT32_MAX)
		khz = 0;
	fclose(f);
	return (uint32_t)(khz / 1000 + 0.5);
}

/* The first "cpu MHz" line of @root/proc/cpuinfo, rounded; 0 if none. */
static uint32_t etw_etl_cpuinfo_mhz(const char *root)
{
	char path[512], line[256];
	uint32_t mhz = 0;
	const char *colon;
	double v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (strncmp(line, "cpu MHz", 7) || !colon)
			continue;
		if (sscanf(colon + 1, "%lf", &v) == 1 && v >= 0.5 &&
		    v < UINT32_MAX)
			mhz = (uint32_t)(v + 0.5);
		break;
	}
	fclose(f);
	return mhz;
}

#ifdef ETW_ARCH_CYCLES
static uint64_t etw_etl_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * ETW_ETL_NS_PER_SEC + ts.tv_nsec;
}
#endif

/*
 * Cycles per microsecond over 10 ms.  Without a cycle counter, 1: the
 * field only has to be non-zero for readers that divide by it.
 */
static uint32_t etw_etl_measured_mhz(void)
{
#ifdef ETW_ARCH_CYCLES
	struct timespec nap = { 0, 10000000 };
	uint64_t t0, t1, c0, c1;

	t0 = etw_etl_mono_ns();
	c0 = etw_arch_cycles();
	while (nanosleep(&nap, &nap) && errno == EINTR)
		;
	c1 = etw_arch_cycles();
	t1 = etw_etl_mono_ns();
	if (c1 > c0 && t1 > t0 && (c1 - c0) / (t1 - t0) < UINT32_MAX / 1000)
		return (uint32_t)(((c1 - c0) * 1000 + (t1 - t0) / 2) /
				  (t1 - t0)) ?: 1;
#endif
	return 1;
}

#define ETW_ETL_CPUFREQ	"/sys/devices/system/cpu/cpu0/cpufreq/"

/**
 * etw_etl_cpu_speed_mhz - TRACE_LOGFILE_HEADER.CpuSpeedInMHz for this host
 * @root: prefix of the /sys and /proc paths read: "" for the real ones
 *
 * Windows records the processor's nominal speed.  The first source that
 * answers wins: cpufreq's base_frequency (the nominal speed, intel_pstate
 * only), cpufreq's cpuinfo_max_freq (the highest, turbo included), the
 * first "cpu MHz" of /proc/cpuinfo (the current speed), and last the time
 * stamp counter measured against CLOCK_MONOTONIC_RAW for 10 ms.
 *
 * Context: any thread; may sleep 10 ms.
 * Return: the speed in MHz, never 0.
 */
uint32_t etw_etl_cpu_speed_mhz(const char *root)
{
	uint32_t mhz = etw_etl_read_khz(root, ETW_ETL_CPUFREQ
					"base_frequency");

	if (!mhz)
		mhz = etw_etl_read_khz(root, ETW_ETL_CPUFREQ
				       "cpuinfo_max_freq");
	if (!mhz)
		mhz = etw_etl_cpuinfo_mhz(root);
	return mhz ? mhz : etw_etl_measured_mhz();
}

static int etw_etl_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pwrite(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf = (const uint8_t *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

static struct etw_etl_logfile_header *
etw_etl_tlh(const struct etw_etl_writer *w)
{
	return (struct etw_etl_logfile_header *)(w->header +
						 ETW_ETL_LOGFILE_HEADER);
}

/* Put a NUL-terminated UTF-16LE name at *pos, if it fits below @end. */
static int etw_etl_put_name(uint8_t *buf, size_t *pos, size_t end,
			    const char *name)
{
	size_t room = (end - *pos) / 2;
	size_t units = etw_etl_utf8_to_utf16(name, buf + *pos, room);

	if (units >= room)
		return -ENAMETOOLONG;
	buf[*pos + 2 * units] = 0;
	buf[*pos + 2 * units + 1] = 0;
	*pos += 2 * (units + 1);
	return 0;
}

static void etw_etl_fill_tlh(const struct etw_etl_writer *w,
			     struct etw_etl_logfile_header *h)
{
	const struct etw_etl_writer_params *p = &w->params;

	memset(h, 0, sizeof(*h));
	h->buffer_size = w->bs;
	/* OS 10.0, log-file layout 1.5: what Windows 10/11 write. */
	h->version[0] = 10;
	h->version[2] = 1;
	h->version[3] = 5;
	h->provider_version = p->provider_version;
	h->number_of_processors = p->number_of_processors;
	h->timer_resolution = p->timer_resolution;
	h->maximum_file_size = p->max_file_size;
	h->log_file_mode = (p->log_file_mode & ~ETW_ETL_FILE_MODES) | w->mode;
	h->buffers_written = 1;
	h->start_buffers = 1;
	h->pointer_size = 8;
	h->cpu_speed_mhz = w->cpu_mhz;
	h->boot_time = p->boot_time;
	h->perf_freq = ETW_ETL_NS_PER_SEC;
	h->start_time = p->start_time;
	h->reserved_flags = ETW_ETL_CLOCK_QPC;
}

static void etw_etl_fill_header_buffer(struct etw_etl_writer *w,
				       uint32_t filled)
{
	struct etw_buffer_header *bh = (struct etw_buffer_header *)w->header;

	memset(bh, 0, sizeof(*bh));
	bh->buffer_size = w->header_size;
	bh->saved_offset = filled;
	bh->current_offset = filled;
	bh->logger_id = w->params.logger_id;
	bh->state = ETW_BUFFER_STATE_FLUSH;
	bh->offset = filled;
	bh->buffer_flag = ETW_BUFFER_FLAG_FLUSH_MARKER |
			  ETW_BUFFER_FLAG_PROC_INDEX;
	bh->buffer_type = ETW_BUFFER_TYPE_HEADER;
	bh->events = 1;
}

/* Buffer 0: the header event (§5.4) and nothing else. */
static int etw_etl_build_header(struct etw_etl_writer *w, const char *path)
{
	struct etw_etl_system_header sh = {
		.marker = ETW_ETL_SYSTEM_MARKER64,
		.hook_id = ETW_ETL_HOOK_HEADER,
		.thread_id = w->params.thread_id,
		.process_id = w->params.process_id,
		.system_time = w->params.start_raw,
	};
	size_t end = w->bs < ETW_ETL_HEADER_EVENT + 0xffff ?
		     w->bs : ETW_ETL_HEADER_EVENT + 0xffff;
	size_t pos = ETW_ETL_LOGFILE_HEADER + ETW_ETL_LOGFILE_HEADER_SIZE;
	size_t filled;
	int ret;

	memset(w->header, 0xff, w->bs);
	etw_etl_fill_tlh(w, etw_etl_tlh(w));
	ret = etw_etl_put_name(w->header, &pos, end, w->logger_name);
	if (!ret)
		ret = etw_etl_put_name(w->header, &pos, end,
				       w->params.log_file_name ?: path);
	if (ret)
		return ret;
	sh.size = pos - ETW_ETL_HEADER_EVENT;
	memcpy(w->header + ETW_ETL_HEADER_EVENT, &sh, sizeof(sh));
	/* Records are 8-byte aligned; Windows pads with zeroes. */
	filled = (pos + 7) & ~(size_t)7;
	memset(w->header + pos, 0, filled - pos);
	w->header_size = w->bs;
	if (w->compressed) {
		w->header_size = (filled + ETW_ETL_HEADER_ROUND - 1) &
				 ~(ETW_ETL_HEADER_ROUND - 1);
		if (w->header_size > w->bs)
			w->header_size = w->bs;
	}
	etw_etl_fill_header_buffer(w, filled);
	return 0;
}

static int etw_etl_max_slots(struct etw_etl_writer *w)
{
	uint64_t unit = w->params.log_file_mode & ETW_ETL_MODE_KBYTES ?
			1024 : 1024 * 1024;
	bool wraps = w->mode & (ETW_ETL_MODE_CIRCULAR | ETW_ETL_MODE_NEWFILE);

	w->max_slots = w->params.max_file_size * unit / w->bs;
	if (wraps && w->max_slots < 2)
		return -EINVAL;
	if (w->params.max_file_size && !w->max_slots)
		return -EINVAL;
	return 0;
}

/* "name_%d.etl" with exactly one %d and no other conversion. */
static int etw_etl_check_pattern(const char *pattern)
{
	const char *pct = strchr(pattern, '%');

	if (!pct || pct[1] != 'd' || strchr(pct + 1, '%'))
		return -EINVAL;
	return 0;
}

static char *etw_etl_file_path(const struct etw_etl_writer *w)
{
	const char *pct;
	char *s;
	int n;

	if (!(w->mode & ETW_ETL_MODE_NEWFILE))
		return strdup(w->path);
	pct = strchr(w->path, '%');
	n = asprintf(&s, "%.*s%u%s", (int)(pct - w->path), w->path,
		     w->file_number, pct + 2);
	return n < 0 ? NULL : s;
}

/* Create the current file and write its header buffer. */
static int etw_etl_create_file(struct etw_etl_writer *w)
{
	char *path = etw_etl_file_path(w);
	int ret;

	if (!path)
		return -ENOMEM;
	ret = etw_etl_build_header(w, path);
	if (!ret) {
		w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644);
		ret = w->fd < 0 ? -errno : 0;
	}
	free(path);
	if (ret)
		return ret;
	w->in_file = 0;
	w->appended = 0;
	w->seq = 1;
	w->end = w->header_size;
	return etw_etl_pwrite(w->fd, w->header, w->header_size, 0);
}

/*
 * Continue an etw-written file: it must use this writer's buffer size
 * and our clock (ns with PerfFreq 1e9) of the same boot, or appended
 * events would be misdated; and fixed slots, which a compressed or
 * relogged file does not have.
 */
static int etw_etl_check_appendable(struct etw_etl_writer *w,
				    struct etw_etl_reader *r)
{
	const struct etw_etl_logfile_header *h = etw_etl_reader_header(r);
	int64_t boot_delta = (int64_t)(h->boot_time - w->params.boot_time);
	struct etw_etl_stored st;

	if (h->pointer_size != 8 || h->reserved_flags != ETW_ETL_CLOCK_QPC ||
	    h->perf_freq != ETW_ETL_NS_PER_SEC)
		return -EBADMSG;
	if ((h->log_file_mode & ETW_ETL_MODE_COMPRESSED) ||
	    etw_etl_reader_stored(r, 0, &st) || st.size != h->buffer_size)
		return -EBADMSG;
	if (w->bs && w->bs != h->buffer_size)
		return -EINVAL;
	/* FILETIME ticks: a second of jitter in computing the boot time. */
	if (w->params.boot_time &&
	    (boot_delta > 10000000 || boot_delta < -10000000))
		return -EXDEV;
	w->bs = h->buffer_size;
	w->base_events_lost = h->events_lost;
	w->base_buffers_lost = h->buffers_lost;
	return 0;
}

/* Sequence numbers continue after the largest one in the file. */
static int etw_etl_scan_appended(struct etw_etl_writer *w,
				 struct etw_etl_reader *r)
{
	uint64_t i, n = etw_etl_reader_buffer_count(r);
	struct etw_buffer_header bh;
	int ret;

	w->seq = 1;
	for (i = 1; i < n; i++) {
		ret = etw_etl_reader_buffer_header(r, i, &bh);
		if (ret)
			return ret;
		if (bh.sequence_number >= w->seq)
			w->seq = bh.sequence_number + 1;
		if (bh.timestamp > w->max_timestamp)
			w->max_timestamp = bh.timestamp;
	}
	w->in_file = n - 1;
	return 0;
}

static int etw_etl_open_append(struct etw_etl_writer *w)
{
	struct etw_etl_reader *r;
	int ret;

	ret = etw_etl_reader_open(w->path, &r);
	if (ret)
		return ret;
	ret = etw_etl_check_appendable(w, r);
	if (!ret)
		ret = etw_etl_scan_appended(w, r);
	etw_etl_reader_close(r);
	if (ret)
		return ret;
	w->header = malloc(w->bs);
	w->fd = open(w->path, O_RDWR | O_CLOEXEC);
	if (!w->header)
		return -ENOMEM;
	if (w->fd < 0)
		return -errno;
	ret = pread(w->fd, w->header, w->bs, 0);
	if (ret != (int)w->bs)
		return -EBADMSG;
	w->header_size = w->bs;
	/* Files of older writers say 0, which some readers divide by. */
	if (!etw_etl_tlh(w)->cpu_speed_mhz)
		etw_etl_tlh(w)->cpu_speed_mhz = w->cpu_mhz;
	return 0;
}

static int etw_etl_check_mode(uint32_t mode, const char *path)
{
	switch (mode) {
	case 0:		/* EVENT_TRACE_FILE_MODE_NONE: sequential */
	case ETW_ETL_MODE_SEQUENTIAL:
	case ETW_ETL_MODE_CIRCULAR:
	case ETW_ETL_MODE_APPEND:
	case ETW_ETL_MODE_APPEND | ETW_ETL_MODE_SEQUENTIAL:
		return 0;
	case ETW_ETL_MODE_NEWFILE:
		return etw_etl_check_pattern(path);
	default:
		return -EINVAL;
	}
}

static int etw_etl_writer_init(struct etw_etl_writer *w)
{
	int ret = -ENOENT;

	if (w->compressed) {
		if ((w->mode & ~ETW_ETL_MODE_SEQUENTIAL) ||
		    w->params.max_file_size)
			return -EINVAL;
		w->zbuf = malloc(w->bs > ETW_BUFFER_HEADER_SIZE ?
				 w->bs - ETW_BUFFER_HEADER_SIZE : 1);
		if (!w->zbuf)
			return -ENOMEM;
	}
	if (w->mode & ETW_ETL_MODE_APPEND)
		ret = etw_etl_open_append(w);
	if (ret == -ENOENT) {
		if (w->bs < ETW_ETL_MIN_BUFFER_SIZE ||
		    w->bs > ETW_ETL_MAX_BUFFER_SIZE)
			return -EINVAL;
		w->header = malloc(w->bs);
		if (!w->header)
			return -ENOMEM;
		ret = etw_etl_max_slots(w);
		if (!ret)
			ret = etw_etl_create_file(w);
	} else if (!ret) {
		ret = etw_etl_max_slots(w);
	}
	if (ret)
		return ret;
	w->scratch = malloc(w->bs);
	return w->scratch ? 0 : -ENOMEM;
}

/* Free a writer without touching its file: a failed open. */
static void etw_etl_writer_free(struct etw_etl_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->header);
	free(w->scratch);
	free(w->zbuf);
	free((char *)w->params.log_file_name);
	free(w->path);
	free(w->logger_name);
	free(w);
}

/**
 * etw_etl_writer_open - create an ETL file and write its header buffer
 * @path: the file; with %ETW_ETL_MODE_NEWFILE a pattern with one %d,
 *	numbered from 1
 * @mode: one ETW_ETL_MODE_* file mode, or 0 for sequential
 *	(%ETW_ETL_MODE_APPEND may be combined with %ETW_ETL_MODE_SEQUENTIAL)
 * @params: what the header describes
 * @out: out: the writer
 *
 * Circular and newfile modes need a maximum size of at least two
 * buffers.  Appending to a file that does not exist creates it.  A
 * compressed file (%ETW_ETL_MODE_COMPRESSED in @params' mode) is
 * sequential without a size limit.
 *
 * Return: 0, -EINVAL for bad arguments, -EBADMSG or -EXDEV for a file
 * that cannot be appended to (corrupt, not etw's, another boot), or an
 * I/O error.
 */
int etw_etl_writer_open(const char *path, uint32_t mode,
			const struct etw_etl_writer_params *params,
			struct etw_etl_writer **out)
{
	struct etw_etl_writer *w;
	int ret;

	ret = etw_etl_check_mode(mode, path);
	if (ret)
		return ret;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	w->mode = mode;
	w->params = *params;
	w->bs = params->buffer_size;
	w->compressed = params->log_file_mode & ETW_ETL_MODE_COMPRESSED;
	w->file_number = 1;
	w->cpu_mhz = params->cpu_speed_mhz ?: etw_etl_cpu_speed_mhz("");
	w->path = strdup(path);
	w->logger_name = strdup(params->logger_name ? params->logger_name : "");
	w->params.log_file_name = params->log_file_name ?
				  strdup(params->log_file_name) : NULL;
	ret = w->path && w->logger_name &&
	      (w->params.log_file_name || !params->log_file_name) ?
	      etw_etl_writer_init(w) : -ENOMEM;
	if (ret) {
		etw_etl_writer_free(w);
		return ret;
	}
	*out = w;
	return 0;
}

/* The raw clock at StartTime: the header event's SystemTime. */
static uint64_t etw_etl_start_raw(const struct etw_etl_writer *w)
{
	struct etw_etl_system_header sh;

	memcpy(&sh, w->header + ETW_ETL_HEADER_EVENT, sizeof(sh));
	return sh.system_time;
}

/*
 * The newest buffer seal, which is not older than any event of the file:
 * buffers may arrive out of time order (a merge seals its per-CPU buffers
 * CPU by CPU at the end).  A stop time before it (a caller's clock, a
 * copied header) is raised to it.
 */
static uint64_t etw_etl_end_time(const struct etw_etl_writer *w,
				 uint64_t stop_time)
{
	const struct etw_etl_logfile_header *h = etw_etl_tlh(w);
	uint64_t start_raw = etw_etl_start_raw(w);
	uint64_t end = h->start_time;

	if (w->max_timestamp > start_raw)
		end += (w->max_timestamp - start_raw) / ETW_ETL_NS_PER_TICK;
	return stop_time > end ? stop_time : end;
}

/* Write the final counts into the header event, then make them durable. */
static int etw_etl_finish_file(struct etw_etl_writer *w,
			       const struct etw_etl_writer_stats *stats)
{
	struct etw_etl_logfile_header *h = etw_etl_tlh(w);
	int ret;

	h->buffers_written = 1 + w->in_file;
	h->end_time = etw_etl_end_time(w, stats ? stats->end_time : 0);
	h->events_lost = w->base_events_lost +
			 (stats ? stats->events_lost : 0);
	h->buffers_lost = w->base_buffers_lost + w->refused +
			  (stats ? stats->buffers_lost : 0);
	ret = etw_etl_pwrite(w->fd, w->header, w->header_size, 0);
	if (!ret && fsync(w->fd))
		ret = -errno;
	if (close(w->fd) && !ret)
		ret = -errno;
	w->fd = -1;
	return ret;
}

/* NEWFILE: close the full file and start the next number. */
static int etw_etl_rotate(struct etw_etl_writer *w)
{
	int ret;

	ret = etw_etl_finish_file(w, NULL);
	if (ret)
		return ret;
	w->file_number++;
	w->refused = 0;
	return etw_etl_create_file(w);
}

/* The slot of the next buffer, making room as the mode says. */
static int etw_etl_next_slot(struct etw_etl_writer *w, uint64_t *slot)
{
	int ret;

	if (w->mode & ETW_ETL_MODE_CIRCULAR) {
		*slot = 1 + w->appended % (w->max_slots - 1);
		return 0;
	}
	if (w->max_slots && 1 + w->in_file >= w->max_slots) {
		if (!(w->mode & ETW_ETL_MODE_NEWFILE)) {
			w->refused++;
			return -ENOSPC;
		}
		ret = etw_etl_rotate(w);
		if (ret)
			return ret;
	}
	*slot = 1 + w->in_file;
	return 0;
}

/*
 * The buffer in @w->scratch (header fixed, @filled bytes) at the end of a
 * compressed file: its records compressed when that saves bytes.
 */
static int etw_etl_append_compressed(struct etw_etl_writer *w,
				     uint32_t filled)
{
	const uint32_t hs = ETW_BUFFER_HEADER_SIZE;
	struct etw_buffer_header *bh = (struct etw_buffer_header *)w->scratch;
	ssize_t z;
	int ret;

	z = etw_xpress_compress(w->scratch + hs, filled - hs, w->zbuf,
				filled > hs + 1 ? filled - hs - 1 : 0);
	if (z < 0)
		return (int)z;
	if (!z) {
		bh->buffer_size = filled;
		ret = etw_etl_pwrite(w->fd, w->scratch, filled, w->end);
		if (!ret)
			w->end += filled;
		return ret;
	}
	bh->buffer_size = hs + (uint32_t)z;
	bh->buffer_flag |= ETW_ETL_BUFFER_FLAG_COMPRESSED;
	ret = etw_etl_pwrite(w->fd, w->scratch, hs, w->end);
	if (!ret)
		ret = etw_etl_pwrite(w->fd, w->zbuf, z, w->end + hs);
	if (!ret)
		w->end += hs + z;
	return ret;
}

/**
 * etw_etl_writer_append - write one sealed kernel buffer
 * @w: the writer
 * @buffer: a buffer of params->buffer_size bytes, as read from the kernel
 *
 * Return: 0; -EINVAL for a buffer of another size or with a bad fill;
 * -ENOSPC when a size-limited sequential file is full (the buffer is
 * counted in BuffersLost); or a write error.
 */
int etw_etl_writer_append(struct etw_etl_writer *w, const void *buffer)
{
	struct etw_buffer_header *bh = (struct etw_buffer_header *)w->scratch;
	uint32_t filled;
	uint64_t slot;
	int ret;

	memcpy(bh, buffer, sizeof(*bh));
	if (bh->buffer_size != w->bs ||
	    etw_etl_buffer_check(buffer, w->bs, &filled))
		return -EINVAL;
	ret = etw_etl_next_slot(w, &slot);
	if (ret)
		return ret;
	memcpy(w->scratch, buffer, filled);
	memset(w->scratch + filled, 0xff, w->bs - filled);
	bh->sequence_number = w->seq;
	bh->saved_offset = filled;
	bh->current_offset = filled;
	bh->offset = filled;
	if (w->compressed)
		ret = etw_etl_append_compressed(w, filled);
	else
		ret = etw_etl_pwrite(w->fd, w->scratch, w->bs, slot * w->bs);
	if (ret)
		return ret;
	w->seq++;
	w->appended++;
	if (w->in_file < slot)
		w->in_file = slot;
	if (bh->timestamp > w->max_timestamp)
		w->max_timestamp = bh->timestamp;
	return 0;
}

/**
 * etw_etl_writer_close - finish the file and free the writer
 * @w: the writer
 * @stats: final counts; NULL for none
 *
 * Return: 0 or the error of the final write, fsync or close.
 */
int etw_etl_writer_close(struct etw_etl_writer *w,
			 const struct etw_etl_writer_stats *stats)
{
	int ret;

	if (!w)
		return 0;
	ret = etw_etl_finish_file(w, stats);
	etw_etl_writer_free(w);
	return ret;
}

/* The number of the NEWFILE file being written (1 for other modes). */
uint32_t etw_etl_writer_file_number(const struct etw_etl_writer *w)
{
	return w->file_number;
}
