/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * guiddef.h - GUID, its comparisons and DEFINE_GUID, as in the Windows SDK.
 *
 * As there, DEFINE_GUID is redefined by every inclusion, after the guard
 * of the rest: it defines the GUIDs of the headers included after it when
 * INITGUID is defined at that inclusion, and only declares them
 * otherwise.  So "#include <windows.h>, #define INITGUID, #include
 * <evntrace.h>" and <initguid.h> (which defines INITGUID and includes
 * this header) define the GUIDs of the headers that follow, as on Windows
 * and MinGW: each libetw header that defines GUIDs includes this one
 * first.  The definition is weak (see DECLSPEC_SELECTANY in
 * <windows.h>), so several INITGUID units may coexist.
 */
#ifndef _GUIDDEF_H_
#define _GUIDDEF_H_

#include <stdint.h>
#include <string.h>

#ifndef GUID_DEFINED
#define GUID_DEFINED
typedef struct _GUID {
	uint32_t Data1;
	uint16_t Data2;
	uint16_t Data3;
	uint8_t Data4[8];
} GUID;
#endif

typedef GUID		*LPGUID, *PGUID;
typedef const GUID	*LPCGUID, *PCGUID;
typedef GUID		IID, CLSID, *LPIID, *LPCLSID;

#ifdef __cplusplus
#define REFGUID		const GUID &
#define REFIID		const IID &
#define REFCLSID	const IID &
#else
#define REFGUID		const GUID *
#define REFIID		const IID *
#define REFCLSID	const IID *
#endif

#ifdef __cplusplus
/* extern "C++": overloads, and code may include this inside extern "C". */
extern "C++" {
__inline__ int InlineIsEqualGUID(REFGUID a, REFGUID b)
{
	return memcmp(&a, &b, sizeof(GUID)) == 0;
}

__inline__ int IsEqualGUID(REFGUID a, REFGUID b)
{
	return memcmp(&a, &b, sizeof(GUID)) == 0;
}

__inline__ bool operator==(REFGUID a, REFGUID b)
{
	return IsEqualGUID(a, b) != 0;
}

__inline__ bool operator!=(REFGUID a, REFGUID b)
{
	return !(a == b);
}
}
#else
#define InlineIsEqualGUID(a, b)	(memcmp((a), (b), sizeof(GUID)) == 0)
#define IsEqualGUID(a, b)	(memcmp((a), (b), sizeof(GUID)) == 0)
#endif
#define IsEqualIID(a, b)	IsEqualGUID(a, b)
#define IsEqualCLSID(a, b)	IsEqualGUID(a, b)

/* C warns on "extern" with an initialiser; C++ needs extern "C" for it. */
#ifdef __cplusplus
#define _ETW_GUID_LINKAGE	extern "C"
#define _ETW_GUID_EXTERN	extern "C"
#else
#define _ETW_GUID_LINKAGE
#define _ETW_GUID_EXTERN	extern
#endif

#endif /* _GUIDDEF_H_ */

/* Outside the guard: INITGUID is read again at every inclusion. */
#undef DEFINE_GUID
#ifdef INITGUID
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8)	\
	_ETW_GUID_LINKAGE const GUID __attribute__((__weak__)) name =	\
		{ l, w1, w2, { b1, b2, b3, b4, b5, b6, b7, b8 } }
#else
#define DEFINE_GUID(name, l, w1, w2, b1, b2, b3, b4, b5, b6, b7, b8)	\
	_ETW_GUID_EXTERN const GUID name
#endif
