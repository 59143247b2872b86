/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * strsafe.h - the Windows SDK's bounded string functions (StringCch* in
 * characters, StringCb* in bytes; A, W and by UNICODE the plain names),
 * header-only as there.  The W forms take WCHAR strings, so they work with
 * or without -fshort-wchar; the Printf forms format as MSVC does
 * (<etw_crt.h>).  Results, as documented for the SDK's:
 *
 *   S_OK                           done
 *   STRSAFE_E_INSUFFICIENT_BUFFER  cut to fit, terminated (0x8007007A)
 *   STRSAFE_E_INVALID_PARAMETER    a size of 0 or above STRSAFE_MAX_CCH,
 *                                  a destination not terminated within its
 *                                  size (Cat), a bad format (0x80070057)
 *
 * The Ex forms also give the end of the result and the room left, and
 * take STRSAFE_IGNORE_NULLS, _FILL_BEHIND_NULL, _FILL_ON_FAILURE,
 * _NULL_ON_FAILURE and _NO_TRUNCATION with a fill byte in the low 8 bits.
 */
#ifndef _STRSAFE_H_INCLUDED_
#define _STRSAFE_H_INCLUDED_

#include <stdarg.h>
#include <string.h>
#include <windows.h>

#define STRSAFE_MAX_CCH			2147483647
#define STRSAFE_E_INSUFFICIENT_BUFFER	((HRESULT)0x8007007AL)
#define STRSAFE_E_INVALID_PARAMETER	((HRESULT)0x80070057L)
#define STRSAFE_E_END_OF_FILE		((HRESULT)0x80070026L)
#define STRSAFE_IGNORE_NULLS		0x00000100
#define STRSAFE_FILL_BEHIND_NULL	0x00000200
#define STRSAFE_FILL_ON_FAILURE		0x00000400
#define STRSAFE_NULL_ON_FAILURE		0x00000800
#define STRSAFE_NO_TRUNCATION		0x00001000
#define STRSAFE_FILL_BYTE(b)		((DWORD)((b) & 0xFF) | STRSAFE_FILL_BEHIND_NULL)
#define STRSAFE_FAILURE_BYTE(b)		((DWORD)((b) & 0xFF) | STRSAFE_FILL_ON_FAILURE)
#define _ETW_SS_VALID_FLAGS		0x00001FFF

typedef char		*STRSAFE_LPSTR;
typedef const char	*STRSAFE_LPCSTR;
typedef WCHAR		*STRSAFE_LPWSTR;
typedef const WCHAR	*STRSAFE_LPCWSTR;

/*
 * The bodies, once for char (A) and once for WCHAR (W): _ETW_SS_DEFINE
 * makes each function of one width from these.  @T the unit, @S the
 * suffix, @VFMT the formatter with snprintf's answer.
 */
#define _ETW_SS_DEFINE(T, S, VFMT)					\
static __inline__ size_t _etw_ss_len##S(const T *s, size_t max)		\
{									\
	size_t n = 0;							\
									\
	while (n < max && s[n])						\
		n++;							\
	return n;							\
}									\
									\
/* What the Ex flags ask at the end; @hr the result so far. */		\
static __inline__ HRESULT _etw_ss_finish##S(T *dst, size_t cch,		\
	size_t len, HRESULT hr, DWORD flags, T **end, size_t *left)	\
{									\
	if (FAILED(hr) && cch && dst) {					\
		if (flags & STRSAFE_FILL_ON_FAILURE) {			\
			memset(dst, (int)(flags & 0xFF), cch * sizeof(T)); \
			dst[cch - 1] = 0;				\
			len = cch - 1;					\
		}							\
		if (flags & (STRSAFE_NULL_ON_FAILURE |			\
			     STRSAFE_NO_TRUNCATION)) {			\
			dst[0] = 0;					\
			len = 0;					\
		}							\
	} else if (SUCCEEDED(hr) && (flags & STRSAFE_FILL_BEHIND_NULL) && \
		   len + 1 < cch) {					\
		memset(dst + len + 1, (int)(flags & 0xFF),		\
		       (cch - len - 1) * sizeof(T));			\
	}								\
	if (end)							\
		*end = dst ? dst + len : dst;				\
	if (left)							\
		*left = cch - len;					\
	return hr;							\
}									\
									\
static __inline__ HRESULT _etw_ss_copy##S(T *dst, size_t cch,		\
	const T *src, size_t max, DWORD flags, T **end, size_t *left)	\
{									\
	static const T empty[1] = { 0 };					\
	size_t n;							\
	HRESULT hr = S_OK;						\
									\
	if ((flags & ~(DWORD)_ETW_SS_VALID_FLAGS) || !cch ||		\
	    cch > STRSAFE_MAX_CCH || !dst)				\
		return STRSAFE_E_INVALID_PARAMETER;			\
	if (!src) {							\
		if (!(flags & STRSAFE_IGNORE_NULLS))			\
			return STRSAFE_E_INVALID_PARAMETER;		\
		src = empty;						\
	}								\
	n = _etw_ss_len##S(src, max);					\
	if (n >= cch) {							\
		n = cch - 1;						\
		hr = STRSAFE_E_INSUFFICIENT_BUFFER;			\
	}								\
	memmove(dst, src, n * sizeof(T));				\
	dst[n] = 0;							\
	return _etw_ss_finish##S(dst, cch, n, hr, flags, end, left);	\
}									\
									\
static __inline__ HRESULT _etw_ss_cat##S(T *dst, size_t cch,		\
	const T *src, size_t max, DWORD flags, T **end, size_t *left)	\
{									\
	size_t d;							\
	T *e = NULL;							\
	size_t l = 0;							\
	HRESULT hr;							\
									\
	if ((flags & ~(DWORD)_ETW_SS_VALID_FLAGS) || !cch ||		\
	    cch > STRSAFE_MAX_CCH || !dst)				\
		return STRSAFE_E_INVALID_PARAMETER;			\
	d = _etw_ss_len##S(dst, cch);					\
	if (d == cch)							\
		return STRSAFE_E_INVALID_PARAMETER;			\
	hr = _etw_ss_copy##S(dst + d, cch - d, src, max,		\
			     flags & ~(DWORD)(STRSAFE_FILL_ON_FAILURE |	\
					      STRSAFE_NULL_ON_FAILURE |	\
					      STRSAFE_NO_TRUNCATION),	\
			     &e, &l);					\
	if (FAILED(hr) && hr != STRSAFE_E_INSUFFICIENT_BUFFER)		\
		return hr;						\
	return _etw_ss_finish##S(dst, cch, cch - l, hr, flags, end, left); \
}									\
									\
static __inline__ HRESULT _etw_ss_vprintf##S(T *dst, size_t cch,	\
	DWORD flags, T **end, size_t *left, const T *fmt, va_list ap)	\
{									\
	int n;								\
	size_t len;							\
	HRESULT hr = S_OK;						\
									\
	if ((flags & ~(DWORD)_ETW_SS_VALID_FLAGS) || !cch ||		\
	    cch > STRSAFE_MAX_CCH || !dst)				\
		return STRSAFE_E_INVALID_PARAMETER;			\
	if (!fmt) {							\
		if (!(flags & STRSAFE_IGNORE_NULLS))			\
			return STRSAFE_E_INVALID_PARAMETER;		\
		dst[0] = 0;						\
		return _etw_ss_finish##S(dst, cch, 0, hr, flags, end, left); \
	}								\
	n = VFMT(dst, cch, fmt, ap);					\
	if (n < 0) {							\
		dst[0] = 0;						\
		len = 0;						\
		hr = STRSAFE_E_INVALID_PARAMETER;			\
	} else if ((size_t)n >= cch) {					\
		len = cch - 1;						\
		hr = STRSAFE_E_INSUFFICIENT_BUFFER;			\
	} else {							\
		len = (size_t)n;					\
	}								\
	return _etw_ss_finish##S(dst, cch, len, hr, flags, end, left);	\
}									\
									\
static __inline__ HRESULT StringCchCopy##S(T *d, size_t cch, const T *s) \
{									\
	return _etw_ss_copy##S(d, cch, s, (size_t)-1, 0, NULL, NULL);	\
}									\
static __inline__ HRESULT StringCbCopy##S(T *d, size_t cb, const T *s)	\
{									\
	return _etw_ss_copy##S(d, cb / sizeof(T), s, (size_t)-1, 0,	\
			       NULL, NULL);				\
}									\
static __inline__ HRESULT StringCchCopyN##S(T *d, size_t cch,		\
					    const T *s, size_t n)	\
{									\
	if (n > STRSAFE_MAX_CCH)					\
		return STRSAFE_E_INVALID_PARAMETER;			\
	return _etw_ss_copy##S(d, cch, s, n, 0, NULL, NULL);		\
}									\
static __inline__ HRESULT StringCbCopyN##S(T *d, size_t cb,		\
					   const T *s, size_t nb)	\
{									\
	return StringCchCopyN##S(d, cb / sizeof(T), s, nb / sizeof(T));	\
}									\
static __inline__ HRESULT StringCchCopyEx##S(T *d, size_t cch,		\
	const T *s, T **end, size_t *left, DWORD flags)			\
{									\
	return _etw_ss_copy##S(d, cch, s, (size_t)-1, flags, end, left); \
}									\
static __inline__ HRESULT StringCbCopyEx##S(T *d, size_t cb,		\
	const T *s, T **end, size_t *left, DWORD flags)			\
{									\
	HRESULT hr = _etw_ss_copy##S(d, cb / sizeof(T), s, (size_t)-1,	\
				     flags, end, left);			\
	if (left)							\
		*left *= sizeof(T);					\
	return hr;							\
}									\
static __inline__ HRESULT StringCchCat##S(T *d, size_t cch, const T *s)	\
{									\
	return _etw_ss_cat##S(d, cch, s, (size_t)-1, 0, NULL, NULL);	\
}									\
static __inline__ HRESULT StringCbCat##S(T *d, size_t cb, const T *s)	\
{									\
	return _etw_ss_cat##S(d, cb / sizeof(T), s, (size_t)-1, 0,	\
			      NULL, NULL);				\
}									\
static __inline__ HRESULT StringCchCatN##S(T *d, size_t cch,		\
					   const T *s, size_t n)	\
{									\
	return _etw_ss_cat##S(d, cch, s, n, 0, NULL, NULL);		\
}									\
static __inline__ HRESULT StringCbCatN##S(T *d, size_t cb,		\
					  const T *s, size_t nb)	\
{									\
	return _etw_ss_cat##S(d, cb / sizeof(T), s, nb / sizeof(T), 0,	\
			      NULL, NULL);				\
}									\
static __inline__ HRESULT StringCchCatEx##S(T *d, size_t cch,		\
	const T *s, T **end, size_t *left, DWORD flags)			\
{									\
	return _etw_ss_cat##S(d, cch, s, (size_t)-1, flags, end, left);	\
}									\
static __inline__ HRESULT StringCchVPrintf##S(T *d, size_t cch,		\
					      const T *fmt, va_list ap)	\
{									\
	return _etw_ss_vprintf##S(d, cch, 0, NULL, NULL, fmt, ap);	\
}									\
static __inline__ HRESULT StringCbVPrintf##S(T *d, size_t cb,		\
					     const T *fmt, va_list ap)	\
{									\
	return _etw_ss_vprintf##S(d, cb / sizeof(T), 0, NULL, NULL,	\
				  fmt, ap);				\
}									\
static __inline__ HRESULT StringCchPrintf##S(T *d, size_t cch,		\
					     const T *fmt, ...)		\
{									\
	va_list ap;							\
	HRESULT hr;							\
									\
	va_start(ap, fmt);						\
	hr = _etw_ss_vprintf##S(d, cch, 0, NULL, NULL, fmt, ap);	\
	va_end(ap);							\
	return hr;							\
}									\
static __inline__ HRESULT StringCbPrintf##S(T *d, size_t cb,		\
					    const T *fmt, ...)		\
{									\
	va_list ap;							\
	HRESULT hr;							\
									\
	va_start(ap, fmt);						\
	hr = _etw_ss_vprintf##S(d, cb / sizeof(T), 0, NULL, NULL, fmt,	\
				ap);					\
	va_end(ap);							\
	return hr;							\
}									\
static __inline__ HRESULT StringCchPrintfEx##S(T *d, size_t cch,	\
	T **end, size_t *left, DWORD flags, const T *fmt, ...)		\
{									\
	va_list ap;							\
	HRESULT hr;							\
									\
	va_start(ap, fmt);						\
	hr = _etw_ss_vprintf##S(d, cch, flags, end, left, fmt, ap);	\
	va_end(ap);							\
	return hr;							\
}									\
static __inline__ HRESULT StringCbPrintfEx##S(T *d, size_t cb,		\
	T **end, size_t *left, DWORD flags, const T *fmt, ...)		\
{									\
	va_list ap;							\
	HRESULT hr;							\
									\
	va_start(ap, fmt);						\
	hr = _etw_ss_vprintf##S(d, cb / sizeof(T), flags, end, left,	\
				fmt, ap);				\
	va_end(ap);							\
	if (left)							\
		*left *= sizeof(T);					\
	return hr;							\
}									\
static __inline__ HRESULT StringCchLength##S(const T *s, size_t max,	\
					     size_t *len)		\
{									\
	size_t n;							\
									\
	if (!s || max > STRSAFE_MAX_CCH) {				\
		if (len)						\
			*len = 0;					\
		return STRSAFE_E_INVALID_PARAMETER;			\
	}								\
	n = _etw_ss_len##S(s, max);					\
	if (n == max) {							\
		if (len)						\
			*len = 0;					\
		return STRSAFE_E_INVALID_PARAMETER;			\
	}								\
	if (len)							\
		*len = n;						\
	return S_OK;							\
}									\
static __inline__ HRESULT StringCbLength##S(const T *s, size_t maxb,	\
					    size_t *lenb)		\
{									\
	size_t n = 0;							\
	HRESULT hr = StringCchLength##S(s, maxb / sizeof(T), &n);	\
									\
	if (lenb)							\
		*lenb = n * sizeof(T);					\
	return hr;							\
}

static __inline__ int _etw_ss_vfmtA(char *d, size_t n, const char *fmt,
				    va_list ap)
{
	return etw_crt_vsnprintf_a(d, n, fmt, ap);
}

static __inline__ int _etw_ss_vfmtW(WCHAR *d, size_t n, const WCHAR *fmt,
				    va_list ap)
{
	return etw_crt_vsnprintf_w((uint16_t *)d, n, (const uint16_t *)fmt,
				   ap);
}

_ETW_SS_DEFINE(char, A, _etw_ss_vfmtA)
_ETW_SS_DEFINE(WCHAR, W, _etw_ss_vfmtW)

#ifdef UNICODE
#define StringCchCopy		StringCchCopyW
#define StringCbCopy		StringCbCopyW
#define StringCchCopyN		StringCchCopyNW
#define StringCbCopyN		StringCbCopyNW
#define StringCchCopyEx		StringCchCopyExW
#define StringCbCopyEx		StringCbCopyExW
#define StringCchCat		StringCchCatW
#define StringCbCat		StringCbCatW
#define StringCchCatN		StringCchCatNW
#define StringCbCatN		StringCbCatNW
#define StringCchCatEx		StringCchCatExW
#define StringCchPrintf		StringCchPrintfW
#define StringCbPrintf		StringCbPrintfW
#define StringCchPrintfEx	StringCchPrintfExW
#define StringCbPrintfEx	StringCbPrintfExW
#define StringCchVPrintf	StringCchVPrintfW
#define StringCbVPrintf		StringCbVPrintfW
#define StringCchLength		StringCchLengthW
#define StringCbLength		StringCbLengthW
#else
#define StringCchCopy		StringCchCopyA
#define StringCbCopy		StringCbCopyA
#define StringCchCopyN		StringCchCopyNA
#define StringCbCopyN		StringCbCopyNA
#define StringCchCopyEx		StringCchCopyExA
#define StringCbCopyEx		StringCbCopyExA
#define StringCchCat		StringCchCatA
#define StringCbCat		StringCbCatA
#define StringCchCatN		StringCchCatNA
#define StringCbCatN		StringCbCatNA
#define StringCchCatEx		StringCchCatExA
#define StringCchPrintf		StringCchPrintfA
#define StringCbPrintf		StringCbPrintfA
#define StringCchPrintfEx	StringCchPrintfExA
#define StringCbPrintfEx	StringCbPrintfExA
#define StringCchVPrintf	StringCchVPrintfA
#define StringCbVPrintf		StringCbVPrintfA
#define StringCchLength		StringCchLengthA
#define StringCbLength		StringCbLengthA
#endif

#endif /* _STRSAFE_H_INCLUDED_ */
