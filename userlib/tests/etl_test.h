/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Helpers shared by the etl_*_test host tests: synthetic kernel buffers
 * built exactly as <linux/etw.h> describes them (0x48-byte header, 8-byte
 * aligned EVENT_HEADER64 records, 0xff tail), writer parameters and
 * scratch directories.
 */
#ifndef _ETL_TEST_H
#define _ETL_TEST_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etw_etl.h"

#define ETL_TEST_BS		4096
#define ETL_TEST_START_RAW	1000000000ull		/* 1 s of monotonic */
/* FILETIMEs of the session start and of the boot. */
#define ETL_TEST_START_TIME	133000000000000000ull
#define ETL_TEST_BOOT_TIME	132999999990000000ull
#define ETL_TEST_PAYLOAD	16

static const struct etw_guid etl_test_guid = {
	0x12345678, 0x9abc, 0xdef0,
	{ 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef }
};

static inline struct etw_etl_writer_params etl_test_params(void)
{
	struct etw_etl_writer_params p = {
		.buffer_size = ETL_TEST_BS,
		.number_of_processors = 4,
		.timer_resolution = 156250,
		.provider_version = 1,
		.logger_id = 7,
		.process_id = 1234,
		.thread_id = 1235,
		.start_raw = ETL_TEST_START_RAW,
		.start_time = ETL_TEST_START_TIME,
		.boot_time = ETL_TEST_BOOT_TIME,
		.logger_name = "etw-test",
	};

	return p;
}

/* An empty sealed buffer of @cpu: header only, 0xff tail. */
static inline void etl_buf_init(void *buf, uint32_t size, uint16_t cpu)
{
	struct etw_buffer_header *bh = buf;

	memset(buf, 0xff, size);
	memset(bh, 0, sizeof(*bh));
	bh->buffer_size = size;
	bh->saved_offset = ETW_BUFFER_HEADER_SIZE;
	bh->current_offset = ETW_BUFFER_HEADER_SIZE;
	bh->offset = ETW_BUFFER_HEADER_SIZE;
	bh->processor_index = cpu;
	bh->logger_id = 7;
	bh->state = ETW_BUFFER_STATE_FLUSH;
	bh->buffer_flag = ETW_BUFFER_FLAG_PROC_INDEX;
	bh->buffer_type = ETW_BUFFER_TYPE_GENERIC;
}

/*
 * Append a record: an EVENT_HEADER64 with @ext_count ext items of
 * @ext_data_size bytes each and @payload bytes of user data.  The seal
 * timestamp follows the last event, as the kernel's does.  Returns the
 * record's offset, or 0 when it does not fit.
 */
/* Out of line: inlined into a test, its locals trip -Wclobbered. */
static __attribute__((noinline, unused))
uint32_t etl_buf_add_ext(void *buf, uint16_t id, uint64_t ts, uint32_t pid,
			 unsigned int ext_count, uint16_t ext_data_size,
			 uint16_t payload)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *p = (uint8_t *)buf + bh->offset;
	uint32_t item = sizeof(struct etw_ext_item) +
			((ext_data_size + 7u) & ~7u);
	uint32_t size = sizeof(struct etw_event_header) + ext_count * item +
			payload;
	struct etw_event_header eh = {
		.size = size,
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.thread_id = pid + 1,
		.process_id = pid,
		.timestamp = ts,
		.provider_id = etl_test_guid,
		.descriptor = { .id = id, .version = 1, .level = 4,
				.keyword = 0x10 },
	};
	struct etw_ext_item x;
	unsigned int i;

	if (bh->offset + ((size + 7) & ~7u) > bh->buffer_size)
		return 0;
	if (ext_count)
		eh.flags = ETW_EVENT_FLAG_EXTENDED_INFO;
	memcpy(p, &eh, sizeof(eh));
	p += sizeof(eh);
	for (i = 0; i < ext_count; i++) {
		x.item_size = item;
		x.ext_type = ETW_EXT_EVENT_SCHEMA_TL;
		x.linkage = i + 1 < ext_count ? ETW_EXT_LINKAGE : 0;
		x.data_size = ext_data_size;
		memcpy(p, &x, sizeof(x));
		memset(p + sizeof(x), 0xa0 + i, item - sizeof(x));
		p += item;
	}
	for (i = 0; i < payload; i++)
		p[i] = (uint8_t)(id + i);
	memset(p + payload, 0, ((size + 7) & ~7u) - size);
	size = bh->offset;
	bh->offset += (eh.size + 7) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
	return size;
}

static inline uint32_t etl_buf_add(void *buf, uint16_t id, uint64_t ts)
{
	return etl_buf_add_ext(buf, id, ts, 100, 0, 0, ETL_TEST_PAYLOAD);
}

/* A buffer of @cpu with @n events, ids from @id, @step ns apart. */
static inline void etl_buf_fill(void *buf, uint16_t cpu, unsigned int n,
				uint16_t id, uint64_t ts, uint64_t step)
{
	unsigned int i;

	etl_buf_init(buf, ETL_TEST_BS, cpu);
	for (i = 0; i < n; i++)
		etl_buf_add(buf, id + i, ts + i * step);
}

/* A fresh scratch directory; the caller removes it with etl_rmdir(). */
static inline char *etl_mkdtemp(void)
{
	char tmpl[] = "/tmp/etl_test.XXXXXX";

	return mkdtemp(tmpl) ? strdup(tmpl) : NULL;
}

static inline void etl_rmdir(char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		perror("rm");
	free(dir);
}

static inline char *etl_path(const char *dir, const char *name)
{
	char *s;

	return asprintf(&s, "%s/%s", dir, name) < 0 ? NULL : s;
}

static inline off_t etl_file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* Read @len bytes at @off of @path into @buf; 0 on success. */
static inline int etl_read_at(const char *path, void *buf, size_t len,
			      off_t off)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static inline int etl_write_at(const char *path, const void *buf, size_t len,
			       off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/* Count the events (EVENT_HEADER records) of a file, in merged order. */
static inline int etl_count_events(const char *path, uint64_t *first_raw,
				   uint64_t *last_raw)
{
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int n = 0, ret;

	ret = etw_etl_reader_open(path, &r);
	if (ret)
		return ret;
	ret = etw_etl_merge_open(&r, 1, &m);
	if (ret) {
		etw_etl_reader_close(r);
		return ret;
	}
	while ((ret = etw_etl_merge_next(m, &ev, NULL)) > 0) {
		if (ev.kind != ETW_ETL_KIND_EVENT)
			continue;
		if (!n && first_raw)
			*first_raw = ev.raw_timestamp;
		if (last_raw)
			*last_raw = ev.raw_timestamp;
		n++;
	}
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
	return ret < 0 ? ret : n;
}

#endif /* _ETL_TEST_H */
