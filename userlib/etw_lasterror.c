// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * etw_lasterror.c - GetLastError and SetLastError: one value per thread,
 * as on Windows.  libetw functions that return a handle or a value rather
 * than an error code (OpenTrace, GetTraceEnableFlags, ...) report failures
 * here.
 */
#include "windows.h"

static __thread DWORD etw_last_error;

/**
 * GetLastError() - the calling thread's last error
 *
 * Return: the value last set on this thread; 0 on a new thread.
 */
DWORD WINAPI GetLastError(void)
{
	return etw_last_error;
}

/**
 * SetLastError() - set the calling thread's last error
 * @dwErrCode: the Win32 error
 */
VOID WINAPI SetLastError(DWORD dwErrCode)
{
	etw_last_error = dwErrCode;
}
