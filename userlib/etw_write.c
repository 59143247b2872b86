// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_write.c - the write entry points (EventWrite, EventWriteTransfer,
 * EventWriteEx, EventWriteString) and their direct write: the handle and
 * enable checks inlined, then the one ETW_IOC_WRITE system call.  A
 * process that switched batched writes on takes the entry points' out of
 * line copies instead: the _batched ones of etw_write_batched.c, which
 * stage, and the _direct ones here, which have the kernel drain what the
 * thread staged first.
 */
#include <errno.h>
#include <string.h>

#include "etw_batch.h"
#include "etw_provider.h"
#include "etw_write.h"

/* EventWrite hands these arrays to the kernel as they are. */
_Static_assert(sizeof(EVENT_DATA_DESCRIPTOR) ==
	       sizeof(struct etw_data_descriptor), "data descriptor");
_Static_assert(sizeof(EVENT_DESCRIPTOR) ==
	       sizeof(struct etw_event_descriptor), "event descriptor");
_Static_assert(sizeof(GUID) == sizeof(struct etw_guid), "GUID");

/* The write path's errors, as Windows documents them for EventWrite. */
static ULONG etw_write_error(int err)
{
	switch (-err) {
	case E2BIG:
		return ERROR_ARITHMETIC_OVERFLOW;
	case EMSGSIZE:
		return ERROR_MORE_DATA;
	case ENOBUFS:
		return ERROR_NOT_ENOUGH_MEMORY;
	case EBADF:
		return ERROR_INVALID_HANDLE;
	case EINVAL:
	case EFAULT:	/* an unreadable descriptor or payload */
		return ERROR_INVALID_PARAMETER;
	default:
		return etw_win32_from_errno(err);
	}
}

/* ETW_IOC_WRITE on the registration's file; @args lacks only the flags. */
static __always_inline ULONG
etw_prov_ioctl_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args)
{
	long err;

	args->size = sizeof(*args);
	args->reg_id = ref->reg_id;
	/* The same bit (etw_provider.h). */
	args->flags |= ref->flags & ETW_PROV_DESC_TYPES;
	err = etw_arch_ioctl(ref->fd, ETW_IOC_WRITE, args);
	if (!err)
		return ERROR_SUCCESS;
	return etw_write_error(err);
}

/**
 * etw_prov_write() - ETW_IOC_WRITE under a registration
 * @ref: the registration
 * @args: the event; size, reg_id and the descriptor-type flag are set here
 *
 * For the classic writes, which ETW_WRITE_DRAIN does not go with: a
 * thread that staged events has them routed first by a drain of its own.
 *
 * Return: a Win32 error (see etw_write_error()).
 */
ULONG etw_prov_write(const struct etw_prov_ref *ref,
		     struct etw_write_args *args)
{
	if (etw_batch_state() && etw_batch_pending())
		etw_batch_drain(&etw_batch_thread);
	return etw_prov_ioctl_write(ref, args);
}

/*
 * EventWriteEx's whole work, for a validated registration: the direct
 * write.  Inlined into each caller with everything it uses but the ioctl,
 * and every argument field stored once: under a TCG guest each call and
 * each rep-stos fill was measurable against the system call itself.
 */
static __always_inline ULONG
etw_event_write_ref(const struct etw_prov_ref *ref, PCEVENT_DESCRIPTOR desc,
		    ULONG64 filter, LPCGUID activity, LPCGUID related,
		    ULONG count, PEVENT_DATA_DESCRIPTOR data, uint32_t flags)
{
	struct etw_write_args a;

	if (!desc)
		return ERROR_INVALID_PARAMETER;
	/* As on Windows, a disabled event costs no system call. */
	if (!etw_prov_may_take(ref, desc->Level, desc->Keyword))
		return ERROR_SUCCESS;
	memcpy(&a.descriptor, desc, sizeof(a.descriptor));
	memcpy(&a.activity_id, activity ? activity : &etw_thread_activity,
	       sizeof(a.activity_id));
	if (related) {
		memcpy(&a.related_activity_id, related,
		       sizeof(a.related_activity_id));
		flags |= ETW_WRITE_RELATED_ACTIVITY;
	} else {
		memset(&a.related_activity_id, 0,
		       sizeof(a.related_activity_id));
	}
	a.flags = flags;
	a.data_count = count;
	/* EVENT_DATA_DESCRIPTOR is struct etw_data_descriptor. */
	a.data_ptr = (uintptr_t)data;
	a.exclude_mask = filter;
	return etw_prov_ioctl_write(ref, &a);
}

/* A direct write of a process that batches: after what the thread staged. */
static __always_inline uint32_t etw_batch_drain_flag(bool batched)
{
	return batched && etw_batch_pending() ? ETW_WRITE_DRAIN : 0;
}

static __always_inline ULONG
etw_event_write(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, LPCGUID activity,
		LPCGUID related, ULONG count, PEVENT_DATA_DESCRIPTOR data,
		bool batched)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	return etw_event_write_ref(&ref, desc, 0, activity, related, count,
				   data, etw_batch_drain_flag(batched));
}

/* EventWrite's and EventWriteTransfer's copy for a process that batches. */
__attribute_noinline__ ULONG
etw_event_write_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
		       LPCGUID activity, LPCGUID related, ULONG count,
		       PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write(handle, desc, activity, related, count, data,
			       true);
}

/**
 * EventWrite() - write an event with the thread's activity ID
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @UserDataCount: entries at @UserData, at most 128
 * @UserData: the payload pieces, concatenated without padding
 *
 * Return: 0 (also when no session takes the event), ERROR_INVALID_HANDLE,
 * ERROR_INVALID_PARAMETER (bad arguments, unreadable memory),
 * ERROR_ARITHMETIC_OVERFLOW (record over 64 KiB), ERROR_MORE_DATA (larger
 * than a session's buffer), ERROR_NOT_ENOUGH_MEMORY (a session had no free
 * buffer and lost the event).
 */
ULONG EVNTAPI EventWrite(REGHANDLE RegHandle,
			 PCEVENT_DESCRIPTOR EventDescriptor,
			 ULONG UserDataCount, PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	if (batching & ETW_BATCHING_ON)
		return etw_event_write_plain_batched(RegHandle, EventDescriptor,
						     UserDataCount, UserData);
	if (batching)
		return etw_event_write_direct(RegHandle, EventDescriptor, NULL,
					      NULL, UserDataCount, UserData);
	return etw_event_write(RegHandle, EventDescriptor, NULL, NULL,
			       UserDataCount, UserData, false);
}

/**
 * EventWriteTransfer() - write an event with explicit activity IDs
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @ActivityId: the activity, or NULL for the thread's
 * @RelatedActivityId: the related (parent) activity, or NULL for none
 * @UserDataCount: entries at @UserData
 * @UserData: the payload pieces
 *
 * Return: as EventWrite().
 */
ULONG EVNTAPI EventWriteTransfer(REGHANDLE RegHandle,
				 PCEVENT_DESCRIPTOR EventDescriptor,
				 LPCGUID ActivityId, LPCGUID RelatedActivityId,
				 ULONG UserDataCount,
				 PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	if ((batching & ETW_BATCHING_ON) && !RelatedActivityId)
		return etw_event_write_transfer_batched(RegHandle,
							EventDescriptor,
							ActivityId,
							UserDataCount,
							UserData);
	if (batching)
		return etw_event_write_direct(RegHandle, EventDescriptor,
					      ActivityId, RelatedActivityId,
					      UserDataCount, UserData);
	return etw_event_write(RegHandle, EventDescriptor, ActivityId,
			       RelatedActivityId, UserDataCount, UserData,
			       false);
}

static __always_inline ULONG
etw_event_write_ex(REGHANDLE handle, PCEVENT_DESCRIPTOR desc, ULONG64 filter,
		   ULONG flags, LPCGUID activity, LPCGUID related,
		   ULONG count, PEVENT_DATA_DESCRIPTOR data, bool batched)
{
	struct etw_prov_ref ref;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	if (flags & ~(EVENT_WRITE_FLAG_NO_FAULTING |
		      EVENT_WRITE_FLAG_INPRIVATE))
		return ERROR_INVALID_PARAMETER;
	return etw_event_write_ref(&ref, desc, filter, activity, related,
				   count, data, etw_batch_drain_flag(batched) |
				   ((flags & EVENT_WRITE_FLAG_INPRIVATE) ?
				    ETW_WRITE_INPRIVATE : 0));
}

/* EventWriteEx's copy for a process that batches. */
__attribute_noinline__ ULONG
etw_event_write_ex_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			  ULONG64 filter, ULONG flags, LPCGUID activity,
			  LPCGUID related, ULONG count,
			  PEVENT_DATA_DESCRIPTOR data)
{
	return etw_event_write_ex(handle, desc, filter, flags, activity,
				  related, count, data, true);
}

/**
 * EventWriteEx() - EventWriteTransfer() with a session filter and flags
 * @RegHandle: the handle
 * @EventDescriptor: the event
 * @Filter: OR of the InstanceId values (from the callback's filter data)
 *	of sessions that must not receive the event
 * @Flags: EVENT_WRITE_FLAG_NO_FAULTING (the write never faults in user
 *	memory here anyway) or _INPRIVATE (sessions that enabled the provider
 *	with EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE do not get the event)
 * @ActivityId: the activity, or NULL for the thread's
 * @RelatedActivityId: the related activity, or NULL
 * @UserDataCount: entries at @UserData
 * @UserData: the payload pieces
 *
 * Return: as EventWrite(); ERROR_INVALID_PARAMETER for unknown @Flags.
 */
ULONG EVNTAPI EventWriteEx(REGHANDLE RegHandle,
			   PCEVENT_DESCRIPTOR EventDescriptor, ULONG64 Filter,
			   ULONG Flags, LPCGUID ActivityId,
			   LPCGUID RelatedActivityId, ULONG UserDataCount,
			   PEVENT_DATA_DESCRIPTOR UserData)
{
	uint8_t batching = etw_batch_state();

	/* A filter or a flag is for the direct path. */
	if ((batching & ETW_BATCHING_ON) && !Filter && !Flags &&
	    !RelatedActivityId)
		return etw_event_write_ex_batched(RegHandle, EventDescriptor,
						  ActivityId, UserDataCount,
						  UserData);
	if (batching)
		return etw_event_write_ex_direct(RegHandle, EventDescriptor,
						 Filter, Flags, ActivityId,
						 RelatedActivityId,
						 UserDataCount, UserData);
	return etw_event_write_ex(RegHandle, EventDescriptor, Filter, Flags,
				  ActivityId, RelatedActivityId, UserDataCount,
				  UserData, false);
}

static size_t etw_wcslen(PCWSTR s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static __always_inline ULONG
etw_event_write_string(REGHANDLE handle, UCHAR level, ULONGLONG keyword,
		       PCWSTR string, bool batched)
{
	EVENT_DESCRIPTOR desc = { .Level = level, .Keyword = keyword };
	EVENT_DATA_DESCRIPTOR data;
	struct etw_prov_ref ref;
	size_t bytes;

	if (!etw_prov_lookup(handle, &ref))
		return ERROR_INVALID_HANDLE;
	if (!string)
		return ERROR_INVALID_PARAMETER;
	if (!etw_prov_may_take(&ref, level, keyword))
		return ERROR_SUCCESS;	/* before measuring the string */
	bytes = (etw_wcslen(string) + 1) * sizeof(WCHAR);
	if (bytes > ETW_MAX_EVENT_SIZE)
		return ERROR_ARITHMETIC_OVERFLOW;
	EventDataDescCreate(&data, string, (ULONG)bytes);
	if (batched && etw_batch_on() && etw_batch_plain(&ref) &&
	    etw_batch_stage(ref.fd, ref.reg_id, &desc, &etw_thread_activity,
			    1, &data, ETW_EVENT_FLAG_STRING_ONLY))
		return ERROR_SUCCESS;
	return etw_event_write_ref(&ref, &desc, 0, NULL, NULL, 1, &data,
				   ETW_WRITE_STRING_ONLY |
				   etw_batch_drain_flag(batched));
}

static __attribute_noinline__ ULONG
etw_event_write_string_batched(REGHANDLE handle, UCHAR level,
			       ULONGLONG keyword, PCWSTR string)
{
	return etw_event_write_string(handle, level, keyword, string, true);
}

/**
 * EventWriteString() - write a string-only event
 * @RegHandle: the handle
 * @Level: event level
 * @Keyword: event keyword
 * @String: NUL-terminated UTF-16 text; the NUL is part of the payload
 *
 * The event has Id, Version, Channel, Opcode and Task 0 and the header
 * flag EVENT_HEADER_FLAG_STRING_ONLY.
 *
 * Return: as EventWrite(); ERROR_INVALID_PARAMETER for a NULL @String.
 */
ULONG EVNTAPI EventWriteString(REGHANDLE RegHandle, UCHAR Level,
			       ULONGLONG Keyword, PCWSTR String)
{
	if (etw_batch_state())
		return etw_event_write_string_batched(RegHandle, Level, Keyword,
						      String);
	return etw_event_write_string(RegHandle, Level, Keyword, String,
				      false);
}
