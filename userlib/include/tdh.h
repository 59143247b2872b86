/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * tdh.h - the Trace Data Helper: an event's schema (TRACE_EVENT_INFO and
 * its EVENT_PROPERTY_INFO array), property values and their text.
 *
 * Layouts, names and values are the Windows SDK's on x64.  libetw decodes
 * events that carry TraceLogging metadata (extended item
 * EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL) and events of the instrumentation
 * manifests a program loads (TdhLoadManifest) or that are found on
 * ETW_MANIFEST_PATH and in $(PREFIX)/share/etw/manifests, as Windows finds
 * the registered ones; only the functions it implements are declared, so
 * a program that needs another one fails to link rather than at run time.
 * Documentation/libetw.rst describes the behaviour.
 */
#ifndef _TDH_H_
#define _TDH_H_

#include <windows.h>
#include <evntprov.h>
#include <evntcons.h>

typedef ULONG TDHSTATUS;

#ifdef __cplusplus
extern "C" {
#endif

/* EVENT_PROPERTY_INFO.nonStructType.InType. */
enum _TDH_IN_TYPE {
	TDH_INTYPE_NULL,
	TDH_INTYPE_UNICODESTRING,
	TDH_INTYPE_ANSISTRING,
	TDH_INTYPE_INT8,
	TDH_INTYPE_UINT8,
	TDH_INTYPE_INT16,
	TDH_INTYPE_UINT16,
	TDH_INTYPE_INT32,
	TDH_INTYPE_UINT32,
	TDH_INTYPE_INT64,
	TDH_INTYPE_UINT64,
	TDH_INTYPE_FLOAT,
	TDH_INTYPE_DOUBLE,
	TDH_INTYPE_BOOLEAN,
	TDH_INTYPE_BINARY,
	TDH_INTYPE_GUID,
	TDH_INTYPE_POINTER,
	TDH_INTYPE_FILETIME,
	TDH_INTYPE_SYSTEMTIME,
	TDH_INTYPE_SID,
	TDH_INTYPE_HEXINT32,
	TDH_INTYPE_HEXINT64,
	TDH_INTYPE_MANIFEST_COUNTEDSTRING,
	TDH_INTYPE_MANIFEST_COUNTEDANSISTRING,
	TDH_INTYPE_RESERVED24,
	TDH_INTYPE_MANIFEST_COUNTEDBINARY,
	TDH_INTYPE_COUNTEDSTRING = 300,
	TDH_INTYPE_COUNTEDANSISTRING,
	TDH_INTYPE_REVERSEDCOUNTEDSTRING,
	TDH_INTYPE_REVERSEDCOUNTEDANSISTRING,
	TDH_INTYPE_NONNULLTERMINATEDSTRING,
	TDH_INTYPE_NONNULLTERMINATEDANSISTRING,
	TDH_INTYPE_UNICODECHAR,
	TDH_INTYPE_ANSICHAR,
	TDH_INTYPE_SIZET,
	TDH_INTYPE_HEXDUMP,
	TDH_INTYPE_WBEMSID
};

/* EVENT_PROPERTY_INFO.nonStructType.OutType. */
enum _TDH_OUT_TYPE {
	TDH_OUTTYPE_NULL,
	TDH_OUTTYPE_STRING,
	TDH_OUTTYPE_DATETIME,
	TDH_OUTTYPE_BYTE,
	TDH_OUTTYPE_UNSIGNEDBYTE,
	TDH_OUTTYPE_SHORT,
	TDH_OUTTYPE_UNSIGNEDSHORT,
	TDH_OUTTYPE_INT,
	TDH_OUTTYPE_UNSIGNEDINT,
	TDH_OUTTYPE_LONG,
	TDH_OUTTYPE_UNSIGNEDLONG,
	TDH_OUTTYPE_FLOAT,
	TDH_OUTTYPE_DOUBLE,
	TDH_OUTTYPE_BOOLEAN,
	TDH_OUTTYPE_GUID,
	TDH_OUTTYPE_HEXBINARY,
	TDH_OUTTYPE_HEXINT8,
	TDH_OUTTYPE_HEXINT16,
	TDH_OUTTYPE_HEXINT32,
	TDH_OUTTYPE_HEXINT64,
	TDH_OUTTYPE_PID,
	TDH_OUTTYPE_TID,
	TDH_OUTTYPE_PORT,
	TDH_OUTTYPE_IPV4,
	TDH_OUTTYPE_IPV6,
	TDH_OUTTYPE_SOCKETADDRESS,
	TDH_OUTTYPE_CIMDATETIME,
	TDH_OUTTYPE_ETWTIME,
	TDH_OUTTYPE_XML,
	TDH_OUTTYPE_ERRORCODE,
	TDH_OUTTYPE_WIN32ERROR,
	TDH_OUTTYPE_NTSTATUS,
	TDH_OUTTYPE_HRESULT,
	TDH_OUTTYPE_CULTURE_INSENSITIVE_DATETIME,
	TDH_OUTTYPE_JSON,
	TDH_OUTTYPE_UTF8,
	TDH_OUTTYPE_PKCS7_WITH_TYPE_INFO,
	TDH_OUTTYPE_CODE_POINTER,
	TDH_OUTTYPE_DATETIME_UTC,
	TDH_OUTTYPE_REDUCEDSTRING = 300,
	TDH_OUTTYPE_NOPRINT
};

typedef enum _PROPERTY_FLAGS {
	PropertyStruct = 0x1,
	PropertyParamLength = 0x2,
	PropertyParamCount = 0x4,
	PropertyWBEMXmlFragment = 0x8,
	PropertyParamFixedLength = 0x10,
	PropertyParamFixedCount = 0x20,
	PropertyHasTags = 0x40,
	PropertyHasCustomSchema = 0x80
} PROPERTY_FLAGS;

/* 24 bytes. */
typedef struct _EVENT_PROPERTY_INFO {
	PROPERTY_FLAGS Flags;
	ULONG NameOffset;
	_ETW_NAMELESS union {
		struct {
			USHORT InType;
			USHORT OutType;
			ULONG MapNameOffset;
		} nonStructType;
		struct {
			USHORT StructStartIndex;
			USHORT NumOfStructMembers;
			ULONG padding;
		} structType;
		struct {
			USHORT InType;
			USHORT OutType;
			ULONG CustomSchemaOffset;
		} customSchemaType;
	} DUMMYUNIONNAME;
	_ETW_NAMELESS union {
		USHORT count;
		USHORT countPropertyIndex;
	} DUMMYUNIONNAME2;
	_ETW_NAMELESS union {
		USHORT length;
		USHORT lengthPropertyIndex;
	} DUMMYUNIONNAME3;
	_ETW_NAMELESS union {
		ULONG Reserved;
		_ETW_NAMELESS struct {
			ULONG Tags : 28;
		} DUMMYSTRUCTNAME;
	} DUMMYUNIONNAME4;
} EVENT_PROPERTY_INFO, *PEVENT_PROPERTY_INFO;

typedef enum _DECODING_SOURCE {
	DecodingSourceXMLFile,
	DecodingSourceWbem,
	DecodingSourceWPP,
	DecodingSourceTlg,
	DecodingSourceMax
} DECODING_SOURCE;

typedef enum _TEMPLATE_FLAGS {
	TEMPLATE_EVENT_DATA = 1,
	TEMPLATE_USER_DATA = 2,
	TEMPLATE_CONTROL_GUID = 4
} TEMPLATE_FLAGS;

/*
 * What TdhGetEventInformation returns; every *Offset counts bytes from
 * the start of this structure to a NUL-terminated UTF-16 string inside
 * the same buffer, 0 when there is none.
 */
typedef struct _TRACE_EVENT_INFO {
	GUID ProviderGuid;
	GUID EventGuid;
	EVENT_DESCRIPTOR EventDescriptor;
	DECODING_SOURCE DecodingSource;
	ULONG ProviderNameOffset;
	ULONG LevelNameOffset;
	ULONG ChannelNameOffset;
	ULONG KeywordsNameOffset;
	ULONG TaskNameOffset;
	ULONG OpcodeNameOffset;
	ULONG EventMessageOffset;
	ULONG ProviderMessageOffset;
	ULONG BinaryXMLOffset;
	ULONG BinaryXMLSize;
	_ETW_NAMELESS union {
		ULONG EventNameOffset;
		ULONG ActivityIDNameOffset;
	} DUMMYUNIONNAME;
	_ETW_NAMELESS union {
		ULONG EventAttributesOffset;
		ULONG RelatedActivityIDNameOffset;
	} DUMMYUNIONNAME2;
	ULONG PropertyCount;
	ULONG TopLevelPropertyCount;
	_ETW_NAMELESS union {
		TEMPLATE_FLAGS Flags;
		_ETW_NAMELESS struct {
			ULONG Reserved : 4;
			ULONG Tags : 28;
		} DUMMYSTRUCTNAME;
	} DUMMYUNIONNAME3;
	EVENT_PROPERTY_INFO EventPropertyInfoArray[ANYSIZE_ARRAY];
} TRACE_EVENT_INFO, *PTRACE_EVENT_INFO;
typedef const TRACE_EVENT_INFO *PCTRACE_EVENT_INFO;

/* Names a property for TdhGetProperty(Size): a path, outermost first. */
typedef struct _PROPERTY_DATA_DESCRIPTOR {
	ULONGLONG PropertyName;		/* LPCWSTR, as an integer */
	ULONG ArrayIndex;		/* 0xFFFFFFFF: the whole property */
	ULONG Reserved;
} PROPERTY_DATA_DESCRIPTOR, *PPROPERTY_DATA_DESCRIPTOR;

typedef enum _MAP_FLAGS {
	EVENTMAP_INFO_FLAG_MANIFEST_VALUEMAP = 0x1,
	EVENTMAP_INFO_FLAG_MANIFEST_BITMAP = 0x2,
	EVENTMAP_INFO_FLAG_MANIFEST_PATTERNMAP = 0x4,
	EVENTMAP_INFO_FLAG_WBEM_VALUEMAP = 0x8,
	EVENTMAP_INFO_FLAG_WBEM_BITMAP = 0x10,
	EVENTMAP_INFO_FLAG_WBEM_FLAG = 0x20,
	EVENTMAP_INFO_FLAG_WBEM_NO_MAP = 0x40
} MAP_FLAGS;

typedef enum _MAP_VALUETYPE {
	EVENTMAP_ENTRY_VALUETYPE_ULONG,
	EVENTMAP_ENTRY_VALUETYPE_STRING
} MAP_VALUETYPE;

typedef struct _EVENT_MAP_ENTRY {
	ULONG OutputOffset;
	_ETW_NAMELESS union {
		ULONG Value;
		ULONG InputOffset;
	} DUMMYUNIONNAME;
} EVENT_MAP_ENTRY, *PEVENT_MAP_ENTRY;

typedef struct _EVENT_MAP_INFO {
	ULONG NameOffset;
	MAP_FLAGS Flag;
	ULONG EntryCount;
	_ETW_NAMELESS union {
		MAP_VALUETYPE MapEntryValueType;
		ULONG FormatStringOffset;
	} DUMMYUNIONNAME;
	EVENT_MAP_ENTRY MapEntryArray[ANYSIZE_ARRAY];
} EVENT_MAP_INFO, *PEVENT_MAP_INFO;

typedef struct _TRACE_PROVIDER_INFO {
	GUID ProviderGuid;
	ULONG SchemaSource;
	ULONG ProviderNameOffset;
} TRACE_PROVIDER_INFO;

typedef struct _PROVIDER_ENUMERATION_INFO {
	ULONG NumberOfProviders;
	ULONG Reserved;
	TRACE_PROVIDER_INFO TraceProviderInfoArray[ANYSIZE_ARRAY];
} PROVIDER_ENUMERATION_INFO, *PPROVIDER_ENUMERATION_INFO;

typedef enum _EVENT_FIELD_TYPE {
	EventKeywordInformation,
	EventLevelInformation,
	EventChannelInformation,
	EventTaskInformation,
	EventOpcodeInformation,
	EventInformationMax
} EVENT_FIELD_TYPE;

typedef struct _PROVIDER_FIELD_INFO {
	ULONG NameOffset;
	ULONG DescriptionOffset;
	ULONGLONG Value;
} PROVIDER_FIELD_INFO;

typedef struct _PROVIDER_FIELD_INFOARRAY {
	ULONG NumberOfElements;
	EVENT_FIELD_TYPE FieldType;
	PROVIDER_FIELD_INFO FieldInfoArray[ANYSIZE_ARRAY];
} PROVIDER_FIELD_INFOARRAY, *PPROVIDER_FIELD_INFOARRAY;

typedef enum _TDH_CONTEXT_TYPE {
	TDH_CONTEXT_WPP_TMFFILE,
	TDH_CONTEXT_WPP_TMFSEARCHPATH,
	TDH_CONTEXT_WPP_GMT,
	TDH_CONTEXT_POINTERSIZE,
	TDH_CONTEXT_PDB_PATH,
	TDH_CONTEXT_MAXIMUM
} TDH_CONTEXT_TYPE;

typedef struct _TDH_CONTEXT {
	ULONGLONG ParameterValue;
	TDH_CONTEXT_TYPE ParameterType;
	ULONG ParameterSize;
} TDH_CONTEXT, *PTDH_CONTEXT;

TDHSTATUS WINAPI TdhGetEventInformation(PEVENT_RECORD Event,
		ULONG TdhContextCount, PTDH_CONTEXT TdhContext,
		PTRACE_EVENT_INFO Buffer, PULONG BufferSize);

TDHSTATUS WINAPI TdhGetPropertySize(PEVENT_RECORD pEvent,
		ULONG TdhContextCount, PTDH_CONTEXT pTdhContext,
		ULONG PropertyDataCount,
		PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG *pPropertySize);

TDHSTATUS WINAPI TdhGetProperty(PEVENT_RECORD pEvent,
		ULONG TdhContextCount, PTDH_CONTEXT pTdhContext,
		ULONG PropertyDataCount,
		PPROPERTY_DATA_DESCRIPTOR pPropertyData, ULONG BufferSize,
		PBYTE pBuffer);

TDHSTATUS WINAPI TdhFormatProperty(PTRACE_EVENT_INFO EventInfo,
		PEVENT_MAP_INFO MapInfo, ULONG PointerSize,
		USHORT PropertyInType, USHORT PropertyOutType,
		USHORT PropertyLength, USHORT UserDataLength, PBYTE UserData,
		PULONG BufferSize, PWCHAR Buffer, PUSHORT UserDataConsumed);

TDHSTATUS WINAPI TdhGetEventMapInformation(PEVENT_RECORD pEvent,
		PWSTR pMapName, PEVENT_MAP_INFO pBuffer, ULONG *pBufferSize);

TDHSTATUS WINAPI TdhGetManifestEventInformation(LPGUID ProviderGuid,
		PEVENT_DESCRIPTOR EventDescriptor, PTRACE_EVENT_INFO Buffer,
		PULONG BufferSize);

/*
 * Providers and their keywords, levels, channels, tasks and opcodes, from
 * the loaded manifests and those on ETW_MANIFEST_PATH.
 */
TDHSTATUS WINAPI TdhEnumerateProviders(PPROVIDER_ENUMERATION_INFO pBuffer,
		ULONG *pBufferSize);
TDHSTATUS WINAPI TdhEnumerateProviderFieldInformation(LPGUID pGuid,
		EVENT_FIELD_TYPE EventFieldType, PPROVIDER_FIELD_INFOARRAY pBuffer,
		ULONG *pBufferSize);
TDHSTATUS WINAPI TdhQueryProviderFieldInformation(LPGUID pGuid,
		ULONGLONG EventFieldValue, EVENT_FIELD_TYPE EventFieldType,
		PPROVIDER_FIELD_INFOARRAY pBuffer, ULONG *pBufferSize);

/* Instrumentation manifests, loaded for the whole process. */
TDHSTATUS WINAPI TdhLoadManifest(PWSTR Manifest);
TDHSTATUS WINAPI TdhLoadManifestFromMemory(LPCVOID pData, ULONG cbData);
TDHSTATUS WINAPI TdhUnloadManifest(PWSTR Manifest);
TDHSTATUS WINAPI TdhUnloadManifestFromMemory(LPCVOID pData, ULONG cbData);
/* A PE file's compiled WEVT_TEMPLATE manifest, with its MESSAGETABLE. */
TDHSTATUS WINAPI TdhLoadManifestFromBinary(PWSTR BinaryPath);

/*
 * The rest of the Windows 10 SDK's TDH (Documentation/libetw.rst, "The
 * other TDH functions").  TdhEnumerateProvidersForDecodingSource answers
 * for XML manifests as TdhEnumerateProviders does, and for MOF classes
 * with none; decoding handles keep their parameters.  What needs a source
 * libetw does not read (WPP's TMF files, payload filters, which etw
 * sessions do not apply, and a manifest's filters) returns
 * ERROR_NOT_SUPPORTED (50).
 */
TDHSTATUS WINAPI TdhEnumerateProvidersForDecodingSource(
		DECODING_SOURCE filter, PPROVIDER_ENUMERATION_INFO buffer,
		ULONG bufferSize, PULONG bufferRequired);

typedef HANDLE TDH_HANDLE, *PTDH_HANDLE;
TDHSTATUS WINAPI TdhOpenDecodingHandle(PTDH_HANDLE Handle);
TDHSTATUS WINAPI TdhSetDecodingParameter(TDH_HANDLE Handle,
		PTDH_CONTEXT TdhContext);
TDHSTATUS WINAPI TdhGetDecodingParameter(TDH_HANDLE Handle,
		PTDH_CONTEXT TdhContext);
TDHSTATUS WINAPI TdhCloseDecodingHandle(TDH_HANDLE Handle);
TDHSTATUS WINAPI TdhGetWppProperty(TDH_HANDLE Handle,
		PEVENT_RECORD EventRecord, PWSTR PropertyName,
		PULONG BufferSize, PBYTE Buffer);
TDHSTATUS WINAPI TdhGetWppMessage(TDH_HANDLE Handle,
		PEVENT_RECORD EventRecord, PULONG BufferSize, PBYTE Buffer);

/* PAYLOAD_FILTER_PREDICATE and PAYLOADFIELD_*: <evntprov.h>. */
TDHSTATUS WINAPI TdhCreatePayloadFilter(LPCGUID ProviderGuid,
		PCEVENT_DESCRIPTOR EventDescriptor, BOOLEAN EventMatchANY,
		ULONG PayloadPredicateCount,
		PPAYLOAD_FILTER_PREDICATE PayloadPredicates,
		PVOID *PayloadFilter);
TDHSTATUS WINAPI TdhDeletePayloadFilter(PVOID *PayloadFilter);
TDHSTATUS WINAPI TdhAggregatePayloadFilters(ULONG PayloadFilterCount,
		PVOID *PayloadFilterPtrs, PBOOLEAN EventMatchALLFlags,
		PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);
TDHSTATUS WINAPI TdhCleanupPayloadEventFilterDescriptor(
		PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);

typedef struct _PROVIDER_FILTER_INFO {
	UCHAR Id;
	UCHAR Version;
	ULONG MessageOffset;
	ULONG Reserved;
	ULONG PropertyCount;
	EVENT_PROPERTY_INFO EventPropertyInfoArray[ANYSIZE_ARRAY];
} PROVIDER_FILTER_INFO, *PPROVIDER_FILTER_INFO;

TDHSTATUS WINAPI TdhEnumerateProviderFilters(LPGUID Guid,
		ULONG TdhContextCount, PTDH_CONTEXT TdhContext,
		ULONG *FilterCount, PPROVIDER_FILTER_INFO *Buffer,
		ULONG *BufferSize);

/* The SDK's accessors for the strings a TRACE_EVENT_INFO points to. */
#define TEI_PROVIDER_NAME(tei) \
	((PWSTR)((tei)->ProviderNameOffset ? \
		 (PBYTE)(tei) + (tei)->ProviderNameOffset : NULL))
#define TEI_LEVEL_NAME(tei) \
	((PWSTR)((tei)->LevelNameOffset ? \
		 (PBYTE)(tei) + (tei)->LevelNameOffset : NULL))
#define TEI_CHANNEL_NAME(tei) \
	((PWSTR)((tei)->ChannelNameOffset ? \
		 (PBYTE)(tei) + (tei)->ChannelNameOffset : NULL))
#define TEI_KEYWORDS_NAME(tei) \
	((PWSTR)((tei)->KeywordsNameOffset ? \
		 (PBYTE)(tei) + (tei)->KeywordsNameOffset : NULL))
#define TEI_TASK_NAME(tei) \
	((PWSTR)((tei)->TaskNameOffset ? \
		 (PBYTE)(tei) + (tei)->TaskNameOffset : NULL))
#define TEI_OPCODE_NAME(tei) \
	((PWSTR)((tei)->OpcodeNameOffset ? \
		 (PBYTE)(tei) + (tei)->OpcodeNameOffset : NULL))
#define TEI_EVENT_MESSAGE(tei) \
	((PWSTR)((tei)->EventMessageOffset ? \
		 (PBYTE)(tei) + (tei)->EventMessageOffset : NULL))
#define TEI_PROVIDER_MESSAGE(tei) \
	((PWSTR)((tei)->ProviderMessageOffset ? \
		 (PBYTE)(tei) + (tei)->ProviderMessageOffset : NULL))
#define TEI_PROPERTY_NAME(tei, epi) \
	((PWSTR)((epi)->NameOffset ? \
		 (PBYTE)(tei) + (epi)->NameOffset : NULL))
#define TEI_MAP_NAME(tei, epi) \
	((PWSTR)((epi)->nonStructType.MapNameOffset ? \
		 (PBYTE)(tei) + (epi)->nonStructType.MapNameOffset : NULL))
#define EMI_MAP_NAME(emi) \
	((PWSTR)((emi)->NameOffset ? (PBYTE)(emi) + (emi)->NameOffset : NULL))
#define EMI_MAP_OUTPUT(emi, eme) \
	((PWSTR)((eme)->OutputOffset ? \
		 (PBYTE)(emi) + (eme)->OutputOffset : NULL))
#define PEI_PROVIDER_NAME(pei, tpi) \
	((PWSTR)((tpi)->ProviderNameOffset ? \
		 (PBYTE)(pei) + (tpi)->ProviderNameOffset : NULL))
#define PFI_FIELD_NAME(pfia, pfi) \
	((PWSTR)((pfi)->NameOffset ? (PBYTE)(pfia) + (pfi)->NameOffset : NULL))
#define PFI_FIELD_MESSAGE(pfia, pfi) \
	((PWSTR)((pfi)->DescriptionOffset ? \
		 (PBYTE)(pfia) + (pfi)->DescriptionOffset : NULL))

#ifdef __cplusplus
}
#endif

#endif /* _TDH_H_ */
