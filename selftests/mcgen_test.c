// SPDX-License-Identifier: GPL-2.0
/*
 * The header etwctl mc writes in mc.exe's shape (build/mc/mcgen_events.h,
 * for mcgen_events.man), included by two units of one program
 * (mcgen_tu1.c, mcgen_tu2.c): its __declspec(selectany) objects are one
 * definition, its enable callback follows the sessions' level and
 * keywords, and the events its EventWrite macros write decode with the
 * consumer API.  mcgen_test builds the two units as C, mcgen_cxx_test
 * (which includes this file) as C++17; the test itself is C.  All are
 * built with -fshort-wchar, which mc.exe's win:UnicodeString templates
 * (wcslen, L"NULL") need.
 */
#include <stdio.h>
#include <time.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "evntrace.h"
#include "evntcons.h"
#include "mcgen_provider.h"

#ifndef MCGEN_LANG
#define MCGEN_LANG	"c"
#endif

#define NAME_OFF	sizeof(EVENT_TRACE_PROPERTIES)
#define FILE_OFF	(NAME_OFF + 1024)
#define MAX_SEEN	12

/* The events' enable bits, in the header's order. */
#define BIT_START	0x1
#define BIT_STOP	0x2
#define BIT_HEARTBEAT	0x4
#define BIT_FAILURE	0x8
#define BIT_FILE	0x10
#define BIT_NOTE	0x20
#define BITS_ALL	0x3f

static const GUID provider_guid = { 0x3f1e5c0a, 0x8b2d, 0x4e7f,
	{ 0x9a, 0x61, 0x0c, 0x5d, 0x2b, 0x7e, 0x4a, 0x19 } };
static const GUID act1 = { 0xac710001, 0x1111, 0x4222,
	{ 0x83, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x01 } };
static const GUID act2 = { 0xac710002, 0x1111, 0x4222,
	{ 0x83, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x02 } };
/* The traits of mcgen_events.h: total size 17, then the provider name. */
static const char traits[] = "\x11\x00" "Etw-Test-McGen";

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[2048];
};

static void props_init(struct props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.BufferSize = 4;
	b->p.LoggerNameOffset = NAME_OFF;
}

static ULONG stop_session(const char *name)
{
	struct props b;

	props_init(&b);
	return StopTraceA(0, name, &b.p);
}

/* One decoded event of the provider, as ProcessTrace delivered it. */
struct seen_event {
	EVENT_HEADER h;
	unsigned char data[64];
	USHORT len;
	bool traits_ok;		/* a PROV_TRAITS item equal to traits[] */
};

static struct seen_event seen[MAX_SEEN];
static int nseen;

static bool has_traits(const EVENT_RECORD *r)
{
	USHORT i;

	for (i = 0; i < r->ExtendedDataCount; i++) {
		const EVENT_HEADER_EXTENDED_DATA_ITEM *x = &r->ExtendedData[i];

		if (x->ExtType == EVENT_HEADER_EXT_TYPE_PROV_TRAITS &&
		    x->DataSize == 17 &&
		    !memcmp((const void *)(uintptr_t)x->DataPtr, traits, 17))
			return true;
	}
	return false;
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	struct seen_event *s;

	if (!IsEqualGUID(&r->EventHeader.ProviderId, &provider_guid) ||
	    nseen == MAX_SEEN)
		return;
	s = &seen[nseen++];
	s->h = r->EventHeader;
	s->len = r->UserDataLength;
	memcpy(s->data, r->UserData,
	       s->len < sizeof(s->data) ? s->len : sizeof(s->data));
	s->traits_ok = has_traits(r);
}

/* Reads the session's file back; returns ProcessTrace's result. */
static ULONG read_back(const char *path)
{
	EVENT_TRACE_LOGFILEA lf;
	PROCESSTRACE_HANDLE h;
	ULONG ret;

	nseen = 0;
	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = (LPSTR)path;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	ret = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return ret;
}

/*
 * Waits up to 5 s for the enable callback to have recorded @level and
 * @any and set the enable bits in @need (cleared them all when disabled).
 */
static bool wait_level(ULONG is_enabled, UCHAR level, ULONGLONG any,
		       unsigned int need)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct mcgen_view v;
	int i;

	for (i = 0; i < 500; i++) {
		mcgen_tu1_view(&v);
		/*
		 * The callback records level and keywords before it sets
		 * the enable bits one by one: wait for the bits too.
		 */
		if (v.is_enabled == is_enabled && v.level == level &&
		    v.any == any && (is_enabled ? (v.enabled & need) == need :
				     !v.enabled))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static void expect_event(struct __test_metadata *_metadata,
			 const struct seen_event *s, USHORT id, UCHAR version,
			 UCHAR level, UCHAR opcode, USHORT task,
			 ULONGLONG keyword, const GUID *activity)
{
	static const GUID zero;

	EXPECT_EQ(id, s->h.EventDescriptor.Id);
	EXPECT_EQ(version, s->h.EventDescriptor.Version);
	EXPECT_EQ(0, s->h.EventDescriptor.Channel);
	EXPECT_EQ(level, s->h.EventDescriptor.Level);
	EXPECT_EQ(opcode, s->h.EventDescriptor.Opcode);
	EXPECT_EQ(task, s->h.EventDescriptor.Task);
	EXPECT_EQ(keyword, s->h.EventDescriptor.Keyword);
	EXPECT_EQ((ULONG)getpid(), s->h.ProcessId);
	EXPECT_TRUE(IsEqualGUID(&s->h.ActivityId, activity ? activity : &zero));
	EXPECT_TRUE(s->traits_ok);
}

/* --- without a session ---------------------------------------------------- */

/*
 * Every unit's __declspec(selectany) names resolve to one object: the
 * context, the enable bits it points at (cache-aligned), the GUID and
 * the descriptors; the context points at the provider traits.
 */
TEST(selectany_objects_are_shared)
{
	struct mcgen_view a, b;

	mcgen_tu1_view(&a);
	mcgen_tu2_view(&b);
	EXPECT_EQ(a.context, b.context);
	EXPECT_EQ(a.enable_bits, b.enable_bits);
	EXPECT_EQ(a.enable_bits, a.mask);
	EXPECT_EQ(a.guid, b.guid);
	EXPECT_EQ(a.descriptor, b.descriptor);
	EXPECT_EQ(0, (uintptr_t)a.enable_bits % 64);
	EXPECT_TRUE(IsEqualGUID((const GUID *)a.guid, &provider_guid));
	ASSERT_NE(NULL, a.traits);
	EXPECT_EQ(0, memcmp(a.traits, traits, sizeof(traits)));
	EXPECT_EQ(0u, a.bits);
	EXPECT_EQ(0u, a.is_enabled);
}

/*
 * McGenControlCallbackV2 sets one bit per (level, keyword) pair of the
 * manifest by ETW's rule: level 0 or at most the session's, and a keyword
 * of 0 or one in MatchAny and all of MatchAll.  Both units'
 * EventEnabled<Event>() and MCGEN_ENABLE_CHECK agree with the bits.
 */
struct enable_case {
	UCHAR level;
	ULONGLONG any;
	ULONGLONG all;
	unsigned int bits;
};

static const struct enable_case enable_cases[] = {
	{ 4, 0x2, 0, BIT_START | BIT_FAILURE },
	{ 5, 0x3, 0, BITS_ALL },
	{ 0, 0x1, 0,
	  BIT_STOP | BIT_HEARTBEAT | BIT_FAILURE | BIT_FILE | BIT_NOTE },
	{ 4, 0x1, 0, BIT_HEARTBEAT | BIT_FAILURE | BIT_FILE },
	{ 2, ~0ull, 0, BIT_FAILURE },
	{ 5, 0x3, 0x3, BIT_STOP | BIT_FAILURE | BIT_NOTE },
	{ 5, 0, 0, BIT_FAILURE | BIT_NOTE },
};

TEST(callback_sets_bits_by_level_and_keyword)
{
	struct mcgen_view a, b;
	unsigned int i;

	for (i = 0; i < ARRAYSIZE(enable_cases); i++) {
		const struct enable_case *c = &enable_cases[i];

		mcgen_callback(EVENT_CONTROL_CODE_ENABLE_PROVIDER, c->level,
			       c->any, c->all);
		mcgen_tu1_view(&a);
		mcgen_tu2_view(&b);
		EXPECT_EQ(c->bits, a.bits) TH_LOG("case %u", i);
		EXPECT_EQ(c->bits, a.enabled) TH_LOG("case %u", i);
		EXPECT_EQ(c->bits, b.enabled) TH_LOG("case %u", i);
		EXPECT_EQ(c->bits, a.checked) TH_LOG("case %u", i);
		EXPECT_EQ(c->bits, b.checked) TH_LOG("case %u", i);
		EXPECT_EQ(1u, a.is_enabled);
		EXPECT_EQ(c->level, a.level);
		EXPECT_EQ(c->any, a.any);
		EXPECT_EQ(c->all, a.all);
	}
}

/* A disable clears the bits and the recorded level and keywords. */
TEST(callback_disable_clears_bits)
{
	struct mcgen_view a;

	mcgen_callback(EVENT_CONTROL_CODE_ENABLE_PROVIDER, 5, 0x3, 0);
	mcgen_callback(EVENT_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0);
	mcgen_tu2_view(&a);
	EXPECT_EQ(0u, a.bits);
	EXPECT_EQ(0u, a.enabled);
	EXPECT_EQ(0u, a.checked);
	EXPECT_EQ(0u, a.is_enabled);
	EXPECT_EQ(0, a.level);
	EXPECT_EQ(0u, a.any);
}

/* A capture-state request leaves the enable state alone. */
TEST(callback_capture_state_keeps_bits)
{
	struct mcgen_view a;

	mcgen_callback(EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x2, 0);
	mcgen_callback(EVENT_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0);
	mcgen_tu1_view(&a);
	EXPECT_EQ(BIT_START | BIT_FAILURE, a.bits);
	EXPECT_EQ(4, a.level);
}

/*
 * EventRegister<Provider>() registers once (traits included, so through
 * McGenEventRegisterContext): a second call is ERROR_INVALID_PARAMETER
 * and keeps the handle; EventUnregister<Provider>() zeroes the handle
 * and is a no-op when repeated.
 */
TEST(register_twice_and_unregister)
{
	struct mcgen_view a, b;

	ASSERT_EQ(ERROR_SUCCESS, mcgen_register());
	mcgen_tu1_view(&a);
	EXPECT_NE(0u, a.handle);
	EXPECT_EQ(ERROR_INVALID_PARAMETER, mcgen_register());
	mcgen_tu2_view(&b);
	EXPECT_EQ(a.handle, b.handle);
	EXPECT_EQ(ERROR_SUCCESS, mcgen_unregister());
	mcgen_tu2_view(&b);
	EXPECT_EQ(0u, b.handle);
	EXPECT_EQ(ERROR_SUCCESS, mcgen_unregister());
}

/*
 * McGenEventRegister, which EventRegister<Provider>() of a provider
 * without traits calls, answers a second registration with ERROR_SUCCESS
 * and keeps the first handle.
 */
TEST(plain_register_twice_is_success)
{
	struct mcgen_view a, b;

	ASSERT_EQ(ERROR_SUCCESS, mcgen_register_plain());
	mcgen_tu1_view(&a);
	EXPECT_NE(0u, a.handle);
	EXPECT_EQ(ERROR_SUCCESS, mcgen_register_plain());
	mcgen_tu2_view(&b);
	EXPECT_EQ(a.handle, b.handle);
	EXPECT_EQ(ERROR_SUCCESS, mcgen_unregister());
}

/* Written while no session enables the provider: nothing is called. */
TEST(disabled_provider_writes_nothing)
{
	ASSERT_EQ(ERROR_SUCCESS, mcgen_register());
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_stop(NULL, 1, 2));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_failure(NULL, 3, "x"));
	EXPECT_EQ(0u, mcgen_counted_writes());
	EXPECT_EQ(ERROR_SUCCESS, mcgen_unregister());
}

/* --- with a session that logs to a file ----------------------------------- */

FIXTURE(session) {
	CONTROLTRACE_ID h;
	char name[64];
	char path[96];
};

FIXTURE_SETUP(session)
{
	struct props b;

	snprintf(self->name, sizeof(self->name), "mcgen-%s-%d", MCGEN_LANG,
		 getpid());
	snprintf(self->path, sizeof(self->path), "/tmp/%s.etl", self->name);
	unlink(self->path);
	props_init(&b);
	b.p.LogFileNameOffset = FILE_OFF;
	strcpy((char *)&b + FILE_OFF, self->path);
	ASSERT_EQ(ERROR_SUCCESS, StartTraceA(&self->h, self->name, &b.p));
	ASSERT_EQ(ERROR_SUCCESS, mcgen_register());
}

FIXTURE_TEARDOWN(session)
{
	mcgen_unregister();
	stop_session(self->name);
	unlink(self->path);
}

static ULONG enable(CONTROLTRACE_ID h, ULONG code, UCHAR level,
		    ULONGLONG any)
{
	return EnableTraceEx2(h, &provider_guid, code, level, any, 0, 0,
			      NULL);
}

/* The callback follows the session's enable, update and disable. */
TEST_F(session, callback_follows_session)
{
	struct mcgen_view a, b;

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x2));
	ASSERT_TRUE(wait_level(1, 4, 0x2, BIT_START | BIT_FAILURE));
	mcgen_tu2_view(&b);
	EXPECT_EQ(BIT_START | BIT_FAILURE, b.enabled);

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 5, 0x3));
	ASSERT_TRUE(wait_level(1, 5, 0x3, BITS_ALL));
	mcgen_tu1_view(&a);
	EXPECT_EQ(BITS_ALL, a.enabled);

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_DISABLE_PROVIDER, 0, 0));
	ASSERT_TRUE(wait_level(0, 0, 0, 0));
	mcgen_tu2_view(&b);
	EXPECT_EQ(0u, b.enabled);
}

/*
 * Every event, written through both units' EventWrite macros, decodes
 * with its descriptor, activity ID, traits and exact payload.
 */
TEST_F(session, events_decode_with_consumer)
{
	const ULONGLONG bytes = 0x0000010000000005ull;
	const INT status = -3;
	const UINT code = 0x80070005u;
	unsigned char want[32];

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 5, 0x3));
	ASSERT_TRUE(wait_level(1, 5, 0x3, BITS_ALL));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_start(&act1, "alpha", 4096));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_stop(&act2, bytes, status));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_heartbeat(NULL));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_failure(NULL, code, "denied"));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_start(NULL, NULL, 7));
	EXPECT_EQ(2u, mcgen_counted_writes());
	ASSERT_EQ(ERROR_SUCCESS, stop_session(self->name));
	ASSERT_EQ(ERROR_SUCCESS, read_back(self->path));
	ASSERT_EQ(5, nseen);

	expect_event(_metadata, &seen[0], 1, 0, 4, 1, 1, 0x2, &act1);
	memcpy(want, "alpha", 6);
	*(UINT *)(want + 6) = 4096;
	ASSERT_EQ(10, seen[0].len);
	EXPECT_EQ(0, memcmp(want, seen[0].data, 10));

	expect_event(_metadata, &seen[1], 2, 1, 5, 2, 1, 0x3, &act2);
	memcpy(want, &bytes, 8);
	memcpy(want + 8, &status, 4);
	ASSERT_EQ(12, seen[1].len);
	EXPECT_EQ(0, memcmp(want, seen[1].data, 12));

	expect_event(_metadata, &seen[2], 3, 0, 3, 0, 0, 0x1, NULL);
	EXPECT_EQ(0, seen[2].len);

	expect_event(_metadata, &seen[3], 4, 0, 2, 0, 0, 0, NULL);
	memcpy(want, &code, 4);
	memcpy(want + 4, "denied", 7);
	ASSERT_EQ(11, seen[3].len);
	EXPECT_EQ(0, memcmp(want, seen[3].data, 11));

	/* A NULL string is written as "NULL", as mc.exe's templates do. */
	expect_event(_metadata, &seen[4], 1, 0, 4, 1, 1, 0x2, NULL);
	memcpy(want, "NULL", 5);
	*(UINT *)(want + 5) = 7;
	ASSERT_EQ(9, seen[4].len);
	EXPECT_EQ(0, memcmp(want, seen[4].data, 9));
}

/* A payload as the consumer must see it, byte by byte. */
struct payload_case {
	unsigned char bytes[32];
	USHORT len;
};

static void expect_payloads(struct __test_metadata *_metadata,
			    const struct payload_case *want, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(want[i].len, seen[i].len) TH_LOG("event %d", i);
		EXPECT_EQ(0, memcmp(want[i].bytes, seen[i].data, want[i].len))
			TH_LOG("event %d", i);
	}
}

/*
 * FileOpened's win:UnicodeString goes out as UTF-16LE with its nul
 * (a surrogate pair for U+1F600), an empty string as the nul alone, and
 * a NULL pointer as L"NULL" with its nul, as mc.exe's template writes it.
 */
static const struct payload_case file_payloads[] = {
	{ { '/', 0, 't', 0, 'm', 0, 'p', 0, '/', 0, 'c', 0, 'a', 0, 'f', 0,
	    0xe9, 0, 0x3d, 0xd8, 0x00, 0xde, 0, 0, 0x81, 0, 0, 0 }, 28 },
	{ { 0, 0, 3, 0, 0, 0 }, 6 },
	{ { 'N', 0, 'U', 0, 'L', 0, 'L', 0, 0, 0, 2, 0, 0, 0 }, 14 },
};

TEST_F(session, unicode_string_payloads)
{
	int i;

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x1));
	ASSERT_TRUE(wait_level(1, 4, 0x1, BIT_FILE));
	EXPECT_EQ(ERROR_SUCCESS,
		  mcgen_write_file(&act1, L"/tmp/caf\u00e9\U0001F600", 0x81));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_file(NULL, L"", 3));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_file(NULL, NULL, 2));
	ASSERT_EQ(ERROR_SUCCESS, stop_session(self->name));
	ASSERT_EQ(ERROR_SUCCESS, read_back(self->path));
	ASSERT_EQ(3, nseen);
	for (i = 0; i < 3; i++)
		expect_event(_metadata, &seen[i], 5, 0, 4, 0, 0, 0x1,
			     i ? NULL : &act1);
	expect_payloads(_metadata, file_payloads, 3);
}

/*
 * Note's win:AnsiString goes out with its nul, a NULL pointer as "NULL"
 * with its nul.  Note has no keyword: any session at level 5 enables it.
 */
static const struct payload_case note_payloads[] = {
	{ { 'h', 'e', 'l', 'l', 'o', 0 }, 6 },
	{ { 0 }, 1 },
	{ { 'N', 'U', 'L', 'L', 0 }, 5 },
};

TEST_F(session, ansi_string_payloads)
{
	int i;

	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 5, 0x2));
	ASSERT_TRUE(wait_level(1, 5, 0x2, BIT_NOTE));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_note(&act2, "hello"));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_note(NULL, ""));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_note(NULL, NULL));
	EXPECT_EQ(3u, mcgen_counted_writes());
	ASSERT_EQ(ERROR_SUCCESS, stop_session(self->name));
	ASSERT_EQ(ERROR_SUCCESS, read_back(self->path));
	ASSERT_EQ(3, nseen);
	for (i = 0; i < 3; i++)
		expect_event(_metadata, &seen[i], 6, 0, 5, 0, 0, 0,
			     i ? NULL : &act2);
	expect_payloads(_metadata, note_payloads, 3);
}

/*
 * At level 4 and keyword 0x2 only TransferStart and Failure are enabled:
 * the macros of the others call nothing and the file has only those two.
 */
TEST_F(session, disabled_events_are_not_written)
{
	ASSERT_EQ(ERROR_SUCCESS,
		  enable(self->h, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x2));
	ASSERT_TRUE(wait_level(1, 4, 0x2, BIT_START | BIT_FAILURE));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_start(NULL, "a", 1));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_stop(NULL, 2, 3));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_heartbeat(NULL));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_failure(NULL, 4, "b"));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_file(NULL, L"c", 5));
	EXPECT_EQ(ERROR_SUCCESS, mcgen_write_note(NULL, "d"));
	EXPECT_EQ(1u, mcgen_counted_writes());
	ASSERT_EQ(ERROR_SUCCESS, stop_session(self->name));
	ASSERT_EQ(ERROR_SUCCESS, read_back(self->path));
	ASSERT_EQ(2, nseen);
	EXPECT_EQ(1, seen[0].h.EventDescriptor.Id);
	EXPECT_EQ(4, seen[1].h.EventDescriptor.Id);
}

TEST_HARNESS_MAIN
