/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * sddl.h - of the security descriptor string functions, the one ETW
 * consumers call to print the SID an event carries: ConvertSidToStringSid
 * (libetw's etw_win32_sid.c).
 */
#ifndef _SDDL_H_
#define _SDDL_H_

#include <windows.h>

#define SDDL_REVISION_1		1
#define SDDL_REVISION		SDDL_REVISION_1

/* "S-1-5-21-...", in one LocalAlloc block: free it with LocalFree. */
EXTERN_C BOOL WINAPI ConvertSidToStringSidA(PSID Sid, LPSTR *StringSid);
EXTERN_C BOOL WINAPI ConvertSidToStringSidW(PSID Sid, LPWSTR *StringSid);

#ifdef UNICODE
#define ConvertSidToStringSid	ConvertSidToStringSidW
#else
#define ConvertSidToStringSid	ConvertSidToStringSidA
#endif

#endif /* _SDDL_H_ */
