/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A program written for Windows, in the style of the SDK samples, that
 * must compile unchanged against libetw's headers: winsrc_test.c compiles
 * it as C99, as C11 with UNICODE and as C++, and, to show it really is
 * Windows code, against MinGW-w64's headers.  It is compiled, not run; it
 * exercises the provider, controller and consumer APIs' types.
 */
#define INITGUID
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>

/* {3D6F2C41-8C4B-4E1A-9B2E-6A0F5C1D7E93} */
DEFINE_GUID(ProviderGuid, 0x3d6f2c41, 0x8c4b, 0x4e1a,
	    0x9b, 0x2e, 0x6a, 0x0f, 0x5c, 0x1d, 0x7e, 0x93);

#define SESSION_NAME TEXT("WinProgSession")
#define LOGFILE_PATH TEXT("winprog.etl")

/* IsEqualGUID takes pointers in C and references in C++. */
#ifdef __cplusplus
#define SAME_GUID(a, b) IsEqualGUID(*(a), *(b))
#else
#define SAME_GUID(a, b) IsEqualGUID((a), (b))
#endif

static REGHANDLE g_provider;
static ULONG g_enabled;
static UCHAR g_level;
static ULONGLONG g_any;

static VOID NTAPI EnableCallback(_In_ LPCGUID SourceId, _In_ ULONG IsEnabled,
				 _In_ UCHAR Level,
				 _In_ ULONGLONG MatchAnyKeyword,
				 _In_ ULONGLONG MatchAllKeyword,
				 _In_opt_ PEVENT_FILTER_DESCRIPTOR FilterData,
				 _Inout_opt_ PVOID CallbackContext)
{
	UNREFERENCED_PARAMETER(SourceId);
	UNREFERENCED_PARAMETER(MatchAllKeyword);
	UNREFERENCED_PARAMETER(CallbackContext);

	if (FilterData && FilterData->Type == EVENT_FILTER_TYPE_SCHEMATIZED) {
		PEVENT_FILTER_HEADER hdr =
			(PEVENT_FILTER_HEADER)(ULONG_PTR)FilterData->Ptr;
		printf("filter id %u size %lu\n", hdr->Id,
		       (unsigned long)hdr->Size);
	}
	switch (IsEnabled) {
	case EVENT_CONTROL_CODE_ENABLE_PROVIDER:
		g_enabled = TRUE;
		g_level = Level;
		g_any = MatchAnyKeyword;
		break;
	case EVENT_CONTROL_CODE_DISABLE_PROVIDER:
		g_enabled = FALSE;
		break;
	default:
		break;
	}
}

static ULONG WriteSample(void)
{
	EVENT_DESCRIPTOR desc;
	EVENT_DATA_DESCRIPTOR data[3];
	ULONG value = 42;
	const char *text = "hello";
	static const WCHAR wide[] = { 'h', 'i', 0 };
	GUID activity;
	ULONG status;

	EventDescCreate(&desc, 1, 0, 0, TRACE_LEVEL_INFORMATION, 0,
			EVENT_TRACE_TYPE_INFO, 0x1);
	if (!EventEnabled(g_provider, &desc))
		return ERROR_SUCCESS;

	EventDataDescCreate(&data[0], &value, sizeof(value));
	EventDataDescCreate(&data[1], text, (ULONG)(strlen(text) + 1));
	EventDataDescCreate(&data[2], wide, sizeof(wide));

	ZeroMemory(&activity, sizeof(activity));
	status = EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID,
					&activity);
	if (status != ERROR_SUCCESS)
		return status;
	status = EventWriteTransfer(g_provider, &desc, &activity, NULL,
				    ARRAYSIZE(data), data);
	if (status == ERROR_SUCCESS)
		status = EventWriteString(g_provider, TRACE_LEVEL_VERBOSE, 0,
					  wide);
	if (status == ERROR_SUCCESS)
		status = EventWriteEx(g_provider, &desc, 0, 0, NULL, NULL, 0,
				      NULL);
	if (EventProviderEnabled(g_provider, TRACE_LEVEL_ERROR, 0))
		status = EventWrite(g_provider, &desc, 0, NULL);
	return status;
}

/* Properties plus room for the session and file names, as the docs do. */
static PEVENT_TRACE_PROPERTIES AllocProperties(void)
{
	ULONG size = sizeof(EVENT_TRACE_PROPERTIES) +
		     sizeof(SESSION_NAME) + sizeof(LOGFILE_PATH);
	PEVENT_TRACE_PROPERTIES props =
		(PEVENT_TRACE_PROPERTIES)malloc(size);

	if (!props)
		return NULL;
	ZeroMemory(props, size);
	props->Wnode.BufferSize = size;
	props->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	props->Wnode.ClientContext = 1;	/* QPC clock */
	props->Wnode.Guid = ProviderGuid;
	props->BufferSize = 64;
	props->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL |
			     EVENT_TRACE_REAL_TIME_MODE;
	props->MaximumFileSize = 16;
	props->FlushTimer = 1;
	props->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
	props->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) +
				   sizeof(SESSION_NAME);
	memcpy((PBYTE)props + props->LogFileNameOffset, LOGFILE_PATH,
	       sizeof(LOGFILE_PATH));
	return props;
}

static VOID WINAPI OnEvent(PEVENT_RECORD rec)
{
	PEVENT_HEADER_EXTENDED_DATA_ITEM ext = rec->ExtendedData;
	USHORT i;

	if (SAME_GUID(&rec->EventHeader.ProviderId, &EventTraceGuid) &&
	    rec->EventHeader.EventDescriptor.Opcode == EVENT_TRACE_TYPE_INFO)
		return;		/* the log-file header event */
	for (i = 0; i < rec->ExtendedDataCount; i++)
		if (ext[i].ExtType == EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID)
			printf("related activity\n");
	printf("cpu %lu id %u size %u %s\n",
	       (unsigned long)GetEventProcessorIndex(rec),
	       rec->EventHeader.EventDescriptor.Id, rec->UserDataLength,
	       (rec->EventHeader.Flags & EVENT_HEADER_FLAG_STRING_ONLY) ?
	       "string" : "data");
}

static ULONG WINAPI OnBuffer(PEVENT_TRACE_LOGFILE log)
{
	return log->BuffersRead < 1000 ? TRUE : FALSE;
}

static ULONG Consume(void)
{
	EVENT_TRACE_LOGFILE log;
	TRACEHANDLE h;
	ULONG status;

	ZeroMemory(&log, sizeof(log));
	log.LogFileName = (LPTSTR)LOGFILE_PATH;
	log.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	log.EventRecordCallback = OnEvent;
	log.BufferCallback = OnBuffer;
	h = OpenTrace(&log);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return GetLastError();
	printf("%lu buffers of %lu bytes, %lu CPUs\n",
	       (unsigned long)log.LogfileHeader.BuffersWritten,
	       (unsigned long)log.LogfileHeader.BufferSize,
	       (unsigned long)log.LogfileHeader.NumberOfProcessors);
	status = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	return status;
}

int main(void)
{
	PEVENT_TRACE_PROPERTIES props;
	ENABLE_TRACE_PARAMETERS params;
	TRACEHANDLE session = 0;
	ULONG status;

	status = EventRegister(&ProviderGuid, EnableCallback, NULL,
			       &g_provider);
	if (status != ERROR_SUCCESS)
		return (int)status;

	props = AllocProperties();
	if (!props)
		return ERROR_NOT_ENOUGH_MEMORY;
	status = StartTrace(&session, SESSION_NAME, props);
	if (status == ERROR_ALREADY_EXISTS) {
		ControlTrace(0, SESSION_NAME, props, EVENT_TRACE_CONTROL_STOP);
		status = StartTrace(&session, SESSION_NAME, props);
	}
	if (status != ERROR_SUCCESS) {
		free(props);
		return (int)status;
	}

	ZeroMemory(&params, sizeof(params));
	params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
	params.EnableProperty = EVENT_ENABLE_PROPERTY_STACK_TRACE;
	status = EnableTraceEx2(session, &ProviderGuid,
				EVENT_CONTROL_CODE_ENABLE_PROVIDER,
				TRACE_LEVEL_VERBOSE, 0, 0, INFINITE, &params);
	if (status == ERROR_SUCCESS)
		status = WriteSample();

	QueryTrace(session, NULL, props);
	printf("lost %lu\n", (unsigned long)props->EventsLost);
	FlushTrace(session, NULL, props);
	StopTrace(session, NULL, props);
	free(props);
	EventUnregister(g_provider);
	if (status == ERROR_SUCCESS)
		status = Consume();
	SetLastError(status);
	return status == ERROR_SUCCESS ? 0 : 1;
}
