/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A consumer in the shape of Microsoft's "TdhFormatProperty" sample: it
 * opens the ETL file named by its argument, skips the log-file header
 * event, and for each event prints its provider, id and top-level
 * properties as TdhFormatProperty formats them, through wprintf.  Built
 * as C and C++ with -fshort-wchar and a wmain entry point; INITGUID is
 * defined after <windows.h>, so this unit defines EventTraceGuid.
 * win32_crt_test compares the output for primitive-types.etl with
 * tdh_consumer.expected.
 */
#include <windows.h>
#include <stdio.h>
#include <wmistr.h>
#define INITGUID
#include <evntrace.h>
#include <tdh.h>
#include <strsafe.h>

#ifdef __cplusplus
#define GUID_ARG(g) (g)
#else
#define GUID_ARG(g) (&(g))
#endif

static ULONG g_Events;

static DWORD GetEventInformation(PEVENT_RECORD pEvent,
                                 PTRACE_EVENT_INFO *ppInfo)
{
    DWORD status, size = 0;

    status = TdhGetEventInformation(pEvent, 0, NULL, *ppInfo, &size);
    if (status == ERROR_INSUFFICIENT_BUFFER) {
        *ppInfo = (PTRACE_EVENT_INFO)malloc(size);
        if (*ppInfo == NULL)
            return ERROR_OUTOFMEMORY;
        status = TdhGetEventInformation(pEvent, 0, NULL, *ppInfo, &size);
    }
    return status;
}

static DWORD PrintProperties(PEVENT_RECORD pEvent, PTRACE_EVENT_INFO pInfo)
{
    PBYTE pUserData = (PBYTE)pEvent->UserData;
    PBYTE pEnd = pUserData + pEvent->UserDataLength;
    ULONG pointerSize = (pEvent->EventHeader.Flags &
                         EVENT_HEADER_FLAG_32_BIT_HEADER) ? 4 : 8;
    DWORD status = ERROR_SUCCESS;
    ULONG i;

    for (i = 0; i < pInfo->TopLevelPropertyCount; i++) {
        EVENT_PROPERTY_INFO *prop = &pInfo->EventPropertyInfoArray[i];
        PWSTR name = (PWSTR)((PBYTE)pInfo + prop->NameOffset);
        ULONG bufferSize = 0;
        PWSTR buffer = NULL;
        USHORT consumed = 0;
        WCHAR line[512];

        if (prop->Flags & (PropertyStruct | PropertyParamCount)) {
            wprintf(L"  %s: (not formatted)\n", name);
            continue;
        }
        status = TdhFormatProperty(pInfo, NULL, pointerSize,
                                   prop->nonStructType.InType,
                                   prop->nonStructType.OutType,
                                   prop->length,
                                   (USHORT)(pEnd - pUserData), pUserData,
                                   &bufferSize, buffer, &consumed);
        if (status == ERROR_INSUFFICIENT_BUFFER) {
            buffer = (PWSTR)malloc(bufferSize);
            status = TdhFormatProperty(pInfo, NULL, pointerSize,
                                       prop->nonStructType.InType,
                                       prop->nonStructType.OutType,
                                       prop->length,
                                       (USHORT)(pEnd - pUserData),
                                       pUserData, &bufferSize, buffer,
                                       &consumed);
        }
        if (status != ERROR_SUCCESS) {
            wprintf(L"  %s: TdhFormatProperty failed with %lu\n", name,
                    status);
            free(buffer);
            return status;
        }
        StringCchPrintfW(line, ARRAYSIZE(line), L"  %-12s %s", name,
                         buffer);
        wprintf(L"%s\n", line);
        pUserData += consumed;
        free(buffer);
    }
    return status;
}

static VOID WINAPI ProcessEvent(PEVENT_RECORD pEvent)
{
    PTRACE_EVENT_INFO pInfo = NULL;
    WCHAR guid[39];
    DWORD status;

    if (IsEqualGUID(GUID_ARG(pEvent->EventHeader.ProviderId),
                    GUID_ARG(EventTraceGuid)) &&
        pEvent->EventHeader.EventDescriptor.Opcode == EVENT_TRACE_TYPE_INFO) {
        wprintf(L"header event\n");
        return;
    }
    g_Events++;
    status = GetEventInformation(pEvent, &pInfo);
    StringFromGUID2(GUID_ARG(pEvent->EventHeader.ProviderId), guid,
                    ARRAYSIZE(guid));
    if (status != ERROR_SUCCESS) {
        wprintf(L"%s: TdhGetEventInformation failed with %lu\n", guid,
                status);
        free(pInfo);
        return;
    }
    wprintf(L"%ls %s id %hu task %s\n",
            pInfo->ProviderNameOffset ?
                (PWSTR)((PBYTE)pInfo + pInfo->ProviderNameOffset) : L"-",
            guid, pEvent->EventHeader.EventDescriptor.Id,
            pInfo->TaskNameOffset ?
                (PWSTR)((PBYTE)pInfo + pInfo->TaskNameOffset) : L"-");
    PrintProperties(pEvent, pInfo);
    free(pInfo);
}

int wmain(int argc, wchar_t **argv)
{
    EVENT_TRACE_LOGFILEW trace;
    TRACEHANDLE h;
    ULONG status;

    if (argc != 2) {
        fwprintf(stderr, L"usage: %s FILE.etl\n", argv[0]);
        return 1;
    }
    ZeroMemory(&trace, sizeof(trace));
    trace.LogFileName = argv[1];
    trace.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    trace.EventRecordCallback = (PEVENT_RECORD_CALLBACK)ProcessEvent;
    h = OpenTraceW(&trace);
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        wprintf(L"OpenTrace failed with %lu\n", GetLastError());
        return 1;
    }
    status = ProcessTrace(&h, 1, 0, 0);
    if (status != ERROR_SUCCESS && status != ERROR_CANCELLED)
        wprintf(L"ProcessTrace failed with %lu\n", status);
    CloseTrace(h);
    wprintf(L"%lu events\n", g_Events);
    return 0;
}
