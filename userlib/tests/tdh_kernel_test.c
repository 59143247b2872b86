// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * TDH's schemas of the kernel logger's Process (Process_V4_TypeGroup1,
 * Process_V2_TypeGroup2), Thread (Thread_V3_TypeGroup1, CSwitch,
 * ReadyThread), Image (Image_Load, also under the process group's LOAD
 * hook, KernelBase, HypercallPage), PerfInfo (SysCallEnter, SysCallExit,
 * SampledProfileInterval_V3) and stack-key events, and of KernelTraceControl's ImageID: the field
 * names in the order of Microsoft's MOF classes, typed in here from them,
 * and each field found at the offset of its layout (for Process, Thread,
 * CSwitch, ReadyThread and Image, the one etw.ko writes,
 * Documentation/abi.rst) with 8-byte pointers.
 */
#include <stdbool.h>
#include <stdio.h>

#include "tdh_test.h"
#include "kselftest_harness.h"

#define MAX_FIELDS	24
#define MAX_TYPES	6

static const GUID process_guid = { 0x3d6fa8d0, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID thread_guid = { 0x3d6fa8d1, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID image_guid = { 0x2cb15d1d, 0x5fc1, 0x11d2,
	{ 0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18 } };
static const GUID perfinfo_guid = { 0xce1dbfb4, 0x137e, 0x4da6,
	{ 0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc } };
static const GUID stackwalk_guid = { 0xdef2fe46, 0x7bd6, 0x4b80,
	{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } };
static const GUID image_id_guid = { 0xb3e675d7, 0x2554, 0x4f18,
	{ 0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde } };
static const GUID trace_control = { 0x28ad2447, 0x105b, 0x4fe2,
	{ 0x95, 0x99, 0xe5, 0x9b, 0x2a, 0xa9, 0xa6, 0x34 } };
static const GUID event_trace_guid = { 0x68fdd900, 0x4a3e, 0x11d1,
	{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };
static const GUID config_guid = { 0x01853a65, 0x418f, 0x4f36,
	{ 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35 } };
static const GUID page_fault_guid = { 0x3d6fa8d3, 0xfe05, 0x11d0,
	{ 0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c } };
static const GUID system_trace = { 0x9e814aad, 0x3204, 0x11d2,
	{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

/* A field: its name and the offset etw.ko writes it at (-1: variable). */
struct field {
	const char *name;
	int off;
};

struct class_case {
	const char *task;
	const GUID *guid;
	UCHAR version;
	UCHAR opcodes[MAX_TYPES];
	const char *opnames[MAX_TYPES];
	struct field f[MAX_FIELDS];
};

#define IMAGE_LOAD_FIELDS \
	{ { "ImageBase", 0 }, { "ImageSize", 8 }, { "ProcessId", 16 }, \
	  { "ImageCheckSum", 20 }, { "TimeDateStamp", 24 }, \
	  { "Reserved0", 28 }, { "DefaultBase", 32 }, { "Reserved1", 40 }, \
	  { "Reserved2", 44 }, { "Reserved3", 48 }, { "Reserved4", 52 }, \
	  { "FileName", 56 } }

static const struct class_case classes[] = {
	{ "Process", &process_guid, 4, { 1, 2, 3, 4, 39 },
	  { "Start", "End", "DCStart", "DCEnd", "Defunct" },
	  { { "UniqueProcessKey", 0 }, { "ProcessId", 8 },
	    { "ParentId", 12 }, { "SessionId", 16 }, { "ExitStatus", 20 },
	    { "DirectoryTableBase", 24 }, { "Flags", 32 },
	    { "UserSID", 36 }, { "ImageFileName", 68 },
	    { "CommandLine", -1 }, { "PackageFullName", -1 },
	    { "ApplicationId", -1 } } },
	{ "Thread", &thread_guid, 3, { 1, 2, 3, 4 },
	  { "Start", "End", "DCStart", "DCEnd" },
	  { { "ProcessId", 0 }, { "TThreadId", 4 }, { "StackBase", 8 },
	    { "StackLimit", 16 }, { "UserStackBase", 24 },
	    { "UserStackLimit", 32 }, { "Affinity", 40 },
	    { "Win32StartAddr", 48 }, { "TebBase", 56 },
	    { "SubProcessTag", 64 }, { "BasePriority", 68 },
	    { "PagePriority", 69 }, { "IoPriority", 70 },
	    { "ThreadFlags", 71 } } },
	{ "Thread", &thread_guid, 2, { 36 }, { "CSwitch" },
	  { { "NewThreadId", 0 }, { "OldThreadId", 4 },
	    { "NewThreadPriority", 8 }, { "OldThreadPriority", 9 },
	    { "PreviousCState", 10 }, { "SpareByte", 11 },
	    { "OldThreadWaitReason", 12 }, { "OldThreadWaitMode", 13 },
	    { "OldThreadState", 14 }, { "OldThreadWaitIdealProcessor", 15 },
	    { "NewThreadWaitTime", 16 }, { "Reserved", 20 } } },
	{ "Thread", &thread_guid, 2, { 50 }, { "ReadyThread" },
	  { { "TThreadId", 0 }, { "AdjustReason", 4 },
	    { "AdjustIncrement", 5 }, { "Flag", 6 }, { "Reserved", 7 } } },
	{ "Image", &image_guid, 3, { 10, 2, 3, 4 },
	  { "Load", "UnLoad", "DCStart", "DCEnd" }, IMAGE_LOAD_FIELDS },
	{ "Image", &process_guid, 2, { 10 }, { "Load" }, IMAGE_LOAD_FIELDS },
	{ "Image", &image_guid, 2, { 33 }, { "KernelBase" },
	  { { "ImageBase", 0 } } },
	{ "Image", &image_guid, 2, { 34 }, { "HypercallPage" },
	  { { "HypercallPageVa", 0 } } },
	{ "Process", &process_guid, 2, { 32, 33 },
	  { "PerfCtr", "PerfCtrRundown" },
	  { { "ProcessId", 0 }, { "PageFaultCount", 4 },
	    { "HandleCount", 8 }, { "Reserved", 12 },
	    { "PeakVirtualSize", 16 }, { "PeakWorkingSetSize", 24 },
	    { "PeakPagefileUsage", 32 }, { "QuotaPeakPagedPoolUsage", 40 },
	    { "QuotaPeakNonPagedPoolUsage", 48 }, { "VirtualSize", 56 },
	    { "WorkingSetSize", 64 }, { "PagefileUsage", 72 },
	    { "QuotaPagedPoolUsage", 80 }, { "QuotaNonPagedPoolUsage", 88 },
	    { "PrivatePageCount", 96 } } },
	{ "PageFault", &page_fault_guid, 2, { 10, 11, 12, 13, 14, 15 },
	  { "TransitionFault", "DemandZeroFault", "CopyOnWrite",
	    "GuardPageFault", "HardPageFault", "AccessViolation" },
	  { { "VirtualAddress", 0 }, { "ProgramCounter", 8 } } },
	{ "PerfInfo", &perfinfo_guid, 2, { 51 }, { "SysClEnter" },
	  { { "SysCallAddress", 0 } } },
	{ "PerfInfo", &perfinfo_guid, 2, { 52 }, { "SysClExit" },
	  { { "SysCallNtStatus", 0 } } },
	{ "PerfInfo", &perfinfo_guid, 3, { 72, 73, 74 },
	  { "SetInterval", "CollectionStart", "CollectionEnd" },
	  { { "Source", 0 }, { "NewInterval", 4 }, { "OldInterval", 8 },
	    { "SourceName", -1 } } },
	{ "StackWalk", &stackwalk_guid, 2, { 37, 38 },
	  { "StackKeyKernel", "StackKeyUser" },
	  { { "EventTimeStamp", 0 }, { "StackProcess", 8 },
	    { "StackThread", 12 }, { "StackKey", 16 } } },
	{ "EventTrace", &event_trace_guid, 2, { 0 }, { "" },
	  { { "BufferSize", 0 }, { "Version", 4 }, { "ProviderVersion", 8 },
	    { "NumberOfProcessors", 12 }, { "EndTime", 16 },
	    { "TimerResolution", 24 }, { "MaxFileSize", 28 },
	    { "LogFileMode", 32 }, { "BuffersWritten", 36 },
	    { "StartBuffers", 40 }, { "PointerSize", 44 },
	    { "EventsLost", 48 }, { "CPUSpeed", 52 }, { "LoggerName", 56 },
	    { "LogFileName", 64 }, { "TimeZoneInformation", -1 },
	    { "BootTime", 248 }, { "PerfFreq", 256 }, { "StartTime", 264 },
	    { "ReservedFlags", 272 }, { "BuffersLost", 276 },
	    { "SessionNameString", -1 }, { "LogFileNameString", -1 } } },
	{ "EventTrace", &event_trace_guid, 2, { 5, 32 },
	  { "Extension", "EndExtension" },
	  { { "GroupMask1", 0 }, { "GroupMask2", 4 }, { "GroupMask3", 8 },
	    { "GroupMask4", 12 }, { "GroupMask5", 16 }, { "GroupMask6", 20 },
	    { "GroupMask7", 24 }, { "GroupMask8", 28 },
	    { "KernelEventVersion", 32 } } },
	{ "EventTrace", &event_trace_guid, 2, { 8 }, { "RundownComplete" },
	  { { NULL } } },
	{ "SystemConfig", &config_guid, 3, { 10 }, { "CPU" },
	  { { "MHz", 0 }, { "NumberOfProcessors", 4 }, { "MemSize", 8 },
	    { "PageSize", 12 }, { "AllocationGranularity", 16 },
	    { "ComputerName", -1 }, { "DomainName", -1 },
	    { "HyperThreadingFlag", 800 }, { "HighestUserAddress", 808 },
	    { "ProcessorArchitecture", 816 }, { "ProcessorLevel", 818 },
	    { "ProcessorRevision", 820 }, { "PaeEnabled", 822 },
	    { "NxEnabled", 823 }, { "MemorySpeed", 824 } } },
	{ "SystemConfig", &config_guid, 2, { 11 }, { "PhyDisk" },
	  { { "DiskNumber", 0 }, { "BytesPerSector", 4 },
	    { "SectorsPerTrack", 8 }, { "TracksPerCylinder", 12 },
	    { "Cylinders", 16 }, { "SCSIPort", 24 }, { "SCSIPath", 28 },
	    { "SCSITarget", 32 }, { "SCSILun", 36 }, { "Manufacturer", -1 },
	    { "PartitionCount", 552 }, { "WriteCacheEnabled", 556 },
	    { "Pad", 557 }, { "BootDriveLetter", 558 }, { "Spare", 564 } } },
	{ "SystemConfig", &config_guid, 2, { 12 }, { "LogDisk" },
	  { { "StartOffset", 0 }, { "PartitionSize", 8 },
	    { "DiskNumber", 16 }, { "Size", 20 }, { "DriveType", 24 },
	    { "DriveLetterString", 28 }, { "Pad1", 36 },
	    { "PartitionNumber", 40 }, { "SectorsPerCluster", 44 },
	    { "BytesPerSector", 48 }, { "Pad2", 52 },
	    { "NumberOfFreeClusters", 56 }, { "TotalNumberOfClusters", 64 },
	    { "FileSystem", -1 }, { "VolumeExt", 104 }, { "Pad3", 108 } } },
	{ "SystemConfig", &config_guid, 2, { 13 }, { "NIC" },
	  { { "PhysicalAddr", 0 }, { "PhysicalAddrLen", 8 },
	    { "Ipv4Index", 12 }, { "Ipv6Index", 16 },
	    { "NICDescription", -1 }, { "IpAddresses", -1 },
	    { "DnsServerAddresses", -1 } } },
	{ "SystemConfig", &config_guid, 3, { 15 }, { "Services" },
	  { { "ProcessId", 0 }, { "ServiceState", 4 },
	    { "SubProcessTag", 8 }, { "ServiceName", -1 },
	    { "DisplayName", -1 }, { "ProcessName", -1 },
	    { "LoadOrderGroup", -1 }, { "SvchostGroup", -1 } } },
	{ "SystemConfig", &config_guid, 2, { 16 }, { "Power" },
	  { { "s1", 0 }, { "s2", 1 }, { "s3", 2 }, { "s4", 3 }, { "s5", 4 },
	    { "Pad1", 5 }, { "Pad2", 6 }, { "Pad3", 7 } } },
	{ "SystemConfig", &config_guid, 2, { 23 }, { "IDEChannel" },
	  { { "TargetId", 0 }, { "DeviceType", 4 },
	    { "DeviceTimingMode", 8 }, { "LocationInformationLen", 12 },
	    { "LocationInformation", -1 } } },
	{ "ImageID", &image_id_guid, 2, { 0 }, { "" },
	  { { "ImageBase", 0 }, { "ImageSize", 8 }, { "ProcessId", 16 },
	    { "TimeDateStamp", 20 }, { "OriginalFileName", -1 } } },
	{ "ImageID", &image_id_guid, 2, { 36, 37 },
	  { "DbgID_RSDS", "DbgID_ILRSDS" },
	  { { "ImageBase", 0 }, { "ProcessId", 8 }, { "GuidSig", 12 },
	    { "Age", 28 }, { "PdbFileName", -1 } } },
	{ "ImageID", &image_id_guid, 0, { 64 }, { "FileVersion" },
	  { { "ImageSize", 0 }, { "TimeDateStamp", 4 },
	    { "OrigFileName", -1 }, { "FileDescription", -1 },
	    { "FileVersion", -1 }, { "BinFileVersion", -1 },
	    { "VerLanguage", -1 }, { "ProductName", -1 },
	    { "CompanyName", -1 }, { "ProductVersion", -1 },
	    { "FileId", -1 }, { "ProgramId", -1 } } },
};

/* A payload whose byte i is i, for the fixed-offset fields. */
static void kernel_event(EVENT_RECORD *r, uint8_t *data, size_t len,
			 const GUID *guid, UCHAR version, UCHAR opcode)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)i;
	r->EventHeader.Flags = EVENT_HEADER_FLAG_CLASSIC_HEADER |
			       EVENT_HEADER_FLAG_64_BIT_HEADER;
	r->EventHeader.ProviderId = *guid;
	r->EventHeader.EventDescriptor.Version = version;
	r->EventHeader.EventDescriptor.Opcode = opcode;
	r->UserData = data;
	r->UserDataLength = (USHORT)len;
}

static ULONG prop(EVENT_RECORD *r, const char *name, void *out, ULONG size)
{
	PROPERTY_DATA_DESCRIPTOR d = { 0 };
	WCHAR w[32];

	d.PropertyName = (uintptr_t)tdh_wide(name, w);
	d.ArrayIndex = 0xffffffffu;
	return TdhGetProperty(r, 0, NULL, 1, &d, size, out);
}

TEST(classes_have_the_mof_fields_in_order)
{
	const struct class_case *c;
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	uint8_t data[1024];
	char s[64];
	ULONG st, i, n;
	size_t k, t;
	bool control;

	for (k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
		c = &classes[k];
		for (n = 0; n < MAX_FIELDS && c->f[n].name; n++)
			;
		/* KernelTraceControl's class, not MSNT_SystemTrace's */
		control = c->guid == &image_id_guid;
		for (t = 0; t < MAX_TYPES && c->opnames[t]; t++) {
			kernel_event(&r, data, sizeof(data), c->guid, c->version,
				     c->opcodes[t]);
			tei = tdh_info(&r, &st);
			ASSERT_NE(NULL, tei) TH_LOG("%s %u: %lu", c->task,
						    c->opcodes[t],
						    (unsigned long)st);
			EXPECT_EQ(DecodingSourceWbem, tei->DecodingSource);
			EXPECT_EQ(0, memcmp(control ? &trace_control :
						 &system_trace,
					    &tei->ProviderGuid, sizeof(GUID)));
			EXPECT_EQ(0, memcmp(c->guid, &tei->EventGuid,
					    sizeof(GUID)));
			EXPECT_STREQ(c->task, tdh_tei_str(tei, tei->TaskNameOffset,
							  s, sizeof(s)));
			EXPECT_STREQ(c->opnames[t],
				     tdh_tei_str(tei, tei->OpcodeNameOffset, s,
						 sizeof(s)));
			EXPECT_STREQ(control ? "KernelTraceControl" :
				     "MSNT_SystemTrace",
				     tdh_tei_str(tei, tei->ProviderNameOffset, s,
						 sizeof(s)));
			ASSERT_EQ(n, tei->PropertyCount) TH_LOG("%s", c->task);
			EXPECT_EQ(n, tei->TopLevelPropertyCount);
			for (i = 0; i < n; i++)
				EXPECT_STREQ(c->f[i].name,
					     tdh_tei_str(tei,
						tei->EventPropertyInfoArray[i].NameOffset,
						s, sizeof(s)));
			free(tei);
		}
	}
}

/* Each fixed-offset field's bytes are the payload's at that offset. */
TEST(fields_sit_where_the_kernel_writes_them)
{
	const struct class_case *c;
	uint8_t data[1024], out[16];
	EVENT_RECORD r;
	ULONG size, i;
	size_t k;

	for (k = 0; k < sizeof(classes) / sizeof(classes[0]); k++) {
		c = &classes[k];
		kernel_event(&r, data, sizeof(data), c->guid, c->version,
			     c->opcodes[0]);
		for (i = 0; i < MAX_FIELDS && c->f[i].name; i++) {
			PROPERTY_DATA_DESCRIPTOR d = { 0 };
			WCHAR w[32];

			if (c->f[i].off < 0 || !strcmp(c->f[i].name, "UserSID") ||
			    !strcmp(c->f[i].name, "ImageFileName") ||
			    !strcmp(c->f[i].name, "FileName"))
				continue;
			d.PropertyName = (uintptr_t)tdh_wide(c->f[i].name, w);
			d.ArrayIndex = 0xffffffffu;
			ASSERT_EQ(ERROR_SUCCESS,
				  TdhGetPropertySize(&r, 0, NULL, 1, &d, &size))
				TH_LOG("%s.%s", c->task, c->f[i].name);
			ASSERT_EQ(ERROR_SUCCESS, prop(&r, c->f[i].name, out,
						      sizeof(out)));
			EXPECT_EQ(0, memcmp(data + c->f[i].off, out, size))
				TH_LOG("%s.%s", c->task, c->f[i].name);
		}
	}
}

/* Every property through TdhFormatProperty, "Name=value" joined by spaces. */
static ULONG format_all(PEVENT_RECORD r, const TRACE_EVENT_INFO *tei,
			char *line, size_t room)
{
	const BYTE *p = r->UserData;
	USHORT left = r->UserDataLength, took;
	const EVENT_PROPERTY_INFO *e;
	char name[64], value[128];
	WCHAR text[128];
	size_t pos = 0;
	ULONG i, size, st;

	line[0] = '\0';
	for (i = 0; i < tei->TopLevelPropertyCount; i++) {
		e = &tei->EventPropertyInfoArray[i];
		size = sizeof(text);
		st = TdhFormatProperty((PTRACE_EVENT_INFO)tei, NULL, 8,
				       e->nonStructType.InType,
				       e->nonStructType.OutType, e->length,
				       left, (PBYTE)p, &size, text, &took);
		if (st)
			return st;
		tdh_tei_str(tei, e->NameOffset, name, sizeof(name));
		tdh_utf8(text, value, sizeof(value));
		pos += snprintf(line + pos, room - pos, "%s%s=%s",
				i ? " " : "", name, value);
		if (pos >= room)
			return ERROR_INSUFFICIENT_BUFFER;
		p += took;
		left -= took;
	}
	return left ? ERROR_INVALID_DATA : ERROR_SUCCESS;
}

/*
 * A CSwitch and a ReadyThread as etw.ko writes them, formatted: the
 * thread ids and the ideal processor in hex (the classes' Format("x")),
 * the sint8 fields signed.
 */
TEST(cswitch_and_ready_thread_format)
{
	static const uint8_t cswitch[24] = {
		0x92, 0x10, 0, 0,	/* NewThreadId 4242 */
		0x9a, 0x02, 0, 0,	/* OldThreadId 666 */
		8, 7, 0, 0xff,		/* priorities, C-state, SpareByte -1 */
		6, 1, 5, 0,		/* UserRequest, UserMode, Waiting */
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t ready[8] = { 0x92, 0x10, 0, 0, 0, 0, 1, 0 };
	TRACE_EVENT_INFO *tei;
	uint8_t data[24];
	EVENT_RECORD r;
	char line[512], s[32];
	ULONG st;

	kernel_event(&r, data, sizeof(cswitch), &thread_guid, 2, 36);
	memcpy(data, cswitch, sizeof(cswitch));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("CSwitch", tdh_tei_str(tei, tei->OpcodeNameOffset, s,
					    sizeof(s)));
	ASSERT_EQ(ERROR_SUCCESS, format_all(&r, tei, line, sizeof(line)));
	EXPECT_STREQ("NewThreadId=0x1092 OldThreadId=0x29A "
		     "NewThreadPriority=8 OldThreadPriority=7 PreviousCState=0 "
		     "SpareByte=-1 OldThreadWaitReason=6 OldThreadWaitMode=1 "
		     "OldThreadState=5 OldThreadWaitIdealProcessor=0x0 "
		     "NewThreadWaitTime=0x0 Reserved=0", line);
	free(tei);

	kernel_event(&r, data, sizeof(ready), &thread_guid, 2, 50);
	memcpy(data, ready, sizeof(ready));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("ReadyThread", tdh_tei_str(tei, tei->OpcodeNameOffset, s,
						sizeof(s)));
	ASSERT_EQ(ERROR_SUCCESS, format_all(&r, tei, line, sizeof(line)));
	EXPECT_STREQ("TThreadId=0x1092 AdjustReason=0 AdjustIncrement=0 "
		     "Flag=1 Reserved=0", line);
	free(tei);
}

/*
 * A SysCallEnter and a SysCallExit as etw.ko writes them, formatted: the
 * address (etw's system call number) as a pointer, the status in hex
 * (the class page's Format("x")).
 */
TEST(syscall_enter_and_exit_format)
{
	static const uint8_t enter[8] = { 39, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t exit_[4] = { 0xf7, 0xff, 0xff, 0xff };
	TRACE_EVENT_INFO *tei;
	uint8_t data[8];
	EVENT_RECORD r;
	char line[128], s[32];
	ULONG st;

	kernel_event(&r, data, sizeof(enter), &perfinfo_guid, 2, 51);
	memcpy(data, enter, sizeof(enter));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("SysClEnter", tdh_tei_str(tei, tei->OpcodeNameOffset, s,
					       sizeof(s)));
	ASSERT_EQ(ERROR_SUCCESS, format_all(&r, tei, line, sizeof(line)));
	EXPECT_STREQ("SysCallAddress=0x27", line);
	free(tei);

	kernel_event(&r, data, sizeof(exit_), &perfinfo_guid, 2, 52);
	memcpy(data, exit_, sizeof(exit_));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("SysClExit", tdh_tei_str(tei, tei->OpcodeNameOffset, s,
					      sizeof(s)));
	ASSERT_EQ(ERROR_SUCCESS, format_all(&r, tei, line, sizeof(line)));
	EXPECT_STREQ("SysCallNtStatus=0xFFFFFFF7", line);
	free(tei);
}

/*
 * A TransitionFault as etw.ko writes it, formatted: both addresses as
 * pointers (the PageFault_TypeGroup1 page: Pointer qualifiers).
 */
TEST(page_fault_format)
{
	static const uint8_t fault[16] = {
		0x08, 0x10, 0x40, 0x00, 0x00, 0x7f, 0x00, 0x00,
		0x34, 0x12, 0x40, 0x00, 0x00, 0x56, 0x00, 0x00,
	};
	TRACE_EVENT_INFO *tei;
	uint8_t data[16];
	EVENT_RECORD r;
	char line[128], s[32];
	ULONG st;

	kernel_event(&r, data, sizeof(fault), &page_fault_guid, 2, 10);
	memcpy(data, fault, sizeof(fault));
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	EXPECT_STREQ("TransitionFault", tdh_tei_str(tei, tei->OpcodeNameOffset,
						    s, sizeof(s)));
	ASSERT_EQ(ERROR_SUCCESS, format_all(&r, tei, line, sizeof(line)));
	EXPECT_STREQ("VirtualAddress=0x7F0000401008 "
		     "ProgramCounter=0x560000401234", line);
	free(tei);
}

/* A whole Process event as etw.ko writes one, read back by name. */
TEST(process_event_decodes)
{
	static const uint8_t sid[32] = {
		16, 0, 0, 0, 0, 0, 0, 0,	/* TOKEN_USER.Sid: offset 16 */
		0, 0, 0, 0, 0, 0, 0, 0,
		1, 2, 0, 0, 0, 0, 0, 22,	/* S-1-22- */
		1, 0, 0, 0, 0xe8, 3, 0, 0,	/* 1-1000 */
	};
	uint8_t data[160] = { 0 }, *p = data;
	uint32_t pid = 4242, ppid = 1, got;
	TRACE_EVENT_INFO *tei;
	WCHAR cmd[16];
	EVENT_RECORD r;
	char s[64];
	ULONG st;

	memcpy(p + 8, &pid, 4);
	memcpy(p + 12, &ppid, 4);
	memcpy(p + 36, sid, sizeof(sid));
	p += 68;
	memcpy(p, "true", 5);
	p += 5;
	tdh_wide("true -x", cmd);
	memcpy(p, cmd, 16);
	p += 16 + 4;		/* two empty UTF-16 strings follow */
	kernel_event(&r, data, 0, &process_guid, 4, 1);
	r.UserData = data;
	r.UserDataLength = (USHORT)(p - data);
	ASSERT_EQ(ERROR_SUCCESS, prop(&r, "ProcessId", &got, sizeof(got)));
	EXPECT_EQ(pid, got);
	ASSERT_EQ(ERROR_SUCCESS, prop(&r, "ParentId", &got, sizeof(got)));
	EXPECT_EQ(ppid, got);
	ASSERT_EQ(ERROR_SUCCESS, prop(&r, "ImageFileName", s, sizeof(s)));
	EXPECT_STREQ("true", s);
	ASSERT_EQ(ERROR_SUCCESS, prop(&r, "CommandLine", s, sizeof(s)));
	EXPECT_EQ(0, memcmp(cmd, s, 16));
	ASSERT_EQ(ERROR_SUCCESS, prop(&r, "ApplicationId", s, sizeof(s)));
	EXPECT_EQ(0, s[0] | s[1]);
	tei = tdh_info(&r, &st);
	ASSERT_NE(NULL, tei);
	free(tei);
}

struct miss_case {
	const char *what;
	const GUID *guid;
	UCHAR version;
	UCHAR opcode;
	bool classic;
};

static const struct miss_case misses[] = {
	{ "Process version 3", &process_guid, 3, 1, true },
	{ "Thread version 2", &thread_guid, 2, 1, true },
	{ "Process type 40", &process_guid, 4, 40, true },
	{ "Process counters version 4", &process_guid, 4, 32, true },
	{ "Load under the process group, version 4", &process_guid, 4, 10,
	  true },
	{ "ImageID type 32", &image_id_guid, 2, 32, true },
	{ "StackWalk type 33", &stackwalk_guid, 2, 33, true },
	{ "Image type 1", &image_guid, 3, 1, true },
	{ "not a classic record", &process_guid, 4, 1, false },
	{ "another class", &system_trace, 4, 1, true },
};

TEST(other_events_are_not_found)
{
	uint8_t data[128];
	EVENT_RECORD r;
	ULONG st, size;
	size_t i;

	for (i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
		kernel_event(&r, data, sizeof(data), misses[i].guid,
			     misses[i].version, misses[i].opcode);
		if (!misses[i].classic)
			r.EventHeader.Flags &= ~EVENT_HEADER_FLAG_CLASSIC_HEADER;
		size = 0;
		st = TdhGetEventInformation(&r, 0, NULL, NULL, &size);
		EXPECT_EQ(ERROR_NOT_FOUND, st) TH_LOG("%s", misses[i].what);
	}
}

TEST(pointer_size_follows_the_context)
{
	TDH_CONTEXT ctx = { 4, TDH_CONTEXT_POINTERSIZE, 0 };
	TRACE_EVENT_INFO *tei;
	uint8_t data[128];
	EVENT_RECORD r;
	ULONG size = 0;

	kernel_event(&r, data, sizeof(data), &image_guid, 3, 10);
	ASSERT_EQ(ERROR_INSUFFICIENT_BUFFER,
		  TdhGetEventInformation(&r, 1, &ctx, NULL, &size));
	tei = malloc(size);
	ASSERT_NE(NULL, tei);
	ASSERT_EQ(ERROR_SUCCESS, TdhGetEventInformation(&r, 1, &ctx, tei,
							&size));
	EXPECT_EQ(TDH_INTYPE_POINTER,
		  tei->EventPropertyInfoArray[0].nonStructType.InType);
	EXPECT_EQ(4, tei->EventPropertyInfoArray[0].length);
	free(tei);
}

/*
 * StackWalk_Event: StackN fields for the pointers the payload holds, of
 * the record's width; a partial pointer at the end is not one.
 */
TEST(stackwalk_frames_follow_the_payload)
{
	static const GUID stackwalk = { 0xdef2fe46, 0x7bd6, 0x4b80,
		{ 0xbd, 0x94, 0xf5, 0x7f, 0xe2, 0x0d, 0x0c, 0xe3 } };
	static const struct {
		USHORT flags;
		USHORT len;
		ULONG props;
		USHORT frame_len;
	} rows[] = {
		{ EVENT_HEADER_FLAG_64_BIT_HEADER, 16, 3, 0 },
		{ EVENT_HEADER_FLAG_64_BIT_HEADER, 24, 4, 8 },
		{ EVENT_HEADER_FLAG_64_BIT_HEADER, 31, 4, 8 },
		{ EVENT_HEADER_FLAG_64_BIT_HEADER, 16 + 8 * 200, 3 + 192, 8 },
		{ EVENT_HEADER_FLAG_32_BIT_HEADER, 28, 6, 4 },
	};
	static uint8_t data[16 + 8 * 200];
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	char s[32];
	ULONG st;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		kernel_event(&r, data, rows[i].len, &stackwalk, 2, 32);
		r.EventHeader.Flags = EVENT_HEADER_FLAG_CLASSIC_HEADER |
				      rows[i].flags;
		tei = tdh_info(&r, &st);
		ASSERT_NE(NULL, tei) TH_LOG("row %zu: %lu", i,
					    (unsigned long)st);
		EXPECT_EQ(rows[i].props, tei->TopLevelPropertyCount)
			TH_LOG("row %zu", i);
		EXPECT_STREQ("StackThread",
			     tdh_tei_str(tei,
					 tei->EventPropertyInfoArray[2].NameOffset,
					 s, sizeof(s)));
		if (rows[i].props > 3) {
			snprintf(s, sizeof(s), "Stack%lu",
				 (unsigned long)rows[i].props - 3);
			EXPECT_STREQ(s, tdh_tei_str(tei,
				tei->EventPropertyInfoArray[rows[i].props - 1]
				.NameOffset, s + 16, 16));
			EXPECT_EQ(rows[i].frame_len,
				  tei->EventPropertyInfoArray[rows[i].props - 1]
				  .length);
		}
		free(tei);
	}
}

/*
 * The stack-key events (34 KeyCreate, 35 KeyDelete, 36 KeyRundown): the
 * StackKey, then Stack1 ... for each whole pointer after it.
 */
TEST(key_stacks_are_a_key_then_frames)
{
	static const struct {
		UCHAR opcode;
		USHORT flags;
		USHORT len;
		ULONG props;
		USHORT ptr;
	} rows[] = {
		{ 34, EVENT_HEADER_FLAG_64_BIT_HEADER, 8, 1, 8 },
		{ 35, EVENT_HEADER_FLAG_64_BIT_HEADER, 8 + 8 * 3, 4, 8 },
		{ 36, EVENT_HEADER_FLAG_64_BIT_HEADER, 8 + 8 * 3 + 5, 4, 8 },
		{ 36, EVENT_HEADER_FLAG_32_BIT_HEADER, 4 + 4 * 2, 3, 4 },
	};
	uint8_t data[64];
	TRACE_EVENT_INFO *tei;
	EVENT_RECORD r;
	char s[32];
	ULONG st, i;
	size_t k;

	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		kernel_event(&r, data, rows[k].len, &stackwalk_guid, 2,
			     rows[k].opcode);
		r.EventHeader.Flags = EVENT_HEADER_FLAG_CLASSIC_HEADER |
				      rows[k].flags;
		tei = tdh_info(&r, &st);
		ASSERT_NE(NULL, tei) TH_LOG("row %zu: %lu", k,
					    (unsigned long)st);
		ASSERT_EQ(rows[k].props, tei->TopLevelPropertyCount)
			TH_LOG("row %zu", k);
		EXPECT_STREQ("StackKey",
			     tdh_tei_str(tei,
					 tei->EventPropertyInfoArray[0].NameOffset,
					 s, sizeof(s)));
		for (i = 0; i < rows[k].props; i++) {
			char want[16];

			EXPECT_EQ(rows[k].ptr,
				  tei->EventPropertyInfoArray[i].length);
			if (!i)
				continue;
			snprintf(want, sizeof(want), "Stack%lu",
				 (unsigned long)i);
			EXPECT_STREQ(want,
				     tdh_tei_str(tei,
					tei->EventPropertyInfoArray[i].NameOffset,
					s, sizeof(s)));
		}
		free(tei);
	}
}

TEST_HARNESS_MAIN
