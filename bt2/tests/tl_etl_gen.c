// SPDX-License-Identifier: GPL-2.0
/*
 * tl_etl_gen: write an .etl file of TraceLogging events, for the
 * babeltrace2 plugin's test (scripts/tests/bt2_test.py) and its speed
 * figure.
 *
 * The events are those of userlib/tests/tracelogging_events.c (every
 * TraceLogging field macro: integers, hex, reals, Booleans, strings,
 * GUIDs, times, binary, arrays, structs), written through the provider
 * double, which captures what <TraceLoggingProvider.h> hands to
 * EventWriteTransfer.  Each capture becomes the record the kernel would
 * log: an EVENT_HEADER64 with the PROV_TRAITS and EVENT_SCHEMA_TL items
 * and the payload, in buffers of CPU 0 and 1 alternately (every third
 * event with an activity id), 1 us apart, saved by libetw's ETL writer.
 * One more event, of another provider, has field names that are not
 * identifiers, which CTF needs member names to be; the last two are
 * events of userlib/tests/tdh_manifest_sample.man.
 *
 * usage: tl_etl_gen FILE [ROUNDS]   (ROUNDS times every event, default 1)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl_test.h"
#include "tracelogging_double.h"
#include "tracelogging_events.h"

#include <TraceLoggingProvider.h>

#define GEN_BS		(64 * 1024)
#define GEN_CPUS	2

/* tracelogging_events.c's provider, and this file's. */
static const struct etw_guid gen_tle_provider = {
	0x8b1dd10c, 0x8e7e, 0x5b2c,
	{ 0x9f, 0x0e, 0x2c, 0xb0, 0xc1, 0xa0, 0xe0, 0x01 }
};

/* 5d0c7e11-3b2a-4c8e-9a7f-0b1e2d3c4f50 */
TRACELOGGING_DEFINE_PROVIDER(gen_names, "Etw-Bt2-Names",
	(0x5d0c7e11, 0x3b2a, 0x4c8e, 0x9a, 0x7f, 0x0b, 0x1e, 0x2d, 0x3c, 0x4f,
	 0x50));

/*
 * @buf: the CPU's open buffer
 * @seq: its next sequence number
 */
struct gen_cpu {
	uint8_t buf[GEN_BS];
	uint64_t seq;
};

static struct gen_cpu gen_cpus[GEN_CPUS];

static uint32_t gen_item_size(ULONG len)
{
	return sizeof(struct etw_ext_item) + ((len + 7u) & ~7u);
}

static uint8_t *gen_item(uint8_t *p, uint16_t type, const void *data,
			 ULONG len, bool more)
{
	struct etw_ext_item x = {
		.item_size = gen_item_size(len),
		.ext_type = type,
		.linkage = more ? ETW_EXT_LINKAGE : 0,
		.data_size = len,
	};

	memcpy(p, &x, sizeof(x));
	memset(p + sizeof(x), 0, x.item_size - sizeof(x));
	memcpy(p + sizeof(x), data, len);
	return p + x.item_size;
}

/*
 * Append the record of @c, an event of @provider, to @buf; false when it
 * does not fit.  Without metadata (a manifest event) it has no ext items.
 */
static bool gen_add(uint8_t *buf, const struct etw_guid *provider,
		    const struct tle_capture *c, uint64_t ts, uint64_t n)
{
	struct etw_buffer_header *bh = (struct etw_buffer_header *)buf;
	bool tl = c->meta_len;
	uint32_t size = sizeof(struct etw_event_header) + c->payload_len +
			(tl ? gen_item_size(c->prov_len) +
			      gen_item_size(c->meta_len) : 0);
	uint32_t padded = (size + 7) & ~7u;
	struct etw_event_header eh = {
		.size = size,
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.flags = tl ? ETW_EVENT_FLAG_EXTENDED_INFO : 0,
		.thread_id = 4000 + n % 7,
		.process_id = 4000,
		.timestamp = ts,
		.provider_id = *provider,
	};
	uint8_t *p = buf + bh->offset;

	if (size > 0xffff || bh->offset + padded > GEN_BS)
		return false;
	memcpy(&eh.descriptor, &c->desc, sizeof(eh.descriptor));
	if (n % 3 == 0) {
		eh.activity_id = gen_tle_provider;
		eh.activity_id.data1 = (uint32_t)n;
	}
	memcpy(p, &eh, sizeof(eh));
	p += sizeof(eh);
	if (tl) {
		p = gen_item(p, ETW_EXT_PROV_TRAITS, c->prov, c->prov_len, true);
		p = gen_item(p, ETW_EXT_EVENT_SCHEMA_TL, c->meta, c->meta_len,
			     false);
	}
	memcpy(p, c->payload, c->payload_len);
	memset(p + c->payload_len, 0, padded - size);
	bh->offset += padded;
	bh->saved_offset = bh->current_offset = bh->offset;
	bh->events++;
	bh->timestamp = ts;
	return true;
}

static int gen_flush(struct etw_etl_writer *w, unsigned int cpu)
{
	struct gen_cpu *g = &gen_cpus[cpu];
	struct etw_buffer_header *bh = (struct etw_buffer_header *)g->buf;
	int ret = 0;

	if (bh->events) {
		bh->sequence_number = g->seq++;
		ret = etw_etl_writer_append(w, g->buf);
	}
	etl_buf_init(g->buf, GEN_BS, cpu);
	return ret;
}

static int gen_event(struct etw_etl_writer *w, const struct etw_guid *provider,
		     const struct tle_capture *c, uint64_t n)
{
	unsigned int cpu = n % GEN_CPUS;
	uint64_t ts = ETL_TEST_START_RAW + 1000 * (n + 1);
	uint8_t *buf = gen_cpus[cpu].buf;
	int ret;

	if (gen_add(buf, provider, c, ts, n))
		return 0;
	ret = gen_flush(w, cpu);
	if (ret)
		return ret;
	return gen_add(buf, provider, c, ts, n) ? 0 : -E2BIG;
}

/*
 * Event 1 (template T_Conn) of userlib/tests/tdh_manifest_sample.man,
 * provider Etw-Test-Manifest: the payload tdh_manifest_decode_test
 * decodes, 8-byte pointers.
 */
static const uint8_t gen_conn_data[] = {
	0x00, 0x50,				/* Port 80, network order */
	0x01, 0x00, 0x00, 0x00,			/* State: Busy */
	0x05, 0x00, 0x00, 0x00,			/* Flags: Read | Exec */
	'a', 0, 'b', 0, 0, 0,			/* Name */
	0x02, 0x00,				/* Count */
	0x7f, 0x00, 0x00, 0x01, 'x', 0,		/* Peers[0] */
	0x0a, 0x00, 0x00, 0x02, 'y', 'z', 0,	/* Peers[1] */
	0x03, 0x00, 0x00, 0x00,			/* Len */
	0xde, 0xad, 0xbe,			/* Blob */
	0x07, 0x08,				/* Pair */
	0x00, 0x10, 0, 0, 0, 0, 0, 0,		/* Where */
};

/* Event 1 of the manifest, then event 2, which has no data. */
static int gen_manifest_events(struct etw_etl_writer *w, uint64_t *n)
{
	struct tle_capture c;
	int ret;

	/* As the manifest declares them: task Connect, opcodes Start, Retry. */
	memset(&c, 0, sizeof(c));
	c.desc.Id = 1;
	c.desc.Version = 1;
	c.desc.Level = 4;
	c.desc.Task = 3;
	c.desc.Opcode = 1;
	c.desc.Keyword = 0x30;
	c.payload_len = sizeof(gen_conn_data);
	memcpy(c.payload, gen_conn_data, sizeof(gen_conn_data));
	ret = gen_event(w, &etl_test_guid, &c, (*n)++);
	if (ret)
		return ret;
	c.desc.Id = 2;
	c.desc.Level = 16;
	c.desc.Opcode = 11;
	c.desc.Keyword = 0x40;
	c.payload_len = 0;
	return gen_event(w, &etl_test_guid, &c, (*n)++);
}

/* Names with a space, a '-', a leading digit, and one twice after '_'. */
static int gen_odd_names(struct tle_capture *c)
{
	if (TraceLoggingRegister(gen_names))
		return -EINVAL;
	tld_notify(1, 0, ~0ull, 0);
	TraceLoggingWrite(gen_names, "Odd names",
		TraceLoggingInt32(1, "two words"),
		TraceLoggingInt32(2, "a-b"),
		TraceLoggingInt32(3, "a_b"),
		TraceLoggingInt32(4, "9lives"),
		TraceLoggingInt32(5, "int"));
	tle_capture_last(c);
	TraceLoggingUnregister(gen_names);
	return tld.bad_desc ? -EINVAL : 0;
}

static int gen_write(struct etw_etl_writer *w, unsigned long rounds)
{
	const char *expect;
	struct tle_capture c;
	unsigned long r;
	uint64_t n = 0;
	unsigned int cpu;
	int i, ret;

	for (cpu = 0; cpu < GEN_CPUS; cpu++)
		etl_buf_init(gen_cpus[cpu].buf, GEN_BS, cpu);
	for (r = 0; r < rounds; r++) {
		for (i = 0; !tle_run_c(i, &c, &expect); i++) {
			ret = gen_event(w, &gen_tle_provider, &c, n++);
			if (ret)
				return ret;
		}
	}
	ret = gen_odd_names(&c);
	if (!ret)
		ret = gen_event(w, (const struct etw_guid *)
				TraceLoggingProviderId(gen_names),
				&c, n++);
	if (!ret)
		ret = gen_manifest_events(w, &n);
	if (ret)
		return ret;
	for (cpu = 0; cpu < GEN_CPUS; cpu++) {
		ret = gen_flush(w, cpu);
		if (ret)
			return ret;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct etw_etl_writer_params p = etl_test_params();
	struct etw_etl_writer_stats st = { 0 };
	struct etw_etl_writer *w;
	unsigned long rounds = 1;
	char *end;
	int ret;

	if (argc == 3) {
		rounds = strtoul(argv[2], &end, 10);
		if (*end || !rounds)
			argc = 0;
	}
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: tl_etl_gen FILE [ROUNDS]\n");
		return 2;
	}
	p.buffer_size = GEN_BS;
	p.number_of_processors = GEN_CPUS;
	ret = etw_etl_writer_open(argv[1], ETW_ETL_MODE_SEQUENTIAL, &p, &w);
	if (ret) {
		fprintf(stderr, "tl_etl_gen: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	ret = gen_write(w, rounds);
	if (!ret)
		ret = etw_etl_writer_close(w, &st);
	else
		etw_etl_writer_close(w, &st);
	if (ret) {
		fprintf(stderr, "tl_etl_gen: %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	return 0;
}
