// SPDX-License-Identifier: GPL-2.0
/*
 * What "etwctl forward" sends and keeps: journal field names, the
 * level-to-PRIORITY table, the text and binary-safe field forms of the
 * Journal Export Format, one event's entry, and the on-disk spool (order,
 * bound, lock, a later run resuming).  Sending itself is forward_test.sh's,
 * against systemd-journal-remote.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "etwctl.h"
#include "etl_test.h"
#include "kselftest_harness.h"

static const struct {
	const char *prop;
	const char *field;
} name_cases[] = {
	{ "a", "ETW_F_A" },
	{ "string_type", "ETW_F_STRING_TYPE" },
	{ "Req.orderId", "ETW_F_REQ_ORDERID" },
	{ "rows[1].id", "ETW_F_ROWS_1__ID" },
	{ "caf\xc3\xa9 2", "ETW_F_CAF___2" },
	{ "", "ETW_PAYLOAD" },
	{ "0123456789012345678901234567890123456789012345678901234567890123",
	  "ETW_F_0123456789012345678901234567890123456789012345678901234567" },
};

TEST(field_names)
{
	char out[65];
	size_t i;

	for (i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
		etwctl_journal_field_name(name_cases[i].prop, out, sizeof(out));
		EXPECT_STREQ(name_cases[i].field, out)
			TH_LOG("'%s'", name_cases[i].prop);
	}
}

TEST(priority_of_level)
{
	static const int prio[] = { 6, 2, 3, 4, 6, 7, 7, 7 };
	size_t i;

	for (i = 0; i < sizeof(prio) / sizeof(prio[0]); i++)
		EXPECT_EQ(prio[i], etwctl_journal_priority((uint8_t)i))
			TH_LOG("level %zu", i);
	EXPECT_EQ(7, etwctl_journal_priority(255));
}

TEST(text_field)
{
	struct etwctl_jbuf b = { 0 };

	ASSERT_EQ(0, etwctl_journal_field(&b, "ETW_PID", "42", 2));
	ASSERT_EQ(0, etwctl_journal_field(&b, "EMPTY", "", 0));
	ASSERT_EQ(sizeof("ETW_PID=42\nEMPTY=\n") - 1, b.len);
	EXPECT_EQ(0, memcmp(b.data, "ETW_PID=42\nEMPTY=\n", b.len));
	etwctl_jbuf_free(&b);
}

TEST(binary_safe_field)
{
	static const char want[] = "MESSAGE\n\x04\0\0\0\0\0\0\0a\nb\x01\n"
				   "ETW_F_T\n\x03\0\0\0\0\0\0\0\tx\x7f\n";
	struct etwctl_jbuf b = { 0 };

	ASSERT_EQ(0, etwctl_journal_field(&b, "MESSAGE", "a\nb\x01", 4));
	ASSERT_EQ(0, etwctl_journal_field(&b, "ETW_F_T", "\tx\x7f", 3));
	ASSERT_EQ(sizeof(want) - 1, b.len);
	EXPECT_EQ(0, memcmp(b.data, want, b.len));
	etwctl_jbuf_free(&b);
}

/* A string-only event with "hi": the fields of its entry, in order. */
TEST(string_event_entry)
{
	static const uint8_t text[] = { 'h', 0, 'i', 0 };
	static const char want[] =
		"__REALTIME_TIMESTAMP=1\n"
		"ETW_PAYLOAD=hi\n"
		"MESSAGE=12345678-9abc-def0-0123-456789abcdef - id=7 hi\n"
		"PRIORITY=3\n"
		"ETW_PROVIDER_GUID=12345678-9abc-def0-0123-456789abcdef\n"
		"ETW_EVENT_ID=7\nETW_VERSION=1\nETW_CHANNEL=0\nETW_LEVEL=2\n"
		"ETW_TASK=3\n"
		"ETW_OPCODE=4\nETW_KEYWORDS=0x8000000000000001\n"
		"ETW_PID=100\nETW_TID=101\nETW_CPU=3\n"
		"ETW_TIMESTAMP=116444736000000010\n"
		"ETW_SESSION=s\n\n";
	struct etw_etl_event ev = {
		.kind = ETW_ETL_KIND_EVENT,
		.flags = ETW_EVENT_FLAG_STRING_ONLY,
		.process_id = 100,
		.thread_id = 101,
		.processor_index = 3,
		.timestamp = 116444736000000010ll,
		.provider_id = etl_test_guid,
		.descriptor = { .id = 7, .version = 1, .level = 2, .task = 3,
				.opcode = 4, .keyword = 0x8000000000000001ull },
		.user_data = text,
		.user_data_len = sizeof(text),
	};
	struct etwctl_jbuf b = { 0 };

	ASSERT_EQ(0, etwctl_journal_entry(&b, &ev, "s"));
	ASSERT_EQ(sizeof(want) - 1, b.len) TH_LOG("%.*s", (int)b.len, b.data);
	EXPECT_EQ(0, memcmp(b.data, want, b.len))
		TH_LOG("%.*s", (int)b.len, b.data);
	etwctl_jbuf_free(&b);
}

/* Before 1970 the collector stamps the entry: no __REALTIME_TIMESTAMP. */
TEST(entry_before_1970)
{
	struct etw_etl_event ev = {
		.kind = ETW_ETL_KIND_EVENT,
		.timestamp = 116444736000000000ll - 1,
	};
	struct etwctl_jbuf b = { 0 };

	ASSERT_EQ(0, etwctl_journal_entry(&b, &ev, "s"));
	ASSERT_NE(0, b.len);
	EXPECT_EQ(NULL, memmem(b.data, b.len, "__REALTIME", 10));
	EXPECT_EQ(0, strncmp(b.data, "ETW_PAYLOAD=\nMESSAGE=", 21));
	etwctl_jbuf_free(&b);
}

FIXTURE(spool) {
	char *dir;
	char *path;
	struct etwctl_spool *sp;
	struct etwctl_jbuf b;
};

FIXTURE_SETUP(spool)
{
	self->dir = etl_mkdtemp();
	ASSERT_NE(NULL, self->dir);
	self->path = etl_path(self->dir, "a/b");
	self->sp = NULL;
	memset(&self->b, 0, sizeof(self->b));
}

FIXTURE_TEARDOWN(spool)
{
	etwctl_spool_close(self->sp);
	etwctl_jbuf_free(&self->b);
	free(self->path);
	etl_rmdir(self->dir);
}

static int peek_str(struct etwctl_spool *sp, struct etwctl_jbuf *b,
		    const char *want, uint32_t want_events)
{
	uint32_t events;
	int ret = etwctl_spool_peek(sp, b, &events);

	if (ret != 1)
		return ret;
	return b->len == strlen(want) && !memcmp(b->data, want, b->len) &&
	       events == want_events ? 1 : -EBADMSG;
}

TEST_F(spool, batches_come_back_in_order)
{
	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 1));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "two!", 4, 2));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "three", 5, 3));
	EXPECT_EQ(3, etwctl_spool_batches(self->sp));
	EXPECT_EQ(6, etwctl_spool_events(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "one", 1));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "one", 1));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "two!", 2));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "three", 3));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(0, etwctl_spool_peek(self->sp, &self->b, NULL));
	EXPECT_EQ(0, etwctl_spool_batches(self->sp));
	EXPECT_EQ(0, etwctl_spool_events(self->sp));
}

TEST_F(spool, full_spool_refuses_the_batch)
{
	ASSERT_EQ(0, etwctl_spool_open(self->path, 10, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "123456", 6, 1));
	EXPECT_EQ(-ENOSPC, etwctl_spool_put(self->sp, "12345", 5, 7));
	EXPECT_EQ(1, etwctl_spool_batches(self->sp));
	EXPECT_EQ(1, etwctl_spool_events(self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "1234", 4, 2));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "123456", 6, 3));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "1234", 2));
}

TEST_F(spool, next_open_resumes)
{
	int fd;
	char *tmp, *stray;

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "first", 5, 5));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "second", 6, 6));
	etwctl_spool_close(self->sp);
	self->sp = NULL;
	/* A crash's half-written batch, and a file that is no batch. */
	tmp = etl_path(self->path, ".tmp-0000000000000002-1.export");
	stray = etl_path(self->path, "notes.txt");
	fd = open(tmp, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(stray, O_WRONLY | O_CREAT, 0600);
	ASSERT_LE(0, fd);
	close(fd);

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(2, etwctl_spool_batches(self->sp));
	EXPECT_EQ(11, etwctl_spool_events(self->sp));
	EXPECT_NE(0, access(tmp, F_OK));
	EXPECT_EQ(0, access(stray, F_OK));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "third", 5, 1));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "first", 5));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "second", 6));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "third", 1));
	free(tmp);
	free(stray);
}

TEST_F(spool, one_forwarder_per_spool)
{
	struct etwctl_spool *other = NULL;

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(-EBUSY, etwctl_spool_open(self->path, 1000, &other));
	EXPECT_EQ(NULL, other);
}

TEST_F(spool, directory_is_private)
{
	struct stat st;

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0700, st.st_mode & 0777);
}

TEST_HARNESS_MAIN
