// SPDX-License-Identifier: GPL-2.0
/*
 * The header of a file "etwctl merge" writes: CpuSpeedInMHz is not 0 and
 * EndTime is not earlier than the last event, for inputs whose own
 * EndTime is earlier than their events and whose CPUs' buffers end out
 * of time order (CPU 0 has the newest event but is sealed first).
 */
#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"

#define MS		1000000ull	/* ns */
/* Where TRACE_LOGFILE_HEADER.EndTime sits in a file. */
#define END_TIME_OFF	(ETW_BUFFER_HEADER_SIZE + 32 + \
			 offsetof(struct etw_etl_logfile_header, end_time))

FIXTURE(merge) {
	char *dir;
	char *a, *b, *out;
};

FIXTURE_SETUP(merge)
{
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->a = etl_path(self->dir, "a.etl");
	self->b = etl_path(self->dir, "b.etl");
	self->out = etl_path(self->dir, "out.etl");
}

FIXTURE_TEARDOWN(merge)
{
	free(self->a);
	free(self->b);
	free(self->out);
	etl_rmdir(self->dir);
}

/*
 * One buffer of @cpu with events at @t1 and @t2 ns after the start (none
 * at 0), then EndTime overwritten with StartTime: earlier than both.
 * @mhz: CpuSpeedInMHz to record, 0 for this host's.
 */
static int write_input_mhz(const char *path, uint16_t cpu, uint64_t t1,
			   uint64_t t2, uint32_t mhz)
{
	struct etw_etl_writer_params p = etl_test_params();
	uint64_t start = ETL_TEST_START_TIME;
	struct etw_etl_writer *w;
	uint8_t buf[ETL_TEST_BS];
	int ret;

	p.cpu_speed_mhz = mhz;
	ret = etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	if (ret)
		return ret;
	etl_buf_init(buf, ETL_TEST_BS, cpu);
	etl_buf_add(buf, 1, ETL_TEST_START_RAW + t1);
	if (t2)
		etl_buf_add(buf, 2, ETL_TEST_START_RAW + t2);
	ret = etw_etl_writer_append(w, buf);
	if (etw_etl_writer_close(w, NULL) && !ret)
		ret = -EIO;
	if (!ret)
		ret = etl_write_at(path, &start, sizeof(start), END_TIME_OFF);
	return ret;
}

static int write_input(const char *path, uint16_t cpu, uint64_t t1,
		       uint64_t t2)
{
	return write_input_mhz(path, cpu, t1, t2, 0);
}

/* The newest event FILETIME of @path; 0 when it has none or is bad. */
static int64_t newest_event(const char *path)
{
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int64_t newest = 0;

	if (etw_etl_reader_open(path, &r))
		return 0;
	if (!etw_etl_merge_open(&r, 1, &m)) {
		while (etw_etl_merge_next(m, &ev, NULL) > 0)
			if (ev.kind == ETW_ETL_KIND_EVENT &&
			    ev.timestamp > newest)
				newest = ev.timestamp;
		etw_etl_merge_close(m);
	}
	etw_etl_reader_close(r);
	return newest;
}

static struct etw_etl_logfile_header read_header(const char *path)
{
	struct etw_etl_logfile_header h = { 0 };
	struct etw_etl_reader *r;

	if (!etw_etl_reader_open(path, &r)) {
		h = *etw_etl_reader_header(r);
		etw_etl_reader_close(r);
	}
	return h;
}

/* The inputs really are as described: EndTime before their events. */
TEST_F(merge, inputs_end_before_their_events)
{
	ASSERT_EQ(0, write_input(self->a, 0, 1 * MS, 10 * MS));
	EXPECT_EQ(ETL_TEST_START_TIME, read_header(self->a).end_time);
	EXPECT_LT(ETL_TEST_START_TIME, (uint64_t)newest_event(self->a));
}

TEST_F(merge, merged_end_time_not_before_last_event)
{
	struct etw_etl_logfile_header h;
	struct ctl_run run;
	int64_t newest;

	ASSERT_EQ(0, write_input(self->a, 0, 1 * MS, 10 * MS));
	ASSERT_EQ(0, write_input(self->b, 1, 5 * MS, 0));
	run = ctl_run(etwctl_cmd_merge,
		      CTL_ARGV("merge", self->out, self->a, self->b));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	ctl_run_free(&run);
	newest = newest_event(self->out);
	EXPECT_EQ(ETL_TEST_START_TIME + 10 * MS / 100, (uint64_t)newest);
	h = read_header(self->out);
	EXPECT_LE((uint64_t)newest, h.end_time);
}

TEST_F(merge, merged_cpu_speed_not_zero)
{
	struct ctl_run run;

	ASSERT_EQ(0, write_input(self->a, 0, 1 * MS, 10 * MS));
	ASSERT_EQ(0, write_input(self->b, 1, 5 * MS, 0));
	run = ctl_run(etwctl_cmd_merge,
		      CTL_ARGV("merge", self->out, self->a, self->b));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	ctl_run_free(&run);
	EXPECT_NE(0u, read_header(self->out).cpu_speed_mhz);
}

/* The merged file keeps the speed of the machine that recorded it. */
TEST_F(merge, merged_cpu_speed_is_the_inputs)
{
	struct ctl_run run;

	ASSERT_EQ(0, write_input_mhz(self->a, 0, 1 * MS, 10 * MS, 1234));
	ASSERT_EQ(0, write_input_mhz(self->b, 1, 5 * MS, 0, 1234));
	ASSERT_EQ(1234u, read_header(self->a).cpu_speed_mhz);
	run = ctl_run(etwctl_cmd_merge,
		      CTL_ARGV("merge", self->out, self->a, self->b));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	ctl_run_free(&run);
	EXPECT_EQ(1234u, read_header(self->out).cpu_speed_mhz);
}

TEST_HARNESS_MAIN
