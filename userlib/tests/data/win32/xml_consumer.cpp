/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A consumer in the shape of Microsoft's EtwConsumer sample (Windows-
 * classic-samples, Win7Samples/winbase/Eventing/EtwConsumer): the same
 * SDK headers in the same order, inside extern "C" as there, and the
 * same Win32 calls around TDH.  With "checks" it prints what each of
 * those calls answers for a table of cases; with an ETL file it loads
 * TdhFormatProperty from tdh.dll, decodes each event and prints it as
 * XML (with -xml) and its formatted message.  Every case that tests a
 * Windows behaviour names the learn.microsoft.com page documenting it.
 * win32_crt_test builds it with g++ and clang++ and compares the output
 * with xml_consumer.expected and xml_consumer_*.expected.
 */
#ifdef __cplusplus
extern "C" {
#endif

#include <winsock2.h>
#include <windows.h>
#include <strsafe.h>
#include <intsafe.h>
#include <winnls.h>
#include <initguid.h>
#include <wmistr.h>
#include <evntcons.h>
#include <evntrace.h>
#include <sddl.h>
#include <In6addr.h>
#include <Ws2ipdef.h>

#ifdef __cplusplus
}
#endif

#include <comutil.h>
#include <Tdh.h>

typedef ULONG (__stdcall *FORMAT_PROPERTY_FN)(
    PTRACE_EVENT_INFO, PEVENT_MAP_INFO, ULONG, USHORT, USHORT, USHORT,
    USHORT, PBYTE, PULONG, PWCHAR, PUSHORT);

struct Decoder {
    BOOLEAN Xml;
    ULONG PointerSize;
    ULONG Buffers;
    ULONG Events;
    HMODULE Tdh;
    FORMAT_PROPERTY_FN FormatProperty;
};

static const WCHAR DatePicture[] = L"yyyy'-'MM'-'dd";
static const WCHAR TimePicture[] = L"HH':'mm':'ss";

/*
 * Measures with _vscwprintf and formats with vswprintf_s from the same
 * va_list, as the sample's printing does: on Windows a va_list is passed
 * by value, so the second call starts again at the first argument.
 * "_vscprintf, _vscwprintf" (C runtime library reference).
 */
static void Print(const Decoder *d, BOOLEAN always, PCWSTR format, ...)
{
    va_list args;
    PWSTR text;
    int len;

    if (!always && !d->Xml)
        return;
    va_start(args, format);
    len = _vscwprintf(format, args) + 1;
    text = (PWSTR)malloc(len * sizeof(WCHAR));
    if (text != NULL) {
        vswprintf_s(text, len, format, args);
        wprintf(L"%ws", text);
        free(text);
    }
    va_end(args);
}

/* "GetDateFormatW", "GetTimeFormatW": the sample's ISO 8601 pictures. */
static void FormatTime(const LARGE_INTEGER *stamp, PWSTR out, size_t cch)
{
    FILETIME ft;
    SYSTEMTIME st;
    int date;

    ft.dwLowDateTime = stamp->LowPart;
    ft.dwHighDateTime = (DWORD)stamp->HighPart;
    if (!FileTimeToSystemTime(&ft, &st)) {
        StringCchCopyW(out, cch, L"?");
        return;
    }
    date = GetDateFormatW(LOCALE_USER_DEFAULT, 0, &st, DatePicture, out,
                          (int)cch);
    out[date - 1] = L'T';
    GetTimeFormatW(LOCALE_USER_DEFAULT, 0, &st, TimePicture, out + date,
                   (int)cch - date);
    StringCchPrintfW(out + wcslen(out), cch - wcslen(out), L".%07I64uZ",
                     (ULONGLONG)stamp->QuadPart % 10000000);
}

static PWSTR FormatOne(Decoder *d, PEVENT_RECORD ev, PTRACE_EVENT_INFO info,
                       PEVENT_PROPERTY_INFO prop, USHORT length,
                       PBYTE data, PBYTE end, USHORT *used)
{
    PEVENT_MAP_INFO map = NULL;
    ULONG mapSize = 0, size = 0, status;
    PWSTR mapName = TEI_MAP_NAME(info, prop);
    PWSTR text = NULL;

    if (mapName != NULL &&
        TdhGetEventMapInformation(ev, mapName, NULL, &mapSize) ==
            ERROR_INSUFFICIENT_BUFFER) {
        map = (PEVENT_MAP_INFO)malloc(mapSize);
        if (map != NULL &&
            TdhGetEventMapInformation(ev, mapName, map, &mapSize) !=
                ERROR_SUCCESS) {
            free(map);
            map = NULL;
        }
    }
    status = d->FormatProperty(info, map, d->PointerSize,
                               prop->nonStructType.InType,
                               prop->nonStructType.OutType, length,
                               (USHORT)(end - data), data, &size, NULL,
                               used);
    if (status == ERROR_INSUFFICIENT_BUFFER) {
        text = (PWSTR)malloc(size);
        if (text != NULL)
            status = d->FormatProperty(info, map, d->PointerSize,
                                       prop->nonStructType.InType,
                                       prop->nonStructType.OutType, length,
                                       (USHORT)(end - data), data, &size,
                                       text, used);
    }
    free(map);
    if (status != ERROR_SUCCESS) {
        free(text);
        return NULL;
    }
    return text;
}

static void DumpEvent(Decoder *d, PEVENT_RECORD ev, PTRACE_EVENT_INFO info)
{
    PBYTE data = (PBYTE)ev->UserData, end = data + ev->UserDataLength;
    ULONG count = info->TopLevelPropertyCount, i;
    PWSTR *items = (PWSTR *)calloc(count + 1, sizeof(PWSTR));
    PULONG values = (PULONG)calloc(info->PropertyCount + 1, sizeof(ULONG));
    WCHAR guid[39], when[64];
    PWSTR message = NULL;

    if (items == NULL || values == NULL) {
        free(items);
        free(values);
        return;
    }
    StringFromGUID2(ev->EventHeader.ProviderId, guid, ARRAYSIZE(guid));
    FormatTime(&ev->EventHeader.TimeStamp, when, ARRAYSIZE(when));
    Print(d, FALSE, L"<Event>\n  <Provider Name=\"%ws\" Guid=\"%ws\"/>\n"
          L"  <EventID>%u</EventID> <Level>%u</Level> "
          L"<Keywords>0x%I64X</Keywords>\n"
          L"  <TimeCreated SystemTime=\"%ws\"/>\n",
          TEI_PROVIDER_NAME(info) ? TEI_PROVIDER_NAME(info) : L"",
          guid, ev->EventHeader.EventDescriptor.Id,
          ev->EventHeader.EventDescriptor.Level,
          ev->EventHeader.EventDescriptor.Keyword, when);
    for (i = 0; i < count; i++) {
        PEVENT_PROPERTY_INFO prop = &info->EventPropertyInfoArray[i];
        USHORT length = prop->length, used = 0;

        if (prop->Flags & (PropertyStruct | PropertyParamCount)) {
            Print(d, FALSE, L"  <Data Name=\"%ws\">(not decoded)</Data>\n",
                  TEI_PROPERTY_NAME(info, prop));
            break;
        }
        if (prop->Flags & PropertyParamLength)
            length = (USHORT)values[prop->lengthPropertyIndex];
        items[i] = FormatOne(d, ev, info, prop, length, data, end, &used);
        if (items[i] == NULL) {
            Print(d, TRUE, L"error decoding %ws\n",
                  TEI_PROPERTY_NAME(info, prop));
            break;
        }
        if (used <= 4 && used <= end - data)
            RtlCopyMemory(&values[i], data, used);
        Print(d, FALSE, L"  <Data Name=\"%ws\">%ws</Data>\n",
              TEI_PROPERTY_NAME(info, prop), items[i]);
        data += used;
    }
    Print(d, FALSE, L"</Event>\n");
    /* "FormatMessageW": the event's message with its inserts. */
    if (i == count && TEI_EVENT_MESSAGE(info) != NULL &&
        FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER |
                           FORMAT_MESSAGE_FROM_STRING |
                           FORMAT_MESSAGE_ARGUMENT_ARRAY,
                       TEI_EVENT_MESSAGE(info), 0, 0, (LPWSTR)&message, 0,
                       (va_list *)items) != 0) {
        Print(d, TRUE, L"Message: %ws\n", message);
        LocalFree(message);
    }
    for (i = 0; i < count; i++)
        free(items[i]);
    free(items);
    free(values);
}

static VOID WINAPI OnEvent(PEVENT_RECORD ev)
{
    Decoder *d = (Decoder *)ev->UserContext;
    PTRACE_EVENT_INFO info = NULL;
    ULONG size = 0, status;

    if (ev->EventHeader.ProviderId == EventTraceGuid &&
        ev->EventHeader.EventDescriptor.Opcode == EVENT_TRACE_TYPE_INFO) {
        d->PointerSize = ((PTRACE_LOGFILE_HEADER)ev->UserData)->PointerSize;
        return;
    }
    d->Events++;
    status = TdhGetEventInformation(ev, 0, NULL, NULL, &size);
    if (status == ERROR_INSUFFICIENT_BUFFER) {
        info = (PTRACE_EVENT_INFO)malloc(size);
        status = info ? TdhGetEventInformation(ev, 0, NULL, info, &size) :
                        (ULONG)ERROR_OUTOFMEMORY;
    }
    if (status == ERROR_SUCCESS)
        DumpEvent(d, ev, info);
    else
        Print(d, TRUE, L"no information: %lu\n", status);
    free(info);
}

static ULONG WINAPI OnBuffer(PEVENT_TRACE_LOGFILEW log)
{
    ((Decoder *)log->Context)->Buffers++;
    return TRUE;
}

static int Decode(PWSTR file, BOOLEAN xml)
{
    EVENT_TRACE_LOGFILEW log;
    TRACEHANDLE h;
    Decoder d;
    ULONG status;

    ZeroMemory(&d, sizeof(d));
    d.Xml = xml;
    d.PointerSize = 8;
    /* "LoadLibraryW", "GetProcAddress": TDH found at run time. */
    d.Tdh = LoadLibraryW(L"tdh.dll");
    if (d.Tdh == NULL)
        return (int)GetLastError();
    d.FormatProperty =
        (FORMAT_PROPERTY_FN)GetProcAddress(d.Tdh, "TdhFormatProperty");
    if (d.FormatProperty == NULL)
        return (int)GetLastError();
    ZeroMemory(&log, sizeof(log));
    log.LogFileName = file;
    log.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    log.EventRecordCallback = OnEvent;
    log.BufferCallback = OnBuffer;
    log.Context = &d;
    h = OpenTraceW(&log);
    if (h == INVALID_PROCESSTRACE_HANDLE)
        return (int)GetLastError();
    status = ProcessTrace(&h, 1, NULL, NULL);
    CloseTrace(h);
    wprintf(L"buffers %u events %u status %u\n", d.Buffers, d.Events,
            status);
    return FreeLibrary(d.Tdh) ? (int)status : 1;
}

/* ---- The checks: one table per function, one line per case. ---- */

/* Windows' escapes for a WCHAR string: \r, \n, \t. */
static void PrintEscaped(PCWSTR s)
{
    for (; *s; s++) {
        if (*s == L'\r')
            wprintf(L"\\r");
        else if (*s == L'\n')
            wprintf(L"\\n");
        else if (*s == L'\t')
            wprintf(L"\\t");
        else
            wprintf(L"%c", *s);
    }
}

/* "GetVersionExW function (sysinfoapi.h)", "OSVERSIONINFOEXW structure". */
static void CheckVersion(void)
{
    static const struct {
        DWORD Size;
    } cases[] = {
        { sizeof(OSVERSIONINFOW) },
        { sizeof(OSVERSIONINFOEXW) },
        { sizeof(OSVERSIONINFOA) },
        { 0 },
    };
    OSVERSIONINFOEXW info;
    size_t i;

    for (i = 0; i < ARRAYSIZE(cases); i++) {
        BOOL ok;

        memset(&info, 0xAA, sizeof(info));
        info.dwOSVersionInfoSize = cases[i].Size;
        SetLastError(0);
        ok = GetVersionExW((LPOSVERSIONINFOW)&info);
        if (ok)
            wprintf(L"GetVersionExW(%u): %u.%u.%u platform %u csd \"%ws\" "
                    L"product %u\n", cases[i].Size, info.dwMajorVersion,
                    info.dwMinorVersion, info.dwBuildNumber,
                    info.dwPlatformId, info.szCSDVersion,
                    cases[i].Size == sizeof(info) ? info.wProductType : 0);
        else
            wprintf(L"GetVersionExW(%u): FALSE %u\n", cases[i].Size,
                    GetLastError());
    }
}

/*
 * "LoadLibraryW function (libloaderapi.h)": no extension means ".dll",
 * a trailing point none; "GetProcAddress function (libloaderapi.h)";
 * "FreeLibrary function (libloaderapi.h)".
 */
static void CheckModules(void)
{
    static const struct {
        PCWSTR Module;
        PCSTR Proc;
    } cases[] = {
        { L"tdh.dll", "TdhFormatProperty" },
        { L"TDH", "TdhGetEventInformation" },
        { L"C:\\Windows\\System32\\Tdh.DLL", "TdhGetEventMapInformation" },
        { L"tdh.", "TdhFormatProperty" },
        { L"advapi32.dll", "EventRegister" },
        { L"advapi32", "OpenTraceW" },
        { L"advapi32.dll", "ConvertSidToStringSidW" },
        { L"tdh.dll", "tdhformatproperty" },
        { L"tdh.dll", "NoSuchFunction" },
        { L"ntdll.dll", "RtlIpv6AddressToStringW" },
    };
    size_t i;

    for (i = 0; i < ARRAYSIZE(cases); i++) {
        HMODULE m;
        FARPROC p;

        SetLastError(0);
        m = LoadLibraryW(cases[i].Module);
        if (m == NULL) {
            wprintf(L"LoadLibraryW(%ws): NULL %u\n", cases[i].Module,
                    GetLastError());
            continue;
        }
        p = GetProcAddress(m, cases[i].Proc);
        wprintf(L"GetProcAddress(%ws, %hs): %ws %u\n", cases[i].Module,
                cases[i].Proc, p ? L"found" : L"NULL",
                p ? 0 : GetLastError());
        if (!FreeLibrary(m))
            wprintf(L"FreeLibrary failed\n");
    }
    wprintf(L"TdhFormatProperty is libetw's: %d\n",
            (FORMAT_PROPERTY_FN)GetProcAddress(LoadLibraryA("tdh.dll"),
                                               "TdhFormatProperty") ==
                &TdhFormatProperty);
}

/*
 * "GetDateFormatW function (datetimeapi.h)", "Day, Month, Year, and Era
 * Format Pictures"; "GetTimeFormatW function (datetimeapi.h)", "Hour,
 * Minute, and Second Format Pictures": pictures, the locale's formats
 * (en-US), cchDate 0 for the size, and the documented errors.
 */
static void CheckDateTime(void)
{
    static const SYSTEMTIME may = { 2021, 5, 0, 7, 17, 4, 9, 321 };
    static const SYSTEMTIME jan = { 1999, 1, 3, 1, 0, 30, 0, 0 };
    static const SYSTEMTIME bad = { 2021, 2, 0, 29, 24, 0, 0, 0 };
    static const struct {
        BOOLEAN Time;
        const SYSTEMTIME *When;
        DWORD Flags;
        PCWSTR Picture;
        int Size;
    } cases[] = {
        { FALSE, &may, 0, L"yyyy'-'MM'-'dd", 64 },
        { FALSE, &may, 0, L"dddd, MMMM d, yyyy", 64 },
        { FALSE, &jan, 0, L"ddd d MMM yy g", 64 },
        { FALSE, &jan, 0, L"'It''s' M/d/y", 64 },
        { FALSE, &may, 0, NULL, 64 },
        { FALSE, &may, DATE_LONGDATE, NULL, 64 },
        { FALSE, &may, DATE_YEARMONTH, NULL, 64 },
        { FALSE, &may, DATE_LONGDATE, L"yyyy", 64 },
        { FALSE, &may, DATE_SHORTDATE | DATE_LONGDATE, NULL, 64 },
        { FALSE, &may, 0, L"yyyy'-'MM'-'dd", 0 },
        { FALSE, &may, 0, L"yyyy'-'MM'-'dd", 10 },
        { FALSE, &bad, 0, L"yyyy'-'MM'-'dd", 64 },
        { TRUE, &may, 0, L"HH':'mm':'ss", 64 },
        { TRUE, &jan, 0, L"hh:mm:ss tt", 64 },
        { TRUE, &may, 0, L"h 'h' m t", 64 },
        { TRUE, &may, 0, NULL, 64 },
        { TRUE, &may, TIME_NOSECONDS, NULL, 64 },
        { TRUE, &may, TIME_NOMINUTESORSECONDS, NULL, 64 },
        { TRUE, &may, TIME_FORCE24HOURFORMAT, NULL, 64 },
        { TRUE, &may, TIME_NOTIMEMARKER, L"hh:mm tt", 64 },
        { TRUE, &may, 0, L"HH':'mm':'ss", 0 },
        { TRUE, &may, 0, L"HH':'mm':'ss", -1 },
        { TRUE, &bad, 0, L"HH':'mm':'ss", 64 },
        { TRUE, &may, 0x100, NULL, 64 },
    };
    size_t i;

    for (i = 0; i < ARRAYSIZE(cases); i++) {
        WCHAR out[64] = L"";
        int n;

        SetLastError(0);
        if (cases[i].Time)
            n = GetTimeFormatW(LOCALE_USER_DEFAULT, cases[i].Flags,
                               cases[i].When, cases[i].Picture,
                               cases[i].Size ? out : NULL, cases[i].Size);
        else
            n = GetDateFormatW(LOCALE_USER_DEFAULT, cases[i].Flags,
                               cases[i].When, cases[i].Picture,
                               cases[i].Size ? out : NULL, cases[i].Size);
        wprintf(L"%ws(0x%x, %ws, %d): %d \"%ws\" %u\n",
                cases[i].Time ? L"GetTimeFormatW" : L"GetDateFormatW",
                cases[i].Flags, cases[i].Picture ? cases[i].Picture : L"NULL",
                cases[i].Size, n, out, GetLastError());
    }
}

/*
 * "ConvertSidToStringSidW function (sddl.h)", "SID Components": the
 * authority in decimal below 2^32, else in hexadecimal; a SID of another
 * revision is invalid.
 */
static void CheckSids(void)
{
    static const BYTE system[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const BYTE user[] = { 1, 5, 0, 0, 0, 0, 0, 5, 21, 0, 0, 0,
                                 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0,
                                 0xF4, 1, 0, 0 };
    static const BYTE wide[] = { 1, 1, 0, 1, 2, 3, 4, 5, 0xFF, 0xFF, 0xFF,
                                 0xFF };
    static const BYTE bad[] = { 2, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const BYTE *const cases[] = { system, user, wide, bad };
    size_t i;

    for (i = 0; i < ARRAYSIZE(cases); i++) {
        PWSTR s = NULL;

        SetLastError(0);
        if (ConvertSidToStringSidW((PSID)cases[i], &s)) {
            wprintf(L"ConvertSidToStringSidW: %ws\n", s);
            LocalFree(s);
        } else {
            wprintf(L"ConvertSidToStringSidW: FALSE %u\n", GetLastError());
        }
    }
}

/*
 * "FormatMessageW function (winbase.h)": FORMAT_MESSAGE_FROM_STRING
 * with an argument array, its inserts, escape sequences and line breaks.
 */
static void CheckMessages(void)
{
    static WCHAR first[] = L"GC", second[] = L"Induced";
    static const DWORD_PTR strings[] = { (DWORD_PTR)first,
                                         (DWORD_PTR)second };
    static const DWORD_PTR numbers[] = { 42, 0x1ab, (DWORD_PTR)"narrow",
                                         6, 4, 2 };
    static const struct {
        DWORD Flags;
        PCWSTR Text;
        const DWORD_PTR *Args;
    } cases[] = {
        { 0, L"%1 started (%2)", strings },
        { 0, L"%2%1%2", strings },
        { 0, L"%1!d! is %2!#x!, %2!-6X!|, %3!S!", numbers },
        { 0, L"%1!*.*u!", numbers + 3 },
        { 0, L"100%% %.%! a%tb%0hidden", NULL },
        { 0, L"one\ntwo\r\nthree\r%n", NULL },
        { FORMAT_MESSAGE_MAX_WIDTH_MASK, L"one\ntwo\r\nthree%n", NULL },
        { FORMAT_MESSAGE_IGNORE_INSERTS, L"keep %1 and %2!d!", NULL },
        { 0, L"%1!f!", numbers },
        { 0, L"trailing %", NULL },
        { 0, L"", NULL },
    };
    size_t i;

    for (i = 0; i < ARRAYSIZE(cases); i++) {
        WCHAR out[128] = L"";
        DWORD n;

        SetLastError(0);
        n = FormatMessageW(FORMAT_MESSAGE_FROM_STRING |
                               FORMAT_MESSAGE_ARGUMENT_ARRAY |
                               cases[i].Flags,
                           cases[i].Text, 0, 0, out, ARRAYSIZE(out),
                           (va_list *)cases[i].Args);
        wprintf(L"FormatMessageW(\"");
        PrintEscaped(cases[i].Text);
        wprintf(L"\"): %u \"", n);
        PrintEscaped(out);
        wprintf(L"\" %u\n", n ? 0 : GetLastError());
    }
}

/*
 * The A forms: "GetDateFormatA", "GetTimeFormatA",
 * "ConvertSidToStringSidA", "FormatMessageA" (a narrow %1, %2!S! wide).
 */
static void CheckAnsi(void)
{
    static const SYSTEMTIME may = { 2021, 5, 0, 7, 17, 4, 9, 321 };
    static const BYTE system[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static WCHAR wide[] = L"wide";
    static char narrow[] = "narrow";
    static const DWORD_PTR args[] = { (DWORD_PTR)narrow, (DWORD_PTR)wide };
    char date[32], time[32], out[64];
    LPSTR sid = NULL;
    DWORD n;

    GetDateFormatA(LOCALE_USER_DEFAULT, 0, &may, "MMM d yyyy", date,
                   sizeof(date));
    GetTimeFormatA(LOCALE_USER_DEFAULT, 0, &may, NULL, time, sizeof(time));
    wprintf(L"GetDateFormatA: %hs GetTimeFormatA: %hs\n", date, time);
    if (ConvertSidToStringSidA((PSID)system, &sid)) {
        wprintf(L"ConvertSidToStringSidA: %hs\n", sid);
        LocalFree(sid);
    }
    n = FormatMessageA(FORMAT_MESSAGE_FROM_STRING |
                           FORMAT_MESSAGE_ARGUMENT_ARRAY,
                       "%1 and %2!S!", 0, 0, out, sizeof(out),
                       (va_list *)args);
    wprintf(L"FormatMessageA: %u %hs\n", n, out);
}

/*
 * "ULongAdd function (intsafe.h)", "ULongLongToULong function
 * (intsafe.h)", "SizeTMult function (intsafe.h)": the result, or
 * INTSAFE_E_ARITHMETIC_OVERFLOW and the type's error value.
 */
static void CheckIntsafe(void)
{
    static const struct {
        ULONG A, B;
    } adds[] = { { 1, 2 }, { 0xFFFFFFFF, 1 }, { 0x80000000, 0x7FFFFFFF } };
    static const ULONGLONG wides[] = { 0xFFFFFFFF, 0x100000000ULL };
    size_t i;

    for (i = 0; i < ARRAYSIZE(adds); i++) {
        ULONG r;
        HRESULT hr = ULongAdd(adds[i].A, adds[i].B, &r);

        wprintf(L"ULongAdd(0x%x, 0x%x): 0x%08x 0x%x\n", adds[i].A,
                adds[i].B, hr, r);
    }
    for (i = 0; i < ARRAYSIZE(wides); i++) {
        ULONG r;
        HRESULT hr = ULongLongToULong(wides[i], &r);

        wprintf(L"ULongLongToULong(0x%I64x): 0x%08x 0x%x\n", wides[i], hr,
                r);
    }
    {
        SIZE_T r;
        HRESULT hr = SizeTMult((SIZE_T)1 << 33, (SIZE_T)1 << 31, &r);
        LONG l;
        HRESULT hl = ULongToLong(0x80000000, &l);

        wprintf(L"SizeTMult(2^33, 2^31): 0x%08x 0x%Ix\n", hr, r);
        wprintf(L"ULongToLong(0x80000000): 0x%08x %d\n", hl, l);
    }
}

/*
 * "IN6_ADDR structure (in6addr.h)", "SOCKADDR_IN6_LH structure
 * (ws2ipdef.h)", "Address Family" (AF_INET6 is 23 on Windows): the
 * layouts events carry.
 */
static void CheckAddresses(void)
{
    SOCKADDR_IN6 six;
    IN_ADDR four;

    ZeroMemory(&six, sizeof(six));
    six.sin6_family = AF_INET6;
    six.sin6_addr.u.Byte[15] = 1;
    four.s_addr = 0x0100007F;
    wprintf(L"IN6_ADDR %u SOCKADDR_IN6 %u scope at %u SOCKADDR_STORAGE %u "
            L"AF_INET %u AF_INET6 %u s6_addr[15] %u words[7] 0x%04x "
            L"s_b1 %u\n",
            (unsigned)sizeof(IN6_ADDR), (unsigned)sizeof(six),
            (unsigned)FIELD_OFFSET(SOCKADDR_IN6, sin6_scope_id),
            (unsigned)sizeof(SOCKADDR_STORAGE), AF_INET, six.sin6_family,
            six.sin6_addr.s6_addr[15], six.sin6_addr.s6_words[7],
            four.S_un.S_un_b.s_b1);
}

int wmain(int argc, wchar_t **argv)
{
    if (argc == 2 && wcscmp(argv[1], L"checks") == 0) {
        CheckVersion();
        CheckModules();
        CheckDateTime();
        CheckSids();
        CheckMessages();
        CheckAnsi();
        CheckIntsafe();
        CheckAddresses();
        return 0;
    }
    if (argc == 2 || (argc == 3 && wcscmp(argv[2], L"-xml") == 0))
        return Decode(argv[1], argc == 3);
    wprintf(L"usage: %ws checks | FILE.etl [-xml]\n", argv[0]);
    return 1;
}
