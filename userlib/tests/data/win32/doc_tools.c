/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * A program in the shape of the ETW documentation's controller and TDH
 * examples: their headers (<conio.h>, <wbemidl.h>, <in6addr.h> ...) and
 * the Win32 calls around their ETW calls, each answer printed through
 * wprintf.  win32_crt_test builds it as C and C++, ANSI and UNICODE,
 * with -fshort-wchar and a wmain entry point, feeds "ab" to its standard
 * input and compares its output with doc_tools.expected.
 */
#define INITGUID
#include <windows.h>
#include <stdio.h>
#include <conio.h>
#include <strsafe.h>
#include <wbemidl.h>
#include <wmistr.h>
#include <evntrace.h>
#include <tdh.h>
#include <in6addr.h>
#include <sddl.h>

/* {6B8C1C31-0F43-4A5A-9D8E-2F1C0B7A5D64}, this program's own. */
static const GUID DocToolsGuid = {
    0x6b8c1c31, 0x0f43, 0x4a5a, { 0x9d, 0x8e, 0x2f, 0x1c, 0x0b, 0x7a, 0x5d, 0x64 }
};

static void
GuidStrings(void)
{
    LPOLESTR Text = NULL;
    HRESULT hr;

#ifdef __cplusplus
    hr = StringFromCLSID(DocToolsGuid, &Text);
#else
    hr = StringFromCLSID(&DocToolsGuid, &Text);
#endif
    wprintf(L"StringFromCLSID: 0x%08x %s\n", hr, Text);
    CoTaskMemFree(Text);
#ifdef __cplusplus
    hr = StringFromIID(EventTraceGuid, &Text);
#else
    hr = StringFromIID(&EventTraceGuid, &Text);
#endif
    wprintf(L"StringFromIID: 0x%08x %s\n", hr, Text);
    CoTaskMemFree(Text);
    CoTaskMemFree(NULL);
#ifdef __cplusplus
    hr = StringFromCLSID(DocToolsGuid, NULL);
#else
    hr = StringFromCLSID(&DocToolsGuid, NULL);
#endif
    wprintf(L"StringFromCLSID without a result: 0x%08x\n", hr);
    Text = (LPOLESTR)CoTaskMemAlloc(4 * sizeof(OLECHAR));
    Text = (LPOLESTR)CoTaskMemRealloc(Text, 8 * sizeof(OLECHAR));
    wprintf(L"CoTaskMemRealloc: %s\n", Text ? L"a block" : L"NULL");
    CoTaskMemFree(Text);
}

static void
ByteOrder(void)
{
    USHORT Port = 0x5000;   /* 80, as a TDH_OUTTYPE_PORT field holds it */
    ULONG Address = 0x0100007f;

    wprintf(L"ntohs: %hu\n", ntohs(Port));
    wprintf(L"htons: 0x%04x\n", htons(80));
    wprintf(L"ntohl: 0x%08x\n", ntohl(Address));
    wprintf(L"htonl: 0x%08x\n", htonl(0x7f000001));
}

static void
Accounts(void)
{
    /* S-1-5-18, LocalSystem, as an event's TDH_INTYPE_SID carries it. */
    static const BYTE System[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    static const BYTE Revision2[] = { 2, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 };
    TCHAR Name[64], Domain[64];
    DWORD cchName = 64, cchDomain = 64;
    SID_NAME_USE Use;
    BOOL Found;

    Found = LookupAccountSid(NULL, (PSID)System, Name, &cchName, Domain,
                             &cchDomain, &Use);
    wprintf(L"LookupAccountSid S-1-5-18: %d %lu\n", Found, GetLastError());
    Found = LookupAccountSid(NULL, (PSID)Revision2, Name, &cchName, Domain,
                             &cchDomain, &Use);
    wprintf(L"LookupAccountSid revision 2: %d %lu\n", Found, GetLastError());
    Found = LookupAccountSid(NULL, NULL, Name, &cchName, Domain, &cchDomain,
                             &Use);
    wprintf(L"LookupAccountSid NULL: %d %lu\n", Found, GetLastError());
    wprintf(L"SidTypeUser %d, SidTypeLogonSession %d\n", SidTypeUser,
            SidTypeLogonSession);
}

/* The SID Microsoft's Advanced provider sample writes, and its errors. */
static void
WellKnownSids(void)
{
    BYTE Buffer[SECURITY_MAX_SID_SIZE];
    SID Small;
    DWORD Size = sizeof(Small);
    LPWSTR Text;
    BOOL Made;

    Made = CreateWellKnownSid(WinWorldSid, NULL, &Small, &Size);
    ConvertSidToStringSidW(&Small, &Text);
    wprintf(L"CreateWellKnownSid WinWorldSid: %d %lu %s %d\n", Made, Size,
            Text, IsValidSid(&Small));
    LocalFree(Text);
    Size = sizeof(Small);
    Made = CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, &Small,
                              &Size);
    wprintf(L"CreateWellKnownSid too small: %d %lu %lu\n", Made,
            GetLastError(), Size);
    Made = CreateWellKnownSid(WinBuiltinAdministratorsSid, NULL, Buffer,
                              &Size);
    ConvertSidToStringSidW(Buffer, &Text);
    wprintf(L"CreateWellKnownSid administrators: %d %lu %s\n", Made,
            GetLengthSid(Buffer), Text);
    LocalFree(Text);
    Made = CreateWellKnownSid(WinLogonIdsSid, NULL, Buffer, &Size);
    wprintf(L"CreateWellKnownSid WinLogonIdsSid: %d %lu\n", Made,
            GetLastError());
    wprintf(L"EqualSid: %d %d\n", EqualSid(Buffer, Buffer),
            EqualSid(Buffer, &Small));
}

static void
Modules(void)
{
    HMODULE Tdh = GetModuleHandle(TEXT("TDH"));
    HMODULE Advapi = GetModuleHandle(TEXT("C:\\Windows\\System32\\advapi32.dll"));
    HMODULE Program = GetModuleHandle(NULL);
    HMODULE Ntdll;
    FARPROC Proc;

    wprintf(L"GetModuleHandle tdh: %s\n",
            Tdh && Tdh == LoadLibrary(TEXT("tdh.dll")) ? L"loaded" : L"none");
    wprintf(L"GetProcAddress TdhGetProperty: %s\n",
            GetProcAddress(Tdh, "TdhGetProperty") ==
                (FARPROC)(void (*)(void))TdhGetProperty ? L"libetw's" : L"other");
    wprintf(L"GetProcAddress LookupAccountSidW: %s\n",
            GetProcAddress(Advapi, "LookupAccountSidW") ==
                (FARPROC)(void (*)(void))LookupAccountSidW ? L"libetw's" : L"other");
    /* The last error is read after the call: arguments have no order. */
    Ntdll = GetModuleHandle(TEXT("ntdll"));
    wprintf(L"GetModuleHandle ntdll: %s %lu\n", Ntdll ? L"loaded" : L"NULL",
            GetLastError());
    wprintf(L"GetModuleHandle NULL: %s\n", Program ? L"the program" : L"NULL");
    Proc = GetProcAddress(Program, "wmain");
    wprintf(L"GetProcAddress in the program: %s %lu\n",
            Proc ? L"found" : L"NULL", GetLastError());
}

/* The keys the test feeds: "ab", then the end of the input. */
static void
Keys(void)
{
    int Key;

    wprintf(L"_kbhit: %d\n", _kbhit() != 0);
    Key = _getch();
    wprintf(L"_getch: %c\n", Key);
    wprintf(L"_getche: ");
    Key = _getche();
    wprintf(L" (%d)\n", Key);
    wprintf(L"_getch at the end: %d\n", _getch());
    wprintf(L"_kbhit at the end: %d\n", _kbhit() != 0);
}

int
wmain(void)
{
    GuidStrings();
    ByteOrder();
    Accounts();
    WellKnownSids();
    Modules();
    wprintf(L"Press any key to stop the session ");
    Keys();
    return 0;
}
