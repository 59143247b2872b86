// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * TRACE_LOGFILE_HEADER fields readers rely on: CpuSpeedInMHz is never 0
 * (a widely used reader divides by it), taken from the sources in the
 * documented order; EndTime is not earlier than the newest buffer, even
 * when buffers arrive out of time order or the caller's stop time is
 * earlier.
 */
#include <errno.h>

#include "etl_test.h"
#include "etw_arch.h"
#include "kselftest_harness.h"

#define MS		1000000ull	/* ns */
#define CPUFREQ		"/sys/devices/system/cpu/cpu0/cpufreq"

/* --- CpuSpeedInMHz sources ------------------------------------------------ */

/* Write @text to @root@path, creating the directories. */
static int put_file(const char *root, const char *path, const char *text)
{
	char cmd[1024];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s%s')\"", root,
		 path);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s%s", root, path);
	f = fopen(cmd, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* What a fake /sys and /proc hold; NULL for an absent file. */
struct speed_case {
	const char *name;
	const char *base;
	const char *max;
	const char *cpuinfo;
	uint32_t mhz;	/* 0: none answers, the measured value is used */
};

static const struct speed_case speed_cases[] = {
	{ "base first", "2304000\n", "3900000\n", "cpu MHz\t\t: 1200.0\n",
	  2304 },
	{ "max without base", NULL, "3900000\n", "cpu MHz\t\t: 1200.0\n",
	  3900 },
	{ "kHz rounded", "2299500\n", NULL, NULL, 2300 },
	{ "zero base skipped", "0\n", "3500000\n", NULL, 3500 },
	{ "garbage base skipped", "n/a\n", NULL, "cpu MHz\t\t: 800.0\n",
	  800 },
	{ "cpuinfo first cpu MHz", NULL, NULL,
	  "processor\t: 0\nmodel name\t: X @ 2.60GHz\ncpu MHz\t\t: 2596.122\n"
	  "\nprocessor\t: 1\ncpu MHz\t\t: 3100.000\n", 2596 },
	{ "cpuinfo zero MHz skipped", NULL, NULL, "cpu MHz\t\t: 0.000\n", 0 },
	{ "nothing", NULL, NULL, NULL, 0 },
};

TEST(cpu_speed_sources_in_order)
{
	const struct speed_case *c;
	char *dir, *root;
	unsigned int i;
	uint32_t mhz;

	for (i = 0; i < ARRAY_SIZE(speed_cases); i++) {
		c = &speed_cases[i];
		dir = etl_mkdtemp();
		ASSERT_NE(NULL, dir);
		root = etl_path(dir, "root");
		ASSERT_EQ(0, mkdir(root, 0755));
		if (c->base)
			ASSERT_EQ(0, put_file(root, CPUFREQ "/base_frequency",
					      c->base));
		if (c->max)
			ASSERT_EQ(0, put_file(root,
					      CPUFREQ "/cpuinfo_max_freq",
					      c->max));
		if (c->cpuinfo)
			ASSERT_EQ(0, put_file(root, "/proc/cpuinfo",
					      c->cpuinfo));
		mhz = etw_etl_cpu_speed_mhz(root);
		if (c->mhz) {
			EXPECT_EQ(c->mhz, mhz) TH_LOG("%s", c->name);
		} else {
			EXPECT_NE(0u, mhz) TH_LOG("%s", c->name);
		}
		free(root);
		etl_rmdir(dir);
	}
}

/*
 * The measured fallback counts cycles (etw_arch.h): on x86 the TSC runs
 * at hundreds of MHz at least, which a constant or a unit slip (kHz,
 * GHz) would not.
 */
TEST(cpu_speed_measured_is_plausible)
{
#ifdef ETW_ARCH_CYCLES
	uint32_t mhz = etw_etl_cpu_speed_mhz("/nonexistent-root");

	EXPECT_LE(100u, mhz);
	EXPECT_GE(100000u, mhz);
#else
	SKIP(return, "no cycle counter to measure");
#endif
}

/* --- files the writer produces -------------------------------------------- */

FIXTURE(hdr) {
	char *dir;
	char *path;
	struct etw_etl_writer_params p;
	uint8_t buf[ETL_TEST_BS];
};

FIXTURE_SETUP(hdr)
{
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "trace.etl");
	self->p = etl_test_params();
}

FIXTURE_TEARDOWN(hdr)
{
	free(self->path);
	etl_rmdir(self->dir);
}

/* The header of @path, or a zeroed one when it cannot be read. */
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

/* A buffer of @cpu holding one event at @ts (raw ns); sealed at @ts. */
static int append_at(struct etw_etl_writer *w, uint8_t *buf, uint16_t cpu,
		     uint64_t ts)
{
	etl_buf_fill(buf, cpu, 1, 1, ts, 0);
	return etw_etl_writer_append(w, buf);
}

static uint64_t filetime_of(uint64_t raw)
{
	return ETL_TEST_START_TIME + (raw - ETL_TEST_START_RAW) / 100;
}

struct mode_case {
	const char *name;
	uint32_t mode;
	uint32_t max_kb;
	const char *file;
};

static const struct mode_case mode_cases[] = {
	{ "sequential", ETW_ETL_MODE_SEQUENTIAL, 0, "seq.etl" },
	{ "circular", ETW_ETL_MODE_CIRCULAR, 12, "circ.etl" },
	{ "newfile", ETW_ETL_MODE_NEWFILE, 12, "new_%d.etl" },
};

/* Every file mode: CpuSpeedInMHz is the host's, not 0 (newfile: file 1). */
TEST_F(hdr, cpu_speed_in_every_mode)
{
	uint32_t want = etw_etl_cpu_speed_mhz("");
	struct etw_etl_logfile_header h;
	struct etw_etl_writer *w;
	const struct mode_case *c;
	unsigned int i, k;
	char *path;

	ASSERT_NE(0u, want);
	for (i = 0; i < ARRAY_SIZE(mode_cases); i++) {
		c = &mode_cases[i];
		self->p.max_file_size = c->max_kb;
		self->p.log_file_mode = c->max_kb ? ETW_ETL_MODE_KBYTES : 0;
		path = etl_path(self->dir, c->file);
		ASSERT_EQ(0, etw_etl_writer_open(path, c->mode, &self->p, &w));
		for (k = 0; k < 4; k++)
			ASSERT_EQ(0, append_at(w, self->buf, 0,
					       ETL_TEST_START_RAW + k * MS));
		ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
		if (c->mode == ETW_ETL_MODE_NEWFILE)
			strcpy(strstr(path, "%d"), "1.etl");
		h = read_header(path);
		EXPECT_EQ(want, h.cpu_speed_mhz) TH_LOG("%s", c->name);
		free(path);
	}
}

/* A NEWFILE session's later files carry it too. */
TEST_F(hdr, cpu_speed_in_rotated_file)
{
	struct etw_etl_writer *w;
	char *pattern = etl_path(self->dir, "rot_%d.etl");
	char *second = etl_path(self->dir, "rot_2.etl");
	unsigned int k;

	self->p.max_file_size = 12;
	self->p.log_file_mode = ETW_ETL_MODE_KBYTES;
	ASSERT_EQ(0, etw_etl_writer_open(pattern, ETW_ETL_MODE_NEWFILE,
					 &self->p, &w));
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, append_at(w, self->buf, 0,
				       ETL_TEST_START_RAW + k * MS));
	EXPECT_EQ(2u, etw_etl_writer_file_number(w));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	EXPECT_EQ(etw_etl_cpu_speed_mhz(""), read_header(second).cpu_speed_mhz);
	free(pattern);
	free(second);
}

/* Appending to a file an older writer left with 0 fills the field in. */
TEST_F(hdr, cpu_speed_filled_when_appending)
{
	uint32_t zero = 0;
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	ASSERT_EQ(0, etl_write_at(self->path, &zero, sizeof(zero),
				  ETW_BUFFER_HEADER_SIZE + 32 +
				  offsetof(struct etw_etl_logfile_header,
					   cpu_speed_mhz)));
	ASSERT_EQ(0u, read_header(self->path).cpu_speed_mhz);
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + 2 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	EXPECT_EQ(etw_etl_cpu_speed_mhz(""),
		  read_header(self->path).cpu_speed_mhz);
}

/*
 * Buffers out of time order (CPU 0's newest sealed before CPU 1's older
 * one, as a merge seals them): EndTime is the newest seal, not the last.
 */
TEST_F(hdr, end_time_is_newest_buffer)
{
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + 10 * MS));
	ASSERT_EQ(0, append_at(w, self->buf, 1, ETL_TEST_START_RAW + 5 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	EXPECT_EQ(filetime_of(ETL_TEST_START_RAW + 10 * MS),
		  read_header(self->path).end_time);
}

/* A stop time before the newest event is raised to it... */
TEST_F(hdr, end_time_early_stop_raised)
{
	struct etw_etl_writer_stats st = { .end_time = ETL_TEST_START_TIME + 1 };
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + 7 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, &st));
	EXPECT_EQ(filetime_of(ETL_TEST_START_RAW + 7 * MS),
		  read_header(self->path).end_time);
}

/* ...and one after it is kept. */
TEST_F(hdr, end_time_late_stop_kept)
{
	struct etw_etl_writer_stats st = {
		.end_time = filetime_of(ETL_TEST_START_RAW + 9 * MS),
	};
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + 7 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, &st));
	EXPECT_EQ(st.end_time, read_header(self->path).end_time);
}

/* Appending: the newest buffer already in the file counts too. */
TEST_F(hdr, end_time_counts_appended_file)
{
	struct etw_etl_writer *w;

	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_SEQUENTIAL,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 0, ETL_TEST_START_RAW + 10 * MS));
	ASSERT_EQ(0, append_at(w, self->buf, 1, ETL_TEST_START_RAW + 4 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	ASSERT_EQ(0, etw_etl_writer_open(self->path, ETW_ETL_MODE_APPEND,
					 &self->p, &w));
	ASSERT_EQ(0, append_at(w, self->buf, 2, ETL_TEST_START_RAW + 6 * MS));
	ASSERT_EQ(0, etw_etl_writer_close(w, NULL));
	EXPECT_EQ(filetime_of(ETL_TEST_START_RAW + 10 * MS),
		  read_header(self->path).end_time);
}

TEST_HARNESS_MAIN
