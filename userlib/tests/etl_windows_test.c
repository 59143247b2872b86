// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Read the ETL files Windows wrote (testdata/etl).  Every expected value
 * below was decoded from the files' bytes by hand (a throwaway script
 * following reference §4.6, §5.2-5.7), not taken from this reader.
 */
#include "etl_test.h"
#include "kselftest_harness.h"
#include "testdata.h"

#define PRIMITIVE	TESTDATA "/etl/primitive-types.etl"
#define CLR		TESTDATA "/etl/clr-gc-events.etl"

/* d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615: the TraceLogging provider. */
static const struct etw_guid solar_guid = {
	0xd3dd3dd4, 0xaac2, 0x4e2a,
	{ 0x8d, 0xd4, 0xa8, 0xfb, 0x61, 0xb7, 0x76, 0x15 }
};

/* e13c0d23-ccbc-4e12-931b-d9cc2eee27e4: Microsoft-Windows-DotNETRuntime. */
static const struct etw_guid clr_guid = {
	0xe13c0d23, 0xccbc, 0x4e12,
	{ 0x93, 0x1b, 0xd9, 0xcc, 0x2e, 0xee, 0x27, 0xe4 }
};

/* 68fdd900-4a3e-11d1-84f4-0000f80464e3 */
static const struct etw_guid event_trace_guid = {
	0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 }
};

static bool guid_eq(const struct etw_guid *a, const struct etw_guid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

TEST(primitive_header)
{
	const struct etw_etl_logfile_header *h;
	const struct etw_etl_system_header *sh;
	struct etw_etl_reader *r;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	h = etw_etl_reader_header(r);
	sh = etw_etl_reader_header_event(r);
	EXPECT_EQ(2u, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(8192u, etw_etl_reader_buffer_size(r));
	EXPECT_EQ(8192u, h->buffer_size);
	EXPECT_EQ(0, memcmp(h->version, "\x0a\x00\x01\x05", 4));
	EXPECT_EQ(19043u, h->provider_version);
	EXPECT_EQ(8u, h->number_of_processors);
	EXPECT_EQ(132756731820557985ull, h->end_time);
	EXPECT_EQ(156250u, h->timer_resolution);
	EXPECT_EQ(0u, h->maximum_file_size);
	EXPECT_EQ(0u, h->log_file_mode);
	EXPECT_EQ(2u, h->buffers_written);
	EXPECT_EQ(1u, h->start_buffers);
	EXPECT_EQ(8u, h->pointer_size);
	EXPECT_EQ(0u, h->events_lost);
	EXPECT_EQ(2304u, h->cpu_speed_mhz);
	EXPECT_EQ(10u, h->logger_name);
	EXPECT_EQ(7u, h->log_file_name);
	EXPECT_EQ(132754128145000000ull, h->boot_time);
	EXPECT_EQ(10000000u, h->perf_freq);
	EXPECT_EQ(132756731728578510ull, h->start_time);
	EXPECT_EQ(1u, h->reserved_flags);
	EXPECT_EQ(0u, h->buffers_lost);
	EXPECT_EQ(0xc0020002u, sh->marker);
	EXPECT_EQ(398u, sh->size);
	EXPECT_EQ(0u, sh->hook_id);
	EXPECT_EQ(29376u, sh->thread_id);
	EXPECT_EQ(39096u, sh->process_id);
	EXPECT_EQ(2603587641205ull, sh->system_time);
	EXPECT_STREQ("solar_system", etw_etl_reader_logger_name(r));
	EXPECT_STREQ("C:\\primitive-types_000004.etl",
		     etw_etl_reader_file_name(r));
	etw_etl_reader_close(r);
}

TEST(primitive_buffers)
{
	struct etw_etl_reader *r;
	struct etw_buffer_header bh;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	ASSERT_EQ(0, etw_etl_reader_buffer_header(r, 0, &bh));
	EXPECT_EQ(552u, bh.offset);
	EXPECT_EQ(552u, bh.saved_offset);
	EXPECT_EQ(0u, bh.sequence_number);
	EXPECT_EQ(61u, bh.logger_id);
	EXPECT_EQ(0x21u, bh.buffer_flag);
	EXPECT_EQ(ETW_BUFFER_TYPE_HEADER, bh.buffer_type);
	ASSERT_EQ(0, etw_etl_reader_buffer_header(r, 1, &bh));
	EXPECT_EQ(1952u, bh.offset);
	EXPECT_EQ(1u, bh.sequence_number);
	EXPECT_EQ(2u, etw_etl_buffer_cpu(&bh));
	EXPECT_EQ(2603679519980ull, bh.timestamp);
	EXPECT_EQ(-ERANGE, etw_etl_reader_buffer_header(r, 2, &bh));
	etw_etl_reader_close(r);
}

/* Header buffer: the header event, then the 80-byte hook 0x0050 record. */
TEST(primitive_header_records)
{
	struct etw_etl_records it;
	struct etw_etl_reader *r;
	struct etw_etl_event ev;
	uint8_t buf[8192];

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	ASSERT_EQ(0, etw_etl_reader_buffer(r, 0, buf));
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, sizeof(buf),
					  etw_etl_reader_clock(r)));
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_SYSTEM, (int)ev.kind);
	EXPECT_EQ(ETW_ETL_HT_SYSTEM64, ev.header_type);
	EXPECT_EQ(398u, ev.size);
	EXPECT_EQ(0u, ev.hook_id);
	EXPECT_TRUE(guid_eq(&event_trace_guid, &ev.provider_id));
	EXPECT_EQ(2, ev.descriptor.version);
	EXPECT_EQ(0u, ev.descriptor.opcode);
	EXPECT_EQ(2603587641205ull, ev.raw_timestamp);
	EXPECT_EQ(132756731728578510ll, ev.timestamp);
	EXPECT_EQ(398u - 32, ev.user_data_len);
	EXPECT_EQ(61u, ev.logger_id);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_SYSTEM, (int)ev.kind);
	EXPECT_EQ(80u, ev.size);
	EXPECT_EQ(0x0050u, ev.hook_id);
	EXPECT_EQ(0x50u, ev.descriptor.opcode);
	EXPECT_EQ(39096u, ev.process_id);
	EXPECT_EQ(0, etw_etl_records_next(&it, &ev));
	etw_etl_reader_close(r);
}

TEST(primitive_events)
{
	static const uint64_t raw[] = {
		2603617064262ull, 2603621453799ull, 0, 0, 2603633907722ull
	};
	static const uint16_t sizes[] = { 374, 372, 0, 0, 374 };
	struct etw_etl_records it;
	struct etw_etl_reader *r;
	struct etw_etl_event ev;
	uint8_t buf[8192];
	int n = 0;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	ASSERT_EQ(0, etw_etl_reader_buffer(r, 1, buf));
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, sizeof(buf),
					  etw_etl_reader_clock(r)));
	while (etw_etl_records_next(&it, &ev) == 1) {
		ASSERT_EQ(ETW_ETL_KIND_EVENT, (int)ev.kind);
		EXPECT_EQ(ETW_ETL_HT_EVENT64, ev.header_type);
		EXPECT_TRUE(guid_eq(&solar_guid, &ev.provider_id));
		EXPECT_EQ(0u, ev.descriptor.id);
		EXPECT_EQ(5u, ev.descriptor.level);
		EXPECT_EQ(11u, ev.descriptor.channel);
		EXPECT_EQ(0u, ev.descriptor.opcode);
		EXPECT_EQ(0u, ev.descriptor.keyword);
		EXPECT_EQ(33984u, ev.process_id);
		EXPECT_EQ(21768u, ev.thread_id);
		EXPECT_EQ(2u, ev.processor_index);
		EXPECT_EQ(61u, ev.logger_id);
		EXPECT_EQ(ETW_EVENT_FLAG_EXTENDED_INFO, ev.flags);
		EXPECT_EQ(0u, ev.event_property);
		/* Traits (ItemSize 24) then the schema (ItemSize 192). */
		ASSERT_EQ(2u, ev.ext_count);
		EXPECT_EQ(ETW_EXT_PROV_TRAITS, ev.ext[0].type);
		EXPECT_EQ(15u, ev.ext[0].size);
		EXPECT_EQ(0, memcmp(ev.ext[0].data, "\x0f\x00solar_system",
				    15));
		EXPECT_EQ(ETW_EXT_EVENT_SCHEMA_TL, ev.ext[1].type);
		EXPECT_EQ(182u, ev.ext[1].size);
		EXPECT_EQ(0, memcmp((const char *)ev.ext[1].data + 3,
				    "PrimitiveTypesTest", 19));
		EXPECT_EQ(ev.size - 80u - 24 - 192, ev.user_data_len);
		if (raw[n]) {
			EXPECT_EQ(raw[n], ev.raw_timestamp);
			EXPECT_EQ(sizes[n], ev.size);
		}
		n++;
	}
	EXPECT_EQ(5, n);
	etw_etl_reader_close(r);
}

/* The first event in detail, including its FILETIME per §4.8. */
TEST(primitive_first_last)
{
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int n = 0, ret;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r));
	ASSERT_EQ(0, etw_etl_merge_open(&r, 1, &m));
	while ((ret = etw_etl_merge_next(m, &ev, NULL)) == 1) {
		if (ev.kind != ETW_ETL_KIND_EVENT)
			continue;
		if (!n++) {
			EXPECT_EQ(2603617064262ull, ev.raw_timestamp);
			EXPECT_EQ(132756731758001567ll, ev.timestamp);
			EXPECT_EQ(374u, ev.size);
			EXPECT_EQ(78u, ev.user_data_len);
			EXPECT_EQ(0, memcmp(ev.user_data, "Mercury", 8));
		}
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(5, n);
	EXPECT_EQ(2603633907722ull, ev.raw_timestamp);
	EXPECT_EQ(132756731774845027ll, ev.timestamp);
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
}

TEST(clr_header)
{
	const struct etw_etl_logfile_header *h;
	const struct etw_etl_system_header *sh;
	struct etw_etl_reader *r;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(CLR, &r));
	h = etw_etl_reader_header(r);
	sh = etw_etl_reader_header_event(r);
	EXPECT_EQ(5u, etw_etl_reader_buffer_count(r));
	EXPECT_EQ(65536u, h->buffer_size);
	EXPECT_EQ(0, memcmp(h->version, "\x0a\x00\x01\x05", 4));
	EXPECT_EQ(19045u, h->provider_version);
	EXPECT_EQ(8u, h->number_of_processors);
	EXPECT_EQ(133232284107010610ull, h->end_time);
	EXPECT_EQ(156250u, h->timer_resolution);
	EXPECT_EQ(800u, h->maximum_file_size);
	EXPECT_EQ(0x08000002u, h->log_file_mode);
	EXPECT_EQ(5u, h->buffers_written);
	EXPECT_EQ(8u, h->pointer_size);
	EXPECT_EQ(3408u, h->cpu_speed_mhz);
	EXPECT_EQ(133226819165000000ull, h->boot_time);
	EXPECT_EQ(10000000u, h->perf_freq);
	EXPECT_EQ(133232283966946549ull, h->start_time);
	EXPECT_EQ(1u, h->reserved_flags);
	EXPECT_EQ(0u, h->buffers_lost);
	EXPECT_EQ(424u, sh->size);
	EXPECT_EQ(179388u, sh->thread_id);
	EXPECT_EQ(179356u, sh->process_id);
	EXPECT_EQ(5464821681081ull, sh->system_time);
	EXPECT_STREQ("PerfViewSession", etw_etl_reader_logger_name(r));
	EXPECT_STREQ("C:\\Dev\\runtime\\CoreLab\\PerfViewData.etl",
		     etw_etl_reader_file_name(r));
	etw_etl_reader_close(r);
}

/* File order is not sequence order: seq 0,2,3,4,1 on CPUs 0,7,6,2,4. */
TEST(clr_buffers)
{
	static const uint64_t seq[] = { 0, 2, 3, 4, 1 };
	static const uint16_t cpu[] = { 0, 7, 6, 2, 4 };
	static const uint32_t filled[] = { 576, 1224, 1904, 232, 6240 };
	struct etw_etl_reader *r;
	struct etw_buffer_header bh;
	int i;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(CLR, &r));
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, etw_etl_reader_buffer_header(r, i, &bh));
		EXPECT_EQ(seq[i], bh.sequence_number);
		EXPECT_EQ(cpu[i], etw_etl_buffer_cpu(&bh));
		EXPECT_EQ(filled[i], bh.offset);
		EXPECT_EQ(44u, bh.logger_id);
	}
	etw_etl_reader_close(r);
}

struct id_count {
	uint16_t id;
	int count;
};

static const struct id_count clr_ids[] = {
	{ 202, 13 }, { 10, 12 }, { 5, 7 }, { 29, 6 }, { 14, 3 }, { 13, 3 },
	{ 9, 2 }, { 8, 2 }, { 35, 2 }, { 1, 2 }, { 33, 2 }, { 205, 2 },
	{ 204, 2 }, { 2, 2 }, { 4, 2 }, { 7, 2 }, { 3, 2 }, { 187, 1 },
	{ 209, 1 }, { 208, 1 },
};

TEST(clr_events_merged)
{
	struct etw_etl_reader *r;
	struct etw_etl_merge *m;
	struct etw_etl_event ev, first = { 0 };
	int ids[65536] = { 0 }, cpus[8] = { 0 }, levels[8] = { 0 };
	int tids[2] = { 0 };
	int n = 0, sys = 0, ret;
	int64_t prev = 0;
	size_t i;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(CLR, &r));
	ASSERT_EQ(0, etw_etl_merge_open(&r, 1, &m));
	while ((ret = etw_etl_merge_next(m, &ev, NULL)) == 1) {
		EXPECT_LE(prev, ev.timestamp);
		prev = ev.timestamp;
		if (ev.kind == ETW_ETL_KIND_SYSTEM) {
			/* Both header records come first, at StartTime. */
			EXPECT_EQ(0, n);
			EXPECT_EQ(133232283966946549ll, ev.timestamp);
			sys++;
			continue;
		}
		ASSERT_EQ(ETW_ETL_KIND_EVENT, (int)ev.kind);
		EXPECT_TRUE(guid_eq(&clr_guid, &ev.provider_id));
		EXPECT_EQ(0u, ev.ext_count);
		levels[ev.descriptor.level & 7]++;
		EXPECT_EQ(179596u, ev.process_id);
		tids[ev.thread_id == 168672]++;
		ids[ev.descriptor.id]++;
		ASSERT_LT(ev.processor_index, 8);
		cpus[ev.processor_index]++;
		if (!n++)
			first = ev;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(2, sys);
	EXPECT_EQ(69, n);
	for (i = 0; i < sizeof(clr_ids) / sizeof(clr_ids[0]); i++)
		EXPECT_EQ(clr_ids[i].count, ids[clr_ids[i].id]);
	EXPECT_EQ(48, levels[4]);
	EXPECT_EQ(21, levels[5]);
	EXPECT_EQ(57, tids[1]);
	EXPECT_EQ(12, tids[0]);
	EXPECT_EQ(45, cpus[4]);
	EXPECT_EQ(12, cpus[7]);
	EXPECT_EQ(11, cpus[6]);
	EXPECT_EQ(1, cpus[2]);

	EXPECT_EQ(187u, first.descriptor.id);
	EXPECT_EQ(5464903527823ull, first.raw_timestamp);
	EXPECT_EQ(133232284048793291ll, first.timestamp);
	EXPECT_EQ(168672u, first.thread_id);
	EXPECT_EQ(4u, first.processor_index);
	EXPECT_EQ(0u, first.descriptor.keyword);
	EXPECT_EQ(1u, first.descriptor.opcode);
	EXPECT_EQ(19u, first.descriptor.task);
	EXPECT_EQ(283u, first.size);
	EXPECT_EQ(203u, first.user_data_len);

	EXPECT_EQ(13u, ev.descriptor.id);
	EXPECT_EQ(5464937770035ull, ev.raw_timestamp);
	EXPECT_EQ(133232284083035503ll, ev.timestamp);
	EXPECT_EQ(177072u, ev.thread_id);
	EXPECT_EQ(7u, ev.processor_index);
	EXPECT_EQ(1u, ev.descriptor.keyword);
	EXPECT_EQ(15u, ev.descriptor.opcode);
	EXPECT_EQ(1u, ev.descriptor.task);
	EXPECT_EQ(1, ev.descriptor.version);
	EXPECT_EQ(86u, ev.size);
	EXPECT_EQ(6u, ev.user_data_len);
	etw_etl_merge_close(m);
	etw_etl_reader_close(r);
}

/* Both samples at once: 5 + 69 events, ordered across files. */
TEST(two_windows_files)
{
	struct etw_etl_reader *r[2];
	struct etw_etl_merge *m;
	struct etw_etl_event ev;
	int per_file[2] = { 0 }, ret;
	unsigned int file;
	int64_t prev = 0;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(CLR, &r[0]));
	ASSERT_EQ(0, etw_etl_reader_open(PRIMITIVE, &r[1]));
	ASSERT_EQ(0, etw_etl_merge_open(r, 2, &m));
	while ((ret = etw_etl_merge_next(m, &ev, &file)) == 1) {
		EXPECT_LE(prev, ev.timestamp);
		prev = ev.timestamp;
		if (ev.kind == ETW_ETL_KIND_EVENT)
			per_file[file]++;
	}
	EXPECT_EQ(0, ret);
	EXPECT_EQ(69, per_file[0]);
	EXPECT_EQ(5, per_file[1]);
	etw_etl_merge_close(m);
	etw_etl_reader_close(r[0]);
	etw_etl_reader_close(r[1]);
}

/*
 * Every record of PerfView's trace, kernel records (SYSTEM and PERFINFO
 * headers), events and header records: etw_etl_records_class() gives
 * what the parse gives, and passing a record over leaves the next one's
 * parse as it was.
 */
TEST(net_class_of_every_record)
{
	struct etw_etl_records it, ref;
	struct etw_etl_event ev, want;
	struct etw_etl_reader *r;
	uint64_t i, n = 0, kernel = 0;
	uint8_t *buf;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, etw_etl_reader_open(TESTDATA "/etl/net.4.5.2.x86.etl",
					 &r));
	buf = malloc(etw_etl_reader_buffer_size(r));
	ASSERT_NE(NULL, buf);
	for (i = 0; i < etw_etl_reader_buffer_count(r); i++) {
		ASSERT_EQ(0, etw_etl_reader_buffer(r, i, buf));
		ASSERT_EQ(0, etw_etl_records_init(&it, buf,
						  etw_etl_reader_buffer_size(r),
						  NULL));
		ref = it;
		while (etw_etl_records_next(&ref, &want) == 1) {
			ASSERT_EQ(1, etw_etl_records_class(&it, &ev));
			ASSERT_EQ(want.kind, ev.kind);
			ASSERT_EQ(want.header_type, ev.header_type);
			ASSERT_EQ(want.size, ev.size);
			ASSERT_EQ(want.hook_id, ev.hook_id);
			ASSERT_TRUE(guid_eq(&want.provider_id, &ev.provider_id));
			ASSERT_EQ(0, memcmp(&want.descriptor, &ev.descriptor,
					    sizeof(ev.descriptor)));
			ASSERT_EQ(want.raw_timestamp, ev.raw_timestamp);
			kernel += ev.kind == ETW_ETL_KIND_SYSTEM ||
				  ev.kind == ETW_ETL_KIND_PERFINFO;
			/* Every other record parsed, the rest passed over. */
			if (n++ % 2) {
				etw_etl_records_pass(&it, &ev);
				continue;
			}
			ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
			ASSERT_EQ(want.user_data_len, ev.user_data_len);
			ASSERT_EQ(want.timestamp, ev.timestamp);
		}
		EXPECT_EQ(0, etw_etl_records_class(&it, &ev));
	}
	/*
	 * etwctl stats' counts: 168,296 events and the 2 header records;
	 * 119,563 of the events are of the kernel classes (PerfInfo 88,811,
	 * StackWalk 16,474, DiskIo 4,786, Image 3,679, FileIo 3,030, Thread
	 * 1,442, TcpIp 478, PageFault 394, EventTraceConfig 248, Process
	 * 167, UdpIp 48, EventTrace 6), as are the header records.
	 */
	EXPECT_EQ(168298, n);
	EXPECT_EQ(119565, kernel);
	free(buf);
	etw_etl_reader_close(r);
}

TEST_HARNESS_MAIN
