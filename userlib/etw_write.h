/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw internals of the write path: the copies of the write entry points
 * that etw_write.c and etw_write_batched.c call in each other.  Not
 * installed.
 *
 * A process takes them once it switched batched writes on (etw_batch.h),
 * out of line, so that the direct path of the entry points keeps its
 * registers.  The _batched ones, while the switch is on and the event may
 * be plain, stage it; any other event goes to the _direct copy, with the
 * same arguments (a jump), which has the kernel drain the thread's ring
 * first.  Hidden: each call is a direct call or jump, as between the
 * functions of one file.
 */
#ifndef _ETW_WRITE_H
#define _ETW_WRITE_H

#include "etw_provider.h"

/* EventWrite and EventWriteTransfer, written directly after a drain. */
ULONG etw_event_write_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
			     LPCGUID activity, LPCGUID related, ULONG count,
			     PEVENT_DATA_DESCRIPTOR data)
	__attribute__((visibility("hidden")));

/* EventWriteEx, written directly after a drain. */
ULONG etw_event_write_ex_direct(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
				ULONG64 filter, ULONG flags, LPCGUID activity,
				LPCGUID related, ULONG count,
				PEVENT_DATA_DESCRIPTOR data)
	__attribute__((visibility("hidden")));

/* EventWrite, staged: the thread's activity. */
ULONG etw_event_write_plain_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
				    ULONG count, PEVENT_DATA_DESCRIPTOR data)
	__attribute__((visibility("hidden")));

/* EventWriteTransfer without a related activity, staged. */
ULONG etw_event_write_transfer_batched(REGHANDLE handle,
				       PCEVENT_DESCRIPTOR desc,
				       LPCGUID activity, ULONG count,
				       PEVENT_DATA_DESCRIPTOR data)
	__attribute__((visibility("hidden")));

/* EventWriteEx without a filter, flags or a related activity, staged. */
ULONG etw_event_write_ex_batched(REGHANDLE handle, PCEVENT_DESCRIPTOR desc,
				 LPCGUID activity, ULONG count,
				 PEVENT_DATA_DESCRIPTOR data)
	__attribute__((visibility("hidden")));

#endif /* _ETW_WRITE_H */
