// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The ETL writer: header bytes against reference §4.6/§5.2/§5.4, and
 * writer -> reader round trips in every file mode.
 */
#include <errno.h>
#include <sys/wait.h>

#include "etl_test.h"
#include "kselftest_harness.h"
#include "testdata.h"

/* 16 KiB files of 4 KiB buffers: the header buffer and 3 data buffers. */
#define SMALL_KB	16
#define SLOTS		3

FIXTURE(etl) {
	char *dir;
	char *path;
	struct etw_etl_writer_params p;
	uint8_t buf[ETL_TEST_BS];
	uint64_t first;
	uint64_t last;
};

FIXTURE_SETUP(etl)
{
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "trace.etl");
	self->p = etl_test_params();
}

FIXTURE_TEARDOWN(etl)
{
	free(self->path);
	etl_rmdir(self->dir);
}

static uint32_t rd32(const uint8_t *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

static uint16_t rd16(const uint8_t *b, size_t off)
{
	uint16_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* Buffer k of a run: 4 events of CPU k % 4, ids k * 10.., 1 ms apart. */
static void make_buffer(uint8_t *buf, unsigned int k)
{
	etl_buf_fill(buf, k % 4, 4, k * 10,
		     ETL_TEST_START_RAW + (k + 1) * 1000000ull, 1000);
}

static int append_n(struct etw_etl_writer *w, uint8_t *buf,
		    unsigned int from, unsigned int n)
{
	unsigned int k;
	int ret;

	for (k = from; k < from + n; k++) {
		make_buffer(buf, k);
		ret = etw_etl_writer_append(w, buf);
		if (ret)
			return ret;
	}
	return 0;
}

/* Byte offsets from reference §5.2 (buffer), §5.4 and §4.6 (+0x68). */
TEST_F(etl, header_bytes)
{
	struct etw_etl_writer_stats st = {
		.end_time = ETL_TEST_START_TIME + 123456,
		.events_lost = 3,
		.buffers_lost = 2,
	};
	static const char name16[] = "e\0t\0w\0-\0t\0e\0s\0t\0\0";
	struct etw_etl_writer *w;
	uint8_t b[3 * ETL_TEST_BS];
	size_t names, filled, i;
	uint32_t rec;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 2));
	ASSERT_EQ(0, etw_etl_writer_close(w, &st));
	ASSERT_EQ(3 * ETL_TEST_BS, etl_file_size(self->path));
	ASSERT_EQ(0, etl_read_at(self->path, b, sizeof(b), 0));

	names = 2 * (strlen("etw-test") + 1) + 2 * (strlen(self->path) + 1);
	rec = 32 + 0x118 + names;
	filled = (0x48 + rec + 7) & ~7ul;
	EXPECT_EQ((uint32_t)ETL_TEST_BS, rd32(b, 0x00));
	EXPECT_EQ(filled, rd32(b, 0x04));
	EXPECT_EQ(filled, rd32(b, 0x08));
	EXPECT_EQ(0u, rd64(b, 0x18));
	EXPECT_EQ(0, rd16(b, 0x28));
	EXPECT_EQ(7, rd16(b, 0x2a));
	EXPECT_EQ(3u, rd32(b, 0x2c));
	EXPECT_EQ(filled, rd32(b, 0x30));
	EXPECT_EQ(0x21, rd16(b, 0x34));
	EXPECT_EQ(4, rd16(b, 0x36));
	/* The header event: SYSTEM_TRACE_HEADER. */
	EXPECT_EQ(0xc0020002u, rd32(b, 0x48));
	EXPECT_EQ(rec, rd16(b, 0x4c));
	EXPECT_EQ(0, rd16(b, 0x4e));
	EXPECT_EQ(1235u, rd32(b, 0x50));
	EXPECT_EQ(1234u, rd32(b, 0x54));
	EXPECT_EQ(ETL_TEST_START_RAW, rd64(b, 0x58));
	/* TRACE_LOGFILE_HEADER at 0x68. */
	EXPECT_EQ((uint32_t)ETL_TEST_BS, rd32(b, 0x68 + 0x00));
	EXPECT_EQ(0, memcmp(b + 0x68 + 0x04, "\x0a\x00\x01\x05", 4));
	EXPECT_EQ(4u, rd32(b, 0x68 + 0x0c));
	EXPECT_EQ(ETL_TEST_START_TIME + 123456, rd64(b, 0x68 + 0x10));
	EXPECT_EQ(156250u, rd32(b, 0x68 + 0x18));
	EXPECT_EQ(1u, rd32(b, 0x68 + 0x20));
	EXPECT_EQ(3u, rd32(b, 0x68 + 0x24));
	EXPECT_EQ(1u, rd32(b, 0x68 + 0x28));
	EXPECT_EQ(8u, rd32(b, 0x68 + 0x2c));
	EXPECT_EQ(3u, rd32(b, 0x68 + 0x30));
	EXPECT_EQ(0u, rd32(b, 0x68 + 0xf4));
	EXPECT_EQ(ETL_TEST_BOOT_TIME, rd64(b, 0x68 + 0xf8));
	EXPECT_EQ(1000000000u, rd64(b, 0x68 + 0x100));
	EXPECT_EQ(ETL_TEST_START_TIME, rd64(b, 0x68 + 0x108));
	EXPECT_EQ(1u, rd32(b, 0x68 + 0x110));
	EXPECT_EQ(2u, rd32(b, 0x68 + 0x114));
	EXPECT_EQ(0, memcmp(b + 0x68 + 0x118, name16, sizeof(name16) - 1));
	EXPECT_EQ('/', b[0x68 + 0x118 + 18]);
	for (i = filled; i < ETL_TEST_BS; i++)
		ASSERT_EQ(0xff, b[i]);
	/* Data buffers: renumbered from 1, fill fields equal, 0xff tail. */
	for (i = 1; i < 3; i++) {
		const uint8_t *d = b + i * ETL_TEST_BS;
		uint32_t f = rd32(d, 0x30);

		EXPECT_EQ(i, rd64(d, 0x18));
		EXPECT_EQ(f, rd32(d, 0x04));
		EXPECT_EQ(f, rd32(d, 0x08));
		EXPECT_EQ(0x48u + 4 * 96, f);
		EXPECT_EQ(0, rd16(d, 0x36));
		EXPECT_EQ(0xff, d[f]);
		EXPECT_EQ(0xff, d[ETL_TEST_BS - 1]);
	}
}

TEST_F(etl, sequential_round_trip)
{
	const struct etw_etl_logfile_header *h;
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int n = 0, sys = 0, ret;
	uint64_t prev = 0;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 10));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));

	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	h = etw_etl_reader_header(r);
	EXPECT_EQ(11u, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(11u, h->buffers_written);
	EXPECT_EQ(4u, h->number_of_processors);
	EXPECT_EQ(1000000000u, h->perf_freq);
	EXPECT_EQ(ETL_TEST_START_TIME, h->start_time);
	/* No stop time given: the last buffer's seal, in FILETIME. */
	EXPECT_EQ(ETL_TEST_START_TIME + (10 * 1000000ull + 3000) / 100,
		  h->end_time);
	EXPECT_STREQ("etw-test", etw_etl_reader_logger_name(r));
	EXPECT_STREQ(self->path, etw_etl_reader_file_name(r));
	ASSERT_EQ(0, etw_etl_merge_open(&r, 1, &m));
	while ((ret = etw_etl_merge_next(m, &ev, NULL)) == 1) {
		if (ev.kind == ETW_ETL_KIND_SYSTEM) {
			sys++;
			EXPECT_EQ(ETL_TEST_START_TIME, (uint64_t)ev.timestamp);
			continue;
		}
		/* Buffer k holds ids 10k..10k+3; all in time order. */
		EXPECT_EQ(n / 4 * 10 + n % 4, ev.descriptor.id);
		EXPECT_EQ(n / 4 % 4, ev.processor_index);
		EXPECT_LT(prev, ev.raw_timestamp);
		prev = ev.raw_timestamp;
		EXPECT_EQ(ETL_TEST_START_TIME +
			  (ev.raw_timestamp - ETL_TEST_START_RAW) / 100,
			  (uint64_t)ev.timestamp);
		EXPECT_EQ(100u, ev.process_id);
		EXPECT_EQ(7, ev.logger_id);
		EXPECT_EQ((unsigned int)ETL_TEST_PAYLOAD, ev.user_data_len);
		n++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, sys);
	EXPECT_EQ(40, n);
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
}

TEST_F(etl, sequential_full)
{
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	unsigned int k;

	self->p.max_file_size = SMALL_KB;
	self->p.log_file_mode = ETW_ETL_MODE_KBYTES;
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	for (k = 0; k < 5; k++) {
		make_buffer(self->buf, k);
		EXPECT_EQ(k < SLOTS ? 0 : -ENOSPC,
			  etw_etl_writer_append(w, self->buf));
	}
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){
		.buffers_lost = 1 }));
	EXPECT_EQ(SMALL_KB * 1024, etl_file_size(self->path));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(4u, etw_etl_reader_header(r)->buffers_written);
	EXPECT_EQ(3u, etw_etl_reader_header(r)->buffers_lost);
	EXPECT_EQ((uint32_t)(SMALL_KB | ETW_ETL_MODE_SEQUENTIAL),
		  etw_etl_reader_header(r)->maximum_file_size |
		  (etw_etl_reader_header(r)->log_file_mode & 0xf));
	EXPECT_EQ((uint32_t)ETW_ETL_MODE_KBYTES,
		  etw_etl_reader_header(r)->log_file_mode &
		  ETW_ETL_MODE_KBYTES);
	etw_etl_reader_close(r);
	EXPECT_EQ(SLOTS * 4, etl_count_events(self->path, NULL, NULL));
}

/*
 * 7 buffers into 3 slots: the last 3 survive (buffers 4, 5, 6), in slots
 * 2, 3, 1, with sequence numbers 5, 6, 7.
 */
TEST_F(etl, circular_wrap)
{
	static const uint64_t seq_in_slot[] = { 0, 7, 5, 6 };
	struct etw_buffer_header bh;
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	int i;

	self->p.max_file_size = SMALL_KB;
	self->p.log_file_mode = ETW_ETL_MODE_KBYTES;
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_CIRCULAR,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 7));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	EXPECT_EQ(SMALL_KB * 1024, etl_file_size(self->path));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(4u, etw_etl_reader_header(r)->buffers_written);
	EXPECT_EQ((uint32_t)(ETW_ETL_MODE_CIRCULAR | ETW_ETL_MODE_KBYTES),
		  etw_etl_reader_header(r)->log_file_mode);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, etw_etl_reader_buffer_header(r, i, &bh));
		EXPECT_EQ(seq_in_slot[i], bh.sequence_number);
	}
	etw_etl_reader_close(r);
	/* 12 events of buffers 4..6: raw times from buffer 4's first. */
	EXPECT_EQ(12, etl_count_events(self->path, &self->first,
					   &self->last));
	EXPECT_EQ(ETL_TEST_START_RAW + 5 * 1000000ull, self->first);
	EXPECT_EQ(ETL_TEST_START_RAW + 7 * 1000000ull + 3000, self->last);
}

/* A circular file that never wrapped holds just what was written. */
TEST_F(etl, circular_no_wrap)
{
	struct etw_etl_writer *w;

	self->p.max_file_size = SMALL_KB;
	self->p.log_file_mode = ETW_ETL_MODE_KBYTES;
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_CIRCULAR,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 2));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	EXPECT_EQ(3 * ETL_TEST_BS, etl_file_size(self->path));
	EXPECT_EQ(8, etl_count_events(self->path, NULL, NULL));
}

/* 8 buffers, 3 per file: files 1, 2 and 3 with 3, 3 and 2 buffers. */
TEST_F(etl, newfile_rotation)
{
	static const int per_file[] = { 3, 3, 2 };
	struct etw_buffer_header bh;
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	char *pattern, *path;
	int i, j;

	pattern = etl_path(self->dir, "nf_%d.etl");
	self->p.max_file_size = SMALL_KB;
	self->p.log_file_mode = ETW_ETL_MODE_KBYTES;
	ASSERT_EQ(0, etw_etl_writer_open(pattern, ETW_ETL_MODE_NEWFILE,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 8));
	EXPECT_EQ(3u, etw_etl_writer_file_number(w));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	for (i = 0; i < 3; i++) {
		ASSERT_LT(0, asprintf(&path, "%s/nf_%d.etl", self->dir, i + 1));
		ASSERT_EQ(0, etw_etl_reader_open(path, &r));
		EXPECT_EQ((uint32_t)per_file[i] + 1,
			  etw_etl_reader_header(r)->buffers_written);
		EXPECT_STREQ(path, etw_etl_reader_file_name(r));
		for (j = 0; j < per_file[i] + 1; j++) {
			ASSERT_EQ(0, etw_etl_reader_buffer_header(r, j, &bh));
			EXPECT_EQ((uint64_t)j, bh.sequence_number);
		}
		etw_etl_reader_close(r);
		EXPECT_EQ(per_file[i] * 4, etl_count_events(path, &self->first,
							   NULL));
		EXPECT_EQ(ETL_TEST_START_RAW + (3 * i + 1) * 1000000ull,
			  self->first);
		free(path);
	}
	path = etl_path(self->dir, "nf_4.etl");
	EXPECT_EQ(-1, etl_file_size(path));
	free(path);
	free(pattern);
}

TEST_F(etl, append)
{
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	struct etw_buffer_header bh;
	int i;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 2));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){
		.events_lost = 1 }));
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND |
					 ETW_ETL_MODE_SEQUENTIAL, &self->p,
					 &w));
	ASSERT_EQ(0, append_n(w, self->buf, 2, 2));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){
		.events_lost = 2 }));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(5u, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(5u, etw_etl_reader_header(r)->buffers_written);
	EXPECT_EQ(3u, etw_etl_reader_header(r)->events_lost);
	EXPECT_EQ(ETL_TEST_START_TIME, etw_etl_reader_header(r)->start_time);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, etw_etl_reader_buffer_header(r, i, &bh));
		EXPECT_EQ((uint64_t)i, bh.sequence_number);
	}
	etw_etl_reader_close(r);
	EXPECT_EQ(16, etl_count_events(self->path, &self->first,
					   &self->last));
	EXPECT_EQ(ETL_TEST_START_RAW + 1000000ull, self->first);
	EXPECT_EQ(ETL_TEST_START_RAW + 4 * 1000000ull + 3000, self->last);
}

TEST_F(etl, append_creates_missing_file)
{
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 0, 1));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	EXPECT_EQ(4, etl_count_events(self->path, NULL, NULL));
}

/* Files that must not be continued: other buffer size, clock or boot. */
TEST_F(etl, append_rejects)
{
	struct etw_etl_writer *w;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	self->p.buffer_size = 8192;
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_APPEND,
					       &self->p, &w));
	self->p.buffer_size = ETL_TEST_BS;
	self->p.boot_time += 3600 * 10000000ull;
	EXPECT_EQ(-EXDEV, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND,
					      &self->p, &w));
	/* Windows' file: a 10 MHz QPC clock, not ours. */
	self->p.buffer_size = 0;
	EXPECT_EQ(-EBADMSG, etw_etl_writer_open(TESTDATA
		"/etl/primitive-types.etl", ETW_ETL_MODE_APPEND,
		&self->p, &w));
}

TEST_F(etl, bad_arguments)
{
	struct etw_etl_writer *w;
	char *pattern = etl_path(self->dir, "x_%s_%d.etl");

	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_NEWFILE,
					       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(pattern, ETW_ETL_MODE_NEWFILE,
					       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_CIRCULAR,
					       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_CIRCULAR |
					       ETW_ETL_MODE_APPEND,
					       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_NEWFILE |
					       ETW_ETL_MODE_SEQUENTIAL,
					       &self->p, &w));
	self->p.buffer_size = 100;
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_SEQUENTIAL,
					       &self->p, &w));
	free(pattern);
}

TEST_F(etl, append_rejects_bad_buffers)
{
	struct etw_buffer_header *bh = (void *)self->buf;
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	make_buffer(self->buf, 0);
	bh->offset = ETL_TEST_BS + 8;
	EXPECT_EQ(-EINVAL, etw_etl_writer_append(w, self->buf));
	make_buffer(self->buf, 0);
	bh->buffer_size = 8192;
	EXPECT_EQ(-EINVAL, etw_etl_writer_append(w, self->buf));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	EXPECT_EQ(ETL_TEST_BS, etl_file_size(self->path));
}

/*
 * A writer killed mid-run: the header still says 1 buffer, and the last
 * buffer was cut short.  The reader uses the complete buffers.
 */
TEST_F(etl, killed_writer)
{
	struct etw_etl_writer *w;
	struct etw_etl_reader *r;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					&self->p, &w) ||
		    append_n(w, self->buf, 0, 3))
			_exit(1);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, truncate(self->path, 3 * ETL_TEST_BS + 100));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(1u, etw_etl_reader_header(r)->buffers_written);
	EXPECT_EQ(3u, etw_etl_reader_buffer_count(r));
	etw_etl_reader_close(r);
	EXPECT_EQ(8, etl_count_events(self->path, NULL, NULL));

	/* Appending to it overwrites the partial buffer. */
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND,
					 &self->p, &w));
	ASSERT_EQ(0, append_n(w, self->buf, 3, 1));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	EXPECT_EQ(4 * ETL_TEST_BS, etl_file_size(self->path));
	EXPECT_EQ(12, etl_count_events(self->path, NULL, NULL));
}

TEST_HARNESS_MAIN
