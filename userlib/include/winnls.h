/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * winnls.h - of the national language support functions, the two that
 * format dates and times, GetDateFormat and GetTimeFormat (libetw's
 * etw_win32_nls.c), for one locale: English (United States).  Windows'
 * <windows.h> includes this header, and so does libetw's.
 * Documentation/libetw.rst ("The Windows C runtime") says what they do
 * differently from Windows.
 */
#ifndef _WINNLS_
#define _WINNLS_

#include <windows.h>

/* Locale identifiers (libetw formats every locale it accepts as en-US). */
#define SORT_DEFAULT			0x0
#define MAKELCID(lgid, srtid) \
	((DWORD)((((DWORD)((WORD)(srtid))) << 16) | ((DWORD)((WORD)(lgid)))))
#define LANG_SYSTEM_DEFAULT		MAKELANGID(LANG_NEUTRAL, 0x02)
#define LANG_USER_DEFAULT		MAKELANGID(LANG_NEUTRAL, SUBLANG_DEFAULT)
#define LOCALE_NEUTRAL			0x0000
#define LOCALE_INVARIANT		0x007f
#define LOCALE_USER_DEFAULT		0x0400
#define LOCALE_SYSTEM_DEFAULT		0x0800
#define LOCALE_CUSTOM_DEFAULT		0x0c00
#define LOCALE_CUSTOM_UNSPECIFIED	0x1000
#define LOCALE_CUSTOM_UI_DEFAULT	0x1400

#define LOCALE_NOUSEROVERRIDE		0x80000000
#define LOCALE_USE_CP_ACP		0x40000000

/* GetDateFormat's flags, for the locale's own formats (no picture). */
#define DATE_SHORTDATE			0x00000001
#define DATE_LONGDATE			0x00000002
#define DATE_USE_ALT_CALENDAR		0x00000004
#define DATE_YEARMONTH			0x00000008

/* GetTimeFormat's flags, with a picture or the locale's format. */
#define TIME_NOMINUTESORSECONDS		0x00000001
#define TIME_NOSECONDS			0x00000002
#define TIME_NOTIMEMARKER		0x00000004
#define TIME_FORCE24HOURFORMAT		0x00000008

EXTERN_C int WINAPI GetDateFormatA(LCID Locale, DWORD dwFlags,
				   const SYSTEMTIME *lpDate, LPCSTR lpFormat,
				   LPSTR lpDateStr, int cchDate);
EXTERN_C int WINAPI GetDateFormatW(LCID Locale, DWORD dwFlags,
				   const SYSTEMTIME *lpDate, LPCWSTR lpFormat,
				   LPWSTR lpDateStr, int cchDate);
EXTERN_C int WINAPI GetTimeFormatA(LCID Locale, DWORD dwFlags,
				   const SYSTEMTIME *lpTime, LPCSTR lpFormat,
				   LPSTR lpTimeStr, int cchTime);
EXTERN_C int WINAPI GetTimeFormatW(LCID Locale, DWORD dwFlags,
				   const SYSTEMTIME *lpTime, LPCWSTR lpFormat,
				   LPWSTR lpTimeStr, int cchTime);

#ifdef UNICODE
#define GetDateFormat	GetDateFormatW
#define GetTimeFormat	GetTimeFormatW
#else
#define GetDateFormat	GetDateFormatA
#define GetTimeFormat	GetTimeFormatA
#endif

#endif /* _WINNLS_ */
