// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_classic.c - the classic (MOF/WPP) provider API: RegisterTraceGuids,
 * TraceEvent and the enable queries of the WMIDPREQUEST callback.
 *
 * A classic registration is an ETW_REGISTER_CLASSIC registration, which
 * the kernel lets only the newest enabling session own.  The callback
 * gets WMI_ENABLE_EVENTS or WMI_DISABLE_EVENTS (WMI_CAPTURE_STATE for a
 * state request) and a WNODE_HEADER whose HistoricalContext is the logger
 * handle: the registration handle with bit 63 set.  GetTraceEnableFlags
 * and GetTraceEnableLevel read the registration's current enable state
 * through it, and TraceEvent writes through it.
 *
 * TraceEvent maps the classic event onto an ETW_IOC_WRITE: the descriptor
 * has Level = Class.Level, Opcode = Class.Type, Version = Class.Version
 * and everything else 0, and the payload is the MOF data (the bytes after
 * the header up to Header.Size, or with WNODE_FLAG_USE_MOF_PTR the
 * MOF_FIELD array there).  The record is an EVENT_HEADER record with the
 * control GUID as ProviderId; the header's event-class GUID is not
 * recorded.
 */
#include <string.h>

#include "etw_provider.h"
#include "wmistr.h"

#define ETW_INVALID_TRACEHANDLE	((TRACEHANDLE)INVALID_HANDLE_VALUE)

static ULONG etw_register_classic(WMIDPREQUEST request, PVOID context,
				  LPCGUID control, ULONG count,
				  PTRACE_GUID_REGISTRATION classes,
				  PTRACEHANDLE handle)
{
	struct etw_prov_callback cb = {
		.classic = true,
		.request = request,
		.context = context,
	};
	REGHANDLE h = 0;
	ULONG err, i;

	if (!request || !control || !handle || (count && !classes))
		return ERROR_INVALID_PARAMETER;
	for (i = 0; i < count; i++)
		if (!classes[i].Guid)
			return ERROR_INVALID_PARAMETER;
	cb.guid = *control;
	err = etw_prov_register(ETW_REGISTER_CLASSIC, &cb, &h);
	if (err)
		return err;
	/* Event classes share the registration (TraceEventInstance's). */
	for (i = 0; i < count; i++)
		classes[i].RegHandle = (HANDLE)(uintptr_t)h;
	*handle = h;
	return ERROR_SUCCESS;
}

/**
 * RegisterTraceGuidsW() - register a classic provider
 * @RequestAddress: the WMIDPREQUEST callback
 * @RequestContext: passed to it
 * @ControlGuid: the GUID sessions enable
 * @GuidCount: entries at @TraceGuidReg (may be 0)
 * @TraceGuidReg: event classes; each RegHandle is filled in
 * @MofImagePath: ignored, as on Windows since XP
 * @MofResourceName: ignored
 * @RegistrationHandle: out: the handle for UnregisterTraceGuids
 *
 * Return: 0, or ERROR_INVALID_PARAMETER for a NULL callback, control GUID,
 * output handle, or class array with a non-zero count.
 */
ULONG WMIAPI RegisterTraceGuidsW(WMIDPREQUEST RequestAddress,
				 PVOID RequestContext, LPCGUID ControlGuid,
				 ULONG GuidCount,
				 PTRACE_GUID_REGISTRATION TraceGuidReg,
				 LPCWSTR MofImagePath, LPCWSTR MofResourceName,
				 PTRACEHANDLE RegistrationHandle)
{
	return etw_register_classic(RequestAddress, RequestContext,
				    ControlGuid, GuidCount, TraceGuidReg,
				    RegistrationHandle);
}

/**
 * RegisterTraceGuidsA() - RegisterTraceGuidsW() with ANSI MOF names
 * @RequestAddress: the WMIDPREQUEST callback
 * @RequestContext: passed to it
 * @ControlGuid: the GUID sessions enable
 * @GuidCount: entries at @TraceGuidReg
 * @TraceGuidReg: event classes
 * @MofImagePath: ignored
 * @MofResourceName: ignored
 * @RegistrationHandle: out: the handle
 *
 * Return: as RegisterTraceGuidsW().
 */
ULONG WMIAPI RegisterTraceGuidsA(WMIDPREQUEST RequestAddress,
				 PVOID RequestContext, LPCGUID ControlGuid,
				 ULONG GuidCount,
				 PTRACE_GUID_REGISTRATION TraceGuidReg,
				 LPCSTR MofImagePath, LPCSTR MofResourceName,
				 PTRACEHANDLE RegistrationHandle)
{
	return etw_register_classic(RequestAddress, RequestContext,
				    ControlGuid, GuidCount, TraceGuidReg,
				    RegistrationHandle);
}

/**
 * UnregisterTraceGuids() - end a classic registration
 * @RegistrationHandle: from RegisterTraceGuids
 *
 * Return: 0, or ERROR_INVALID_HANDLE (also the second time).
 */
ULONG WMIAPI UnregisterTraceGuids(TRACEHANDLE RegistrationHandle)
{
	return etw_prov_unregister(RegistrationHandle);
}

/* A logger handle's registration; sets the last error when invalid. */
static bool etw_logger_get(TRACEHANDLE logger, struct etw_prov_ref *ref)
{
	if (!(logger & ETW_PROV_LOGGER_BIT) ||
	    !etw_prov_get(logger & ~ETW_PROV_LOGGER_BIT, ref)) {
		SetLastError(ERROR_INVALID_HANDLE);
		return false;
	}
	return true;
}

/**
 * GetTraceLoggerHandle() - the logger handle of a WMIDPREQUEST buffer
 * @Buffer: the WNODE_HEADER the callback received
 *
 * Return: the handle, or INVALID_HANDLE_VALUE with the last error set to
 * ERROR_INVALID_PARAMETER (NULL @Buffer) or ERROR_INVALID_HANDLE.
 */
TRACEHANDLE WMIAPI GetTraceLoggerHandle(PVOID Buffer)
{
	struct etw_prov_ref ref;
	TRACEHANDLE logger;

	if (!Buffer) {
		SetLastError(ERROR_INVALID_PARAMETER);
		return ETW_INVALID_TRACEHANDLE;
	}
	logger = ((const WNODE_HEADER *)Buffer)->HistoricalContext;
	return etw_logger_get(logger, &ref) ? logger : ETW_INVALID_TRACEHANDLE;
}

/**
 * GetTraceEnableFlags() - the enabling session's flags
 * @TraceHandle: a logger handle
 *
 * Return: the low 32 bits of MatchAnyKeyword (0 while disabled), or 0
 * with the last error ERROR_INVALID_HANDLE; the last error is left alone
 * on success.
 */
ULONG WMIAPI GetTraceEnableFlags(TRACEHANDLE TraceHandle)
{
	struct etw_prov_state st;
	struct etw_prov_ref ref;

	if (!etw_logger_get(TraceHandle, &ref))
		return 0;
	etw_prov_state(&ref, &st);
	return (ULONG)st.match_any;
}

/**
 * GetTraceEnableLevel() - the enabling session's level
 * @TraceHandle: a logger handle
 *
 * Return: the level (255 when the session passed 0; 0 while disabled), or
 * 0 with the last error ERROR_INVALID_HANDLE.
 */
UCHAR WMIAPI GetTraceEnableLevel(TRACEHANDLE TraceHandle)
{
	struct etw_prov_state st;
	struct etw_prov_ref ref;

	if (!etw_logger_get(TraceHandle, &ref))
		return 0;
	etw_prov_state(&ref, &st);
	return st.level;
}

/* The MOF data after @hdr as data descriptors; false when malformed. */
static bool etw_mof_data(const EVENT_TRACE_HEADER *hdr,
			 EVENT_DATA_DESCRIPTOR *data, ULONG *count)
{
	size_t extra = hdr->Size - sizeof(*hdr);
	const MOF_FIELD *mof = (const void *)(hdr + 1);
	ULONG i;

	if (!(hdr->Flags & WNODE_FLAG_USE_MOF_PTR)) {
		EventDataDescCreate(&data[0], hdr + 1, (ULONG)extra);
		*count = extra ? 1 : 0;
		return true;
	}
	if (extra % sizeof(*mof) || extra / sizeof(*mof) > MAX_MOF_FIELDS)
		return false;
	*count = extra / sizeof(*mof);
	for (i = 0; i < *count; i++)
		EventDataDescCreate(&data[i],
				    (const void *)(uintptr_t)mof[i].DataPtr,
				    mof[i].Length);
	return true;
}

/**
 * TraceEvent() - write a classic event
 * @TraceHandle: the logger handle from GetTraceLoggerHandle
 * @EventTrace: header (Size covers the MOF data after it) and data
 *
 * Return: 0; ERROR_INVALID_HANDLE for a handle that is not a logger handle
 * of a live registration or whose provider no session enables any more;
 * ERROR_INVALID_PARAMETER for a NULL or malformed header; the write
 * errors of EventWrite.
 */
ULONG WMIAPI TraceEvent(TRACEHANDLE TraceHandle, PEVENT_TRACE_HEADER EventTrace)
{
	EVENT_DATA_DESCRIPTOR data[MAX_MOF_FIELDS];
	struct etw_write_args a;
	struct etw_prov_state st;
	struct etw_prov_ref ref;
	ULONG count;

	if (!(TraceHandle & ETW_PROV_LOGGER_BIT) ||
	    !etw_prov_get(TraceHandle & ~ETW_PROV_LOGGER_BIT, &ref))
		return ERROR_INVALID_HANDLE;
	if (!EventTrace || EventTrace->Size < sizeof(*EventTrace) ||
	    !etw_mof_data(EventTrace, data, &count))
		return ERROR_INVALID_PARAMETER;
	/* The logger handle stands for the session that enabled us. */
	if (!etw_prov_state(&ref, &st))
		return ERROR_INVALID_HANDLE;
	memset(&a, 0, sizeof(a));
	a.descriptor.level = EventTrace->Class.Level;
	a.descriptor.opcode = EventTrace->Class.Type;
	a.descriptor.version = (__u8)EventTrace->Class.Version;
	memcpy(&a.activity_id, &etw_thread_activity, sizeof(a.activity_id));
	a.data_count = count;
	a.data_ptr = (uintptr_t)data;
	return etw_prov_write(&ref, &a);
}
