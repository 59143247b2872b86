/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * evntcons.h - the ETW consumer's view of an event: EVENT_RECORD, its
 * EVENT_HEADER and extended data items, plus the enable properties and
 * processing modes that decide what a consumer receives.
 *
 * Layouts are the Windows SDK's on x64.  EVENT_HEADER is also the layout
 * of a modern event inside a session buffer and an .etl file (struct
 * etw_event_header in <linux/etw.h> mirrors it).
 */
#ifndef _EVNTCONS_H_
#define _EVNTCONS_H_

#include <windows.h>
#include <wmistr.h>
#include <evntrace.h>
#include <evntprov.h>

/* EVENT_HEADER_EXTENDED_DATA_ITEM.ExtType. */
#define EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID	0x0001
#define EVENT_HEADER_EXT_TYPE_SID			0x0002
#define EVENT_HEADER_EXT_TYPE_TS_ID			0x0003
#define EVENT_HEADER_EXT_TYPE_INSTANCE_INFO		0x0004
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE32		0x0005
#define EVENT_HEADER_EXT_TYPE_STACK_TRACE64		0x0006
#define EVENT_HEADER_EXT_TYPE_PEBS_INDEX		0x0007
#define EVENT_HEADER_EXT_TYPE_PMC_COUNTERS		0x0008
#define EVENT_HEADER_EXT_TYPE_PSM_KEY			0x0009
#define EVENT_HEADER_EXT_TYPE_EVENT_KEY			0x000A
#define EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL		0x000B
#define EVENT_HEADER_EXT_TYPE_PROV_TRAITS		0x000C
#define EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY		0x000D
#define EVENT_HEADER_EXT_TYPE_CONTROL_GUID		0x000E
#define EVENT_HEADER_EXT_TYPE_QPC_DELTA			0x000F
#define EVENT_HEADER_EXT_TYPE_CONTAINER_ID		0x0010
#define EVENT_HEADER_EXT_TYPE_STACK_KEY32		0x0011
#define EVENT_HEADER_EXT_TYPE_STACK_KEY64		0x0012
#define EVENT_HEADER_EXT_TYPE_MAX			0x0013

/* EVENT_HEADER.EventProperty. */
#define EVENT_HEADER_PROPERTY_XML			0x0001
#define EVENT_HEADER_PROPERTY_FORWARDED_XML		0x0002
#define EVENT_HEADER_PROPERTY_LEGACY_EVENTLOG		0x0004
#define EVENT_HEADER_PROPERTY_RELOGGABLE		0x0008

/* EVENT_HEADER.Flags. */
#define EVENT_HEADER_FLAG_EXTENDED_INFO			0x0001
#define EVENT_HEADER_FLAG_PRIVATE_SESSION		0x0002
#define EVENT_HEADER_FLAG_STRING_ONLY			0x0004
#define EVENT_HEADER_FLAG_TRACE_MESSAGE			0x0008
#define EVENT_HEADER_FLAG_NO_CPUTIME			0x0010
#define EVENT_HEADER_FLAG_32_BIT_HEADER			0x0020
#define EVENT_HEADER_FLAG_64_BIT_HEADER			0x0040
#define EVENT_HEADER_FLAG_DECODE_GUID			0x0080
#define EVENT_HEADER_FLAG_CLASSIC_HEADER		0x0100
#define EVENT_HEADER_FLAG_PROCESSOR_INDEX		0x0200
#define EVENT_HEADER_FLAG_RESERVED1			0x0400

/* ENABLE_TRACE_PARAMETERS.EnableProperty. */
#define EVENT_ENABLE_PROPERTY_SID			0x00000001
#define EVENT_ENABLE_PROPERTY_TS_ID			0x00000002
#define EVENT_ENABLE_PROPERTY_STACK_TRACE		0x00000004
#define EVENT_ENABLE_PROPERTY_PSM_KEY			0x00000008
#define EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0		0x00000010
#define EVENT_ENABLE_PROPERTY_PROVIDER_GROUP		0x00000020
#define EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0		0x00000040
#define EVENT_ENABLE_PROPERTY_PROCESS_START_KEY		0x00000080
#define EVENT_ENABLE_PROPERTY_EVENT_KEY			0x00000100
#define EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE		0x00000200
#define EVENT_ENABLE_PROPERTY_ENABLE_SILOS		0x00000400
#define EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING	0x00000800

/* EVENT_TRACE_LOGFILE.ProcessTraceMode. */
#define PROCESS_TRACE_MODE_REAL_TIME			0x00000100
#define PROCESS_TRACE_MODE_RAW_TIMESTAMP		0x00001000
#define PROCESS_TRACE_MODE_EVENT_RECORD			0x10000000

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	EventSecuritySetDACL,
	EventSecuritySetSACL,
	EventSecurityAddDACL,
	EventSecurityAddSACL,
	EventSecurityMax
} EVENTSECURITYOPERATION;

#ifndef EVENT_HEADER_EXTENDED_DATA_ITEM_DEF
#define EVENT_HEADER_EXTENDED_DATA_ITEM_DEF
/*
 * 16 bytes; EVENT_RECORD.ExtendedData points to ExtendedDataCount of
 * these.  DataPtr is a 64-bit address of DataSize bytes of data.
 */
typedef struct _EVENT_HEADER_EXTENDED_DATA_ITEM {
	USHORT Reserved1;
	USHORT ExtType;
	_ETW_NAMELESS struct {
		USHORT Linkage : 1;
		USHORT Reserved2 : 15;
	} DUMMYSTRUCTNAME;
	USHORT DataSize;
	ULONGLONG DataPtr;
} EVENT_HEADER_EXTENDED_DATA_ITEM, *PEVENT_HEADER_EXTENDED_DATA_ITEM;
#endif

/* Data of the extended item types, one struct per type. */
typedef struct _EVENT_EXTENDED_ITEM_INSTANCE {
	ULONG InstanceId;
	ULONG ParentInstanceId;
	GUID ParentGuid;
} EVENT_EXTENDED_ITEM_INSTANCE, *PEVENT_EXTENDED_ITEM_INSTANCE;

typedef struct _EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID {
	GUID RelatedActivityId;
} EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID,
	*PEVENT_EXTENDED_ITEM_RELATED_ACTIVITYID;

typedef struct _EVENT_EXTENDED_ITEM_TS_ID {
	ULONG SessionId;
} EVENT_EXTENDED_ITEM_TS_ID, *PEVENT_EXTENDED_ITEM_TS_ID;

/* The frame count is (DataSize - 8) / sizeof(Address[0]). */
typedef struct _EVENT_EXTENDED_ITEM_STACK_TRACE32 {
	ULONG64 MatchId;
	ULONG Address[ANYSIZE_ARRAY];
} EVENT_EXTENDED_ITEM_STACK_TRACE32, *PEVENT_EXTENDED_ITEM_STACK_TRACE32;

typedef struct _EVENT_EXTENDED_ITEM_STACK_TRACE64 {
	ULONG64 MatchId;
	ULONG64 Address[ANYSIZE_ARRAY];
} EVENT_EXTENDED_ITEM_STACK_TRACE64, *PEVENT_EXTENDED_ITEM_STACK_TRACE64;

typedef struct _EVENT_EXTENDED_ITEM_STACK_KEY32 {
	ULONG64 MatchId;
	ULONG StackKey;
	ULONG Padding;
} EVENT_EXTENDED_ITEM_STACK_KEY32, *PEVENT_EXTENDED_ITEM_STACK_KEY32;

typedef struct _EVENT_EXTENDED_ITEM_STACK_KEY64 {
	ULONG64 MatchId;
	ULONG64 StackKey;
} EVENT_EXTENDED_ITEM_STACK_KEY64, *PEVENT_EXTENDED_ITEM_STACK_KEY64;

typedef struct _EVENT_EXTENDED_ITEM_PEBS_INDEX {
	ULONG64 PebsIndex;
} EVENT_EXTENDED_ITEM_PEBS_INDEX, *PEVENT_EXTENDED_ITEM_PEBS_INDEX;

typedef struct _EVENT_EXTENDED_ITEM_PMC_COUNTERS {
	ULONG64 Counter[ANYSIZE_ARRAY];
} EVENT_EXTENDED_ITEM_PMC_COUNTERS, *PEVENT_EXTENDED_ITEM_PMC_COUNTERS;

typedef struct _EVENT_EXTENDED_ITEM_PROCESS_START_KEY {
	ULONG64 ProcessStartKey;
} EVENT_EXTENDED_ITEM_PROCESS_START_KEY,
	*PEVENT_EXTENDED_ITEM_PROCESS_START_KEY;

typedef struct _EVENT_EXTENDED_ITEM_EVENT_KEY {
	ULONG64 Key;
} EVENT_EXTENDED_ITEM_EVENT_KEY, *PEVENT_EXTENDED_ITEM_EVENT_KEY;

#ifndef EVENT_HEADER_DEF
#define EVENT_HEADER_DEF
/*
 * 80 bytes.  TimeStamp is a FILETIME after ProcessTrace converts it, or
 * the session's raw clock with PROCESS_TRACE_MODE_RAW_TIMESTAMP.
 * KernelTime/UserTime are CPU ticks; private sessions and events with
 * EVENT_HEADER_FLAG_NO_CPUTIME carry ProcessorTime instead.
 */
typedef struct _EVENT_HEADER {
	USHORT Size;
	USHORT HeaderType;
	USHORT Flags;
	USHORT EventProperty;
	ULONG ThreadId;
	ULONG ProcessId;
	LARGE_INTEGER TimeStamp;
	GUID ProviderId;
	EVENT_DESCRIPTOR EventDescriptor;
	_ETW_NAMELESS union {
		_ETW_NAMELESS struct {
			ULONG KernelTime;
			ULONG UserTime;
		} DUMMYSTRUCTNAME;
		ULONG64 ProcessorTime;
	} DUMMYUNIONNAME;
	GUID ActivityId;
} EVENT_HEADER, *PEVENT_HEADER;
#endif

#ifndef EVENT_RECORD_DEF
#define EVENT_RECORD_DEF
/*
 * 112 bytes; what an EVENT_RECORD callback receives.  The typedef names
 * come from evntrace.h (C99 allows one typedef per name).  UserContext is
 * EVENT_TRACE_LOGFILE.Context.
 */
struct _EVENT_RECORD {
	EVENT_HEADER EventHeader;
	ETW_BUFFER_CONTEXT BufferContext;
	USHORT ExtendedDataCount;
	USHORT UserDataLength;
	PEVENT_HEADER_EXTENDED_DATA_ITEM ExtendedData;
	PVOID UserData;
	PVOID UserContext;
};
typedef const EVENT_RECORD *PCEVENT_RECORD;
#endif

/* Provider trait types in a provider-traits blob. */
typedef enum {
	EtwProviderTraitTypeGroup = 1,
	EtwProviderTraitDecodeGuid = 2,
	EtwProviderTraitTypeMax
} ETW_PROVIDER_TRAIT_TYPE;

/*
 * The processor an event was logged on.  With more than 256 CPUs the
 * buffer context carries a 16-bit index, flagged in the event header.
 */
FORCEINLINE ULONG GetEventProcessorIndex(PCEVENT_RECORD EventRecord)
{
	if (EventRecord->EventHeader.Flags & EVENT_HEADER_FLAG_PROCESSOR_INDEX)
		return EventRecord->BufferContext.ProcessorIndex;
	return EventRecord->BufferContext.ProcessorNumber;
}

/*
 * Finds the first trait of TraitType in a provider-traits blob
 * (USHORT TotalSize, NUL-terminated name, then {USHORT Size, UCHAR Type,
 * data} records).  On return *Trait points at the trait's data and *Size
 * is its length, or NULL and 0 if there is none or the blob is malformed.
 * Sizes are read with memcpy because the blob need not be aligned.
 */
FORCEINLINE VOID EtwGetTraitFromProviderTraits(PVOID ProviderTraits,
		UCHAR TraitType, PVOID *Trait, PUSHORT Size)
{
	const UCHAR *p = (const UCHAR *)ProviderTraits;
	const UCHAR *end;
	const UCHAR *nul;
	USHORT total, len;

	*Trait = NULL;
	*Size = 0;
	memcpy(&total, p, sizeof(total));
	if (total < 3)
		return;
	end = p + total;
	p += 2;
	nul = (const UCHAR *)memchr(p, 0, total - 3);
	p = nul ? nul + 1 : p + (total - 3) + 1;
	while (p + 3 <= end) {
		memcpy(&len, p, sizeof(len));
		if (len < 3)
			return;
		if (p[2] == TraitType && len <= end - p) {
			*Trait = (PVOID)(p + 3);
			*Size = (USHORT)(len - 3);
			return;
		}
		p += len;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* _EVNTCONS_H_ */
