// SPDX-License-Identifier: GPL-2.0
/*
 * forward_gen: write an ETL file of N synthetic events for forward_test.sh.
 *
 *   forward_gen FILE N [FIRST]
 *
 * The events are numbered FIRST (default 0) to FIRST + N - 1, so that
 * files of different FIRST hold different events.  Events are 1 us apart on four CPUs (64 KiB buffers).  Event i has id
 * i % 65536, level i % 6, task i % 7, opcode i % 11, keyword 1 << (i % 64),
 * process 100 + i % 5, an activity id on every third event, and every
 * seventh is a string-only event whose text has a newline (the journal
 * takes it binary-safe); the others carry 16 bytes of payload (hex).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "etl_test.h"

#define GEN_BS		65536u
#define GEN_CPUS	4

static const char gen_text[] = "line one\nline \"two\" \\ end";

/* Make the record at @off string-only, its payload UTF-16 @gen_text. */
static void gen_string(uint8_t *buf, uint32_t off)
{
	struct etw_event_header *eh = (void *)(buf + off);
	uint8_t *p = buf + off + sizeof(*eh);
	size_t i;

	eh->flags |= ETW_EVENT_FLAG_STRING_ONLY;
	for (i = 0; i < sizeof(gen_text); i++) {
		p[2 * i] = (uint8_t)gen_text[i];
		p[2 * i + 1] = 0;
	}
}

static uint32_t gen_event(uint8_t *buf, unsigned long i, uint64_t ts)
{
	bool text = i % 7 == 3;
	struct etw_event_header *eh;
	uint32_t off;

	off = etl_buf_add_ext(buf, (uint16_t)i, ts, 100 + i % 5, 0, 0,
			      text ? 2 * sizeof(gen_text) : ETL_TEST_PAYLOAD);
	if (!off)
		return 0;
	eh = (void *)(buf + off);
	eh->descriptor.level = i % 6;
	eh->descriptor.task = i % 7;
	eh->descriptor.opcode = i % 11;
	eh->descriptor.keyword = 1ull << (i % 64);
	if (i % 3 == 0) {
		eh->activity_id = etl_test_guid;
		eh->activity_id.data1 = (uint32_t)i;
	}
	if (text)
		gen_string(buf, off);
	return off;
}

int main(int argc, char **argv)
{
	struct etw_etl_writer_params p = etl_test_params();
	static uint8_t bufs[GEN_CPUS][GEN_BS];
	struct etw_etl_writer *w;
	unsigned long n, i, first;
	unsigned int cpu;
	uint64_t ts;
	int ret;

	n = argc == 3 || argc == 4 ? strtoul(argv[2], NULL, 0) : 0;
	first = argc == 4 ? strtoul(argv[3], NULL, 0) : 0;
	if (!n) {
		fprintf(stderr, "usage: forward_gen FILE N [FIRST]\n");
		return 2;
	}
	p.buffer_size = GEN_BS;
	ret = etw_etl_writer_open(argv[1], ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	for (cpu = 0; cpu < GEN_CPUS; cpu++)
		etl_buf_init(bufs[cpu], GEN_BS, (uint16_t)cpu);
	for (i = first; i < first + n && !ret; i++) {
		cpu = i % GEN_CPUS;
		ts = ETL_TEST_START_RAW + 1000 + i * 1000;
		if (gen_event(bufs[cpu], i, ts))
			continue;
		ret = etw_etl_writer_append(w, bufs[cpu]);
		etl_buf_init(bufs[cpu], GEN_BS, (uint16_t)cpu);
		if (!ret && !gen_event(bufs[cpu], i, ts))
			ret = -E2BIG;
	}
	for (cpu = 0; cpu < GEN_CPUS && !ret; cpu++)
		if (((struct etw_buffer_header *)bufs[cpu])->events)
			ret = etw_etl_writer_append(w, bufs[cpu]);
	if (etw_etl_writer_close(w, NULL) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "forward_gen: %s: error %d\n", argv[1], ret);
	return ret ? 1 : 0;
}
