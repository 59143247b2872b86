// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * MESSAGE_TRACE_HEADER records (TraceMessage) in a buffer, as the ETL
 * record parser reads them: MessageNumber, the flags, and the fields in
 * the order Windows documents (sequence, GUID or component id, timestamp,
 * thread id, process id), then the arguments.  The records are built here
 * byte by byte from that description.
 */
#include "etl_test.h"
#include "kselftest_harness.h"

#define MSG_SEQ		0x01
#define MSG_GUID	0x02
#define MSG_COMP	0x04
#define MSG_TIME	0x08
#define MSG_SYS		0x20
#define MSG_PTR64	0x80

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Append a message with every field its @flags ask for and 3 data bytes. */
static uint32_t add_message(void *buf, uint16_t number, uint16_t flags,
			    uint64_t ts)
{
	struct etw_buffer_header *bh = buf;
	uint8_t *rec = (uint8_t *)buf + bh->offset, *p = rec + 8;
	uint32_t size;

	if (flags & MSG_SEQ) {
		put32(p, 41);
		p += 4;
	}
	if (flags & MSG_COMP) {
		put32(p, 0xc0ffee);
		p += 4;
	} else if (flags & MSG_GUID) {
		memcpy(p, &etl_test_guid, 16);
		p += 16;
	}
	if (flags & MSG_TIME) {
		put64(p, ts);
		p += 8;
	}
	if (flags & MSG_SYS) {
		put32(p, 200);
		put32(p + 4, 100);
		p += 8;
	}
	memcpy(p, "arg", 3);
	size = (uint32_t)(p + 3 - rec);
	put16(rec, (uint16_t)size);
	put16(rec + 2, 0x9000);
	put16(rec + 4, number);
	put16(rec + 6, flags);
	memset(rec + size, 0, ((size + 7) & ~7u) - size);
	bh->offset += (size + 7) & ~7u;
	bh->saved_offset = bh->offset;
	bh->current_offset = bh->offset;
	return size;
}

static int first_record(void *buf, struct etw_etl_records *it,
			struct etw_etl_event *ev)
{
	if (etw_etl_records_init(it, buf, ETL_TEST_BS, NULL))
		return -1;
	return etw_etl_records_next(it, ev);
}

TEST(all_fields)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it;
	struct etw_etl_event ev;

	etl_buf_init(buf, ETL_TEST_BS, 1);
	add_message(buf, 9, MSG_SEQ | MSG_GUID | MSG_TIME | MSG_SYS |
			    MSG_PTR64, 5000);
	ASSERT_EQ(1, first_record(buf, &it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_MESSAGE, (int)ev.kind);
	EXPECT_EQ(ETW_ETL_HT_MESSAGE, ev.header_type);
	EXPECT_EQ(0x0008, ev.flags);
	EXPECT_EQ(9, ev.descriptor.id);
	EXPECT_EQ(MSG_SEQ | MSG_GUID | MSG_TIME | MSG_SYS | MSG_PTR64,
		  ev.message_flags);
	EXPECT_EQ(41u, ev.sequence);
	EXPECT_EQ(0, memcmp(&etl_test_guid, &ev.provider_id, 16));
	EXPECT_EQ(5000u, ev.raw_timestamp);
	EXPECT_EQ(200u, ev.thread_id);
	EXPECT_EQ(100u, ev.process_id);
	ASSERT_EQ(3u, ev.user_data_len);
	EXPECT_EQ(0, memcmp(ev.user_data, "arg", 3));
	EXPECT_EQ(0, etw_etl_records_next(&it, &ev));
}

TEST(component_id_goes_to_data1)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it;
	struct etw_etl_event ev;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	add_message(buf, 1, MSG_COMP, 0);
	ASSERT_EQ(1, first_record(buf, &it, &ev));
	EXPECT_EQ(0xc0ffeeu, ev.provider_id.data1);
	EXPECT_EQ(0, ev.provider_id.data2);
	EXPECT_EQ(3u, ev.user_data_len);
}

/* Without a timestamp a message takes the previous record's. */
TEST(no_timestamp_takes_previous)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it;
	struct etw_etl_event ev;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	etl_buf_add(buf, 1, 7000);
	add_message(buf, 2, MSG_GUID, 0);
	add_message(buf, 3, MSG_TIME, 7500);
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, ETL_TEST_BS, NULL));
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_EVENT, (int)ev.kind);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(ETW_ETL_KIND_MESSAGE, (int)ev.kind);
	EXPECT_EQ(7000u, ev.raw_timestamp);
	EXPECT_EQ(0u, ev.process_id);
	ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
	EXPECT_EQ(7500u, ev.raw_timestamp);
	EXPECT_EQ(3, ev.descriptor.id);
}

/* A record too short for the fields its flags promise is malformed. */
TEST(fields_past_the_size_are_ebadmsg)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it;
	struct etw_etl_event ev;
	uint8_t *rec = buf + ETW_BUFFER_HEADER_SIZE;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	add_message(buf, 1, MSG_GUID | MSG_TIME, 1);
	/* Claim 12 bytes: the header and 4 of the GUID's 16. */
	put16(rec, 12);
	ASSERT_EQ(-EBADMSG, first_record(buf, &it, &ev));
}

/*
 * etw_etl_records_class() of each record, a message's too, is what its
 * parse gives; a message without a time after a record passed over
 * (etw_etl_records_pass()) takes that record's time, as after a parse.
 */
TEST(class_and_pass)
{
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_records it, ref;
	struct etw_etl_event ev, want;
	int n = 0;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	etl_buf_add(buf, 1, 7000);
	add_message(buf, 2, MSG_GUID, 0);
	add_message(buf, 3, MSG_TIME, 7500);
	etl_buf_add(buf, 4, 8000);
	add_message(buf, 5, MSG_COMP, 0);
	ASSERT_EQ(0, etw_etl_records_init(&it, buf, ETL_TEST_BS, NULL));
	ASSERT_EQ(0, etw_etl_records_init(&ref, buf, ETL_TEST_BS, NULL));
	while (etw_etl_records_next(&ref, &want) == 1) {
		memset(&ev, 0xa5, sizeof(ev));
		ASSERT_EQ(1, etw_etl_records_class(&it, &ev));
		EXPECT_EQ(want.kind, ev.kind);
		EXPECT_EQ(want.header_type, ev.header_type);
		EXPECT_EQ(want.size, ev.size);
		EXPECT_EQ(want.hook_id, ev.hook_id);
		EXPECT_EQ(0, memcmp(&want.provider_id, &ev.provider_id, 16));
		EXPECT_EQ(0, memcmp(&want.descriptor, &ev.descriptor, 16));
		EXPECT_EQ(want.raw_timestamp, ev.raw_timestamp);
		/* The events passed over, the messages parsed. */
		if (ev.kind == ETW_ETL_KIND_EVENT) {
			etw_etl_records_pass(&it, &ev);
		} else {
			ASSERT_EQ(1, etw_etl_records_next(&it, &ev));
			EXPECT_EQ(want.raw_timestamp, ev.raw_timestamp);
			EXPECT_EQ(want.descriptor.id, ev.descriptor.id);
		}
		n++;
	}
	EXPECT_EQ(5, n);
	EXPECT_EQ(0, etw_etl_records_class(&it, &ev));
}

TEST_HARNESS_MAIN
