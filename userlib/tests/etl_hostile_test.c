// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Corrupt and hostile input: the reader must reject it with an error and
 * never read outside the buffer.  Buffers are malloc'ed at their exact
 * size so that AddressSanitizer or valgrind flag any stray read.
 */
#include <errno.h>

#include "etl_test.h"
#include "kselftest_harness.h"

static uint8_t *new_buffer(void)
{
	uint8_t *b = malloc(ETL_TEST_BS);

	if (b)
		etl_buf_init(b, ETL_TEST_BS, 1);
	return b;
}

/* Iterate to the end; return the last result, count records in *n. */
static int walk(const uint8_t *b, size_t len, int *n, uint32_t *skipped)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	int ret;

	*n = 0;
	ret = etw_etl_records_init(&it, b, len, NULL);
	if (ret)
		return ret;
	while ((ret = etw_etl_records_next(&it, &ev)) == 1)
		(*n)++;
	if (skipped)
		*skipped = it.skipped;
	/* Once finished, an iterator stays finished. */
	if (etw_etl_records_next(&it, &ev) != 0)
		return -EFAULT;
	return ret;
}

static struct etw_event_header *rec_at(uint8_t *b, uint32_t off)
{
	return (struct etw_event_header *)(b + off);
}

TEST(record_past_fill)
{
	uint8_t *b = new_buffer();
	uint32_t off;
	int n;

	ASSERT_NE(NULL, b);
	etl_buf_add(b, 1, 10);
	off = etl_buf_add(b, 2, 20);
	rec_at(b, off)->size = 0xffff;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	EXPECT_EQ(1, n);
	/* One byte past the fill is already too far. */
	rec_at(b, off)->size = ((struct etw_buffer_header *)b)->offset - off +
			       1;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

TEST(zero_and_tiny_sizes)
{
	uint8_t *b = new_buffer();
	uint32_t off;
	int n;

	ASSERT_NE(NULL, b);
	off = etl_buf_add(b, 1, 10);
	rec_at(b, off)->size = 0;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	EXPECT_EQ(0, n);
	/* Smaller than an EVENT_HEADER. */
	rec_at(b, off)->size = 79;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

TEST(missing_header_flag)
{
	uint8_t *b = new_buffer();
	uint32_t off;
	int n;

	ASSERT_NE(NULL, b);
	off = etl_buf_add(b, 1, 10);
	rec_at(b, off)->header_type = 0x0013;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

/* One event with two 16-byte ext items; the second item's header. */
static struct etw_ext_item *ext_event(uint8_t *b, struct etw_ext_item **x0)
{
	uint32_t off = etl_buf_add_ext(b, 1, 10, 100, 2, 16, 8);

	*x0 = (struct etw_ext_item *)(b + off + 80);
	return (struct etw_ext_item *)(b + off + 80 + 24);
}

TEST(ext_items_valid)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	struct etw_ext_item *x0;
	uint8_t *b = new_buffer();

	ASSERT_NE(NULL, b);
	ext_event(b, &x0);
	ASSERT_EQ(0, etw_etl_records_init(&it, b, ETL_TEST_BS, NULL));
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	ASSERT_EQ(2u, ev.ext_count);
	EXPECT_EQ(16, ev.ext[0].size);
	EXPECT_EQ(0xa0, *(const uint8_t *)ev.ext[0].data);
	EXPECT_EQ(0xa1, *(const uint8_t *)ev.ext[1].data);
	EXPECT_EQ(8u, ev.user_data_len);
	EXPECT_EQ(0, etw_etl_records_next(&it, &ev));
	free(b);
}

TEST(ext_item_size_not_multiple_of_8)
{
	struct etw_ext_item *x0, *x1;
	uint8_t *b = new_buffer();
	int n;

	ASSERT_NE(NULL, b);
	x1 = ext_event(b, &x0);
	x0->item_size = 20;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	x0->item_size = 24;
	x1->item_size = 4;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	x1->item_size = 0;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

TEST(ext_item_overruns_record)
{
	struct etw_ext_item *x0, *x1;
	uint8_t *b = new_buffer();
	int n;

	ASSERT_NE(NULL, b);
	x1 = ext_event(b, &x0);
	x1->item_size = 40;	/* the record has 24 + 8 bytes left */
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	x1->item_size = 24;
	x1->data_size = 17;	/* more than item_size - 8 */
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	x1->data_size = 16;
	x1->linkage = 1;	/* another item, but only payload follows */
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

TEST(ext_item_count_limit)
{
	uint8_t *b = new_buffer();
	int n;

	ASSERT_NE(NULL, b);
	etl_buf_add_ext(b, 1, 10, 100, ETW_ETL_MAX_EXT_ITEMS, 0, 0);
	EXPECT_EQ(0, walk(b, ETL_TEST_BS, &n, NULL));
	EXPECT_EQ(1, n);
	etl_buf_add_ext(b, 2, 20, 100, ETW_ETL_MAX_EXT_ITEMS + 1, 0, 0);
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	EXPECT_EQ(1, n);
	free(b);
}

/* Unknown header types are skipped by their size field. */
TEST(unknown_records_skipped)
{
	uint8_t *b = new_buffer();
	uint32_t skipped, off;
	int n;

	ASSERT_NE(NULL, b);
	off = etl_buf_add(b, 1, 10);
	rec_at(b, off)->header_type = 0xc0ff;
	off = etl_buf_add(b, 2, 20);
	rec_at(b, off)->header_type = 0xc0fe;
	etl_buf_add(b, 3, 30);
	EXPECT_EQ(0, walk(b, ETL_TEST_BS, &n, &skipped));
	EXPECT_EQ(1, n);
	EXPECT_EQ(2u, skipped);
	free(b);
}

/* Classic, instance, perfinfo and compact system records. */
TEST(other_header_kinds)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	struct etw_buffer_header *bh;
	uint8_t *b = new_buffer();
	uint8_t *r;

	ASSERT_NE(NULL, b);
	bh = (struct etw_buffer_header *)b;
	r = b + bh->offset;
	/* EVENT_TRACE_HEADER: size 56, type 0x14, class 7/3/2. */
	memset(r, 0, 56);
	r[0] = 56;
	r[2] = 0x14;
	r[3] = 0xc0;
	r[4] = 7;
	r[5] = 3;
	r[6] = 2;
	r[8] = 9;
	r[16] = 42;
	memcpy(r + 24, &etl_test_guid, 16);
	/* EVENT_INSTANCE_GUID_HEADER: size 72, type 0x15. */
	memset(r + 56, 0, 72);
	r[56] = 72;
	r[58] = 0x15;
	r[59] = 0xc0;
	r[56 + 48] = 5;
	r[56 + 52] = 6;
	/* PERFINFO: marker 0xc0110002, size 24, hook 0x0a20. */
	memset(r + 128, 0, 24);
	memcpy(r + 128, "\x02\x00\x11\xc0\x18\x00\x20\x0a", 8);
	r[136] = 43;
	/* COMPACT64: marker 0xc0040002, size 24. */
	memset(r + 152, 0, 24);
	memcpy(r + 152, "\x02\x00\x04\xc0\x18\x00\x10\x05", 8);
	r[168] = 44;
	bh->offset = bh->saved_offset = bh->offset + 176;
	ASSERT_EQ(0, etw_etl_records_init(&it, b, ETL_TEST_BS, NULL));
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_CLASSIC, (int)ev.kind);
	EXPECT_EQ(7, ev.descriptor.opcode);
	EXPECT_EQ(3, ev.descriptor.level);
	EXPECT_EQ(2, ev.descriptor.version);
	EXPECT_EQ(9u, ev.thread_id);
	EXPECT_EQ(42u, ev.raw_timestamp);
	EXPECT_EQ(0, memcmp(&etl_test_guid, &ev.provider_id, 16));
	EXPECT_EQ(8u, ev.user_data_len);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_INSTANCE, (int)ev.kind);
	EXPECT_EQ(5u, ev.instance_id);
	EXPECT_EQ(6u, ev.parent_instance_id);
	EXPECT_EQ(0u, ev.user_data_len);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_PERFINFO, (int)ev.kind);
	EXPECT_EQ(0x0a20, ev.hook_id);
	EXPECT_EQ(43u, ev.raw_timestamp);
	EXPECT_EQ(8u, ev.user_data_len);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_SYSTEM, (int)ev.kind);
	EXPECT_EQ(0x0510, ev.hook_id);
	EXPECT_EQ(44u, ev.raw_timestamp);
	EXPECT_EQ(0u, ev.user_data_len);
	EXPECT_EQ(0, etw_etl_records_next(&it, &ev));
	free(b);
}

TEST(bad_buffer_headers)
{
	struct etw_buffer_header *bh;
	uint8_t *b = new_buffer();
	int n;

	ASSERT_NE(NULL, b);
	bh = (struct etw_buffer_header *)b;
	etl_buf_add(b, 1, 10);
	EXPECT_EQ(-EBADMSG, walk(b, 0x47, &n, NULL));
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS - 8, &n, NULL));
	bh->offset = ETL_TEST_BS + 8;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	bh->offset = 0x40;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	bh->offset = 0x48 + 96;
	bh->buffer_flag |= ETW_ETL_BUFFER_FLAG_COMPRESSED;
	EXPECT_EQ(-EOPNOTSUPP, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

/* A fill mark 2 bytes into a record ends the buffer; 6 bytes is corrupt. */
TEST(fill_cuts_record_header)
{
	struct etw_buffer_header *bh;
	uint8_t *b = new_buffer();
	int n;

	ASSERT_NE(NULL, b);
	bh = (struct etw_buffer_header *)b;
	etl_buf_add(b, 1, 10);
	etl_buf_add(b, 2, 20);
	bh->offset = 0x48 + 96 + 2;
	EXPECT_EQ(0, walk(b, ETL_TEST_BS, &n, NULL));
	EXPECT_EQ(1, n);
	bh->offset = 0x48 + 96 + 6;
	EXPECT_EQ(-EBADMSG, walk(b, ETL_TEST_BS, &n, NULL));
	free(b);
}

static bool inside(const void *p, size_t len, const uint8_t *b, size_t fill)
{
	const uint8_t *q = p;

	return q >= b && q <= b + fill && len <= (size_t)(b + fill - q);
}

/* Random damage to a valid buffer: only in-bounds results or errors. */
TEST(fuzz_buffer)
{
	struct etw_etl_records it;
	struct etw_etl_event ev;
	uint8_t *orig = new_buffer(), *b = malloc(ETL_TEST_BS);
	unsigned int round, i, k, fill;
	int ret;

	ASSERT_NE(NULL, orig);
	ASSERT_NE(NULL, b);
	etl_buf_add(orig, 1, 10);
	etl_buf_add_ext(orig, 2, 20, 100, 3, 13, 21);
	etl_buf_add_ext(orig, 3, 30, 100, 1, 40, 0);
	etl_buf_add(orig, 4, 40);
	fill = ((struct etw_buffer_header *)orig)->offset;
	srand(1);
	for (round = 0; round < 20000; round++) {
		memcpy(b, orig, ETL_TEST_BS);
		for (k = rand() % 4 + 1; k; k--)
			b[0x48 + rand() % (fill - 0x48)] = rand();
		ASSERT_EQ(0, etw_etl_records_init(&it, b, ETL_TEST_BS, NULL));
		for (i = 0; i < 64; i++) {
			ret = etw_etl_records_next(&it, &ev);
			if (ret <= 0)
				break;
			ASSERT_TRUE(inside(ev.record, ev.size, b, fill));
			ASSERT_TRUE(inside(ev.user_data, ev.user_data_len, b,
					   fill));
			for (k = 0; k < ev.ext_count; k++)
				ASSERT_TRUE(inside(ev.ext[k].data,
						   ev.ext[k].size, b, fill));
		}
		ASSERT_LT(i, 64u);
	}
	free(orig);
	free(b);
}

/* ---------------------------------------------------------------------- */
/* Files */

FIXTURE(file) {
	char *dir;
	char *path;
	uint8_t *image;
	size_t size;
};

/* A valid file: header buffer and two data buffers of 4 events. */
FIXTURE_SETUP(file)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer *w;
	uint8_t buf[ETL_TEST_BS];

	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "t.etl");
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &p, &w));
	etl_buf_fill(buf, 0, 4, 0, ETL_TEST_START_RAW + 1000, 10);
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	etl_buf_fill(buf, 1, 4, 4, ETL_TEST_START_RAW + 1005, 10);
	ASSERT_EQ(0, etw_etl_writer_append(w, buf));
	ASSERT_EQ(0, etw_etl_writer_close(w, &(struct etw_etl_writer_stats){}));
	self->size = 3 * ETL_TEST_BS;
	self->image = malloc(self->size);
	ASSERT_NE(NULL, self->image);
	ASSERT_EQ(0, etl_read_at(self->path, self->image, self->size, 0));
}

FIXTURE_TEARDOWN(file)
{
	free(self->image);
	free(self->path);
	etl_rmdir(self->dir);
}

/* Write @len bytes of the image with @val patched in at @off; open it. */
static int open_patched(const char *path, const uint8_t *image, size_t len,
			size_t off, const void *val, size_t vlen)
{
	struct etw_etl_reader *r;
	uint8_t *copy = malloc(len);
	FILE *f;
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, len);
	if (vlen)
		memcpy(copy + off, val, vlen);
	f = fopen(path, "w");
	if (!f || fwrite(copy, 1, len, f) != len || fclose(f))
		ret = -EIO;
	else
		ret = etw_etl_reader_open(path, &r);
	free(copy);
	if (!ret)
		etw_etl_reader_close(r);
	return ret;
}

#define PATCH(off, type, v) ({ type __v = (v); \
	open_patched(self->path, self->image, self->size, off, &__v, \
		     sizeof(__v)); })

TEST_F(file, valid_file_opens)
{
	EXPECT_EQ(0, PATCH(0, uint32_t, ETL_TEST_BS));
	EXPECT_EQ(8, etl_count_events(self->path, NULL, NULL));
}

TEST_F(file, short_files)
{
	struct etw_etl_reader *r;

	EXPECT_EQ(-EBADMSG, open_patched(self->path, self->image, 0, 0,
					 NULL, 0));
	EXPECT_EQ(-EBADMSG, open_patched(self->path, self->image, 10, 0,
					 NULL, 0));
	EXPECT_EQ(-EBADMSG, open_patched(self->path, self->image, 2000, 0,
					 NULL, 0));
	EXPECT_EQ(-ENOENT, etw_etl_reader_open("/nonexistent/x.etl", &r));
}

TEST_F(file, bad_header_buffer)
{
	EXPECT_EQ(-EBADMSG, PATCH(0x36, uint16_t, ETW_BUFFER_TYPE_GENERIC));
	EXPECT_EQ(-EBADMSG, PATCH(0x00, uint32_t, 0x7fffffff));
	EXPECT_EQ(-EBADMSG, PATCH(0x00, uint32_t, 16));
	EXPECT_EQ(-EBADMSG, PATCH(0x00, uint32_t, 8192));
	EXPECT_EQ(-EBADMSG, PATCH(0x30, uint32_t, 0x48));
	EXPECT_EQ(-EBADMSG, PATCH(0x30, uint32_t, 0x10000));
	/* The header buffer is never compressed. */
	EXPECT_EQ(-EBADMSG, PATCH(0x34, uint16_t, 0x61));
}

TEST_F(file, bad_header_event)
{
	EXPECT_EQ(-EBADMSG, PATCH(0x48, uint32_t, 0x12345678));
	EXPECT_EQ(-EBADMSG, PATCH(0x48, uint32_t, 0xc0130002));
	EXPECT_EQ(-EBADMSG, PATCH(0x4c, uint16_t, 0));
	EXPECT_EQ(-EBADMSG, PATCH(0x4c, uint16_t, 40));
	EXPECT_EQ(-EBADMSG, PATCH(0x4c, uint16_t, 0xffff));
	EXPECT_EQ(-EBADMSG, PATCH(0x4e, uint16_t, 0x0050));
	EXPECT_EQ(-EBADMSG, PATCH(0x68 + 0x2c, uint32_t, 5));
	/* BufferSize below the header buffer's, or past the largest. */
	EXPECT_EQ(-EBADMSG, PATCH(0x68 + 0x00, uint32_t, 2048));
	EXPECT_EQ(-EBADMSG, PATCH(0x68 + 0x00, uint32_t,
				  ETW_ETL_MAX_BUFFER_SIZE + 1));
}

/*
 * Buffers larger than the header buffer, or compressed mode: the buffers
 * are chained by their own sizes, which read the same file.
 */
TEST_F(file, chained_layouts_open)
{
	EXPECT_EQ(0, PATCH(0x68 + 0x00, uint32_t, 8192));
	EXPECT_EQ(8, etl_count_events(self->path, NULL, NULL));
	EXPECT_EQ(0, PATCH(0x68 + 0x20, uint32_t,
			   ETW_ETL_MODE_SEQUENTIAL | ETW_ETL_MODE_COMPRESSED));
	EXPECT_EQ(8, etl_count_events(self->path, NULL, NULL));
}

/* Names running to the end of the record without a NUL stay bounded. */
TEST_F(file, unterminated_names)
{
	struct etw_etl_reader *r;
	uint16_t size;
	size_t i;

	memcpy(&size, self->image + 0x4c, sizeof(size));
	for (i = 0x68 + 0x118; i < 0x48u + size; i++)
		self->image[i] = i % 2 ? 0 : 'A';
	ASSERT_EQ(0, open_patched(self->path, self->image, self->size, 0,
				  NULL, 0));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ((size - 32u - 0x118) / 2,
		  strlen(etw_etl_reader_logger_name(r)));
	EXPECT_STREQ("", etw_etl_reader_file_name(r));
	etw_etl_reader_close(r);
}

/* The 32-bit header form (§4.6 x86 offsets), as 32-bit loggers write. */
TEST_F(file, header32)
{
	struct etw_etl_reader *r;
	uint8_t *tlh = self->image + 0x68;
	uint16_t size;

	memcpy(&size, self->image + 0x4c, sizeof(size));
	memmove(tlh + 0x38, tlh + 0x40, size - 32 - 0x40);
	size -= 8;
	memcpy(self->image + 0x4c, &size, sizeof(size));
	memcpy(self->image + 0x48, "\x02\x00\x01\xc0", 4);
	ASSERT_EQ(0, open_patched(self->path, self->image, self->size, 0,
				  NULL, 0));
	ASSERT_EQ(0, etw_etl_reader_open(self->path, &r));
	EXPECT_EQ(ETL_TEST_START_TIME, etw_etl_reader_header(r)->start_time);
	EXPECT_EQ(ETL_TEST_BOOT_TIME, etw_etl_reader_header(r)->boot_time);
	EXPECT_EQ(1000000000u, etw_etl_reader_header(r)->perf_freq);
	EXPECT_EQ(1u, etw_etl_reader_header(r)->reserved_flags);
	EXPECT_STREQ("etw-test", etw_etl_reader_logger_name(r));
	etw_etl_reader_close(r);
}

/* Merge a file to its end, counting events and errors. */
static int merge_all(const char *path, int *events, int *errors)
{
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int ret, i;

	*events = *errors = 0;
	ret = etw_etl_reader_open(path, &r);
	if (ret)
		return ret;
	ret = etw_etl_merge_open(&r, 1, &m);
	if (ret) {
		etw_etl_reader_close(r);
		return ret;
	}
	for (i = 0; i < 1000; i++) {
		ret = etw_etl_merge_next(m, &ev, NULL);
		if (!ret)
			break;
		if (ret < 0)
			(*errors)++;
		else if (ev.kind == ETW_ETL_KIND_EVENT)
			(*events)++;
	}
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
	return i < 1000 ? 0 : -ELOOP;
}

/* A bad data buffer is reported once; the merge then goes on. */
TEST_F(file, bad_data_buffer_skipped)
{
	int events, errors;

	ASSERT_EQ(0, PATCH(ETL_TEST_BS + 0x30, uint32_t, 0x20));
	ASSERT_EQ(0, merge_all(self->path, &events, &errors));
	EXPECT_EQ(1, errors);
	EXPECT_EQ(4, events);
}

/* A bad record ends its buffer after the good records before it. */
TEST_F(file, bad_record_skipped)
{
	int events, errors;

	/* The second event of buffer 2 claims to be 0xff00 bytes long. */
	ASSERT_EQ(0, PATCH(2 * ETL_TEST_BS + 0x48 + 96, uint16_t, 0xff00));
	ASSERT_EQ(0, merge_all(self->path, &events, &errors));
	EXPECT_EQ(1, errors);
	EXPECT_EQ(5, events);
}

/* Damage a few random bytes, mostly in the header buffer; merge it all. */
static int fuzz_round(const char *path, uint8_t *copy, size_t size)
{
	int events, errors, ret;
	unsigned int k, i;
	FILE *f;

	for (k = rand() % 6 + 1; k; k--) {
		i = rand() % 3 ? rand() % 0x300u : rand() % (unsigned int)size;
		copy[i] = rand();
	}
	f = fopen(path, "w");
	if (!f || fwrite(copy, 1, size, f) != size || fclose(f))
		return -EIO;
	ret = merge_all(path, &events, &errors);
	return ret == -ELOOP ? ret : 0;
}

/* Random damage anywhere in a file: open and merge end without a crash. */
TEST_F(file, fuzz_file)
{
	uint8_t *copy = malloc(self->size);
	unsigned int round;

	ASSERT_NE(NULL, copy);
	srand(2);
	for (round = 0; round < 1500; round++) {
		memcpy(copy, self->image, self->size);
		ASSERT_EQ(0, fuzz_round(self->path, copy, self->size));
	}
	free(copy);
}

TEST_HARNESS_MAIN
