/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * evntprov.h - the ETW provider API: register a provider, ask whether an
 * event is wanted, write it.
 *
 * Layouts and values are the Windows SDK's (x64); libetw hands descriptor
 * arrays to /dev/etw unchanged, so these structs must stay byte-identical
 * to the uapi ones in <linux/etw.h> (userlib/tests/layout_test.c checks).
 */
#ifndef _EVNTPROV_H_
#define _EVNTPROV_H_

#include <windows.h>

#define EVENT_MIN_LEVEL			0
#define EVENT_MAX_LEVEL			0xff

#define EVENT_ACTIVITY_CTRL_GET_ID		1
#define EVENT_ACTIVITY_CTRL_SET_ID		2
#define EVENT_ACTIVITY_CTRL_CREATE_ID		3
#define EVENT_ACTIVITY_CTRL_GET_SET_ID		4
#define EVENT_ACTIVITY_CTRL_CREATE_SET_ID	5

#define MAX_EVENT_DATA_DESCRIPTORS		128
#define MAX_EVENT_FILTER_DATA_SIZE		1024
#define MAX_EVENT_FILTER_PAYLOAD_SIZE		4096
#define MAX_EVENT_FILTER_EVENT_NAME_SIZE	4096
#define MAX_EVENT_FILTERS_COUNT			13
#define MAX_EVENT_FILTER_PID_COUNT		8
#define MAX_EVENT_FILTER_EVENT_ID_COUNT		64

#define EVENT_FILTER_TYPE_NONE			0x00000000
#define EVENT_FILTER_TYPE_SCHEMATIZED		0x80000000
#define EVENT_FILTER_TYPE_SYSTEM_FLAGS		0x80000001
#define EVENT_FILTER_TYPE_TRACEHANDLE		0x80000002
#define EVENT_FILTER_TYPE_PID			0x80000004
#define EVENT_FILTER_TYPE_EXECUTABLE_NAME	0x80000008
#define EVENT_FILTER_TYPE_PACKAGE_ID		0x80000010
#define EVENT_FILTER_TYPE_PACKAGE_APP_ID	0x80000020
#define EVENT_FILTER_TYPE_PAYLOAD		0x80000100
#define EVENT_FILTER_TYPE_EVENT_ID		0x80000200
#define EVENT_FILTER_TYPE_EVENT_NAME		0x80000400
#define EVENT_FILTER_TYPE_STACKWALK		0x80001000
#define EVENT_FILTER_TYPE_STACKWALK_NAME	0x80002000
#define EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW	0x80004000
#define EVENT_FILTER_TYPE_CONTAINER		0x80008000

/* What EVENT_DATA_DESCRIPTOR.Type says the data is. */
#define EVENT_DATA_DESCRIPTOR_TYPE_NONE			0
#define EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA	1
#define EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA	2
#define EVENT_DATA_DESCRIPTOR_TYPE_TIMESTAMP_OVERRIDE	3
#define EVENT_DATA_DESCRIPTOR_TYPE_RESERVED1		4

/* EventWriteEx Flags. */
#define EVENT_WRITE_FLAG_NO_FAULTING		0x00000001
#define EVENT_WRITE_FLAG_INPRIVATE		0x00000002

#ifdef __cplusplus
extern "C" {
#endif

typedef ULONGLONG REGHANDLE, *PREGHANDLE;

/*
 * One piece of an event's payload.  Ptr is the address widened to 64 bits
 * so that the layout does not depend on the pointer size.
 */
typedef struct _EVENT_DATA_DESCRIPTOR {
	ULONGLONG Ptr;
	ULONG Size;
	_ETW_NAMELESS union {
		ULONG Reserved;
		_ETW_NAMELESS struct {
			UCHAR Type;
			UCHAR Reserved1;
			USHORT Reserved2;
		} DUMMYSTRUCTNAME;
	} DUMMYUNIONNAME;
} EVENT_DATA_DESCRIPTOR, *PEVENT_DATA_DESCRIPTOR;

#ifndef EVENT_DESCRIPTOR_DEF
#define EVENT_DESCRIPTOR_DEF
/* What an event is: the fields sessions filter on (level, keyword). */
typedef struct _EVENT_DESCRIPTOR {
	USHORT Id;
	UCHAR Version;
	UCHAR Channel;
	UCHAR Level;
	UCHAR Opcode;
	USHORT Task;
	ULONGLONG Keyword;
} EVENT_DESCRIPTOR, *PEVENT_DESCRIPTOR;
typedef const EVENT_DESCRIPTOR *PCEVENT_DESCRIPTOR;
#endif

/* A filter a controller passes with EnableTraceEx2 (Ptr/Size = its data). */
struct _EVENT_FILTER_DESCRIPTOR {
	ULONGLONG Ptr;
	ULONG Size;
	ULONG Type;
};
/* evntrace.h needs the pointer type too; C99 forbids a second typedef. */
#ifndef DEFINED_PEVENT_FILTER_DESC
#define DEFINED_PEVENT_FILTER_DESC
typedef struct _EVENT_FILTER_DESCRIPTOR EVENT_FILTER_DESCRIPTOR,
	*PEVENT_FILTER_DESCRIPTOR;
#endif

/* Header of schematized filter data as the provider callback sees it. */
typedef struct _EVENT_FILTER_HEADER {
	USHORT Id;
	UCHAR Version;
	UCHAR Reserved[5];
	ULONGLONG InstanceId;
	ULONG Size;
	ULONG NextOffset;
} EVENT_FILTER_HEADER, *PEVENT_FILTER_HEADER;

/* Data of EVENT_FILTER_TYPE_EVENT_ID and EVENT_FILTER_TYPE_STACKWALK. */
typedef struct _EVENT_FILTER_EVENT_ID {
	BOOLEAN FilterIn;
	UCHAR Reserved;
	USHORT Count;
	USHORT Events[ANYSIZE_ARRAY];
} EVENT_FILTER_EVENT_ID, *PEVENT_FILTER_EVENT_ID;

/*
 * Data of EVENT_FILTER_TYPE_EVENT_NAME and _STACKWALK_NAME: NameCount
 * NUL-terminated UTF-8 names packed one after another in Names.
 */
typedef struct _EVENT_FILTER_EVENT_NAME {
	ULONGLONG MatchAnyKeyword;
	ULONGLONG MatchAllKeyword;
	UCHAR Level;
	BOOLEAN FilterIn;
	USHORT NameCount;
	UCHAR Names[ANYSIZE_ARRAY];
} EVENT_FILTER_EVENT_NAME, *PEVENT_FILTER_EVENT_NAME;

/* Data of EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW. */
typedef struct _EVENT_FILTER_LEVEL_KW {
	ULONGLONG MatchAnyKeyword;
	ULONGLONG MatchAllKeyword;
	UCHAR Level;
	BOOLEAN FilterIn;
} EVENT_FILTER_LEVEL_KW, *PEVENT_FILTER_LEVEL_KW;

/* Payload filter predicates (EVENT_FILTER_TYPE_PAYLOAD, built by TDH). */
#define MAX_PAYLOAD_PREDICATES		8

#define PAYLOADFIELD_EQ			0
#define PAYLOADFIELD_NE			1
#define PAYLOADFIELD_LE			2
#define PAYLOADFIELD_GT			3
#define PAYLOADFIELD_LT			4
#define PAYLOADFIELD_GE			5
#define PAYLOADFIELD_BETWEEN		6
#define PAYLOADFIELD_NOTBETWEEN		7
#define PAYLOADFIELD_MODULO		8
#define PAYLOADFIELD_CONTAINS		20
#define PAYLOADFIELD_DOESNTCONTAIN	21
#define PAYLOADFIELD_IS			30
#define PAYLOADFIELD_ISNOT		31
#define PAYLOADFIELD_INVALID		32

typedef struct _PAYLOAD_FILTER_PREDICATE {
	LPWSTR FieldName;
	USHORT CompareOp;
	LPWSTR Value;
} PAYLOAD_FILTER_PREDICATE, *PPAYLOAD_FILTER_PREDICATE;

/* EventSetInformation classes. */
typedef enum _EVENT_INFO_CLASS {
	EventProviderBinaryTrackInfo,
	EventProviderSetReserved1,
	EventProviderSetTraits,
	EventProviderUseDescriptorType,
	EventProviderSetReserved2,
	MaxEventInfo
} EVENT_INFO_CLASS;

/*
 * Called when sessions enable or disable the provider.  IsEnabled is an
 * EVENT_CONTROL_CODE_* value; Level and the keywords are the aggregate of
 * all enabling sessions; FilterData is valid only during the call.
 */
typedef VOID (NTAPI *PENABLECALLBACK)(LPCGUID SourceId, ULONG IsEnabled,
		UCHAR Level, ULONGLONG MatchAnyKeyword,
		ULONGLONG MatchAllKeyword, PEVENT_FILTER_DESCRIPTOR FilterData,
		PVOID CallbackContext);

ULONG EVNTAPI EventRegister(LPCGUID ProviderId,
		PENABLECALLBACK EnableCallback, PVOID CallbackContext,
		PREGHANDLE RegHandle);
ULONG EVNTAPI EventUnregister(REGHANDLE RegHandle);
ULONG EVNTAPI EventSetInformation(REGHANDLE RegHandle,
		EVENT_INFO_CLASS InformationClass, PVOID EventInformation,
		ULONG InformationLength);
BOOLEAN EVNTAPI EventEnabled(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor);
BOOLEAN EVNTAPI EventProviderEnabled(REGHANDLE RegHandle, UCHAR Level,
		ULONGLONG Keyword);
ULONG EVNTAPI EventWrite(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor, ULONG UserDataCount,
		PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteTransfer(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor, LPCGUID ActivityId,
		LPCGUID RelatedActivityId, ULONG UserDataCount,
		PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteEx(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor, ULONG64 Filter,
		ULONG Flags, LPCGUID ActivityId, LPCGUID RelatedActivityId,
		ULONG UserDataCount, PEVENT_DATA_DESCRIPTOR UserData);
ULONG EVNTAPI EventWriteString(REGHANDLE RegHandle, UCHAR Level,
		ULONGLONG Keyword, PCWSTR String);
ULONG EVNTAPI EventActivityIdControl(ULONG ControlCode, LPGUID ActivityId);

#ifndef _WIN32
/*
 * etw extension, not in the Windows SDK: the GUID that EventSource and
 * TraceLogging derive from a provider name (SHA-1 name hash), so Linux
 * programs can register "MyCompany-MyProvider" under the GUID that .NET
 * and TraceLogging tools expect.  Name is UTF-8 and compared without
 * regard to case; see userlib/etw_guid.c for the exact rule.  Returns
 * ERROR_SUCCESS, or ERROR_INVALID_PARAMETER for NULL arguments or
 * malformed UTF-8.
 */
ULONG EVNTAPI EtwProviderGuidFromName(LPCSTR Name, GUID *Guid);

/*
 * etw extension: batched writes, for the whole process.  With TRUE, a
 * plain write (EventWrite, EventWriteString, EventWriteTransfer without a
 * related activity, EventWriteEx without Filter, Flags or related
 * activity, of a provider that does not use descriptor types) is copied
 * into a ring of the calling thread and returns ERROR_SUCCESS; the kernel
 * routes the ring's events, in the thread's order and with the time of
 * the write, at the thread's next direct write or other call into
 * /dev/etw, when half the ring is in use, at session flushes and stops,
 * at EventUnregister and when the thread exits.  A session that cannot
 * take a staged event counts it lost (the writer is not told), an
 * unreadable payload faults in the caller, and staged events carry none
 * of the extended items sessions ask for.  Other writes go directly, as
 * with FALSE, the default unless the environment has
 * ETW_BATCHED_WRITES=1.  Returns ERROR_SUCCESS.  See
 * Documentation/libetw.rst, "Batched writes".
 */
ULONG EVNTAPI EtwSetBatchedWrites(BOOLEAN Enable);

/*
 * etw extension: the enable check of a disabled provider without a call.
 * Entry RegHandle % ETW_REGISTRATION_SLOTS points at a word that is
 * zero while no session enables the registration of that slot (unused
 * slots point at a word that is always zero).  A zero word answers FALSE
 * for any handle: a valid one is disabled, an invalid one gets FALSE
 * anyway.  A non-zero word sends the call to the library, which validates
 * the handle and applies the level and keyword rules.  The handle
 * encoding behind this is part of libetw's ABI (Documentation/libetw.rst);
 * (EventEnabled)(...) calls the library directly.
 */
#define ETW_REGISTRATION_SLOTS	1024

extern const volatile ULONG *volatile
	EtwRegistrationEnabled[ETW_REGISTRATION_SLOTS];

FORCEINLINE BOOLEAN EtwRegistrationMaybeEnabled(REGHANDLE RegHandle)
{
	return *EtwRegistrationEnabled[RegHandle &
				       (ETW_REGISTRATION_SLOTS - 1)] != 0;
}

FORCEINLINE BOOLEAN EtwEventEnabledInline(REGHANDLE RegHandle,
		PCEVENT_DESCRIPTOR EventDescriptor)
{
	if (!EtwRegistrationMaybeEnabled(RegHandle))
		return FALSE;
	return (EventEnabled)(RegHandle, EventDescriptor);
}

FORCEINLINE BOOLEAN EtwEventProviderEnabledInline(REGHANDLE RegHandle,
		UCHAR Level, ULONGLONG Keyword)
{
	if (!EtwRegistrationMaybeEnabled(RegHandle))
		return FALSE;
	return (EventProviderEnabled)(RegHandle, Level, Keyword);
}

#define EventEnabled(RegHandle, EventDescriptor) \
	EtwEventEnabledInline(RegHandle, EventDescriptor)
#define EventProviderEnabled(RegHandle, Level, Keyword) \
	EtwEventProviderEnabledInline(RegHandle, Level, Keyword)
#endif

/*
 * Headers mc.exe generates define their event templates as ETW_INLINE,
 * __inline unless defined before: C99 emits no out-of-line copy of a plain
 * inline function, so a template call the compiler does not inline would
 * not link.  Static gives each C unit its copy; C++ inline needs nothing.
 */
#if !defined(ETW_INLINE) && !defined(__cplusplus)
#define ETW_INLINE	static __inline__
#endif

/* Inline helpers the SDK provides for filling descriptors. */

FORCEINLINE VOID EventDataDescCreate(PEVENT_DATA_DESCRIPTOR EventDataDescriptor,
		const VOID *DataPtr, ULONG DataSize)
{
	EventDataDescriptor->Ptr = (ULONGLONG)(ULONG_PTR)DataPtr;
	EventDataDescriptor->Size = DataSize;
	EventDataDescriptor->Reserved = 0;
}

/* Note the argument order: Task comes before Opcode. */
FORCEINLINE VOID EventDescCreate(PEVENT_DESCRIPTOR EventDescriptor,
		USHORT Id, UCHAR Version, UCHAR Channel, UCHAR Level,
		USHORT Task, UCHAR Opcode, ULONGLONG Keyword)
{
	EventDescriptor->Id = Id;
	EventDescriptor->Version = Version;
	EventDescriptor->Channel = Channel;
	EventDescriptor->Level = Level;
	EventDescriptor->Task = Task;
	EventDescriptor->Opcode = Opcode;
	EventDescriptor->Keyword = Keyword;
}

FORCEINLINE VOID EventDescZero(PEVENT_DESCRIPTOR EventDescriptor)
{
	memset(EventDescriptor, 0, sizeof(EVENT_DESCRIPTOR));
}

FORCEINLINE USHORT EventDescGetId(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Id;
}

FORCEINLINE UCHAR EventDescGetVersion(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Version;
}

FORCEINLINE USHORT EventDescGetTask(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Task;
}

FORCEINLINE UCHAR EventDescGetOpcode(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Opcode;
}

FORCEINLINE UCHAR EventDescGetChannel(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Channel;
}

FORCEINLINE UCHAR EventDescGetLevel(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Level;
}

FORCEINLINE ULONGLONG EventDescGetKeyword(PCEVENT_DESCRIPTOR EventDescriptor)
{
	return EventDescriptor->Keyword;
}

FORCEINLINE PEVENT_DESCRIPTOR EventDescSetId(PEVENT_DESCRIPTOR EventDescriptor,
		USHORT Id)
{
	EventDescriptor->Id = Id;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetVersion(PEVENT_DESCRIPTOR EventDescriptor, UCHAR Version)
{
	EventDescriptor->Version = Version;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetTask(PEVENT_DESCRIPTOR EventDescriptor, USHORT Task)
{
	EventDescriptor->Task = Task;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetOpcode(PEVENT_DESCRIPTOR EventDescriptor, UCHAR Opcode)
{
	EventDescriptor->Opcode = Opcode;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetChannel(PEVENT_DESCRIPTOR EventDescriptor, UCHAR Channel)
{
	EventDescriptor->Channel = Channel;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetLevel(PEVENT_DESCRIPTOR EventDescriptor, UCHAR Level)
{
	EventDescriptor->Level = Level;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescSetKeyword(PEVENT_DESCRIPTOR EventDescriptor, ULONGLONG Keyword)
{
	EventDescriptor->Keyword = Keyword;
	return EventDescriptor;
}

FORCEINLINE PEVENT_DESCRIPTOR
EventDescOrKeyword(PEVENT_DESCRIPTOR EventDescriptor, ULONGLONG Keyword)
{
	EventDescriptor->Keyword |= Keyword;
	return EventDescriptor;
}

#ifdef __cplusplus
}
#endif

/* L"..." without -fshort-wchar: a message naming the flag (windows.h). */
_ETW_WCHAR_T_GUARD(EventWriteString, (REGHANDLE, UCHAR, ULONGLONG,
				      const wchar_t *))

#endif /* _EVNTPROV_H_ */
