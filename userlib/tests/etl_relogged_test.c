// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * A trace as Windows tools write them: PerfView's recording of a 32-bit
 * .NET Framework 4.5.2 program, merged by Windows' relogger, with XPRESS
 * compressed buffers stored in their own sizes (testdata/etl, README).
 *
 * The counts are checked two ways: against etl_census.py, an independent
 * reader in Python (its own MS-XCA decoder and buffer walk), and against
 * the numbers that reader and two third-party readers gave for the file
 * (40,498 EVENT_HEADER records).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_test.h"
#include "evntcons.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define NET		TESTDATA "/etl/net.4.5.2.x86.etl"
#define CENSUS		SRC_DIR "/userlib/tests/etl_census.py"
#define NET_SIZE	4388184
#define NET_BUFFERS	276
#define NET_RECORDS	168298

struct census {
	char **lines;
	size_t n;
	size_t cap;
};

static void census_add(struct census *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void census_add(struct census *c, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->lines = realloc(c->lines, c->cap * sizeof(*c->lines));
		if (!c->lines)
			abort();
	}
	c->lines[c->n++] = s;
}

static int census_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted "KEY N" lines from sorted keys, one a record. */
static void census_fold(struct census *keys, struct census *out)
{
	size_t i, j;

	qsort(keys->lines, keys->n, sizeof(char *), census_cmp);
	for (i = 0; i < keys->n; i = j) {
		for (j = i; j < keys->n && !strcmp(keys->lines[i],
						   keys->lines[j]); j++)
			;
		census_add(out, "%s %zu", keys->lines[i], j - i);
	}
	qsort(out->lines, out->n, sizeof(char *), census_cmp);
}

static void census_free(struct census *c)
{
	while (c->n)
		free(c->lines[--c->n]);
	free(c->lines);
}

static void guid_str(const struct etw_guid *g, char *s)
{
	sprintf(s, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		g->data1, g->data2, g->data3, g->data4[0], g->data4[1],
		g->data4[2], g->data4[3], g->data4[4], g->data4[5],
		g->data4[6], g->data4[7]);
}

/* What libetw's reader finds, in etl_census.py's lines. */
static int census_libetw(const char *path, struct census *out)
{
	struct census keys = { 0 };
	struct etw_etl_records it;
	struct etw_buffer_header bh;
	struct etw_etl_stored st;
	struct etw_etl_reader *r;
	struct etw_etl_event ev;
	uint64_t i, compressed = 0, records = 0;
	char g[40];
	uint8_t *buf;
	int ret;

	ret = etw_etl_reader_open(path, &r);
	if (ret)
		return ret;
	buf = malloc(etw_etl_reader_buffer_size(r));
	for (i = 0; !ret && i < etw_etl_reader_buffer_count(r); i++) {
		ret = etw_etl_reader_stored(r, i, &st) ?:
		      etw_etl_reader_buffer(r, i, buf) ?:
		      etw_etl_records_init(&it, buf,
					   etw_etl_reader_buffer_size(r), NULL);
		if (ret)
			break;
		memcpy(&bh, buf, sizeof(bh));
		compressed += st.compressed;
		census_add(&keys, "buffer %u 0x%x", bh.buffer_type,
			   bh.buffer_flag |
			   (st.compressed ? ETW_ETL_BUFFER_FLAG_COMPRESSED : 0));
		while ((ret = etw_etl_records_next(&it, &ev)) == 1) {
			records++;
			census_add(&keys, "header 0x%04x", ev.header_type);
			if (ev.kind == ETW_ETL_KIND_EVENT) {
				guid_str(&ev.provider_id, g);
				census_add(&keys, "provider %s", g);
			}
			if (ev.kind == ETW_ETL_KIND_SYSTEM ||
			    ev.kind == ETW_ETL_KIND_PERFINFO)
				census_add(&keys, "hook 0x%04x 0x%04x",
					   ev.header_type, ev.hook_id);
		}
	}
	census_add(out, "buffers %llu",
		   (unsigned long long)etw_etl_reader_buffer_count(r));
	census_add(out, "compressed %llu", (unsigned long long)compressed);
	census_add(out, "records %llu", (unsigned long long)records);
	census_fold(&keys, out);
	free(buf);
	etw_etl_reader_close(r);
	census_free(&keys);
	return ret;
}

static int census_python(const char *path, struct census *out)
{
	char cmd[4096], line[256];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'", CENSUS, path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		census_add(out, "%s", line);
	}
	return pclose(p) ? -1 : 0;
}

static bool have_python(void)
{
	return !system("python3 -c '' 2>/dev/null");
}

TEST(header)
{
	const struct etw_etl_logfile_header *h;
	struct etw_etl_reader *r;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(NET, &r));
	h = etw_etl_reader_header(r);
	EXPECT_STREQ("Relogger", etw_etl_reader_logger_name(r));
	EXPECT_STREQ("[multiple files]", etw_etl_reader_file_name(r));
	EXPECT_EQ(65536u, h->buffer_size);
	EXPECT_EQ(65536u, etw_etl_reader_buffer_size(r));
	EXPECT_EQ(ETW_ETL_MODE_COMPRESSED | ETW_ETL_MODE_RELOG |
		  ETW_ETL_MODE_SEQUENTIAL, h->log_file_mode);
	EXPECT_EQ(8u, h->pointer_size);
	EXPECT_EQ(8u, h->number_of_processors);
	EXPECT_EQ(9200u, h->provider_version);
	EXPECT_EQ((uint32_t)NET_BUFFERS, h->buffers_written);
	EXPECT_EQ((uint64_t)NET_BUFFERS, etw_etl_reader_buffer_count(r));
	etw_etl_reader_close(r);
}

/* Buffers follow each other by their stored size, to the file's end. */
TEST(stored_buffers)
{
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	uint64_t i, next = 0;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(NET, &r));
	ASSERT_EQ(0, etw_etl_reader_stored(r, 0, &st));
	EXPECT_EQ(0u, st.offset);
	EXPECT_EQ(512u, st.size);
	EXPECT_FALSE(st.compressed);
	ASSERT_EQ(0, etw_etl_reader_stored(r, 1, &st));
	EXPECT_EQ(512u, st.offset);
	EXPECT_EQ(15025u, st.size);
	EXPECT_TRUE(st.compressed);
	for (i = 0; i < NET_BUFFERS; i++) {
		ASSERT_EQ(0, etw_etl_reader_stored(r, i, &st));
		EXPECT_EQ(next, st.offset);
		next = st.offset + st.size;
	}
	EXPECT_EQ((uint64_t)NET_SIZE, next);
	EXPECT_EQ(-ERANGE, etw_etl_reader_stored(r, NET_BUFFERS, &st));
	etw_etl_reader_close(r);
}

/* An inflated buffer's header: the file's size, no compressed flag. */
TEST(inflated_buffer_header)
{
	struct etw_buffer_header bh, in;
	struct etw_etl_reader *r;
	uint8_t *buf = malloc(65536);

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(NET, &r));
	ASSERT_EQ(0, etw_etl_reader_buffer_header(r, 1, &bh));
	EXPECT_EQ(65536u, bh.buffer_size);
	EXPECT_EQ(65440u, bh.offset);
	EXPECT_EQ(0x20, bh.buffer_flag);
	EXPECT_EQ(7, etw_etl_buffer_cpu(&bh));
	ASSERT_EQ(0, etw_etl_reader_buffer(r, 1, buf));
	memcpy(&in, buf, sizeof(in));
	EXPECT_EQ(0, memcmp(&bh, &in, sizeof(bh)));
	/* The first record: a PERFINFO64 record, after the header. */
	EXPECT_EQ(0, memcmp(buf + 0x48, "\x02\x00\x11\xc0\x34\x00", 6));
	EXPECT_EQ(0xff, buf[65440]);
	EXPECT_EQ(0xff, buf[65535]);
	etw_etl_reader_close(r);
	free(buf);
}

TEST(counts_match_python_reader)
{
	struct census mine = { 0 }, theirs = { 0 };
	size_t i;

	REQUIRE_TESTDATA();
	if (!have_python())
		SKIP(return, "no python3");
	ASSERT_EQ(0, census_libetw(NET, &mine));
	ASSERT_EQ(0, census_python(NET, &theirs));
	ASSERT_EQ(theirs.n, mine.n);
	for (i = 0; i < mine.n; i++)
		EXPECT_STREQ(theirs.lines[i], mine.lines[i]);
	census_free(&mine);
	census_free(&theirs);
}

/* @line if @c has it, else "(missing)". */
static const char *census_find(const struct census *c, const char *line)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->lines[i], line))
			return c->lines[i];
	return "(missing)";
}

/* Per buffer type and header type, as the file holds them. */
TEST(counts)
{
	static const char *const want[] = {
		"buffers 276", "compressed 275", "records 168298",
		"buffer 4 0x1 1", "buffer 0 0x60 274", "buffer 0 0x61 1",
		"header 0xc001 2", "header 0xc002 4472", "header 0xc00a 73",
		"header 0xc011 115091", "header 0xc012 39425",
		"header 0xc013 1073", "header 0xc014 8162",
		"provider e13c0d23-ccbc-4e12-931b-d9cc2eee27e4 11608",
		"provider a669021c-c450-4609-a035-5af59af4df18 27173",
		"hook 0xc011 0x0f2e 88809",
	};
	struct census mine = { 0 };
	size_t i;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, census_libetw(NET, &mine));
	for (i = 0; i < sizeof(want) / sizeof(*want); i++)
		EXPECT_STREQ(want[i], census_find(&mine, want[i]));
	census_free(&mine);
}

static int net_events, net_event_headers, net_32bit;

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	net_events++;
	if (!(r->EventHeader.Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER))
		net_event_headers++;
	if (r->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER)
		net_32bit++;
}

/* ProcessTrace delivers every record of the file. */
TEST(process_trace)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;

	REQUIRE_TESTDATA();
	lf.LogFileName = (LPSTR)NET;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	ASSERT_NE(INVALID_PROCESSTRACE_HANDLE, h);
	EXPECT_EQ(65536u, lf.BufferSize);
	ASSERT_EQ(ERROR_SUCCESS, ProcessTrace(&h, 1, NULL, NULL));
	EXPECT_EQ(NET_RECORDS, net_events);
	EXPECT_EQ(40498, net_event_headers);
	/* EVENT_HEADER32, SYSTEM32 and FULL32 records: the 32-bit writers. */
	EXPECT_EQ(39425 + 2 + 73, net_32bit);
	EXPECT_EQ(ERROR_SUCCESS, CloseTrace(h));
}

/* A copy of the file to corrupt; buffer 1 at 512, buffer 2 at 15537. */
FIXTURE(copy) {
	char *dir;
	char *path;
	uint8_t *image;
};

FIXTURE_SETUP(copy)
{
	REQUIRE_TESTDATA();
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "net.etl");
	self->image = malloc(NET_SIZE);
	ASSERT_NE(NULL, self->image);
	ASSERT_EQ(0, etl_read_at(NET, self->image, NET_SIZE, 0));
}

FIXTURE_TEARDOWN(copy)
{
	if (!self->dir)
		return;
	free(self->image);
	free(self->path);
	etl_rmdir(self->dir);
}

/* Write the image's first @len bytes with @v at @off; open the copy. */
static int copy_open(const char *path, uint8_t *image, size_t len,
		     size_t off, const void *v, size_t vlen,
		     struct etw_etl_reader **r)
{
	uint8_t save[16];
	FILE *f;
	int ok;

	memcpy(save, image + off, vlen);
	memcpy(image + off, v, vlen);
	f = fopen(path, "w");
	ok = f && fwrite(image, 1, len, f) == len;
	if (f && fclose(f))
		ok = 0;
	memcpy(image + off, save, vlen);
	return ok ? etw_etl_reader_open(path, r) : -EIO;
}

#define COPY_OPEN(len, off, type, val, r) ({ type __v = (val); \
	copy_open(self->path, self->image, len, off, &__v, sizeof(__v), r); })

static uint64_t records_of(struct etw_etl_reader *r, uint64_t index)
{
	uint8_t *buf = malloc(etw_etl_reader_buffer_size(r));
	struct etw_etl_records it;
	struct etw_etl_event ev;
	uint64_t n = 0;

	if (!etw_etl_reader_buffer(r, index, buf) &&
	    !etw_etl_records_init(&it, buf, etw_etl_reader_buffer_size(r),
				  NULL))
		while (etw_etl_records_next(&it, &ev) == 1)
			n++;
	free(buf);
	return n;
}

static int process_file(const char *path)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;
	ULONG ret;

	net_events = 0;
	lf.LogFileName = (LPSTR)path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return -1;
	ret = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return ret == ERROR_SUCCESS ? net_events : -1;
}

/* A stream that refers before its start: that buffer alone is lost. */
TEST_F(copy, corrupt_stream_skipped)
{
	uint8_t *buf = malloc(65536);
	struct etw_etl_reader *r;
	uint64_t lost;

	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 0, uint8_t, 0, &r));
	lost = records_of(r, 1);
	EXPECT_EQ(428u, lost);
	etw_etl_reader_close(r);
	/* The first flag word all ones: a match before any output. */
	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512 + 0x48, uint32_t, 0xffffffff,
			       &r));
	EXPECT_EQ((uint64_t)NET_BUFFERS, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf));
	EXPECT_EQ(0, etw_etl_reader_buffer(r, 2, buf));
	etw_etl_reader_close(r);
	EXPECT_EQ(NET_RECORDS - (int)lost, process_file(self->path));
	free(buf);
}

/* Offset (the inflated fill) must be what the stream inflates to. */
TEST_F(copy, inflated_size_must_match)
{
	uint8_t *buf = malloc(65536);
	struct etw_etl_reader *r;

	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512 + 0x30, uint32_t, 65440 + 8, &r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf));
	etw_etl_reader_close(r);
	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512 + 0x30, uint32_t, 65440 - 8, &r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf));
	etw_etl_reader_close(r);
	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512 + 0x30, uint32_t, 65537, &r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf));
	etw_etl_reader_close(r);
	ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512 + 0x30, uint32_t, 0x40, &r));
	EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf));
	etw_etl_reader_close(r);
	free(buf);
}

/*
 * A stored size that cannot be right ends the chain: that buffer is
 * corrupt, the ones before it read.
 */
TEST_F(copy, bad_stored_size_ends_chain)
{
	static const uint32_t sizes[] = { 0, 0x47, 65537, 0xffffffff };
	uint8_t *buf = malloc(65536);
	struct etw_buffer_header bh;
	struct etw_etl_reader *r;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 15537, uint32_t, sizes[i],
				       &r));
		EXPECT_EQ(3u, etw_etl_reader_buffer_count(r));
		EXPECT_EQ(0, etw_etl_reader_buffer(r, 1, buf));
		EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 2, buf));
		EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer_header(r, 2, &bh));
		etw_etl_reader_close(r);
	}
	free(buf);
}

/* A stored size that runs past the end: a partial buffer, left out. */
TEST_F(copy, truncated_file)
{
	struct etw_etl_reader *r;

	ASSERT_EQ(0, COPY_OPEN(15537 + 100, 0, uint8_t, 0, &r));
	EXPECT_EQ(2u, etw_etl_reader_buffer_count(r));
	etw_etl_reader_close(r);
	ASSERT_EQ(0, COPY_OPEN(15537, 0, uint8_t, 0, &r));
	EXPECT_EQ(2u, etw_etl_reader_buffer_count(r));
	etw_etl_reader_close(r);
	ASSERT_EQ(0, COPY_OPEN(NET_SIZE - 1, 0, uint8_t, 0, &r));
	EXPECT_EQ((uint64_t)NET_BUFFERS - 1, etw_etl_reader_buffer_count(r));
	etw_etl_reader_close(r);
}

/* Every cut of a compressed stream fails cleanly or inflates short. */
TEST_F(copy, every_cut_of_a_stream)
{
	uint8_t *buf = malloc(65536);
	struct etw_etl_reader *r;
	uint32_t cut;

	for (cut = 0x48; cut < 15025; cut += 97) {
		ASSERT_EQ(0, COPY_OPEN(NET_SIZE, 512, uint32_t, cut, &r));
		/* The chain is broken after it: buffer 2 is garbage. */
		EXPECT_EQ(-EBADMSG, etw_etl_reader_buffer(r, 1, buf))
			TH_LOG("cut at %u", cut);
		etw_etl_reader_close(r);
	}
	free(buf);
}

TEST_HARNESS_MAIN
