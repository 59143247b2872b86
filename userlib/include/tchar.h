/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * tchar.h - the generic-text names of MSVC's C runtime: with _UNICODE (or
 * UNICODE, which Windows projects define together) they are the wide
 * functions, which need -fshort-wchar here (<etw_crt.h>); otherwise the
 * narrow ones.  _tmain is wmain or main; a wmain program links
 * libetw-wmain (Documentation/libetw.rst, "The Windows C runtime").
 */
#ifndef _INC_TCHAR
#define _INC_TCHAR

#include <windows.h>

#if defined(_UNICODE) || defined(UNICODE)
#ifndef _UNICODE
#define _UNICODE
#endif
typedef wchar_t		_TCHAR, _TSCHAR, _TUCHAR, _TXCHAR;
typedef wint_t		_TINT;
#define __T(x)		L ## x
#define _tmain		wmain
#define _tprintf	wprintf
#define _ftprintf	fwprintf
#define _vtprintf	vwprintf
#define _vftprintf	vfwprintf
#define _stprintf_s	swprintf_s
#define _vstprintf_s	vswprintf_s
#define _sntprintf	_snwprintf
#define _vsntprintf	_vsnwprintf
#define _sctprintf	_scwprintf
#define _fputts		fputws
#define _puttchar	putwchar
#define _putts		_putws
#define _tcslen		wcslen
#define _tcsnlen	wcsnlen
#define _tcscpy		wcscpy
#define _tcscpy_s	wcscpy_s
#define _tcsncpy	wcsncpy
#define _tcsncpy_s	wcsncpy_s
#define _tcscat		wcscat
#define _tcscat_s	wcscat_s
#define _tcsncat	wcsncat
#define _tcscmp		wcscmp
#define _tcsncmp	wcsncmp
#define _tcsicmp	_wcsicmp
#define _tcsnicmp	_wcsnicmp
#define _tcschr		wcschr
#define _tcsrchr	wcsrchr
#define _tcsstr		wcsstr
#define _tcsdup		_wcsdup
#define _tcstol		wcstol
#define _tcstoul	wcstoul
#define _tcstoi64	_wcstoi64
#define _tcstoui64	_wcstoui64
#define _tcstod		wcstod
#define _ttoi		_wtoi
#define _ttol		_wtol
#define _tstoi		_wtoi
#define _ttoi64		_wtoi64
#define _tfullpath	_wfullpath
#else
typedef char		_TCHAR, _TSCHAR;
typedef unsigned char	_TUCHAR;
typedef unsigned char	_TXCHAR;
typedef int		_TINT;
#define __T(x)		x
#define _tmain		main
#define _tprintf	etw_crt_printf_ms
#define _ftprintf	etw_crt_fprintf_ms
#define _vtprintf	etw_crt_vprintf_ms
#define _vftprintf	etw_crt_vfprintf_ms
#define _stprintf_s	sprintf_s
#define _vstprintf_s	vsprintf_s
#define _sntprintf	_snprintf
#define _vsntprintf	_vsnprintf
#define _sctprintf	_scprintf
#define _fputts		fputs
#define _puttchar	putchar
#define _putts		puts
#define _tcslen		strlen
#define _tcsnlen	strnlen
#define _tcscpy		strcpy
#define _tcscpy_s	strcpy_s
#define _tcsncpy	strncpy
#define _tcsncpy_s	strncpy_s
#define _tcscat		strcat
#define _tcscat_s	strcat_s
#define _tcsncat	strncat
#define _tcscmp		strcmp
#define _tcsncmp	strncmp
#define _tcsicmp	_stricmp
#define _tcsnicmp	_strnicmp
#define _tcschr		strchr
#define _tcsrchr	strrchr
#define _tcsstr		strstr
#define _tcsdup		strdup
#define _tcstol		strtol
#define _tcstoul	strtoul
#define _tcstoi64	strtoll
#define _tcstoui64	strtoull
#define _tcstod		strtod
#define _ttoi		atoi
#define _ttol		atol
#define _tstoi		atoi
#define _ttoi64		atoll
#define _tfullpath	_fullpath
#endif

#define _T(x)		__T(x)
#define _TEXT(x)	__T(x)

#endif /* _INC_TCHAR */
