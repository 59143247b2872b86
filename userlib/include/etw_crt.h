/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * etw_crt.h - the Microsoft C runtime functions Windows ETW code calls on
 * WCHAR strings, and its _s functions, for libetw on Linux.  <windows.h>
 * includes it; Documentation/libetw.rst ("The Windows C runtime") says
 * what each does differently from Windows.
 *
 * glibc's wide functions (wprintf, wcslen, wcscmp, ...) take a 32-bit
 * wchar_t.  With -fshort-wchar, wchar_t is Windows' 16-bit unit and those
 * functions would misread every string: so in such a program their names
 * are declared again with asm labels that make every call, from C or C++,
 * std:: or not, and whatever the order of the includes, reach libetw's
 * etw_crt_* functions instead, which read 16-bit units and MSVC's formats.
 * MSVC's own names (_snwprintf, wcscpy_s, _wcsicmp, ...) are declared the
 * same way.  Without the flag only the narrow _s functions are declared.
 */
#ifndef _ETW_CRT_H
#define _ETW_CRT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * libetw's functions, by their own names: WCHAR is a 16-bit unit (the
 * wide ones are declared with uint16_t, which has its representation).
 * etw_crt_vsnprintf_w and _a format as MSVC does, with C99's snprintf
 * answer: the full length, the buffer cut and terminated.
 */
int etw_crt_vsnprintf_w(uint16_t *buf, size_t count, const uint16_t *fmt,
			va_list ap);
int etw_crt_vsnprintf_a(char *buf, size_t count, const char *fmt,
			va_list ap);

int etw_crt_strcpy_s(char *dst, size_t size, const char *src);
int etw_crt_strcat_s(char *dst, size_t size, const char *src);
int etw_crt_strncpy_s(char *dst, size_t size, const char *src, size_t count);
int etw_crt_memcpy_s(void *dst, size_t size, const void *src, size_t count);
int etw_crt_memmove_s(void *dst, size_t size, const void *src,
		      size_t count);
int etw_crt_stricmp(const char *a, const char *b);
/* MSVC's formats on narrow output: <tchar.h>'s ANSI _tprintf family. */
int etw_crt_printf_ms(const char *fmt, ...);
int etw_crt_fprintf_ms(FILE *fp, const char *fmt, ...);
int etw_crt_vprintf_ms(const char *fmt, va_list ap);
int etw_crt_vfprintf_ms(FILE *fp, const char *fmt, va_list ap);
int etw_crt_strnicmp(const char *a, const char *b, size_t n);

/* MSVC's names of the narrow ones. */
#ifndef _ETW_CRT_NARROW_DECLARED
#define _ETW_CRT_NARROW_DECLARED
typedef int errno_t;
int strcpy_s(char *dst, size_t size, const char *src)
	__asm__("etw_crt_strcpy_s");
int strcat_s(char *dst, size_t size, const char *src)
	__asm__("etw_crt_strcat_s");
int strncpy_s(char *dst, size_t size, const char *src, size_t count)
	__asm__("etw_crt_strncpy_s");
int memcpy_s(void *dst, size_t size, const void *src, size_t count)
	__asm__("etw_crt_memcpy_s");
int memmove_s(void *dst, size_t size, const void *src, size_t count)
	__asm__("etw_crt_memmove_s");
int _stricmp(const char *a, const char *b) __asm__("etw_crt_stricmp");
int _strnicmp(const char *a, const char *b, size_t n)
	__asm__("etw_crt_strnicmp");
int _snprintf(char *buf, size_t count, const char *fmt, ...)
	__asm__("etw_crt_snprintf_ms");
int _vsnprintf(char *buf, size_t count, const char *fmt, va_list ap)
	__asm__("etw_crt_vsnprintf_ms");
int sprintf_s(char *buf, size_t count, const char *fmt, ...)
	__asm__("etw_crt_sprintf_s");
int vsprintf_s(char *buf, size_t count, const char *fmt, va_list ap)
	__asm__("etw_crt_vsprintf_s");
int _scprintf(const char *fmt, ...) __asm__("etw_crt_scprintf");
char *_fullpath(char *abs, const char *rel, size_t max)
	__asm__("etw_crt_fullpath");
#define _TRUNCATE	((size_t)-1)
#define STRUNCATE	80
#endif

#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ == 0xffff
/*
 * glibc's fortified wrappers (_FORTIFY_SOURCE) are inline bodies calling
 * its checking functions on 32-bit units: a call would bypass the labels
 * below, so such a build stops here.
 */
#if defined(__USE_FORTIFY_LEVEL) && __USE_FORTIFY_LEVEL > 0
#error "-fshort-wchar programs must be built without _FORTIFY_SOURCE (add -U_FORTIFY_SOURCE): glibc's checked wide functions read 32-bit wchar_t"
#endif

/*
 * The standard names, which glibc declares: renamed by an asm label on a
 * declaration of their own (glibc's __REDIRECT), which GCC applies even
 * to calls compiled before it and Clang only when it comes first; Clang's
 * C++, where libstdc++'s inline functions may have called them already,
 * renames by #pragma redefine_extname instead, which it applies to every
 * call.
 */
#define _ETW_CRT_PRAGMA(x)	_Pragma(#x)
#if defined(__clang__) && defined(__cplusplus)
#define _ETW_CRT_R(ret, name, proto, alias) \
	_ETW_CRT_PRAGMA(redefine_extname name alias)
#define _ETW_CRT_RN(ret, name, proto, alias) \
	_ETW_CRT_PRAGMA(redefine_extname name alias)
#else
#define _ETW_CRT_R(ret, name, proto, alias) \
	extern ret __REDIRECT(name, proto, alias);
#define _ETW_CRT_RN(ret, name, proto, alias) \
	extern ret __REDIRECT_NTH(name, proto, alias);
#endif

_ETW_CRT_R(int, wprintf, (const wchar_t *__restrict __fmt, ...),
	etw_crt_wprintf)
_ETW_CRT_R(int, fwprintf, (FILE *__restrict __fp, const wchar_t *__restrict __fmt, ...),
	etw_crt_fwprintf)
_ETW_CRT_R(int, vwprintf, (const wchar_t *__restrict __fmt, __gnuc_va_list __ap),
	etw_crt_vwprintf)
_ETW_CRT_R(int, vfwprintf, (FILE *__restrict __fp, const wchar_t *__restrict __fmt, __gnuc_va_list __ap),
	etw_crt_vfwprintf)
_ETW_CRT_RN(int, swprintf, (wchar_t *__restrict __s, size_t __n, const wchar_t *__restrict __fmt, ...),
	etw_crt_swprintf)
_ETW_CRT_RN(int, vswprintf, (wchar_t *__restrict __s, size_t __n, const wchar_t *__restrict __fmt, __gnuc_va_list __ap),
	etw_crt_vswprintf)
_ETW_CRT_R(int, fputws, (const wchar_t *__restrict __ws, FILE *__restrict __fp),
	etw_crt_fputws)
_ETW_CRT_R(wint_t, fputwc, (wchar_t __wc, FILE *__fp),
	etw_crt_fputwc)
_ETW_CRT_R(wint_t, putwc, (wchar_t __wc, FILE *__fp),
	etw_crt_fputwc)
_ETW_CRT_R(wint_t, putwchar, (wchar_t __wc),
	etw_crt_putwchar)
_ETW_CRT_RN(size_t, wcslen, (const wchar_t *__s),
	etw_crt_wcslen)
_ETW_CRT_RN(size_t, wcsnlen, (const wchar_t *__s, size_t __max),
	etw_crt_wcsnlen)
_ETW_CRT_RN(wchar_t *, wcscpy, (wchar_t *__restrict __d, const wchar_t *__restrict __s),
	etw_crt_wcscpy)
_ETW_CRT_RN(wchar_t *, wcsncpy, (wchar_t *__restrict __d, const wchar_t *__restrict __s, size_t __n),
	etw_crt_wcsncpy)
_ETW_CRT_RN(wchar_t *, wcscat, (wchar_t *__restrict __d, const wchar_t *__restrict __s),
	etw_crt_wcscat)
_ETW_CRT_RN(wchar_t *, wcsncat, (wchar_t *__restrict __d, const wchar_t *__restrict __s, size_t __n),
	etw_crt_wcsncat)
_ETW_CRT_RN(int, wcscmp, (const wchar_t *__a, const wchar_t *__b),
	etw_crt_wcscmp)
_ETW_CRT_RN(int, wcsncmp, (const wchar_t *__a, const wchar_t *__b, size_t __n),
	etw_crt_wcsncmp)
_ETW_CRT_RN(wchar_t *, wcsdup, (const wchar_t *__s),
	etw_crt_wcsdup)
_ETW_CRT_RN(long, wcstol, (const wchar_t *__restrict __s, wchar_t **__restrict __end, int __base),
	etw_crt_wcstol)
_ETW_CRT_RN(unsigned long, wcstoul, (const wchar_t *__restrict __s, wchar_t **__restrict __end, int __base),
	etw_crt_wcstoul)
_ETW_CRT_RN(long long, wcstoll, (const wchar_t *__restrict __s, wchar_t **__restrict __end, int __base),
	etw_crt_wcstoll)
_ETW_CRT_RN(unsigned long long, wcstoull, (const wchar_t *__restrict __s, wchar_t **__restrict __end, int __base),
	etw_crt_wcstoull)
_ETW_CRT_RN(double, wcstod, (const wchar_t *__restrict __s, wchar_t **__restrict __end),
	etw_crt_wcstod)
_ETW_CRT_RN(size_t, mbstowcs, (wchar_t *__restrict __d, const char *__restrict __s, size_t __n),
	etw_crt_mbstowcs)
_ETW_CRT_RN(size_t, wcstombs, (char *__restrict __d, const wchar_t *__restrict __s, size_t __n),
	etw_crt_wcstombs)
_ETW_CRT_RN(int, wmemcmp, (const wchar_t *__a, const wchar_t *__b, size_t __n),
	etw_crt_wmemcmp)
_ETW_CRT_RN(wchar_t *, wmemcpy, (wchar_t *__restrict __d, const wchar_t *__restrict __s, size_t __n),
	etw_crt_wmemcpy)
_ETW_CRT_RN(wchar_t *, wmemmove, (wchar_t *__d, const wchar_t *__s, size_t __n),
	etw_crt_wmemmove)
_ETW_CRT_RN(wchar_t *, wmemset, (wchar_t *__d, wchar_t __c, size_t __n),
	etw_crt_wmemset)

/* What GCC's C++ declares twice, const and not (glibc's C++ overloads). */
#ifdef __CORRECT_ISO_CPP_WCHAR_H_PROTO
}
extern "C++" wchar_t *__REDIRECT_NTH(wcschr, (wchar_t *__s, wchar_t __c),
				     etw_crt_wcschr);
extern "C++" const wchar_t *__REDIRECT_NTH(wcschr, (const wchar_t *__s,
						    wchar_t __c),
					   etw_crt_wcschr);
extern "C++" wchar_t *__REDIRECT_NTH(wcsrchr, (wchar_t *__s, wchar_t __c),
				     etw_crt_wcsrchr);
extern "C++" const wchar_t *__REDIRECT_NTH(wcsrchr, (const wchar_t *__s,
						     wchar_t __c),
					   etw_crt_wcsrchr);
extern "C++" wchar_t *__REDIRECT_NTH(wcsstr, (wchar_t *__h,
					      const wchar_t *__n),
				     etw_crt_wcsstr);
extern "C++" const wchar_t *__REDIRECT_NTH(wcsstr, (const wchar_t *__h,
						    const wchar_t *__n),
					   etw_crt_wcsstr);
extern "C++" wchar_t *__REDIRECT_NTH(wmemchr, (wchar_t *__s, wchar_t __c,
					       size_t __n),
				     etw_crt_wmemchr);
extern "C++" const wchar_t *__REDIRECT_NTH(wmemchr, (const wchar_t *__s,
						     wchar_t __c, size_t __n),
					   etw_crt_wmemchr);
extern "C" {
#else
_ETW_CRT_RN(wchar_t *, wcschr, (const wchar_t *__s, wchar_t __c),
	etw_crt_wcschr)
_ETW_CRT_RN(wchar_t *, wcsrchr, (const wchar_t *__s, wchar_t __c),
	etw_crt_wcsrchr)
_ETW_CRT_RN(wchar_t *, wcsstr, (const wchar_t *__h, const wchar_t *__n),
	etw_crt_wcsstr)
_ETW_CRT_RN(wchar_t *, wmemchr, (const wchar_t *__s, wchar_t __c, size_t __n),
	etw_crt_wmemchr)
#endif

/* MSVC's own names. */
int _snwprintf(wchar_t *buf, size_t count, const wchar_t *fmt, ...)
	__asm__("etw_crt_snwprintf_ms");
int _vsnwprintf(wchar_t *buf, size_t count, const wchar_t *fmt, va_list ap)
	__asm__("etw_crt_vsnwprintf_ms");
int swprintf_s(wchar_t *buf, size_t count, const wchar_t *fmt, ...)
	__asm__("etw_crt_swprintf_s");
int vswprintf_s(wchar_t *buf, size_t count, const wchar_t *fmt, va_list ap)
	__asm__("etw_crt_vswprintf_s");
int _scwprintf(const wchar_t *fmt, ...) __asm__("etw_crt_scwprintf");
int _vscwprintf(const wchar_t *fmt, va_list ap)
	__asm__("etw_crt_vscwprintf");
int _putws(const wchar_t *s) __asm__("etw_crt_putws");
int wcscpy_s(wchar_t *dst, size_t size, const wchar_t *src)
	__asm__("etw_crt_wcscpy_s");
int wcsncpy_s(wchar_t *dst, size_t size, const wchar_t *src, size_t count)
	__asm__("etw_crt_wcsncpy_s");
int wcscat_s(wchar_t *dst, size_t size, const wchar_t *src)
	__asm__("etw_crt_wcscat_s");
int _wcsicmp(const wchar_t *a, const wchar_t *b) __asm__("etw_crt_wcsicmp");
int _wcsnicmp(const wchar_t *a, const wchar_t *b, size_t n)
	__asm__("etw_crt_wcsnicmp");
wchar_t *_wcsdup(const wchar_t *s) __asm__("etw_crt_wcsdup");
int _wtoi(const wchar_t *s) __asm__("etw_crt_wtoi");
/* A Windows long is 32 bits. */
int _wtol(const wchar_t *s) __asm__("etw_crt_wtoi");
long long _wtoi64(const wchar_t *s) __asm__("etw_crt_wtoi64");
long long _wcstoi64(const wchar_t *s, wchar_t **end, int base)
	__asm__("etw_crt_wcstoll");
unsigned long long _wcstoui64(const wchar_t *s, wchar_t **end, int base)
	__asm__("etw_crt_wcstoull");
wchar_t *_wfullpath(wchar_t *abs, const wchar_t *rel, size_t max)
	__asm__("etw_crt_wfullpath");
#define _wcsnlen	wcsnlen
#endif /* 16-bit wchar_t */

#ifdef __cplusplus
}

/* MSVC's C++ forms that take the destination's size from its array. */
extern "C++" {
template <size_t _Etw_N>
int strcpy_s(char (&dst)[_Etw_N], const char *src)
{
	return strcpy_s(dst, _Etw_N, src);
}

template <size_t _Etw_N>
int strcat_s(char (&dst)[_Etw_N], const char *src)
{
	return strcat_s(dst, _Etw_N, src);
}

#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ == 0xffff
template <size_t _Etw_N>
int wcscpy_s(wchar_t (&dst)[_Etw_N], const wchar_t *src)
{
	return wcscpy_s(dst, _Etw_N, src);
}

template <size_t _Etw_N>
int wcscat_s(wchar_t (&dst)[_Etw_N], const wchar_t *src)
{
	return wcscat_s(dst, _Etw_N, src);
}

template <size_t _Etw_N>
int swprintf_s(wchar_t (&buf)[_Etw_N], const wchar_t *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vswprintf_s(buf, _Etw_N, fmt, ap);
	va_end(ap);
	return ret;
}
#endif
}
#endif

#endif /* _ETW_CRT_H */
