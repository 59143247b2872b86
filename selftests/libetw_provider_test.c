// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's provider API (evntprov.h) against the real module: registration
 * and handles, enable callbacks and their arguments, the mapped enable
 * check, the EventWrite family as a consumer sees it, EventSetInformation,
 * activity IDs, and fork().  Sessions are started and read through the raw
 * ABI, so that only the provider side goes through libetw.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "etw_raw.h"
#include "windows.h"
#include "evntprov.h"
#include "evntrace.h"

#define LIBETW_TEST_TAG "libetw-prov"
#include "libetw_selftest.h"

/* The extended item of @type in @r, or NULL. */
static const struct etw_ext_item *rec_ext(const struct rec *r, __u16 type)
{
	const struct etw_event_header *h = rec_hdr(r);
	const struct etw_ext_item *x = (const void *)(h + 1);

	if (!(h->flags & ETW_EVENT_FLAG_EXTENDED_INFO))
		return NULL;
	for (;;) {
		if (x->ext_type == type)
			return x;
		if (!(x->linkage & ETW_EXT_LINKAGE))
			return NULL;
		x = (const void *)((const char *)x + x->item_size);
	}
}

static const unsigned char *rec_payload(const struct rec *r, __u32 *len)
{
	const struct etw_event_header *h = rec_hdr(r);
	const unsigned char *p = (const void *)(h + 1);

	if (h->flags & ETW_EVENT_FLAG_EXTENDED_INFO) {
		const struct etw_ext_item *x = (const void *)p;

		for (;;) {
			p += x->item_size;
			if (!(x->linkage & ETW_EXT_LINKAGE))
				break;
			x = (const void *)p;
		}
	}
	*len = r->len - (__u32)(p - r->b);
	return p;
}

/* --- callback recorder ---------------------------------------------------- */

struct call {
	GUID source;
	ULONG code;
	UCHAR level;
	ULONGLONG any;
	ULONGLONG all;
	bool has_filter;
	EVENT_FILTER_DESCRIPTOR filter;
	unsigned char filter_data[256];
};

struct cb_log {
	pthread_mutex_t lock;
	int n;
	struct call calls[16];
	REGHANDLE *unregister_self;	/* unregister from the callback */
	ULONG unregister_result;
	int sleep_ms;			/* stay in the callback */
	int started;			/* __atomic */
	int finished;
};

static void NTAPI record_cb(LPCGUID src, ULONG code, UCHAR level,
			    ULONGLONG any, ULONGLONG all,
			    PEVENT_FILTER_DESCRIPTOR f, PVOID ctx)
{
	struct cb_log *log = ctx;
	struct call *c;

	__atomic_store_n(&log->started, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&log->lock);
	if (log->n < 16) {
		c = &log->calls[log->n++];
		c->source = *src;
		c->code = code;
		c->level = level;
		c->any = any;
		c->all = all;
		c->has_filter = f != NULL;
		if (f) {
			c->filter = *f;
			memcpy(c->filter_data, (void *)(uintptr_t)f->Ptr,
			       f->Size < 256 ? f->Size : 256);
		}
	}
	pthread_mutex_unlock(&log->lock);
	if (log->unregister_self)
		log->unregister_result = EventUnregister(*log->unregister_self);
	if (log->sleep_ms)
		usleep(log->sleep_ms * 1000);
	__atomic_store_n(&log->finished, 1, __ATOMIC_SEQ_CST);
}

static int calls(struct cb_log *log)
{
	int n;

	pthread_mutex_lock(&log->lock);
	n = log->n;
	pthread_mutex_unlock(&log->lock);
	return n;
}

/* A GUID no other test (or earlier run) uses. */
static void unique_guid(GUID *g, unsigned short n)
{
	static const GUID base = { 0, 0x1bd5, 0x4c6e,
				   { 0x9a, 0x17, 0x3e, 0x4f, 0, 0, 0, 0 } };

	*g = base;
	g->Data1 = (ULONG)getpid();
	g->Data2 = n;
}

static const GUID null_guid;
static const GUID source_guid = { 0x5043e5a1, 0x1, 0x2,
				  { 3, 4, 5, 6, 7, 8, 9, 10 } };

FIXTURE(prov) {
	struct ctl c;
	GUID guid;
	REGHANDLE h;
	struct cb_log log;
};

FIXTURE_SETUP(prov)
{
	memset(&self->log, 0, sizeof(self->log));
	pthread_mutex_init(&self->log.lock, NULL);
	unique_guid(&self->guid, 1);
	ASSERT_EQ(0, ctl_start(&self->c, "f", 0, 0));
	ASSERT_EQ(0, EventRegister(&self->guid, record_cb, &self->log,
				   &self->h));
}

FIXTURE_TEARDOWN(prov)
{
	EventUnregister(self->h);
	ctl_stop(&self->c);
}

/* --- registration and handles --------------------------------------------- */

TEST(register_null_provider_is_invalid_parameter)
{
	REGHANDLE h = 1;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventRegister(NULL, NULL, NULL, &h));
}

TEST(register_null_handle_is_invalid_parameter)
{
	GUID g;

	unique_guid(&g, 2);
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventRegister(&g, NULL, NULL, NULL));
}

TEST(register_twice_gives_two_handles)
{
	REGHANDLE a = 0, b = 0;
	GUID g;

	unique_guid(&g, 3);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &a));
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &b));
	EXPECT_NE(0, a);
	EXPECT_NE(0, b);
	EXPECT_NE(a, b);
	EXPECT_EQ(0, EventUnregister(a));
	EXPECT_EQ(0, EventUnregister(b));
}

TEST(no_callback_during_register_without_session)
{
	struct cb_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 4);
	ASSERT_EQ(0, EventRegister(&g, record_cb, &log, &h));
	usleep(100 * 1000);
	EXPECT_EQ(0, calls(&log));
	EXPECT_EQ(0, EventUnregister(h));
}

TEST(unregister_twice_then_invalid_handle)
{
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 5);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	EXPECT_EQ(0, EventUnregister(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, EventUnregister(h));
}

TEST(bad_handles_are_invalid_handle)
{
	static const REGHANDLE bad[] = {
		0, 1, 0x12345678, 0xffffffffffffffffULL, 0x10001,
	};
	EVENT_DESCRIPTOR d = { .Level = 4 };
	WCHAR s[] = { 'x', 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(ERROR_INVALID_HANDLE, EventUnregister(bad[i]));
		EXPECT_EQ(ERROR_INVALID_HANDLE,
			  EventWrite(bad[i], &d, 0, NULL));
		EXPECT_EQ(ERROR_INVALID_HANDLE,
			  EventWriteString(bad[i], 4, 0, s));
		EXPECT_EQ(ERROR_INVALID_HANDLE,
			  EventSetInformation(bad[i],
					      EventProviderBinaryTrackInfo,
					      NULL, 0));
		EXPECT_FALSE(EventEnabled(bad[i], &d));
		EXPECT_FALSE(EventProviderEnabled(bad[i], 0, 0));
	}
}

TEST(write_after_unregister_is_invalid_handle)
{
	EVENT_DESCRIPTOR d = { .Level = 4 };
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 6);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	ASSERT_EQ(0, EventUnregister(h));
	EXPECT_EQ(ERROR_INVALID_HANDLE, EventWrite(h, &d, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_HANDLE,
		  EventWriteTransfer(h, &d, NULL, NULL, 0, NULL));
	EXPECT_EQ(ERROR_INVALID_HANDLE,
		  EventWriteEx(h, &d, 0, 0, NULL, NULL, 0, NULL));
}

TEST(writes_without_session_succeed_and_are_disabled)
{
	EVENT_DESCRIPTOR d = { .Level = 4 };
	WCHAR s[] = { 'h', 'i', 0 };
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 7);
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	EXPECT_FALSE(EventEnabled(h, &d));
	EXPECT_FALSE(EventProviderEnabled(h, 0, 0));
	EXPECT_FALSE(EventProviderEnabled(h, 5, ~0ULL));
	EXPECT_EQ(0, EventWrite(h, &d, 0, NULL));
	EXPECT_EQ(0, EventWriteString(h, 4, 0, s));
	EXPECT_EQ(0, EventWriteTransfer(h, &d, NULL, NULL, 0, NULL));
	EXPECT_EQ(0, EventUnregister(h));
}

TEST(thousand_twenty_fifth_registration_fails)
{
	static REGHANDLE h[ETW_MAX_REGISTRATIONS];
	REGHANDLE extra;
	int i, n = 0;
	GUID g;

	unique_guid(&g, 8);
	for (i = 0; i < ETW_MAX_REGISTRATIONS; i++)
		if (!EventRegister(&g, NULL, NULL, &h[i]))
			n++;
	EXPECT_EQ(ETW_MAX_REGISTRATIONS, n);
	EXPECT_EQ(ERROR_NOT_ENOUGH_MEMORY,
		  EventRegister(&g, NULL, NULL, &extra));
	for (i = 0; i < n; i++)
		EventUnregister(h[i]);
	EXPECT_EQ(0, EventRegister(&g, NULL, NULL, &extra));
	EXPECT_EQ(0, EventUnregister(extra));
}

/* --- callbacks ------------------------------------------------------------ */

TEST_F(prov, enable_callback_arguments)
{
	struct enable_opts o = { .level = 4, .any = 0x30, .all = 0x10,
				 .timeout_ms = WAIT_MS,
				 .source = &source_guid };
	struct call *c = &self->log.calls[0];

	ASSERT_EQ(0, ctl_enable_opts(&self->c, &self->guid,
				     ETW_CONTROL_ENABLE, &o));
	ASSERT_EQ(1, calls(&self->log));
	EXPECT_EQ(0, memcmp(&c->source, &source_guid, sizeof(GUID)));
	EXPECT_EQ(EVENT_CONTROL_CODE_ENABLE_PROVIDER, c->code);
	EXPECT_EQ(4, c->level);
	EXPECT_EQ(0x30, c->any);
	EXPECT_EQ(0x10, c->all);
	EXPECT_FALSE(c->has_filter);
}

TEST_F(prov, session_level_zero_and_any_zero_are_all)
{
	struct call *c = &self->log.calls[0];

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				0, 0, 0));
	ASSERT_EQ(1, calls(&self->log));
	EXPECT_EQ(255, c->level);
	EXPECT_EQ(~0ULL, c->any);
}

TEST_F(prov, callbacks_follow_enable_capture_disable_in_order)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 1, 0));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				5, 3, 0));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid,
				ETW_CONTROL_CAPTURE_STATE, 0, 0, 0));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE,
				0, 0, 0));
	ASSERT_EQ(4, calls(&self->log));
	EXPECT_EQ(1, self->log.calls[0].code);
	EXPECT_EQ(4, self->log.calls[0].level);
	EXPECT_EQ(1, self->log.calls[1].code);
	EXPECT_EQ(5, self->log.calls[1].level);
	EXPECT_EQ(3, self->log.calls[1].any);
	EXPECT_EQ(2, self->log.calls[2].code);
	EXPECT_EQ(0, self->log.calls[3].code);
}

TEST_F(prov, filter_data_reaches_callback)
{
	struct {
		EVENT_FILTER_HEADER h;
		unsigned long long data;	/* keeps the size 8-aligned */
	} f = { .h = { .Id = 7, .Version = 1, .Size = sizeof(f) },
		.data = 0xfeedbeef };
	struct enable_opts o = { .level = 4, .timeout_ms = WAIT_MS,
				 .filter = &f, .filter_size = sizeof(f) };
	struct call *c = &self->log.calls[0];
	const EVENT_FILTER_HEADER *got = (const void *)c->filter_data;

	ASSERT_EQ(0, ctl_enable_opts(&self->c, &self->guid,
				     ETW_CONTROL_ENABLE, &o));
	ASSERT_EQ(1, calls(&self->log));
	ASSERT_TRUE(c->has_filter);
	EXPECT_EQ(EVENT_FILTER_TYPE_SCHEMATIZED, c->filter.Type);
	EXPECT_EQ(sizeof(f), c->filter.Size);
	EXPECT_EQ(7, got->Id);
	EXPECT_EQ(sizeof(f), got->Size);
	EXPECT_EQ(0, got->NextOffset);
	EXPECT_NE(0, got->InstanceId);
	EXPECT_EQ(0xfeedbeef, *(const unsigned long long *)(got + 1));
}

TEST_F(prov, register_after_enable_gets_callback_before_return)
{
	struct cb_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 9);
	ASSERT_EQ(0, ctl_enable(&self->c, &g, ETW_CONTROL_ENABLE, 3, 0x8, 0));
	ASSERT_EQ(0, EventRegister(&g, record_cb, &log, &h));
	ASSERT_EQ(1, calls(&log));
	EXPECT_EQ(0, memcmp(&log.calls[0].source, &null_guid, sizeof(GUID)));
	EXPECT_EQ(1, log.calls[0].code);
	EXPECT_EQ(3, log.calls[0].level);
	EXPECT_EQ(0x8, log.calls[0].any);
	EXPECT_TRUE(EventProviderEnabled(h, 3, 0x8));
	EXPECT_EQ(0, EventUnregister(h));
}

TEST_F(prov, no_callback_after_unregister)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(1, calls(&self->log));
	ASSERT_EQ(0, EventUnregister(self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				5, 0, 0));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE,
				0, 0, 0));
	usleep(100 * 1000);
	EXPECT_EQ(1, calls(&self->log));
}

TEST_F(prov, unregister_waits_for_running_callback)
{
	struct enable_opts o = { .level = 4 };	/* no timeout: async */

	self->log.sleep_ms = 300;
	ASSERT_EQ(0, ctl_enable_opts(&self->c, &self->guid,
				     ETW_CONTROL_ENABLE, &o));
	while (!__atomic_load_n(&self->log.started, __ATOMIC_SEQ_CST))
		usleep(1000);
	EXPECT_EQ(0, EventUnregister(self->h));
	EXPECT_EQ(1, __atomic_load_n(&self->log.finished, __ATOMIC_SEQ_CST));
}

TEST_F(prov, unregister_from_own_callback)
{
	self->log.unregister_self = &self->h;
	self->log.unregister_result = 99;
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(1, calls(&self->log));
	EXPECT_EQ(0, self->log.unregister_result);
	EXPECT_EQ(ERROR_INVALID_HANDLE, EventUnregister(self->h));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE,
				0, 0, 0));
	EXPECT_EQ(1, calls(&self->log));
}

/* --- the enable check ----------------------------------------------------- */

struct enabled_case {
	UCHAR level;
	ULONGLONG keyword;
	BOOLEAN want;
};

/* Session: level 4, MatchAny 0x30, MatchAll 0x10. */
static const struct enabled_case enabled_cases[] = {
	{ 0, 0, TRUE },		/* level 0 and keyword 0 always pass */
	{ 4, 0, TRUE },
	{ 5, 0, FALSE },	/* above the level */
	{ 0, 0x40, FALSE },	/* no MatchAny bit */
	{ 4, 0x10, TRUE },	/* MatchAny and MatchAll */
	{ 4, 0x20, FALSE },	/* MatchAny but not MatchAll */
	{ 4, 0x30, TRUE },
	{ 4, 0x50, TRUE },
	{ 5, 0x10, FALSE },
	{ 1, 0x1, FALSE },
};

TEST_F(prov, event_enabled_follows_predicate)
{
	unsigned int i;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0x30, 0x10));
	for (i = 0; i < ARRAY_SIZE(enabled_cases); i++) {
		const struct enabled_case *t = &enabled_cases[i];
		EVENT_DESCRIPTOR d = { .Level = t->level,
				       .Keyword = t->keyword };

		EXPECT_EQ(t->want, EventEnabled(self->h, &d)) {
			TH_LOG("level %u keyword %#llx", t->level,
			       (unsigned long long)t->keyword);
		}
		EXPECT_EQ(t->want, EventProviderEnabled(self->h, t->level,
							t->keyword));
	}
}

/* MatchAll bits do not stand in for a MatchAny bit. */
TEST_F(prov, event_enabled_needs_a_match_any_bit_besides_match_all)
{
	EVENT_DESCRIPTOR only_all = { .Level = 4, .Keyword = 0x10 };
	EVENT_DESCRIPTOR both = { .Level = 4, .Keyword = 0x11 };

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0x3, 0x10));
	EXPECT_FALSE(EventEnabled(self->h, &only_all));
	EXPECT_FALSE(EventProviderEnabled(self->h, 4, 0x10));
	EXPECT_TRUE(EventEnabled(self->h, &both));
	EXPECT_TRUE(EventProviderEnabled(self->h, 4, 0x11));
}

TEST_F(prov, event_enabled_false_after_disable)
{
	EVENT_DESCRIPTOR d = { .Level = 1 };

	EXPECT_FALSE(EventEnabled(self->h, &d));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_TRUE(EventEnabled(self->h, &d));
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_DISABLE,
				0, 0, 0));
	EXPECT_FALSE(EventEnabled(self->h, &d));
}

TEST_F(prov, event_enabled_null_descriptor_is_false)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_FALSE(EventEnabled(self->h, NULL));
}

/*
 * The inline check of evntprov.h reads the word of a handle's table slot;
 * handles that share the slot of an enabled registration must still be
 * FALSE, through the inline check and through the library function.
 */
TEST_F(prov, handles_sharing_an_enabled_slot_are_false)
{
	const REGHANDLE alias[] = {
		self->h + (1ULL << 16),			/* a later incarnation */
		self->h + ETW_REGISTRATION_SLOTS,	/* past the table */
		self->h | (1ULL << 63),			/* a logger handle */
	};
	EVENT_DESCRIPTOR d = { .Level = 1 };
	unsigned int i;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_TRUE(EventEnabled(self->h, &d));
	for (i = 0; i < ARRAY_SIZE(alias); i++) {
		EXPECT_FALSE(EventEnabled(alias[i], &d));
		EXPECT_FALSE((EventEnabled)(alias[i], &d));
		EXPECT_FALSE(EventProviderEnabled(alias[i], 1, 0));
		EXPECT_FALSE((EventProviderEnabled)(alias[i], 1, 0));
	}
}

/* --- writing -------------------------------------------------------------- */

TEST_F(prov, event_write_reaches_consumer)
{
	EVENT_DESCRIPTOR d;
	EVENT_DATA_DESCRIPTOR data[2];
	static struct rec r[REC_MAX];
	const struct etw_event_header *h;
	const unsigned char *p;
	GUID act = { 0xac7, 1, 2, { 1 } };
	__u32 len;

	EventDescCreate(&d, 42, 3, 16, 4, 9, 11, 0x20);
	EventDataDescCreate(&data[0], "abc", 3);
	EventDataDescCreate(&data[1], "defg", 4);
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &act));
	ASSERT_EQ(0, EventWrite(self->h, &d, 2, data));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	h = rec_hdr(&r[0]);
	EXPECT_EQ(42, h->descriptor.id);
	EXPECT_EQ(3, h->descriptor.version);
	EXPECT_EQ(16, h->descriptor.channel);
	EXPECT_EQ(4, h->descriptor.level);
	EXPECT_EQ(9, h->descriptor.task);
	EXPECT_EQ(11, h->descriptor.opcode);
	EXPECT_EQ(0x20, h->descriptor.keyword);
	EXPECT_EQ(getpid(), h->process_id);
	EXPECT_EQ(0, memcmp(&h->activity_id, &act, sizeof(act)));
	EXPECT_EQ(0, h->flags & ETW_EVENT_FLAG_EXTENDED_INFO);
	p = rec_payload(&r[0], &len);
	ASSERT_EQ(7, len);
	EXPECT_EQ(0, memcmp(p, "abcdefg", 7));
}

/* Level 5 is above the session's 4: only the level-4 event arrives. */
TEST_F(prov, disabled_event_is_not_written)
{
	EVENT_DESCRIPTOR off = { .Id = 1, .Level = 5 };
	EVENT_DESCRIPTOR on = { .Id = 2, .Level = 4 };
	static struct rec r[REC_MAX];

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(0, EventWrite(self->h, &off, 0, NULL));
	EXPECT_EQ(0, EventWrite(self->h, &on, 0, NULL));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(2, rec_hdr(&r[0])->descriptor.id);
	EXPECT_EQ(4, rec_hdr(&r[0])->descriptor.level);
}

TEST_F(prov, write_transfer_carries_both_activity_ids)
{
	EVENT_DESCRIPTOR d = { .Id = 2, .Level = 4 };
	GUID act = { 0xa, 1, 1, { 1 } }, rel = { 0xb, 2, 2, { 2 } };
	static struct rec r[REC_MAX];
	const struct etw_ext_item *x;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventWriteTransfer(self->h, &d, &act, &rel, 0, NULL));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(0, memcmp(&rec_hdr(&r[0])->activity_id, &act, sizeof(act)));
	x = rec_ext(&r[0], ETW_EXT_RELATED_ACTIVITYID);
	ASSERT_NE(NULL, x);
	EXPECT_EQ(sizeof(GUID), x->data_size);
	EXPECT_EQ(0, memcmp(x + 1, &rel, sizeof(rel)));
}

TEST_F(prov, write_transfer_null_activity_is_threads)
{
	EVENT_DESCRIPTOR d = { .Id = 3, .Level = 4 };
	GUID act = { 0xc, 3, 3, { 3 } };
	static struct rec r[REC_MAX];

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &act));
	ASSERT_EQ(0, EventWriteTransfer(self->h, &d, NULL, NULL, 0, NULL));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(0, memcmp(&rec_hdr(&r[0])->activity_id, &act, sizeof(act)));
	EXPECT_EQ(NULL, rec_ext(&r[0], ETW_EXT_RELATED_ACTIVITYID));
}

TEST_F(prov, write_string_is_string_only_utf16)
{
	static const WCHAR s[] = { 'h', 'i', '!', 0 };
	static struct rec r[REC_MAX];
	const struct etw_event_header *h;
	const unsigned char *p;
	__u32 len;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventWriteString(self->h, 3, 0, s));
	ASSERT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	h = rec_hdr(&r[0]);
	EXPECT_TRUE(h->flags & ETW_EVENT_FLAG_STRING_ONLY);
	EXPECT_EQ(3, h->descriptor.level);
	EXPECT_EQ(0, h->descriptor.id);
	p = rec_payload(&r[0], &len);
	ASSERT_EQ(sizeof(s), len);
	EXPECT_EQ(0, memcmp(p, s, sizeof(s)));
}

TEST_F(prov, write_string_null_is_invalid_parameter)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventWriteString(self->h, 3, 0, NULL));
}

TEST_F(prov, write_ex_unknown_flag_is_invalid_parameter)
{
	EVENT_DESCRIPTOR d = { .Level = 4 };

	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventWriteEx(self->h, &d, 0, 0x4, NULL, NULL, 0, NULL));
}

TEST_F(prov, write_ex_filter_excludes_session)
{
	struct {
		EVENT_FILTER_HEADER h;
		unsigned long long data;
	} f = { .h = { .Id = 1, .Size = sizeof(f) } };
	struct enable_opts o = { .level = 4, .timeout_ms = WAIT_MS,
				 .filter = &f, .filter_size = sizeof(f) };
	EVENT_DESCRIPTOR d = { .Id = 5, .Level = 4 };
	static struct rec r[REC_MAX];
	const EVENT_FILTER_HEADER *got;
	struct ctl other;

	ASSERT_EQ(0, ctl_enable_opts(&self->c, &self->guid,
				     ETW_CONTROL_ENABLE, &o));
	ASSERT_EQ(1, calls(&self->log));
	got = (const void *)self->log.calls[0].filter_data;
	ASSERT_EQ(0, ctl_start(&other, "o", 0, 0));
	ASSERT_EQ(0, ctl_enable(&other, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(0, EventWriteEx(self->h, &d, got->InstanceId, 0, NULL, NULL,
				  0, NULL));
	EXPECT_EQ(0, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	EXPECT_EQ(1, ctl_collect(&other, &self->guid, r, REC_MAX));
	ctl_stop(&other);
}

struct write_error_case {
	const char *what;
	__u32 payload;		/* bytes of one payload descriptor */
	ULONG count;		/* descriptors (0: one of @payload bytes) */
	bool bad_ptr;
	ULONG want;
};

static const struct write_error_case write_errors[] = {
	{ "over 64 KiB", 0xffff, 0, false, ERROR_ARITHMETIC_OVERFLOW },
	{ "over the buffer", 5000, 0, false, ERROR_MORE_DATA },
	{ "129 descriptors", 1, 129, false, ERROR_INVALID_PARAMETER },
	{ "unmapped payload", 8, 0, true, ERROR_INVALID_PARAMETER },
};

TEST_F(prov, write_errors_map_to_win32)
{
	static EVENT_DATA_DESCRIPTOR data[129];
	static unsigned char payload[0x10000];
	EVENT_DESCRIPTOR d = { .Level = 4 };
	unsigned int i, j;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	for (i = 0; i < ARRAY_SIZE(write_errors); i++) {
		const struct write_error_case *t = &write_errors[i];
		ULONG n = t->count ? t->count : 1;

		for (j = 0; j < n; j++)
			EventDataDescCreate(&data[j],
					    t->bad_ptr ? (void *)8 : payload,
					    t->payload);
		EXPECT_EQ(t->want, EventWrite(self->h, &d, n, data)) {
			TH_LOG("%s", t->what);
		}
	}
}

TEST(write_without_free_buffer_is_not_enough_memory)
{
	static unsigned char payload[1000];
	EVENT_DATA_DESCRIPTOR data;
	EVENT_DESCRIPTOR d = { .Level = 4 };
	ULONG ret = 0;
	struct ctl c;
	REGHANDLE h;
	int i;
	GUID g;

	unique_guid(&g, 10);
	ASSERT_EQ(0, ctl_start(&c, "nobuf", 2, 0));
	ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	EventDataDescCreate(&data, payload, sizeof(payload));
	/* Nobody reads: two 4 KiB buffers fill after a few events. */
	for (i = 0; i < 64 && !ret; i++)
		ret = EventWrite(h, &d, 1, &data);
	EXPECT_EQ(ERROR_NOT_ENOUGH_MEMORY, ret);
	EventUnregister(h);
	ctl_stop(&c);
}

/*
 * Put /dev/null under every /dev/etw descriptor but @keep, so that
 * libetw's ioctl()s fail with ENOTTY while its mapping stays.
 */
static int hide_etw_files(int keep)
{
	char path[64], target[64];
	int fd, null = open("/dev/null", O_RDWR), n = 0;
	ssize_t len;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0 || fd == keep || fd == null)
			continue;
		target[len] = 0;
		if (strcmp(target, ETW_DEV))
			continue;
		if (dup2(null, fd) != fd)
			return -1;
		n++;
	}
	return n ? 0 : -1;
}

/*
 * Register @guid in a child, hide its /dev/etw files but @keep and run
 * @body there.  Return: @body's result, or -1 if the child did not get
 * that far or did not exit.
 */
static int run_with_hidden_device(const GUID *guid, int keep,
				  int (*body)(REGHANDLE h))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		REGHANDLE h;

		if (EventRegister(guid, NULL, NULL, &h) || hide_etw_files(keep))
			_exit(255);
		_exit(body(h));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

static int check_levels_without_device(REGHANDLE h)
{
	EVENT_DESCRIPTOR on = { .Level = 4 }, off = { .Level = 5 };
	WCHAR s[] = { 'x', 0 };

	if (!EventEnabled(h, &on) || EventEnabled(h, &off))
		return 1;
	if (EventWrite(h, &off, 0, NULL) || EventWriteString(h, 5, 0, s))
		return 2;
	/* The enabled path does make the one ioctl. */
	return EventWrite(h, &on, 0, NULL) == ERROR_INVALID_PARAMETER ? 0 : 3;
}

TEST_F(prov, enable_check_and_disabled_write_make_no_system_call)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(0, run_with_hidden_device(&self->guid, self->c.fd,
					    check_levels_without_device));
}

/* Enabled with MatchAny 0x3 and MatchAll 0x1. */
static int check_keywords_without_device(REGHANDLE h)
{
	static const struct {
		ULONGLONG keyword;
		bool taken;
	} cases[] = {
		{ 0x1, true },		/* in MatchAny and all of MatchAll */
		{ 0x0, true },		/* keyword 0 always passes */
		{ 0x2, false },		/* in MatchAny, lacks MatchAll */
		{ 0x4, false },		/* not in MatchAny */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EVENT_DESCRIPTOR d = { .Level = 4, .Keyword = cases[i].keyword };
		/* Only the ioctl on a hidden file fails. */
		ULONG want = cases[i].taken ? ERROR_INVALID_PARAMETER :
					      ERROR_SUCCESS;

		if (EventWrite(h, &d, 0, NULL) != want)
			return 10 + i;
	}
	return 0;
}

/* Keywords, like levels, are tested before the system call. */
TEST_F(prov, keyword_filtered_write_makes_no_system_call)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0x3, 0x1));
	EXPECT_EQ(0, run_with_hidden_device(&self->guid, self->c.fd,
					    check_keywords_without_device));
}

/* --- EventSetInformation -------------------------------------------------- */

struct info_case {
	int cls;
	ULONG len;
	ULONG want;
};

static const struct info_case info_cases[] = {
	{ EventProviderBinaryTrackInfo, 0, ERROR_SUCCESS },
	{ EventProviderBinaryTrackInfo, 4, ERROR_INVALID_PARAMETER },
	{ EventProviderSetReserved1, 4, ERROR_NOT_SUPPORTED },
	{ EventProviderUseDescriptorType, 1, ERROR_SUCCESS },
	{ EventProviderUseDescriptorType, 4, ERROR_INVALID_PARAMETER },
	{ EventProviderUseDescriptorType, 0, ERROR_INVALID_PARAMETER },
	{ EventProviderSetReserved2, 4, ERROR_INVALID_PARAMETER },
	{ MaxEventInfo, 4, ERROR_NOT_SUPPORTED },
	{ 99, 4, ERROR_NOT_SUPPORTED },
};

TEST_F(prov, set_information_by_class)
{
	unsigned char buf[8] = { 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(info_cases); i++) {
		const struct info_case *t = &info_cases[i];

		EXPECT_EQ(t->want, EventSetInformation(self->h, t->cls, buf,
						       t->len)) {
			TH_LOG("class %d length %u", t->cls, t->len);
		}
	}
}

struct traits_case {
	const char *what;
	unsigned char blob[40];
	ULONG size;		/* TraitsSize stored in the blob */
	ULONG len;		/* InformationLength */
	ULONG want;
};

/* A group trait is 2 bytes of size 19, type 1 and the 16-byte GUID. */
static const struct traits_case traits_cases[] = {
	{ "name and group", { 0, 0, 'a', 'b', 0, 19, 0, 1,
			      1, 2, 3, 4, 5, 6, 7, 8,
			      9, 10, 11, 12, 13, 14, 15, 16 }, 24, 24, 0 },
	{ "name only", { 0, 0, 'a', 'b', 0 }, 5, 5, 0 },
	{ "empty name and group", { 0, 0, 0, 19, 0, 1,
				    1, 2, 3, 4, 5, 6, 7, 8,
				    9, 10, 11, 12, 13, 14, 15, 16 }, 22, 22, 0 },
	{ "name without NUL", { 0, 0, 'a', 'b' }, 4, 4, ERROR_FILE_CORRUPT },
	{ "trait of size 0", { 0, 0, 'a', 0, 0, 0, 1 }, 7, 7,
	  ERROR_FILE_CORRUPT },
	{ "trait of size 2", { 0, 0, 'a', 0, 2, 0, 1 }, 7, 7,
	  ERROR_FILE_CORRUPT },
	{ "group trait without data", { 0, 0, 'a', 0, 3, 0, 1 }, 7, 7, 0 },
	{ "trait past the end", { 0, 0, 'a', 0, 9, 0, 1 }, 7, 7,
	  ERROR_FILE_CORRUPT },
	{ "custom trait", { 0, 0, 'a', 0, 5, 0, 7, 1, 2 }, 9, 9, 0 },
	{ "type 0, size 3", { 0, 0, 'a', 0, 3, 0, 0 }, 7, 7, 0 },
	{ "length one more", { 0, 0, 'a', 'b', 0 }, 5, 6, ERROR_FILE_CORRUPT },
	{ "length one less", { 0, 0, 'a', 'b', 0 }, 5, 4, ERROR_FILE_CORRUPT },
	{ "size past the buffer", { 0, 0, 'a', 'b', 0 }, 6, 5,
	  ERROR_FILE_CORRUPT },
};

TEST(set_traits_validates_like_windows)
{
	unsigned int i;
	REGHANDLE h;
	GUID g;

	unique_guid(&g, 11);
	for (i = 0; i < ARRAY_SIZE(traits_cases); i++) {
		const struct traits_case *t = &traits_cases[i];
		unsigned char blob[40];

		memcpy(blob, t->blob, sizeof(blob));
		blob[0] = (unsigned char)t->size;
		blob[1] = (unsigned char)(t->size >> 8);
		ASSERT_EQ(0, EventRegister(&g, NULL, NULL, &h));
		EXPECT_EQ(t->want,
			  EventSetInformation(h, EventProviderSetTraits, blob,
					      t->len)) {
			TH_LOG("%s", t->what);
		}
		EXPECT_EQ(0, EventUnregister(h));
	}
}

TEST_F(prov, set_traits_twice_is_gen_failure)
{
	unsigned char a[] = { 5, 0, 'a', 'b', 0 };
	unsigned char b[] = { 4, 0, 'c', 0 };

	EXPECT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits,
					 a, sizeof(a)));
	EXPECT_EQ(ERROR_GEN_FAILURE,
		  EventSetInformation(self->h, EventProviderSetTraits, a,
				      sizeof(a)));
	EXPECT_EQ(ERROR_GEN_FAILURE,
		  EventSetInformation(self->h, EventProviderSetTraits, b,
				      sizeof(b)));
}

TEST_F(prov, joining_anothers_group_is_access_denied)
{
	unsigned char t[] = { 24, 0, 'a', 'b', 0, 19, 0, 1,
			      0x9e, 2, 3, 4, 5, 6, 7, 8,
			      9, 10, 11, 12, 13, 14, 15, 16 };
	pid_t pid;

	t[8] = (unsigned char)getpid();		/* a group of this test */
	ASSERT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits, t,
					 sizeof(t)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		REGHANDLE h;

		if (setgid(1000) || setuid(1000) ||
		    EventRegister(&self->guid, NULL, NULL, &h))
			_exit(1);
		_exit(EventSetInformation(h, EventProviderSetTraits, t,
					  sizeof(t)) == ERROR_ACCESS_DENIED ?
		      0 : 2);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
}

TEST_F(prov, bad_traits_do_not_use_up_the_set)
{
	unsigned char bad[] = { 4, 0, 'a', 'b' };
	unsigned char good[] = { 5, 0, 'a', 'b', 0 };

	EXPECT_EQ(ERROR_FILE_CORRUPT,
		  EventSetInformation(self->h, EventProviderSetTraits, bad,
				      sizeof(bad)));
	EXPECT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits,
					 good, sizeof(good)));
}

/*
 * The blob is checked before the one set: a malformed blob after traits
 * were set is ERROR_FILE_CORRUPT, not ERROR_GEN_FAILURE
 * (Documentation/libetw.rst, "EventSetInformation").
 */
TEST_F(prov, bad_traits_after_a_set_are_file_corrupt)
{
	unsigned char good[] = { 5, 0, 'a', 'b', 0 };
	unsigned char size[] = { 6, 0, 'a', 'b', 0 };	/* TraitsSize 6 of 5 */
	unsigned char trait[] = { 6, 0, 'a', 0, 2, 0 };	/* a 2-byte trait */
	unsigned char name[] = { 4, 0, 'a', 'b' };	/* no NUL after the name */

	ASSERT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits,
					 good, sizeof(good)));
	EXPECT_EQ(ERROR_FILE_CORRUPT,
		  EventSetInformation(self->h, EventProviderSetTraits, size,
				      sizeof(size)));
	EXPECT_EQ(ERROR_FILE_CORRUPT,
		  EventSetInformation(self->h, EventProviderSetTraits, trait,
				      sizeof(trait)));
	EXPECT_EQ(ERROR_FILE_CORRUPT,
		  EventSetInformation(self->h, EventProviderSetTraits, name,
				      sizeof(name)));
}

TEST_F(prov, set_traits_null_is_invalid_parameter)
{
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventSetInformation(self->h, EventProviderSetTraits, NULL,
				      5));
}

/* A Type 1 descriptor is event metadata only once types are honoured. */
static int schema_items_after_write(struct __test_metadata *_metadata,
				    FIXTURE_DATA(prov) *self)
{
	EVENT_DESCRIPTOR d = { .Id = 6, .Level = 4 };
	static struct rec r[REC_MAX];
	EVENT_DATA_DESCRIPTOR data[2];
	__u32 len;

	EventDataDescCreate(&data[0], "meta", 4);
	data[0].Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
	EventDataDescCreate(&data[1], "pay", 3);
	EXPECT_EQ(0, EventWrite(self->h, &d, 2, data));
	if (ctl_collect(&self->c, &self->guid, r, REC_MAX) != 1)
		return -1;
	rec_payload(&r[0], &len);
	return rec_ext(&r[0], ETW_EXT_EVENT_SCHEMA_TL) && len == 3 ? 1 :
	       len == 7 ? 0 : -1;
}

TEST_F(prov, descriptor_types_ignored_by_default)
{
	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	EXPECT_EQ(0, schema_items_after_write(_metadata, self));
}

TEST_F(prov, use_descriptor_type_honours_types)
{
	BOOLEAN on = TRUE;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventSetInformation(self->h,
					 EventProviderUseDescriptorType, &on,
					 sizeof(on)));
	EXPECT_EQ(1, schema_items_after_write(_metadata, self));
}

TEST_F(prov, set_traits_honours_types)
{
	unsigned char t[] = { 5, 0, 'a', 'b', 0 };

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	ASSERT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits, t,
					 sizeof(t)));
	EXPECT_EQ(1, schema_items_after_write(_metadata, self));
}

/* --- activity IDs --------------------------------------------------------- */

TEST(activity_id_starts_null_and_is_set)
{
	GUID id, set = { 1, 2, 3, { 4 } };

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &id));
	EXPECT_EQ(0, memcmp(&id, &null_guid, sizeof(id)));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &set));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &id));
	EXPECT_EQ(0, memcmp(&id, &set, sizeof(id)));
}

TEST(activity_create_leaves_thread_id_alone)
{
	GUID set = { 1, 2, 3, { 4 } }, a, b, now;

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &set));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &a));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &b));
	EXPECT_NE(0, memcmp(&a, &b, sizeof(a)));
	EXPECT_NE(0, memcmp(&a, &null_guid, sizeof(a)));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &now));
	EXPECT_EQ(0, memcmp(&now, &set, sizeof(now)));
}

TEST(activity_get_set_swaps)
{
	GUID one = { 1, 0, 0, { 0 } }, two = { 2, 0, 0, { 0 } }, x;

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &one));
	x = two;
	ASSERT_EQ(0,
		  EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_SET_ID, &x));
	EXPECT_EQ(0, memcmp(&x, &one, sizeof(x)));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &x));
	EXPECT_EQ(0, memcmp(&x, &two, sizeof(x)));
}

TEST(activity_create_set_returns_old_and_sets_new)
{
	GUID one = { 1, 0, 0, { 0 } }, x, now;

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &one));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_SET_ID,
					    &x));
	EXPECT_EQ(0, memcmp(&x, &one, sizeof(x)));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &now));
	EXPECT_NE(0, memcmp(&now, &one, sizeof(now)));
	EXPECT_NE(0, memcmp(&now, &null_guid, sizeof(now)));
}

TEST(activity_bad_arguments_are_invalid_parameter)
{
	GUID x;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventActivityIdControl(0, &x));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EventActivityIdControl(6, &x));
	EXPECT_EQ(ERROR_INVALID_PARAMETER,
		  EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, NULL));
}

#define ACT_THREADS	4
#define ACT_PER_THREAD	256

struct act_thread {
	GUID set;
	GUID seen;
	GUID created[ACT_PER_THREAD];
};

static void *act_worker(void *arg)
{
	struct act_thread *t = arg;
	int i;

	EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &t->set);
	for (i = 0; i < ACT_PER_THREAD; i++)
		EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID,
				       &t->created[i]);
	EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &t->seen);
	return NULL;
}

static int guid_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(GUID));
}

TEST(activity_ids_are_per_thread_and_unique_across_threads)
{
	static struct act_thread t[ACT_THREADS];
	static GUID all[ACT_THREADS * ACT_PER_THREAD];
	pthread_t th[ACT_THREADS];
	GUID mine = { 0x77, 0, 0, { 0 } }, now;
	int i, dups = 0;

	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_SET_ID, &mine));
	for (i = 0; i < ACT_THREADS; i++) {
		t[i].set.Data1 = 100 + i;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, act_worker, &t[i]));
	}
	for (i = 0; i < ACT_THREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, memcmp(&t[i].seen, &t[i].set, sizeof(GUID)));
		memcpy(&all[i * ACT_PER_THREAD], t[i].created,
		       sizeof(t[i].created));
	}
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &now));
	EXPECT_EQ(0, memcmp(&now, &mine, sizeof(now)));
	qsort(all, ACT_THREADS * ACT_PER_THREAD, sizeof(GUID), guid_cmp);
	for (i = 1; i < ACT_THREADS * ACT_PER_THREAD; i++)
		dups += !memcmp(&all[i - 1], &all[i], sizeof(GUID));
	EXPECT_EQ(0, dups);
}

TEST(activity_ids_differ_in_fork_child)
{
	GUID parent, child;
	int pipefd[2];
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID,
					    &parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &child);
		_exit(write(pipefd[1], &child, sizeof(child)) != sizeof(child));
	}
	ASSERT_EQ(0, EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID,
					    &parent));
	ASSERT_EQ(sizeof(child), read(pipefd[0], &child, sizeof(child)));
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_NE(0, memcmp(&parent, &child, 8));
}

/* --- GetLastError --------------------------------------------------------- */

static void *last_error_worker(void *arg)
{
	*(DWORD *)arg = GetLastError();
	SetLastError(77);
	return NULL;
}

TEST(last_error_is_per_thread)
{
	DWORD seen = 1;
	pthread_t t;

	SetLastError(1234);
	ASSERT_EQ(0, pthread_create(&t, NULL, last_error_worker, &seen));
	pthread_join(t, NULL);
	EXPECT_EQ(0, seen);
	EXPECT_EQ(1234, GetLastError());
}

/* --- processes ------------------------------------------------------------ */

TEST_F(prov, fork_child_cannot_use_parent_handle)
{
	EVENT_DESCRIPTOR d = { .Id = 8, .Level = 4 };
	static struct rec r[REC_MAX];
	pid_t pid;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int bad = 0;

		bad |= EventWrite(self->h, &d, 0, NULL) != ERROR_INVALID_HANDLE;
		bad |= EventEnabled(self->h, &d) != FALSE;
		bad |= (EventEnabled)(self->h, &d) != FALSE;
		bad |= EventUnregister(self->h) != ERROR_INVALID_HANDLE;
		_exit(bad);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(0, EventWrite(self->h, &d, 0, NULL));
	EXPECT_EQ(1, ctl_collect(&self->c, &self->guid, r, REC_MAX));
}

/* Registrations of @guid made by process @pid, as the kernel lists them. */
static int registrations_of(const GUID *guid, pid_t pid)
{
	static struct etw_provider_info info[256];
	struct etw_list_providers_args a = {
		.size = sizeof(a), .count = 256, .info_ptr = (uintptr_t)info,
		.info_size = sizeof(info[0]),
	};
	int fd = etw_open(), n = 0;
	__u32 i;

	if (fd < 0)
		return -1;
	if (etw_ioctl(fd, ETW_IOC_LIST_PROVIDERS, &a)) {
		close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i < a.count && i < 256; i++)
		n += !memcmp(&info[i].guid, guid, sizeof(*guid)) &&
		     info[i].pid == (__u32)pid;
	return n;
}

/*
 * exec closes the process's /dev/etw file (O_CLOEXEC), which ends its
 * registrations; the new program starts with none.
 */
TEST(exec_ends_registrations)
{
	int ready[2], go[2], n = -1, tries;
	REGHANDLE h;
	GUID guid;
	pid_t pid;
	char c;

	unique_guid(&guid, 9);
	/* @ready's write end closes at exec: EOF tells the parent. */
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (EventRegister(&guid, NULL, NULL, &h) ||
		    write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(1);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1, registrations_of(&guid, pid));
	ASSERT_EQ(1, write(go[1], "x", 1));
	EXPECT_EQ(0, read(ready[0], &c, 1));	/* exec'd */
	/* The file's release may run just after exec returns. */
	for (tries = 0; tries < 200; tries++) {
		n = registrations_of(&guid, pid);
		if (n <= 0)
			break;
		usleep(10000);
	}
	EXPECT_EQ(0, n);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(ready[0]);
	close(go[0]);
	close(go[1]);
}

TEST_F(prov, fork_child_registers_its_own)
{
	EVENT_DESCRIPTOR d = { .Id = 9, .Level = 4 };
	static struct rec r[REC_MAX];
	int i, from_child = 0;
	pid_t pid;

	ASSERT_EQ(0, ctl_enable(&self->c, &self->guid, ETW_CONTROL_ENABLE,
				4, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct cb_log log = { .lock = PTHREAD_MUTEX_INITIALIZER };
		REGHANDLE h;

		if (EventRegister(&self->guid, record_cb, &log, &h))
			_exit(1);
		/* Registered while enabled: the callback already ran. */
		if (calls(&log) != 1 || !EventEnabled(h, &d))
			_exit(2);
		_exit(EventWrite(h, &d, 0, NULL) ? 3 : 0);
	}
	EXPECT_EQ(0, etw_wait_child(pid));
	EXPECT_EQ(0, EventWrite(self->h, &d, 0, NULL));
	ASSERT_EQ(2, ctl_collect(&self->c, &self->guid, r, REC_MAX));
	for (i = 0; i < 2; i++)
		from_child += rec_hdr(&r[i])->process_id == (__u32)pid;
	EXPECT_EQ(1, from_child);
}

TEST(consumer_receives_other_process_events)
{
	static const char msg[] = "from another process";
	static struct rec r[REC_MAX];
	int go[2], done[2];
	EVENT_DATA_DESCRIPTOR data;
	const unsigned char *p;
	struct ctl c;
	__u32 len;
	pid_t pid;
	char x;
	GUID g;

	unique_guid(&g, 12);
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	/* The child is a separate provider process, with its own file. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		EVENT_DESCRIPTOR d = { .Id = 10, .Level = 2 };
		REGHANDLE h;

		if (EventRegister(&g, NULL, NULL, &h) ||
		    write(done[1], "r", 1) != 1 || read(go[0], &x, 1) != 1)
			_exit(1);
		EventDataDescCreate(&data, msg, sizeof(msg));
		_exit(EventWrite(h, &d, 1, &data) ||
		      write(done[1], "w", 1) != 1);
	}
	ASSERT_EQ(1, read(done[0], &x, 1));
	ASSERT_EQ(0, ctl_start(&c, "xproc", 0, 0));
	ASSERT_EQ(0, ctl_enable(&c, &g, ETW_CONTROL_ENABLE, 4, 0, 0));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &x, 1));
	ASSERT_EQ(1, ctl_collect(&c, &g, r, REC_MAX));
	EXPECT_EQ((__u32)pid, rec_hdr(&r[0])->process_id);
	p = rec_payload(&r[0], &len);
	ASSERT_EQ(sizeof(msg), len);
	EXPECT_EQ(0, memcmp(p, msg, sizeof(msg)));
	EXPECT_EQ(0, etw_wait_child(pid));
	ctl_stop(&c);
}

TEST_HARNESS_MAIN
