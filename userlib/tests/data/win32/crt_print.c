/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A program in the shape of Windows' ETW samples that exercises the C
 * runtime and Win32 functions around them, printing each answer through
 * the wide printf family; win32_crt_test compares its output with
 * crt_print.expected.  Built as C and C++, ANSI and UNICODE, with the
 * C++ standard headers before (STD_FIRST) or after <windows.h>, always
 * with -fshort-wchar; its entry point is wmain (libetw-wmain).
 */
#if defined(__cplusplus) && defined(STD_FIRST)
#include <iostream>
#include <string>
#include <vector>
#endif
#include <windows.h>
#include <stdio.h>
#include <tchar.h>
/* swprintf and wcscpy_s are used too, as the SDK then asks. */
#define STRSAFE_NO_DEPRECATE
#include <strsafe.h>
#include <shellapi.h>
#include <objbase.h>
#if defined(__cplusplus) && !defined(STD_FIRST)
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>
#endif

/* SAL 1, as Win7-era samples annotate, in C and C++. */
#if defined(__MINGW32__) && !defined(__field_bcount)
/* The SDK's sal.h has the struct forms; MinGW-w64's does not. */
#define __field_bcount(n)
#define __field_ecount_opt(n)
#endif

typedef struct _UNIT_BUFFER {
    __field_bcount(Size) PBYTE Buffer;
    ULONG Size;
    __field_ecount_opt(Count) PULONG Counts;
    ULONG Count;
} UNIT_BUFFER, *PUNIT_BUFFER;

static ULONG
CountUnits(
    __in PCWSTR String,
    __in_opt PULONG Extra,
    __out PULONG Count,
    __inout_opt PULONG Calls,
    __out_bcount(Size) PBYTE Buffer,
    __in ULONG Size
    )
{
    *Count = (ULONG)wcslen(String) + (Extra ? *Extra : 0);
    if (Calls)
        (*Calls)++;
    ZeroMemory(Buffer, Size);
    return ERROR_SUCCESS;
}

static void PrintHr(PCWSTR What, HRESULT hr)
{
    wprintf(L"%s: 0x%08X\n", What, (ULONG)hr);
}

static void Formats(void)
{
    const CHAR *narrow = "narrow";
    LONG negative = -5;
    ULONG big = 4000000000U;
    ULONGLONG q = 0x123456789ABCDEF0ULL;
    WCHAR buf[16];
    int n;

    wprintf(L"[%s] [%ls] [%S] [%hs] [%ws]\n", L"wide", L"ls", narrow,
            narrow, L"ws");
    wprintf(L"[%c%C%lc%hc]\n", L'w', 'n', L'l', 'h');
    wprintf(L"[%ld] [%lu] [%d] [%u] [%x] [%lX]\n", negative, big,
            negative, big, 255U, 0xBEEFUL);
    wprintf(L"[%I64u] [%I64x] [%llX] [%Iu] [%zu]\n", q, q, q,
            (SIZE_T)42, (size_t)43);
    wprintf(L"[%5s] [%-5s] [%.2s] [%08.3f] [%e] [%g]\n", L"ab", L"cd",
            L"efgh", 3.14159, 1.0, 0.5);
    wprintf(L"[%p] [%s]\n", (void *)(ULONG_PTR)0xDEADBEEF, (PCWSTR)NULL);
    wprintf(L"[%s] [%d%%]\n", L"\u00e9\u4e2d\U0001F600", 100);
    fwprintf(stdout, L"fwprintf %d\n", 1);

    n = swprintf(buf, ARRAYSIZE(buf), L"%s-%d", L"sw", 7);
    wprintf(L"swprintf %d [%s]\n", n, buf);
    n = swprintf(buf, 4, L"%s", L"toolong");
    wprintf(L"swprintf cut %d [%s]\n", n, buf);
    memset(buf, 0xff, sizeof(buf));
    n = _snwprintf(buf, 4, L"%s", L"abcd");
    wprintf(L"_snwprintf exact %d [%.4s] next 0x%04X\n", n, buf,
            (ULONG)buf[4]);
    n = _snwprintf(buf, 4, L"%s", L"abcdef");
    wprintf(L"_snwprintf over %d\n", n);
    n = swprintf_s(buf, ARRAYSIZE(buf), L"%u", 12345U);
    wprintf(L"swprintf_s %d [%s]\n", n, buf);
    n = _scwprintf(L"%s", L"count");
    wprintf(L"_scwprintf %d\n", n);
}

static void Strings(void)
{
    WCHAR buf[8];
    WCHAR *end = NULL;
    size_t left = 0, len = 0;
    CHAR abuf[8];
    BYTE bytes[4];

    PrintHr(L"StringCchCopyW", StringCchCopyW(buf, ARRAYSIZE(buf), L"abc"));
    PrintHr(L"StringCchCatW", StringCchCatW(buf, ARRAYSIZE(buf), L"defgh"));
    wprintf(L"cat result [%s]\n", buf);
    PrintHr(L"StringCchCopyW 0", StringCchCopyW(buf, 0, L"x"));
    PrintHr(L"StringCchPrintfW", StringCchPrintfW(buf, ARRAYSIZE(buf),
            L"%lu:%s", 42UL, L"ok"));
    wprintf(L"printf result [%s]\n", buf);
    PrintHr(L"StringCbPrintfExW", StringCbPrintfExW(buf, sizeof(buf),
            &end, &left, 0, L"%d", 12));
    wprintf(L"end at %d, %u bytes left\n", (int)(end - buf), (ULONG)left);
    PrintHr(L"StringCchLengthW", StringCchLengthW(L"four", 10, &len));
    wprintf(L"length %u\n", (ULONG)len);
    PrintHr(L"StringCchLengthW short", StringCchLengthW(L"four", 4, &len));
    PrintHr(L"StringCchPrintfA", StringCchPrintfA(abuf, ARRAYSIZE(abuf),
            "%S|%s", L"w", "n"));
    wprintf(L"A result [%S]\n", abuf);
    PrintHr(L"StringCchCopy", StringCchCopy((LPTSTR)abuf,
            sizeof(abuf) / sizeof(TCHAR), TEXT("t")));

    wprintf(L"wcscpy_s %d [%s]\n", wcscpy_s(buf, ARRAYSIZE(buf), L"copy"),
            buf);
    wprintf(L"wcscat_s %d [%s]\n", wcscat_s(buf, ARRAYSIZE(buf), L"+"),
            buf);
    wprintf(L"wcscat_s over %d [%s]\n",
            wcscat_s(buf, ARRAYSIZE(buf), L"toolong"), buf);
    wprintf(L"memcpy_s %d, over %d\n", memcpy_s(bytes, 4, "abc", 4),
            memcpy_s(bytes, 2, "abc", 4));
    wprintf(L"wcscmp %d %d _wcsicmp %d wcsncmp %d\n", wcscmp(L"a", L"b"),
            wcscmp(L"b", L"b"), _wcsicmp(L"KERNEL", L"kernel"),
            wcsncmp(L"abX", L"abY", 2));
    wprintf(L"wcschr %d wcsrchr %d wcsstr %d wcslen %u\n",
            (int)(wcschr(L"a/b/c", L'/') - L"a/b/c"),
            (int)(wcsrchr(L"a/b/c", L'/') - L"a/b/c"),
            (int)(wcsstr(L"NT Kernel Logger", L"Kernel") -
                  L"NT Kernel Logger"),
            (ULONG)wcslen(L"\U0001F600"));
    wprintf(L"wcstoul %lu _wtoi %d\n", (ULONG)wcstoul(L"0x1F", NULL, 16),
            _wtoi(L"  -37x"));
    wprintf(L"_tcslen %u\n", (ULONG)_tcslen(_T("tchar")));
}

static void Times(void)
{
    /* 2021-09-09T14:59:35.799Z */
    FILETIME ft = { 0x4DFA1070, 0x01D7A58B };
    SYSTEMTIME st, local;
    TIME_ZONE_INFORMATION pacific;
    FILETIME back;
    BOOL n;

    if (!FileTimeToSystemTime(&ft, &st))
        wprintf(L"FileTimeToSystemTime failed %lu\n", GetLastError());
    wprintf(L"%04u-%02u-%02u %02u:%02u:%02u.%03u dow %u\n", st.wYear,
            st.wMonth, st.wDay, st.wHour, st.wMinute, st.wSecond,
            st.wMilliseconds, st.wDayOfWeek);
    SystemTimeToFileTime(&st, &back);
    wprintf(L"back %08lX%08lX\n", back.dwHighDateTime, back.dwLowDateTime);

    /* UTC-8, daylight UTC-7 from March's second Sunday to November's first. */
    ZeroMemory(&pacific, sizeof(pacific));
    pacific.Bias = 480;
    pacific.DaylightBias = -60;
    pacific.StandardDate.wMonth = 11;
    pacific.StandardDate.wDay = 1;
    pacific.StandardDate.wHour = 2;
    pacific.DaylightDate.wMonth = 3;
    pacific.DaylightDate.wDay = 2;
    pacific.DaylightDate.wHour = 2;
    SystemTimeToTzSpecificLocalTime(&pacific, &st, &local);
    wprintf(L"pacific summer %02u:%02u\n", local.wHour, local.wMinute);
    st.wMonth = 1;
    SystemTimeToTzSpecificLocalTime(&pacific, &st, &local);
    wprintf(L"pacific winter %02u:%02u day %u\n", local.wHour,
            local.wMinute, local.wDay);
    ft.dwHighDateTime = 0x80000000;
    SetLastError(0);
    n = FileTimeToSystemTime(&ft, &st);
    wprintf(L"top bit %d error %lu\n", n, GetLastError());
}

/* REFGUID is a reference in C++, a pointer in C. */
#ifdef __cplusplus
#define GUID_ARG(g) (g)
#else
#define GUID_ARG(g) (&(g))
#endif

static void Guids(void)
{
    static const GUID g = { 0x9e814aad, 0x3204, 0x11d2,
        { 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };
    WCHAR str[39];
    GUID parsed;
    HRESULT hr;
    int n;

    n = StringFromGUID2(GUID_ARG(g), str, ARRAYSIZE(str));
    wprintf(L"StringFromGUID2 %d %s\n", n, str);
    wprintf(L"too small %d\n", StringFromGUID2(GUID_ARG(g), str, 38));
    hr = CLSIDFromString(L"{9E814AAD-3204-11d2-9A82-006008A86939}", &parsed);
    wprintf(L"CLSIDFromString 0x%08X equal %d\n", (ULONG)hr,
            IsEqualGUID(GUID_ARG(parsed), GUID_ARG(g)));
    hr = CLSIDFromString(L"9E814AAD-3204-11d2-9A82-006008A86939", &parsed);
    wprintf(L"no braces 0x%08X\n", (ULONG)hr);
}

/*
 * A controller's _TCHAR parsing and printing: _tcsncpy_s pieces of a GUID
 * string, _tprintf with MSVC's %I64x (narrow in ANSI builds too), and the
 * SDK's release macros gating a Windows 10 20348 call.
 */
static void Controls(void)
{
    /* Not literals: MinGW checks narrow formats as GNU's. */
    const _TCHAR *IdFormat = _T("Logger Id: %I64x %I64u %5s|\n");
    const _TCHAR *Widths = _T("%ls and %hs\n");
    _TCHAR Temp[10];
    ULONG64 Id = 0x1234567890ABCDEFULL;

    _tprintf(_T("_tcsncpy_s %d [%s]\n"),
             (int)_tcsncpy_s(Temp, 10, _T("0123abcd-rest"), 8), Temp);
    _tprintf(_T("_tcsncpy_s over %d [%s]\n"),
             (int)_tcsncpy_s(Temp, 4, _T("abcdef"), 5), Temp);
    _tprintf(_T("_tcsncpy_s _TRUNCATE %d [%s]\n"),
             (int)_tcsncpy_s(Temp, 4, _T("abcdef"), _TRUNCATE), Temp);
    _tprintf(IdFormat, Id, Id, _T("ab"));
    _ftprintf(stdout, Widths, L"wide", "narrow");
#if defined(NTDDI_WIN10_MN) && (NTDDI_VERSION >= NTDDI_WIN10_MN)
    _tprintf(_T("NTDDI_VERSION 0x%08X, 20348 calls built\n"),
             (ULONG)NTDDI_VERSION);
#else
    _tprintf(_T("no NTDDI_WIN10_MN\n"));
#endif
}

static void CommandLines(void)
{
    int argc = 0, i;
    LPWSTR *argv = CommandLineToArgvW(
        L"\"C:\\Program Files\\tool.exe\" -start \"My Session\" a\\\\\\\"b c\\\\\"d e\" \"\"", &argc);

    for (i = 0; argv && i < argc; i++)
        wprintf(L"argv[%d] <%s>\n", i, argv[i]);
    LocalFree(argv);
}

static void Messages(void)
{
    LPWSTR text = NULL;
    WCHAR buf[64];
    DWORD n;

    n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM |
                       FORMAT_MESSAGE_ALLOCATE_BUFFER |
                       FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                       ERROR_ACCESS_DENIED,
                       MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT),
                       (LPWSTR)&text, 0, NULL);
    wprintf(L"FormatMessageW %lu [%s]\n", n, text);
    LocalFree(text);
    n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM |
                       FORMAT_MESSAGE_IGNORE_INSERTS |
                       FORMAT_MESSAGE_MAX_WIDTH_MASK, NULL,
                       ERROR_INVALID_PARAMETER, 0, buf, ARRAYSIZE(buf), NULL);
    wprintf(L"FormatMessageW %lu [%s]\n", n, buf);
    n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM, NULL, 0x12345678, 0, buf,
                       ARRAYSIZE(buf), NULL);
    wprintf(L"unknown %lu error %lu\n", n, GetLastError());
}

int __cdecl wmain(int argc, wchar_t *argv[])
{
    ULONG count = 0, calls = 0;
    BYTE scratch[4];

    UNIT_BUFFER units = { scratch, sizeof(scratch), NULL, 0 };

    CountUnits(L"sal", NULL, &count, &calls, units.Buffer, units.Size);
    wprintf(L"SAL %lu %lu\n", count, calls);
    wprintf(L"argc %d argv[1] [%s]\n", argc, argc > 1 ? argv[1] : L"");
    Formats();
    Strings();
    Times();
    Guids();
    Controls();
    CommandLines();
    Messages();
    return 0;
}
