// SPDX-License-Identifier: GPL-2.0
/*
 * What dump prints: --fields parsing and its errors, names and fields of
 * manifest events (--manifest with userlib/tests/tdh_manifest_sample.man,
 * and a bad manifest), JSON typing and escaping, CSV quoting, and the
 * progress line, which only a terminal on stderr sees.
 *
 * The manifest events are written to an ETL file here, as the kernel
 * lays them out (userlib/tests/etl_test.h, whose provider GUID is the
 * sample manifest's).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "ctl_test.h"
#include "etl_test.h"
#include "kselftest_harness.h"

#define SAMPLE	SRC_DIR "/userlib/tests/tdh_manifest_sample.man"

/* --- an ETL file of the sample manifest's events ------------------------- */

static size_t put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
	return sizeof(v);
}

static size_t put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
	return sizeof(v);
}

/*
 * Event 1's payload (template T_Conn, 8-byte pointers): Port 80, State 1,
 * Flags 5, Name @name, one peer 127.0.0.1 with Tag @tag, a 3-byte Blob,
 * Pair 7 and 8, Where 0x1000.
 */
static size_t conn_payload(uint8_t *p, const char *name, const char *tag)
{
	static const uint8_t tail[] = {
		0x03, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0x07, 0x08,
		0x00, 0x10, 0, 0, 0, 0, 0, 0,
	};
	size_t n = 0;

	p[n++] = 0x00;
	p[n++] = 0x50;
	n += put32(p + n, 1);
	n += put32(p + n, 5);
	n += 2 * etw_etl_utf8_to_utf16(name, p + n, 64);
	n += put16(p + n, 0);
	n += put16(p + n, 1);
	n += put32(p + n, 0x0100007f);
	memcpy(p + n, tag, strlen(tag) + 1);
	n += strlen(tag) + 1;
	memcpy(p + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

/*
 * @dir/m.etl with event 1 once per @names entry (Name and Tag from it),
 * then event 2 (no data).  Returns the path (malloc'ed) or NULL.
 */
static char *write_etl(const char *dir, const char *const *names, int n)
{
	struct etw_etl_writer_params prm = etl_test_params();
	static uint8_t buf[ETL_TEST_BS];
	struct etw_etl_writer *w;
	uint8_t payload[256];
	char *path = etl_path(dir, "m.etl");
	uint32_t off;
	size_t len;
	int i;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	for (i = 0; i < n; i++) {
		len = conn_payload(payload, names[i], names[i]);
		off = etl_buf_add_ext(buf, 1,
				      ETL_TEST_START_RAW + 1000 * (i + 1), 100,
				      0, 0, (uint16_t)len);
		if (!off)
			return NULL;
		memcpy(buf + off + sizeof(struct etw_event_header), payload,
		       len);
	}
	if (!etl_buf_add_ext(buf, 2, ETL_TEST_START_RAW + 1000 * (n + 1), 100,
			     0, 0, 0))
		return NULL;
	if (etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm, &w))
		return NULL;
	if (etw_etl_writer_append(w, buf) | etw_etl_writer_close(w, NULL))
		return NULL;
	return path;
}

/* A scratch directory with the file of @names; see write_etl(). */
struct scratch {
	char *dir;
	char *etl;
};

static bool scratch_init(struct scratch *s, const char *const *names, int n)
{
	s->dir = etl_mkdtemp();
	s->etl = s->dir ? write_etl(s->dir, names, n) : NULL;
	return s->etl;
}

static void scratch_free(struct scratch *s)
{
	free(s->etl);
	if (s->dir)
		etl_rmdir(s->dir);
}

static const char *const plain[] = { "ab" };

/* "dump" @argv... and the scratch file; the run, to ctl_run_free(). */
static struct ctl_run dump(const struct scratch *s, const char *const *argv)
{
	char *full[16];
	int i;

	full[0] = "dump";
	for (i = 0; argv[i] && i < 13; i++)
		full[i + 1] = (char *)argv[i];
	full[i + 1] = s->etl;
	full[i + 2] = NULL;
	return ctl_run(etwctl_cmd_dump, full);
}

#define ARGS(...)	((const char *const[]){ __VA_ARGS__, NULL })

/* --- --fields ------------------------------------------------------------ */

#define USAGE(msg)	"etwctl dump: " msg " (see 'etwctl dump --help')\n"

static const struct {
	const char *fields;
	const char *format;
	int status;
	const char *out;	/* the first line of stdout */
	const char *err;
} fields_cases[] = {
	{ NULL, "csv", 0, "time,cpu,pid,tid,provider,provider_guid,event,id,"
	  "version,channel,level,opcode,task,keywords,activity,"
	  "related_activity,fields\n", "" },
	{ "time", "csv", 0, "time\n", "" },
	{ "pid,time,fields", "csv", 0, "pid,time,fields\n", "" },
	{ "fields.Port,id,fields.Peers[0].Tag", "csv", 0,
	  "fields.Port,id,fields.Peers[0].Tag\n", "" },
	{ "fields.pid,pid", "csv", 0, "fields.pid,pid\n", "" },
	{ "id,version,fields.Port", "json", 0,
	  "{\"id\":1,\"version\":1,\"fields.Port\":null}\n", "" },
	{ "id,version,level", "table", 0, "id=1 v=1 lvl=4\n", "" },
	{ "tiem", "csv", 2, "", USAGE("unknown column 'tiem' in --fields") },
	{ "TIME", "csv", 2, "", USAGE("unknown column 'TIME' in --fields") },
	{ "Port", "json", 2, "", USAGE("unknown column 'Port' in --fields") },
	{ "time,fields.", "csv", 2, "",
	  USAGE("unknown column 'fields.' in --fields") },
	{ "", "csv", 2, "", USAGE("empty column name in --fields") },
	{ "time,", "csv", 2, "", USAGE("empty column name in --fields") },
	{ ",time", "table", 2, "", USAGE("empty column name in --fields") },
	{ "time,,id", "json", 2, "", USAGE("empty column name in --fields") },
	{ "pid,time,pid", "csv", 2, "",
	  USAGE("column 'pid' given twice in --fields") },
	{ "fields.A,fields.A", "csv", 2, "",
	  USAGE("column 'fields.A' given twice in --fields") },
};

/* Without --manifest: event 1 of the scratch file, undecoded. */
TEST(fields_parse)
{
	struct scratch s;
	struct ctl_run r;
	size_t i;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	for (i = 0; i < ARRAY_SIZE(fields_cases); i++) {
		if (fields_cases[i].fields)
			r = dump(&s, ARGS("-f", fields_cases[i].format,
					  "--fields", fields_cases[i].fields));
		else
			r = dump(&s, ARGS("-f", fields_cases[i].format));
		EXPECT_EQ(fields_cases[i].status, r.status)
			TH_LOG("--fields '%s'", fields_cases[i].fields);
		EXPECT_EQ(0, strncmp(r.out, fields_cases[i].out,
				     strlen(fields_cases[i].out)))
			TH_LOG("--fields '%s': %s", fields_cases[i].fields,
			       r.out);
		EXPECT_STREQ(fields_cases[i].err, r.err);
		ctl_run_free(&r);
	}
	scratch_free(&s);
}

/* view checks --fields before it needs /dev/etw or the session. */
TEST(view_fields_error)
{
	struct ctl_run r = ctl_run(etwctl_cmd_view,
				   CTL_ARGV("view", "--fields", "time,nope",
					    "no-such-session"));

	EXPECT_EQ(2, r.status);
	EXPECT_STREQ("etwctl view: unknown column 'nope' in --fields "
		     "(see 'etwctl view --help')\n", r.err);
	EXPECT_STREQ("", r.out);
	ctl_run_free(&r);
}

/*
 * @dir/k.etl: event 1 at level 4, at level 2, of another provider, at
 * level 4 again, then event 2: rows of one kind and of others in turn.
 */
static char *write_kinds(const char *dir)
{
	static const struct etw_guid other = { 0x0badf00d, 0x0001, 0x0002,
		{ 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a } };
	static const struct { uint16_t id; uint8_t level; bool other; } ev[] = {
		{ 1, 4, false }, { 1, 2, false }, { 1, 4, true },
		{ 1, 4, false }, { 2, 4, false },
	};
	struct etw_etl_writer_params prm = etl_test_params();
	static uint8_t buf[ETL_TEST_BS];
	struct etw_event_header *eh;
	struct etw_etl_writer *w;
	char *path = etl_path(dir, "k.etl");
	uint32_t off;
	size_t i;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	for (i = 0; i < ARRAY_SIZE(ev); i++) {
		off = etl_buf_add_ext(buf, ev[i].id,
				      ETL_TEST_START_RAW + 1000 * (i + 1), 100,
				      0, 0, 0);
		if (!off)
			return NULL;
		eh = (struct etw_event_header *)(buf + off);
		eh->descriptor.level = ev[i].level;
		if (ev[i].other)
			eh->provider_id = other;
	}
	if (etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm, &w))
		return NULL;
	if (etw_etl_writer_append(w, buf) | etw_etl_writer_close(w, NULL))
		return NULL;
	return path;
}

/*
 * The columns a row shows from its kind (schema, descriptor, provider)
 * are written once per kind and copied: each row still shows its own.
 */
TEST(rows_of_one_kind)
{
	static const char *const formats[] = { "table", "csv", "json" };
	static const char *const want[] = {
		"12345678-9abc-def0-0123-456789abcdef id=1 lvl=4 kw=0x10\n"
		"12345678-9abc-def0-0123-456789abcdef id=1 lvl=2 kw=0x10\n"
		"0badf00d-0001-0002-0304-05060708090a id=1 lvl=4 kw=0x10\n"
		"12345678-9abc-def0-0123-456789abcdef id=1 lvl=4 kw=0x10\n"
		"12345678-9abc-def0-0123-456789abcdef id=2 lvl=4 kw=0x10\n",
		"provider,id,level,keywords\n"
		"12345678-9abc-def0-0123-456789abcdef,1,4,0x10\n"
		"12345678-9abc-def0-0123-456789abcdef,1,2,0x10\n"
		"0badf00d-0001-0002-0304-05060708090a,1,4,0x10\n"
		"12345678-9abc-def0-0123-456789abcdef,1,4,0x10\n"
		"12345678-9abc-def0-0123-456789abcdef,2,4,0x10\n",
		"{\"provider\":\"12345678-9abc-def0-0123-456789abcdef\","
		"\"id\":1,\"level\":4,\"keywords\":\"0x10\"}\n"
		"{\"provider\":\"12345678-9abc-def0-0123-456789abcdef\","
		"\"id\":1,\"level\":2,\"keywords\":\"0x10\"}\n"
		"{\"provider\":\"0badf00d-0001-0002-0304-05060708090a\","
		"\"id\":1,\"level\":4,\"keywords\":\"0x10\"}\n"
		"{\"provider\":\"12345678-9abc-def0-0123-456789abcdef\","
		"\"id\":1,\"level\":4,\"keywords\":\"0x10\"}\n"
		"{\"provider\":\"12345678-9abc-def0-0123-456789abcdef\","
		"\"id\":2,\"level\":4,\"keywords\":\"0x10\"}\n",
	};
	struct scratch s = { 0 };
	struct ctl_run r;
	size_t i;

	s.dir = etl_mkdtemp();
	ASSERT_NE(NULL, s.dir);
	s.etl = write_kinds(s.dir);
	ASSERT_NE(NULL, s.etl);
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		r = dump(&s, ARGS("-f", formats[i], "--fields",
				  "provider,id,level,keywords"));
		EXPECT_EQ(0, r.status);
		EXPECT_STREQ(want[i], r.out) TH_LOG("%s", formats[i]);
		ctl_run_free(&r);
	}
	scratch_free(&s);
}

/*
 * @dir/t.etl: two TraceLogging events whose metadata, an event name of
 * 5,000 letters, is too large for libetw's schema cache; fields INT32
 * a = 1 + i and ANSI b = "x".
 */
static char *write_uncached(const char *dir)
{
	enum { BS = 16384, NAME = 5000 };
	static const char fields[] = "a\0\x07" "b\0\x02";
	struct etw_etl_writer_params prm = etl_test_params();
	uint16_t mlen = 2 + 1 + NAME + 1 + sizeof(fields) - 1;
	uint16_t ilen = (uint16_t)(sizeof(struct etw_ext_item) +
				   ((mlen + 7) & ~7u));
	struct etw_event_header eh = {
		.size = (uint16_t)(sizeof(eh) + ilen + 6),
		.header_type = ETW_EVENT_HEADER_TYPE_64,
		.flags = ETW_EVENT_FLAG_EXTENDED_INFO,
		.thread_id = 101,
		.process_id = 100,
		.provider_id = etl_test_guid,
		.descriptor = { .id = 1, .level = 4 },
	};
	struct etw_ext_item x = { .item_size = ilen,
				  .ext_type = ETW_EXT_EVENT_SCHEMA_TL,
				  .data_size = mlen };
	static uint8_t buf[BS];
	struct etw_buffer_header *bh = (struct etw_buffer_header *)buf;
	char *path = etl_path(dir, "t.etl");
	struct etw_etl_writer *w;
	uint8_t *p;
	int32_t a;
	int i;

	prm.buffer_size = BS;
	etl_buf_init(buf, BS, 0);
	for (i = 0; i < 2; i++) {
		p = buf + bh->offset;
		eh.timestamp = ETL_TEST_START_RAW + 1000 * (i + 1);
		memset(p, 0, (eh.size + 7u) & ~7u);
		memcpy(p, &eh, sizeof(eh));
		memcpy(p + sizeof(eh), &x, sizeof(x));
		p += sizeof(eh) + sizeof(x);
		memcpy(p, &mlen, 2);
		memset(p + 3, 'E', NAME);
		memcpy(p + 3 + NAME + 1, fields, sizeof(fields) - 1);
		p = buf + bh->offset + sizeof(eh) + ilen;
		a = 1 + i;
		memcpy(p, &a, 4);
		memcpy(p + 4, "x", 2);
		bh->offset += (eh.size + 7u) & ~7u;
		bh->saved_offset = bh->offset;
		bh->current_offset = bh->offset;
		bh->events++;
		bh->timestamp = eh.timestamp;
	}
	if (etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm, &w))
		return NULL;
	if (etw_etl_writer_append(w, buf) | etw_etl_writer_close(w, NULL))
		return NULL;
	return path;
}

/*
 * Names a row keeps of its own (a schema too large to cache): each row
 * shows its event's, the name cut at 255 bytes as before.
 */
TEST(names_of_an_uncached_schema)
{
	char name[256], want[1024];
	struct scratch s = { 0 };
	struct ctl_run r;

	memset(name, 'E', 255);
	name[255] = 0;
	snprintf(want, sizeof(want),
		 "{\"event\":\"%s\",\"fields\":{\"a\":1,\"b\":\"x\"}}\n"
		 "{\"event\":\"%s\",\"fields\":{\"a\":2,\"b\":\"x\"}}\n",
		 name, name);
	s.dir = etl_mkdtemp();
	ASSERT_NE(NULL, s.dir);
	s.etl = write_uncached(s.dir);
	ASSERT_NE(NULL, s.etl);
	r = dump(&s, ARGS("-f", "json", "--fields", "event,fields"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ(want, r.out);
	ctl_run_free(&r);
	scratch_free(&s);
}

/*
 * @dir/s.etl: a string-only event (EventWriteString) of 'hi "\u00e9"'
 * in UTF-16, then one of no schema whose payload is 5 bytes, 1 to 5.
 */
static char *write_string_only(const char *dir)
{
	static const uint8_t str[] = { 'h', 0, 'i', 0, ' ', 0, '"', 0,
				       0xe9, 0, '"', 0, 0, 0 };
	struct etw_etl_writer_params prm = etl_test_params();
	static uint8_t buf[ETL_TEST_BS];
	struct etw_event_header *eh;
	char *path = etl_path(dir, "s.etl");
	struct etw_etl_writer *w;
	uint32_t off;

	etl_buf_init(buf, ETL_TEST_BS, 0);
	off = etl_buf_add_ext(buf, 1, ETL_TEST_START_RAW + 1000, 100, 0, 0,
			      sizeof(str));
	if (!off)
		return NULL;
	eh = (struct etw_event_header *)(buf + off);
	eh->flags |= ETW_EVENT_FLAG_STRING_ONLY;
	memcpy(buf + off + sizeof(*eh), str, sizeof(str));
	if (!etl_buf_add_ext(buf, 2, ETL_TEST_START_RAW + 2000, 100, 0, 0, 5))
		return NULL;
	if (etw_etl_writer_open(path, ETW_ETL_MODE_SEQUENTIAL, &prm, &w))
		return NULL;
	if (etw_etl_writer_append(w, buf) | etw_etl_writer_close(w, NULL))
		return NULL;
	return path;
}

/* An undecoded row's text: its string, or its payload's hex. */
TEST(undecoded_text_every_format)
{
	static const char *const formats[] = { "table", "csv", "json" };
	static const char *const want[] = {
		"id=1 hi \"\xc3\xa9\"\nid=2 0203040506\n",
		"id,fields\n1,\"hi \"\"\xc3\xa9\"\"\"\n2,0203040506\n",
		"{\"id\":1,\"fields\":\"hi \\\"\xc3\xa9\\\"\"}\n"
		"{\"id\":2,\"fields\":\"0203040506\"}\n",
	};
	struct scratch s = { 0 };
	struct ctl_run r;
	size_t i;

	s.dir = etl_mkdtemp();
	ASSERT_NE(NULL, s.dir);
	s.etl = write_string_only(s.dir);
	ASSERT_NE(NULL, s.etl);
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		r = dump(&s, ARGS("-f", formats[i], "--fields", "id,fields"));
		EXPECT_EQ(0, r.status);
		EXPECT_STREQ(want[i], r.out) TH_LOG("%s", formats[i]);
		ctl_run_free(&r);
	}
	scratch_free(&s);
}

/* --- names and fields from a manifest ------------------------------------ */

/*
 * The file's start is ETL_TEST_START_TIME (2022-06-18T04:26:40Z) at raw
 * time ETL_TEST_START_RAW; the events come 1 and 2 us (10 and 20 ticks)
 * later.  Names are the manifest's for events 1 and 2 (winmeta's
 * "Information" and "Start"; its own level, task, opcode and keyword
 * messages); State and Flags are shown through their maps.
 */
TEST(manifest_table)
{
	struct scratch s;
	struct ctl_run r;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	r = dump(&s, ARGS("--manifest", SAMPLE));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("2022-06-18T04:26:40.0000010Z   0     100     101 "
		     "Etw-Test-Manifest - id=1 v=1 lvl=Information op=Start "
		     "task=Connecting kw=Network,Disk act=- Port=80 "
		     "State=\"Busy\" Flags=\"Read | Exec\" Name=\"ab\" "
		     "Peers[0].Addr=\"127.0.0.1\" Peers[0].Tag=\"ab\" "
		     "Blob=\"0xDEADBE\" Pair=[7,8] Where=\"0x1000\"\n"
		     "2022-06-18T04:26:40.0000020Z   0     100     101 "
		     "Etw-Test-Manifest - id=2 v=1 lvl=Very chatty op=Retrying "
		     "task=Connecting kw=Mem act=- \n", r.out);
	EXPECT_STREQ("", r.err);
	ctl_run_free(&r);
	scratch_free(&s);
}

#define NAMES	"provider,level,task,opcode,keywords,channel,event"
#define GUID_S	"12345678-9abc-def0-0123-456789abcdef"

/* The names, or the numbers the file holds without the manifest. */
static const struct {
	bool manifest;
	const char *format;
	const char *out;
} names_cases[] = {
	{ true, "table", "Etw-Test-Manifest lvl=Information task=Connecting "
	  "op=Start kw=Network,Disk ch=Etw-Test-Manifest/Operational -\n"
	  "Etw-Test-Manifest lvl=Very chatty task=Connecting op=Retrying "
	  "kw=Mem ch=0 -\n" },
	{ false, "table", GUID_S " lvl=4 task=0 op=0 kw=0x10 ch=0 -\n"
	  GUID_S " lvl=4 task=0 op=0 kw=0x10 ch=0 -\n" },
	{ true, "csv", NAMES "\nEtw-Test-Manifest,Information,Connecting,"
	  "Start,\"Network,Disk\",Etw-Test-Manifest/Operational,\n"
	  "Etw-Test-Manifest,Very chatty,Connecting,Retrying,Mem,0,\n" },
	{ false, "csv", NAMES "\n" GUID_S ",4,0,0,0x10,0,\n"
	  GUID_S ",4,0,0,0x10,0,\n" },
	{ true, "json", "{\"provider\":\"Etw-Test-Manifest\",\"level\":"
	  "\"Information\",\"task\":\"Connecting\",\"opcode\":\"Start\","
	  "\"keywords\":\"Network,Disk\",\"channel\":"
	  "\"Etw-Test-Manifest/Operational\",\"event\":null}\n"
	  "{\"provider\":\"Etw-Test-Manifest\",\"level\":\"Very chatty\","
	  "\"task\":\"Connecting\",\"opcode\":\"Retrying\",\"keywords\":"
	  "\"Mem\",\"channel\":0,\"event\":null}\n" },
	{ false, "json", "{\"provider\":\"" GUID_S "\",\"level\":4,\"task\":0,"
	  "\"opcode\":0,\"keywords\":\"0x10\",\"channel\":0,"
	  "\"event\":null}\n{\"provider\":\"" GUID_S "\",\"level\":4,"
	  "\"task\":0,\"opcode\":0,\"keywords\":\"0x10\",\"channel\":0,"
	  "\"event\":null}\n" },
};

/* Each case runs in its own process: a loaded manifest stays loaded. */
TEST(manifest_names_every_format)
{
	struct scratch s;
	struct ctl_run r;
	size_t i;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	for (i = 0; i < ARRAY_SIZE(names_cases); i++) {
		if (names_cases[i].manifest)
			r = dump(&s, ARGS("--manifest", SAMPLE, "-f",
					  names_cases[i].format, "--fields",
					  NAMES));
		else
			r = dump(&s, ARGS("-f", names_cases[i].format,
					  "--fields", NAMES));
		EXPECT_EQ(0, r.status);
		EXPECT_STREQ(names_cases[i].out, r.out)
			TH_LOG("%s, manifest %d", names_cases[i].format,
			       names_cases[i].manifest);
		ctl_run_free(&r);
	}
	scratch_free(&s);
}

/* --- JSON: types and escaping --------------------------------------------- */

/*
 * Integers as numbers, a fixed-count array as an array, mapped values,
 * IP addresses, binary and pointers as strings; an event without fields
 * has an empty object; a field an event lacks is null.
 */
TEST(json_types)
{
	struct scratch s;
	struct ctl_run r;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	r = dump(&s, ARGS("--manifest", SAMPLE, "-f", "json", "--fields",
			  "fields,fields.Pair,fields.Port"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("{\"fields\":{\"Port\":80,\"State\":\"Busy\",\"Flags\":"
		     "\"Read | Exec\",\"Name\":\"ab\",\"Peers[0].Addr\":"
		     "\"127.0.0.1\",\"Peers[0].Tag\":\"ab\",\"Blob\":"
		     "\"0xDEADBE\",\"Pair\":[7,8],\"Where\":\"0x1000\"},"
		     "\"fields.Pair\":[7,8],\"fields.Port\":80}\n"
		     "{\"fields\":{},\"fields.Pair\":null,"
		     "\"fields.Port\":null}\n",
		     r.out);
	ctl_run_free(&r);
	scratch_free(&s);
}

/* Without a schema, the fields are the payload's hex, as a string. */
TEST(json_undecoded)
{
	struct scratch s;
	struct ctl_run r;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	r = dump(&s, ARGS("-f", "json", "--fields", "id,fields"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("{\"id\":1,\"fields\":\"00500100000005000000610062000000"
		     "01007f00000161620003000000deadbe07080010000000000000\"}\n"
		     "{\"id\":2,\"fields\":\"\"}\n", r.out);
	ctl_run_free(&r);
	scratch_free(&s);
}

/* Booleans and GUIDs of the TraceLogging events Windows wrote. */
TEST(json_bool_and_guid)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", "--id", "0", "--to", "3",
			     "--fields", "fields.boolean_type,fields.guid_type,"
			     "fields.int16_type,event", PRIMITIVE));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("{\"fields.boolean_type\":false,\"fields.guid_type\":"
		     "\"0ad614c4-0ef4-4225-8013-f44f37cb0397\","
		     "\"fields.int16_type\":-51,\"event\":"
		     "\"PrimitiveTypesTest\"}\n", r.out);
	ctl_run_free(&r);
}

#define CLR_MAN	SRC_DIR "/userlib/manifests/clr.man"

/*
 * Every CLR event Windows wrote decodes through the CLR manifest: named
 * task and opcode, and fields as an object, never the hex of an unknown
 * event (userlib/tests/tdh_clr_gc_test.c checks the values).
 */
TEST(manifest_clr_every_event)
{
	const char *line, *nl;
	struct ctl_run r;
	int n = 0;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", "--manifest", CLR_MAN,
			     "--fields", "task,opcode,fields", CLR));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("", r.err);
	for (line = r.out; *line; line = nl + 1, n++) {
		nl = strchr(line, '\n');
		ASSERT_NE(NULL, nl);
		EXPECT_EQ(0, strncmp(line, "{\"task\":\"", 9))
			TH_LOG("%.*s", (int)(nl - line), line);
		EXPECT_NE(NULL, strstr(line, ",\"fields\":{"));
	}
	EXPECT_EQ(69, n);
	ctl_run_free(&r);
}

#define NET	ETL_DIR "/net.4.5.2.x86.etl"

/*
 * A 32-bit program's event (an EVENT_HEADER record of type
 * ETW_ETL_HT_EVENT32): its pointers are 4 bytes, as ProcessTrace says,
 * so the exception after the 4-byte ExceptionEIP decodes to its end.
 */
TEST(manifest_32_bit_pointers)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", "--manifest", CLR_MAN,
			     "--provider", "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4",
			     "--id", "80", "--fields", "event,fields", NET));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("{\"event\":\"ExceptionThrown\",\"fields\":{"
		     "\"ExceptionType\":\"System.IO.FileNotFoundException\","
		     "\"ExceptionMessage\":\"The session PerfViewSessionHeap "
		     "is not active.\",\"ExceptionEIP\":\"0xA3910F0\","
		     "\"ExceptionHRESULT\":\"0x80070002\","
		     "\"ExceptionFlags\":\"CLSCompliant\","
		     "\"ClrInstanceID\":11}}\n", r.out);
	ctl_run_free(&r);
}

/* libetw finds the manifest on ETW_MANIFEST_PATH: no --manifest needed. */
TEST(manifest_from_path)
{
	struct ctl_run r;

	REQUIRE_TESTDATA();
	ASSERT_EQ(0, setenv("ETW_MANIFEST_PATH", "/nonexistent:" CLR_MAN, 1));
	r = ctl_run(etwctl_cmd_dump,
		    CTL_ARGV("dump", "-f", "json", "--id", "187",
			     "--fields", "task,opcode,fields.Sku", CLR));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("{\"task\":\"Runtime\",\"opcode\":\"Start\","
		     "\"fields.Sku\":\"CoreClr\"}\n", r.out);
	ctl_run_free(&r);
}

/* An ANSI string's bytes (the Tag field) and the JSON string of them. */
static const struct {
	const char *in;
	const char *json;
} json_escapes[] = {
	{ "plain", "\"plain\"" },
	{ "say \"hi\"", "\"say \\\"hi\\\"\"" },
	{ "back\\slash", "\"back\\\\slash\"" },
	{ "nl\ncr\rtab\t", "\"nl\\ncr\\rtab\\t\"" },
	{ "\x01\x1f", "\"\\u0001\\u001f\"" },
	{ "caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"" },
	{ "bad\xff", "\"bad\\ufffd\"" },
	{ "\xc3(", "\"\\ufffd(\"" },
	{ "", "\"\"" },
};

TEST(json_escaping)
{
	const char *names[ARRAY_SIZE(json_escapes)], *p;
	char want[128];
	struct scratch s;
	struct ctl_run r;
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(json_escapes); i++)
		names[i] = json_escapes[i].in;
	ASSERT_TRUE(scratch_init(&s, names, ARRAY_SIZE(names)));
	r = dump(&s, ARGS("--manifest", SAMPLE, "-f", "json", "--fields",
			  "fields.Peers[0].Tag"));
	EXPECT_EQ(0, r.status);
	for (i = 0, p = r.out; i < ARRAY_SIZE(json_escapes); i++) {
		n = (size_t)snprintf(want, sizeof(want),
				     "{\"fields.Peers[0].Tag\":%s}\n",
				     json_escapes[i].json);
		EXPECT_EQ(0, strncmp(p, want, n)) TH_LOG("case %zu: %s", i, p);
		p = strchr(p, '\n');
		ASSERT_NE(NULL, p);
		p++;
	}
	EXPECT_STREQ("{\"fields.Peers[0].Tag\":null}\n", p);
	ctl_run_free(&r);
	scratch_free(&s);
}

/* --- CSV quoting (RFC 4180) ----------------------------------------------- */

static const struct {
	const char *in;
	const char *csv;
} csv_quotes[] = {
	{ "plain", "plain" },
	{ " spaced ", " spaced " },
	{ "a,b", "\"a,b\"" },
	{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
	{ "\"", "\"\"\"\"" },
	{ "two\nlines", "\"two\nlines\"" },
	{ "cr\rhere", "\"cr\rhere\"" },
	{ "", "" },
};

TEST(csv_quoting)
{
	const char *names[ARRAY_SIZE(csv_quotes)];
	char want[512];
	size_t i, len;
	struct scratch s;
	struct ctl_run r;

	len = (size_t)snprintf(want, sizeof(want), "fields.Peers[0].Tag,id\n");
	for (i = 0; i < ARRAY_SIZE(csv_quotes); i++) {
		names[i] = csv_quotes[i].in;
		len += (size_t)snprintf(want + len, sizeof(want) - len,
					"%s,1\n", csv_quotes[i].csv);
	}
	snprintf(want + len, sizeof(want) - len, ",2\n");
	ASSERT_TRUE(scratch_init(&s, names, ARRAY_SIZE(names)));
	r = dump(&s, ARGS("--manifest", SAMPLE, "-f", "csv", "--fields",
			  "fields.Peers[0].Tag,id"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ(want, r.out);
	ctl_run_free(&r);
	scratch_free(&s);
}

/* The fields column is one CSV field, its quotes doubled. */
TEST(csv_fields_column)
{
	struct scratch s;
	struct ctl_run r;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	r = dump(&s, ARGS("--manifest", SAMPLE, "-f", "csv", "--fields",
			  "id,fields"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("id,fields\n1,\"Port=80 State=\"\"Busy\"\" "
		     "Flags=\"\"Read | Exec\"\" Name=\"\"ab\"\" "
		     "Peers[0].Addr=\"\"127.0.0.1\"\" Peers[0].Tag=\"\"ab\"\" "
		     "Blob=\"\"0xDEADBE\"\" Pair=[7,8] "
		     "Where=\"\"0x1000\"\"\"\n2,\n", r.out);
	ctl_run_free(&r);
	scratch_free(&s);
}

/* --- --manifest errors ---------------------------------------------------- */

/* Line 4 names a provider with a GUID that is none. */
static const char bad_guid[] =
	"<?xml version=\"1.0\"?>\n"
	"<instrumentationManifest xmlns="
	"\"http://schemas.microsoft.com/win/2004/08/events\">\n"
	"<instrumentation><events>\n"
	"<provider name=\"P\" guid=\"{not-a-guid}\" symbol=\"P\"/>\n"
	"</events></instrumentation>\n"
	"</instrumentationManifest>\n";

/* Not XML: the element of line 3 is never closed. */
static const char bad_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<instrumentationManifest>\n"
	"<instrumentation>\n"
	"</instrumentationManifest>\n";

static char *write_text(const char *dir, const char *name, const char *text)
{
	char *path = etl_path(dir, name), *real;
	FILE *f = fopen(path, "w");

	if (!f)
		return path;
	fputs(text, f);
	fclose(f);
	/* libetw names the file by its canonical path. */
	real = realpath(path, NULL);
	free(path);
	return real;
}

TEST(manifest_errors)
{
	char *dir = etl_mkdtemp(), *guid, *xml, want[512];
	struct ctl_run r;

	ASSERT_NE(NULL, dir);
	guid = write_text(dir, "guid.man", bad_guid);
	xml = write_text(dir, "xml.man", bad_xml);
	ASSERT_NE(NULL, guid);
	ASSERT_NE(NULL, xml);

	r = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", "--manifest", guid,
					      "/nonexistent.etl"));
	snprintf(want, sizeof(want), "etwctl dump: %s:4: ", guid);
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(0, strncmp(r.err, want, strlen(want))) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, "not-a-guid")) TH_LOG("%s", r.err);
	EXPECT_EQ(1, ctl_lines(r.err));
	EXPECT_STREQ("", r.out);
	ctl_run_free(&r);

	/* libxml2's words, after the line where it found the error. */
	r = ctl_run(etwctl_cmd_dump, CTL_ARGV("dump", "--manifest", SAMPLE,
					      "--manifest", xml, "x.etl"));
	snprintf(want, sizeof(want), "etwctl dump: %s:", xml);
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(0, strncmp(r.err, want, strlen(want))) TH_LOG("%s", r.err);
	EXPECT_EQ(1, ctl_lines(r.err));
	EXPECT_STREQ("", r.out);
	ctl_run_free(&r);

	r = ctl_run(etwctl_cmd_view, CTL_ARGV("view", "--manifest", guid, "s"));
	snprintf(want, sizeof(want), "etwctl view: %s:4: ", guid);
	EXPECT_EQ(1, r.status);
	EXPECT_EQ(0, strncmp(r.err, want, strlen(want))) TH_LOG("%s", r.err);
	EXPECT_EQ(1, ctl_lines(r.err));
	ctl_run_free(&r);

	free(guid);
	free(xml);
	etl_rmdir(dir);
}

static const struct {
	const char *path;
	int status;
	const char *err;
} manifest_path_cases[] = {
	{ "/nonexistent/m.man", 1,
	  "etwctl dump: /nonexistent/m.man: file not found\n" },
	{ "", 2,
	  "etwctl dump: empty --manifest path (see 'etwctl dump --help')\n" },
};

TEST(manifest_paths)
{
	struct ctl_run r;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(manifest_path_cases); i++) {
		r = ctl_run(etwctl_cmd_dump,
			    CTL_ARGV("dump", "--manifest",
				     (char *)manifest_path_cases[i].path,
				     "x.etl"));
		EXPECT_EQ(manifest_path_cases[i].status, r.status);
		EXPECT_STREQ(manifest_path_cases[i].err, r.err);
		ctl_run_free(&r);
	}
}

/* --- progress ------------------------------------------------------------- */

/*
 * dump with stderr on a pseudo-terminal (stdout to a file): the progress
 * line, erased at the end.  Returns what the terminal received.
 */
static char *dump_on_tty(const char *etl, int *status)
{
	char *argv[] = { "dump", (char *)etl, NULL };
	static char got[4096];
	size_t len = 0;
	int master, slave, ws;
	ssize_t n;
	pid_t pid;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return NULL;
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		dup2(slave, STDERR_FILENO);
		_exit(etwctl_cmd_dump(2, argv));
	}
	close(slave);
	*status = pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) ?
		  WEXITSTATUS(ws) : -1;
	/* What the child wrote waits in the master; then EIO. */
	while (len < sizeof(got) - 1 &&
	       (n = read(master, got + len, sizeof(got) - 1 - len)) > 0)
		len += (size_t)n;
	got[len] = 0;
	close(master);
	return got;
}

TEST(progress_on_terminal)
{
	struct scratch s;
	const char *got;
	int status;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	got = dump_on_tty(s.etl, &status);
	ASSERT_NE(NULL, got);
	EXPECT_EQ(0, status);
	EXPECT_EQ(0, strncmp(got, "\rdump: ", 7)) TH_LOG("%s", got);
	EXPECT_NE(NULL, strchr(got, '%'));
	EXPECT_NE(NULL, strstr(got, "\r\033[K"));
	EXPECT_STREQ("\r\033[K", got + strlen(got) - 4);
	scratch_free(&s);
}

TEST(no_progress_off_terminal)
{
	struct scratch s;
	struct ctl_run r;

	ASSERT_TRUE(scratch_init(&s, plain, 1));
	r = dump(&s, ARGS("-f", "csv"));
	EXPECT_EQ(0, r.status);
	EXPECT_STREQ("", r.err);
	ctl_run_free(&r);
	scratch_free(&s);
}

TEST_HARNESS_MAIN
