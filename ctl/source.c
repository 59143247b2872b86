// SPDX-License-Identifier: GPL-2.0
/*
 * source.c: where dump, view and stats get events from: ETL files,
 * merged in time order by the libetw ETL reader, or a live session's
 * consumer file (ETW_IOC_CONSUME), one sealed buffer per read().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "etwctl.h"
#include "clr.h"
#include "stacks.h"
#include "etw_lib.h"

#define ETWCTL_FT_UNIX_EPOCH	116444736000000000ll

/*
 * @readers, @nreaders, @merge: file sources
 * @fd: consumer file of a session source, else -1
 * @follow: block for new buffers until the session stops
 * @buf, @bufsize: the buffer being read
 * @it: records of @buf; @it.buf is NULL when a new buffer is needed
 * @clock: session clock (ns of CLOCK_MONOTONIC) to FILETIME
 * @start_time, @end_time: FILETIME bounds, for relative times and progress
 * @stacks: the set the records' stack records join in, or NULL
 * @ahead: the look-ahead that gives @stacks the records before they are
 *	read here (etwctl_source_join()), the same files; NULL at its end
 */
struct etwctl_source {
	struct etw_etl_reader **readers;
	unsigned int nreaders;
	bool shared;
	struct etw_etl_merge *merge;
	int fd;
	bool follow;
	uint8_t *buf;
	size_t bufsize;
	struct etw_etl_records it;
	struct etw_etl_clock clock;
	int64_t start_time;
	int64_t end_time;
	struct etwctl_stacks *stacks;
	struct etwctl_source *ahead;
};

static const struct etw_guid etwctl_padding_guid = ETW_PADDING_PROVIDER;

/*
 * The readers of the files a prepass reads, shared with the pass over
 * the same files before or after it, so that a compressed buffer is
 * inflated once (etw_etl_reader_keep()): @paths and @count as given,
 * @users sources open on them; @prepassed: kept for the pass to come
 * when none is open.
 */
static struct {
	char *const *paths;
	unsigned int count;
	struct etw_etl_reader **readers;
	unsigned int users;
	bool prepassed;
} etwctl_files;

/* Inflated buffers a prepass keeps in memory; the rest are spooled. */
#define ETWCTL_KEEP_MEM		(1u << 20)

static bool etwctl_files_match(char *const *paths, unsigned int count)
{
	unsigned int i;

	if (!etwctl_files.readers || etwctl_files.count != count)
		return false;
	for (i = 0; i < count; i++)
		if (strcmp(etwctl_files.paths[i], paths[i]))
			return false;
	return true;
}

static void etwctl_files_drop(void)
{
	unsigned int i;

	for (i = 0; i < etwctl_files.count; i++)
		etw_etl_reader_close(etwctl_files.readers[i]);
	free(etwctl_files.readers);
	memset(&etwctl_files, 0, sizeof(etwctl_files));
}

/**
 * etwctl_event_is_metadata - records that describe the file, not events
 * @ev: the record
 *
 * The HEADER-group system records (the log-file header and what Windows
 * writes after it) and the kernel's padding records are not shown as
 * events.
 *
 * Return: true to skip @ev.
 */
bool etwctl_event_is_metadata(const struct etw_etl_event *ev)
{
	if (ev->kind == ETW_ETL_KIND_SYSTEM &&
	    (ev->hook_id >> 8) == ETW_ETL_HOOK_GROUP_HEADER)
		return true;
	return ev->kind == ETW_ETL_KIND_EVENT &&
	       !memcmp(&ev->provider_id, &etwctl_padding_guid,
		       sizeof(etwctl_padding_guid));
}

static struct etwctl_source *etwctl_source_alloc(void)
{
	struct etwctl_source *src = calloc(1, sizeof(*src));

	if (src)
		src->fd = -1;
	return src;
}

static void etwctl_source_bounds(struct etwctl_source *src)
{
	const struct etw_etl_logfile_header *h;
	unsigned int i;

	for (i = 0; i < src->nreaders; i++) {
		h = etw_etl_reader_header(src->readers[i]);
		if (!i || (int64_t)h->start_time < src->start_time)
			src->start_time = (int64_t)h->start_time;
		if ((int64_t)h->end_time > src->end_time)
			src->end_time = (int64_t)h->end_time;
	}
}

/**
 * etwctl_source_open_files - events of ETL files, in time order
 * @paths: the files
 * @count: entries of @paths
 * @out: out: the source
 * @bad: out: the path that failed, on error
 *
 * Return: 0 or a negative errno.
 */
int etwctl_source_open_files(char *const *paths, unsigned int count,
			     struct etwctl_source **out, const char **bad)
{
	struct etwctl_source *src = etwctl_source_alloc();
	unsigned int i;
	int ret = 0;

	*bad = NULL;
	if (!src)
		return -ENOMEM;
	if (etwctl_files_match(paths, count)) {
		src->readers = etwctl_files.readers;
		src->nreaders = count;
		src->shared = true;
		etwctl_files.users++;
		etwctl_files.prepassed = false;
		ret = etw_etl_merge_open(src->readers, count, &src->merge);
		if (ret) {
			etwctl_source_close(src);
			return ret;
		}
		etwctl_source_bounds(src);
		*out = src;
		return 0;
	}
	src->readers = calloc(count, sizeof(*src->readers));
	if (!src->readers) {
		free(src);
		return -ENOMEM;
	}
	for (i = 0; i < count && !ret; i++) {
		ret = etw_etl_reader_open(paths[i], &src->readers[i]);
		if (ret)
			*bad = paths[i];
		else
			src->nreaders++;
	}
	if (!ret)
		ret = etw_etl_merge_open(src->readers, count, &src->merge);
	if (ret) {
		etwctl_source_close(src);
		return ret;
	}
	if (!etwctl_files.readers) {
		etwctl_files.paths = paths;
		etwctl_files.count = count;
		etwctl_files.readers = src->readers;
		etwctl_files.users = 1;
		src->shared = true;
	}
	etwctl_source_bounds(src);
	*out = src;
	return 0;
}

/**
 * etwctl_session_logger_id - a session's logger id and buffer size
 * @name: the session name
 * @logger_id: out: its logger id
 * @buffer_kb: out, optional: KiB per buffer
 *
 * Return: 0 or a negative errno (-ENOENT: no such session).
 */
int etwctl_session_logger_id(const char *name, uint32_t *logger_id,
			     uint32_t *buffer_kb)
{
	struct etw_session_args args = { .size = sizeof(args) };
	int ret;

	if (strlen(name) > ETW_MAX_NAME_LEN)
		return -ENAMETOOLONG;
	strcpy(args.name, name);
	ret = etw_dev_ioctl(ETW_IOC_QUERY, &args);
	if (ret)
		return ret;
	*logger_id = args.logger_id;
	if (buffer_kb)
		*buffer_kb = args.config.buffer_kb;
	return 0;
}

/* The session clock runs from boot; FILETIME = realtime in 100 ns. */
static int etwctl_session_clock(struct etwctl_source *src)
{
	struct etw_info info = { .size = sizeof(info) };
	int ret = etw_dev_ioctl(ETW_IOC_GET_INFO, &info);

	if (ret)
		return ret;
	src->clock.type = ETW_ETL_CLOCK_QPC;
	src->clock.perf_freq = 1000000000ull;
	src->clock.start_raw = 0;
	src->clock.start_time = info.boot_offset_ns / 100 +
				ETWCTL_FT_UNIX_EPOCH;
	return 0;
}

static int etwctl_session_flush(const char *name)
{
	struct etw_session_args args = { .size = sizeof(args) };

	strcpy(args.name, name);
	return etw_dev_ioctl(ETW_IOC_FLUSH, &args);
}

/**
 * etwctl_source_open_session - events of a running session
 * @name: the session
 * @follow: wait for new events until the session stops; otherwise flush
 *	the session and deliver what it holds now
 * @out: out: the source
 *
 * Return: 0 or a negative errno.
 */
int etwctl_source_open_session(const char *name, bool follow,
			       struct etwctl_source **out)
{
	struct etw_consume_args ca = { .size = sizeof(ca) };
	struct etwctl_source *src;
	uint32_t buffer_kb;
	struct timespec now;
	int ret;

	ret = etwctl_session_logger_id(name, &ca.logger_id, &buffer_kb);
	if (ret)
		return ret;
	src = etwctl_source_alloc();
	if (!src)
		return -ENOMEM;
	src->follow = follow;
	src->bufsize = (size_t)buffer_kb * 1024;
	src->buf = malloc(src->bufsize);
	ret = src->buf ? etwctl_session_clock(src) : -ENOMEM;
	if (!ret) {
		ca.flags = O_CLOEXEC | (follow ? 0 : O_NONBLOCK);
		src->fd = ioctl(etw_dev_fd(), ETW_IOC_CONSUME, &ca);
		if (src->fd < 0)
			ret = -errno;
	}
	if (!ret && !follow)
		ret = etwctl_session_flush(name);
	if (ret) {
		etwctl_source_close(src);
		return ret;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	src->start_time = (int64_t)now.tv_sec * 10000000 + now.tv_nsec / 100 +
			  ETWCTL_FT_UNIX_EPOCH;
	*out = src;
	return 0;
}

/* The next sealed buffer: 1, 0 at the end, or -errno. */
static int etwctl_session_read(struct etwctl_source *src)
{
	ssize_t n;

	n = read(src->fd, src->buf, src->bufsize);
	if (n < 0 && errno == EAGAIN && !src->follow)
		return 0;
	if (n < 0)
		return -errno;
	if (!n)
		return 0;
	return etw_etl_records_init(&src->it, src->buf, (size_t)n,
				    &src->clock) ?: 1;
}

static int etwctl_session_next(struct etwctl_source *src,
			       struct etw_etl_event *ev)
{
	int ret;

	for (;;) {
		if (src->it.buf) {
			ret = etw_etl_records_next(&src->it, ev);
			if (ret > 0)
				return ret;
			/* The rest of a corrupt buffer is skipped. */
			src->it.buf = NULL;
			if (ret)
				return ret;
		}
		ret = etwctl_session_read(src);
		if (ret <= 0)
			return ret;
	}
}

/**
 * etwctl_source_next - the next record
 * @src: the source
 * @ev: out: the record; valid until the next call
 *
 * Return: 1 with a record, 0 at the end, or a negative errno (-EBADMSG
 * for corrupt data, after which the next call goes on past it).
 */
/*
 * The look-ahead read on as far as the window of @src->stacks needs for
 * the record @ev just read; corrupt data is passed over, as the pass
 * over it passes it over.
 */
static int etwctl_source_ahead(struct etwctl_source *src,
			       const struct etw_etl_event *ev)
{
	struct etw_etl_event ahead;
	int ret;

	while (src->ahead && etwctl_stacks_want(src->stacks)) {
		ret = etw_etl_merge_next(src->ahead->merge, &ahead, NULL);
		if (ret == -EBADMSG || ret == -EOPNOTSUPP)
			continue;
		if (ret < 0)
			return ret;
		if (!ret) {
			etwctl_source_close(src->ahead);
			src->ahead = NULL;
			break;
		}
		ret = etwctl_stacks_ahead(src->stacks, &ahead);
		if (ret)
			return ret;
	}
	etwctl_stacks_step(src->stacks, ev);
	return 1;
}

int etwctl_source_next(struct etwctl_source *src, struct etw_etl_event *ev)
{
	int ret;

	if (src->fd >= 0)
		return etwctl_session_next(src, ev);
	ret = etw_etl_merge_next(src->merge, ev, NULL);
	if (ret <= 0 || !src->stacks)
		return ret;
	return etwctl_source_ahead(src, ev);
}

/**
 * etwctl_source_join - the stack records of files joined to their events
 * @src: a source of the files, none of its records read yet
 * @paths: the files, as @src was opened on them
 * @count: how many
 * @stacks: the sealed set of their stacks' definitions (the prepass's)
 *
 * From then on each record etwctl_source_next() gives is the record
 * shown to @stacks, etwctl_stacks_find() gives its stack: a second
 * source over the same files (and the same readers) reads ahead of it.
 *
 * Return: 0 or a negative errno.
 */
int etwctl_source_join(struct etwctl_source *src, char *const *paths,
		       unsigned int count, struct etwctl_stacks *stacks)
{
	const char *bad;
	int ret;

	ret = etwctl_source_open_files(paths, count, &src->ahead, &bad);
	if (ret)
		return ret;
	src->stacks = stacks;
	return 0;
}

/**
 * etwctl_source_start_time - FILETIME that relative --from/--to count from
 * @src: the source
 *
 * Return: the earliest file's StartTime, or when a session was opened.
 */
int64_t etwctl_source_start_time(const struct etwctl_source *src)
{
	return src->start_time;
}

/**
 * etwctl_source_progress - report how far into the files @ev is
 * @src: the source
 * @what: the operation, for the progress line
 * @ev: the last record read
 */
void etwctl_source_progress(const struct etwctl_source *src,
			    const char *what, const struct etw_etl_event *ev)
{
	if (src->fd >= 0 || src->end_time <= src->start_time ||
	    ev->timestamp < src->start_time)
		return;
	etwctl_progress(what, (uint64_t)(ev->timestamp - src->start_time),
			(uint64_t)(src->end_time - src->start_time));
}

/**
 * etwctl_source_close - free a source
 * @src: the source, or NULL
 */
void etwctl_source_close(struct etwctl_source *src)
{
	unsigned int i;

	if (!src)
		return;
	etwctl_source_close(src->ahead);
	etw_etl_merge_close(src->merge);
	if (src->shared) {
		if (!--etwctl_files.users && !etwctl_files.prepassed)
			etwctl_files_drop();
	} else {
		for (i = 0; i < src->nreaders; i++)
			etw_etl_reader_close(src->readers[i]);
		free(src->readers);
	}
	if (src->fd >= 0)
		close(src->fd);
	free(src->buf);
	free(src);
}

/* What a prepass gathers: into @syms, into @stacks (either may be NULL). */
struct etwctl_prepass {
	struct etwctl_symbols *syms;
	struct etwctl_stacks *stacks;
};

/*
 * The events a prepass takes: the Image and CLR events for an image map,
 * the stack records for a set of stacks.  The merge gives them in the
 * order it gives all, and the rest cost only their parsing.
 */
static bool etwctl_prepass_wants(const struct etw_etl_event *ev, void *arg)
{
	const struct etwctl_prepass *pp = arg;

	return (pp->syms && (etwctl_image_wants(ev) ||
			     etwctl_clr_wants(ev))) ||
	       (pp->stacks && etwctl_stacks_is_stack(ev));
}

/**
 * etwctl_source_prepass - what a pass over files must gather first
 * @paths: the files
 * @count: how many
 * @syms: the image map their Image events and the .NET runtime's
 *	JIT-compiled methods (clr.c) go into, or NULL
 * @stacks: the set their stacks' key definitions go into (sealed at the
 *	end), or NULL
 *
 * Corrupt data is passed over: it is the main pass's to count.
 *
 * Context: any thread.
 * Return: 0 or a negative errno.
 */
int etwctl_source_prepass(char *const *paths, unsigned int count,
			  struct etwctl_symbols *syms,
			  struct etwctl_stacks *stacks)
{
	struct etwctl_prepass pp = { .syms = syms, .stacks = stacks };
	struct etwctl_clr *clr = syms ? etwctl_clr_new() : NULL;
	struct etwctl_source *src;
	struct etw_etl_event ev;
	const char *bad;
	int ret;

	if (syms && !clr)
		return -ENOMEM;
	ret = etwctl_source_open_files(paths, count, &src, &bad);
	if (ret) {
		etwctl_clr_free(clr);
		return ret;
	}
	if (src->shared) {
		unsigned int i;

		for (i = 0; i < src->nreaders; i++)
			etw_etl_reader_keep(src->readers[i],
					    ETWCTL_KEEP_MEM / src->nreaders);
		etwctl_files.prepassed = true;
	}
	etw_etl_merge_filter(src->merge, etwctl_prepass_wants, &pp);
	while ((ret = etwctl_source_next(src, &ev)) != 0) {
		if (ret == -EBADMSG || ret == -EOPNOTSUPP)
			continue;
		if (ret < 0)
			break;
		ret = syms ? etwctl_image_event(syms, &ev) ?:
			     etwctl_clr_event(clr, &ev) : 0;
		if (!ret && stacks)
			ret = etwctl_stacks_define(stacks, &ev);
		if (ret)
			break;
	}
	etwctl_source_close(src);
	/* A pass open on the files drops the readers when it closes. */
	if (etwctl_files.users)
		etwctl_files.prepassed = false;
	if (!ret && syms)
		ret = etwctl_clr_finish(clr, syms);
	etwctl_clr_free(clr);
	if (!ret && stacks)
		etwctl_stacks_seal(stacks);
	return ret;
}
