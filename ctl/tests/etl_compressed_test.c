// SPDX-License-Identifier: GPL-2.0
/*
 * etwctl on compressed, relogged files: the PerfView trace Windows'
 * relogger wrote (testdata/etl/net.4.5.2.x86.etl), and the files
 * "etwctl merge --compress" writes from it.
 */
#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"

#define NET		ETL_DIR "/net.4.5.2.x86.etl"
/* Records of the file less its two header (metadata) records. */
#define NET_EVENTS	168296

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

FIXTURE(net) {
	char *dir;
	char *plain, *z;
};

FIXTURE_SETUP(net)
{
	REQUIRE_TESTDATA();
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->plain = etl_path(self->dir, "plain.etl");
	self->z = etl_path(self->dir, "z.etl");
}

FIXTURE_TEARDOWN(net)
{
	if (!self->dir)
		return;
	free(self->plain);
	free(self->z);
	etl_rmdir(self->dir);
}

TEST_F(net, stats)
{
	struct ctl_run run = ctl_run(etwctl_cmd_stats, CTL_ARGV("stats", NET));

	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_EQ(0, strncmp(run.out, "events: 168296 in 276 buffers\n", 30));
	EXPECT_NE(NULL, strstr(run.out, "corrupt buffers 0\n"));
	ctl_run_free(&run);
}

TEST_F(net, dump_every_event)
{
	struct ctl_run run = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", NET));

	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_EQ((size_t)NET_EVENTS, count_lines(run.out));
	EXPECT_STREQ("", run.err);
	ctl_run_free(&run);
}

/* Kernel records by their MOF class: names, values, IPv6 addresses. */
TEST_F(net, dump_kernel_classes)
{
	struct ctl_run run = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", NET));

	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_NE(NULL, strstr(run.out, " MSNT_SystemTrace - id=0 v=2 lvl=0 "
			       "op=SampleProf task=PerfInfo kw=0x0 act=- "
			       "InstructionPointer=\"0xFFFFF80021561F43\" "
			       "ThreadId=2784 Count=1 Reserved=88\n"));
	EXPECT_NE(NULL, strstr(run.out, " op=SendIPV6 task=TcpIp kw=0x0 act=- "
			       "PID=4 size=65652 "
			       "daddr=\"2001:4898:e0:81:7cb9:ab:cd5:e6af\" "
			       "saddr=\"2001:4898:f0:26:b18e:e85f:db5d:8e8\" "
			       "dport=445 sport=64022 "));
	ctl_run_free(&run);
}

TEST_F(net, dump_json_every_event)
{
	struct ctl_run run = ctl_run(etwctl_cmd_dump,
				     CTL_ARGV("dump", "--format=json", NET));

	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	EXPECT_EQ((size_t)NET_EVENTS, count_lines(run.out));
	ctl_run_free(&run);
}

/* The relogger's header, and every event, in fewer bytes. */
TEST_F(net, merge_compress)
{
	const struct etw_etl_logfile_header *h;
	struct etw_etl_reader *r;
	struct etw_etl_stored st;
	struct ctl_run run;

	run = ctl_run(etwctl_cmd_merge,
		      CTL_ARGV("merge", "--compress", self->z, NET));
	EXPECT_EQ(0, run.status) TH_LOG("%s", run.err);
	ctl_run_free(&run);
	ASSERT_EQ(0, etw_etl_reader_open(self->z, &r));
	h = etw_etl_reader_header(r);
	EXPECT_STREQ("Relogger", etw_etl_reader_logger_name(r));
	EXPECT_STREQ("[multiple files]", etw_etl_reader_file_name(r));
	EXPECT_EQ((uint32_t)(ETW_ETL_MODE_COMPRESSED | ETW_ETL_MODE_RELOG |
			     ETW_ETL_MODE_SEQUENTIAL), h->log_file_mode);
	EXPECT_EQ(65536u, h->buffer_size);
	ASSERT_EQ(0, etw_etl_reader_stored(r, 0, &st));
	EXPECT_EQ(512u, st.size);
	ASSERT_EQ(0, etw_etl_reader_stored(r, 1, &st));
	EXPECT_TRUE(st.compressed);
	etw_etl_reader_close(r);
	EXPECT_GT(etl_file_size(NET), etl_file_size(self->z));
	run = ctl_run(etwctl_cmd_stats, CTL_ARGV("stats", self->z));
	EXPECT_EQ(0, strncmp(run.out, "events: 168296 in ", 18));
	ctl_run_free(&run);
}

/* Compressed or not, a merge holds the same events. */
TEST_F(net, compressed_and_plain_dump_alike)
{
	struct ctl_run a, b;

	a = ctl_run(etwctl_cmd_merge, CTL_ARGV("merge", self->plain, NET));
	EXPECT_EQ(0, a.status) TH_LOG("%s", a.err);
	ctl_run_free(&a);
	a = ctl_run(etwctl_cmd_merge,
		    CTL_ARGV("merge", "-z", self->z, NET));
	EXPECT_EQ(0, a.status) TH_LOG("%s", a.err);
	ctl_run_free(&a);
	a = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", self->plain));
	b = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", self->z));
	EXPECT_EQ(0, a.status);
	EXPECT_EQ(0, b.status);
	EXPECT_EQ((size_t)NET_EVENTS, count_lines(a.out));
	EXPECT_STREQ(a.out, b.out);
	ctl_run_free(&a);
	ctl_run_free(&b);
}

TEST_HARNESS_MAIN
