// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Compressed ETL files as the writer makes them (ETW_ETL_MODE_COMPRESSED)
 * and the reader reads them back: the layout Windows' relogger uses, and
 * buffers that come back byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl_test.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define NET	TESTDATA "/etl/net.4.5.2.x86.etl"
#define NBUF	6

FIXTURE(z) {
	char *dir;
	char *path;
	struct etw_etl_writer_params p;
	uint8_t bufs[NBUF][ETL_TEST_BS];
};

FIXTURE_SETUP(z)
{
	unsigned int i;

	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "z.etl");
	self->p = etl_test_params();
	self->p.log_file_mode = ETW_ETL_MODE_COMPRESSED;
	for (i = 0; i < NBUF; i++)
		etl_buf_fill(self->bufs[i], i % 2, 10 + 5 * i, 1,
			     ETL_TEST_START_RAW + 1000 * i, 10);
}

FIXTURE_TEARDOWN(z)
{
	free(self->path);
	etl_rmdir(self->dir);
}

static int write_bufs(const char *path,
		      const struct etw_etl_writer_params *p,
		      uint8_t (*bufs)[ETL_TEST_BS], unsigned int n)
{
	struct etw_etl_writer *w;
	unsigned int i;
	int ret;

	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, p, &w);
	if (ret)
		return ret;
	for (i = 0; !ret && i < n; i++)
		ret = etw_etl_writer_append(w, bufs[i]);
	return etw_etl_writer_close(w, NULL) ?: ret;
}

/* How many of the @n bytes at @p are 0xff. */
static size_t count_ff(const uint8_t *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += p[i] == 0xff;
	return k;
}

TEST_F(z, buffers_come_back)
{
	struct etw_buffer_header in, out;
	uint8_t back[ETL_TEST_BS];
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	uint64_t next;
	unsigned int i;

	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, NBUF));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ((uint64_t)NBUF + 1, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(ETL_TEST_BS, etw_etl_reader_buffer_size(r));
	EXPECT_EQ((uint32_t)ETW_ETL_MODE_COMPRESSED | ETW_ETL_MODE_SEQUENTIAL,
		  etw_etl_reader_header(r)->log_file_mode);
	EXPECT_EQ((uint32_t)NBUF + 1,
		  etw_etl_reader_header(r)->buffers_written);
	ASSERT_EQ(0, etw_etl_reader_stored(r, 0, &st));
	EXPECT_EQ(512u, st.size);
	EXPECT_FALSE(st.compressed);
	next = 512;
	for (i = 0; i < NBUF; i++) {
		ASSERT_EQ(0, etw_etl_reader_stored(r, i + 1, &st));
		EXPECT_EQ(next, st.offset);
		EXPECT_TRUE(st.compressed);
		memcpy(&in, self->bufs[i], sizeof(in));
		EXPECT_GT(in.offset / 2, st.size) TH_LOG("buffer %u", i);
		next += st.size;
		ASSERT_EQ(0, etw_etl_reader_buffer(r, i + 1, back));
		memcpy(&out, back, sizeof(out));
		EXPECT_EQ(in.offset, out.offset);
		EXPECT_EQ(ETL_TEST_BS, out.buffer_size);
		EXPECT_EQ(in.buffer_flag, out.buffer_flag);
		EXPECT_EQ(i + 1, out.sequence_number);
		EXPECT_EQ(0, memcmp(self->bufs[i] + ETW_BUFFER_HEADER_SIZE,
				    back + ETW_BUFFER_HEADER_SIZE,
				    in.offset - ETW_BUFFER_HEADER_SIZE));
		/* What the buffer does not fill reads as 0xff. */
		EXPECT_EQ(ETL_TEST_BS - in.offset,
			  count_ff(back + in.offset, ETL_TEST_BS - in.offset))
			TH_LOG("buffer %u", i);
	}
	EXPECT_EQ((off_t)next, etl_file_size(self->path));
	etw_etl_reader_close(r);
	EXPECT_EQ(10 + 15 + 20 + 25 + 30 + 35,
		  etl_count_events(self->path, NULL, NULL));
}

/*
 * Kept buffers (two in memory, the rest spooled) read back as they were
 * inflated, a buffer not yet read as a third pass finds it.
 */
TEST_F(z, kept_buffers_come_back)
{
	static uint8_t first[NBUF][ETL_TEST_BS];
	uint8_t back[ETL_TEST_BS];
	struct etw_etl_reader *r;
	struct etw_buffer_header bh;
	unsigned int i, pass;
	size_t mem = 0;

	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, NBUF));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	for (i = 0; i < 2; i++) {
		memcpy(&bh, self->bufs[i], sizeof(bh));
		mem += bh.offset;
	}
	etw_etl_reader_keep(r, mem);
	for (i = 0; i < NBUF; i++)
		ASSERT_EQ(0, etw_etl_reader_buffer(r, i + 1, first[i]));
	for (pass = 0; pass < 2; pass++) {
		for (i = NBUF; i-- > 0;) {
			memset(back, 0, sizeof(back));
			ASSERT_EQ(0, etw_etl_reader_buffer(r, i + 1, back));
			EXPECT_EQ(0, memcmp(first[i], back, ETL_TEST_BS))
				TH_LOG("pass %u, buffer %u", pass, i);
		}
	}
	etw_etl_reader_close(r);
}

/* A stream that inflates to less than the header's offset is corrupt. */
/*
 * Set the 32-bit field at @field of stored buffer @index's header to @v,
 * or add @v to it when @add.
 */
static int patch_u32(const char *path, uint64_t index, size_t field,
		     uint32_t v, bool add)
{
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	uint32_t old;
	off_t at;
	int fd, ret;

	ret = etw_etl_reader_open(path, &r);
	if (ret)
		return ret;
	ret = etw_etl_reader_stored(r, index, &st);
	etw_etl_reader_close(r);
	if (ret)
		return ret;
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	at = (off_t)st.offset + field;
	ret = pread(fd, &old, sizeof(old), at) == sizeof(old) ? 0 : -EIO;
	if (add)
		v += old;
	if (!ret && pwrite(fd, &v, sizeof(v), at) != sizeof(v))
		ret = -EIO;
	close(fd);
	return ret;
}

/*
 * A buffer whose header claims more than the file's buffer size is
 * corrupt, and the index ends with it.
 */
TEST_F(z, buffer_larger_than_the_file_buffer_size_is_corrupt)
{
	uint8_t back[ETL_TEST_BS];
	struct etw_etl_reader *r;

	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, NBUF));
	ASSERT_EQ(0, patch_u32(self->path, 1,
			       offsetof(struct etw_buffer_header, buffer_size),
			       ETL_TEST_BS + 8, false));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(2u, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, back));
	etw_etl_reader_close(r);
}

TEST_F(z, short_stream_is_ebadmsg)
{
	uint8_t back[ETL_TEST_BS];
	struct etw_etl_reader *r;

	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, NBUF));
	/* The first compressed buffer says it inflates to 8 bytes more. */
	ASSERT_EQ(0, patch_u32(self->path, 1,
			       offsetof(struct etw_buffer_header, offset), 8,
			       true));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, back));
	EXPECT_EQ(0, etw_etl_reader_buffer(r, 2, back));
	etw_etl_reader_close(r);
}

/* Records compression cannot shrink are stored as filled. */
TEST_F(z, incompressible_buffer_stored_as_filled)
{
	struct etw_buffer_header bh;
	uint8_t back[ETL_TEST_BS];
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	uint32_t s = 9, i;

	memcpy(&bh, self->bufs[0], sizeof(bh));
	for (i = ETW_BUFFER_HEADER_SIZE + 80; i < bh.offset; i++) {
		s = s * 1103515245u + 12345u;
		self->bufs[0][i] = s >> 24;
	}
	/* One record of random payload, filling the buffer. */
	self->bufs[0][ETW_BUFFER_HEADER_SIZE] =
		(bh.offset - ETW_BUFFER_HEADER_SIZE) & 0xff;
	self->bufs[0][ETW_BUFFER_HEADER_SIZE + 1] =
		(bh.offset - ETW_BUFFER_HEADER_SIZE) >> 8;
	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, 2));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	ASSERT_EQ(0, etw_etl_reader_stored(r, 1, &st));
	EXPECT_FALSE(st.compressed);
	EXPECT_EQ(bh.offset, st.size);
	ASSERT_EQ(0, etw_etl_reader_stored(r, 2, &st));
	EXPECT_TRUE(st.compressed);
	ASSERT_EQ(0, etw_etl_reader_buffer(r, 1, back));
	EXPECT_EQ(0, memcmp(self->bufs[0] + ETW_BUFFER_HEADER_SIZE,
			    back + ETW_BUFFER_HEADER_SIZE,
			    bh.offset - ETW_BUFFER_HEADER_SIZE));
	EXPECT_EQ(0xff, back[bh.offset]);
	etw_etl_reader_close(r);
}

TEST_F(z, log_file_name)
{
	struct etw_etl_reader *r;

	self->p.log_file_name = "[multiple files]";
	ASSERT_EQ(0, write_bufs(self->path, &self->p, self->bufs, 1));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_STREQ("[multiple files]", etw_etl_reader_file_name(r));
	etw_etl_reader_close(r);
}

/* Compressed files are sequential, without a size limit. */
TEST_F(z, modes_refused)
{
	static const uint32_t modes[] = { ETW_ETL_MODE_CIRCULAR,
		ETW_ETL_MODE_APPEND, ETW_ETL_MODE_APPEND |
		ETW_ETL_MODE_SEQUENTIAL };
	struct etw_etl_writer *w;
	char *pattern = etl_path(self->dir, "z_%d.etl");
	unsigned int i;

	self->p.max_file_size = 1;
	for (i = 0; i < sizeof(modes) / sizeof(*modes); i++)
		EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path, modes[i],
						       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(pattern, ETW_ETL_MODE_NEWFILE,
					       &self->p, &w));
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_SEQUENTIAL,
					       &self->p, &w));
	self->p.max_file_size = 0;
	EXPECT_EQ(-EINVAL, etw_etl_writer_open(self->path,
					       ETW_ETL_MODE_CIRCULAR,
					       &self->p, &w));
	free(pattern);
}

/*
 * Appending writes fixed slots: a compressed file is not appended to
 * (before, the buffer went to slot 1, over the first compressed one).
 */
TEST_F(z, not_appended_to)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer *w;
	unsigned int i;

	/* More than one buffer size in all, as an appendable file has. */
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	for (i = 0; i < 8 * NBUF; i++)
		ASSERT_EQ(0, etw_etl_writer_append(w, self->bufs[i % NBUF]));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	ASSERT_LT(2 * ETL_TEST_BS, etl_file_size(self->path));
	EXPECT_EQ(-EBADMSG, etw_etl_writer_open(self->path,
						ETW_ETL_MODE_APPEND, &p, &w));
	EXPECT_EQ(8 * (10 + 15 + 20 + 25 + 30 + 35),
		  etl_count_events(self->path, NULL, NULL));
}

/*
 * The compressor against Windows' on the buffers of a Windows file:
 * every buffer inflated and compressed again takes no more bytes in
 * total than Windows' relogger stored.
 */
TEST(as_small_as_windows)
{
	uint64_t i, ours = 0, theirs = 0;
	struct etw_buffer_header bh;
	struct etw_etl_stored st;
	struct etw_etl_reader *r;
	uint8_t *buf, *z, *back;
	size_t n;
	ssize_t len;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(NET, &r));
	buf = malloc(65536);
	z = malloc(65536);
	back = malloc(65536);
	for (i = 1; i < etw_etl_reader_buffer_count(r); i++) {
		ASSERT_EQ(0, etw_etl_reader_stored(r, i, &st));
		ASSERT_EQ(0, etw_etl_reader_buffer(r, i, buf));
		memcpy(&bh, buf, sizeof(bh));
		len = etw_xpress_compress(buf + 0x48, bh.offset - 0x48, z,
					  65536 - 0x48);
		ASSERT_LT(0, len);
		ASSERT_EQ(0, etw_xpress_decompress(z, len, back, 65536, &n));
		ASSERT_EQ(bh.offset - 0x48, n);
		ASSERT_EQ(0, memcmp(buf + 0x48, back, n));
		ours += 0x48 + len;
		theirs += st.size;
	}
	TH_LOG("compressed: ours %llu bytes, Windows' %llu",
	       (unsigned long long)ours, (unsigned long long)theirs);
	EXPECT_GE(theirs, ours);
	etw_etl_reader_close(r);
	free(buf);
	free(z);
	free(back);
}

TEST_HARNESS_MAIN
