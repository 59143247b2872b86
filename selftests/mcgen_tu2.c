// SPDX-License-Identifier: GPL-2.0
/*
 * Second provider unit of mcgen_test (C) and mcgen_cxx_test (C++17): the
 * same header with MCGEN_EVENTWRITETRANSFER overridden, as mc.exe allows
 * per unit, so its helpers have other names than mcgen_tu1.c's and both
 * sets link into one program.
 */
#define MCGEN_EVENTWRITETRANSFER mcgen_counted_write
#include "mcgen_provider.h"
#include "mcgen_events.h"
#include "mcgen_view.h"

static unsigned int mcgen_writes;

ULONG mcgen_counted_write(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor, LPCGUID ActivityId,
		LPCGUID RelatedActivityId, ULONG UserDataCount,
		PEVENT_DATA_DESCRIPTOR UserData)
{
	__atomic_add_fetch(&mcgen_writes, 1, __ATOMIC_RELAXED);
	return EventWriteTransfer(RegHandle, EventDescriptor, ActivityId,
				  RelatedActivityId, UserDataCount, UserData);
}

unsigned int mcgen_counted_writes(void)
{
	return __atomic_load_n(&mcgen_writes, __ATOMIC_RELAXED);
}

ULONG mcgen_write_stop(const GUID *activity, ULONGLONG bytes, INT status)
{
	return EventWriteTransferStop(activity, bytes, status);
}

ULONG mcgen_write_failure(const GUID *activity, UINT code, const char *msg)
{
	return EventWriteFailure(activity, code, msg);
}

ULONG mcgen_write_note(const GUID *activity, const char *text)
{
	return EventWriteNote(activity, text);
}

void mcgen_tu2_view(struct mcgen_view *v)
{
	mcgen_fill_view(v);
}
