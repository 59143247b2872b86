// SPDX-License-Identifier: GPL-2.0
/*
 * libetw's EnumerateTraceGuidsEx, EnumerateTraceGuids, TraceQueryInformation
 * and TraceSetInformation over /dev/etw: the layouts Windows documents
 * (TRACE_GUID_INFO, TRACE_PROVIDER_INSTANCE_INFO, TRACE_ENABLE_INFO, the
 * group pseudo-struct), the buffer-size protocol and the Win32 codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysinfo.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "etw_raw.h"

#define PROPS_TAIL	1024

struct props {
	EVENT_TRACE_PROPERTIES p;
	char tail[PROPS_TAIL];
};

static void props_init(struct props *b)
{
	memset(b, 0, sizeof(*b));
	b->p.Wnode.BufferSize = sizeof(*b);
	b->p.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	b->p.Wnode.ClientContext = 1;
	b->p.BufferSize = 4;
	b->p.LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
	b->p.LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
}

static ULONG start(const char *tag, CONTROLTRACE_ID *h)
{
	char name[64];
	struct props b;

	props_init(&b);
	snprintf(name, sizeof(name), "enum-%s-%d", tag, getpid());
	return StartTraceA(h, name, &b.p);
}

static void stop(CONTROLTRACE_ID h)
{
	struct props b;

	props_init(&b);
	StopTraceA(h, NULL, &b.p);
}

/* A GUID of this test: @n in Data2, the pid in Data1. */
static GUID test_guid(unsigned int n)
{
	GUID g = { 0xe0e00000, 0, 0x4e4e,
		   { 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 } };

	g.Data1 |= (ULONG)getpid() & 0xfffff;
	g.Data2 = (USHORT)n;
	return g;
}

/* The answer of @cls for @in, malloc'ed; NULL on any error. */
static void *query(TRACE_QUERY_INFO_CLASS cls, const GUID *in, ULONG *len,
		   ULONG *err)
{
	ULONG need = 0;
	void *buf;

	*err = EnumerateTraceGuidsEx(cls, (PVOID)in, in ? sizeof(*in) : 0,
				     NULL, 0, &need);
	if (*err != ERROR_INSUFFICIENT_BUFFER)
		return NULL;
	buf = malloc(need);
	*err = EnumerateTraceGuidsEx(cls, (PVOID)in, in ? sizeof(*in) : 0,
				     buf, need, len);
	if (*err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool guid_in(const void *buf, ULONG len, const GUID *g)
{
	const GUID *v = buf;
	ULONG i;

	for (i = 0; i < len / sizeof(GUID); i++)
		if (IsEqualGUID(&v[i], g))
			return true;
	return false;
}

FIXTURE(en) {
	GUID guid;
	REGHANDLE h;
	CONTROLTRACE_ID s;
};

FIXTURE_SETUP(en)
{
	self->guid = test_guid(1);
	ASSERT_EQ(0, EventRegister(&self->guid, NULL, NULL, &self->h));
	ASSERT_EQ(0, start("a", &self->s));
}

FIXTURE_TEARDOWN(en)
{
	stop(self->s);
	EventUnregister(self->h);
}

TEST_F(en, guid_list_has_registered_guid)
{
	ULONG len, err;
	void *buf = query(TraceGuidQueryList, NULL, &len, &err);

	ASSERT_EQ(ERROR_SUCCESS, err);
	EXPECT_EQ(0u, len % sizeof(GUID));
	EXPECT_TRUE(guid_in(buf, len, &self->guid));
	free(buf);
}

TEST_F(en, guid_process_list_has_own_guid)
{
	ULONG len, err;
	void *buf = query(TraceGuidQueryProcess, NULL, &len, &err);

	ASSERT_EQ(ERROR_SUCCESS, err);
	EXPECT_TRUE(guid_in(buf, len, &self->guid));
	free(buf);
}

/* Too small: ERROR_INSUFFICIENT_BUFFER, the size, the buffer untouched. */
TEST_F(en, list_too_small_leaves_buffer_alone)
{
	ULONG need = 0, len = 0;
	unsigned char *buf;

	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, NULL, 0,
					&need));
	ASSERT_LE(sizeof(GUID), need);
	buf = malloc(need);
	memset(buf, 0xa5, need);
	EXPECT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, buf,
					need - 1, &len));
	EXPECT_EQ(need, len);
	EXPECT_EQ(0xa5, buf[0]);
	EXPECT_EQ(0xa5, buf[need - 2]);
	free(buf);
}

TEST_F(en, guid_info_two_instances_one_session)
{
	const TRACE_PROVIDER_INSTANCE_INFO *inst;
	const TRACE_ENABLE_INFO *e;
	const TRACE_GUID_INFO *gi;
	REGHANDLE h2;
	ULONG len, err, i;
	char *buf;

	ASSERT_EQ(0, EventRegister(&self->guid, NULL, NULL, &h2));
	ASSERT_EQ(0, EnableTraceEx2(self->s, &self->guid,
				    EVENT_CONTROL_CODE_ENABLE_PROVIDER, 4,
				    0x30, 0x10, 0, NULL));
	buf = query(TraceGuidQueryInfo, &self->guid, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	gi = (const void *)buf;
	ASSERT_EQ(2u, gi->InstanceCount);
	EXPECT_EQ(0u, gi->Reserved);
	EXPECT_EQ(sizeof(*gi) + 2 * (sizeof(*inst) + sizeof(*e)), len);
	inst = (const void *)(gi + 1);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(i ? 0u : sizeof(*inst) + sizeof(*e),
			  inst->NextOffset);
		EXPECT_EQ(1u, inst->EnableCount);
		EXPECT_EQ((ULONG)getpid(), inst->Pid);
		EXPECT_EQ(0u, inst->Flags);
		e = (const void *)(inst + 1);
		EXPECT_EQ(1u, e->IsEnabled);
		EXPECT_EQ(4, e->Level);
		EXPECT_EQ((USHORT)self->s, e->LoggerId);
		EXPECT_EQ(0u, e->EnableProperty);
		EXPECT_EQ(0x30u, e->MatchAnyKeyword);
		EXPECT_EQ(0x10u, e->MatchAllKeyword);
		inst = (const void *)((const char *)inst + sizeof(*inst) +
				      sizeof(*e));
	}
	free(buf);
	EventUnregister(h2);
}

/* Each session's own values, not the combined ones. */
TEST_F(en, guid_info_two_sessions)
{
	const TRACE_PROVIDER_INSTANCE_INFO *inst;
	const TRACE_ENABLE_INFO *e;
	CONTROLTRACE_ID s2;
	ULONG len, err, i, seen = 0;
	char *buf;

	ASSERT_EQ(0, start("b", &s2));
	ASSERT_EQ(0, EnableTraceEx2(self->s, &self->guid, 1, 2, 0x1, 0, 0,
				    NULL));
	ASSERT_EQ(0, EnableTraceEx2(s2, &self->guid, 1, 5, 0x2, 0, 0, NULL));
	buf = query(TraceGuidQueryInfo, &self->guid, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	inst = (const void *)(buf + sizeof(TRACE_GUID_INFO));
	ASSERT_EQ(2u, inst->EnableCount);
	e = (const void *)(inst + 1);
	for (i = 0; i < 2; i++) {
		if (e[i].LoggerId == (USHORT)self->s) {
			EXPECT_EQ(2, e[i].Level);
			EXPECT_EQ(0x1u, e[i].MatchAnyKeyword);
			seen |= 1;
		} else if (e[i].LoggerId == (USHORT)s2) {
			EXPECT_EQ(5, e[i].Level);
			EXPECT_EQ(0x2u, e[i].MatchAnyKeyword);
			seen |= 2;
		}
	}
	EXPECT_EQ(3u, seen);
	free(buf);
	stop(s2);
}

TEST_F(en, unknown_guid_is_guid_not_found)
{
	GUID g = test_guid(99);
	ULONG len = 0;

	EXPECT_EQ(ERROR_WMI_GUID_NOT_FOUND,
		  EnumerateTraceGuidsEx(TraceGuidQueryInfo, &g, sizeof(g),
					NULL, 0, &len));
	EXPECT_EQ(ERROR_WMI_GUID_NOT_FOUND,
		  EnumerateTraceGuidsEx(TraceGroupQueryInfo, &g, sizeof(g),
					NULL, 0, &len));
}

/* Enabled while nothing registered it: one PRE_ENABLE instance, pid 0. */
TEST_F(en, pre_enabled_guid)
{
	const TRACE_PROVIDER_INSTANCE_INFO *inst;
	const TRACE_ENABLE_INFO *e;
	GUID g = test_guid(2);
	ULONG len, err;
	char *buf;

	ASSERT_EQ(0, EnableTraceEx2(self->s, &g, 1, 3, 0x8, 0, 0, NULL));
	buf = query(TraceGuidQueryList, NULL, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	EXPECT_TRUE(guid_in(buf, len, &g));
	free(buf);
	buf = query(TraceGuidQueryInfo, &g, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	EXPECT_EQ(1u, ((const TRACE_GUID_INFO *)buf)->InstanceCount);
	inst = (const void *)(buf + sizeof(TRACE_GUID_INFO));
	EXPECT_EQ(TRACE_PROVIDER_FLAG_PRE_ENABLE, inst->Flags);
	EXPECT_EQ(0u, inst->Pid);
	EXPECT_EQ(0u, inst->NextOffset);
	ASSERT_EQ(1u, inst->EnableCount);
	e = (const void *)(inst + 1);
	EXPECT_EQ(3, e->Level);
	EXPECT_EQ(0x8u, e->MatchAnyKeyword);
	EXPECT_EQ((USHORT)self->s, e->LoggerId);
	free(buf);
	ASSERT_EQ(0, EnableTraceEx2(self->s, &g, 0, 0, 0, 0, 0, NULL));
	EXPECT_EQ(ERROR_WMI_GUID_NOT_FOUND,
		  EnumerateTraceGuidsEx(TraceGuidQueryInfo, &g, sizeof(g),
					NULL, 0, &len));
}

static ULONG WINAPI classic_cb(WMIDPREQUESTCODE code, PVOID ctx,
			       ULONG *size, PVOID buf)
{
	return 0;
}

TEST_F(en, classic_instance_is_legacy)
{
	const TRACE_PROVIDER_INSTANCE_INFO *inst;
	GUID g = test_guid(3);
	TRACEHANDLE reg;
	ULONG len, err;
	char *buf;

	ASSERT_EQ(0, RegisterTraceGuidsA(classic_cb, NULL, &g, 0, NULL, NULL,
					 NULL, &reg));
	buf = query(TraceGuidQueryInfo, &g, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	inst = (const void *)(buf + sizeof(TRACE_GUID_INFO));
	EXPECT_EQ(TRACE_PROVIDER_FLAG_LEGACY, inst->Flags);
	EXPECT_EQ(0u, inst->EnableCount);
	free(buf);
	UnregisterTraceGuids(reg);
}

TEST_F(en, group_list_and_info)
{
	/* Traits: size 24, name "g", group trait (19 bytes, type 1). */
	unsigned char t[24] = { 23, 0, 'g', 0, 19, 0, 1 };
	const TRACE_ENABLE_INFO *e;
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EVENT_ENABLE_PROPERTY_PROVIDER_GROUP,
	};
	GUID grp = test_guid(4);
	ULONG len, err, n;
	char *buf;

	memcpy(t + 7, &grp, sizeof(grp));
	ASSERT_EQ(0, EventSetInformation(self->h, EventProviderSetTraits, t,
					 23));
	buf = query(TraceGroupQueryList, NULL, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	EXPECT_TRUE(guid_in(buf, len, &grp));
	EXPECT_FALSE(guid_in(buf, len, &self->guid));
	free(buf);
	ASSERT_EQ(0, EnableTraceEx2(self->s, &grp, 1, 4, 0x7, 0, 0, &p));
	buf = query(TraceGroupQueryInfo, &grp, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	memcpy(&n, buf, sizeof(n));
	ASSERT_EQ(1u, n);
	e = (const void *)(buf + 8);
	EXPECT_EQ((USHORT)self->s, e->LoggerId);
	EXPECT_EQ(4, e->Level);
	EXPECT_EQ(0x7u, e->MatchAnyKeyword);
	EXPECT_EQ((ULONG)EVENT_ENABLE_PROPERTY_PROVIDER_GROUP,
		  e->EnableProperty);
	memcpy(&n, buf + 8 + sizeof(*e), sizeof(n));
	EXPECT_EQ(1u, n);
	EXPECT_EQ(8 + sizeof(*e) + 4 + sizeof(GUID), len);
	EXPECT_TRUE(IsEqualGUID(&self->guid,
				(const GUID *)(buf + 8 + sizeof(*e) + 4)));
	free(buf);
}

TEST(max_loggers_through_enumerate)
{
	ULONG v = 0, len = 0;

	EXPECT_EQ(ERROR_SUCCESS,
		  EnumerateTraceGuidsEx(TraceMaxLoggersQuery, NULL, 0, &v,
					sizeof(v), &len));
	EXPECT_EQ(64u, v);
	EXPECT_EQ(sizeof(v), len);
}

/* More registrations than one LIST_PROVIDERS page (4096) holds. */
#define PAGE_FILES	5
#define PAGE_PER_FILE	1000

TEST(guid_list_spans_pages)
{
	int fds[PAGE_FILES], f, k, found = 0;
	struct etw_register_args a;
	ULONG len, err, i;
	GUID *v;

	for (f = 0; f < PAGE_FILES; f++) {
		fds[f] = etw_open();
		ASSERT_LE(0, fds[f]);
		for (k = 0; k < PAGE_PER_FILE; k++) {
			GUID g = test_guid(0x100 + f);

			g.Data4[6] = (UCHAR)(k >> 8);
			g.Data4[7] = (UCHAR)k;
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			memcpy(&a.guid, &g, sizeof(g));
			ASSERT_EQ(0, etw_ioctl(fds[f], ETW_IOC_REGISTER, &a));
		}
	}
	v = query(TraceGuidQueryList, NULL, &len, &err);
	ASSERT_EQ(ERROR_SUCCESS, err);
	for (i = 0; i < len / sizeof(GUID); i++)
		found += (v[i].Data1 == test_guid(0).Data1 &&
			  v[i].Data2 >= 0x100 &&
			  v[i].Data2 < 0x100 + PAGE_FILES);
	EXPECT_EQ(PAGE_FILES * PAGE_PER_FILE, found);
	free(v);
	for (f = 0; f < PAGE_FILES; f++)
		close(fds[f]);
}

/*
 * Without privilege the kernel lists only the caller's own registrations
 * and no pre-enabled GUIDs; EnumerateTraceGuidsEx answers from that.
 */
static int unprivileged_view(const GUID *root_guid, const GUID *pre)
{
	GUID own = test_guid(7);
	ULONG len, err;
	REGHANDLE h;
	void *buf;

	if (setgid(1000) || setuid(1000))
		return 10;
	if (EventRegister(&own, NULL, NULL, &h))
		return 11;
	buf = query(TraceGuidQueryList, NULL, &len, &err);
	if (err)
		return 12;
	if (!guid_in(buf, len, &own))
		return 13;
	if (guid_in(buf, len, root_guid) || guid_in(buf, len, pre))
		return 14;
	free(buf);
	if (EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)root_guid,
				  sizeof(GUID), NULL, 0, &len) !=
	    ERROR_WMI_GUID_NOT_FOUND)
		return 15;
	return 0;
}

TEST_F(en, unprivileged_sees_only_its_own)
{
	GUID pre = test_guid(8);
	pid_t pid;

	ASSERT_EQ(0, EnableTraceEx2(self->s, &pre, 1, 3, 0, 0, 0, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unprivileged_view(&self->guid, &pre));
	EXPECT_EQ(0, etw_wait_child(pid));
}

/* --- argument errors, one row per rule ---------------------------------- */

struct enum_case {
	const char *what;
	TRACE_QUERY_INFO_CLASS cls;
	bool in;		/* pass a GUID */
	ULONG in_size;
	bool out;		/* pass a buffer */
	ULONG out_size;
	bool ret_len;
	ULONG want;
};

static const struct enum_case enum_cases[] = {
	{ "no ReturnLength", TraceGuidQueryList, false, 0, true, 64, false,
	  ERROR_INVALID_PARAMETER },
	{ "NULL buffer with a size", TraceGuidQueryList, false, 0, false, 64,
	  true, ERROR_INVALID_PARAMETER },
	{ "info without GUID", TraceGuidQueryInfo, false, 16, true, 64, true,
	  ERROR_INVALID_PARAMETER },
	{ "info with 15 bytes", TraceGuidQueryInfo, true, 15, true, 64, true,
	  ERROR_INVALID_PARAMETER },
	{ "info with 17 bytes", TraceGuidQueryInfo, true, 17, true, 64, true,
	  ERROR_INVALID_PARAMETER },
	{ "group info without GUID", TraceGroupQueryInfo, false, 16, true, 64,
	  true, ERROR_INVALID_PARAMETER },
	{ "stack tracing class", TraceStackTracingInfo, false, 0, true, 64,
	  true, ERROR_NOT_SUPPORTED },
	{ "disallow-list query", TraceDisallowListQuery, false, 0, true, 64,
	  true, ERROR_NOT_SUPPORTED },
	{ "class past the end", MaxTraceSetInfoClass, false, 0, true, 64, true,
	  ERROR_NOT_SUPPORTED },
	{ "max loggers into 2 bytes", TraceMaxLoggersQuery, false, 0, true, 2,
	  true, ERROR_INSUFFICIENT_BUFFER },
};

TEST(enumerate_argument_errors)
{
	unsigned char out[64];
	GUID g = test_guid(5);
	ULONG len;
	size_t i;

	for (i = 0; i < sizeof(enum_cases) / sizeof(enum_cases[0]); i++) {
		const struct enum_case *c = &enum_cases[i];

		EXPECT_EQ(c->want, EnumerateTraceGuidsEx(c->cls,
				c->in ? &g : NULL, c->in_size,
				c->out ? out : NULL, c->out_size,
				c->ret_len ? &len : NULL)) {
			TH_LOG("%s", c->what);
		}
	}
}

/* --- EnumerateTraceGuids ------------------------------------------------- */

TEST_F(en, enumerate_trace_guids_reports_session)
{
	TRACE_GUID_PROPERTIES *v, **pv;
	ULONG n = 0, cap, i, found = 0;
	GUID other = test_guid(6);
	REGHANDLE h2;

	ASSERT_EQ(0, EventRegister(&other, NULL, NULL, &h2));
	ASSERT_EQ(0, EnableTraceEx2(self->s, &self->guid, 1, 4, 0x1234, 0, 0,
				    NULL));
	cap = 1;
	v = calloc(cap, sizeof(*v));
	pv = calloc(cap, sizeof(*pv));
	pv[0] = v;
	ASSERT_EQ(ERROR_MORE_DATA, EnumerateTraceGuids(pv, cap, &n));
	ASSERT_LE(2u, n);
	cap = n + 16;
	v = realloc(v, cap * sizeof(*v));
	pv = realloc(pv, cap * sizeof(*pv));
	for (i = 0; i < cap; i++)
		pv[i] = &v[i];
	ASSERT_EQ(ERROR_SUCCESS, EnumerateTraceGuids(pv, cap, &n));
	for (i = 0; i < n; i++) {
		if (IsEqualGUID(&v[i].Guid, &self->guid)) {
			found++;
			EXPECT_TRUE(v[i].IsEnable);
			EXPECT_EQ((ULONG)self->s, v[i].LoggerId);
			EXPECT_EQ(4u, v[i].EnableLevel);
			EXPECT_EQ(0x1234u, v[i].EnableFlags);
			EXPECT_EQ(0u, v[i].GuidType);
		} else if (IsEqualGUID(&v[i].Guid, &other)) {
			found++;
			EXPECT_FALSE(v[i].IsEnable);
		}
	}
	EXPECT_EQ(2u, found);
	free(v);
	free(pv);
	EventUnregister(h2);
}

/*
 * The kernel hides global sessions from a caller that may not control
 * them, but not whether its provider is enabled (EventEnabled tells it):
 * EnumerateTraceGuids still reports the provider enabled, with the
 * combined level and keywords and no logger id.
 */
static int unprivileged_enumerate(const GUID *own)
{
	TRACE_GUID_PROPERTIES v[64], *pv[64];
	ULONG n = 0, i;
	REGHANDLE h;

	if (setgid(1000) || setuid(1000))
		return 10;
	if (EventRegister(own, NULL, NULL, &h))
		return 11;
	for (i = 0; i < 64; i++)
		pv[i] = &v[i];
	if (EnumerateTraceGuids(pv, 64, &n) != ERROR_SUCCESS)
		return 12;
	for (i = 0; i < n; i++) {
		if (!IsEqualGUID(&v[i].Guid, own))
			continue;
		if (!v[i].IsEnable)
			return 13;
		if (v[i].LoggerId != 0)
			return 14;
		if (v[i].EnableLevel != 4 || v[i].EnableFlags != 0x1234)
			return 15;
		return 0;
	}
	return 16;
}

TEST_F(en, enumerate_trace_guids_unprivileged_sees_enabled)
{
	GUID own = test_guid(9);
	pid_t pid;

	ASSERT_EQ(0, EnableTraceEx2(self->s, &own, 1, 4, 0x1234, 0, 0, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(unprivileged_enumerate(&own));
	EXPECT_EQ(0, etw_wait_child(pid));
}

TEST(enumerate_trace_guids_argument_errors)
{
	TRACE_GUID_PROPERTIES v;
	PTRACE_GUID_PROPERTIES pv[2] = { &v, NULL };
	ULONG n;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, EnumerateTraceGuids(NULL, 1, &n));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EnumerateTraceGuids(pv, 0, &n));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EnumerateTraceGuids(pv, 1, NULL));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, EnumerateTraceGuids(pv, 2, &n));
}

/* --- TraceQueryInformation ------------------------------------------------ */

struct query_case {
	const char *what;
	TRACE_INFO_CLASS cls;
	bool session;		/* pass the fixture's session handle */
	bool buf;
	ULONG size;
	ULONG want;
	ULONG want_len;		/* checked when non-zero */
};

static const struct query_case query_cases[] = {
	{ "version", TraceVersionInfo, false, true, 8, ERROR_SUCCESS, 8 },
	{ "version, session given", TraceVersionInfo, true, true, 8,
	  ERROR_INVALID_PARAMETER, 0 },
	{ "version into 4 bytes", TraceVersionInfo, false, true, 4,
	  ERROR_BAD_LENGTH, 8 },
	{ "max loggers", TraceMaxLoggersQuery, true, true, 4, ERROR_SUCCESS,
	  4 },
	{ "NULL buffer with a length", TraceMaxLoggersQuery, false, false, 4,
	  ERROR_INVALID_PARAMETER, 0 },
	{ "guid list into 0 bytes", TraceGuidQueryList, false, false, 0,
	  ERROR_BAD_LENGTH, 0 },
	{ "guid info needs a GUID", TraceGuidQueryInfo, false, true, 64,
	  ERROR_INVALID_PARAMETER, 0 },
	{ "group info needs a GUID", TraceGroupQueryInfo, false, true, 64,
	  ERROR_INVALID_PARAMETER, 0 },
	{ "stacks of a session not the kernel logger", TraceStackTracingInfo,
	  true, true, 64, ERROR_INVALID_PARAMETER, 0 },
	{ "system enable flags", TraceSystemTraceEnableFlagsInfo, true, true,
	  64, ERROR_NOT_SUPPORTED, 0 },
	{ "stream count, no session", TraceStreamCount, false, true, 4,
	  ERROR_INVALID_PARAMETER, 0 },
	{ "stream count into 2 bytes", TraceStreamCount, true, true, 2,
	  ERROR_BAD_LENGTH, 4 },
};

TEST_F(en, query_information_table)
{
	unsigned char out[64];
	size_t i;
	ULONG len;

	for (i = 0; i < sizeof(query_cases) / sizeof(query_cases[0]); i++) {
		const struct query_case *c = &query_cases[i];

		len = 0;
		EXPECT_EQ(c->want, TraceQueryInformation(
				c->session ? self->s : 0, c->cls,
				c->buf ? out : NULL, c->size, &len)) {
			TH_LOG("%s", c->what);
		}
		if (c->want_len)
			EXPECT_EQ(c->want_len, len) {
				TH_LOG("%s", c->what);
			}
	}
}

TEST(version_info_value)
{
	TRACE_VERSION_INFO v;

	memset(&v, 0xa5, sizeof(v));
	ASSERT_EQ(ERROR_SUCCESS, TraceQueryInformation(0, TraceVersionInfo,
						       &v, sizeof(v), NULL));
	EXPECT_EQ(1u, v.EtwTraceProcessingVersion);
	EXPECT_EQ(0u, v.Reserved);
}

TEST_F(en, query_guid_list_matches_enumerate)
{
	ULONG len, need = 0, err;
	void *a = query(TraceGuidQueryList, NULL, &len, &err), *b;

	ASSERT_EQ(ERROR_SUCCESS, err);
	b = malloc(len + 64);
	ASSERT_EQ(ERROR_SUCCESS, TraceQueryInformation(0, TraceGuidQueryList,
						       b, len + 64, &need));
	EXPECT_EQ(len, need);
	EXPECT_TRUE(guid_in(b, need, &self->guid));
	free(a);
	free(b);
}

/* One stream per possible CPU, or one without per-processor buffering. */
TEST_F(en, stream_count)
{
	CONTROLTRACE_ID one;
	struct props b;
	char name[64];
	ULONG v = 0;

	ASSERT_EQ(ERROR_SUCCESS, TraceQueryInformation(self->s,
			TraceStreamCount, &v, sizeof(v), NULL));
	EXPECT_EQ((ULONG)get_nprocs_conf(), v);
	props_init(&b);
	b.p.LogFileMode |= EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING;
	snprintf(name, sizeof(name), "enum-one-%d", getpid());
	ASSERT_EQ(0, StartTraceA(&one, name, &b.p));
	EXPECT_EQ(ERROR_SUCCESS, TraceQueryInformation(one, TraceStreamCount,
						       &v, sizeof(v), NULL));
	EXPECT_EQ(1u, v);
	stop(one);
}

/* --- TraceQueryInformation(TraceDisallowListQuery) ----------------------- */

TEST_F(en, disallow_list_round_trip)
{
	GUID list[2] = { test_guid(20), test_guid(21) }, out[4];
	ULONG len = 0;

	ASSERT_EQ(0, TraceSetInformation(self->s, TraceSetDisallowList, list,
					 sizeof(list)));
	memset(out, 0xa5, sizeof(out));
	ASSERT_EQ(ERROR_SUCCESS, TraceQueryInformation(self->s,
			TraceDisallowListQuery, out, sizeof(out), &len));
	EXPECT_EQ(sizeof(list), len);
	EXPECT_EQ(0, memcmp(list, out, sizeof(list)));
	/* Too small: the size it needs, nothing written. */
	memset(out, 0xa5, sizeof(out));
	EXPECT_EQ(ERROR_BAD_LENGTH, TraceQueryInformation(self->s,
			TraceDisallowListQuery, out, sizeof(GUID), &len));
	EXPECT_EQ(sizeof(list), len);
	EXPECT_EQ(0xa5a5a5a5u, out[0].Data1);
	/* Cleared: an empty answer. */
	ASSERT_EQ(0, TraceSetInformation(self->s, TraceSetDisallowList, NULL,
					 0));
	EXPECT_EQ(ERROR_SUCCESS, TraceQueryInformation(self->s,
			TraceDisallowListQuery, out, sizeof(out), &len));
	EXPECT_EQ(0u, len);
}

TEST(disallow_query_handles)
{
	CONTROLTRACE_ID s;
	GUID out[1];
	ULONG len;

	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceQueryInformation(0,
			TraceDisallowListQuery, out, sizeof(out), &len));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceQueryInformation(
			(CONTROLTRACE_ID)1 << 32, TraceDisallowListQuery, out,
			sizeof(out), &len));
	ASSERT_EQ(0, start("d", &s));
	stop(s);
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, TraceQueryInformation(s,
			TraceDisallowListQuery, out, sizeof(out), &len));
}

/* --- TraceSetInformation(TraceProviderBinaryTracking) --------------------- */

TEST_F(en, binary_tracking_table)
{
	BOOLEAN off = FALSE, on = TRUE;
	ULONG four = 0;

	EXPECT_EQ(ERROR_SUCCESS, TraceSetInformation(self->s,
			TraceProviderBinaryTracking, &off, sizeof(off)));
	EXPECT_EQ(ERROR_NOT_SUPPORTED, TraceSetInformation(self->s,
			TraceProviderBinaryTracking, &on, sizeof(on)));
	EXPECT_EQ(ERROR_BAD_LENGTH, TraceSetInformation(self->s,
			TraceProviderBinaryTracking, &four, sizeof(four)));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceSetInformation(self->s,
			TraceProviderBinaryTracking, NULL, 1));
	EXPECT_EQ(ERROR_INVALID_PARAMETER, TraceSetInformation(0,
			TraceProviderBinaryTracking, &off, sizeof(off)));
	EXPECT_EQ(ERROR_NOT_SUPPORTED, TraceSetInformation(self->s,
			TraceVersionInfo, &off, sizeof(off)));
}

TEST(binary_tracking_of_stopped_session)
{
	BOOLEAN off = FALSE;
	CONTROLTRACE_ID s;

	ASSERT_EQ(0, start("c", &s));
	stop(s);
	EXPECT_EQ(ERROR_WMI_INSTANCE_NOT_FOUND, TraceSetInformation(s,
			TraceProviderBinaryTracking, &off, sizeof(off)));
}

TEST_HARNESS_MAIN
