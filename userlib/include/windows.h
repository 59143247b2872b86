/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * windows.h - the small part of the Win32 base headers that ETW programs
 * need, for libetw on Linux.
 *
 * Types follow the Windows x64 data model (LLP64): ULONG and LONG are
 * 32 bits even though long is 64 bits here, pointers and HANDLE are 64 bits.
 * That is what makes the ETW structs built from them byte-identical to the
 * Windows SDK's, so buffers and files pass between the two unchanged.
 *
 * WCHAR is a 16-bit code unit (UTF-16).  Compiled with -fshort-wchar
 * (pkg-config --variable=wide_cflags libetw), wchar_t is 16 bits and WCHAR
 * is wchar_t, so L"..." works with every W function in C and C++, as on
 * Windows.  Without it wchar_t is 32 bits and cannot be WCHAR: WCHAR is
 * char16_t in C++11 and uint16_t in C (what C11's char16_t is), strings
 * are u"..." or TEXT("..."), and L"..." given to a W function is an
 * incompatible pointer for the C compiler and, in C++11, an error whose
 * message names the flag.  libetw itself is built without the flag: both
 * WCHARs have the same size and representation, so one library serves
 * either kind of caller (Documentation/libetw.rst, "Wide strings").
 *
 * Calling-convention and SAL annotation macros expand to nothing: x86-64
 * Linux has one calling convention and no annotation checker.
 */
#ifndef _WINDOWS_
#define _WINDOWS_

/*
 * SAL 1's __in and __out (below) are names libstdc++ gives parameters
 * and uses in function bodies.  So that they can be empty macros in C++
 * too, the C++ standard headers that use them are read first, before
 * anything here is defined: included again after <windows.h>, they are
 * already done.  Other libstdc++ headers using the names (<tr1/...>,
 * <ext/...>, <experimental/...>, the parallel mode) must come before
 * <windows.h>.  ETW_NO_SAL1, defined before the include, leaves out both
 * the standard headers and the two macros.
 */
#if defined(__cplusplus) && !defined(ETW_NO_SAL1)
/* extern "C++": code may include <windows.h> inside extern "C". */
extern "C++" {
#include <algorithm>
#include <istream>
#include <locale>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#if __cplusplus >= 201103L
#include <regex>
#include <thread>
#include <tuple>
#endif
}
#endif

/*
 * What the base headers of the Windows SDK and MinGW-w64 bring in, and
 * Windows code therefore uses without including: malloc and free,
 * memcpy, toupper, errno, the limits; <wchar.h> and <stdio.h> for the
 * wide-character functions declared in <etw_win32crt.h>.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
/*
 * On arm64 glibc's <signal.h> names structure fields __reserved, which
 * SAL 1 (below) makes an empty macro: read first, as the C++ headers are.
 * Linux's own headers (<linux/...>) use the name too: include them before.
 */
#include <signal.h>

#ifdef __cplusplus
#define EXTERN_C	extern "C"
#define EXTERN_C_START	extern "C" {
#define EXTERN_C_END	}
#else
#define EXTERN_C	extern
#define EXTERN_C_START
#define EXTERN_C_END
#endif

/* Calling conventions and linkage decorations: meaningless on x86-64 Linux. */
#define WINAPI
#define WINAPIV
#define APIENTRY
#define NTAPI
#define CALLBACK
#define EVNTAPI
#define WMIAPI
#define STDAPICALLTYPE
#define __stdcall
#define __cdecl
#define _cdecl
#define __fastcall
#define DECLSPEC_IMPORT
#define DECLSPEC_EXPORT
#define DECLSPEC_NOTHROW
#define DECLSPEC_ALIGN(x)	__attribute__((__aligned__(x)))
#define SYSTEM_CACHE_ALIGNMENT_SIZE	64
#define DECLSPEC_CACHEALIGN	DECLSPEC_ALIGN(SYSTEM_CACHE_ALIGNMENT_SIZE)
/*
 * DECLSPEC_SELECTANY (which guiddef.h writes after the type, as in
 * DEFINE_GUID) lets every translation unit that defines a GUID with
 * INITGUID emit it and the linker keep one copy; a weak symbol is the ELF
 * equivalent.  The __declspec(selectany) form is below.
 */
#define DECLSPEC_SELECTANY	__attribute__((__weak__))
/* static, so C99's rules for extern inline definitions never come up. */
#define FORCEINLINE		static __inline__
/*
 * mc.exe defines its helpers in the header as "DECLSPEC_NOINLINE __inline",
 * which MSVC's C compiles to one copy per program.  C99 makes a plain
 * inline definition emit no code at all, so a call that is not inlined
 * (never, with noinline) has nothing to link to.  In C the macro is
 * therefore static, one copy per unit, and without noinline, which gcc
 * rejects on an inline function; C++ inline already means one copy.
 */
#ifdef __cplusplus
#define DECLSPEC_NOINLINE	__attribute__((__noinline__))
#else
#define DECLSPEC_NOINLINE	static
#endif
#define DECLSPEC_NORETURN	__attribute__((__noreturn__))

/* x86-64 reads unaligned data directly: empty, as x86 Windows has them. */
#define UNALIGNED
#define UNALIGNED64
#define __unaligned

/* MSVC's sized integer keywords: "unsigned __int64" works as well. */
#define __int8			char
#define __int16			short
#define __int32			int
#define __int64			long long

/*
 * __declspec(x) becomes _ETW_DECLSPEC_x; a form without a definition
 * here fails to compile, naming it.
 */
#define __declspec(x)		_ETW_DECLSPEC_##x
#define _ETW_DECLSPEC_noinline	__attribute__((__noinline__))
#define _ETW_DECLSPEC_noreturn	__attribute__((__noreturn__))
#define _ETW_DECLSPEC_nothrow	__attribute__((__nothrow__))
#define _ETW_DECLSPEC_align(n)	__attribute__((__aligned__(n)))
#define _ETW_DECLSPEC_thread	__thread
#define _ETW_DECLSPEC_novtable
#define _ETW_DECLSPEC_dllexport	__attribute__((__visibility__("default")))
#define _ETW_DECLSPEC_dllimport
/*
 * __declspec(selectany), as mc.exe writes it first in a declaration
 * ("EXTERN_C __declspec(selectany) ULONG Bits[1];"): MSVC makes even the
 * declaration without an initialiser a definition, and keeps one of the
 * definitions all units emit.  EXTERN_C's extern would make it a mere
 * declaration here (and warn on an initialiser in C), so the specifier
 * ends that declaration on a dummy function of a unique name and starts
 * the real one without extern: a weak definition in C (linkage is
 * external, zero-filled without an initialiser), an inline variable in
 * C++17, which the linker likewise keeps once.  Earlier C++ has no such
 * definition of a const object, so it stops with a message.
 */
#define _ETW_SELECTANY_NAME(n)	_ETW_SELECTANY_NAME2(n)
#define _ETW_SELECTANY_NAME2(n)	_etw_selectany_##n
#if !defined(__cplusplus)
#define _ETW_DECLSPEC_selectany \
	void _ETW_SELECTANY_NAME(__COUNTER__)(void); __attribute__((__weak__))
#elif __cplusplus >= 201703L
#define _ETW_DECLSPEC_selectany \
	void _ETW_SELECTANY_NAME(__COUNTER__)(void); inline
#else
#define _ETW_DECLSPEC_selectany \
	_Pragma("GCC error \"__declspec(selectany) needs C++17 (-std=c++17)\"")
#endif
#define CONST			const
#define VOID			void

#ifndef NULL
#define NULL			((void *)0)
#endif

/*
 * The Windows version the API surface matches: Windows 10, whose ETW
 * functions (EventSetInformation and the rest) libetw provides.  Code
 * such as mc.exe's output picks the calls it makes by these.  The
 * releases are sdkddkver.h's; NTDDI_VERSION defaults to 22H2 (Nickel),
 * the Windows SDK's own default, since libetw declares what that SDK's
 * tdh.h and evntrace.h do (TdhEnumerateProvidersForDecodingSource,
 * which samples build under NTDDI_WIN10_MN, included).
 */
#define _WIN32_WINNT_WIN7	0x0601
#define _WIN32_WINNT_WIN8	0x0602
#define _WIN32_WINNT_WIN10	0x0A00
#define NTDDI_WIN7		0x06010000
#define NTDDI_WIN8		0x06020000
#define NTDDI_WIN10		0x0A000000
#define NTDDI_WIN10_TH2		0x0A000001
#define NTDDI_WIN10_RS1		0x0A000002
#define NTDDI_WIN10_RS2		0x0A000003
#define NTDDI_WIN10_RS3		0x0A000004
#define NTDDI_WIN10_RS4		0x0A000005
#define NTDDI_WIN10_RS5		0x0A000006
#define NTDDI_WIN10_19H1	0x0A000007
#define NTDDI_WIN10_VB		0x0A000008
#define NTDDI_WIN10_MN		0x0A000009
#define NTDDI_WIN10_FE		0x0A00000A
#define NTDDI_WIN10_CO		0x0A00000B
#define NTDDI_WIN10_NI		0x0A00000C
#ifndef WINVER
#define WINVER			_WIN32_WINNT_WIN10
#endif
#ifndef _WIN32_WINNT
#define _WIN32_WINNT		_WIN32_WINNT_WIN10
#endif
#ifndef NTDDI_VERSION
#define NTDDI_VERSION		NTDDI_WIN10_NI
#endif

#ifndef FALSE
#define FALSE			0
#endif
#ifndef TRUE
#define TRUE			1
#endif

#define ANYSIZE_ARRAY		1
#define MAX_PATH		260
#define INFINITE		0xFFFFFFFF

/* Nameless unions and structs: C11 and C++ have them; -std=c99 needs this. */
#ifdef __GNUC__
#define _ETW_NAMELESS		__extension__
#else
#define _ETW_NAMELESS
#endif
#define DUMMYUNIONNAME
#define DUMMYUNIONNAME2
#define DUMMYUNIONNAME3
#define DUMMYUNIONNAME4
#define DUMMYUNIONNAME5
#define DUMMYSTRUCTNAME
#define DUMMYSTRUCTNAME2
#define DUMMYSTRUCTNAME3
#define DUMMYSTRUCTNAME4

/* ------------------------------------------------------------------------ */
/* Base types (LLP64 sizes). */

typedef void		*PVOID, *LPVOID;
typedef const void	*LPCVOID, *PCVOID;
typedef char		CHAR, *PCHAR, *PSTR, *LPSTR;
typedef const char	*PCSTR, *LPCSTR, *PCCH, *LPCCH;
typedef unsigned char	UCHAR, *PUCHAR;
typedef unsigned char	BYTE, *PBYTE, *LPBYTE;
typedef unsigned char	BOOLEAN, *PBOOLEAN;
typedef int16_t		SHORT, *PSHORT;
typedef uint16_t	USHORT, *PUSHORT;
typedef uint16_t	WORD, *PWORD, *LPWORD;
typedef int		INT, *PINT, *LPINT;
typedef unsigned int	UINT, *PUINT;
typedef int		BOOL, *PBOOL, *LPBOOL;
typedef int32_t		LONG, *PLONG, *LPLONG;
typedef uint32_t	ULONG, *PULONG;
typedef uint32_t	DWORD, *PDWORD, *LPDWORD;
typedef int8_t		INT8, *PINT8;
typedef uint8_t		UINT8, *PUINT8;
typedef int16_t		INT16, *PINT16;
typedef uint16_t	UINT16, *PUINT16;
typedef int32_t		INT32, *PINT32;
typedef uint32_t	UINT32, *PUINT32;
typedef int32_t		LONG32, *PLONG32;
typedef uint32_t	ULONG32, *PULONG32;
typedef uint32_t	DWORD32, *PDWORD32;
typedef int64_t		INT64, *PINT64;
typedef uint64_t	UINT64, *PUINT64;
typedef int64_t		LONG64, *PLONG64;
typedef int64_t		LONGLONG, *PLONGLONG;
typedef uint64_t	ULONG64, *PULONG64;
typedef uint64_t	ULONGLONG, *PULONGLONG;
typedef uint64_t	DWORD64, *PDWORD64;
typedef uint64_t	DWORDLONG, *PDWORDLONG;
typedef intptr_t	INT_PTR, *PINT_PTR;
typedef uintptr_t	UINT_PTR, *PUINT_PTR;
typedef intptr_t	LONG_PTR, *PLONG_PTR;
typedef uintptr_t	ULONG_PTR, *PULONG_PTR;
typedef uintptr_t	DWORD_PTR, *PDWORD_PTR;
typedef size_t		SIZE_T, *PSIZE_T;
typedef intptr_t	SSIZE_T, *PSSIZE_T;
typedef void		*HANDLE, **PHANDLE, **LPHANDLE;
typedef LONG		NTSTATUS, *PNTSTATUS;
typedef LONG		HRESULT;
typedef float		FLOAT, *PFLOAT;
typedef double		DOUBLE;
typedef HANDLE		HMODULE, HINSTANCE, HLOCAL, HGLOBAL, HKEY, HWND;
typedef DWORD		LCID;
typedef WORD		LANGID;
typedef int		WINBOOL;

/*
 * _ETW_WIDE("...") is a literal of WCHARs: L"..." when wchar_t is 16 bits
 * (-fshort-wchar), otherwise u"...".
 */
#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ == 0xffff
typedef wchar_t		WCHAR;
#define _ETW_WIDE(s)	L ## s
#elif defined(__cplusplus) && __cplusplus >= 201103L
typedef char16_t	WCHAR;
#define _ETW_WIDE(s)	u ## s
#else
typedef uint16_t	WCHAR;
#define _ETW_WIDE(s)	u ## s
#endif
typedef WCHAR		*PWCHAR, *LPWCH, *PWCH, *PWSTR, *LPWSTR;
typedef const WCHAR	*LPCWCH, *PCWCH, *PCWSTR, *LPCWSTR;
/* libetw reads every WCHAR string as 16-bit units, whichever type it is. */
typedef char _etw_wchar_is_16_bits[sizeof(WCHAR) == 2 ? 1 : -1];

/*
 * With a 32-bit wchar_t, C++ rejects L"..." for a WCHAR string with a bare
 * type mismatch.  Each W function taking a string gets a template overload
 * (_ETW_WCHAR_T_GUARD, in the header declaring the function) that only an
 * L"..." argument selects, and whose instantiation says what to do.
 */
#if defined(__cplusplus) && __cplusplus >= 201103L && \
	!(defined(__WCHAR_MAX__) && __WCHAR_MAX__ == 0xffff)
/* extern "C++": code may include the headers inside extern "C". */
extern "C++" {
template <typename _Etw_T> struct _etw_short_wchar_needed {
	static const bool value = false;
};
}
#define _ETW_WCHAR_T_GUARD(name, params)				\
	extern "C++" template <typename _Etw_T = void>			\
	ULONG name params						\
	{								\
		static_assert(_etw_short_wchar_needed<_Etw_T>::value,	\
			"L\"...\" is 32-bit wchar_t without -fshort-wchar: "	\
			"compile with -fshort-wchar (pkg-config "	\
			"--variable=wide_cflags libetw) or write u\"...\"");	\
		return 0;						\
	}
#else
#define _ETW_WCHAR_T_GUARD(name, params)
#endif

typedef WCHAR		OLECHAR, *LPOLESTR;
typedef const WCHAR	*LPCOLESTR;
#define UNICODE_NULL	((WCHAR)0)
#define ANSI_NULL	((CHAR)0)

/* Windows' limits of its own types (LLP64: a ULONG is 32 bits). */
#define MAXUCHAR	0xff
#define MAXUSHORT	0xffff
#define MAXULONG	0xffffffffU
#define MAXLONG		0x7fffffff
#define MAXDWORD	0xffffffffU
#define MAXLONGLONG	((LONGLONG)0x7fffffffffffffffLL)
#define MAXULONGLONG	((ULONGLONG)~0ULL)
#define USHORT_MAX	0xffff
#define WORD_MAX	0xffff
#define DWORD_MAX	0xffffffffU
#define ULONGLONG_MAX	0xffffffffffffffffULL
#define ULONG64_MAX	0xffffffffffffffffULL
#define DWORD64_MAX	0xffffffffffffffffULL
#define LONG64_MAX	0x7fffffffffffffffLL

#ifdef UNICODE
typedef WCHAR		TCHAR, *PTCHAR;
typedef LPWSTR		LPTSTR, PTSTR;
typedef LPCWSTR		LPCTSTR, PCTSTR;
#define __TEXT(s)	_ETW_WIDE(s)
#else
typedef char		TCHAR, *PTCHAR;
typedef LPSTR		LPTSTR, PTSTR;
typedef LPCSTR		LPCTSTR, PCTSTR;
#define __TEXT(s)	s
#endif
#define TEXT(s)		__TEXT(s)

#define INVALID_HANDLE_VALUE	((HANDLE)(LONG_PTR)-1)

typedef union _LARGE_INTEGER {
	_ETW_NAMELESS struct {
		DWORD LowPart;
		LONG HighPart;
	} DUMMYSTRUCTNAME;
	struct {
		DWORD LowPart;
		LONG HighPart;
	} u;
	LONGLONG QuadPart;
} LARGE_INTEGER, *PLARGE_INTEGER;

typedef union _ULARGE_INTEGER {
	_ETW_NAMELESS struct {
		DWORD LowPart;
		DWORD HighPart;
	} DUMMYSTRUCTNAME;
	struct {
		DWORD LowPart;
		DWORD HighPart;
	} u;
	ULONGLONG QuadPart;
} ULARGE_INTEGER, *PULARGE_INTEGER;

/* 100-ns intervals since 1601-01-01 UTC, split in two 32-bit halves. */
typedef struct _FILETIME {
	DWORD dwLowDateTime;
	DWORD dwHighDateTime;
} FILETIME, *PFILETIME, *LPFILETIME;

typedef struct _SYSTEMTIME {
	WORD wYear;
	WORD wMonth;
	WORD wDayOfWeek;
	WORD wDay;
	WORD wHour;
	WORD wMinute;
	WORD wSecond;
	WORD wMilliseconds;
} SYSTEMTIME, *PSYSTEMTIME, *LPSYSTEMTIME;

/* 172 bytes; embedded in TRACE_LOGFILE_HEADER. */
typedef struct _TIME_ZONE_INFORMATION {
	LONG Bias;
	WCHAR StandardName[32];
	SYSTEMTIME StandardDate;
	LONG StandardBias;
	WCHAR DaylightName[32];
	SYSTEMTIME DaylightDate;
	LONG DaylightBias;
} TIME_ZONE_INFORMATION, *PTIME_ZONE_INFORMATION, *LPTIME_ZONE_INFORMATION;

/* Security identifiers (winnt.h), as ETW events carry them. */
typedef struct _SID_IDENTIFIER_AUTHORITY {
	BYTE Value[6];
} SID_IDENTIFIER_AUTHORITY, *PSID_IDENTIFIER_AUTHORITY;

typedef struct _SID {
	BYTE Revision;
	BYTE SubAuthorityCount;
	SID_IDENTIFIER_AUTHORITY IdentifierAuthority;
	DWORD SubAuthority[ANYSIZE_ARRAY];
} SID, *PISID;

typedef PVOID		PSID;
#define SID_REVISION			1
#define SID_MAX_SUB_AUTHORITIES		15
#define SECURITY_MAX_SID_SIZE		68

typedef enum _SID_NAME_USE {
	SidTypeUser = 1,
	SidTypeGroup,
	SidTypeDomain,
	SidTypeAlias,
	SidTypeWellKnownGroup,
	SidTypeDeletedAccount,
	SidTypeInvalid,
	SidTypeUnknown,
	SidTypeComputer,
	SidTypeLabel,
	SidTypeLogonSession
} SID_NAME_USE, *PSID_NAME_USE;

/* The SIDs CreateWellKnownSid builds (winnt.h's first values). */
typedef enum _WELL_KNOWN_SID_TYPE {
	WinNullSid = 0,
	WinWorldSid = 1,
	WinLocalSid = 2,
	WinCreatorOwnerSid = 3,
	WinCreatorGroupSid = 4,
	WinCreatorOwnerServerSid = 5,
	WinCreatorGroupServerSid = 6,
	WinNtAuthoritySid = 7,
	WinDialupSid = 8,
	WinNetworkSid = 9,
	WinBatchSid = 10,
	WinInteractiveSid = 11,
	WinServiceSid = 12,
	WinAnonymousSid = 13,
	WinProxySid = 14,
	WinEnterpriseControllersSid = 15,
	WinSelfSid = 16,
	WinAuthenticatedUserSid = 17,
	WinRestrictedCodeSid = 18,
	WinTerminalServerSid = 19,
	WinRemoteLogonIdSid = 20,
	WinLogonIdsSid = 21,
	WinLocalSystemSid = 22,
	WinLocalServiceSid = 23,
	WinNetworkServiceSid = 24,
	WinBuiltinDomainSid = 25,
	WinBuiltinAdministratorsSid = 26,
	WinBuiltinUsersSid = 27,
	WinBuiltinGuestsSid = 28
} WELL_KNOWN_SID_TYPE;

typedef struct _SID_AND_ATTRIBUTES {
	PSID Sid;
	DWORD Attributes;
} SID_AND_ATTRIBUTES, *PSID_AND_ATTRIBUTES;

typedef struct _TOKEN_USER {
	SID_AND_ATTRIBUTES User;
} TOKEN_USER, *PTOKEN_USER;

/* ------------------------------------------------------------------------ */
/* GUIDs: GUID, IsEqualGUID, DEFINE_GUID. */

#include <guiddef.h>

/* ------------------------------------------------------------------------ */
/* Helper macros. */

#define FIELD_OFFSET(type, field)	((LONG)offsetof(type, field))
#define RTL_FIELD_SIZE(type, field)	(sizeof(((type *)0)->field))
#define ZeroMemory(dst, len)		memset((dst), 0, (len))
#define RtlZeroMemory(dst, len)		memset((dst), 0, (len))
#define FillMemory(dst, len, fill)	memset((dst), (fill), (len))
#define RtlFillMemory(dst, len, fill)	memset((dst), (fill), (len))
#define CopyMemory(dst, src, len)	memcpy((dst), (src), (len))
#define RtlCopyMemory(dst, src, len)	memcpy((dst), (src), (len))
#define MoveMemory(dst, src, len)	memmove((dst), (src), (len))
#define RtlMoveMemory(dst, src, len)	memmove((dst), (src), (len))
#define RtlEqualMemory(a, b, len)	(memcmp((a), (b), (len)) == 0)
#define SecureZeroMemory(dst, len)	RtlSecureZeroMemory((dst), (len))
#define UNREFERENCED_PARAMETER(p)	((void)(p))
#define DBG_UNREFERENCED_PARAMETER(p)	((void)(p))
#define DBG_UNREFERENCED_LOCAL_VARIABLE(v)	((void)(v))
#define ARRAYSIZE(a)			(sizeof(a) / sizeof((a)[0]))
#define RTL_NUMBER_OF(a)		ARRAYSIZE(a)
#define _countof(a)			ARRAYSIZE(a)
/* A declaration, valid wherever one is, as MSVC's typedef is. */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define C_ASSERT(e)			static_assert(e, "C_ASSERT(" #e ")")
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && \
	__STDC_VERSION__ >= 201112L
#define C_ASSERT(e)			_Static_assert(e, "C_ASSERT(" #e ")")
#else
#define C_ASSERT(e) \
	typedef char _ETW_CASSERT_NAME(__LINE__)[(e) ? 1 : -1] \
		__attribute__((__unused__))
#endif
#define _ETW_CASSERT_NAME(l)		_ETW_CASSERT_NAME2(l)
#define _ETW_CASSERT_NAME2(l)		__C_ASSERT_##l
#define LOBYTE(w)	((BYTE)((DWORD_PTR)(w) & 0xff))
#define HIBYTE(w)	((BYTE)(((DWORD_PTR)(w) >> 8) & 0xff))
#define LOWORD(l)	((WORD)((DWORD_PTR)(l) & 0xffff))
#define HIWORD(l)	((WORD)(((DWORD_PTR)(l) >> 16) & 0xffff))
#define MAKEWORD(lo, hi) \
	((WORD)(LOBYTE(lo) | ((WORD)LOBYTE(hi) << 8)))
#define MAKELONG(lo, hi) \
	((LONG)(DWORD)(LOWORD(lo) | ((DWORD)LOWORD(hi) << 16)))

/* Zeroes through a volatile pointer, so the compiler cannot drop it. */
FORCEINLINE PVOID RtlSecureZeroMemory(PVOID ptr, SIZE_T cnt)
{
	volatile char *p = (volatile char *)ptr;

	while (cnt--)
		*p++ = 0;
	return ptr;
}

/* ------------------------------------------------------------------------ */
/* SAL annotations: documentation only. */

#define _In_
#define _In_opt_
#define _In_z_
#define _In_opt_z_
#define _In_reads_(n)
#define _In_reads_opt_(n)
#define _In_reads_bytes_(n)
#define _In_reads_bytes_opt_(n)
#define _In_range_(lo, hi)
#define _Out_
#define _Out_opt_
#define _Out_writes_(n)
#define _Out_writes_opt_(n)
#define _Out_writes_z_(n)
#define _Out_writes_bytes_(n)
#define _Out_writes_bytes_opt_(n)
#define _Out_writes_to_(n, c)
#define _Out_writes_bytes_to_(n, c)
#define _Out_writes_bytes_to_opt_(n, c)
#define _Out_writes_bytes_all_(n)
#define _Out_range_(lo, hi)
#define _Inout_
#define _Inout_opt_
#define _Inout_z_
#define _Inout_updates_(n)
#define _Inout_updates_opt_(n)
#define _Inout_updates_bytes_(n)
#define _Inout_updates_bytes_opt_(n)
#define _Outptr_
#define _Outptr_opt_
#define _Outptr_result_maybenull_
#define _Outptr_result_buffer_(n)
#define _Deref_out_range_(lo, hi)
#define _Ret_
#define _Ret_maybenull_
#define _Ret_notnull_
#define _Ret_range_(lo, hi)
#define _Success_(e)
#define _Check_return_
#define _Must_inspect_result_
#define _Use_decl_annotations_
#define _Field_size_(n)
#define _Field_size_opt_(n)
#define _Field_size_bytes_(n)
#define _Field_size_bytes_opt_(n)
#define _Field_size_full_(n)
#define _Field_range_(lo, hi)
#define _Field_z_
#define _Null_terminated_
#define _NullNull_terminated_
#define _Printf_format_string_
#define _Reserved_
#define _Pre_
#define _Post_
#define _Pre_notnull_
#define _Pre_maybenull_
#define _Post_invalid_
#define _Post_satisfies_(e)
#define _When_(c, a)
#define _Always_(a)
#define _Frees_ptr_
#define _Frees_ptr_opt_
#define _IRQL_requires_max_(l)
#define _Function_class_(n)
#define _Analysis_assume_(e)
/* SAL 1; in C++ __in and __out as the top of this header says. */
#if !defined(__cplusplus) || !defined(ETW_NO_SAL1)
#define __in
#define __out
#endif
#define __in_opt
#define __out_opt
#define __inout
#define __inout_opt
#define __in_ecount(n)
#define __in_bcount(n)
#define __in_bcount_opt(n)
#define __out_ecount(n)
#define __out_bcount(n)
#define __out_bcount_opt(n)
#define __deref_out
#define __deref_out_opt
#define __reserved
#define __in_z
#define __in_opt_z
#define __in_ecount_opt(n)
#define __out_ecount_opt(n)
#define __out_ecount_part(n, c)
#define __out_bcount_part(n, c)
#define __inout_ecount(n)
#define __inout_bcount(n)
#define __inout_ecount_opt(n)
#define __inout_bcount_opt(n)
#define __out_ecount_full(n)
#define __out_bcount_full(n)
#define __deref_opt_out
#define __checkReturn
/* sal.h's SAL 1 struct members (WppConsumer's context has one). */
#define __field_ecount(n)
#define __field_bcount(n)
#define __field_ecount_opt(n)
#define __field_bcount_opt(n)
#define __field_ecount_part(n, c)
#define __field_bcount_part(n, c)
#define __field_ecount_part_opt(n, c)
#define __field_bcount_part_opt(n, c)
#define __field_ecount_full(n)
#define __field_bcount_full(n)
#define __field_ecount_full_opt(n)
#define __field_bcount_full_opt(n)
#define __field_nullterminated
#define __struct_bcount(n)
/* Older (SAL 1) and less common SAL 2 forms that generated code uses. */
#define _In_bytecount_(n)
#define _In_opt_bytecount_(n)
#define _In_count_(n)
#define _In_opt_count_(n)
#define _In_reads_z_(n)
#define _In_reads_or_z_(n)
#define _Out_cap_(n)
#define _Out_bytecap_(n)
#define _Out_writes_all_(n)
#define _Out_writes_bytes_all_opt_(n)
#define _Out_writes_to_opt_(n, c)
#define _Inout_updates_z_(n)
#define _Inout_updates_to_(n, c)
#define _Inout_updates_bytes_to_(n, c)
#define _Outptr_opt_result_maybenull_
#define _Outptr_result_nullonfailure_
#define _Outptr_result_bytebuffer_(n)
#define _COM_Outptr_
#define _Pre_cap_(n)
#define _Pre_bytecap_(n)
#define _Pre_writable_size_(n)
#define _Pre_z_
#define _Post_z_
#define _Post_writable_byte_size_(n)
#define _Deref_out_
#define _Deref_out_opt_
#define _Ret_z_
#define _Ret_null_
#define _Ret_valid_
#define _Ret_writes_(n)
#define _Ret_writes_bytes_(n)
#define _Result_nullonfailure_
#define _Result_zeroonfailure_
#define _Return_type_success_(e)
#define _Maybenull_
#define _Notnull_
#define _Readable_bytes_(n)
#define _Writable_bytes_(n)
#define _Struct_size_bytes_(n)
#define _Printf_format_string_params_(n)
#define _Scanf_format_string_
#define _Strict_type_match_
#define _Literal_
#define _Points_to_data_
#define _Interlocked_operand_
#define _Guarded_by_(l)
#define _Acquires_lock_(l)
#define _Releases_lock_(l)
#define _Requires_lock_held_(l)
#define _Requires_lock_not_held_(l)
#define _IRQL_requires_(l)
#define _IRQL_requires_min_(l)
#define _IRQL_requires_same_
#define _IRQL_raises_(l)
#define _IRQL_saves_
#define _IRQL_restores_
#define _IRQL_always_function_max_(l)

/* ------------------------------------------------------------------------ */
/* Win32 error codes (winerror.h), as the ETW functions return them. */

#define NO_ERROR				0
#define ERROR_SUCCESS				0
#define ERROR_INVALID_FUNCTION			1
#define ERROR_FILE_NOT_FOUND			2
#define ERROR_PATH_NOT_FOUND			3
#define ERROR_ACCESS_DENIED			5
#define ERROR_INVALID_HANDLE			6
#define ERROR_NOT_ENOUGH_MEMORY			8
#define ERROR_INVALID_DATA			13
#define ERROR_OUTOFMEMORY			14
#define ERROR_BAD_LENGTH			24
#define ERROR_GEN_FAILURE			31
#define ERROR_HANDLE_EOF			38
#define ERROR_NOT_SUPPORTED			50
#define ERROR_FILE_EXISTS			80
#define ERROR_INVALID_PARAMETER			87
#define ERROR_BUFFER_OVERFLOW			111
#define ERROR_DISK_FULL				112
#define ERROR_INSUFFICIENT_BUFFER		122
#define ERROR_MOD_NOT_FOUND			126
#define ERROR_PROC_NOT_FOUND			127
#define ERROR_BAD_EXE_FORMAT			193
#define ERROR_BAD_PATHNAME			161
#define ERROR_BUSY				170
#define ERROR_ALREADY_EXISTS			183
#define ERROR_MORE_DATA				234
#define ERROR_NO_WORK_DONE			235
#define ERROR_NO_MORE_ITEMS			259
#define ERROR_MR_MID_NOT_FOUND			317
#define ERROR_ARITHMETIC_OVERFLOW		534
#define ERROR_NOACCESS				998
#define ERROR_INVALID_FLAGS			1004
#define ERROR_NOT_FOUND				1168
#define ERROR_CANCELLED				1223
#define ERROR_PRIVILEGE_NOT_HELD		1314
#define ERROR_NONE_MAPPED			1332
#define ERROR_INVALID_SID			1337
#define ERROR_FILE_CORRUPT			1392
#define ERROR_NO_SYSTEM_RESOURCES		1450
#define ERROR_TIMEOUT				1460
#define ERROR_XML_PARSE_ERROR			1465
#define ERROR_INVALID_TIME			1901
#define ERROR_ACTIVE_CONNECTIONS		2402
#define ERROR_WMI_GUID_NOT_FOUND		4200
#define ERROR_WMI_INSTANCE_NOT_FOUND		4201
#define ERROR_WMI_ITEMID_NOT_FOUND		4202
#define ERROR_WMI_TRY_AGAIN			4203
#define ERROR_WMI_DP_NOT_FOUND			4204
#define ERROR_WMI_UNRESOLVED_INSTANCE_REF	4205
#define ERROR_WMI_ALREADY_ENABLED		4206
#define ERROR_WMI_GUID_DISCONNECTED		4207
#define ERROR_WMI_SERVER_UNAVAILABLE		4208
#define ERROR_WMI_DP_FAILED			4209
#define ERROR_WMI_INVALID_MOF			4210
#define ERROR_WMI_INVALID_REGINFO		4211
#define ERROR_WMI_ALREADY_DISABLED		4212
#define ERROR_WMI_READ_ONLY			4213
#define ERROR_WMI_SET_FAILURE			4214
#define ERROR_RESOURCE_NOT_FOUND		5007
#define ERROR_CTX_CLOSE_PENDING			7007
#define ERROR_EVT_INVALID_EVENT_DATA		15005

/* ------------------------------------------------------------------------ */
/* HRESULTs (winerror.h): severity bit 31, facility bits 16-28, code. */

#define SEVERITY_SUCCESS	0
#define SEVERITY_ERROR		1
#define FACILITY_NULL		0
#define FACILITY_RPC		1
#define FACILITY_DISPATCH	2
#define FACILITY_STORAGE	3
#define FACILITY_ITF		4
#define FACILITY_WIN32		7
#define FACILITY_WINDOWS	8
#define FACILITY_NT_BIT		0x10000000

#define _HRESULT_TYPEDEF_(v)	((HRESULT)(v))
#define SUCCEEDED(hr)		(((HRESULT)(hr)) >= 0)
#define FAILED(hr)		(((HRESULT)(hr)) < 0)
#define IS_ERROR(s)		(((ULONG)(s) >> 31) == SEVERITY_ERROR)
#define HRESULT_CODE(hr)	((hr) & 0xFFFF)
#define HRESULT_FACILITY(hr)	(((hr) >> 16) & 0x1fff)
#define HRESULT_SEVERITY(hr)	(((ULONG)(hr) >> 31) & 0x1)
#define MAKE_HRESULT(sev, fac, code)					\
	((HRESULT)(((ULONG)(sev) << 31) | ((ULONG)(fac) << 16) |	\
		   ((ULONG)(code))))
/* 0 and negative values pass unchanged; codes go to FACILITY_WIN32. */
#define HRESULT_FROM_WIN32(x)						\
	((HRESULT)(x) <= 0 ? (HRESULT)(x) :				\
	 (HRESULT)(((ULONG)(x) & 0x0000FFFF) | (FACILITY_WIN32 << 16) |	\
		   0x80000000))
#define HRESULT_FROM_NT(x)	((HRESULT)((x) | FACILITY_NT_BIT))

#define S_OK			_HRESULT_TYPEDEF_(0x00000000L)
#define S_FALSE			_HRESULT_TYPEDEF_(0x00000001L)
#define E_NOTIMPL		_HRESULT_TYPEDEF_(0x80004001L)
#define E_NOINTERFACE		_HRESULT_TYPEDEF_(0x80004002L)
#define E_POINTER		_HRESULT_TYPEDEF_(0x80004003L)
#define E_ABORT			_HRESULT_TYPEDEF_(0x80004004L)
#define E_FAIL			_HRESULT_TYPEDEF_(0x80004005L)
#define E_UNEXPECTED		_HRESULT_TYPEDEF_(0x8000FFFFL)
#define E_PENDING		_HRESULT_TYPEDEF_(0x8000000AL)
#define E_BOUNDS		_HRESULT_TYPEDEF_(0x8000000BL)
#define E_ACCESSDENIED		_HRESULT_TYPEDEF_(0x80070005L)
#define E_HANDLE		_HRESULT_TYPEDEF_(0x80070006L)
#define E_OUTOFMEMORY		_HRESULT_TYPEDEF_(0x8007000EL)
#define E_INVALIDARG		_HRESULT_TYPEDEF_(0x80070057L)
#define E_NOT_SUFFICIENT_BUFFER	_HRESULT_TYPEDEF_(0x8007007AL)
#define E_NOT_SET		_HRESULT_TYPEDEF_(0x80070490L)
#define E_NOT_VALID_STATE	_HRESULT_TYPEDEF_(0x8007139FL)
#define CO_E_CLASSSTRING	_HRESULT_TYPEDEF_(0x800401F3L)

/* NTSTATUS values the ETW documentation says the Win32 functions return. */
#define STATUS_SUCCESS				((NTSTATUS)0x00000000L)
#define STATUS_LOG_FILE_FULL			((NTSTATUS)0xC0000188L)

/*
 * The calling thread's last error, as OpenTrace and GetTraceEnableFlags
 * report failures.  libetw keeps it per thread.
 */
EXTERN_C DWORD WINAPI GetLastError(void);
EXTERN_C VOID WINAPI SetLastError(DWORD dwErrCode);

/*
 * Byte order, which Windows' <windows.h> declares through <winsock.h>
 * (TDH consumers print TDH_OUTTYPE_PORT with ntohs): glibc's functions,
 * declared as <netinet/in.h> declares them, so that a unit may include
 * both in either order.  The parentheses keep glibc's macros of the same
 * names out.
 */
EXTERN_C uint32_t (ntohl)(uint32_t netlong)
	__THROW __attribute__((__const__));
EXTERN_C uint16_t (ntohs)(uint16_t netshort)
	__THROW __attribute__((__const__));
EXTERN_C uint32_t (htonl)(uint32_t hostlong)
	__THROW __attribute__((__const__));
EXTERN_C uint16_t (htons)(uint16_t hostshort)
	__THROW __attribute__((__const__));

/* ------------------------------------------------------------------------ */
/*
 * The Win32 functions around ETW code (libetw's etw_win32.c), as
 * Documentation/libetw.rst ("The Windows C runtime") describes them.
 */

EXTERN_C BOOL WINAPI FileTimeToSystemTime(const FILETIME *lpFileTime,
					  LPSYSTEMTIME lpSystemTime);
EXTERN_C BOOL WINAPI SystemTimeToFileTime(const SYSTEMTIME *lpSystemTime,
					  LPFILETIME lpFileTime);
EXTERN_C BOOL WINAPI SystemTimeToTzSpecificLocalTime(
	const TIME_ZONE_INFORMATION *lpTimeZoneInformation,
	const SYSTEMTIME *lpUniversalTime, LPSYSTEMTIME lpLocalTime);
EXTERN_C VOID WINAPI GetSystemTimeAsFileTime(LPFILETIME lpFileTime);
EXTERN_C VOID WINAPI GetSystemTime(LPSYSTEMTIME lpSystemTime);

EXTERN_C int WINAPI StringFromGUID2(REFGUID rguid, LPOLESTR lpsz,
				    int cchMax);
EXTERN_C HRESULT WINAPI CLSIDFromString(LPCOLESTR lpsz, LPCLSID pclsid);
EXTERN_C HRESULT WINAPI IIDFromString(LPCOLESTR lpsz, LPIID lpiid);

/*
 * COM's task allocator, whose memory StringFromCLSID returns and
 * CoTaskMemFree frees: malloc here, so NULL is a valid argument to free.
 */
EXTERN_C LPVOID WINAPI CoTaskMemAlloc(SIZE_T cb);
EXTERN_C LPVOID WINAPI CoTaskMemRealloc(LPVOID pv, SIZE_T cb);
EXTERN_C VOID WINAPI CoTaskMemFree(LPVOID pv);
/* The braced, upper-case form StringFromGUID2 writes, in task memory. */
EXTERN_C HRESULT WINAPI StringFromCLSID(REFCLSID rclsid, LPOLESTR *lplpsz);
EXTERN_C HRESULT WINAPI StringFromIID(REFIID rclsid, LPOLESTR *lplpsz);

#define LMEM_FIXED		0x0000
#define LMEM_ZEROINIT		0x0040
#define LPTR			LMEM_ZEROINIT
#define GMEM_FIXED		0x0000
#define GMEM_ZEROINIT		0x0040
#define GPTR			GMEM_ZEROINIT
EXTERN_C HLOCAL WINAPI LocalAlloc(UINT uFlags, SIZE_T uBytes);
EXTERN_C HLOCAL WINAPI LocalFree(HLOCAL hMem);
EXTERN_C HGLOBAL WINAPI GlobalAlloc(UINT uFlags, SIZE_T dwBytes);
EXTERN_C HGLOBAL WINAPI GlobalFree(HGLOBAL hMem);

EXTERN_C LPSTR WINAPI GetCommandLineA(void);
EXTERN_C LPWSTR WINAPI GetCommandLineW(void);

#define FORMAT_MESSAGE_ALLOCATE_BUFFER	0x00000100
#define FORMAT_MESSAGE_IGNORE_INSERTS	0x00000200
#define FORMAT_MESSAGE_FROM_STRING	0x00000400
#define FORMAT_MESSAGE_FROM_HMODULE	0x00000800
#define FORMAT_MESSAGE_FROM_SYSTEM	0x00001000
#define FORMAT_MESSAGE_ARGUMENT_ARRAY	0x00002000
#define FORMAT_MESSAGE_MAX_WIDTH_MASK	0x000000FF
#define LANG_NEUTRAL			0x00
#define LANG_ENGLISH			0x09
#define SUBLANG_NEUTRAL			0x00
#define SUBLANG_DEFAULT			0x01
#define MAKELANGID(p, s)		((((WORD)(s)) << 10) | (WORD)(p))
EXTERN_C DWORD WINAPI FormatMessageA(DWORD dwFlags, LPCVOID lpSource,
				     DWORD dwMessageId, DWORD dwLanguageId,
				     LPSTR lpBuffer, DWORD nSize,
				     va_list *Arguments);
EXTERN_C DWORD WINAPI FormatMessageW(DWORD dwFlags, LPCVOID lpSource,
				     DWORD dwMessageId, DWORD dwLanguageId,
				     LPWSTR lpBuffer, DWORD nSize,
				     va_list *Arguments);

#define CP_ACP			0
#define CP_OEMCP		1
#define CP_UTF8			65001
#define MB_ERR_INVALID_CHARS	0x00000008
EXTERN_C int WINAPI MultiByteToWideChar(UINT CodePage, DWORD dwFlags,
					LPCSTR lpMultiByteStr, int cbMultiByte,
					LPWSTR lpWideCharStr, int cchWideChar);
EXTERN_C int WINAPI WideCharToMultiByte(UINT CodePage, DWORD dwFlags,
					LPCWSTR lpWideCharStr, int cchWideChar,
					LPSTR lpMultiByteStr, int cbMultiByte,
					LPCSTR lpDefaultChar,
					LPBOOL lpUsedDefaultChar);

/*
 * Modules: the DLLs whose functions libetw has, tdh.dll and advapi32.dll,
 * are always loaded; GetProcAddress finds libetw's own functions in them.
 */
/* Unprototyped, as Windows has it: a cast makes it any function's type. */
#ifdef __cplusplus
typedef INT_PTR (WINAPI *FARPROC)();
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
typedef INT_PTR (WINAPI *FARPROC)();
#pragma GCC diagnostic pop
#endif
EXTERN_C HMODULE WINAPI LoadLibraryA(LPCSTR lpLibFileName);
EXTERN_C HMODULE WINAPI LoadLibraryW(LPCWSTR lpLibFileName);
/* NULL: the program, in which GetProcAddress finds nothing. */
EXTERN_C HMODULE WINAPI GetModuleHandleA(LPCSTR lpModuleName);
EXTERN_C HMODULE WINAPI GetModuleHandleW(LPCWSTR lpModuleName);
EXTERN_C FARPROC WINAPI GetProcAddress(HMODULE hModule, LPCSTR lpProcName);
EXTERN_C BOOL WINAPI FreeLibrary(HMODULE hLibModule);

/* The Windows version: that of the API libetw has, Windows 10. */
#define VER_PLATFORM_WIN32_NT	2
#define VER_NT_WORKSTATION	1
#define _ETW_VERSION_MAJOR	10
#define _ETW_VERSION_MINOR	0
#define _ETW_VERSION_BUILD	10240

typedef struct _OSVERSIONINFOA {
	DWORD dwOSVersionInfoSize;
	DWORD dwMajorVersion;
	DWORD dwMinorVersion;
	DWORD dwBuildNumber;
	DWORD dwPlatformId;
	CHAR szCSDVersion[128];
} OSVERSIONINFOA, *POSVERSIONINFOA, *LPOSVERSIONINFOA;

typedef struct _OSVERSIONINFOW {
	DWORD dwOSVersionInfoSize;
	DWORD dwMajorVersion;
	DWORD dwMinorVersion;
	DWORD dwBuildNumber;
	DWORD dwPlatformId;
	WCHAR szCSDVersion[128];
} OSVERSIONINFOW, *POSVERSIONINFOW, *LPOSVERSIONINFOW;

typedef struct _OSVERSIONINFOEXA {
	DWORD dwOSVersionInfoSize;
	DWORD dwMajorVersion;
	DWORD dwMinorVersion;
	DWORD dwBuildNumber;
	DWORD dwPlatformId;
	CHAR szCSDVersion[128];
	WORD wServicePackMajor;
	WORD wServicePackMinor;
	WORD wSuiteMask;
	BYTE wProductType;
	BYTE wReserved;
} OSVERSIONINFOEXA, *POSVERSIONINFOEXA, *LPOSVERSIONINFOEXA;

typedef struct _OSVERSIONINFOEXW {
	DWORD dwOSVersionInfoSize;
	DWORD dwMajorVersion;
	DWORD dwMinorVersion;
	DWORD dwBuildNumber;
	DWORD dwPlatformId;
	WCHAR szCSDVersion[128];
	WORD wServicePackMajor;
	WORD wServicePackMinor;
	WORD wSuiteMask;
	BYTE wProductType;
	BYTE wReserved;
} OSVERSIONINFOEXW, *POSVERSIONINFOEXW, *LPOSVERSIONINFOEXW;

/*
 * Fills what the size says is there (OSVERSIONINFO or OSVERSIONINFOEX);
 * another size is refused as Windows refuses it.  szCSDVersion (the
 * service pack) is empty.  A WCHAR and a CHAR 0 are both a zero fill.
 */
FORCEINLINE BOOL _etw_get_version(DWORD *info, DWORD base_size,
				  DWORD ex_size)
{
	if (!info || (info[0] != base_size && info[0] != ex_size)) {
		SetLastError(ERROR_INSUFFICIENT_BUFFER);
		return FALSE;
	}
	memset(info + 1, 0, info[0] - sizeof(DWORD));
	info[1] = _ETW_VERSION_MAJOR;
	info[2] = _ETW_VERSION_MINOR;
	info[3] = _ETW_VERSION_BUILD;
	info[4] = VER_PLATFORM_WIN32_NT;
	return TRUE;
}

FORCEINLINE BOOL GetVersionExA(LPOSVERSIONINFOA lpVersionInformation)
{
	BOOL ok = _etw_get_version((DWORD *)lpVersionInformation,
				   sizeof(OSVERSIONINFOA),
				   sizeof(OSVERSIONINFOEXA));

	if (ok && lpVersionInformation->dwOSVersionInfoSize ==
	    sizeof(OSVERSIONINFOEXA))
		((LPOSVERSIONINFOEXA)lpVersionInformation)->wProductType =
			VER_NT_WORKSTATION;
	return ok;
}

FORCEINLINE BOOL GetVersionExW(LPOSVERSIONINFOW lpVersionInformation)
{
	BOOL ok = _etw_get_version((DWORD *)lpVersionInformation,
				   sizeof(OSVERSIONINFOW),
				   sizeof(OSVERSIONINFOEXW));

	if (ok && lpVersionInformation->dwOSVersionInfoSize ==
	    sizeof(OSVERSIONINFOEXW))
		((LPOSVERSIONINFOEXW)lpVersionInformation)->wProductType =
			VER_NT_WORKSTATION;
	return ok;
}

/*
 * The SIDs of no domain (libetw's etw_win32_sid.c); the others, which
 * name a domain or a logon session, give ERROR_INVALID_PARAMETER.
 */
EXTERN_C BOOL WINAPI CreateWellKnownSid(WELL_KNOWN_SID_TYPE WellKnownSidType,
					PSID DomainSid, PSID pSid,
					DWORD *cbSid);
EXTERN_C BOOL WINAPI IsValidSid(PSID pSid);
EXTERN_C DWORD WINAPI GetLengthSid(PSID pSid);
EXTERN_C BOOL WINAPI EqualSid(PSID pSid1, PSID pSid2);

/*
 * The account a SID names: none here, since Linux has no Windows accounts
 * (libetw's etw_win32_sid.c).
 */
EXTERN_C BOOL WINAPI LookupAccountSidA(LPCSTR lpSystemName, PSID Sid,
				       LPSTR Name, LPDWORD cchName,
				       LPSTR ReferencedDomainName,
				       LPDWORD cchReferencedDomainName,
				       PSID_NAME_USE peUse);
EXTERN_C BOOL WINAPI LookupAccountSidW(LPCWSTR lpSystemName, PSID Sid,
				       LPWSTR Name, LPDWORD cchName,
				       LPWSTR ReferencedDomainName,
				       LPDWORD cchReferencedDomainName,
				       PSID_NAME_USE peUse);

#ifdef UNICODE
#define FormatMessage		FormatMessageW
#define LookupAccountSid	LookupAccountSidW
#define GetCommandLine		GetCommandLineW
#define LoadLibrary		LoadLibraryW
#define GetModuleHandle		GetModuleHandleW
#define GetVersionEx		GetVersionExW
typedef OSVERSIONINFOW		OSVERSIONINFO, *POSVERSIONINFO, *LPOSVERSIONINFO;
typedef OSVERSIONINFOEXW	OSVERSIONINFOEX, *POSVERSIONINFOEX,
				*LPOSVERSIONINFOEX;
#else
#define FormatMessage		FormatMessageA
#define LookupAccountSid	LookupAccountSidA
#define GetCommandLine		GetCommandLineA
#define LoadLibrary		LoadLibraryA
#define GetModuleHandle		GetModuleHandleA
#define GetVersionEx		GetVersionExA
typedef OSVERSIONINFOA		OSVERSIONINFO, *POSVERSIONINFO, *LPOSVERSIONINFO;
typedef OSVERSIONINFOEXA	OSVERSIONINFOEX, *POSVERSIONINFOEX,
				*LPOSVERSIONINFOEX;
#endif

/* MSVC's C runtime on WCHAR strings (wprintf, wcscpy_s, ...). */
#include <etw_crt.h>

/* GetDateFormat and GetTimeFormat, which Windows' <windows.h> declares too. */
#include <winnls.h>

#endif /* _WINDOWS_ */
