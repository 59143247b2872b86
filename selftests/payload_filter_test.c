// SPDX-License-Identifier: GPL-2.0
/*
 * Payload filters end to end, as Windows code sets them up: a manifest
 * (TdhLoadManifestFromMemory), TdhCreatePayloadFilter and
 * TdhAggregatePayloadFilters, EnableTraceEx2 with the PAYLOAD descriptor,
 * a provider writing with EventRegister and EventWrite, directly and
 * batched.  The kernel applies the filter per session before the event
 * reaches a buffer; the test reads what each session got.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "evntcons.h"
#include "tdh.h"

#define GUID_S	"{0BADF00D-0005-0006-0708-090A0B0C0D0E}"

static const GUID prov = { 0x0badf00d, 0x0005, 0x0006,
	{ 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e } };

/* Event 1: Count, Name (UTF-16), Path (ANSI); event 2 likewise. */
static const char manifest[] =
	"<instrumentationManifest xmlns=\"http://schemas.microsoft.com/"
	"win/2004/08/events\"><instrumentation><events>"
	"<provider name=\"PayloadVm\" guid=\"" GUID_S "\">"
	"<templates><template tid=\"T\">"
	"<data name=\"Count\" inType=\"win:UInt32\"/>"
	"<data name=\"Name\" inType=\"win:UnicodeString\"/>"
	"<data name=\"Path\" inType=\"win:AnsiString\"/>"
	"</template></templates><events>"
	"<event value=\"1\" version=\"0\" template=\"T\"/>"
	"<event value=\"2\" version=\"0\" template=\"T\"/>"
	"</events></provider></events></instrumentation>"
	"</instrumentationManifest>";

#define PROPS_SIZE	(sizeof(EVENT_TRACE_PROPERTIES) + 1024)

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[1024];
};

static void props_init(struct props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.Wnode.ClientContext = 1;
	b->p.BufferSize = 64;
	b->p.LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	b->p.LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
}

/* One session: its handle and a consumer of its buffers. */
struct sess {
	char name[64];
	CONTROLTRACE_ID h;
	int cfd;
};

static int sess_start(struct sess *s, const char *tag)
{
	struct etw_consume_args c = { .size = sizeof(c),
				      .flags = O_NONBLOCK | O_CLOEXEC };
	struct props b;
	ULONG st;
	int fd;

	snprintf(s->name, sizeof(s->name), "payload-%s-%d", tag, getpid());
	props_init(&b);
	st = StartTraceA(&s->h, s->name, &b.p);
	if (st)
		return -(int)st;
	fd = etw_open();
	if (fd < 0)
		return -errno;
	c.logger_id = (__u32)s->h;
	s->cfd = ioctl(fd, ETW_IOC_CONSUME, &c);
	close(fd);
	return s->cfd < 0 ? -errno : 0;
}

static void sess_stop(struct sess *s)
{
	struct props b;

	props_init(&b);
	StopTraceA(s->h, NULL, &b.p);
}

/* The Count of each event of @prov the session got, in order. */
struct got {
	__u32 count[64];
	__u16 id[64];
	int n;
};

static void sess_read(struct sess *s, struct got *g)
{
	static unsigned char buf[64 * 1024];
	__u32 off;

	memset(g, 0, sizeof(*g));
	while (read(s->cfd, buf, sizeof(buf)) > 0) {
		const struct etw_buffer_header *bh = (const void *)buf;

		for (off = ETW_BUFFER_HEADER_SIZE;
		     off + sizeof(struct etw_event_header) <= bh->offset;) {
			const struct etw_event_header *h = (void *)(buf + off);

			if (!memcmp(&h->provider_id, &prov, sizeof(prov)) &&
			    g->n < 64) {
				memcpy(&g->count[g->n], h + 1, 4);
				g->id[g->n++] = h->descriptor.id;
			}
			off += (h->size + 7) & ~7u;
		}
	}
	close(s->cfd);
}

/* Write event @id with Count @count, Name @name, Path @path. */
static ULONG write_one(REGHANDLE r, USHORT id, ULONG count, const char *name,
		       const char *path)
{
	EVENT_DESCRIPTOR d = { .Id = id, .Level = 4 };
	EVENT_DATA_DESCRIPTOR dd[3];
	WCHAR w[32];
	size_t i;

	for (i = 0; name[i]; i++)
		w[i] = (unsigned char)name[i];
	w[i] = 0;
	EventDataDescCreate(&dd[0], &count, sizeof(count));
	EventDataDescCreate(&dd[1], w, (ULONG)((i + 1) * sizeof(WCHAR)));
	EventDataDescCreate(&dd[2], path, (ULONG)strlen(path) + 1);
	return EventWrite(r, &d, 3, dd);
}

static WCHAR *wide(const char *s, WCHAR *w)
{
	size_t i;

	for (i = 0; s[i]; i++)
		w[i] = (unsigned char)s[i];
	w[i] = 0;
	return w;
}

/* A predicate and the storage of its strings. */
struct pred {
	WCHAR field[16];
	WCHAR value[64];
	PAYLOAD_FILTER_PREDICATE p;
};

static void pred_set(struct pred *q, const char *field, USHORT op,
		     const char *value)
{
	q->p.FieldName = wide(field, q->field);
	q->p.CompareOp = op;
	q->p.Value = wide(value, q->value);
}

/* A filter on event 1 from @n predicates (@any: EventMatchANY). */
static ULONG filter_one(struct pred *q, ULONG n, BOOLEAN any, PVOID *out)
{
	PAYLOAD_FILTER_PREDICATE p[MAX_PAYLOAD_PREDICATES];
	EVENT_DESCRIPTOR d = { .Id = 1 };
	ULONG i;

	for (i = 0; i < n; i++)
		p[i] = q[i].p;
	return TdhCreatePayloadFilter(&prov, &d, any, n, p, out);
}

static ULONG enable_level(struct sess *s, UCHAR level,
			  EVENT_FILTER_DESCRIPTOR *d)
{
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableFilterDesc = d, .FilterDescCount = d ? 1 : 0,
	};

	return EnableTraceEx2(s->h, &prov, EVENT_CONTROL_CODE_ENABLE_PROVIDER,
			      level, 0, 0, 0, &p);
}

static ULONG enable_with(struct sess *s, EVENT_FILTER_DESCRIPTOR *d)
{
	return enable_level(s, 0, d);
}

FIXTURE(pf) {
	struct sess s;
	REGHANDLE r;
};

FIXTURE_SETUP(pf)
{
	ASSERT_EQ(ERROR_SUCCESS,
		  TdhLoadManifestFromMemory((PVOID)manifest,
					    sizeof(manifest) - 1));
	ASSERT_EQ(0, sess_start(&self->s, "one"));
	ASSERT_EQ(ERROR_SUCCESS, EventRegister(&prov, NULL, NULL, &self->r));
}

FIXTURE_TEARDOWN(pf)
{
	EventUnregister(self->r);
	sess_stop(&self->s);
	TdhUnloadManifestFromMemory((PVOID)manifest, sizeof(manifest) - 1);
}

/* Enable with one filter from @q, write Counts 0..9 of event 1, read. */
static void run_counts(struct __test_metadata *_metadata,
		       struct _test_data_pf *self, struct pred *q, ULONG n,
		       BOOLEAN any, struct got *g)
{
	EVENT_FILTER_DESCRIPTOR d;
	PVOID f = NULL;
	ULONG i;

	ASSERT_EQ(ERROR_SUCCESS, filter_one(q, n, any, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i,
						   i % 2 ? "Error" : "fine",
						   i < 5 ? "a" : "/tmp/B"));
	sess_stop(&self->s);
	sess_read(&self->s, g);
}

TEST_F(pf, integer_predicate_keeps_what_matches)
{
	struct pred q;
	struct got g;

	pred_set(&q, "Count", PAYLOADFIELD_GE, "7");
	run_counts(_metadata, self, &q, 1, TRUE, &g);
	ASSERT_EQ(3, g.n);
	EXPECT_EQ(7, g.count[0]);
	EXPECT_EQ(8, g.count[1]);
	EXPECT_EQ(9, g.count[2]);
}

TEST_F(pf, between_and_modulo)
{
	struct pred q[2];
	struct got g;

	pred_set(&q[0], "Count", PAYLOADFIELD_BETWEEN, "2,6");
	pred_set(&q[1], "Count", PAYLOADFIELD_MODULO, "3");
	run_counts(_metadata, self, q, 2, FALSE, &g);
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(3, g.count[0]);
	EXPECT_EQ(6, g.count[1]);
}

/* String comparisons ignore case (PAYLOAD_FILTER_PREDICATE). */
TEST_F(pf, utf16_string_contains_ignoring_case)
{
	struct pred q;
	struct got g;

	pred_set(&q, "Name", PAYLOADFIELD_CONTAINS, "eRR");
	run_counts(_metadata, self, &q, 1, TRUE, &g);
	ASSERT_EQ(5, g.n);
	EXPECT_EQ(1, g.count[0]);
	EXPECT_EQ(9, g.count[4]);
}

TEST_F(pf, ansi_string_after_a_utf16_one)
{
	struct pred q;
	struct got g;

	pred_set(&q, "Path", PAYLOADFIELD_IS, "/TMP/b");
	run_counts(_metadata, self, &q, 1, TRUE, &g);
	ASSERT_EQ(5, g.n);
	EXPECT_EQ(5, g.count[0]);
}

/* TdhCreatePayloadFilter's EventMatchANY: one predicate, or all. */
TEST_F(pf, match_any_and_match_all)
{
	struct pred q[2];
	struct got g;

	pred_set(&q[0], "Count", PAYLOADFIELD_LT, "2");
	pred_set(&q[1], "Name", PAYLOADFIELD_IS, "error");
	run_counts(_metadata, self, q, 2, TRUE, &g);
	/* 0, 1 (Count < 2), 3, 5, 7, 9 (Error) */
	EXPECT_EQ(6, g.n);
}

TEST_F(pf, match_all_of_two)
{
	struct pred q[2];
	struct got g;

	pred_set(&q[0], "Count", PAYLOADFIELD_LT, "2");
	pred_set(&q[1], "Name", PAYLOADFIELD_IS, "error");
	run_counts(_metadata, self, q, 2, FALSE, &g);
	ASSERT_EQ(1, g.n);
	EXPECT_EQ(1, g.count[0]);
}

/* Events no filter names are written: event 2 passes event 1's filter. */
TEST_F(pf, other_events_pass)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct pred q;
	struct got g;
	PVOID f = NULL;

	pred_set(&q, "Count", PAYLOADFIELD_EQ, "100");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q, 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, 5, "x", "y"));
	ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 2, 5, "x", "y"));
	ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, 100, "x", "y"));
	sess_stop(&self->s);
	sess_read(&self->s, &g);
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(2, g.id[0]);
	EXPECT_EQ(100, g.count[1]);
}

/*
 * TdhAggregatePayloadFilters' EventMatchALLFlags: both flagged filters of
 * the event must pass.
 */
TEST_F(pf, aggregated_flagged_filters_all_pass)
{
	BOOLEAN all[2] = { TRUE, TRUE };
	EVENT_FILTER_DESCRIPTOR d;
	struct pred q[2];
	PVOID f[2] = { NULL, NULL };
	struct got g;
	ULONG i;

	pred_set(&q[0], "Count", PAYLOADFIELD_GT, "2");
	pred_set(&q[1], "Count", PAYLOADFIELD_LT, "5");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[0], 1, TRUE, &f[0]));
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[1], 1, TRUE, &f[1]));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(2, f, all, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	for (i = 0; i < 2; i++)
		TdhDeletePayloadFilter(&f[i]);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	sess_stop(&self->s);
	sess_read(&self->s, &g);
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(3, g.count[0]);
	EXPECT_EQ(4, g.count[1]);
}

/* The filter is the session's: another session gets every event. */
TEST_F(pf, filter_is_per_session)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct sess other;
	struct pred q;
	struct got g, go;
	PVOID f = NULL;
	ULONG i;

	ASSERT_EQ(0, sess_start(&other, "two"));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&other, NULL));
	pred_set(&q, "Count", PAYLOADFIELD_EQ, "4");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q, 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	sess_stop(&self->s);
	sess_stop(&other);
	sess_read(&self->s, &g);
	sess_read(&other, &go);
	ASSERT_EQ(1, g.n);
	EXPECT_EQ(4, g.count[0]);
	EXPECT_EQ(6, go.n);
}

/* Two sessions with filters of their own: each gets what its filter passes. */
TEST_F(pf, each_session_its_own_filter)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct sess other;
	struct pred q[2];
	struct got g, go;
	PVOID f = NULL;
	ULONG i;

	ASSERT_EQ(0, sess_start(&other, "two"));
	pred_set(&q[0], "Count", PAYLOADFIELD_LT, "2");
	pred_set(&q[1], "Count", PAYLOADFIELD_GE, "4");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[0], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[1], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&other, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	sess_stop(&self->s);
	sess_stop(&other);
	sess_read(&self->s, &g);
	sess_read(&other, &go);
	ASSERT_EQ(2, g.n);
	EXPECT_EQ(0, g.count[0]);
	EXPECT_EQ(1, g.count[1]);
	ASSERT_EQ(2, go.n);
	EXPECT_EQ(4, go.count[0]);
	EXPECT_EQ(5, go.count[1]);
}

/*
 * A session's level still applies with its payload filter: events above
 * it are dropped whatever their payload, while another session of a lower
 * level's filter decides for them.
 */
TEST_F(pf, level_applies_before_the_payload_filter)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct sess other;
	struct pred q[2];
	struct got g, go;
	PVOID f = NULL;
	ULONG i;

	ASSERT_EQ(0, sess_start(&other, "two"));
	pred_set(&q[0], "Count", PAYLOADFIELD_GE, "0");
	pred_set(&q[1], "Count", PAYLOADFIELD_LT, "3");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[0], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	/* Errors and worse only: the events, Informational, are above. */
	ASSERT_EQ(ERROR_SUCCESS, enable_level(&self->s, 2, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[1], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_level(&other, 4, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	sess_stop(&self->s);
	sess_stop(&other);
	sess_read(&self->s, &g);
	sess_read(&other, &go);
	EXPECT_EQ(0, g.n);
	ASSERT_EQ(3, go.n);
	EXPECT_EQ(0, go.count[0]);
	EXPECT_EQ(1, go.count[1]);
	EXPECT_EQ(2, go.count[2]);
}

/*
 * Sessions with the same filter share its answer, tested once an event;
 * a session the event's level leaves out does not answer for the next
 * one with the same filter.  Here A and C hold one filter, B another, and
 * A takes errors only.
 */
TEST_F(pf, same_filter_in_two_sessions)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct sess b, c;
	struct pred q[2];
	struct got ga, gb, gc;
	PVOID f = NULL;
	ULONG i;

	ASSERT_EQ(0, sess_start(&b, "two"));
	ASSERT_EQ(0, sess_start(&c, "three"));
	pred_set(&q[0], "Count", PAYLOADFIELD_LT, "2");
	pred_set(&q[1], "Count", PAYLOADFIELD_GE, "4");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[0], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_level(&self->s, 2, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_level(&c, 4, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q[1], 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_level(&b, 4, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	for (i = 0; i < 6; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	sess_stop(&self->s);
	sess_stop(&b);
	sess_stop(&c);
	sess_read(&self->s, &ga);
	sess_read(&b, &gb);
	sess_read(&c, &gc);
	EXPECT_EQ(0, ga.n);
	ASSERT_EQ(2, gb.n);
	EXPECT_EQ(4, gb.count[0]);
	EXPECT_EQ(5, gb.count[1]);
	ASSERT_EQ(2, gc.n);
	EXPECT_EQ(0, gc.count[0]);
	EXPECT_EQ(1, gc.count[1]);
}

/* Staged (batched) events are filtered as direct ones are. */
TEST_F(pf, batched_writes_are_filtered)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct pred q;
	struct got g;
	PVOID f = NULL;
	ULONG i;

	pred_set(&q, "Count", PAYLOADFIELD_NE, "3");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q, 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, EtwSetBatchedWrites(TRUE));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, i, "n", "p"));
	/* Unregistering routes what the thread staged. */
	ASSERT_EQ(ERROR_SUCCESS, EventUnregister(self->r));
	self->r = 0;
	ASSERT_EQ(ERROR_SUCCESS, EtwSetBatchedWrites(FALSE));
	sess_stop(&self->s);
	sess_read(&self->s, &g);
	ASSERT_EQ(4, g.n);
	EXPECT_EQ(4, g.count[3]);
}

/* A malformed blob is refused, and the session's enable stays as it was. */
TEST_F(pf, malformed_blob_is_87_and_changes_nothing)
{
	EVENT_FILTER_DESCRIPTOR d;
	struct pred q;
	struct got g;
	PVOID f = NULL;

	ASSERT_EQ(ERROR_SUCCESS, enable_with(&self->s, NULL));
	pred_set(&q, "Count", PAYLOADFIELD_EQ, "1");
	ASSERT_EQ(ERROR_SUCCESS, filter_one(&q, 1, TRUE, &f));
	ASSERT_EQ(ERROR_SUCCESS, TdhAggregatePayloadFilters(1, &f, NULL, &d));
	/* The predicate's field past the block's fields. */
	((struct etw_payload_predicate *)((char *)(uintptr_t)d.Ptr + 8 +
					  ETW_PAYLOAD_PREDICATES_OFF(1)))->field = 1;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, enable_with(&self->s, &d));
	d.Size = 4;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, enable_with(&self->s, &d));
	d.Size = MAX_EVENT_FILTER_PAYLOAD_SIZE + 1;
	EXPECT_EQ(ERROR_INVALID_PARAMETER, enable_with(&self->s, &d));
	TdhCleanupPayloadEventFilterDescriptor(&d);
	TdhDeletePayloadFilter(&f);
	ASSERT_EQ(ERROR_SUCCESS, write_one(self->r, 1, 5, "n", "p"));
	sess_stop(&self->s);
	sess_read(&self->s, &g);
	EXPECT_EQ(1, g.n);
}

TEST_HARNESS_MAIN
