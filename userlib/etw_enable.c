// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_enable.c - EnableTraceEx2 and the older EnableTraceEx and
 * EnableTrace on top of it.  TraceSetInformation is in etw_enumerate.c.
 *
 * Enable properties: IGNORE_KEYWORD_0, PROVIDER_GROUP, EXCLUDE_INPRIVATE
 * and the extended data items SID, TS_ID, STACK_TRACE, PROCESS_START_KEY,
 * EVENT_KEY and SOURCE_CONTAINER_TRACKING's CONTAINER_ID are passed to the
 * kernel.  PSM_KEY (a Windows app-model key), ENABLE_SILOS (global
 * sessions reach providers in containers anyway) and ENABLE_KEYWORD_0
 * (keyword-0 events are let in anyway) have nothing more to do here; they
 * are accepted (Documentation/libetw.rst says why for each).  Unknown bits
 * give ERROR_INVALID_PARAMETER.
 *
 * Filters: EVENT_ID, PID, EXECUTABLE_NAME, EVENT_NAME, PAYLOAD,
 * SCHEMATIZED, STACKWALK, STACKWALK_LEVEL_KW and STACKWALK_NAME map to the
 * kernel's filters (the stack filters only count with STACK_TRACE, as on
 * Windows; EXECUTABLE_NAME's UTF-16 list is passed as UTF-8,
 * EVENT_FILTER_EVENT_NAME and TdhAggregatePayloadFilters()' blob as they
 * are, the kernel checking the blob); every other type gives
 * ERROR_NOT_SUPPORTED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "etw_controller.h"
#include "etw_etl.h"
#include "etw_lib.h"
#include "evntcons.h"

#define ETW_ENABLE_KNOWN_PROPS	0x00000fff
#define ETW_ENABLE_KERNEL_PROPS	\
	(EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 | \
	EVENT_ENABLE_PROPERTY_PROVIDER_GROUP | EVENT_ENABLE_PROPERTY_SID | \
	EVENT_ENABLE_PROPERTY_TS_ID | EVENT_ENABLE_PROPERTY_STACK_TRACE | \
	EVENT_ENABLE_PROPERTY_PROCESS_START_KEY | \
	EVENT_ENABLE_PROPERTY_EVENT_KEY | \
	EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE | \
	EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING)
#define ETW_ENABLE_ID_HEADER	offsetof(EVENT_FILTER_EVENT_ID, Events)

/* An EVENT_FILTER_EVENT_ID (EVENT_ID and STACKWALK), checked. */
static const EVENT_FILTER_EVENT_ID *
etw_enable_id_list(const EVENT_FILTER_DESCRIPTOR *d)
{
	const EVENT_FILTER_EVENT_ID *f = (const void *)(uintptr_t)d->Ptr;

	if (!f || d->Size < ETW_ENABLE_ID_HEADER || !f->Count ||
	    f->Count > MAX_EVENT_FILTER_EVENT_ID_COUNT ||
	    d->Size < ETW_ENABLE_ID_HEADER + f->Count * sizeof(USHORT))
		return NULL;
	return f;
}

static ULONG etw_enable_event_ids(const EVENT_FILTER_DESCRIPTOR *d,
				  struct etw_enable_args *e)
{
	const EVENT_FILTER_EVENT_ID *f = etw_enable_id_list(d);

	if (!f)
		return ERROR_INVALID_PARAMETER;
	e->event_id_count = f->Count;
	e->event_ids_ptr = (uintptr_t)f->Events;
	e->event_ids_filter_in = f->FilterIn ? 1 : 0;
	return ERROR_SUCCESS;
}

/* Without STACK_TRACE no stack is captured: the list is checked, not kept. */
static ULONG etw_enable_stack_ids(const EVENT_FILTER_DESCRIPTOR *d,
				  struct etw_enable_args *e)
{
	const EVENT_FILTER_EVENT_ID *f = etw_enable_id_list(d);

	if (!f)
		return ERROR_INVALID_PARAMETER;
	if (!(e->properties & EVENT_ENABLE_PROPERTY_STACK_TRACE))
		return ERROR_SUCCESS;
	e->stack_id_count = f->Count;
	e->stack_ids_ptr = (uintptr_t)f->Events;
	e->stack_ids_filter_in = f->FilterIn ? 1 : 0;
	return ERROR_SUCCESS;
}

static ULONG etw_enable_stack_level_kw(const EVENT_FILTER_DESCRIPTOR *d,
				       struct etw_enable_args *e)
{
	const EVENT_FILTER_LEVEL_KW *f = (const void *)(uintptr_t)d->Ptr;

	if (!f || d->Size < sizeof(*f))
		return ERROR_INVALID_PARAMETER;
	if (!(e->properties & EVENT_ENABLE_PROPERTY_STACK_TRACE))
		return ERROR_SUCCESS;
	e->stack_match_any = f->MatchAnyKeyword;
	e->stack_match_all = f->MatchAllKeyword;
	e->stack_level = f->Level;
	e->stack_lk_filter = f->FilterIn ? ETW_STACK_LK_IN : ETW_STACK_LK_OUT;
	return ERROR_SUCCESS;
}

/*
 * EVENT_NAME, STACKWALK_NAME: an EVENT_FILTER_EVENT_NAME with 1 or more
 * non-empty NUL-terminated names within Size, each at most
 * ETW_MAX_EVENT_NAME bytes (the kernel's rule, checked here too so that
 * a stack filter without STACK_TRACE answers the same).
 */
static bool etw_enable_names_ok(const EVENT_FILTER_DESCRIPTOR *d)
{
	const EVENT_FILTER_EVENT_NAME *f = (const void *)(uintptr_t)d->Ptr;
	size_t off = offsetof(EVENT_FILTER_EVENT_NAME, Names), n;
	USHORT i;

	if (!f || d->Size < off || d->Size > MAX_EVENT_FILTER_EVENT_NAME_SIZE ||
	    !f->NameCount || f->FilterIn > 1)
		return false;
	for (i = 0; i < f->NameCount; i++) {
		n = strnlen((const char *)f + off, d->Size - off);
		if (!n || n > ETW_MAX_EVENT_NAME || off + n == d->Size)
			return false;
		off += n + 1;
	}
	return true;
}

static ULONG etw_enable_names(const EVENT_FILTER_DESCRIPTOR *d,
			      struct etw_enable_args *e)
{
	if (!etw_enable_names_ok(d))
		return ERROR_INVALID_PARAMETER;
	e->names_ptr = d->Ptr;
	e->names_size = d->Size;
	return ERROR_SUCCESS;
}

static ULONG etw_enable_stack_names(const EVENT_FILTER_DESCRIPTOR *d,
				    struct etw_enable_args *e)
{
	if (!etw_enable_names_ok(d))
		return ERROR_INVALID_PARAMETER;
	if (!(e->properties & EVENT_ENABLE_PROPERTY_STACK_TRACE))
		return ERROR_SUCCESS;
	e->stack_names_ptr = d->Ptr;
	e->stack_names_size = d->Size;
	return ERROR_SUCCESS;
}

static ULONG etw_enable_pids(const EVENT_FILTER_DESCRIPTOR *d,
			     struct etw_enable_args *e)
{
	if (!d->Ptr || !d->Size || d->Size % sizeof(ULONG) ||
	    d->Size / sizeof(ULONG) > MAX_EVENT_FILTER_PID_COUNT)
		return ERROR_INVALID_PARAMETER;
	e->pid_count = d->Size / sizeof(ULONG);
	e->pids_ptr = d->Ptr;
	return ERROR_SUCCESS;
}

/*
 * EXECUTABLE_NAME: one NUL-terminated WCHAR string of names separated by
 * ';', at most MAX_EVENT_FILTER_DATA_SIZE bytes with its NUL.  @e's list
 * is malloc()ed; the caller frees it.
 */
static ULONG etw_enable_exe_names(const EVENT_FILTER_DESCRIPTOR *d,
				  struct etw_enable_args *e)
{
	const WCHAR *w = (const WCHAR *)(uintptr_t)d->Ptr;
	size_t units = d->Size / sizeof(WCHAR), len;
	char *list;

	if (!w || d->Size < 2 * sizeof(WCHAR) || d->Size % sizeof(WCHAR) ||
	    d->Size > MAX_EVENT_FILTER_DATA_SIZE || w[units - 1] || !w[0])
		return ERROR_INVALID_PARAMETER;
	list = etw_etl_utf16_to_utf8((const uint8_t *)w, units);
	if (!list)
		return ERROR_NOT_ENOUGH_MEMORY;
	len = strlen(list);
	e->exe_names_ptr = (uintptr_t)list;
	e->exe_names_size = (uint32_t)len;
	return ERROR_SUCCESS;
}

/* PAYLOAD: TdhAggregatePayloadFilters()' blob, which the kernel checks. */
static ULONG etw_enable_payload(const EVENT_FILTER_DESCRIPTOR *d,
				struct etw_enable_args *e)
{
	if (!d->Ptr || d->Size < sizeof(struct etw_payload_filter) ||
	    d->Size > MAX_EVENT_FILTER_PAYLOAD_SIZE)
		return ERROR_INVALID_PARAMETER;
	e->payload_ptr = d->Ptr;
	e->payload_size = d->Size;
	return ERROR_SUCCESS;
}

static ULONG etw_enable_schematized(const EVENT_FILTER_DESCRIPTOR *d,
				   struct etw_enable_args *e)
{
	if (!d->Ptr || !d->Size || d->Size > MAX_EVENT_FILTER_DATA_SIZE)
		return ERROR_INVALID_PARAMETER;
	e->filter_data_ptr = d->Ptr;
	e->filter_data_size = d->Size;
	return ERROR_SUCCESS;
}

static ULONG etw_enable_filter(const EVENT_FILTER_DESCRIPTOR *d,
			       struct etw_enable_args *e)
{
	switch (d->Type) {
	case EVENT_FILTER_TYPE_EVENT_ID:
		return etw_enable_event_ids(d, e);
	case EVENT_FILTER_TYPE_PID:
		return etw_enable_pids(d, e);
	case EVENT_FILTER_TYPE_EXECUTABLE_NAME:
		return etw_enable_exe_names(d, e);
	case EVENT_FILTER_TYPE_SCHEMATIZED:
		return etw_enable_schematized(d, e);
	case EVENT_FILTER_TYPE_STACKWALK:
		return etw_enable_stack_ids(d, e);
	case EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW:
		return etw_enable_stack_level_kw(d, e);
	case EVENT_FILTER_TYPE_EVENT_NAME:
		return etw_enable_names(d, e);
	case EVENT_FILTER_TYPE_STACKWALK_NAME:
		return etw_enable_stack_names(d, e);
	case EVENT_FILTER_TYPE_PAYLOAD:
		return etw_enable_payload(d, e);
	default:
		return ERROR_NOT_SUPPORTED;
	}
}

static bool etw_enable_seen_before(const EVENT_FILTER_DESCRIPTOR *d,
				   ULONG i)
{
	ULONG j;

	for (j = 0; j < i; j++)
		if (d[j].Type == d[i].Type)
			return true;
	return false;
}

static ULONG etw_enable_filters(const EVENT_FILTER_DESCRIPTOR *d,
				ULONG count, struct etw_enable_args *e)
{
	ULONG i, err;

	if (count > MAX_EVENT_FILTERS_COUNT || (count && !d))
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < count; i++) {
		if (etw_enable_seen_before(d, i))
			return ERROR_INVALID_PARAMETER;
		err = etw_enable_filter(&d[i], e);
		if (err)
			return err;
	}
	return ERROR_SUCCESS;
}

static ULONG etw_enable_params(const ENABLE_TRACE_PARAMETERS *p,
			       struct etw_enable_args *e)
{
	ULONG count;

	if (!p)
		return ERROR_SUCCESS;
	if (p->Version != ENABLE_TRACE_PARAMETERS_VERSION &&
	    p->Version != ENABLE_TRACE_PARAMETERS_VERSION_2)
		return ERROR_INVALID_PARAMETER;
	if (p->EnableProperty & ~ETW_ENABLE_KNOWN_PROPS)
		return ERROR_INVALID_PARAMETER;
	e->properties = p->EnableProperty & ETW_ENABLE_KERNEL_PROPS;
	memcpy(&e->source_id, &p->SourceId, sizeof(e->source_id));
	/* V1 has no count: its EnableFilterDesc is one descriptor. */
	if (p->Version == ENABLE_TRACE_PARAMETERS_VERSION)
		count = p->EnableFilterDesc ? 1 : 0;
	else
		count = p->FilterDescCount;
	return etw_enable_filters(p->EnableFilterDesc, count, e);
}

static ULONG etw_enable_errno(int err)
{
	if (err == -EINTR)
		return ERROR_CANCELLED;
	return etw_win32_from_errno(err);
}

/**
 * EnableTraceEx2 - enable, disable or capture the state of a provider
 * @TraceId: the session
 * @ProviderId: the provider (or provider group) GUID
 * @ControlCode: EVENT_CONTROL_CODE_*
 * @Level: most verbose level to record (0 = all)
 * @MatchAnyKeyword: MatchAnyKeyword
 * @MatchAllKeyword: MatchAllKeyword
 * @Timeout: ms to wait for providers to handle the request (0 = none)
 * @EnableParameters: ENABLE_TRACE_PARAMETERS (V1 or V2), optional
 *
 * Return: a Win32 error: ERROR_INVALID_PARAMETER, ERROR_NOT_SUPPORTED,
 * ERROR_TIMEOUT (the enable took effect; a provider did not answer in
 * time), ERROR_NO_SYSTEM_RESOURCES (9th session on the provider),
 * ERROR_ACCESS_DENIED, ERROR_WMI_INSTANCE_NOT_FOUND,
 * ERROR_NOT_ENOUGH_MEMORY.
 */
ULONG WMIAPI EnableTraceEx2(CONTROLTRACE_ID TraceId, LPCGUID ProviderId,
			    ULONG ControlCode, UCHAR Level,
			    ULONGLONG MatchAnyKeyword,
			    ULONGLONG MatchAllKeyword, ULONG Timeout,
			    PENABLE_TRACE_PARAMETERS EnableParameters)
{
	struct etw_enable_args e;
	ULONG err;

	if (!ProviderId || !TraceId)
		return ERROR_INVALID_PARAMETER;
	if (ControlCode > EVENT_CONTROL_CODE_CAPTURE_STATE)
		return ERROR_INVALID_PARAMETER;
	if (TraceId > UINT32_MAX)
		return ERROR_WMI_INSTANCE_NOT_FOUND;
	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.logger_id = (uint32_t)TraceId;
	e.control_code = ControlCode;
	e.level = Level;
	memcpy(&e.guid, ProviderId, sizeof(e.guid));
	e.match_any = MatchAnyKeyword;
	e.match_all = MatchAllKeyword;
	e.timeout_ms = Timeout == INFINITE ? UINT32_MAX : Timeout;
	err = etw_enable_params(EnableParameters, &e);
	if (!err)
		err = etw_enable_errno(etw_dev_ioctl(ETW_IOC_ENABLE, &e));
	free((void *)(uintptr_t)e.exe_names_ptr);
	return err;
}

/**
 * EnableTraceEx - the Vista form of EnableTraceEx2
 * @ProviderId: the provider GUID
 * @SourceId: passed to the provider's callback, optional
 * @TraceId: the session
 * @IsEnabled: EVENT_CONTROL_CODE_*
 * @Level: level
 * @MatchAnyKeyword: MatchAnyKeyword
 * @MatchAllKeyword: MatchAllKeyword
 * @EnableProperty: EVENT_ENABLE_PROPERTY_*
 * @EnableFilterDesc: one filter, optional
 *
 * Return: as EnableTraceEx2() with no timeout.
 */
ULONG WMIAPI EnableTraceEx(LPCGUID ProviderId, LPCGUID SourceId,
			   CONTROLTRACE_ID TraceId, ULONG IsEnabled,
			   UCHAR Level, ULONGLONG MatchAnyKeyword,
			   ULONGLONG MatchAllKeyword, ULONG EnableProperty,
			   PEVENT_FILTER_DESCRIPTOR EnableFilterDesc)
{
	ENABLE_TRACE_PARAMETERS p = {
		.Version = ENABLE_TRACE_PARAMETERS_VERSION_2,
		.EnableProperty = EnableProperty,
		.EnableFilterDesc = EnableFilterDesc,
		.FilterDescCount = EnableFilterDesc ? 1 : 0,
	};

	if (SourceId)
		p.SourceId = *SourceId;
	return EnableTraceEx2(TraceId, ProviderId, IsEnabled, Level,
			      MatchAnyKeyword, MatchAllKeyword, 0, &p);
}

/**
 * EnableTrace - the classic (Windows 2000) enable
 * @Enable: TRUE to enable, FALSE to disable
 * @EnableFlag: provider-defined flags; become MatchAnyKeyword
 * @EnableLevel: level
 * @ControlGuid: the provider GUID
 * @TraceId: the session
 *
 * Return: as EnableTraceEx2() with no timeout.
 */
ULONG WMIAPI EnableTrace(ULONG Enable, ULONG EnableFlag, ULONG EnableLevel,
			 LPCGUID ControlGuid, CONTROLTRACE_ID TraceId)
{
	if (EnableLevel > 0xff)
		return ERROR_INVALID_PARAMETER;
	return EnableTraceEx2(TraceId, ControlGuid,
			      Enable ? EVENT_CONTROL_CODE_ENABLE_PROVIDER :
				       EVENT_CONTROL_CODE_DISABLE_PROVIDER,
			      (UCHAR)EnableLevel, EnableFlag, 0, 0, NULL);
}
