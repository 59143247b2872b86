/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * shellapi.h - CommandLineToArgvW, the one function of the shell API that
 * ETW tools call (Documentation/libetw.rst, "The Windows C runtime").
 */
#ifndef _SHELLAPI_H_
#define _SHELLAPI_H_

#include <windows.h>

/* One block: the array and its strings; free it with LocalFree. */
EXTERN_C LPWSTR *WINAPI CommandLineToArgvW(LPCWSTR lpCmdLine, int *pNumArgs);

#endif /* _SHELLAPI_H_ */
