// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The time-ordered merge: per-CPU streams whose buffers lie in the file
 * out of sequence order, ties, and several files with different clocks.
 * Expected orders are computed here from the synthetic timestamps.
 */
#include "etl_test.h"
#include "kselftest_harness.h"

#define CPUS		3
#define BUFS		3	/* per CPU */
#define PER_BUF		4

struct expect {
	uint64_t ft;		/* FILETIME */
	unsigned int file;
	uint64_t raw;
	uint16_t cpu;
	uint16_t id;
};

static int expect_cmp(const void *a, const void *b)
{
	const struct expect *x = a, *y = b;

	if (x->ft != y->ft)
		return x->ft < y->ft ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->raw != y->raw)
		return x->raw < y->raw ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

FIXTURE(merge) {
	char *dir;
	char *path[2];
	struct expect exp[2 * CPUS * BUFS * PER_BUF];
	unsigned int nexp;
};

FIXTURE_SETUP(merge)
{
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path[0] = etl_path(self->dir, "a.etl");
	self->path[1] = etl_path(self->dir, "b.etl");
	self->nexp = 0;
}

FIXTURE_TEARDOWN(merge)
{
	free(self->path[0]);
	free(self->path[1]);
	etl_rmdir(self->dir);
}

/* An etw file with only its header buffer; data buffers are put later. */
static int make_header_file(const char *path, uint64_t start_raw)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer *w;
	int ret;

	p.start_raw = start_raw;
	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	if (ret)
		return ret;
	return etw_etl_writer_close(w, &(struct etw_etl_writer_stats){});
}

/* Put a buffer with sequence number @seq at file slot @slot. */
static int put_buffer(const char *path, uint8_t *buf, uint64_t slot,
		      uint64_t seq)
{
	((struct etw_buffer_header *)buf)->sequence_number = seq;
	return etl_write_at(path, buf, ETL_TEST_BS, slot * ETL_TEST_BS);
}

/*
 * Event i of buffer j of @cpu: raw = base + (j * PER_BUF + i) * 300 +
 * cpu * 100, except that CPU 2's are equal to CPU 0's, so every CPU 0
 * event ties with a CPU 2 event.
 */
static uint64_t ts_of(uint64_t base, unsigned int cpu, unsigned int j,
		      unsigned int i)
{
	return base + (j * PER_BUF + i) * 300 + (cpu == 2 ? 0 : cpu * 100);
}

/* CPU streams in one file, with slots in a scrambled order. */
static int write_streams(const char *path, unsigned int file,
			 uint64_t start_raw, uint64_t base,
			 struct expect *exp, unsigned int *nexp)
{
	static const unsigned int slot_of[CPUS * BUFS] = {
		5, 9, 2, 7, 1, 8, 4, 6, 3
	};
	uint8_t buf[ETL_TEST_BS];
	unsigned int cpu, j, i, k;
	struct expect *e;
	uint64_t seq;
	int ret;

	ret = make_header_file(path, start_raw);
	for (cpu = 0; !ret && cpu < CPUS; cpu++) {
		for (j = 0; !ret && j < BUFS; j++) {
			etl_buf_init(buf, ETL_TEST_BS, cpu);
			for (i = 0; i < PER_BUF; i++) {
				k = (cpu * BUFS + j) * PER_BUF + i;
				etl_buf_add(buf, k, ts_of(base, cpu, j, i));
				e = &exp[(*nexp)++];
				e->raw = ts_of(base, cpu, j, i);
				e->ft = ETL_TEST_START_TIME +
					(e->raw - start_raw) / 100;
				e->file = file;
				e->cpu = cpu;
				e->id = k;
			}
			/* Seal order: j-th round of all CPUs. */
			seq = 1 + j * CPUS + cpu;
			ret = put_buffer(path, buf, slot_of[cpu * BUFS + j],
					 seq);
		}
	}
	return ret;
}

/*
 * A filter of the events whose id is a multiple of @arg[0] (and of the
 * records that are no events), counting its calls in @arg[1].
 */
static bool id_multiple(const struct etw_etl_event *ev, void *arg)
{
	unsigned int *k = arg;

	k[1]++;
	return ev->kind != ETW_ETL_KIND_EVENT || !(ev->descriptor.id % k[0]);
}

/*
 * Merge @n files, with @filter (id_multiple() of @filter[0], counting
 * its calls in @filter[1]) or all; compare with the sorted expectations.
 */
static int check_merge_filtered(struct __test_metadata *_metadata,
				char **paths, unsigned int n,
				struct expect *exp, unsigned int nexp,
				unsigned int *filter)
{
	struct etw_etl_reader *r[2];
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	unsigned int f, file, got = 0;
	int ret;

	qsort(exp, nexp, sizeof(*exp), expect_cmp);
	for (f = 0; f < n; f++)
		if (etw_etl_reader_open(paths[f], &r[f]))
			return -1;
	if (etw_etl_merge_open(r, n, &m))
		return -1;
	if (filter)
		etw_etl_merge_filter(m, id_multiple, filter);
	while ((ret = etw_etl_merge_next(m, &ev, &file)) == 1) {
		if (ev.kind != ETW_ETL_KIND_EVENT)
			continue;
		if (got == nexp)
			return -1;
		EXPECT_EQ(exp[got].file, file);
		EXPECT_EQ(exp[got].cpu, ev.processor_index);
		EXPECT_EQ(exp[got].id, ev.descriptor.id);
		EXPECT_EQ(exp[got].raw, ev.raw_timestamp);
		EXPECT_EQ(exp[got].ft, (uint64_t)ev.timestamp);
		got++;
	}
	/* Exhausted stays exhausted. */
	if (ret || etw_etl_merge_next(m, &ev, &file))
		return -1;
	etw_etl_merge_close(m);
	for (f = 0; f < n; f++)
		etw_etl_reader_close(r[f]);
	return got;
}

static int check_merge(struct __test_metadata *_metadata, char **paths,
		       unsigned int n, struct expect *exp, unsigned int nexp)
{
	return check_merge_filtered(_metadata, paths, n, exp, nexp, NULL);
}

TEST_F(merge, cpu_streams)
{
	ASSERT_EQ(0, write_streams(self->path[0], 0, ETL_TEST_START_RAW,
				   ETL_TEST_START_RAW + 1000, self->exp,
				   &self->nexp));
	ASSERT_EQ(CPUS * BUFS * PER_BUF,
		  check_merge(_metadata, self->path, 1, self->exp,
			      self->nexp));
}

/*
 * Two files whose clocks differ by 7 s: their events interleave by
 * FILETIME, and file 0's CPU 1 events tie with file 1's CPU 0 ones.
 */
TEST_F(merge, two_files)
{
	const uint64_t off = 7000000000ull;

	ASSERT_EQ(0, write_streams(self->path[0], 0, ETL_TEST_START_RAW,
				   ETL_TEST_START_RAW + 1000, self->exp,
				   &self->nexp));
	ASSERT_EQ(0, write_streams(self->path[1], 1, ETL_TEST_START_RAW + off,
				   ETL_TEST_START_RAW + off + 1100, self->exp,
				   &self->nexp));
	ASSERT_EQ(2 * CPUS * BUFS * PER_BUF,
		  check_merge(_metadata, self->path, 2, self->exp,
			      self->nexp));
}

/*
 * A filter that takes every third event of the two files: those come in
 * the order of the merge of all, each event filtered once.
 */
TEST_F(merge, filtered)
{
	const uint64_t off = 7000000000ull;
	unsigned int filter[2] = { 3, 0 }, i, kept = 0;

	ASSERT_EQ(0, write_streams(self->path[0], 0, ETL_TEST_START_RAW,
				   ETL_TEST_START_RAW + 1000, self->exp,
				   &self->nexp));
	ASSERT_EQ(0, write_streams(self->path[1], 1, ETL_TEST_START_RAW + off,
				   ETL_TEST_START_RAW + off + 1100, self->exp,
				   &self->nexp));
	for (i = 0; i < self->nexp; i++)
		if (!(self->exp[i].id % 3))
			self->exp[kept++] = self->exp[i];
	ASSERT_EQ(2 * CPUS * BUFS * PER_BUF / 3, kept);
	ASSERT_EQ(kept, check_merge_filtered(_metadata, self->path, 2,
					     self->exp, kept, filter));
	/* Each file's header event too, which the filter keeps. */
	EXPECT_EQ(2 * CPUS * BUFS * PER_BUF + 2, filter[1]);
}

/*
 * Raw 50 ns apart, one FILETIME tick: the earlier raw value comes first
 * even though it is on the higher CPU.
 */
TEST_F(merge, same_tick_ordered_by_raw)
{
	uint8_t buf[ETL_TEST_BS];
	const uint64_t t = ETL_TEST_START_RAW + 100000;

	ASSERT_EQ(0, make_header_file(self->path[0], ETL_TEST_START_RAW));
	etl_buf_init(buf, ETL_TEST_BS, 0);
	etl_buf_add(buf, 0, t + 60);
	ASSERT_EQ(0, put_buffer(self->path[0], buf, 1, 1));
	etl_buf_init(buf, ETL_TEST_BS, 1);
	etl_buf_add(buf, 1, t + 10);
	ASSERT_EQ(0, put_buffer(self->path[0], buf, 2, 2));
	self->exp[0] = (struct expect){ ETL_TEST_START_TIME + 1000, 0,
					t + 60, 0, 0 };
	self->exp[1] = (struct expect){ ETL_TEST_START_TIME + 1000, 0,
					t + 10, 1, 1 };
	ASSERT_EQ(2, check_merge(_metadata, self->path, 1, self->exp, 2));
	EXPECT_EQ(1, self->exp[0].id);
}

TEST(empty_merge)
{
	struct etw_etl_merge *m;
	struct etw_etl_event ev;

	ASSERT_EQ(0, etw_etl_merge_open(NULL, 0, &m));
	EXPECT_EQ(0, etw_etl_merge_next(m, &ev, NULL));
	etw_etl_merge_close(m);
}

TEST_HARNESS_MAIN
