// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * TDH's kernel logger classes on a trace Windows recorded
 * (testdata/etl/net.4.5.2.x86.etl): every NT Kernel Logger record of a
 * class described here decodes, its fields taking exactly its payload,
 * and the records of other classes are ERROR_NOT_FOUND (printed raw by
 * etwctl).  A StackWalk_Event has as many StackN fields as its payload
 * holds pointers.  The same holds for the KernelTraceControl records
 * (full classic headers) that xperf's merge adds.  The counts per class
 * and event type are the file's (etl_census.py's hooks and headers); the
 * values of the sample records were read from their bytes by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evntcons.h"
#include "kselftest_harness.h"
#include "tdh_test.h"
#include "testdata.h"

#define NET		TESTDATA "/etl/net.4.5.2.x86.etl"
#define MAX_KEYS	64
#define LINE		1024

struct key_count {
	char key[48];
	int n;
};

/* What the callback saw; @line: the record at @want_ts, as "Name=value". */
static struct {
	struct key_count keys[MAX_KEYS];
	int nkeys;
	int kernel;
	int decoded;
	int not_found;
	int other_error;
	int misfit;
	char misfit_key[48];
	bool full;
	LONGLONG want_ts;
	char want_task[32];
	char want_op[32];
	bool any_op;
	char line[LINE];
} seen;

static void count_key(const char *key)
{
	int i;

	for (i = 0; i < seen.nkeys; i++) {
		if (!strcmp(seen.keys[i].key, key)) {
			seen.keys[i].n++;
			return;
		}
	}
	if (seen.nkeys < MAX_KEYS) {
		snprintf(seen.keys[seen.nkeys].key, sizeof(seen.keys[0].key),
			 "%s", key);
		seen.keys[seen.nkeys++].n = 1;
	}
}

static int key_n(const char *key)
{
	int i;

	for (i = 0; i < seen.nkeys; i++)
		if (!strcmp(seen.keys[i].key, key))
			return seen.keys[i].n;
	return 0;
}

/*
 * Each property through TdhFormatProperty, "Name=value" joined by
 * spaces into @line; the bytes they took in *@used.
 */
static ULONG format_all(PEVENT_RECORD r, TRACE_EVENT_INFO *tei, char *line,
			ULONG *used)
{
	ULONG ptr = r->EventHeader.Flags & EVENT_HEADER_FLAG_32_BIT_HEADER ?
		    4 : 8;
	const BYTE *p = r->UserData;
	USHORT left = r->UserDataLength, took;
	const EVENT_PROPERTY_INFO *e;
	WCHAR text[512];
	char name[64], value[512];
	size_t pos = 0;
	ULONG i, size, st;

	line[0] = '\0';
	for (i = 0; i < tei->TopLevelPropertyCount; i++) {
		e = &tei->EventPropertyInfoArray[i];
		size = sizeof(text);
		st = TdhFormatProperty(tei, NULL, ptr, e->nonStructType.InType,
				       e->nonStructType.OutType, e->length,
				       left, (PBYTE)p, &size, text, &took);
		if (st)
			return st;
		tdh_tei_str(tei, e->NameOffset, name, sizeof(name));
		tdh_utf8(text, value, sizeof(value));
		pos += snprintf(line + pos, LINE - pos, "%s%s=%s",
				i ? " " : "", name, value);
		if (pos >= LINE)
			pos = LINE - 1;
		p += took;
		left -= took;
	}
	*used = r->UserDataLength - left;
	return ERROR_SUCCESS;
}

static VOID WINAPI on_record(PEVENT_RECORD r)
{
	union {
		TRACE_EVENT_INFO tei;
		char bytes[8192];
	} buf;
	char task[32], op[32], key[48], line[LINE];
	ULONG size = sizeof(buf), st, used = 0;
	bool full = r->EventHeader.HeaderType == 0xc014 ||
		    r->EventHeader.HeaderType == 0xc00a;

	if (!(r->EventHeader.Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER) ||
	    full != seen.full)
		return;
	/* Looking for one record: the others are not decoded. */
	if (seen.want_ts && r->EventHeader.TimeStamp.QuadPart != seen.want_ts)
		return;
	seen.kernel++;
	st = TdhGetEventInformation(r, 0, NULL, &buf.tei, &size);
	if (st == ERROR_NOT_FOUND) {
		seen.not_found++;
		return;
	}
	if (st) {
		seen.other_error++;
		return;
	}
	seen.decoded++;
	tdh_tei_str(&buf.tei, buf.tei.TaskNameOffset, task, sizeof(task));
	tdh_tei_str(&buf.tei, buf.tei.OpcodeNameOffset, op, sizeof(op));
	snprintf(key, sizeof(key), "%s %s v%u", task, op,
		 r->EventHeader.EventDescriptor.Version);
	count_key(key);
	st = format_all(r, &buf.tei, line, &used);
	if (st || used != r->UserDataLength) {
		if (!seen.misfit++)
			snprintf(seen.misfit_key, sizeof(seen.misfit_key),
				 "%s", key);
		return;
	}
	if (r->EventHeader.TimeStamp.QuadPart == seen.want_ts &&
	    !strcmp(task, seen.want_task) &&
	    (seen.any_op || !strcmp(op, seen.want_op)))
		snprintf(seen.line, sizeof(seen.line), "%s %s", op, line);
}

/*
 * Process the file with raw timestamps, keeping the record at @ts of
 * @task and (unless NULL) event type @op; the full-header records when
 * @full, else the SYSTEM and PERFINFO ones.
 */
static ULONG process(LONGLONG ts, const char *task, const char *op,
		     bool full)
{
	EVENT_TRACE_LOGFILEA lf = { 0 };
	PROCESSTRACE_HANDLE h;
	ULONG st;

	memset(&seen, 0, sizeof(seen));
	seen.full = full;
	seen.want_ts = ts;
	snprintf(seen.want_task, sizeof(seen.want_task), "%s", task);
	snprintf(seen.want_op, sizeof(seen.want_op), "%s", op ?: "");
	seen.any_op = !op;
	lf.LogFileName = (LPSTR)NET;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD |
			      PROCESS_TRACE_MODE_RAW_TIMESTAMP;
	lf.EventRecordCallback = on_record;
	h = OpenTraceA(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	st = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return st;
}

/* Class, event type and version as TDH names them, and the file's count. */
static const struct key_count want_counts[] = {
	{ "PerfInfo SampleProf v2", 88809 },
	{ "PageFault HardFault v2", 394 },
	{ "DiskIo Read v3", 2339 },
	{ "DiskIo Write v3", 50 },
	{ "DiskIo ReadInit v3", 2339 },
	{ "DiskIo WriteInit v3", 50 },
	{ "DiskIo FlushBuffers v3", 4 },
	{ "DiskIo FlushInit v3", 4 },
	{ "FileIo FileCreate v2", 86 },
	{ "FileIo FileDelete v2", 27 },
	{ "FileIo FileRundown v2", 2917 },
	{ "TcpIp SendIPV4 v2", 2 },
	{ "TcpIp RecvIPV4 v2", 1 },
	{ "TcpIp DisconnectIPV4 v2", 1 },
	{ "TcpIp AcceptIPV4 v2", 1 },
	{ "TcpIp SendIPV6 v2", 232 },
	{ "TcpIp RecvIPV6 v2", 241 },
	{ "UdpIp SendIPV4 v2", 16 },
	{ "UdpIp RecvIPV4 v2", 14 },
	{ "UdpIp SendIPV6 v2", 12 },
	{ "UdpIp RecvIPV6 v2", 6 },
	{ "Image Load v2", 57 },
	{ "Image UnLoad v2", 47 },
	{ "Image KernelBase v2", 1 },
	{ "Image HypercallPage v2", 1 },
	{ "Image DCStart v2", 141 + 1669 },
	{ "Image DCEnd v2", 141 + 1679 },
	{ "Process Start v4", 1 },
	{ "Process End v4", 1 },
	{ "Process DCStart v4", 35 },
	{ "Process DCEnd v4", 35 },
	{ "Process Defunct v4", 2 },
	{ "Process PerfCtr v2", 1 },
	{ "Process PerfCtrRundown v2", 35 },
	{ "PerfInfo CollectionStart v3", 1 },
	{ "PerfInfo CollectionEnd v3", 1 },
	{ "Thread Start v3", 16 },
	{ "Thread End v3", 29 },
	{ "Thread DCStart v3", 705 },
	{ "Thread DCEnd v3", 692 },
	{ "StackWalk Stack v2", 229 },
	{ "StackWalk KeyDelete v2", 3049 },
	{ "StackWalk KeyRundown v2", 1024 },
	{ "StackWalk StackKeyKernel v2", 3640 },
	{ "StackWalk StackKeyUser v2", 8532 },
	{ "EventTrace  v2", 1 },
	{ "EventTrace Extension v2", 3 },
	{ "EventTrace EndExtension v2", 2 },
	{ "EventTrace RundownComplete v2", 2 },
	{ "SystemConfig CPU v3", 1 },
	{ "SystemConfig PhyDisk v2", 1 },
	{ "SystemConfig LogDisk v2", 1 },
	{ "SystemConfig NIC v2", 3 },
	{ "SystemConfig Services v3", 157 },
	{ "SystemConfig Power v2", 1 },
	{ "SystemConfig IDEChannel v2", 2 },
};

TEST(every_kernel_record_decodes_or_is_unknown)
{
	int i, total = 0;

	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(0, "", NULL, false));
	/* SYSTEM and PERFINFO records: the census's 0xc001/2/0xc011. */
	EXPECT_EQ(2 + 4472 + 115091, seen.kernel);
	/* Left: SystemConfig's 0x0b11, 0x0b12, 0x0b16 (PnP), 0x0b19, 0x0b1c. */
	EXPECT_EQ(1 + 1 + 78 + 1 + 1, seen.not_found);
	EXPECT_EQ(0, seen.other_error);
	EXPECT_EQ(0, seen.misfit) TH_LOG("first misfit: %s", seen.misfit_key);
	for (i = 0; i < (int)(sizeof(want_counts) / sizeof(*want_counts));
	     i++) {
		EXPECT_EQ(want_counts[i].n, key_n(want_counts[i].key))
			TH_LOG("%s", want_counts[i].key);
		total += want_counts[i].n;
	}
	EXPECT_EQ(total, seen.decoded);
	EXPECT_EQ(seen.kernel - total, seen.not_found);
	EXPECT_EQ((int)(sizeof(want_counts) / sizeof(*want_counts)),
		  seen.nkeys);
}

/* KernelTraceControl's ImageID records, the full-header ones TDH knows. */
static const struct key_count want_control[] = {
	{ "ImageID  v2", 3728 },
	{ "ImageID DbgID_RSDS v2", 3680 },
	{ "ImageID DbgID_ILRSDS v2", 42 },
	{ "ImageID FileVersion v0", 680 },
};

TEST(merge_image_ids_decode_or_are_unknown)
{
	int i, total = 0;

	REQUIRE_TESTDATA();
	ASSERT_EQ(ERROR_SUCCESS, process(0, "", NULL, true));
	/* The census's 0xc014 and 0xc00a records. */
	EXPECT_EQ(8162 + 73, seen.kernel);
	EXPECT_EQ(0, seen.other_error);
	EXPECT_EQ(0, seen.misfit) TH_LOG("first misfit: %s", seen.misfit_key);
	for (i = 0; i < (int)(sizeof(want_control) / sizeof(*want_control));
	     i++) {
		EXPECT_EQ(want_control[i].n, key_n(want_control[i].key))
			TH_LOG("%s", want_control[i].key);
		total += want_control[i].n;
	}
	EXPECT_EQ(total, seen.decoded);
	/* ImageID type 32, SysConfigEx, KernelTraceControl's MetaData. */
	EXPECT_EQ(6 + 13 + 86, seen.not_found);
}

/* One record of each class, at its raw timestamp, against its bytes. */
static const struct {
	LONGLONG ts;
	const char *task;
	const char *op;
	bool full;
	const char *line;
} samples[] = {
	{ 1534538769, "PerfInfo", NULL, false, "SampleProf "
	  "InstructionPointer=0xFFFFF80021561F43 ThreadId=2784 "
	  "Count=1 Reserved=88" },
	{ 1534736794, "PageFault", NULL, false, "HardFault InitialTime=1534626086 "
	  "ReadOffset=197632 VirtualAddress=0x776812E4 "
	  "FileObject=0xFFFFF8A0016B9140 TThreadId=2784 ByteCount=20480" },
	{ 1534735873, "DiskIo", NULL, false, "Read DiskNumber=0 IrpFlags=0x60043 "
	  "TransferSize=20480 Reserved=0 ByteOffset=5669618688 "
	  "FileObject=0xFFFFF8A0016B9140 Irp=0xFFFFFA83033B3680 "
	  "HighResResponseTime=109469 IssuingThreadId=2784" },
	{ 1534553926, "TcpIp", NULL, false, "SendIPV6 PID=4 size=65652 "
	  "daddr=2001:4898:e0:81:7cb9:ab:cd5:e6af "
	  "saddr=2001:4898:f0:26:b18e:e85f:db5d:8e8 dport=445 sport=64022 "
	  "startime=1534 endtime=1534 seqnum=0 connid=0x0" },
	{ 1534548812, "StackWalk", NULL, false, "Stack EventTimeStamp=1534548763 "
	  "StackProcess=0xF94 StackThread=2784 Stack1=0xFFFFF880016B39C5" },
	{ 1534984486, "FileIo", NULL, false, "FileCreate FileObject=0xFFFFF8A002D5AA70 "
	  "FileName=\\Device\\Mup\\clrmain\\public\\PerfInvestigations\\"
	  "20-07-28.TestTraces\\net.4.5.2.x86.etl" },
	{ 1534739438, "StackWalk", NULL, false, "StackKeyUser "
	  "EventTimeStamp=1534739302 StackProcess=0xF94 StackThread=2784 "
	  "StackKey=0xFFFFFA830332E4D0" },
	{ 1645845456, "StackWalk", NULL, false, "KeyRundown "
	  "StackKey=0xFFFFFA83032729D0 Stack1=0x745E5416 Stack2=0x268E027 "
	  "Stack3=0x268DE11 Stack4=0x268DC6B Stack5=0x268D7DA "
	  "Stack6=0x268B4FD Stack7=0x268B354 Stack8=0x26839A2 "
	  "Stack9=0x745D2552 Stack10=0x745DF237 Stack11=0x745DFF60 "
	  "Stack12=0x746F671C Stack13=0x746F6840 Stack14=0x74733DC5 "
	  "Stack15=0x74733E68 Stack16=0x74733F7A Stack17=0x74736B86 "
	  "Stack18=0x74C7FFCC Stack19=0x74CF7F16 Stack20=0x74CF4DE3 "
	  "Stack21=0x7776AC69 Stack22=0x7776AC3C" },
	{ 1534581125, "PerfInfo", NULL, false, "CollectionStart Source=0 "
	  "NewInterval=10000 OldInterval=10000 SourceName=Timer" },
	{ 1645769147, "Image", NULL, false,
	  "KernelBase ImageBase=0xFFFFF80021489000" },
	{ 1560562463, "Image", NULL, false, "Load ImageBase=0x2D3360000 "
	  "ImageSize=0x8000 ProcessId=0xDB4 ImageCheckSum=0 "
	  "TimeDateStamp=2568420482 Reserved0=0 DefaultBase=0x40000000004000 "
	  "Reserved1=0 Reserved2=0 Reserved3=0 Reserved4=0 "
	  "FileName=\\Device\\Mup\\DfsClient\\;Z:0000000000020d40\\clrmain\\"
	  "public\\PerfInvestigations\\20-07-28.TestTraces\\Test.x86.exe" },
	{ 1645769122, "Process", NULL, false, "PerfCtrRundown ProcessId=0 "
	  "PageFaultCount=0 HandleCount=664 Reserved=0 "
	  "PeakVirtualSize=0x10000 PeakWorkingSetSize=0x0 "
	  "PeakPagefileUsage=0x0 QuotaPeakPagedPoolUsage=0x0 "
	  "QuotaPeakNonPagedPoolUsage=0x0 VirtualSize=0x10000 "
	  "WorkingSetSize=0x5000 PagefileUsage=0x0 QuotaPagedPoolUsage=0x0 "
	  "QuotaNonPagedPoolUsage=0x0 PrivatePageCount=0x0" },
	{ 1645772269, "Process", NULL, false, "Defunct "
	  "UniqueProcessKey=0xFFFFFA83001C4080 ProcessId=0x268 "
	  "ParentId=0x1C8 SessionId=1 ExitStatus=0 "
	  "DirectoryTableBase=0x541A000 Flags=0 UserSID=S-1-5-18 "
	  "ImageFileName=smss.exe CommandLine= PackageFullName= "
	  "ApplicationId=" },
	{ 1534529696, "ImageID", "", true, " ImageBase=0x77710000 "
	  "ImageSize=0x157000 ProcessId=4 TimeDateStamp=1343270522 "
	  "OriginalFileName=ntdll.dll" },
	{ 1534529696, "ImageID", "DbgID_RSDS", true, "DbgID_RSDS "
	  "ImageBase=0x77710000 ProcessId=4 "
	  "GuidSig={EC83D8DF-5559-46E0-B630-133EBD979266} Age=2 "
	  "PdbFileName=wntdll.pdb" },
	{ 1639775443, "SystemConfig", NULL, false, "CPU MHz=3592 "
	  "NumberOfProcessors=8 MemSize=4096 PageSize=4096 "
	  "AllocationGranularity=65536 ComputerName=BRIANROB-W8 DomainName= "
	  "HyperThreadingFlag=0x0 HighestUserAddress=0x7FFFFFEFFFF "
	  "ProcessorArchitecture=9 ProcessorLevel=6 ProcessorRevision=15363 "
	  "PaeEnabled=1 NxEnabled=1 MemorySpeed=0" },
	{ 1645768982, "SystemConfig", NULL, false, "LogDisk "
	  "StartOffset=368050176 PartitionSize=135996112896 DiskNumber=0 "
	  "Size=112 DriveType=1 DriveLetterString=C: Pad1=0 PartitionNumber=2 "
	  "SectorsPerCluster=8 BytesPerSector=512 Pad2=0 "
	  "NumberOfFreeClusters=29901597 TotalNumberOfClusters=33202175 "
	  "FileSystem=NTFS VolumeExt=0 Pad3=0" },
	{ 1639979534, "SystemConfig", NULL, false, "Services ProcessId=0x0 "
	  "ServiceState=0x1 SubProcessTag=0x1 ServiceName=AeLookupSvc "
	  "DisplayName=Application Experience ProcessName= LoadOrderGroup= "
	  "SvchostGroup=netsvcs" },
	{ 1640774296, "SystemConfig", NULL, false, "IDEChannel TargetId=0 "
	  "DeviceType=0x1 DeviceTimingMode=0x410 LocationInformationLen=9 "
	  "LocationInformation=Channel 0" },
	{ 1534352496, "EventTrace", "Extension", false, "Extension "
	  "GroupMask1=0x0 GroupMask2=0x0 GroupMask3=0x0 GroupMask4=0x0 "
	  "GroupMask5=0x0 GroupMask6=0x0 GroupMask7=0x0 GroupMask8=0x0 "
	  "KernelEventVersion=42" },
	{ 1534352496, "EventTrace", "", false, " BufferSize=65536 "
	  "Version=0x20206 ProviderVersion=9200 NumberOfProcessors=8 "
	  "EndTime=132404547910855393 TimerResolution=156250 MaxFileSize=500 "
	  "LogFileMode=0x4010001 BuffersWritten=276 StartBuffers=1 "
	  "PointerSize=8 EventsLost=0 CPUSpeed=3592 LoggerName=0x0 "
	  "LogFileName=0x0 "
	  "TimeZoneInformation=0x"
	  "E0010000400074007A007200650073002E0064006C006C002C002D00"
	  "32003100320000000000000000000000000000000000000000000000"
	  "00000000000000000000000000000B00000001000200000000000000"
	  "00000000400074007A007200650073002E0064006C006C002C002D00"
	  "32003100310000000000000000000000000000000000000000000000"
	  "00000000000000000000000000000300000002000200000000000000"
	  "C4FFFFFF00000000"
	  " BootTime=132404546264872939 PerfFreq=10000000 "
	  "StartTime=132404547797984230 ReservedFlags=1 BuffersLost=0 "
	  "SessionNameString=Relogger LogFileNameString=[multiple files]" },
};

TEST(sample_values)
{
	size_t i;

	REQUIRE_TESTDATA();
	for (i = 0; i < sizeof(samples) / sizeof(*samples); i++) {
		ASSERT_EQ(ERROR_SUCCESS, process(samples[i].ts,
						 samples[i].task,
						 samples[i].op,
						 samples[i].full));
		EXPECT_STREQ(samples[i].line, seen.line);
	}
}

TEST_HARNESS_MAIN
