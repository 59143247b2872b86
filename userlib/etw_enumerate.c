// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_enumerate.c - EnumerateTraceGuidsEx, EnumerateTraceGuids,
 * TraceQueryInformation and TraceSetInformation.
 *
 * Everything ETW knows about providers comes from one
 * ETW_IOC_LIST_PROVIDERS listing (with ETW_LIST_PRE_ENABLED): one entry
 * per registration, with the sessions its events go to and what each
 * passed, plus one per GUID that sessions enable while nothing registered
 * it (TRACE_PROVIDER_FLAG_PRE_ENABLE).  The kernel shows a caller without
 * privilege only its own registrations, so such a caller enumerates
 * those.  The answers are built in a scratch buffer and copied out only
 * when they fit, so a too-small buffer is left untouched.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etw_lib.h"
#include "evntrace.h"

/* What TraceVersionInfo reports: libetw's first trace processing code. */
#define ETW_ENUM_PROCESSING_VERSION	1

_Static_assert(sizeof(TRACE_ENABLE_INFO) == 32, "TRACE_ENABLE_INFO");
_Static_assert(sizeof(TRACE_PROVIDER_INSTANCE_INFO) == 16,
	       "TRACE_PROVIDER_INSTANCE_INFO");
_Static_assert(sizeof(TRACE_GUID_INFO) == 8, "TRACE_GUID_INFO");
_Static_assert(sizeof(TRACE_GUID_PROPERTIES) == 36, "TRACE_GUID_PROPERTIES");
/* The kernel takes these as they are. */
_Static_assert(sizeof(CLASSIC_EVENT_ID) == sizeof(struct etw_classic_event_id),
	       "CLASSIC_EVENT_ID");
_Static_assert(sizeof(TRACE_PROFILE_INTERVAL) == 8, "TRACE_PROFILE_INTERVAL");

struct etw_enum_list {
	struct etw_provider_info *v;
	uint32_t n;
};

/* A growing answer; @oom once an allocation failed. */
struct etw_enum_out {
	uint8_t *p;
	size_t len;
	size_t cap;
	bool oom;
};

/* --- the listing ----------------------------------------------------- */

/* One page into @l's room up to @cap; *@got entries, *@total in all. */
static int etw_enum_page(struct etw_enum_list *l, uint32_t cap,
			 uint32_t *got, uint32_t *total)
{
	struct etw_list_providers_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.count = cap - l->n;
	a.info_ptr = (uintptr_t)(l->v + l->n);
	a.info_size = sizeof(*l->v);
	a.start = l->n;
	a.flags = ETW_LIST_PRE_ENABLED;
	ret = etw_dev_ioctl(ETW_IOC_LIST_PROVIDERS, &a);
	if (ret)
		return ret;
	l->n += a.count;
	*got = a.count;
	*total = a.total;
	return 0;
}

/*
 * The whole listing, a page (at most ETW_LIST_PROVIDERS_MAX entries) at a
 * time; providers registering meanwhile may be missed or, when others
 * go, listed twice (the answers dedupe).
 */
static int etw_enum_fetch(struct etw_enum_list *l)
{
	uint32_t cap = 0, got, total = 0;
	struct etw_provider_info *nv;
	int ret;

	l->v = NULL;
	l->n = 0;
	for (;;) {
		if (l->n == cap) {
			cap = (total > cap ? total : cap) + 16;
			nv = realloc(l->v, cap * sizeof(*nv));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			l->v = nv;
		}
		ret = etw_enum_page(l, cap, &got, &total);
		if (ret || !got || l->n >= total)
			break;
	}
	if (ret) {
		free(l->v);
		l->v = NULL;
	}
	return ret;
}

/* --- building answers ------------------------------------------------ */

/* Room for @len zeroed bytes at the end; NULL without memory. */
static void *etw_enum_add(struct etw_enum_out *o, size_t len)
{
	uint8_t *np;
	size_t cap;

	if (o->oom)
		return NULL;
	if (o->len + len > o->cap) {
		cap = (o->len + len) * 2;
		np = realloc(o->p, cap);
		if (!np) {
			o->oom = true;
			return NULL;
		}
		o->p = np;
		o->cap = cap;
	}
	memset(o->p + o->len, 0, len);
	o->len += len;
	return o->p + o->len - len;
}

static void etw_enum_add_guid(struct etw_enum_out *o,
			      const struct etw_guid *g)
{
	void *p = etw_enum_add(o, sizeof(*g));

	if (p)
		memcpy(p, g, sizeof(*g));
}

static bool etw_enum_guid_eq(const struct etw_guid *a, const void *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static bool etw_enum_guid_zero(const struct etw_guid *g)
{
	static const struct etw_guid zero;

	return etw_enum_guid_eq(&zero, g);
}

/* Is @g among the first @n GUIDs of @o (an array of GUIDs from @off). */
static bool etw_enum_has_guid(const struct etw_enum_out *o, size_t off,
			      const struct etw_guid *g)
{
	size_t i;

	for (i = off; i + sizeof(*g) <= o->len; i += sizeof(*g))
		if (etw_enum_guid_eq(g, o->p + i))
			return true;
	return false;
}

/* TraceGuidQueryList, TraceGuidQueryProcess (@pid), TraceGroupQueryList. */
static void etw_enum_guid_list(const struct etw_enum_list *l,
			       struct etw_enum_out *o, bool groups,
			       uint32_t pid)
{
	const struct etw_guid *g;
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		g = groups ? &l->v[i].group : &l->v[i].guid;
		if (pid && l->v[i].pid != pid)
			continue;
		if ((groups && etw_enum_guid_zero(g)) ||
		    etw_enum_has_guid(o, 0, g))
			continue;
		etw_enum_add_guid(o, g);
	}
}

static void etw_enum_enable_info(struct etw_enum_out *o,
				 const struct etw_provider_session *s)
{
	TRACE_ENABLE_INFO *e = etw_enum_add(o, sizeof(*e));

	if (!e)
		return;
	e->IsEnabled = 1;
	e->Level = s->level;
	e->LoggerId = (USHORT)s->logger_id;
	e->EnableProperty = s->properties;
	e->MatchAnyKeyword = s->match_any;
	e->MatchAllKeyword = s->match_all;
}

static void etw_enum_instance(struct etw_enum_out *o,
			      const struct etw_provider_info *p, bool last)
{
	TRACE_PROVIDER_INSTANCE_INFO *inst;
	size_t off = o->len;
	uint32_t i, n = p->session_count;

	if (n > ETW_PROVIDER_MAX_SESSIONS)
		n = ETW_PROVIDER_MAX_SESSIONS;
	if (!etw_enum_add(o, sizeof(*inst)))
		return;
	for (i = 0; i < n; i++)
		etw_enum_enable_info(o, &p->sessions[i]);
	if (o->oom)
		return;
	inst = (void *)(o->p + off);
	inst->NextOffset = last ? 0 : o->len - off;
	inst->EnableCount = n;
	inst->Pid = p->pid;
	if (p->flags & ETW_PROVIDER_PRE_ENABLED)
		inst->Flags = TRACE_PROVIDER_FLAG_PRE_ENABLE;
	else if (p->flags & ETW_REGISTER_CLASSIC)
		inst->Flags = TRACE_PROVIDER_FLAG_LEGACY;
}

/* TraceGuidQueryInfo: ERROR_WMI_GUID_NOT_FOUND when nothing matches. */
static ULONG etw_enum_guid_info(const struct etw_enum_list *l,
				struct etw_enum_out *o, const GUID *guid)
{
	TRACE_GUID_INFO *gi = etw_enum_add(o, sizeof(*gi));
	uint32_t i, n = 0, seen = 0;

	for (i = 0; i < l->n; i++)
		n += etw_enum_guid_eq(&l->v[i].guid, guid);
	if (!n)
		return ERROR_WMI_GUID_NOT_FOUND;
	if (gi)
		gi->InstanceCount = n;
	for (i = 0; i < l->n; i++)
		if (etw_enum_guid_eq(&l->v[i].guid, guid))
			etw_enum_instance(o, &l->v[i], ++seen == n);
	return ERROR_SUCCESS;
}

/* Did a session enable @p through its group; not yet in @o's infos. */
static bool etw_enum_new_group_session(const struct etw_enum_out *o,
				       size_t off,
				       const struct etw_provider_session *s)
{
	const TRACE_ENABLE_INFO *e;
	size_t i;

	if (!(s->properties & ETW_ENABLE_PROVIDER_GROUP))
		return false;
	for (i = off; i + sizeof(*e) <= o->len; i += sizeof(*e)) {
		e = (const void *)(o->p + i);
		if (e->LoggerId == s->logger_id)
			return false;
	}
	return true;
}

static void etw_enum_put_ulong(struct etw_enum_out *o, size_t off, size_t v)
{
	ULONG u = (ULONG)v;

	memcpy(o->p + off, &u, sizeof(u));
}

/*
 * TraceGroupQueryInfo: ULONG count, TRACE_ENABLE_INFO[count] at offset 8
 * (the SDK's pseudo-struct, C alignment), ULONG member count, the member
 * provider GUIDs.  The sessions are those that enabled the group, as seen
 * through its members (each once).
 */
static ULONG etw_enum_group_info(const struct etw_enum_list *l,
				 struct etw_enum_out *o, const GUID *group)
{
	const struct etw_provider_info *p;
	uint32_t i, j, members = 0;
	size_t infos, guids;

	etw_enum_add(o, 2 * sizeof(ULONG));
	infos = o->len;
	for (i = 0; i < l->n; i++) {
		p = &l->v[i];
		if (!etw_enum_guid_eq(&p->group, group))
			continue;
		members++;
		for (j = 0; j < p->session_count &&
			    j < ETW_PROVIDER_MAX_SESSIONS; j++)
			if (etw_enum_new_group_session(o, infos,
						       &p->sessions[j]))
				etw_enum_enable_info(o, &p->sessions[j]);
	}
	if (!members)
		return ERROR_WMI_GUID_NOT_FOUND;
	etw_enum_add(o, sizeof(ULONG));
	guids = o->len;
	for (i = 0; i < l->n; i++)
		if (etw_enum_guid_eq(&l->v[i].group, group) &&
		    !etw_enum_has_guid(o, guids, &l->v[i].guid))
			etw_enum_add_guid(o, &l->v[i].guid);
	if (o->oom)
		return ERROR_SUCCESS;
	etw_enum_put_ulong(o, 0, (guids - sizeof(ULONG) - infos) /
			   sizeof(TRACE_ENABLE_INFO));
	etw_enum_put_ulong(o, guids - sizeof(ULONG),
			   (o->len - guids) / sizeof(GUID));
	return ERROR_SUCCESS;
}

/* TraceGuidQueryInfo and TraceGroupQueryInfo take one GUID. */
static bool etw_enum_needs_guid(TRACE_QUERY_INFO_CLASS c)
{
	return c == TraceGuidQueryInfo || c == TraceGroupQueryInfo;
}

static bool etw_enum_is_provider_class(TRACE_QUERY_INFO_CLASS c)
{
	return c == TraceGuidQueryList || c == TraceGuidQueryInfo ||
	       c == TraceGuidQueryProcess || c == TraceGroupQueryList ||
	       c == TraceGroupQueryInfo;
}

/* Build the answer of a provider class into @o. */
static ULONG etw_enum_build(TRACE_QUERY_INFO_CLASS c, const GUID *in,
			    struct etw_enum_out *o)
{
	struct etw_enum_list l;
	ULONG err = ERROR_SUCCESS;
	int ret;

	ret = etw_enum_fetch(&l);
	if (ret)
		return etw_win32_from_errno(ret);
	switch (c) {
	case TraceGuidQueryList:
		etw_enum_guid_list(&l, o, false, 0);
		break;
	case TraceGuidQueryProcess:
		etw_enum_guid_list(&l, o, false, (uint32_t)getpid());
		break;
	case TraceGroupQueryList:
		etw_enum_guid_list(&l, o, true, 0);
		break;
	case TraceGuidQueryInfo:
		err = etw_enum_guid_info(&l, o, in);
		break;
	default:
		err = etw_enum_group_info(&l, o, in);
		break;
	}
	free(l.v);
	if (!err && o->oom)
		err = ERROR_NOT_ENOUGH_MEMORY;
	return err;
}

/*
 * Copy the answer out when it fits; *@ret_len is the size it needs
 * either way.  Return: 0 or @too_small.
 */
static ULONG etw_enum_copy(const struct etw_enum_out *o, void *buf,
			   ULONG size, ULONG *ret_len, ULONG too_small)
{
	if (ret_len)
		*ret_len = (ULONG)o->len;
	if (o->len > size)
		return too_small;
	if (o->len)
		memcpy(buf, o->p, o->len);
	return ERROR_SUCCESS;
}

/* TraceMaxLoggersQuery: the kernel's global session limit. */
static ULONG etw_enum_max_loggers(struct etw_enum_out *o)
{
	struct etw_info info = { .size = sizeof(info) };
	ULONG *v = etw_enum_add(o, sizeof(*v));
	ULONG err;

	if (!v)
		return ERROR_NOT_ENOUGH_MEMORY;
	err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_GET_INFO, &info));
	*v = info.max_global_sessions;
	return err;
}

/**
 * EnumerateTraceGuidsEx() - providers and groups ETW knows of
 * @TraceQueryInfoClass: TraceGuidQueryList, TraceGuidQueryInfo,
 *	TraceGuidQueryProcess, TraceGroupQueryList, TraceGroupQueryInfo or
 *	TraceMaxLoggersQuery
 * @InBuffer: the provider (group) GUID for the two Info classes; else
 *	ignored
 * @InBufferSize: sizeof(GUID) for the two Info classes
 * @OutBuffer: receives the answer; may be NULL when @OutBufferSize is 0
 * @OutBufferSize: bytes at @OutBuffer
 * @ReturnLength: out: bytes of the answer, also when it did not fit
 *
 * Context: any thread; reads /dev/etw.
 * Return: 0; ERROR_INSUFFICIENT_BUFFER when the answer is larger than
 * @OutBufferSize (nothing is written); ERROR_INVALID_PARAMETER for a NULL
 * @ReturnLength, a NULL @OutBuffer with a size, or an Info class without
 * a GUID; ERROR_WMI_GUID_NOT_FOUND for a GUID nothing registered or
 * enabled; ERROR_NOT_SUPPORTED for other classes; the kernel's errors.
 */
ULONG WMIAPI EnumerateTraceGuidsEx(TRACE_QUERY_INFO_CLASS TraceQueryInfoClass,
				   PVOID InBuffer, ULONG InBufferSize,
				   PVOID OutBuffer, ULONG OutBufferSize,
				   PULONG ReturnLength)
{
	struct etw_enum_out o = { 0 };
	GUID in = { 0 };
	ULONG err;

	if (!ReturnLength || (!OutBuffer && OutBufferSize))
		return ERROR_INVALID_PARAMETER;
	if (etw_enum_needs_guid(TraceQueryInfoClass)) {
		if (!InBuffer || InBufferSize != sizeof(GUID))
			return ERROR_INVALID_PARAMETER;
		memcpy(&in, InBuffer, sizeof(in));
	}
	if (TraceQueryInfoClass == TraceMaxLoggersQuery)
		err = etw_enum_max_loggers(&o);
	else if (etw_enum_is_provider_class(TraceQueryInfoClass))
		err = etw_enum_build(TraceQueryInfoClass, &in, &o);
	else
		return ERROR_NOT_SUPPORTED;
	if (!err)
		err = etw_enum_copy(&o, OutBuffer, OutBufferSize,
				    ReturnLength, ERROR_INSUFFICIENT_BUFFER);
	free(o.p);
	return err;
}

static void etw_enum_props(TRACE_GUID_PROPERTIES *t,
			   const struct etw_provider_info *p)
{
	const struct etw_provider_session *s = &p->sessions[0];

	memset(t, 0, sizeof(*t));
	memcpy(&t->Guid, &p->guid, sizeof(t->Guid));
	/* GuidType 0: a control GUID (not an event-class GUID). */
	if (p->session_count) {
		t->IsEnable = TRUE;
		t->LoggerId = s->logger_id;
		t->EnableLevel = s->level;
		t->EnableFlags = (ULONG)s->match_any;
	} else if (p->enabled) {
		/*
		 * Enabled by sessions the kernel does not show this caller
		 * (another user's global sessions): the combined state.
		 */
		t->IsEnable = TRUE;
		t->EnableLevel = p->level;
		t->EnableFlags = (ULONG)p->match_any;
	}
}

/**
 * EnumerateTraceGuids() - registered providers, the classic way
 * @GuidPropertiesArray: @PropertyArrayCount pointers to structs to fill
 * @PropertyArrayCount: entries of @GuidPropertiesArray
 * @GuidCount: out: the number of provider GUIDs
 *
 * One entry per GUID: IsEnable when a session enables any instance of it,
 * with the first such session's logger id, level and the low 32 bits of
 * its MatchAnyKeyword as EnableFlags.  A caller that may not control
 * global sessions is not shown them: for an instance only they enable it
 * gets LoggerId 0 and the instance's combined level and keywords.
 *
 * Context: any thread; reads /dev/etw.
 * Return: 0; ERROR_MORE_DATA when there are more GUIDs than entries (the
 * array is filled, *@GuidCount is the number of GUIDs);
 * ERROR_INVALID_PARAMETER for a NULL array, entry or @GuidCount, or a
 * count of 0; the kernel's errors.
 */
ULONG WMIAPI EnumerateTraceGuids(PTRACE_GUID_PROPERTIES *GuidPropertiesArray,
				 ULONG PropertyArrayCount, PULONG GuidCount)
{
	struct etw_enum_out o = { 0 };
	struct etw_enum_list l;
	uint32_t i, j, n = 0;
	int ret;

	if (!GuidPropertiesArray || !PropertyArrayCount || !GuidCount)
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < PropertyArrayCount; i++)
		if (!GuidPropertiesArray[i])
			return ERROR_INVALID_PARAMETER;
	ret = etw_enum_fetch(&l);
	if (ret)
		return etw_win32_from_errno(ret);
	for (i = 0; i < l.n; i++) {
		if (etw_enum_has_guid(&o, 0, &l.v[i].guid))
			continue;
		etw_enum_add_guid(&o, &l.v[i].guid);
		/* The first instance of the GUID that a session enables. */
		for (j = i; j < l.n; j++)
			if (etw_enum_guid_eq(&l.v[i].guid, &l.v[j].guid) &&
			    (l.v[j].session_count || l.v[j].enabled))
				break;
		if (n < PropertyArrayCount)
			etw_enum_props(GuidPropertiesArray[n],
				       &l.v[j < l.n ? j : i]);
		n++;
	}
	free(l.v);
	free(o.p);
	if (o.oom)
		return ERROR_NOT_ENOUGH_MEMORY;
	*GuidCount = n;
	return n > PropertyArrayCount ? ERROR_MORE_DATA : ERROR_SUCCESS;
}

/* TraceVersionInfo: needs TraceId 0, as Windows documents. */
static ULONG etw_enum_version(CONTROLTRACE_ID id, struct etw_enum_out *o)
{
	TRACE_VERSION_INFO *v;

	if (id)
		return ERROR_INVALID_PARAMETER;
	v = etw_enum_add(o, sizeof(*v));
	if (!v)
		return ERROR_NOT_ENOUGH_MEMORY;
	v->EtwTraceProcessingVersion = ETW_ENUM_PROCESSING_VERSION;
	return ERROR_SUCCESS;
}

static ULONG etw_enum_session_id(CONTROLTRACE_ID id, uint32_t *out)
{
	if (!id || id > UINT32_MAX)
		return ERROR_INVALID_PARAMETER;
	*out = (uint32_t)id;
	return ERROR_SUCCESS;
}

/* TraceDisallowListQuery: the session's disallow list, an array of GUIDs. */
static ULONG etw_enum_disallow_list(CONTROLTRACE_ID id,
				   struct etw_enum_out *o)
{
	struct etw_guid guids[ETW_MAX_DISALLOW];
	struct etw_disallow_args d = {
		.size = sizeof(d), .count = ETW_MAX_DISALLOW,
		.guids_ptr = (uintptr_t)guids,
	};
	ULONG err = etw_enum_session_id(id, &d.logger_id);
	uint32_t i;

	if (!err)
		err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_GET_DISALLOW,
							 &d));
	for (i = 0; !err && i < d.count && i < ETW_MAX_DISALLOW; i++)
		etw_enum_add_guid(o, &guids[i]);
	return !err && o->oom ? ERROR_NOT_ENOUGH_MEMORY : err;
}

/* The kernel's nr_cpu_ids: one past the last possible CPU; 0 unknown. */
static ULONG etw_enum_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	unsigned int a, b = 0;
	int n;

	if (!f)
		return 0;
	/* "0-3", or "0" on one CPU: the last number counts. */
	n = fscanf(f, "%u-%u", &a, &b);
	fclose(f);
	if (n < 1)
		return 0;
	return (n == 2 ? b : a) + 1;
}

/*
 * TraceStreamCount: the session's buffer streams, one per possible CPU or
 * one with EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING, as the kernel makes.
 */
static ULONG etw_enum_streams(CONTROLTRACE_ID id, struct etw_enum_out *o)
{
	struct etw_session_args a;
	ULONG err, *v;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	err = etw_enum_session_id(id, &a.logger_id);
	if (!err)
		err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_QUERY, &a));
	if (err)
		return err;
	v = etw_enum_add(o, sizeof(*v));
	if (!v)
		return ERROR_NOT_ENOUGH_MEMORY;
	*v = (a.config.mode & ETW_MODE_NO_PER_PROCESSOR) ? 1 :
	     etw_enum_possible_cpus();
	return *v ? ERROR_SUCCESS : ERROR_NOT_SUPPORTED;
}

/*
 * TraceSampledProfileIntervalInfo: the kernel logger's sampling interval
 * for TRACE_PROFILE_INTERVAL.Source, a system-wide setting (any session
 * handle; Windows' callers pass 0).  Setting it without the privilege
 * Windows asks (SeSystemProfilePrivilege) is ERROR_PRIVILEGE_NOT_HELD.
 */
static ULONG etw_enum_profile_interval(PVOID info, ULONG len, bool set)
{
	struct etw_profile_interval_args a = { .size = sizeof(a) };
	TRACE_PROFILE_INTERVAL *t = info;
	int ret;

	if (!info)
		return ERROR_INVALID_PARAMETER;
	if (len < sizeof(*t))
		return ERROR_BAD_LENGTH;
	a.flags = set ? ETW_PROFILE_INTERVAL_SET : 0;
	a.source = t->Source;
	a.interval = t->Interval;
	ret = etw_dev_ioctl(ETW_IOC_PROFILE_INTERVAL, &a);
	if (ret == -EPERM)
		return ERROR_PRIVILEGE_NOT_HELD;
	if (ret)
		return etw_win32_from_errno(ret);
	if (!set)
		t->Interval = a.interval;
	return ERROR_SUCCESS;
}

/*
 * TraceStackTracingInfo of the kernel logger: the CLASSIC_EVENT_IDs whose
 * events are followed by their stack, at most 256.
 */
static ULONG etw_enum_stack_set(uint32_t id, const void *ids, ULONG len)
{
	struct etw_stack_events_args a = {
		.size = sizeof(a), .flags = ETW_STACK_EVENTS_SET,
		.logger_id = id, .ids_ptr = (uintptr_t)ids,
	};

	if (len % sizeof(CLASSIC_EVENT_ID))
		return ERROR_BAD_LENGTH;
	if ((len && !ids) || len / sizeof(CLASSIC_EVENT_ID) > ETW_MAX_STACK_EVENTS)
		return ERROR_INVALID_PARAMETER;
	a.count = len / sizeof(CLASSIC_EVENT_ID);
	return etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_STACK_EVENTS, &a));
}

static ULONG etw_enum_stack_list(CONTROLTRACE_ID id, struct etw_enum_out *o)
{
	struct etw_classic_event_id ids[ETW_MAX_STACK_EVENTS];
	struct etw_stack_events_args a = {
		.size = sizeof(a), .count = ETW_MAX_STACK_EVENTS,
		.ids_ptr = (uintptr_t)ids,
	};
	ULONG err = etw_enum_session_id(id, &a.logger_id);
	void *p;

	if (!err)
		err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_STACK_EVENTS,
							 &a));
	if (err || !a.count)
		return err;
	p = etw_enum_add(o, a.count * sizeof(ids[0]));
	if (!p)
		return ERROR_NOT_ENOUGH_MEMORY;
	memcpy(p, ids, a.count * sizeof(ids[0]));
	return ERROR_SUCCESS;
}

/**
 * TraceQueryInformation() - query an ETW setting
 * @SessionHandle: the session for TraceDisallowListQuery,
 *	TraceStreamCount and TraceStackTracingInfo, 0 for TraceVersionInfo;
 *	unused by the others
 * @InformationClass: TraceMaxLoggersQuery, TraceVersionInfo,
 *	TraceDisallowListQuery, TraceStreamCount, TraceGuidQueryList,
 *	TraceGuidQueryProcess, TraceGroupQueryList,
 *	TraceSampledProfileIntervalInfo or TraceStackTracingInfo (the kernel
 *	logger's CLASSIC_EVENT_ID list)
 * @TraceInformation: out: the value (TraceSampledProfileIntervalInfo: a
 *	TRACE_PROFILE_INTERVAL whose Source is read and Interval written, 0
 *	for a source other than the timer)
 * @InformationLength: bytes at @TraceInformation
 * @ReturnLength: out, optional: bytes the value needs
 *
 * The GUID lists are EnumerateTraceGuidsEx()'s.  TraceGuidQueryInfo and
 * TraceGroupQueryInfo need an input GUID this function has no parameter
 * for; use EnumerateTraceGuidsEx().
 *
 * Context: any thread; reads /dev/etw.
 * Return: 0; ERROR_BAD_LENGTH when the value does not fit (nothing is
 * written); ERROR_INVALID_PARAMETER for a NULL buffer with a length, a
 * non-zero @SessionHandle with TraceVersionInfo, a session handle of 0 or
 * above 32 bits with the two session classes, or the two Info classes;
 * ERROR_NOT_SUPPORTED for other classes; the kernel's errors (such as
 * ERROR_WMI_INSTANCE_NOT_FOUND for a session that does not run).
 */
ULONG WMIAPI TraceQueryInformation(CONTROLTRACE_ID SessionHandle,
				   TRACE_INFO_CLASS InformationClass,
				   PVOID TraceInformation,
				   ULONG InformationLength,
				   PULONG ReturnLength)
{
	struct etw_enum_out o = { 0 };
	ULONG err;

	if (!TraceInformation && InformationLength)
		return ERROR_INVALID_PARAMETER;
	if (InformationClass == TraceSampledProfileIntervalInfo) {
		if (ReturnLength)
			*ReturnLength = sizeof(TRACE_PROFILE_INTERVAL);
		return etw_enum_profile_interval(TraceInformation,
						 InformationLength, false);
	}
	switch (InformationClass) {
	case TraceMaxLoggersQuery:
		err = etw_enum_max_loggers(&o);
		break;
	case TraceVersionInfo:
		err = etw_enum_version(SessionHandle, &o);
		break;
	case TraceDisallowListQuery:
		err = etw_enum_disallow_list(SessionHandle, &o);
		break;
	case TraceStreamCount:
		err = etw_enum_streams(SessionHandle, &o);
		break;
	case TraceStackTracingInfo:
		err = etw_enum_stack_list(SessionHandle, &o);
		break;
	case TraceGuidQueryList:
	case TraceGuidQueryProcess:
	case TraceGroupQueryList:
		err = etw_enum_build(InformationClass, NULL, &o);
		break;
	case TraceGuidQueryInfo:
	case TraceGroupQueryInfo:
		return ERROR_INVALID_PARAMETER;
	default:
		return ERROR_NOT_SUPPORTED;
	}
	if (!err)
		err = etw_enum_copy(&o, TraceInformation, InformationLength,
				    ReturnLength, ERROR_BAD_LENGTH);
	free(o.p);
	return err;
}

static ULONG etw_enum_disallow(uint32_t id, const void *guids, ULONG len)
{
	struct etw_disallow_args d = { .size = sizeof(d) };

	if (len % sizeof(GUID))
		return ERROR_BAD_LENGTH;
	if (len && !guids)
		return ERROR_INVALID_PARAMETER;
	d.logger_id = id;
	d.count = len / sizeof(GUID);
	d.guids_ptr = (uintptr_t)guids;
	return etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_SET_DISALLOW, &d));
}

/*
 * TraceProviderBinaryTracking: turning it on asks for EventTraceGuid
 * events naming each enabled provider's binary, which etw cannot make
 * (the kernel does not know the binaries); off is what etw always does.
 */
static ULONG etw_enum_binary_tracking(uint32_t id, const void *on, ULONG len)
{
	struct etw_session_args a;
	ULONG err;

	if (!on)
		return ERROR_INVALID_PARAMETER;
	if (len != sizeof(BOOLEAN))
		return ERROR_BAD_LENGTH;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.logger_id = id;
	err = etw_win32_from_errno(etw_dev_ioctl(ETW_IOC_QUERY, &a));
	if (err)
		return err;
	return *(const BOOLEAN *)on ? ERROR_NOT_SUPPORTED : ERROR_SUCCESS;
}

/**
 * TraceSetInformation() - change a session setting
 * @SessionHandle: the session; unused by TraceSampledProfileIntervalInfo
 * @InformationClass: TraceSetDisallowList, TraceProviderBinaryTracking,
 *	TraceSampledProfileIntervalInfo or TraceStackTracingInfo
 * @TraceInformation: an array of GUIDs (disallow list), a BOOLEAN, a
 *	TRACE_PROFILE_INTERVAL (its Interval in 100 ns units, clamped to
 *	1221 .. 10000000 as Windows clamps it), or an array of
 *	CLASSIC_EVENT_ID (the kernel logger's events to record stacks of)
 * @InformationLength: its bytes (0 clears the disallow list or the stack
 *	list)
 *
 * Context: any thread; changes the session through /dev/etw.
 * Return: 0; ERROR_INVALID_PARAMETER for a session handle of 0 or above
 * 32 bits or a NULL buffer with a length (binary tracking: any NULL
 * buffer); ERROR_BAD_LENGTH for a length that is not whole GUIDs, or not
 * one byte for binary tracking; ERROR_NOT_SUPPORTED to turn binary
 * tracking on, and for other classes; the kernel's errors (such as
 * ERROR_WMI_INSTANCE_NOT_FOUND for a session that does not run).
 * TraceSampledProfileIntervalInfo: ERROR_INVALID_PARAMETER for a NULL
 * buffer, ERROR_BAD_LENGTH below sizeof(TRACE_PROFILE_INTERVAL),
 * ERROR_PRIVILEGE_NOT_HELD without the right to control sessions,
 * ERROR_NOT_SUPPORTED for a Source other than the timer (0).
 * TraceStackTracingInfo: ERROR_BAD_LENGTH for a length that is not whole
 * CLASSIC_EVENT_IDs, ERROR_INVALID_PARAMETER for more than 256, a NULL
 * array with a length, non-zero Reserved bytes or a session that is not
 * the kernel logger.
 */
ULONG WMIAPI TraceSetInformation(CONTROLTRACE_ID SessionHandle,
				 TRACE_INFO_CLASS InformationClass,
				 PVOID TraceInformation,
				 ULONG InformationLength)
{
	uint32_t id;
	ULONG err;

	if (InformationClass == TraceSampledProfileIntervalInfo)
		return etw_enum_profile_interval(TraceInformation,
						 InformationLength, true);
	if (InformationClass != TraceSetDisallowList &&
	    InformationClass != TraceProviderBinaryTracking &&
	    InformationClass != TraceStackTracingInfo)
		return ERROR_NOT_SUPPORTED;
	err = etw_enum_session_id(SessionHandle, &id);
	if (err)
		return err;
	if (InformationClass == TraceStackTracingInfo)
		return etw_enum_stack_set(id, TraceInformation,
					  InformationLength);
	if (InformationClass == TraceSetDisallowList)
		return etw_enum_disallow(id, TraceInformation,
					 InformationLength);
	return etw_enum_binary_tracking(id, TraceInformation,
					InformationLength);
}
