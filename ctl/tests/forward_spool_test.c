// SPDX-License-Identifier: GPL-2.0
/*
 * What "etwctl forward" sends and keeps: journal field names, the
 * level-to-PRIORITY table, the text and binary-safe field forms of the
 * Journal Export Format, one event's entry, and the on-disk spool (order,
 * bound, lock, a later run resuming, the collector it records).  Sending itself is forward_test.sh's,
 * against systemd-journal-remote.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

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

static const struct etwctl_spool_dest dest_a = {
	.url = "http://a:19532/upload"
};
static const struct etwctl_spool_dest dest_b = {
	.url = "http://b:19532/upload"
};

/* Open the spool at @path and bind it to @d. */
static int open_bound(const char *path, uint64_t max,
		      const struct etwctl_spool_dest *d,
		      struct etwctl_spool **sp)
{
	char *other;
	int ret = etwctl_spool_open(path, max, sp);

	if (ret)
		return ret;
	ret = etwctl_spool_bind(*sp, d, &other);
	free(other);
	return ret;
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
	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
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
	ASSERT_EQ(0, open_bound(self->path, 10, &dest_a, &self->sp));
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

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
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

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
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

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	EXPECT_EQ(-EBUSY, etwctl_spool_open(self->path, 1000, &other));
	EXPECT_EQ(NULL, other);
}

TEST_F(spool, directory_is_private)
{
	struct stat st;

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	ASSERT_EQ(0, stat(self->path, &st));
	EXPECT_EQ(0700, st.st_mode & 0777);
}

/* --- the collector a spool records ----------------------------------------- */

/* @path's content into @buf (NUL-ended); its length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static int put_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, data, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

static size_t count_batches(const char *dir)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += strlen(de->d_name) > 7 &&
		     !strcmp(de->d_name + strlen(de->d_name) - 7, ".export");
	closedir(d);
	return n;
}

TEST_F(spool, unbound_spool_takes_and_gives_no_batch)
{
	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(-EDESTADDRREQ, etwctl_spool_put(self->sp, "one", 3, 1));
	EXPECT_EQ(-EDESTADDRREQ, etwctl_spool_peek(self->sp, &self->b, NULL));
	EXPECT_EQ(0, etwctl_spool_batches(self->sp));
	EXPECT_EQ(0, count_batches(self->path));
}

static const struct {
	struct etwctl_spool_dest dest;
	const char *record;
} record_cases[] = {
	{ { .url = "http://a:19532/upload" }, "url http://a:19532/upload\n" },
	{ { .url = "http://localhost/upload", .unix_socket = "/run/jr.sock" },
	  "url http://localhost/upload\nunix-socket /run/jr.sock\n" },
	{ { .url = "https://h/p q/upload", .unix_socket = "/s p" },
	  "url https://h/p q/upload\nunix-socket /s p\n" },
};

TEST_F(spool, bind_records_the_collector)
{
	char *rec = etl_path(self->path, ".destination");
	char buf[256];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(record_cases) / sizeof(record_cases[0]); i++) {
		ASSERT_EQ(0, open_bound(self->path, 1000,
					&record_cases[i].dest, &self->sp));
		EXPECT_EQ((ssize_t)strlen(record_cases[i].record),
			  slurp(rec, buf, sizeof(buf)));
		EXPECT_STREQ(record_cases[i].record, buf);
		ASSERT_EQ(0, lstat(rec, &st));
		EXPECT_EQ(S_IFREG | 0600, st.st_mode & (S_IFMT | 0777));
		etwctl_spool_close(self->sp);
		self->sp = NULL;
	}
	free(rec);
}

/* Spooled for A, bound to B: refused, A's batches kept for a run to A. */
TEST_F(spool, batches_stay_with_their_collector)
{
	char *rec = etl_path(self->path, ".destination");
	char *other = NULL, buf[256];

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 2));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "two", 3, 3));
	etwctl_spool_close(self->sp);

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(-EXDEV, etwctl_spool_bind(self->sp, &dest_b, &other));
	EXPECT_STREQ("http://a:19532/upload", other);
	free(other);
	EXPECT_EQ(2, etwctl_spool_batches(self->sp));
	EXPECT_EQ(5, etwctl_spool_events(self->sp));
	EXPECT_EQ(-EDESTADDRREQ, etwctl_spool_put(self->sp, "b", 1, 1));
	EXPECT_EQ(-EDESTADDRREQ, etwctl_spool_peek(self->sp, &self->b, NULL));
	EXPECT_EQ(2, count_batches(self->path));
	slurp(rec, buf, sizeof(buf));
	EXPECT_STREQ("url http://a:19532/upload\n", buf);
	etwctl_spool_close(self->sp);

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "one", 2));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "two", 3));
	free(rec);
}

/* The same URL through another UNIX socket, or none, is another collector. */
static const struct {
	struct etwctl_spool_dest spooled;
	struct etwctl_spool_dest run;
	const char *other;
} socket_cases[] = {
	{ { .url = "http://localhost/upload", .unix_socket = "/s1" },
	  { .url = "http://localhost/upload" },
	  "http://localhost/upload via /s1" },
	{ { .url = "http://localhost/upload", .unix_socket = "/s1" },
	  { .url = "http://localhost/upload", .unix_socket = "/s2" },
	  "http://localhost/upload via /s1" },
	{ { .url = "http://localhost/upload" },
	  { .url = "http://localhost/upload", .unix_socket = "/s1" },
	  "http://localhost/upload" },
};

TEST_F(spool, unix_socket_is_part_of_the_collector)
{
	char *other = NULL, name[16];
	size_t i;

	for (i = 0; i < sizeof(socket_cases) / sizeof(socket_cases[0]); i++) {
		char *path;

		snprintf(name, sizeof(name), "s%zu", i);
		path = etl_path(self->dir, name);
		ASSERT_EQ(0, open_bound(path, 1000, &socket_cases[i].spooled,
					&self->sp));
		ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 1));
		etwctl_spool_close(self->sp);
		ASSERT_EQ(0, etwctl_spool_open(path, 1000, &self->sp));
		EXPECT_EQ(-EXDEV, etwctl_spool_bind(self->sp,
						    &socket_cases[i].run,
						    &other)) TH_LOG("case %zu", i);
		EXPECT_STREQ(socket_cases[i].other, other);
		free(other);
		EXPECT_EQ(0, etwctl_spool_bind(self->sp,
					       &socket_cases[i].spooled,
					       &other));
		EXPECT_EQ(NULL, other);
		etwctl_spool_close(self->sp);
		self->sp = NULL;
		free(path);
	}
}

/* Nothing is owed to the recorded collector: any other may take over. */
TEST_F(spool, empty_spool_takes_another_collector)
{
	char *rec = etl_path(self->path, ".destination");
	char buf[256];

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 1));
	ASSERT_EQ(0, etwctl_spool_pop(self->sp));
	etwctl_spool_close(self->sp);
	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_b, &self->sp));
	slurp(rec, buf, sizeof(buf));
	EXPECT_STREQ("url http://b:19532/upload\n", buf);
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "two", 3, 1));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "two", 1));
	free(rec);
}

TEST_F(spool, batches_without_record_are_refused)
{
	char *rec = etl_path(self->path, ".destination");
	char *other = NULL;

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 1));
	etwctl_spool_close(self->sp);
	ASSERT_EQ(0, unlink(rec));
	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(-ENOMSG, etwctl_spool_bind(self->sp, &dest_a, &other));
	EXPECT_EQ(NULL, other);
	EXPECT_EQ(1, etwctl_spool_batches(self->sp));
	EXPECT_EQ(1, count_batches(self->path));
	EXPECT_NE(0, access(rec, F_OK));
	free(rec);
}

enum hostile_kind { H_FILE, H_LONG, H_SYMLINK, H_DIR, H_FIFO };

/*
 * Records that are not exactly the format, even where they hold
 * dest_a's URL; @len for those with a NUL byte.
 */
static const struct {
	const char *name;
	enum hostile_kind kind;
	const char *data;
	size_t len;
} hostile_cases[] = {
	{ "empty", H_FILE, "" },
	{ "no_newline", H_FILE, "url http://a:19532/upload" },
	{ "empty_url", H_FILE, "url \n" },
	{ "no_url", H_FILE, "unix-socket /s\n" },
	{ "empty_socket", H_FILE, "url http://a:19532/upload\nunix-socket \n" },
	{ "unknown_line", H_FILE, "url http://a:19532/upload\nuser x\n" },
	{ "third_line", H_FILE,
	  "url http://a:19532/upload\nunix-socket /s\nunix-socket /s\n" },
	{ "socket_first", H_FILE, "unix-socket /s\nurl http://a:19532/upload\n" },
	{ "upper_case", H_FILE, "URL http://a:19532/upload\n" },
	{ "blank_line", H_FILE, "url http://a:19532/upload\n\n" },
	{ "carriage_return", H_FILE, "url http://a:19532/upload\r\n" },
	{ "nul_in_url", H_FILE, "url http://a:19532/upload\0x\n", 30 },
	{ "nul_after", H_FILE, "url http://a:19532/upload\n\0", 27 },
	{ "too_long", H_LONG },
	{ "symlink", H_SYMLINK, "url http://a:19532/upload\n" },
	{ "directory", H_DIR },
	{ "fifo", H_FIFO },
};

static int make_hostile(const char *dir, const char *rec, int i)
{
	char *target, *long_rec;
	size_t len = hostile_cases[i].len ?: (hostile_cases[i].data ?
		     strlen(hostile_cases[i].data) : 0);
	int ret;

	if (unlink(rec))
		return -1;
	switch (hostile_cases[i].kind) {
	case H_FILE:
		return put_file(rec, hostile_cases[i].data, len);
	case H_LONG:
		/* Valid but for its length: 8193 bytes. */
		long_rec = malloc(8194);
		if (!long_rec)
			return -1;
		memcpy(long_rec, "url ", 4);
		memset(long_rec + 4, 'x', 8188);
		long_rec[8192] = '\n';
		ret = put_file(rec, long_rec, 8193);
		free(long_rec);
		return ret;
	case H_SYMLINK:
		target = etl_path(dir, "target");
		ret = put_file(target, hostile_cases[i].data, len) ?:
		      symlink(target, rec);
		free(target);
		return ret;
	case H_DIR:
		return mkdir(rec, 0700);
	case H_FIFO:
		return mkfifo(rec, 0600);
	}
	return -1;
}

TEST_F(spool, corrupt_record_keeps_the_batches)
{
	char *other = NULL, before[256], after[256];
	struct stat st0, st1;
	size_t i;

	for (i = 0; i < sizeof(hostile_cases) / sizeof(hostile_cases[0]); i++) {
		char *path = etl_path(self->dir, hostile_cases[i].name);
		char *rec = etl_path(path, ".destination");

		ASSERT_EQ(0, open_bound(path, 1000, &dest_a, &self->sp));
		ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 4));
		etwctl_spool_close(self->sp);
		ASSERT_EQ(0, make_hostile(self->dir, rec, i))
			TH_LOG("%s", hostile_cases[i].name);
		ASSERT_EQ(0, lstat(rec, &st0));
		before[0] = after[0] = 0;
		slurp(rec, before, sizeof(before));

		ASSERT_EQ(0, etwctl_spool_open(path, 1000, &self->sp));
		EXPECT_EQ(-EBADMSG, etwctl_spool_bind(self->sp, &dest_a,
						      &other))
			TH_LOG("%s", hostile_cases[i].name);
		EXPECT_EQ(NULL, other);
		EXPECT_EQ(1, etwctl_spool_batches(self->sp));
		EXPECT_EQ(4, etwctl_spool_events(self->sp));
		EXPECT_EQ(1, count_batches(path));
		/* The record is left for the user to look at. */
		ASSERT_EQ(0, lstat(rec, &st1));
		EXPECT_EQ(st0.st_ino, st1.st_ino);
		slurp(rec, after, sizeof(after));
		EXPECT_STREQ(before, after) TH_LOG("%s", hostile_cases[i].name);
		etwctl_spool_close(self->sp);
		self->sp = NULL;
		free(rec);
		free(path);
	}
}

/* A symbolic link as an empty spool's record: replaced, never written through. */
TEST_F(spool, record_symlink_is_not_followed)
{
	char *rec = etl_path(self->path, ".destination");
	char *target = etl_path(self->dir, "target");
	char buf[256];
	struct stat st;

	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_a, &self->sp));
	etwctl_spool_close(self->sp);
	ASSERT_EQ(0, put_file(target, "keep\n", 5));
	ASSERT_EQ(0, unlink(rec));
	ASSERT_EQ(0, symlink(target, rec));
	ASSERT_EQ(0, open_bound(self->path, 1000, &dest_b, &self->sp));
	slurp(target, buf, sizeof(buf));
	EXPECT_STREQ("keep\n", buf);
	ASSERT_EQ(0, lstat(rec, &st));
	EXPECT_TRUE(S_ISREG(st.st_mode));
	slurp(rec, buf, sizeof(buf));
	EXPECT_STREQ("url http://b:19532/upload\n", buf);
	free(target);
	free(rec);
}

/* The longest record, 8192 bytes, is read back; a byte more cannot be one. */
TEST_F(spool, record_length_limit)
{
	struct etwctl_spool_dest d = { 0 };
	char *url = malloc(8189), *other = NULL;

	ASSERT_NE(NULL, url);
	memset(url, 'u', 8187);
	url[8187] = 0;
	d.url = url;
	ASSERT_EQ(0, open_bound(self->path, 1000, &d, &self->sp));
	ASSERT_EQ(0, etwctl_spool_put(self->sp, "one", 3, 1));
	etwctl_spool_close(self->sp);
	ASSERT_EQ(0, open_bound(self->path, 1000, &d, &self->sp));
	EXPECT_EQ(1, peek_str(self->sp, &self->b, "one", 1));
	etwctl_spool_close(self->sp);

	strcat(url, "u");
	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	EXPECT_EQ(-EINVAL, etwctl_spool_bind(self->sp, &d, &other));
	EXPECT_EQ(NULL, other);
	free(url);
}

static const struct etwctl_spool_dest unrecordable_cases[] = {
	{ NULL },
	{ "" },
	{ .url = "http://a/\nupload" },
	{ .url = "http://a/\x7fupload" },
	{ .url = "http://a/upload", .unix_socket = "" },
	{ .url = "http://a/upload", .unix_socket = "/s\tp" },
};

TEST_F(spool, unrecordable_collector_is_refused)
{
	char *rec = etl_path(self->path, ".destination");
	char *other = NULL;
	size_t i;

	ASSERT_EQ(0, etwctl_spool_open(self->path, 1000, &self->sp));
	for (i = 0; i < sizeof(unrecordable_cases) /
			sizeof(unrecordable_cases[0]); i++) {
		EXPECT_EQ(-EINVAL, etwctl_spool_bind(self->sp,
						     &unrecordable_cases[i],
						     &other)) TH_LOG("case %zu", i);
		EXPECT_EQ(NULL, other);
	}
	EXPECT_NE(0, access(rec, F_OK));
	EXPECT_EQ(-EDESTADDRREQ, etwctl_spool_put(self->sp, "one", 3, 1));
	free(rec);
}

TEST_HARNESS_MAIN
