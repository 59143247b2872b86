/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The x64 layout of every struct libetw's Windows headers define: size and
 * field offsets as the Windows SDK has them (etw-reference.md sections 1,
 * 3, 4), next to what our headers produce.  layout_test.c compares the
 * two; mingw_layout_test.c checks our values against MinGW-w64's headers.
 *
 * Each field records whether MinGW-w64 (10.0, older than the SDK) has it;
 * LAYOUT_SDK marks a struct only the SDK has.  Nested and anonymous
 * members are named the way offsetof() accepts them.
 */
#ifndef ETW_LAYOUT_TABLE_H
#define ETW_LAYOUT_TABLE_H

#include <stddef.h>

#include <winsock2.h>
#include <windows.h>
#include <ws2ipdef.h>
#include <wmistr.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>

struct etw_field {
	const char *name;
	size_t off;		/* offsetof() with our headers */
	size_t want;		/* the SDK's offset */
	int mingw;		/* MinGW-w64 defines the field too */
};

struct etw_layout {
	const char *name;
	size_t size;		/* sizeof() with our headers */
	size_t want;		/* the SDK's size */
	int mingw;		/* MinGW-w64 defines the struct too */
	const struct etw_field *fields;
	size_t nfields;
};

#define F(f, want)	{ #f, offsetof(LAYOUT_T, f), want, 1 }
#define F_SDK(f, want)	{ #f, offsetof(LAYOUT_T, f), want, 0 }
#define LAYOUT_END(name, want, mingw)					\
	static const struct etw_layout etw_layout_##name = {		\
		#name, sizeof(name), want, mingw, etw_fields_##name,	\
		sizeof(etw_fields_##name) / sizeof(etw_fields_##name[0]) \
	}
#define LAYOUT(name, want)	LAYOUT_END(name, want, 1)
#define LAYOUT_SDK(name, want)	LAYOUT_END(name, want, 0)

/* windows.h ------------------------------------------------------------- */

#define LAYOUT_T GUID
static const struct etw_field etw_fields_GUID[] = {
	F(Data1, 0), F(Data2, 4), F(Data3, 6), F(Data4, 8),
};
LAYOUT(GUID, 16);
#undef LAYOUT_T

#define LAYOUT_T LARGE_INTEGER
static const struct etw_field etw_fields_LARGE_INTEGER[] = {
	F(LowPart, 0), F(HighPart, 4), F(u.LowPart, 0), F(u.HighPart, 4),
	F(QuadPart, 0),
};
LAYOUT(LARGE_INTEGER, 8);
#undef LAYOUT_T

#define LAYOUT_T ULARGE_INTEGER
static const struct etw_field etw_fields_ULARGE_INTEGER[] = {
	F(LowPart, 0), F(HighPart, 4), F(QuadPart, 0),
};
LAYOUT(ULARGE_INTEGER, 8);
#undef LAYOUT_T

#define LAYOUT_T FILETIME
static const struct etw_field etw_fields_FILETIME[] = {
	F(dwLowDateTime, 0), F(dwHighDateTime, 4),
};
LAYOUT(FILETIME, 8);
#undef LAYOUT_T

#define LAYOUT_T SYSTEMTIME
static const struct etw_field etw_fields_SYSTEMTIME[] = {
	F(wYear, 0), F(wMonth, 2), F(wDayOfWeek, 4), F(wDay, 6),
	F(wHour, 8), F(wMinute, 10), F(wSecond, 12), F(wMilliseconds, 14),
};
LAYOUT(SYSTEMTIME, 16);
#undef LAYOUT_T

#define LAYOUT_T TIME_ZONE_INFORMATION
static const struct etw_field etw_fields_TIME_ZONE_INFORMATION[] = {
	F(Bias, 0), F(StandardName, 4), F(StandardDate, 68),
	F(StandardBias, 84), F(DaylightName, 88), F(DaylightDate, 152),
	F(DaylightBias, 168),
};
LAYOUT(TIME_ZONE_INFORMATION, 172);
#undef LAYOUT_T

#define LAYOUT_T OSVERSIONINFOA
static const struct etw_field etw_fields_OSVERSIONINFOA[] = {
	F(dwOSVersionInfoSize, 0), F(dwMajorVersion, 4), F(dwMinorVersion, 8),
	F(dwBuildNumber, 12), F(dwPlatformId, 16), F(szCSDVersion, 20),
};
LAYOUT(OSVERSIONINFOA, 148);
#undef LAYOUT_T

#define LAYOUT_T OSVERSIONINFOEXW
static const struct etw_field etw_fields_OSVERSIONINFOEXW[] = {
	F(dwOSVersionInfoSize, 0), F(dwMajorVersion, 4), F(dwMinorVersion, 8),
	F(dwBuildNumber, 12), F(dwPlatformId, 16), F(szCSDVersion, 20),
	F(wServicePackMajor, 276), F(wServicePackMinor, 278),
	F(wSuiteMask, 280), F(wProductType, 282), F(wReserved, 283),
};
LAYOUT(OSVERSIONINFOEXW, 284);
#undef LAYOUT_T

/* winsock2.h, in6addr.h, ws2ipdef.h ------------------------------------- */

#define LAYOUT_T IN_ADDR
static const struct etw_field etw_fields_IN_ADDR[] = {
	F(S_un.S_un_b.s_b4, 3), F(S_un.S_un_w.s_w2, 2), F(S_un.S_addr, 0),
};
LAYOUT(IN_ADDR, 4);
#undef LAYOUT_T

#define LAYOUT_T SOCKADDR_IN
static const struct etw_field etw_fields_SOCKADDR_IN[] = {
	F(sin_family, 0), F(sin_port, 2), F(sin_addr, 4), F(sin_zero, 8),
};
LAYOUT(SOCKADDR_IN, 16);
#undef LAYOUT_T

#define LAYOUT_T SOCKADDR_STORAGE
static const struct etw_field etw_fields_SOCKADDR_STORAGE[] = {
	F(ss_family, 0), F(__ss_pad1, 2), F(__ss_align, 8), F(__ss_pad2, 16),
};
LAYOUT(SOCKADDR_STORAGE, 128);
#undef LAYOUT_T

#define LAYOUT_T IN6_ADDR
static const struct etw_field etw_fields_IN6_ADDR[] = {
	F(u.Byte, 0), F(u.Word, 0),
};
LAYOUT(IN6_ADDR, 16);
#undef LAYOUT_T

#define LAYOUT_T SOCKADDR_IN6
static const struct etw_field etw_fields_SOCKADDR_IN6[] = {
	F(sin6_family, 0), F(sin6_port, 2), F(sin6_flowinfo, 4),
	F(sin6_addr, 8), F(sin6_scope_id, 24), F(sin6_scope_struct, 24),
};
LAYOUT(SOCKADDR_IN6, 28);
#undef LAYOUT_T

/* wmistr.h -------------------------------------------------------------- */

#define LAYOUT_T WNODE_HEADER
static const struct etw_field etw_fields_WNODE_HEADER[] = {
	F(BufferSize, 0x00), F(ProviderId, 0x04),
	F(HistoricalContext, 0x08), F(Version, 0x08), F(Linkage, 0x0C),
	F(CountLost, 0x10), F(KernelHandle, 0x10), F(TimeStamp, 0x10),
	F(Guid, 0x18), F(ClientContext, 0x28), F(Flags, 0x2C),
};
LAYOUT(WNODE_HEADER, 48);
#undef LAYOUT_T

/* evntprov.h ------------------------------------------------------------ */

#define LAYOUT_T EVENT_DESCRIPTOR
static const struct etw_field etw_fields_EVENT_DESCRIPTOR[] = {
	F(Id, 0), F(Version, 2), F(Channel, 3), F(Level, 4), F(Opcode, 5),
	F(Task, 6), F(Keyword, 8),
};
LAYOUT(EVENT_DESCRIPTOR, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_DATA_DESCRIPTOR
static const struct etw_field etw_fields_EVENT_DATA_DESCRIPTOR[] = {
	F(Ptr, 0), F(Size, 8), F(Reserved, 12),
	F_SDK(Type, 12), F_SDK(Reserved1, 13), F_SDK(Reserved2, 14),
};
LAYOUT(EVENT_DATA_DESCRIPTOR, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_FILTER_DESCRIPTOR
static const struct etw_field etw_fields_EVENT_FILTER_DESCRIPTOR[] = {
	F(Ptr, 0), F(Size, 8), F(Type, 12),
};
LAYOUT(EVENT_FILTER_DESCRIPTOR, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_FILTER_HEADER
static const struct etw_field etw_fields_EVENT_FILTER_HEADER[] = {
	F(Id, 0), F(Version, 2), F(Reserved, 3), F(InstanceId, 8),
	F(Size, 16), F(NextOffset, 20),
};
LAYOUT(EVENT_FILTER_HEADER, 24);
#undef LAYOUT_T

#define LAYOUT_T EVENT_FILTER_EVENT_ID
static const struct etw_field etw_fields_EVENT_FILTER_EVENT_ID[] = {
	F_SDK(FilterIn, 0), F_SDK(Reserved, 1), F_SDK(Count, 2),
	F_SDK(Events, 4),
};
LAYOUT_SDK(EVENT_FILTER_EVENT_ID, 6);
#undef LAYOUT_T

#define LAYOUT_T EVENT_FILTER_EVENT_NAME
static const struct etw_field etw_fields_EVENT_FILTER_EVENT_NAME[] = {
	F_SDK(MatchAnyKeyword, 0), F_SDK(MatchAllKeyword, 8),
	F_SDK(Level, 16), F_SDK(FilterIn, 17), F_SDK(NameCount, 18),
	F_SDK(Names, 20),
};
LAYOUT_SDK(EVENT_FILTER_EVENT_NAME, 24);
#undef LAYOUT_T

#define LAYOUT_T EVENT_FILTER_LEVEL_KW
static const struct etw_field etw_fields_EVENT_FILTER_LEVEL_KW[] = {
	F_SDK(MatchAnyKeyword, 0), F_SDK(MatchAllKeyword, 8),
	F_SDK(Level, 16), F_SDK(FilterIn, 17),
};
LAYOUT_SDK(EVENT_FILTER_LEVEL_KW, 24);
#undef LAYOUT_T

#define LAYOUT_T PAYLOAD_FILTER_PREDICATE
static const struct etw_field etw_fields_PAYLOAD_FILTER_PREDICATE[] = {
	F_SDK(FieldName, 0), F_SDK(CompareOp, 8), F_SDK(Value, 16),
};
LAYOUT_SDK(PAYLOAD_FILTER_PREDICATE, 24);
#undef LAYOUT_T

/* evntrace.h ------------------------------------------------------------ */

#define LAYOUT_T EVENT_TRACE_HEADER
static const struct etw_field etw_fields_EVENT_TRACE_HEADER[] = {
	F(Size, 0), F(FieldTypeFlags, 2), F(HeaderType, 2),
	F(MarkerFlags, 3), F(Version, 4), F(Class.Type, 4),
	F(Class.Level, 5), F(Class.Version, 6), F(ThreadId, 8),
	F(ProcessId, 12), F(TimeStamp, 16), F(Guid, 24), F(GuidPtr, 24),
	F(KernelTime, 40), F(UserTime, 44), F(ProcessorTime, 40),
	F(ClientContext, 40), F(Flags, 44),
};
LAYOUT(EVENT_TRACE_HEADER, 48);
#undef LAYOUT_T

#define LAYOUT_T EVENT_INSTANCE_HEADER
static const struct etw_field etw_fields_EVENT_INSTANCE_HEADER[] = {
	F(Size, 0), F(FieldTypeFlags, 2), F(HeaderType, 2),
	F(MarkerFlags, 3), F(Version, 4), F(Class.Type, 4),
	F(Class.Level, 5), F(Class.Version, 6), F(ThreadId, 8),
	F(ProcessId, 12), F(TimeStamp, 16), F(RegHandle, 24),
	F(InstanceId, 32), F(ParentInstanceId, 36), F(KernelTime, 40),
	F(UserTime, 44), F(ProcessorTime, 40), F(EventId, 40), F(Flags, 44),
	F(ParentRegHandle, 48),
};
LAYOUT(EVENT_INSTANCE_HEADER, 56);
#undef LAYOUT_T

#define LAYOUT_T EVENT_INSTANCE_INFO
static const struct etw_field etw_fields_EVENT_INSTANCE_INFO[] = {
	F(RegHandle, 0), F(InstanceId, 8),
};
LAYOUT(EVENT_INSTANCE_INFO, 16);
#undef LAYOUT_T

#define LAYOUT_T MOF_FIELD
static const struct etw_field etw_fields_MOF_FIELD[] = {
	F(DataPtr, 0), F(Length, 8), F(DataType, 12),
};
LAYOUT(MOF_FIELD, 16);
#undef LAYOUT_T

/* The shared head of the three log-file header forms. */
#define LOGFILE_HEADER_HEAD						\
	F(BufferSize, 0x00), F(Version, 0x04),				\
	F(VersionDetail.MajorVersion, 0x04),				\
	F(VersionDetail.MinorVersion, 0x05),				\
	F(VersionDetail.SubVersion, 0x06),				\
	F(VersionDetail.SubMinorVersion, 0x07),				\
	F(ProviderVersion, 0x08), F(NumberOfProcessors, 0x0C),		\
	F(EndTime, 0x10), F(TimerResolution, 0x18),			\
	F(MaximumFileSize, 0x1C), F(LogFileMode, 0x20),			\
	F(BuffersWritten, 0x24), F(LogInstanceGuid, 0x28),		\
	F(StartBuffers, 0x28), F(PointerSize, 0x2C),			\
	F(EventsLost, 0x30), F(CpuSpeedInMHz, 0x34), F(LoggerName, 0x38)

#define LAYOUT_T TRACE_LOGFILE_HEADER
static const struct etw_field etw_fields_TRACE_LOGFILE_HEADER[] = {
	LOGFILE_HEADER_HEAD, F(LogFileName, 0x40), F(TimeZone, 0x48),
	F(BootTime, 0xF8), F(PerfFreq, 0x100), F(StartTime, 0x108),
	F(ReservedFlags, 0x110), F(BuffersLost, 0x114),
};
LAYOUT(TRACE_LOGFILE_HEADER, 0x118);
#undef LAYOUT_T

#define LAYOUT_T TRACE_LOGFILE_HEADER64
static const struct etw_field etw_fields_TRACE_LOGFILE_HEADER64[] = {
	LOGFILE_HEADER_HEAD, F(LogFileName, 0x40), F(TimeZone, 0x48),
	F(BootTime, 0xF8), F(PerfFreq, 0x100), F(StartTime, 0x108),
	F(ReservedFlags, 0x110), F(BuffersLost, 0x114),
};
LAYOUT(TRACE_LOGFILE_HEADER64, 0x118);
#undef LAYOUT_T

/* As laid out by an x64 compiler: the 64-bit fields are still 8-aligned. */
#define LAYOUT_T TRACE_LOGFILE_HEADER32
static const struct etw_field etw_fields_TRACE_LOGFILE_HEADER32[] = {
	LOGFILE_HEADER_HEAD, F(LogFileName, 0x3C), F(TimeZone, 0x40),
	F(BootTime, 0xF0), F(PerfFreq, 0xF8), F(StartTime, 0x100),
	F(ReservedFlags, 0x108), F(BuffersLost, 0x10C),
};
LAYOUT(TRACE_LOGFILE_HEADER32, 0x110);
#undef LAYOUT_T

#define PROPERTIES_V1_FIELDS						\
	F(Wnode, 0x00), F(BufferSize, 0x30), F(MinimumBuffers, 0x34),	\
	F(MaximumBuffers, 0x38), F(MaximumFileSize, 0x3C),		\
	F(LogFileMode, 0x40), F(FlushTimer, 0x44),			\
	F(EnableFlags, 0x48), F(AgeLimit, 0x4C),			\
	F(NumberOfBuffers, 0x50), F(FreeBuffers, 0x54),			\
	F(EventsLost, 0x58), F(BuffersWritten, 0x5C),			\
	F(LogBuffersLost, 0x60), F(RealTimeBuffersLost, 0x64),		\
	F(LoggerThreadId, 0x68), F(LogFileNameOffset, 0x70),		\
	F(LoggerNameOffset, 0x74)

#define LAYOUT_T EVENT_TRACE_PROPERTIES
static const struct etw_field etw_fields_EVENT_TRACE_PROPERTIES[] = {
	PROPERTIES_V1_FIELDS, F_SDK(FlushThreshold, 0x4C),
};
LAYOUT(EVENT_TRACE_PROPERTIES, 120);
#undef LAYOUT_T

#define LAYOUT_T EVENT_TRACE_PROPERTIES_V2
static const struct etw_field etw_fields_EVENT_TRACE_PROPERTIES_V2[] = {
	PROPERTIES_V1_FIELDS, F(FlushThreshold, 0x4C), F(V2Control, 0x78),
	F(FilterDescCount, 0x7C), F(FilterDesc, 0x80), F(V2Options, 0x88),
};
LAYOUT(EVENT_TRACE_PROPERTIES_V2, 144);
#undef LAYOUT_T

#define LAYOUT_T TRACE_GUID_REGISTRATION
static const struct etw_field etw_fields_TRACE_GUID_REGISTRATION[] = {
	F(Guid, 0), F(RegHandle, 8),
};
LAYOUT(TRACE_GUID_REGISTRATION, 16);
#undef LAYOUT_T

#define LAYOUT_T TRACE_GUID_PROPERTIES
static const struct etw_field etw_fields_TRACE_GUID_PROPERTIES[] = {
	F(Guid, 0), F(GuidType, 16), F(LoggerId, 20), F(EnableLevel, 24),
	F(EnableFlags, 28), F(IsEnable, 32),
};
LAYOUT(TRACE_GUID_PROPERTIES, 36);
#undef LAYOUT_T

#define LAYOUT_T ETW_BUFFER_CONTEXT
static const struct etw_field etw_fields_ETW_BUFFER_CONTEXT[] = {
	F(ProcessorNumber, 0), F(Alignment, 1), F(ProcessorIndex, 0),
	F(LoggerId, 2),
};
LAYOUT(ETW_BUFFER_CONTEXT, 4);
#undef LAYOUT_T

#define LAYOUT_T TRACE_ENABLE_INFO
static const struct etw_field etw_fields_TRACE_ENABLE_INFO[] = {
	F(IsEnabled, 0), F(Level, 4), F(Reserved1, 5), F(LoggerId, 6),
	F(EnableProperty, 8), F(Reserved2, 12), F(MatchAnyKeyword, 16),
	F(MatchAllKeyword, 24),
};
LAYOUT(TRACE_ENABLE_INFO, 32);
#undef LAYOUT_T

#define LAYOUT_T TRACE_PROVIDER_INSTANCE_INFO
static const struct etw_field etw_fields_TRACE_PROVIDER_INSTANCE_INFO[] = {
	F(NextOffset, 0), F(EnableCount, 4), F(Pid, 8), F(Flags, 12),
};
LAYOUT(TRACE_PROVIDER_INSTANCE_INFO, 16);
#undef LAYOUT_T

#define LAYOUT_T TRACE_GUID_INFO
static const struct etw_field etw_fields_TRACE_GUID_INFO[] = {
	F(InstanceCount, 0), F(Reserved, 4),
};
LAYOUT(TRACE_GUID_INFO, 8);
#undef LAYOUT_T

#define LAYOUT_T PROFILE_SOURCE_INFO
static const struct etw_field etw_fields_PROFILE_SOURCE_INFO[] = {
	F(NextEntryOffset, 0), F(Source, 4), F(MinInterval, 8),
	F(MaxInterval, 12), F(Reserved, 16), F(Description, 24),
};
LAYOUT(PROFILE_SOURCE_INFO, 32);
#undef LAYOUT_T

#define LAYOUT_T EVENT_TRACE
static const struct etw_field etw_fields_EVENT_TRACE[] = {
	F(Header, 0), F(InstanceId, 48), F(ParentInstanceId, 52),
	F(ParentGuid, 56), F(MofData, 72), F(MofLength, 80),
	F(ClientContext, 84), F(BufferContext, 84),
};
LAYOUT(EVENT_TRACE, 88);
#undef LAYOUT_T

#define LOGFILE_FIELDS							\
	F(LogFileName, 0x00), F(LoggerName, 0x08),			\
	F(CurrentTime, 0x10), F(BuffersRead, 0x18),			\
	F(LogFileMode, 0x1C), F(ProcessTraceMode, 0x1C),		\
	F(CurrentEvent, 0x20), F(LogfileHeader, 0x78),			\
	F(BufferCallback, 0x190), F(BufferSize, 0x198),			\
	F(Filled, 0x19C), F(EventsLost, 0x1A0),				\
	F(EventCallback, 0x1A8), F(EventRecordCallback, 0x1A8),		\
	F(IsKernelTrace, 0x1B0), F(Context, 0x1B8)

#define LAYOUT_T EVENT_TRACE_LOGFILEW
static const struct etw_field etw_fields_EVENT_TRACE_LOGFILEW[] = {
	LOGFILE_FIELDS,
};
LAYOUT(EVENT_TRACE_LOGFILEW, 448);
#undef LAYOUT_T

#define LAYOUT_T EVENT_TRACE_LOGFILEA
static const struct etw_field etw_fields_EVENT_TRACE_LOGFILEA[] = {
	LOGFILE_FIELDS,
};
LAYOUT(EVENT_TRACE_LOGFILEA, 448);
#undef LAYOUT_T

#define LAYOUT_T ENABLE_TRACE_PARAMETERS_V1
static const struct etw_field etw_fields_ENABLE_TRACE_PARAMETERS_V1[] = {
	F(Version, 0x00), F(EnableProperty, 0x04), F(ControlFlags, 0x08),
	F(SourceId, 0x0C), F(EnableFilterDesc, 0x20),
};
LAYOUT(ENABLE_TRACE_PARAMETERS_V1, 40);
#undef LAYOUT_T

#define LAYOUT_T ENABLE_TRACE_PARAMETERS
static const struct etw_field etw_fields_ENABLE_TRACE_PARAMETERS[] = {
	F(Version, 0x00), F(EnableProperty, 0x04), F(ControlFlags, 0x08),
	F(SourceId, 0x0C), F(EnableFilterDesc, 0x20),
	F(FilterDescCount, 0x28),
};
LAYOUT(ENABLE_TRACE_PARAMETERS, 48);
#undef LAYOUT_T

#define LAYOUT_T CLASSIC_EVENT_ID
static const struct etw_field etw_fields_CLASSIC_EVENT_ID[] = {
	F(EventGuid, 0), F(Type, 16), F(Reserved, 17),
};
LAYOUT(CLASSIC_EVENT_ID, 24);
#undef LAYOUT_T

#define LAYOUT_T TRACE_PROFILE_INTERVAL
static const struct etw_field etw_fields_TRACE_PROFILE_INTERVAL[] = {
	F(Source, 0), F(Interval, 4),
};
LAYOUT(TRACE_PROFILE_INTERVAL, 8);
#undef LAYOUT_T

#define LAYOUT_T TRACE_VERSION_INFO
static const struct etw_field etw_fields_TRACE_VERSION_INFO[] = {
	F(EtwTraceProcessingVersion, 0), F(Reserved, 4),
};
LAYOUT(TRACE_VERSION_INFO, 8);
#undef LAYOUT_T

#define LAYOUT_T TRACE_PERIODIC_CAPTURE_STATE_INFO
static const struct etw_field etw_fields_TRACE_PERIODIC_CAPTURE_STATE_INFO[] = {
	F(CaptureStateFrequencyInSeconds, 0), F(ProviderCount, 4),
	F(Reserved, 6),
};
LAYOUT(TRACE_PERIODIC_CAPTURE_STATE_INFO, 8);
#undef LAYOUT_T

/* evntcons.h ------------------------------------------------------------ */

#define LAYOUT_T EVENT_HEADER_EXTENDED_DATA_ITEM
static const struct etw_field etw_fields_EVENT_HEADER_EXTENDED_DATA_ITEM[] = {
	F(Reserved1, 0), F(ExtType, 2), F(DataSize, 6), F(DataPtr, 8),
};
LAYOUT(EVENT_HEADER_EXTENDED_DATA_ITEM, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_INSTANCE
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_INSTANCE[] = {
	F(InstanceId, 0), F(ParentInstanceId, 4), F(ParentGuid, 8),
};
LAYOUT(EVENT_EXTENDED_ITEM_INSTANCE, 24);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID[] = {
	F(RelatedActivityId, 0),
};
LAYOUT(EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_TS_ID
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_TS_ID[] = {
	F(SessionId, 0),
};
LAYOUT(EVENT_EXTENDED_ITEM_TS_ID, 4);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_STACK_TRACE32
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_STACK_TRACE32[] = {
	F(MatchId, 0), F(Address, 8),
};
LAYOUT(EVENT_EXTENDED_ITEM_STACK_TRACE32, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_STACK_TRACE64
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_STACK_TRACE64[] = {
	F(MatchId, 0), F(Address, 8),
};
LAYOUT(EVENT_EXTENDED_ITEM_STACK_TRACE64, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_STACK_KEY32
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_STACK_KEY32[] = {
	F_SDK(MatchId, 0), F_SDK(StackKey, 8), F_SDK(Padding, 12),
};
LAYOUT_SDK(EVENT_EXTENDED_ITEM_STACK_KEY32, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_STACK_KEY64
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_STACK_KEY64[] = {
	F_SDK(MatchId, 0), F_SDK(StackKey, 8),
};
LAYOUT_SDK(EVENT_EXTENDED_ITEM_STACK_KEY64, 16);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_PEBS_INDEX
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_PEBS_INDEX[] = {
	F(PebsIndex, 0),
};
LAYOUT(EVENT_EXTENDED_ITEM_PEBS_INDEX, 8);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_PMC_COUNTERS
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_PMC_COUNTERS[] = {
	F(Counter, 0),
};
LAYOUT(EVENT_EXTENDED_ITEM_PMC_COUNTERS, 8);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_PROCESS_START_KEY
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_PROCESS_START_KEY[] = {
	F_SDK(ProcessStartKey, 0),
};
LAYOUT_SDK(EVENT_EXTENDED_ITEM_PROCESS_START_KEY, 8);
#undef LAYOUT_T

#define LAYOUT_T EVENT_EXTENDED_ITEM_EVENT_KEY
static const struct etw_field etw_fields_EVENT_EXTENDED_ITEM_EVENT_KEY[] = {
	F_SDK(Key, 0),
};
LAYOUT_SDK(EVENT_EXTENDED_ITEM_EVENT_KEY, 8);
#undef LAYOUT_T

#define LAYOUT_T EVENT_HEADER
static const struct etw_field etw_fields_EVENT_HEADER[] = {
	F(Size, 0x00), F(HeaderType, 0x02), F(Flags, 0x04),
	F(EventProperty, 0x06), F(ThreadId, 0x08), F(ProcessId, 0x0C),
	F(TimeStamp, 0x10), F(ProviderId, 0x18), F(EventDescriptor, 0x28),
	F(EventDescriptor.Level, 0x2C), F(EventDescriptor.Keyword, 0x30),
	F(KernelTime, 0x38), F(UserTime, 0x3C), F(ProcessorTime, 0x38),
	F(ActivityId, 0x40),
};
LAYOUT(EVENT_HEADER, 80);
#undef LAYOUT_T

#define LAYOUT_T EVENT_RECORD
static const struct etw_field etw_fields_EVENT_RECORD[] = {
	F(EventHeader, 0x00), F(BufferContext, 0x50),
	F(BufferContext.ProcessorIndex, 0x50),
	F(BufferContext.LoggerId, 0x52), F(ExtendedDataCount, 0x54),
	F(UserDataLength, 0x56), F(ExtendedData, 0x58), F(UserData, 0x60),
	F(UserContext, 0x68),
};
LAYOUT(EVENT_RECORD, 112);
#undef LAYOUT_T

#undef F
#undef F_SDK

/* Every struct above, for table-driven tests (FIXTURE_VARIANT_ADD). */
#define ETW_LAYOUTS(X)							\
	X(GUID) X(LARGE_INTEGER) X(ULARGE_INTEGER) X(FILETIME)		\
	X(SYSTEMTIME) X(TIME_ZONE_INFORMATION) X(OSVERSIONINFOA)	\
	X(OSVERSIONINFOEXW) X(IN_ADDR) X(SOCKADDR_IN)			\
	X(SOCKADDR_STORAGE) X(IN6_ADDR) X(SOCKADDR_IN6) X(WNODE_HEADER)	\
	X(EVENT_DESCRIPTOR) X(EVENT_DATA_DESCRIPTOR)			\
	X(EVENT_FILTER_DESCRIPTOR) X(EVENT_FILTER_HEADER)		\
	X(EVENT_FILTER_EVENT_ID) X(EVENT_FILTER_EVENT_NAME)		\
	X(EVENT_FILTER_LEVEL_KW) X(PAYLOAD_FILTER_PREDICATE)		\
	X(EVENT_TRACE_HEADER) X(EVENT_INSTANCE_HEADER)			\
	X(EVENT_INSTANCE_INFO) X(MOF_FIELD) X(TRACE_LOGFILE_HEADER)	\
	X(TRACE_LOGFILE_HEADER64) X(TRACE_LOGFILE_HEADER32)		\
	X(EVENT_TRACE_PROPERTIES) X(EVENT_TRACE_PROPERTIES_V2)		\
	X(TRACE_GUID_REGISTRATION) X(TRACE_GUID_PROPERTIES)		\
	X(ETW_BUFFER_CONTEXT) X(TRACE_ENABLE_INFO)			\
	X(TRACE_PROVIDER_INSTANCE_INFO) X(TRACE_GUID_INFO)		\
	X(PROFILE_SOURCE_INFO) X(EVENT_TRACE) X(EVENT_TRACE_LOGFILEW)	\
	X(EVENT_TRACE_LOGFILEA) X(ENABLE_TRACE_PARAMETERS_V1)		\
	X(ENABLE_TRACE_PARAMETERS) X(CLASSIC_EVENT_ID)			\
	X(TRACE_PROFILE_INTERVAL) X(TRACE_VERSION_INFO)			\
	X(TRACE_PERIODIC_CAPTURE_STATE_INFO)				\
	X(EVENT_HEADER_EXTENDED_DATA_ITEM)				\
	X(EVENT_EXTENDED_ITEM_INSTANCE)					\
	X(EVENT_EXTENDED_ITEM_RELATED_ACTIVITYID)			\
	X(EVENT_EXTENDED_ITEM_TS_ID)					\
	X(EVENT_EXTENDED_ITEM_STACK_TRACE32)				\
	X(EVENT_EXTENDED_ITEM_STACK_TRACE64)				\
	X(EVENT_EXTENDED_ITEM_STACK_KEY32)				\
	X(EVENT_EXTENDED_ITEM_STACK_KEY64)				\
	X(EVENT_EXTENDED_ITEM_PEBS_INDEX)				\
	X(EVENT_EXTENDED_ITEM_PMC_COUNTERS)				\
	X(EVENT_EXTENDED_ITEM_PROCESS_START_KEY)			\
	X(EVENT_EXTENDED_ITEM_EVENT_KEY) X(EVENT_HEADER) X(EVENT_RECORD)

#endif /* ETW_LAYOUT_TABLE_H */
