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
 * TraceEvent and TraceEventInstance write with ETW_WRITE_CLASSIC: the
 * kernel records an EVENT_TRACE_HEADER (or EVENT_INSTANCE_GUID_HEADER)
 * record as Windows does, with Class.Type/Level/Version from the
 * descriptor's opcode, level and version, and the event-class GUID (the
 * header's Guid, or the class of the EVENT_INSTANCE_INFO) as its GUID;
 * consumers get it with EVENT_HEADER_FLAG_CLASSIC_HEADER and that GUID as
 * ProviderId.  The payload is the MOF data (the bytes after the header up
 * to Header.Size, or with WNODE_FLAG_USE_MOF_PTR the MOF_FIELD array
 * there).
 *
 * TraceMessage writes with ETW_WRITE_MESSAGE: the kernel records
 * Windows' MESSAGE_TRACE_HEADER (MessageNumber, the flags, then the
 * fields they ask for in TraceMessage's order: sequence, GUID or
 * component id, timestamp, thread and process id, and the arguments).
 * The kernel must do it: it owns the timestamp and the ids, at offsets
 * the flags decide.  The sequence field is 0 (sessions keep no sequence).
 *
 * Each event class of RegisterTraceGuids gets its own RegHandle, which
 * names the class GUID for CreateTraceInstanceId and TraceEventInstance:
 * it points to a struct etw_class on a process-wide list (the state the
 * Windows API implies), checked before use and freed by
 * UnregisterTraceGuids.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "etw_provider.h"
#include "wmistr.h"

#define ETW_INVALID_TRACEHANDLE	((TRACEHANDLE)INVALID_HANDLE_VALUE)

/* An event class of a classic registration; its RegHandle points here. */
struct etw_class {
	struct etw_class *next;
	TRACEHANDLE reg;
	GUID guid;
	ULONG last_id;
};

static pthread_mutex_t etw_classes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct etw_class *etw_classes;

/* Make a class per entry and link them in; false without memory. */
static bool etw_classes_add(TRACEHANDLE reg, ULONG count,
			    PTRACE_GUID_REGISTRATION classes)
{
	struct etw_class *c[MAX_MOF_FIELDS], **v = c;
	ULONG i;

	if (count > MAX_MOF_FIELDS) {
		v = calloc(count, sizeof(*v));
		if (!v)
			return false;
	}
	for (i = 0; i < count; i++) {
		v[i] = calloc(1, sizeof(**v));
		if (!v[i])
			break;
		v[i]->reg = reg;
		v[i]->guid = *classes[i].Guid;
	}
	if (i < count) {
		while (i--)
			free(v[i]);
		if (v != c)
			free(v);
		return false;
	}
	pthread_mutex_lock(&etw_classes_lock);
	for (i = 0; i < count; i++) {
		v[i]->next = etw_classes;
		etw_classes = v[i];
		classes[i].RegHandle = (HANDLE)v[i];
	}
	pthread_mutex_unlock(&etw_classes_lock);
	if (v != c)
		free(v);
	return true;
}

static void etw_classes_drop(TRACEHANDLE reg)
{
	struct etw_class **pp, *c;

	pthread_mutex_lock(&etw_classes_lock);
	for (pp = &etw_classes; (c = *pp);) {
		if (c->reg == reg) {
			*pp = c->next;
			free(c);
		} else {
			pp = &c->next;
		}
	}
	pthread_mutex_unlock(&etw_classes_lock);
}

/* The live class @h points to; call with etw_classes_lock held. */
static struct etw_class *etw_class_find(HANDLE h)
{
	struct etw_class *c;

	for (c = etw_classes; c; c = c->next)
		if (c == (struct etw_class *)h)
			return c;
	return NULL;
}

/* Copy the GUID of class @h; false for a handle that names no class. */
static bool etw_class_guid(HANDLE h, GUID *guid)
{
	struct etw_class *c;

	pthread_mutex_lock(&etw_classes_lock);
	c = etw_class_find(h);
	if (c)
		*guid = c->guid;
	pthread_mutex_unlock(&etw_classes_lock);
	return c;
}

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
	if (!etw_classes_add(h, count, classes)) {
		etw_prov_unregister(h);
		return ERROR_NOT_ENOUGH_MEMORY;
	}
	*handle = h;
	return ERROR_SUCCESS;
}

/**
 * RegisterTraceGuidsW() - register a classic provider
 * @RequestAddress: the WMIDPREQUEST callback
 * @RequestContext: passed to it
 * @ControlGuid: the GUID sessions enable
 * @GuidCount: entries at @TraceGuidReg (may be 0)
 * @TraceGuidReg: event classes; each RegHandle is set to the class's
 *	handle (for CreateTraceInstanceId)
 * @MofImagePath: ignored, as on Windows since XP
 * @MofResourceName: ignored
 * @RegistrationHandle: out: the handle for UnregisterTraceGuids
 *
 * Context: any thread.
 * Return: 0, ERROR_INVALID_PARAMETER for a NULL callback, control GUID,
 * output handle, or class array with a non-zero count,
 * ERROR_NOT_ENOUGH_MEMORY.
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
	ULONG err = etw_prov_unregister(RegistrationHandle);

	if (!err)
		etw_classes_drop(RegistrationHandle);
	return err;
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
 * Microsoft's page for GetTraceEnableLevel: the EnableLevel the controller
 * passed, 0 included; a caller tells that 0 from a failure by clearing the
 * last error first, so success leaves it alone.
 *
 * Return: the level the session passed (0 while disabled), or 0 with the
 * last error ERROR_INVALID_HANDLE.
 */
UCHAR WMIAPI GetTraceEnableLevel(TRACEHANDLE TraceHandle)
{
	struct etw_prov_state st;
	struct etw_prov_ref ref;

	if (!etw_logger_get(TraceHandle, &ref))
		return 0;
	etw_prov_state(&ref, &st);
	return st.session_level;
}

/*
 * The MOF data after a header of @hdr_size bytes, @size bytes in all, as
 * data descriptors; false when malformed.
 */
static bool etw_mof_data(const void *hdr, size_t hdr_size, size_t size,
			 ULONG flags, EVENT_DATA_DESCRIPTOR *data, ULONG *count)
{
	const MOF_FIELD *mof = (const void *)((const char *)hdr + hdr_size);
	size_t extra = size - hdr_size;
	ULONG i;

	if (!(flags & WNODE_FLAG_USE_MOF_PTR)) {
		EventDataDescCreate(&data[0], mof, (ULONG)extra);
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

/* The registration a logger handle stands for, while a session enables it. */
static ULONG etw_logger_ref(TRACEHANDLE logger, struct etw_prov_ref *ref)
{
	struct etw_prov_state st;

	if (!(logger & ETW_PROV_LOGGER_BIT) ||
	    !etw_prov_get(logger & ~ETW_PROV_LOGGER_BIT, ref) ||
	    !etw_prov_state(ref, &st))
		return ERROR_INVALID_HANDLE;
	return ERROR_SUCCESS;
}

/* A classic record: Class from @cls, @guid as its event-class GUID. */
static ULONG etw_classic_write(const struct etw_prov_ref *ref, ULONG cls,
			       const GUID *guid, ULONG flags,
			       EVENT_DATA_DESCRIPTOR *data, ULONG count)
{
	struct etw_write_args a;

	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.descriptor.opcode = cls & 0xff;
	a.descriptor.level = (cls >> 8) & 0xff;
	a.descriptor.version = (__u8)(cls >> 16);
	memcpy(&a.activity_id, guid, sizeof(a.activity_id));
	a.data_count = count;
	a.data_ptr = (uintptr_t)data;
	return etw_prov_write(ref, &a);
}

/**
 * TraceEvent() - write a classic event
 * @TraceHandle: the logger handle from GetTraceLoggerHandle
 * @EventTrace: header (Size covers the MOF data after it) and data; the
 *	event-class GUID is Guid, or *GuidPtr with WNODE_FLAG_USE_GUID_PTR
 *
 * Context: any thread.
 * Return: 0; ERROR_INVALID_HANDLE for a handle that is not a logger handle
 * of a live registration or whose provider no session enables any more;
 * ERROR_INVALID_PARAMETER for a NULL or malformed header or a NULL
 * GuidPtr; the write errors of EventWrite.
 */
ULONG WMIAPI TraceEvent(TRACEHANDLE TraceHandle, PEVENT_TRACE_HEADER EventTrace)
{
	EVENT_DATA_DESCRIPTOR data[MAX_MOF_FIELDS];
	struct etw_prov_ref ref;
	const GUID *guid;
	ULONG count;

	if (!(TraceHandle & ETW_PROV_LOGGER_BIT) ||
	    !etw_prov_get(TraceHandle & ~ETW_PROV_LOGGER_BIT, &ref))
		return ERROR_INVALID_HANDLE;
	if (!EventTrace || EventTrace->Size < sizeof(*EventTrace) ||
	    !etw_mof_data(EventTrace, sizeof(*EventTrace), EventTrace->Size,
			  EventTrace->Flags, data, &count))
		return ERROR_INVALID_PARAMETER;
	guid = &EventTrace->Guid;
	if (EventTrace->Flags & WNODE_FLAG_USE_GUID_PTR)
		guid = (const GUID *)(uintptr_t)EventTrace->GuidPtr;
	if (!guid)
		return ERROR_INVALID_PARAMETER;
	/* The logger handle stands for the session that enabled us. */
	if (etw_logger_ref(TraceHandle, &ref))
		return ERROR_INVALID_HANDLE;
	return etw_classic_write(&ref, EventTrace->Version, guid,
				 ETW_WRITE_CLASSIC, data, count);
}

/**
 * CreateTraceInstanceId() - a new instance id of an event class
 * @RegHandle: the class's TRACE_GUID_REGISTRATION.RegHandle
 * @InstInfo: out: @RegHandle and the id
 *
 * Ids count up from 1 per class (0 is skipped when they wrap).
 *
 * Context: any thread.
 * Return: 0; ERROR_INVALID_PARAMETER for a NULL argument;
 * ERROR_INVALID_HANDLE for a handle that names no live class.
 */
ULONG WMIAPI CreateTraceInstanceId(HANDLE RegHandle,
				   PEVENT_INSTANCE_INFO InstInfo)
{
	struct etw_class *c;

	if (!RegHandle || !InstInfo)
		return ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&etw_classes_lock);
	c = etw_class_find(RegHandle);
	if (c) {
		if (!++c->last_id)
			c->last_id = 1;
		InstInfo->RegHandle = RegHandle;
		InstInfo->InstanceId = c->last_id;
	}
	pthread_mutex_unlock(&etw_classes_lock);
	return c ? ERROR_SUCCESS : ERROR_INVALID_HANDLE;
}

/* EVENT_INSTANCE_GUID_HEADER's fields after EVENT_TRACE_HEADER. */
struct etw_instance_fields {
	ULONG instance_id;
	ULONG parent_instance_id;
	GUID parent_guid;
};

_Static_assert(sizeof(struct etw_instance_fields) ==
	       ETW_INSTANCE_FIELDS_SIZE, "instance fields");

static ULONG etw_instance_fields(const EVENT_INSTANCE_INFO *inst,
				 const EVENT_INSTANCE_INFO *parent,
				 GUID *guid, struct etw_instance_fields *f)
{
	memset(f, 0, sizeof(*f));
	if (!inst->RegHandle || (parent && !parent->RegHandle))
		return ERROR_INVALID_PARAMETER;
	if (!etw_class_guid(inst->RegHandle, guid) ||
	    (parent && !etw_class_guid(parent->RegHandle, &f->parent_guid)))
		return ERROR_INVALID_HANDLE;
	f->instance_id = inst->InstanceId;
	f->parent_instance_id = parent ? parent->InstanceId : 0;
	return ERROR_SUCCESS;
}

/**
 * TraceEventInstance() - write a classic event of an instance
 * @TraceHandle: the logger handle from GetTraceLoggerHandle
 * @EventTrace: header (Size covers the MOF data after it; Flags must have
 *	WNODE_FLAG_TRACED_GUID) and data
 * @InstInfo: the event's class and instance (CreateTraceInstanceId)
 * @ParentInstInfo: the parent's class and instance, or NULL
 *
 * The record is an EVENT_INSTANCE_GUID_HEADER: the class GUID of
 * @InstInfo, its InstanceId, the parent's InstanceId and class GUID (zero
 * without a parent).
 *
 * Context: any thread.
 * Return: 0; ERROR_INVALID_PARAMETER for a TraceHandle of 0, a NULL
 * @EventTrace or @InstInfo, a NULL RegHandle in either info, or a
 * malformed header; ERROR_INVALID_FLAGS without WNODE_FLAG_TRACED_GUID;
 * ERROR_INVALID_HANDLE for a handle that is not a live logger handle
 * (or whose provider no session enables) and for a RegHandle that names
 * no live class; the write errors of EventWrite.
 */
ULONG WMIAPI TraceEventInstance(TRACEHANDLE TraceHandle,
				PEVENT_INSTANCE_HEADER EventTrace,
				PEVENT_INSTANCE_INFO InstInfo,
				PEVENT_INSTANCE_INFO ParentInstInfo)
{
	EVENT_DATA_DESCRIPTOR data[1 + MAX_MOF_FIELDS];
	struct etw_instance_fields f;
	struct etw_prov_ref ref;
	ULONG count, err;
	GUID guid;

	if (!TraceHandle || !EventTrace || !InstInfo)
		return ERROR_INVALID_PARAMETER;
	if (!(EventTrace->Flags & WNODE_FLAG_TRACED_GUID))
		return ERROR_INVALID_FLAGS;
	if (EventTrace->Size < sizeof(*EventTrace) ||
	    !etw_mof_data(EventTrace, sizeof(*EventTrace), EventTrace->Size,
			  EventTrace->Flags, data + 1, &count))
		return ERROR_INVALID_PARAMETER;
	err = etw_instance_fields(InstInfo, ParentInstInfo, &guid, &f);
	if (!err)
		err = etw_logger_ref(TraceHandle, &ref);
	if (err)
		return err;
	EventDataDescCreate(&data[0], &f, sizeof(f));
	return etw_classic_write(&ref, EventTrace->Version, &guid,
				 ETW_WRITE_CLASSIC | ETW_WRITE_INSTANCE,
				 data, count + 1);
}

/* The flags TraceMessage knows; others are ERROR_INVALID_PARAMETER. */
#define ETW_MESSAGE_KNOWN	(TRACE_MESSAGE_SEQUENCE | TRACE_MESSAGE_GUID | \
	TRACE_MESSAGE_COMPONENTID | TRACE_MESSAGE_TIMESTAMP | \
	TRACE_MESSAGE_PERFORMANCE_TIMESTAMP | TRACE_MESSAGE_SYSTEMINFO | \
	TRACE_MESSAGE_POINTER32 | TRACE_MESSAGE_POINTER64)
#define ETW_MESSAGE_POINTER	(sizeof(void *) == 8 ? \
	TRACE_MESSAGE_POINTER64 : TRACE_MESSAGE_POINTER32)

/* The (pointer, size) pairs up to the NULL pointer, as descriptors. */
static ULONG etw_message_args(va_list ap, EVENT_DATA_DESCRIPTOR *d,
			      ULONG *count)
{
	size_t len, total = 0;
	const void *p;

	*count = 0;
	while ((p = va_arg(ap, const void *))) {
		len = va_arg(ap, size_t);
		if (*count == ETW_MAX_DATA_DESCRIPTORS)
			return ERROR_INVALID_PARAMETER;
		total += len;
		/* An event is at most a session buffer, under 64 KiB. */
		if (len > TRACE_MESSAGE_MAXIMUM_SIZE ||
		    total > TRACE_MESSAGE_MAXIMUM_SIZE)
			return ERROR_MORE_DATA;
		EventDataDescCreate(&d[(*count)++], p, (ULONG)len);
	}
	return ERROR_SUCCESS;
}

static ULONG etw_message_flags(ULONG flags, LPCGUID guid)
{
	if (flags & ~ETW_MESSAGE_KNOWN)
		return ERROR_INVALID_PARAMETER;
	if ((flags & TRACE_MESSAGE_GUID) && (flags & TRACE_MESSAGE_COMPONENTID))
		return ERROR_INVALID_PARAMETER;
	if ((flags & (TRACE_MESSAGE_GUID | TRACE_MESSAGE_COMPONENTID)) && !guid)
		return ERROR_INVALID_PARAMETER;
	return ERROR_SUCCESS;
}

/**
 * TraceMessageVa() - write a WPP message
 * @SessionHandle: the logger handle from GetTraceLoggerHandle
 * @MessageFlags: TRACE_MESSAGE_*: the fields to record before the data
 * @MessageGuid: the message GUID (TRACE_MESSAGE_GUID), or a pointer to the
 *	component id's ULONG (TRACE_MESSAGE_COMPONENTID)
 * @MessageNumber: the message's number
 * @MessageArgList: (PVOID, size_t) pairs, ended by a NULL pointer
 *
 * Without TRACE_MESSAGE_POINTER32 or POINTER64 in @MessageFlags the
 * writer's pointer size is added, which decoders need for %p arguments.
 *
 * Context: any thread.
 * Return: 0; ERROR_INVALID_HANDLE for a handle of 0, one that is not a
 * live logger handle, or whose provider no session enables;
 * ERROR_INVALID_PARAMETER for unknown flags, GUID together with
 * COMPONENTID, a NULL @MessageGuid they need, or more than 128 arguments;
 * ERROR_MORE_DATA when the arguments exceed 64 KiB or the session's
 * buffer; ERROR_NOT_ENOUGH_MEMORY when the session had no free buffer.
 */
ULONG WMIAPI TraceMessageVa(TRACEHANDLE SessionHandle, ULONG MessageFlags,
			    LPCGUID MessageGuid, USHORT MessageNumber,
			    va_list MessageArgList)
{
	EVENT_DATA_DESCRIPTOR data[ETW_MAX_DATA_DESCRIPTORS];
	struct etw_write_args a;
	struct etw_prov_ref ref;
	ULONG count, err;

	err = etw_logger_ref(SessionHandle, &ref);
	if (!err)
		err = etw_message_flags(MessageFlags, MessageGuid);
	if (!err)
		err = etw_message_args(MessageArgList, data, &count);
	if (err)
		return err;
	if (!(MessageFlags & (TRACE_MESSAGE_POINTER32 |
			      TRACE_MESSAGE_POINTER64)))
		MessageFlags |= ETW_MESSAGE_POINTER;
	memset(&a, 0, sizeof(a));
	a.flags = ETW_WRITE_MESSAGE;
	a.descriptor.id = MessageNumber;
	a.descriptor.task = (__u16)MessageFlags;
	if (MessageFlags & TRACE_MESSAGE_COMPONENTID)
		memcpy(&a.activity_id, MessageGuid, sizeof(ULONG));
	else if (MessageFlags & TRACE_MESSAGE_GUID)
		memcpy(&a.activity_id, MessageGuid, sizeof(a.activity_id));
	a.data_count = count;
	a.data_ptr = (uintptr_t)data;
	return etw_prov_write(&ref, &a);
}

/**
 * TraceMessage() - TraceMessageVa() with the arguments in the call
 * @SessionHandle: the logger handle
 * @MessageFlags: TRACE_MESSAGE_*
 * @MessageGuid: the message GUID or component id
 * @MessageNumber: the message's number
 * @...: (PVOID, size_t) pairs, ended by a NULL pointer
 *
 * Context: any thread.
 * Return: as TraceMessageVa().
 */
ULONG __cdecl TraceMessage(TRACEHANDLE SessionHandle, ULONG MessageFlags,
			   LPCGUID MessageGuid, USHORT MessageNumber, ...)
{
	va_list ap;
	ULONG err;

	va_start(ap, MessageNumber);
	err = TraceMessageVa(SessionHandle, MessageFlags, MessageGuid,
			     MessageNumber, ap);
	va_end(ap);
	return err;
}
