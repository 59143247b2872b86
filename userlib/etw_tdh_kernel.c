// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_tdh_kernel.c: the schemas of the kernel logger's events, which
 * Windows' TDH takes from the MOF classes of MSNT_SystemTrace
 * (EventTrace_Header and its extension, the SystemConfig classes,
 * Process_V4_TypeGroup1, Thread_V3_TypeGroup1, CSwitch, ReadyThread,
 * Image_Load, Process_V2_TypeGroup2, SampledProfile, SysCallEnter,
 * SysCallExit, SampledProfileInterval_V3,
 * PageFault_TypeGroup1, PageFault_HardFault, DiskIo_TypeGroup1/2/3, FileIo_Name, the TcpIp and
 * UdpIp type groups, StackWalk_Event and the stack-key classes of
 * Windows 8 stack caching; Microsoft's class pages list their fields in
 * this order), and of the image identity events xperf's merge adds
 * (KernelTraceControl's ImageID class).  An event matches a class by its
 * class GUID (the ProviderId ProcessTrace gives a kernel record: the
 * event class of its hook's group), its version and its event type
 * (opcode).  The TRACE_EVENT_INFO is Windows' for MOF events:
 * DecodingSourceWbem, ProviderGuid the system trace provider (or
 * KernelTraceControl's), EventGuid the class, the class as task name and
 * the event type's name as opcode name.
 */
#include <stdbool.h>
#include <string.h>

#include "etw_tdh.h"
#include "etw_tdh_manifest.h"

#define ETW_TK_MAX_PROPS	24
#define ETW_TK_MAX_TYPES	6
/* StackWalk_Event: Stack1 .. Stack192, as many as the payload holds. */
#define ETW_TK_MAX_FRAMES	192
#define ETW_TK_REPEAT		0xffff

/* SystemTraceControlGuid: the provider of every kernel logger class. */
static const GUID etw_tk_system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };
/* KernelTraceControl: the provider of the ImageID class xperf's merge writes. */
static const GUID etw_tk_trace_control = { 0x28ad2447, 0x105b, 0x4fe2,
	{ 0x95, 0x99, 0xe5, 0x9b, 0x2a, 0xa9, 0xa6, 0x34 } };

/*
 * @len: bytes of a BINARY property (an IPv6 address), characters of a
 * fixed-length string; 0 for the InType's;
 * %ETW_TK_REPEAT for the last entry of a class whose payload ends in
 * pointers @name1, @name2 ... (StackWalk_Event's Stack1 ... Stack192).
 */
struct etw_tk_prop {
	const char *name;
	USHORT in;
	USHORT out;
	USHORT len;
};

struct etw_tk_type {
	UCHAR opcode;
	const char *name;
};

/**
 * struct etw_tk_class - one MOF event type class
 * @guid: the class GUID
 * @version: the oldest class version it describes
 * @max_version: the newest (0: @version only)
 * @name: the class's display name (TaskName)
 * @types: the event types it covers, and their names ("": none)
 * @props: its fields in payload order
 */
struct etw_tk_class {
	GUID guid;
	UCHAR version;
	UCHAR max_version;
	const char *name;
	struct etw_tk_type types[ETW_TK_MAX_TYPES];
	struct etw_tk_prop props[ETW_TK_MAX_PROPS];
};

#define ETW_TK_P(n, i, o) { n, TDH_INTYPE_##i, TDH_OUTTYPE_##o, 0 }
#define ETW_TK_PTR(n) ETW_TK_P(n, POINTER, NULL)
/* A SIZE_T of the class ("object" in the class page): pointer-sized. */
#define ETW_TK_SIZE(n) ETW_TK_P(n, POINTER, NULL)
/* A char16 array of @chars characters, NUL-padded. */
#define ETW_TK_WCHARS(n, chars) { n, TDH_INTYPE_UNICODESTRING, \
				  TDH_OUTTYPE_NULL, chars }
#define ETW_TK_IPV6(n) { n, TDH_INTYPE_BINARY, TDH_OUTTYPE_IPV6, 16 }
#define ETW_TK_FRAMES(n) { n, TDH_INTYPE_POINTER, TDH_OUTTYPE_NULL, \
			   ETW_TK_REPEAT }

/* The event classes of the NT Kernel Logger's groups. */
#define ETW_TK_PAGE_FAULT { 0x3d6fa8d3, 0xfe05, 0x11d0, \
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define ETW_TK_DISK_IO { 0x3d6fa8d4, 0xfe05, 0x11d0, \
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define ETW_TK_FILE_IO { 0x90cbdc39, 0x4a3e, 0x11d1, \
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } }
#define ETW_TK_TCP_IP { 0x9a280ac0, 0xc8e0, 0x11d1, \
	{ 0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2 } }
#define ETW_TK_UDP_IP { 0xbf3a50c5, 0xa9c9, 0x4988, \
	{ 0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80 } }
#define ETW_TK_STACK_WALK { 0xdef2fe46, 0x7bd6, 0x4b80, \
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } }
#define ETW_TK_PROCESS { 0x3d6fa8d0, 0xfe05, 0x11d0, \
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define ETW_TK_THREAD { 0x3d6fa8d1, 0xfe05, 0x11d0, \
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } }
#define ETW_TK_IMAGE { 0x2cb15d1d, 0x5fc1, 0x11d2, \
	{ 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } }
#define ETW_TK_IMAGE_ID { 0xb3e675d7, 0x2554, 0x4f18, \
	{ 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } }
static const GUID etw_tk_image_id = ETW_TK_IMAGE_ID;
#define ETW_TK_EVENT_TRACE { 0x68fdd900, 0x4a3e, 0x11d1, \
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } }
#define ETW_TK_CONFIG { 0x01853a65, 0x418f, 0x4f36, \
	{ 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 } }
#define ETW_TK_PERF_INFO { 0xce1dbfb4, 0x137e, 0x4da6, \
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } }

/* Image_Load's fields, under the Image class and the process group. */
#define ETW_TK_IMAGE_LOAD \
	ETW_TK_PTR("ImageBase"), ETW_TK_PTR("ImageSize"), \
	ETW_TK_P("ProcessId", UINT32, HEXINT32), \
	ETW_TK_P("ImageCheckSum", UINT32, NULL), \
	ETW_TK_P("TimeDateStamp", UINT32, NULL), \
	ETW_TK_P("Reserved0", UINT32, NULL), ETW_TK_PTR("DefaultBase"), \
	ETW_TK_P("Reserved1", UINT32, NULL), \
	ETW_TK_P("Reserved2", UINT32, NULL), \
	ETW_TK_P("Reserved3", UINT32, NULL), \
	ETW_TK_P("Reserved4", UINT32, NULL), \
	ETW_TK_P("FileName", UNICODESTRING, NULL)

/* The fields TcpIp and UdpIp events of IPv4 and IPv6 start with. */
#define ETW_TK_IP4_HEAD \
	ETW_TK_P("PID", UINT32, NULL), ETW_TK_P("size", UINT32, NULL), \
	ETW_TK_P("daddr", UINT32, IPV4), ETW_TK_P("saddr", UINT32, IPV4), \
	ETW_TK_P("dport", UINT16, PORT), ETW_TK_P("sport", UINT16, PORT)
#define ETW_TK_IP6_HEAD \
	ETW_TK_P("PID", UINT32, NULL), ETW_TK_P("size", UINT32, NULL), \
	ETW_TK_IPV6("daddr"), ETW_TK_IPV6("saddr"), \
	ETW_TK_P("dport", UINT16, PORT), ETW_TK_P("sport", UINT16, PORT)
/* What a TCP connect or accept adds: the options negotiated. */
#define ETW_TK_TCP_OPTIONS \
	ETW_TK_P("mss", UINT16, NULL), ETW_TK_P("sackopt", UINT16, NULL), \
	ETW_TK_P("tsopt", UINT16, NULL), ETW_TK_P("wsopt", UINT16, NULL), \
	ETW_TK_P("rcvwin", UINT32, NULL), \
	ETW_TK_P("rcvwinscale", INT16, NULL), \
	ETW_TK_P("sndwinscale", INT16, NULL)
#define ETW_TK_SEQ_CONN \
	ETW_TK_P("seqnum", UINT32, NULL), ETW_TK_PTR("connid")
#define ETW_TK_SEND_TIMES \
	ETW_TK_P("startime", UINT32, NULL), ETW_TK_P("endtime", UINT32, NULL)

static const struct etw_tk_class etw_tk_classes[] = {
	{
		/* EventTraceGuid: the groups enabled, at start and at end */
		ETW_TK_EVENT_TRACE, 2, 0, "EventTrace",
		{ { 5, "Extension" }, { 32, "EndExtension" } },
		{
			ETW_TK_P("GroupMask1", UINT32, HEXINT32),
			ETW_TK_P("GroupMask2", UINT32, HEXINT32),
			ETW_TK_P("GroupMask3", UINT32, HEXINT32),
			ETW_TK_P("GroupMask4", UINT32, HEXINT32),
			ETW_TK_P("GroupMask5", UINT32, HEXINT32),
			ETW_TK_P("GroupMask6", UINT32, HEXINT32),
			ETW_TK_P("GroupMask7", UINT32, HEXINT32),
			ETW_TK_P("GroupMask8", UINT32, HEXINT32),
			ETW_TK_P("KernelEventVersion", UINT32, NULL),
		},
	},
	{
		/* EventTraceGuid: the rundown is over (no fields) */
		ETW_TK_EVENT_TRACE, 2, 0, "EventTrace",
		{ { 8, "RundownComplete" } },
		{ },
	},
	{
		/* EventTraceConfigGuid, SystemConfig_V3_CPU */
		ETW_TK_CONFIG, 3, 0, "SystemConfig",
		{ { 10, "CPU" } },
		{
			ETW_TK_P("MHz", UINT32, NULL),
			ETW_TK_P("NumberOfProcessors", UINT32, NULL),
			ETW_TK_P("MemSize", UINT32, NULL),
			ETW_TK_P("PageSize", UINT32, NULL),
			ETW_TK_P("AllocationGranularity", UINT32, NULL),
			ETW_TK_WCHARS("ComputerName", 256),
			ETW_TK_WCHARS("DomainName", 134),
			ETW_TK_PTR("HyperThreadingFlag"),
			ETW_TK_PTR("HighestUserAddress"),
			ETW_TK_P("ProcessorArchitecture", UINT16, NULL),
			ETW_TK_P("ProcessorLevel", UINT16, NULL),
			ETW_TK_P("ProcessorRevision", UINT16, NULL),
			ETW_TK_P("PaeEnabled", UINT8, NULL),
			ETW_TK_P("NxEnabled", UINT8, NULL),
			ETW_TK_P("MemorySpeed", UINT32, NULL),
		},
	},
	{
		/* SystemConfig_PhyDisk */
		ETW_TK_CONFIG, 2, 0, "SystemConfig",
		{ { 11, "PhyDisk" } },
		{
			ETW_TK_P("DiskNumber", UINT32, NULL),
			ETW_TK_P("BytesPerSector", UINT32, NULL),
			ETW_TK_P("SectorsPerTrack", UINT32, NULL),
			ETW_TK_P("TracksPerCylinder", UINT32, NULL),
			ETW_TK_P("Cylinders", UINT64, NULL),
			ETW_TK_P("SCSIPort", UINT32, NULL),
			ETW_TK_P("SCSIPath", UINT32, NULL),
			ETW_TK_P("SCSITarget", UINT32, NULL),
			ETW_TK_P("SCSILun", UINT32, NULL),
			ETW_TK_WCHARS("Manufacturer", 256),
			ETW_TK_P("PartitionCount", UINT32, NULL),
			ETW_TK_P("WriteCacheEnabled", UINT8, NULL),
			ETW_TK_P("Pad", UINT8, NULL),
			ETW_TK_WCHARS("BootDriveLetter", 3),
			ETW_TK_WCHARS("Spare", 2),
		},
	},
	{
		/* SystemConfig_LogDisk */
		ETW_TK_CONFIG, 2, 0, "SystemConfig",
		{ { 12, "LogDisk" } },
		{
			ETW_TK_P("StartOffset", UINT64, NULL),
			ETW_TK_P("PartitionSize", UINT64, NULL),
			ETW_TK_P("DiskNumber", UINT32, NULL),
			ETW_TK_P("Size", UINT32, NULL),
			ETW_TK_P("DriveType", UINT32, NULL),
			ETW_TK_WCHARS("DriveLetterString", 4),
			ETW_TK_P("Pad1", UINT32, NULL),
			ETW_TK_P("PartitionNumber", UINT32, NULL),
			ETW_TK_P("SectorsPerCluster", UINT32, NULL),
			ETW_TK_P("BytesPerSector", UINT32, NULL),
			ETW_TK_P("Pad2", UINT32, NULL),
			ETW_TK_P("NumberOfFreeClusters", INT64, NULL),
			ETW_TK_P("TotalNumberOfClusters", INT64, NULL),
			ETW_TK_WCHARS("FileSystem", 16),
			ETW_TK_P("VolumeExt", UINT32, NULL),
			ETW_TK_P("Pad3", UINT32, NULL),
		},
	},
	{
		/* SystemConfig_NIC */
		ETW_TK_CONFIG, 2, 0, "SystemConfig",
		{ { 13, "NIC" } },
		{
			ETW_TK_P("PhysicalAddr", UINT64, HEXINT64),
			ETW_TK_P("PhysicalAddrLen", UINT32, NULL),
			ETW_TK_P("Ipv4Index", UINT32, NULL),
			ETW_TK_P("Ipv6Index", UINT32, NULL),
			ETW_TK_P("NICDescription", UNICODESTRING, NULL),
			ETW_TK_P("IpAddresses", UNICODESTRING, NULL),
			ETW_TK_P("DnsServerAddresses", UNICODESTRING, NULL),
		},
	},
	{
		/* SystemConfig_V3_Services: the class page's, and two groups */
		ETW_TK_CONFIG, 3, 0, "SystemConfig",
		{ { 15, "Services" } },
		{
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("ServiceState", UINT32, HEXINT32),
			ETW_TK_P("SubProcessTag", UINT32, HEXINT32),
			ETW_TK_P("ServiceName", UNICODESTRING, NULL),
			ETW_TK_P("DisplayName", UNICODESTRING, NULL),
			ETW_TK_P("ProcessName", UNICODESTRING, NULL),
			ETW_TK_P("LoadOrderGroup", UNICODESTRING, NULL),
			ETW_TK_P("SvchostGroup", UNICODESTRING, NULL),
		},
	},
	{
		/* SystemConfig_Power */
		ETW_TK_CONFIG, 2, 0, "SystemConfig",
		{ { 16, "Power" } },
		{
			ETW_TK_P("s1", UINT8, NULL), ETW_TK_P("s2", UINT8, NULL),
			ETW_TK_P("s3", UINT8, NULL), ETW_TK_P("s4", UINT8, NULL),
			ETW_TK_P("s5", UINT8, NULL),
			ETW_TK_P("Pad1", UINT8, NULL),
			ETW_TK_P("Pad2", UINT8, NULL),
			ETW_TK_P("Pad3", UINT8, NULL),
		},
	},
	{
		/* SystemConfig_IDEChannel */
		ETW_TK_CONFIG, 2, 0, "SystemConfig",
		{ { 23, "IDEChannel" } },
		{
			ETW_TK_P("TargetId", UINT32, NULL),
			ETW_TK_P("DeviceType", UINT32, HEXINT32),
			ETW_TK_P("DeviceTimingMode", UINT32, HEXINT32),
			ETW_TK_P("LocationInformationLen", UINT32, NULL),
			ETW_TK_P("LocationInformation", UNICODESTRING, NULL),
		},
	},
	{
		/* EventTraceGuid, EventTrace_Header: the logfile header */
		ETW_TK_EVENT_TRACE, 2, 0, "EventTrace",
		{ { 0, "" } },
		{
			ETW_TK_P("BufferSize", UINT32, NULL),
			ETW_TK_P("Version", UINT32, HEXINT32),
			ETW_TK_P("ProviderVersion", UINT32, NULL),
			ETW_TK_P("NumberOfProcessors", UINT32, NULL),
			ETW_TK_P("EndTime", UINT64, NULL),
			ETW_TK_P("TimerResolution", UINT32, NULL),
			ETW_TK_P("MaxFileSize", UINT32, NULL),
			ETW_TK_P("LogFileMode", UINT32, HEXINT32),
			ETW_TK_P("BuffersWritten", UINT32, NULL),
			ETW_TK_P("StartBuffers", UINT32, NULL),
			ETW_TK_P("PointerSize", UINT32, NULL),
			ETW_TK_P("EventsLost", UINT32, NULL),
			ETW_TK_P("CPUSpeed", UINT32, NULL),
			ETW_TK_PTR("LoggerName"),
			ETW_TK_PTR("LogFileName"),
			{ "TimeZoneInformation", TDH_INTYPE_BINARY,
			  TDH_OUTTYPE_NULL, 176 },
			ETW_TK_P("BootTime", UINT64, NULL),
			ETW_TK_P("PerfFreq", UINT64, NULL),
			ETW_TK_P("StartTime", UINT64, NULL),
			ETW_TK_P("ReservedFlags", UINT32, NULL),
			ETW_TK_P("BuffersLost", UINT32, NULL),
			ETW_TK_P("SessionNameString", UNICODESTRING, NULL),
			ETW_TK_P("LogFileNameString", UNICODESTRING, NULL),
		},
	},
	{
		/* ProcessGuid, Process_V4_TypeGroup1 */
		ETW_TK_PROCESS, 4, 0, "Process",
		{ { 1, "Start" }, { 2, "End" }, { 3, "DCStart" },
		  { 4, "DCEnd" }, { 39, "Defunct" } },
		{
			ETW_TK_PTR("UniqueProcessKey"),
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("ParentId", UINT32, HEXINT32),
			ETW_TK_P("SessionId", UINT32, NULL),
			ETW_TK_P("ExitStatus", INT32, NULL),
			ETW_TK_PTR("DirectoryTableBase"),
			ETW_TK_P("Flags", UINT32, NULL),
			ETW_TK_P("UserSID", WBEMSID, NULL),
			ETW_TK_P("ImageFileName", ANSISTRING, NULL),
			ETW_TK_P("CommandLine", UNICODESTRING, NULL),
			ETW_TK_P("PackageFullName", UNICODESTRING, NULL),
			ETW_TK_P("ApplicationId", UNICODESTRING, NULL),
		},
	},
	{
		/* ProcessGuid, Process_V2_TypeGroup2: the counters */
		ETW_TK_PROCESS, 2, 0, "Process",
		{ { 32, "PerfCtr" }, { 33, "PerfCtrRundown" } },
		{
			ETW_TK_P("ProcessId", UINT32, NULL),
			ETW_TK_P("PageFaultCount", UINT32, NULL),
			ETW_TK_P("HandleCount", UINT32, NULL),
			ETW_TK_P("Reserved", UINT32, NULL),
			ETW_TK_SIZE("PeakVirtualSize"),
			ETW_TK_SIZE("PeakWorkingSetSize"),
			ETW_TK_SIZE("PeakPagefileUsage"),
			ETW_TK_SIZE("QuotaPeakPagedPoolUsage"),
			ETW_TK_SIZE("QuotaPeakNonPagedPoolUsage"),
			ETW_TK_SIZE("VirtualSize"),
			ETW_TK_SIZE("WorkingSetSize"),
			ETW_TK_SIZE("PagefileUsage"),
			ETW_TK_SIZE("QuotaPagedPoolUsage"),
			ETW_TK_SIZE("QuotaNonPagedPoolUsage"),
			ETW_TK_SIZE("PrivatePageCount"),
		},
	},
	{
		/* ThreadGuid, Thread_V3_TypeGroup1 */
		ETW_TK_THREAD, 3, 0, "Thread",
		{ { 1, "Start" }, { 2, "End" }, { 3, "DCStart" },
		  { 4, "DCEnd" } },
		{
			ETW_TK_P("ProcessId", UINT32, HEXINT32),
			ETW_TK_P("TThreadId", UINT32, HEXINT32),
			ETW_TK_PTR("StackBase"),
			ETW_TK_PTR("StackLimit"),
			ETW_TK_PTR("UserStackBase"),
			ETW_TK_PTR("UserStackLimit"),
			ETW_TK_PTR("Affinity"),
			ETW_TK_PTR("Win32StartAddr"),
			ETW_TK_PTR("TebBase"),
			ETW_TK_P("SubProcessTag", UINT32, HEXINT32),
			ETW_TK_P("BasePriority", UINT8, NULL),
			ETW_TK_P("PagePriority", UINT8, NULL),
			ETW_TK_P("IoPriority", UINT8, NULL),
			ETW_TK_P("ThreadFlags", UINT8, NULL),
		},
	},
	{
		/* ThreadGuid, CSwitch */
		ETW_TK_THREAD, 2, 0, "Thread",
		{ { 36, "CSwitch" } },
		{
			ETW_TK_P("NewThreadId", UINT32, HEXINT32),
			ETW_TK_P("OldThreadId", UINT32, HEXINT32),
			ETW_TK_P("NewThreadPriority", INT8, NULL),
			ETW_TK_P("OldThreadPriority", INT8, NULL),
			ETW_TK_P("PreviousCState", UINT8, NULL),
			ETW_TK_P("SpareByte", INT8, NULL),
			ETW_TK_P("OldThreadWaitReason", INT8, NULL),
			ETW_TK_P("OldThreadWaitMode", INT8, NULL),
			ETW_TK_P("OldThreadState", INT8, NULL),
			ETW_TK_P("OldThreadWaitIdealProcessor", INT8, HEXINT8),
			ETW_TK_P("NewThreadWaitTime", UINT32, HEXINT32),
			ETW_TK_P("Reserved", UINT32, NULL),
		},
	},
	{
		/* ThreadGuid, ReadyThread */
		ETW_TK_THREAD, 2, 0, "Thread",
		{ { 50, "ReadyThread" } },
		{
			ETW_TK_P("TThreadId", UINT32, HEXINT32),
			ETW_TK_P("AdjustReason", INT8, NULL),
			ETW_TK_P("AdjustIncrement", INT8, NULL),
			ETW_TK_P("Flag", INT8, NULL),
			ETW_TK_P("Reserved", INT8, NULL),
		},
	},
	{
		/* ImageLoadGuid, Image_Load */
		ETW_TK_IMAGE, 2, 3, "Image",
		{ { 10, "Load" }, { 2, "UnLoad" }, { 3, "DCStart" },
		  { 4, "DCEnd" } },
		{ ETW_TK_IMAGE_LOAD },
	},
	{
		/*
		 * The process group's LOAD hook (WMI_LOG_TYPE_PROCESS_LOAD_IMAGE)
		 * carries an Image_Load: Windows logs the loads of a running
		 * trace under it.
		 */
		ETW_TK_PROCESS, 2, 3, "Image",
		{ { 10, "Load" } },
		{ ETW_TK_IMAGE_LOAD },
	},
	{
		/* ImageLoadGuid: where the kernel and the hypercall page are */
		ETW_TK_IMAGE, 2, 0, "Image",
		{ { 33, "KernelBase" } },
		{ ETW_TK_PTR("ImageBase") },
	},
	{
		ETW_TK_IMAGE, 2, 0, "Image",
		{ { 34, "HypercallPage" } },
		{ ETW_TK_PTR("HypercallPageVa") },
	},
	{
		/* PerfInfoGuid, SampledProfile */
		ETW_TK_PERF_INFO, 2, 0, "PerfInfo",
		{ { 46, "SampleProf" } },
		{
			ETW_TK_PTR("InstructionPointer"),
			ETW_TK_P("ThreadId", UINT32, NULL),
			/* wmicore.mof's: the class page's uint32 is two. */
			ETW_TK_P("Count", UINT16, NULL),
			ETW_TK_P("Reserved", UINT16, NULL),
		},
	},
	{
		/* PerfInfoGuid, SysCallEnter */
		ETW_TK_PERF_INFO, 2, 0, "PerfInfo",
		{ { 51, "SysClEnter" } },
		{ ETW_TK_PTR("SysCallAddress") },
	},
	{
		/* PerfInfoGuid, SysCallExit */
		ETW_TK_PERF_INFO, 2, 0, "PerfInfo",
		{ { 52, "SysClExit" } },
		{ ETW_TK_P("SysCallNtStatus", UINT32, HEXINT32) },
	},
	{
		/* PerfInfoGuid, SampledProfileInterval_V3 */
		ETW_TK_PERF_INFO, 3, 0, "PerfInfo",
		{ { 72, "SetInterval" }, { 73, "CollectionStart" },
		  { 74, "CollectionEnd" } },
		{
			ETW_TK_P("Source", UINT32, NULL),
			ETW_TK_P("NewInterval", UINT32, NULL),
			ETW_TK_P("OldInterval", UINT32, NULL),
			ETW_TK_P("SourceName", UNICODESTRING, NULL),
		},
	},
	{
		/* PageFaultGuid, PageFault_TypeGroup1 */
		ETW_TK_PAGE_FAULT, 2, 0, "PageFault",
		{ { 10, "TransitionFault" }, { 11, "DemandZeroFault" },
		  { 12, "CopyOnWrite" }, { 13, "GuardPageFault" },
		  { 14, "HardPageFault" }, { 15, "AccessViolation" } },
		{ ETW_TK_PTR("VirtualAddress"), ETW_TK_PTR("ProgramCounter") },
	},
	{
		/* PageFaultGuid, PageFault_HardFault */
		ETW_TK_PAGE_FAULT, 2, 0, "PageFault",
		{ { 32, "HardFault" } },
		{
			ETW_TK_P("InitialTime", UINT64, NULL),
			ETW_TK_P("ReadOffset", UINT64, NULL),
			ETW_TK_PTR("VirtualAddress"),
			ETW_TK_PTR("FileObject"),
			ETW_TK_P("TThreadId", UINT32, NULL),
			ETW_TK_P("ByteCount", UINT32, NULL),
		},
	},
	{
		/* DiskIoGuid, DiskIo_TypeGroup1 */
		ETW_TK_DISK_IO, 3, 0, "DiskIo",
		{ { 10, "Read" }, { 11, "Write" } },
		{
			ETW_TK_P("DiskNumber", UINT32, NULL),
			ETW_TK_P("IrpFlags", UINT32, HEXINT32),
			ETW_TK_P("TransferSize", UINT32, NULL),
			ETW_TK_P("Reserved", UINT32, NULL),
			ETW_TK_P("ByteOffset", INT64, NULL),
			ETW_TK_PTR("FileObject"),
			ETW_TK_PTR("Irp"),
			ETW_TK_P("HighResResponseTime", UINT64, NULL),
			ETW_TK_P("IssuingThreadId", UINT32, NULL),
		},
	},
	{
		/* DiskIoGuid, DiskIo_TypeGroup2 */
		ETW_TK_DISK_IO, 3, 0, "DiskIo",
		{ { 14, "FlushBuffers" } },
		{
			ETW_TK_P("DiskNumber", UINT32, NULL),
			ETW_TK_P("IrpFlags", UINT32, HEXINT32),
			ETW_TK_P("HighResResponseTime", UINT64, NULL),
			ETW_TK_PTR("Irp"),
			ETW_TK_P("IssuingThreadId", UINT32, NULL),
		},
	},
	{
		/* DiskIoGuid, DiskIo_TypeGroup3 */
		ETW_TK_DISK_IO, 3, 0, "DiskIo",
		{ { 12, "ReadInit" }, { 13, "WriteInit" }, { 15, "FlushInit" } },
		{
			ETW_TK_PTR("Irp"),
			ETW_TK_P("IssuingThreadId", UINT32, NULL),
		},
	},
	{
		/* FileIoGuid, FileIo_Name */
		ETW_TK_FILE_IO, 2, 0, "FileIo",
		{ { 0, "Name" }, { 32, "FileCreate" }, { 35, "FileDelete" },
		  { 36, "FileRundown" } },
		{
			ETW_TK_PTR("FileObject"),
			ETW_TK_P("FileName", UNICODESTRING, NULL),
		},
	},
	{
		/* TcpIpGuid, TcpIp_SendIPV4 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 10, "SendIPV4" } },
		{ ETW_TK_IP4_HEAD, ETW_TK_SEND_TIMES, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_TypeGroup1 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 11, "RecvIPV4" }, { 13, "DisconnectIPV4" },
		  { 14, "RetransmitIPV4" }, { 16, "ReconnectIPV4" },
		  { 18, "TCPCopyIPV4" } },
		{ ETW_TK_IP4_HEAD, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_TypeGroup2 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 12, "ConnectIPV4" }, { 15, "AcceptIPV4" } },
		{ ETW_TK_IP4_HEAD, ETW_TK_TCP_OPTIONS, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_SendIPV6 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 26, "SendIPV6" } },
		{ ETW_TK_IP6_HEAD, ETW_TK_SEND_TIMES, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_TypeGroup3 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 27, "RecvIPV6" }, { 29, "DisconnectIPV6" },
		  { 30, "RetransmitIPV6" }, { 32, "ReconnectIPV6" },
		  { 34, "TCPCopyIPV6" } },
		{ ETW_TK_IP6_HEAD, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_TypeGroup4 */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 28, "ConnectIPV6" }, { 31, "AcceptIPV6" } },
		{ ETW_TK_IP6_HEAD, ETW_TK_TCP_OPTIONS, ETW_TK_SEQ_CONN },
	},
	{
		/* TcpIpGuid, TcpIp_Fail */
		ETW_TK_TCP_IP, 2, 0, "TcpIp",
		{ { 17, "Fail" } },
		{
			ETW_TK_P("Proto", UINT16, NULL),
			ETW_TK_P("FailureCode", UINT16, NULL),
		},
	},
	{
		/* UdpIpGuid, UdpIp_TypeGroup1 */
		ETW_TK_UDP_IP, 2, 0, "UdpIp",
		{ { 10, "SendIPV4" }, { 11, "RecvIPV4" } },
		{ ETW_TK_IP4_HEAD, ETW_TK_SEQ_CONN },
	},
	{
		/* UdpIpGuid, UdpIp_TypeGroup2 */
		ETW_TK_UDP_IP, 2, 0, "UdpIp",
		{ { 26, "SendIPV6" }, { 27, "RecvIPV6" } },
		{ ETW_TK_IP6_HEAD, ETW_TK_SEQ_CONN },
	},
	{
		/* StackWalkGuid, StackWalk_Event */
		ETW_TK_STACK_WALK, 2, 0, "StackWalk",
		{ { 32, "Stack" } },
		{
			ETW_TK_P("EventTimeStamp", UINT64, NULL),
			ETW_TK_P("StackProcess", UINT32, HEXINT32),
			ETW_TK_P("StackThread", UINT32, NULL),
			ETW_TK_FRAMES("Stack"),
		},
	},
	{
		/* StackWalkGuid: a stack cached under a key, and its frames */
		ETW_TK_STACK_WALK, 2, 0, "StackWalk",
		{ { 34, "KeyCreate" }, { 35, "KeyDelete" },
		  { 36, "KeyRundown" } },
		{ ETW_TK_PTR("StackKey"), ETW_TK_FRAMES("Stack") },
	},
	{
		/* StackWalkGuid: an event's stack given by its key */
		ETW_TK_STACK_WALK, 2, 0, "StackWalk",
		{ { 37, "StackKeyKernel" }, { 38, "StackKeyUser" } },
		{
			ETW_TK_P("EventTimeStamp", UINT64, NULL),
			ETW_TK_P("StackProcess", UINT32, HEXINT32),
			ETW_TK_P("StackThread", UINT32, NULL),
			ETW_TK_PTR("StackKey"),
		},
	},
	{
		/* KernelTraceControl's ImageID: an image's identity */
		ETW_TK_IMAGE_ID, 2, 0, "ImageID",
		{ { 0, "" } },
		{
			ETW_TK_PTR("ImageBase"),
			ETW_TK_PTR("ImageSize"),
			ETW_TK_P("ProcessId", UINT32, NULL),
			ETW_TK_P("TimeDateStamp", UINT32, NULL),
			ETW_TK_P("OriginalFileName", UNICODESTRING, NULL),
		},
	},
	{
		/* The CodeView record of an image's PDB (native, and IL) */
		ETW_TK_IMAGE_ID, 2, 0, "ImageID",
		{ { 36, "DbgID_RSDS" }, { 37, "DbgID_ILRSDS" } },
		{
			ETW_TK_P("ImageBase", UINT64, HEXINT64),
			ETW_TK_P("ProcessId", UINT32, NULL),
			ETW_TK_P("GuidSig", GUID, NULL),
			ETW_TK_P("Age", UINT32, NULL),
			ETW_TK_P("PdbFileName", ANSISTRING, NULL),
		},
	},
	{
		/* An image's version resource */
		ETW_TK_IMAGE_ID, 0, 0, "ImageID",
		{ { 64, "FileVersion" } },
		{
			ETW_TK_P("ImageSize", UINT32, NULL),
			ETW_TK_P("TimeDateStamp", UINT32, NULL),
			ETW_TK_P("OrigFileName", UNICODESTRING, NULL),
			ETW_TK_P("FileDescription", UNICODESTRING, NULL),
			ETW_TK_P("FileVersion", UNICODESTRING, NULL),
			ETW_TK_P("BinFileVersion", UNICODESTRING, NULL),
			ETW_TK_P("VerLanguage", UNICODESTRING, NULL),
			ETW_TK_P("ProductName", UNICODESTRING, NULL),
			ETW_TK_P("CompanyName", UNICODESTRING, NULL),
			ETW_TK_P("ProductVersion", UNICODESTRING, NULL),
			ETW_TK_P("FileId", UNICODESTRING, NULL),
			ETW_TK_P("ProgramId", UNICODESTRING, NULL),
		},
	},
	{
		/* UdpIpGuid, UdpIp_Fail */
		ETW_TK_UDP_IP, 2, 0, "UdpIp",
		{ { 17, "Fail" } },
		{
			ETW_TK_P("Proto", UINT16, NULL),
			ETW_TK_P("FailureCode", UINT16, NULL),
		},
	},
};

/*
 * The classes found last, per thread, by the fields that choose them
 * (@c NULL: none): a kernel trace has a few dozen, and scanning the
 * class table for every event cost more than the schema's look-up.
 */
#define ETW_TK_MEMO		64

struct etw_tk_memo {
	GUID guid;
	UCHAR version;
	UCHAR opcode;
	bool used;
	const struct etw_tk_class *c;
	const char *type;
};

static __thread struct etw_tk_memo etw_tk_memo[ETW_TK_MEMO];

/* The class and event type name of a kernel record, or NULL. */
static const struct etw_tk_class *etw_tk_scan(const EVENT_HEADER *h,
					      const char **type)
{
	const struct etw_tk_class *c;
	size_t i, j;

	for (i = 0; i < sizeof(etw_tk_classes) / sizeof(*c); i++) {
		c = &etw_tk_classes[i];
		/* Data1 first: it tells most classes apart, inline. */
		if (c->guid.Data1 != h->ProviderId.Data1 ||
		    memcmp(&c->guid, &h->ProviderId, sizeof(GUID)) ||
		    h->EventDescriptor.Version < c->version ||
		    h->EventDescriptor.Version > (c->max_version ?:
						  c->version))
			continue;
		for (j = 0; j < ETW_TK_MAX_TYPES; j++) {
			if (c->types[j].name &&
			    c->types[j].opcode == h->EventDescriptor.Opcode) {
				*type = c->types[j].name;
				return c;
			}
		}
	}
	*type = NULL;
	return NULL;
}

/* etw_tk_scan(), through this thread's memo. */
static const struct etw_tk_class *etw_tk_find(const EVENT_RECORD *ev,
					      const char **type)
{
	const EVENT_HEADER *h = &ev->EventHeader;
	const EVENT_DESCRIPTOR *d = &h->EventDescriptor;
	struct etw_tk_memo *m;

	if (!(h->Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER))
		return NULL;
	m = &etw_tk_memo[(h->ProviderId.Data1 ^ h->ProviderId.Data1 >> 16 ^
			  d->Version * 31u ^ d->Opcode * 7u) % ETW_TK_MEMO];
	if (!m->used || m->version != d->Version || m->opcode != d->Opcode ||
	    memcmp(&m->guid, &h->ProviderId, sizeof(GUID))) {
		m->guid = h->ProviderId;
		m->version = d->Version;
		m->opcode = d->Opcode;
		m->c = etw_tk_scan(h, &m->type);
		m->used = true;
	}
	*type = m->type;
	return m->c;
}

/* The fields of @c, its repeated pointers left out. */
static uint32_t etw_tk_nprops(const struct etw_tk_class *c)
{
	uint32_t n = 0;

	while (n < ETW_TK_MAX_PROPS && c->props[n].name &&
	       c->props[n].len != ETW_TK_REPEAT)
		n++;
	return n;
}

/*
 * The Stack1 ... pointers of @c after its fields in @ev's payload: as
 * many as it holds whole.
 */
static uint32_t etw_tk_nframes(const struct etw_tk_class *c, uint32_t n,
			       const EVENT_RECORD *ev, ULONG ptr_size)
{
	uint32_t fixed = 0, i, frames;

	if (n == ETW_TK_MAX_PROPS || c->props[n].len != ETW_TK_REPEAT)
		return 0;
	for (i = 0; i < n; i++)
		fixed += c->props[i].len ?:
			 etw_tdh_fixed_size(c->props[i].in, ptr_size);
	if (ev->UserDataLength <= fixed)
		return 0;
	frames = (ev->UserDataLength - fixed) / ptr_size;
	return frames < ETW_TK_MAX_FRAMES ? frames : ETW_TK_MAX_FRAMES;
}

/*
 * @prefix and @k in decimal into @out (@size bytes), as snprintf's
 * "%s%u" writes them: a schema of 192 frames names 192, and snprintf
 * took most of building it.
 */
static void etw_tk_frame_name(char *out, size_t size, const char *prefix,
			      uint32_t k)
{
	char digits[10];
	size_t n = strnlen(prefix, size - 1), d = 0;

	memcpy(out, prefix, n);
	do {
		digits[d++] = (char)('0' + k % 10);
		k /= 10;
	} while (k);
	while (d && n + 1 < size)
		out[n++] = digits[--d];
	out[n] = 0;
}

static void etw_tk_put_props(struct etw_mf_out *o, const struct etw_tk_class *c,
			     uint32_t n, uint32_t frames, ULONG ptr_size)
{
	const struct etw_tk_prop *prop;
	EVENT_PROPERTY_INFO epi;
	char name[32];
	uint32_t i;

	for (i = 0; i < n + frames; i++) {
		prop = &c->props[i < n ? i : n];
		memset(&epi, 0, sizeof(epi));
		if (i < n) {
			epi.NameOffset = etw_mf_put(o, prop->name);
		} else {
			etw_tk_frame_name(name, sizeof(name), prop->name,
					  i - n + 1);
			epi.NameOffset = etw_mf_put(o, name);
		}
		epi.nonStructType.InType = prop->in;
		epi.nonStructType.OutType = prop->out;
		epi.count = 1;
		epi.length = i < n && prop->len ? prop->len :
			     (USHORT)etw_tdh_fixed_size(prop->in, ptr_size);
		if (o->off <= o->cap)
			memcpy(o->buf + offsetof(TRACE_EVENT_INFO,
						 EventPropertyInfoArray) +
			       i * sizeof(epi), &epi, sizeof(epi));
	}
}

/*
 * What a kernel event's schema is a function of, besides the pointer
 * size: its class (its place in the table), event type (its opcode) and
 * Stack1 ... count.  Numbers, not addresses: a key of addresses would
 * hash to other slots in another build, and its collisions with them.
 */
struct etw_tk_schema_id {
	uint32_t c;
	uint32_t opcode;
	uint32_t frames;
};

/**
 * etw_tdh_kernel_build - the TRACE_EVENT_INFO of a kernel logger event
 * @ev: the event
 * @ptr_size: 4 or 8: the length of pointer properties
 * @buf: where to write it, or NULL
 * @cap: bytes at @buf
 * @needed: out: bytes it takes
 *
 * The schema is kept in this thread's cache (etw_tdh_cache.c).
 *
 * Context: any thread.
 * Return: ERROR_SUCCESS; ERROR_NOT_FOUND when @ev is not a kernel event
 * of a class, version and event type described here;
 * ERROR_INSUFFICIENT_BUFFER when @cap is less than *@needed.
 */
ULONG etw_tdh_kernel_build(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			   ULONG cap, ULONG *needed)
{
	struct etw_mf_out o = { buf, buf ? cap : 0, 0 };
	struct etw_tk_schema_id id;
	struct etw_tdh_cache_key k = {
		.tag = ETW_TDH_CACHE_KERNEL | ptr_size << 8,
		.a = &id,
		.a_len = sizeof(id),
	};
	const struct etw_tk_class *c;
	TRACE_EVENT_INFO tei;
	const char *type;
	uint32_t n, frames;
	bool control;
	ULONG ret;

	c = etw_tk_find(ev, &type);
	if (!c)
		return ERROR_NOT_FOUND;
	n = etw_tk_nprops(c);
	frames = etw_tk_nframes(c, n, ev, ptr_size);
	memset(&id, 0, sizeof(id));
	id.c = (uint32_t)(c - etw_tk_classes);
	id.opcode = ev->EventHeader.EventDescriptor.Opcode;
	id.frames = frames;
	if (etw_tdh_cache_lookup(&k, &ev->EventHeader.EventDescriptor, buf,
				 cap, needed, &ret))
		return ret;
	control = !memcmp(&c->guid, &etw_tk_image_id, sizeof(GUID));
	o.off = offsetof(TRACE_EVENT_INFO, EventPropertyInfoArray) +
		(n + frames) * sizeof(EVENT_PROPERTY_INFO);
	memset(&tei, 0, sizeof(tei));
	tei.ProviderGuid = control ? etw_tk_trace_control :
					      etw_tk_system_trace;
	tei.EventGuid = c->guid;
	tei.EventDescriptor = ev->EventHeader.EventDescriptor;
	tei.DecodingSource = DecodingSourceWbem;
	tei.PropertyCount = n + frames;
	tei.TopLevelPropertyCount = n + frames;
	tei.ProviderNameOffset = etw_mf_put(&o, control ?
					    "KernelTraceControl" :
					    "MSNT_SystemTrace");
	tei.TaskNameOffset = etw_mf_put(&o, c->name);
	/* ImageID's event type 0 has no name, as on Windows. */
	tei.OpcodeNameOffset = *type ? etw_mf_put(&o, type) : 0;
	etw_tk_put_props(&o, c, n, frames, ptr_size);
	if (o.off <= o.cap)
		memcpy(o.buf, &tei, offsetof(TRACE_EVENT_INFO,
					     EventPropertyInfoArray));
	*needed = o.off;
	if (o.off > o.cap)
		return ERROR_INSUFFICIENT_BUFFER;
	etw_tdh_cache_store(&k, buf, o.off);
	return ERROR_SUCCESS;
}
