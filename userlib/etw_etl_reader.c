// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_etl_reader.c: open an ETL file, parse its header buffer and read
 * its buffers.
 *
 * Buffers are read on demand with pread, so files larger than memory can
 * be processed.  The buffer count comes from the file size, not from
 * BuffersWritten: a writer that was killed leaves a stale count, and the
 * last complete buffer is what is worth reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etw_etl.h"

struct etw_etl_reader {
	int fd;
	uint32_t buffer_size;
	uint64_t buffer_count;
	struct etw_etl_logfile_header hdr;
	struct etw_etl_system_header hev;
	struct etw_etl_clock clock;
	char *logger_name;
	char *file_name;
};

/* The smallest header buffer that can hold the header event. */
#define ETW_ETL_MIN_HEADER_BUFFER (ETW_BUFFER_HEADER_SIZE + \
	sizeof(struct etw_etl_system_header) + ETW_ETL_LOGFILE_HEADER32_SIZE)

static int etw_etl_pread(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	while (len) {
		n = pread(fd, buf, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		buf = (uint8_t *)buf + n;
		len -= n;
		off += n;
	}
	return 0;
}

/*
 * The 32-bit form differs only in its two 4-byte name fields; the rest
 * moves up by 8 bytes.
 */
static void etw_etl_header_from32(struct etw_etl_logfile_header *h,
				  const uint8_t *p)
{
	const size_t names = offsetof(struct etw_etl_logfile_header,
				      logger_name);
	uint32_t name;

	memcpy(h, p, names);
	memcpy(&name, p + names, sizeof(name));
	h->logger_name = name;
	memcpy(&name, p + names + 4, sizeof(name));
	h->log_file_name = name;
	memcpy(h->time_zone, p + names + 8,
	       ETW_ETL_LOGFILE_HEADER32_SIZE - names - 8);
}

/* Two NUL-terminated UTF-16LE names follow the logfile header. */
static int etw_etl_parse_names(struct etw_etl_reader *r, const uint8_t *p,
			       size_t len)
{
	size_t units = len / 2, i = 0;

	r->logger_name = etw_etl_utf16_to_utf8(p, units);
	while (i < units && (p[2 * i] || p[2 * i + 1]))
		i++;
	i = i < units ? i + 1 : units;
	r->file_name = etw_etl_utf16_to_utf8(p + 2 * i, units - i);
	return r->logger_name && r->file_name ? 0 : -ENOMEM;
}

static int etw_etl_parse_header_event(struct etw_etl_reader *r,
				      const struct etw_etl_event *ev)
{
	bool is32 = ev->header_type == ETW_ETL_HT_SYSTEM32;
	size_t tlh = is32 ? ETW_ETL_LOGFILE_HEADER32_SIZE :
			    ETW_ETL_LOGFILE_HEADER_SIZE;

	if (ev->kind != ETW_ETL_KIND_SYSTEM || ev->hook_id ||
	    (!is32 && ev->header_type != ETW_ETL_HT_SYSTEM64) ||
	    ev->user_data_len < tlh)
		return -EBADMSG;
	memcpy(&r->hev, ev->record, sizeof(r->hev));
	if (is32)
		etw_etl_header_from32(&r->hdr, ev->user_data);
	else
		memcpy(&r->hdr, ev->user_data, tlh);
	if (r->hdr.buffer_size != r->buffer_size ||
	    (r->hdr.pointer_size != 4 && r->hdr.pointer_size != 8))
		return -EBADMSG;
	if (r->hdr.log_file_mode & ETW_ETL_MODE_COMPRESSED)
		return -EOPNOTSUPP;
	return etw_etl_parse_names(r, (const uint8_t *)ev->user_data + tlh,
				   ev->user_data_len - tlh);
}

static int etw_etl_read_header(struct etw_etl_reader *r, uint64_t file_size)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	struct etw_buffer_header bh;
	uint8_t *buf;
	int ret;

	ret = etw_etl_pread(r->fd, &bh, sizeof(bh), 0);
	if (ret)
		return ret;
	if (bh.buffer_type != ETW_BUFFER_TYPE_HEADER ||
	    bh.buffer_size < ETW_ETL_MIN_HEADER_BUFFER ||
	    bh.buffer_size > ETW_ETL_MAX_BUFFER_SIZE ||
	    bh.buffer_size > file_size)
		return -EBADMSG;
	r->buffer_size = bh.buffer_size;
	buf = malloc(r->buffer_size);
	if (!buf)
		return -ENOMEM;
	ret = etw_etl_pread(r->fd, buf, r->buffer_size, 0);
	if (!ret)
		ret = etw_etl_records_init(&it, buf, r->buffer_size, NULL);
	if (!ret) {
		ret = etw_etl_records_next(&it, &ev);
		ret = ret == 1 ? etw_etl_parse_header_event(r, &ev) :
				 ret ? ret : -EBADMSG;
	}
	free(buf);
	return ret;
}

/**
 * etw_etl_reader_open - open an ETL file and parse its header buffer
 * @path: the file
 * @out: out: the reader
 *
 * Return: 0, -errno from open(), -EBADMSG for a file that is not a
 * readable ETL file, or -EOPNOTSUPP for a compressed one.
 */
int etw_etl_reader_open(const char *path, struct etw_etl_reader **out)
{
	struct etw_etl_reader *r;
	struct stat st;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		free(r);
		return ret;
	}
	ret = fstat(r->fd, &st) ? -errno : 0;
	if (!ret)
		ret = etw_etl_read_header(r, st.st_size);
	if (ret) {
		etw_etl_reader_close(r);
		return ret;
	}
	r->buffer_count = (uint64_t)st.st_size / r->buffer_size;
	r->clock.type = r->hdr.reserved_flags;
	r->clock.perf_freq = r->hdr.perf_freq;
	r->clock.cpu_speed_mhz = r->hdr.cpu_speed_mhz;
	r->clock.start_raw = r->hev.system_time;
	r->clock.start_time = r->hdr.start_time;
	*out = r;
	return 0;
}

void etw_etl_reader_close(struct etw_etl_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->logger_name);
	free(r->file_name);
	free(r);
}

const struct etw_etl_logfile_header *
etw_etl_reader_header(const struct etw_etl_reader *r)
{
	return &r->hdr;
}

const struct etw_etl_system_header *
etw_etl_reader_header_event(const struct etw_etl_reader *r)
{
	return &r->hev;
}

const struct etw_etl_clock *
etw_etl_reader_clock(const struct etw_etl_reader *r)
{
	return &r->clock;
}

const char *etw_etl_reader_logger_name(const struct etw_etl_reader *r)
{
	return r->logger_name;
}

const char *etw_etl_reader_file_name(const struct etw_etl_reader *r)
{
	return r->file_name;
}

uint32_t etw_etl_reader_buffer_size(const struct etw_etl_reader *r)
{
	return r->buffer_size;
}

/* Complete buffers in the file, header buffer included. */
uint64_t etw_etl_reader_buffer_count(const struct etw_etl_reader *r)
{
	return r->buffer_count;
}

int etw_etl_reader_buffer_header(struct etw_etl_reader *r, uint64_t index,
				 struct etw_buffer_header *bh)
{
	if (index >= r->buffer_count)
		return -ERANGE;
	return etw_etl_pread(r->fd, bh, sizeof(*bh), index * r->buffer_size);
}

/**
 * etw_etl_reader_buffer - read and validate one buffer
 * @r: the reader
 * @index: 0 .. etw_etl_reader_buffer_count() - 1, in file order
 * @buf: receives etw_etl_reader_buffer_size() bytes
 */
int etw_etl_reader_buffer(struct etw_etl_reader *r, uint64_t index,
			  void *buf)
{
	uint32_t filled;
	int ret;

	if (index >= r->buffer_count)
		return -ERANGE;
	ret = etw_etl_pread(r->fd, buf, r->buffer_size,
			    index * r->buffer_size);
	if (ret)
		return ret;
	return etw_etl_buffer_check(buf, r->buffer_size, &filled);
}
