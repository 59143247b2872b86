/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The provider side of mcgen_test and mcgen_cxx_test: mcgen_tu1.c and
 * mcgen_tu2.c include mcgen_events.h, which etwctl mc writes, and are
 * built as C for mcgen_test, as C++17 for mcgen_cxx_test, all with
 * -fshort-wchar (WCHAR strings are L"...").  The test itself is C and
 * sees the provider only through these functions.
 */
#ifndef _MCGEN_PROVIDER_H
#define _MCGEN_PROVIDER_H

#include <windows.h>
#include <evntprov.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The provider's state and selectany objects as one unit sees them. */
struct mcgen_view {
	const void *context;		/* &ETW_TEST_MCGEN_Context */
	const void *enable_bits;	/* ETW_TEST_MCGENEnableBits */
	const void *mask;		/* the context's EnableBitMask */
	const void *guid;		/* &ETW_TEST_MCGEN */
	const void *descriptor;		/* &TransferStart */
	const char *traits;		/* the context's Logger */
	unsigned int bits;		/* EnableBits[0] */
	unsigned int enabled;		/* bit i: EventEnabled<event i + 1>() */
	unsigned int checked;		/* bit i: MCGEN_ENABLE_CHECK(event) */
	ULONG is_enabled;
	UCHAR level;
	ULONGLONG any;
	ULONGLONG all;
	REGHANDLE handle;
};

/*
 * mcgen_tu1.c: registration, TransferStart, Heartbeat and FileOpened
 * (win:UnicodeString, win:UInt32), the callback
 */
ULONG mcgen_register(void);
ULONG mcgen_register_plain(void);
ULONG mcgen_unregister(void);
ULONG mcgen_write_start(const GUID *activity, const char *name,
			unsigned int size);
ULONG mcgen_write_heartbeat(const GUID *activity);
ULONG mcgen_write_file(const GUID *activity, PCWSTR path, UINT flags);
void mcgen_callback(ULONG code, UCHAR level, ULONGLONG any, ULONGLONG all);
void mcgen_tu1_view(struct mcgen_view *v);

/*
 * mcgen_tu2.c: TransferStop, Failure and Note (win:AnsiString), through
 * MCGEN_EVENTWRITETRANSFER set to mcgen_counted_write, which counts its
 * calls and calls EventWriteTransfer.
 */
ULONG mcgen_write_stop(const GUID *activity, ULONGLONG bytes, INT status);
ULONG mcgen_write_failure(const GUID *activity, UINT code, const char *msg);
ULONG mcgen_write_note(const GUID *activity, const char *text);
ULONG mcgen_counted_write(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor, LPCGUID ActivityId,
		LPCGUID RelatedActivityId, ULONG UserDataCount,
		PEVENT_DATA_DESCRIPTOR UserData);
unsigned int mcgen_counted_writes(void);
void mcgen_tu2_view(struct mcgen_view *v);

#ifdef __cplusplus
}
#endif

#endif /* _MCGEN_PROVIDER_H */
