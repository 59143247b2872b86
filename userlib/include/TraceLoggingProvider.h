/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * TraceLoggingProvider.h - self-describing (TraceLogging) events with the
 * Windows SDK's macros: a provider named by TRACELOGGING_DEFINE_PROVIDER,
 * events written by TraceLoggingWrite with typed, named fields.
 *
 * Built on EventRegister / EventSetInformation / EventWriteTransfer.  The
 * metadata is what Windows' macros produce, byte for byte (see
 * Documentation/libetw.rst and userlib/tests/tracelogging_etl_test.c):
 *
 *   provider traits: UINT16 size, the NUL-terminated name, then traits
 *	(UINT16 size, UINT8 type, data; type 1 = provider group GUID);
 *   event metadata: UINT16 size, the event tags (7 bits a byte, high bits
 *	first, bit 7 = another byte follows), the NUL-terminated event name,
 *	then per field: name, InType (bit 7: an OutType byte follows),
 *	OutType (bit 7: field tags follow), the tags, a UINT16 count for
 *	fixed-count arrays.
 *
 * Each TraceLoggingWrite keeps its metadata in a static const object built
 * at compile time and checks the provider's enable state (kept by the
 * enable callback that TraceLoggingRegister installs) before it evaluates
 * any argument: a disabled write loads the handle and one word.
 *
 * Differences from the SDK: WCHAR strings are UTF-16 (WChar, WideString
 * take WCHAR, not the 32-bit wchar_t); the name of an unnamed field of a
 * macro with several value arguments is the first one after macro
 * expansion; C needs GCC or Clang (the metadata of tags uses
 * __builtin_choose_expr), C++ needs C++11.
 */
#ifndef _TRACELOGGINGPROVIDER_H_
#define _TRACELOGGINGPROVIDER_H_

#include <windows.h>
#include <evntprov.h>
#include <winmeta.h>

/* InTypes: how a field's value is stored. */
#define TlgInNULL		0
#define TlgInUNICODESTRING	1
#define TlgInANSISTRING		2
#define TlgInINT8		3
#define TlgInUINT8		4
#define TlgInINT16		5
#define TlgInUINT16		6
#define TlgInINT32		7
#define TlgInUINT32		8
#define TlgInINT64		9
#define TlgInUINT64		10
#define TlgInFLOAT		11
#define TlgInDOUBLE		12
#define TlgInBOOL32		13
#define TlgInBINARY		14
#define TlgInGUID		15
#define TlgInFILETIME		17
#define TlgInSYSTEMTIME		18
#define TlgInSID		19
#define TlgInHEXINT32		20
#define TlgInHEXINT64		21
#define TlgInCOUNTEDSTRING	22
#define TlgInCOUNTEDANSISTRING	23
#define TlgInSTRUCT		24
#define TlgInCOUNTEDBINARY	25
#define TlgInMax		26
/* The pointer-sized ones, for a 64-bit process. */
#define TlgInINTPTR		TlgInINT64
#define TlgInUINTPTR		TlgInUINT64
#define TlgInPOINTER		TlgInHEXINT64
#define TlgInHEXINTPTR		TlgInHEXINT64
#define TlgInLONG		TlgInINT32
#define TlgInULONG		TlgInUINT32
#define TlgInHEXLONG		TlgInHEXINT32

/* OutTypes: how a consumer should show the value. */
#define TlgOutNULL			0
#define TlgOutNOPRINT			1
#define TlgOutSTRING			2
#define TlgOutBOOLEAN			3
#define TlgOutHEX			4
#define TlgOutPID			5
#define TlgOutTID			6
#define TlgOutPORT			7
#define TlgOutIPV4			8
#define TlgOutIPV6			9
#define TlgOutSOCKETADDRESS		10
#define TlgOutXML			11
#define TlgOutJSON			12
#define TlgOutWIN32ERROR		13
#define TlgOutNTSTATUS			14
#define TlgOutHRESULT			15
#define TlgOutFILETIME			16
#define TlgOutSIGNED			17
#define TlgOutUNSIGNED			18
#define TlgOutDATETIME_CULTURE_INSENSITIVE 33
#define TlgOutUTF8			35
#define TlgOutPKCS7_WITH_TYPE_INFO	36
#define TlgOutCODE_POINTER		37
#define TlgOutDATETIME_UTC		38

/* Bits of the InType and OutType bytes. */
#define ETW_TLG_IN_CCOUNT	0x20	/* fixed count, UINT16 in metadata */
#define ETW_TLG_IN_VCOUNT	0x40	/* variable count, UINT16 in data */
#define ETW_TLG_CHAIN		0x80
/*
 * The SDK's public name of the variable-count bit.  The SDK has no field
 * macro for arrays of strings: its packed macros write them, e.g.
 * TraceLoggingPackedField(buf, cb, TlgInANSISTRING | TlgInVcount, name)
 * with buf the UINT16 count, then each string with its NUL.
 */
#define TlgInVcount		ETW_TLG_IN_VCOUNT
/* Event and field tags are 28 bits. */
#define ETW_TLG_TAGS_MASK	0x0fffffffu

/*
 * The provider API the macros call.  A program may define these before
 * including the header to route them elsewhere (the host tests capture
 * the descriptors this way); they default to libetw's functions.
 */
#ifndef ETW_TLG_EVENT_REGISTER
#define ETW_TLG_EVENT_REGISTER EventRegister
#endif
#ifndef ETW_TLG_EVENT_UNREGISTER
#define ETW_TLG_EVENT_UNREGISTER EventUnregister
#endif
#ifndef ETW_TLG_EVENT_SET_INFORMATION
#define ETW_TLG_EVENT_SET_INFORMATION EventSetInformation
#endif
#ifndef ETW_TLG_EVENT_WRITE_TRANSFER
#define ETW_TLG_EVENT_WRITE_TRANSFER EventWriteTransfer
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A provider: its enable state first (what every write loads), kept by
 * etw_tlg_enable_callback().  LevelPlus1 is 0 while disabled, else the
 * enabled level + 1 (256 for level 0, which enables every level).
 */
struct etw_tlg_provider {
	ULONG LevelPlus1;
	ULONG Reserved;
	ULONGLONG KeywordAny;
	ULONGLONG KeywordAll;
	REGHANDLE RegHandle;
	PENABLECALLBACK EnableCallback;
	PVOID CallbackContext;
	const UINT8 *Traits;
	GUID ProviderId;
};

typedef const struct etw_tlg_provider *TraceLoggingHProvider;

/* Fields of pointer type. */
typedef const void *ETW_TLG_PTR;

/* The Win32 error as an HRESULT (HRESULT_FROM_WIN32). */
FORCEINLINE HRESULT etw_tlg_hresult(ULONG err)
{
	return err ? (HRESULT)((err & 0xffff) | 0x80070000u) : 0;
}

FORCEINLINE struct etw_tlg_provider *etw_tlg_mut(TraceLoggingHProvider h)
{
	return (struct etw_tlg_provider *)h;
}

/**
 * TraceLoggingProviderEnabled() - would an event of this level and
 *	keyword reach a session?
 * @hProvider: the provider
 * @eventLevel: the event's level
 * @eventKeyword: the event's keywords (0 matches any enable)
 *
 * The level and keyword rules of EventEnabled, over the state the enable
 * callback last recorded; FALSE for an unregistered provider.
 *
 * Context: any thread; lock-free.
 * Return: TRUE if enabled.
 */
FORCEINLINE BOOLEAN TraceLoggingProviderEnabled(TraceLoggingHProvider hProvider,
		UCHAR eventLevel, ULONGLONG eventKeyword)
{
	ULONG level_plus1 = __atomic_load_n(&hProvider->LevelPlus1,
					    __ATOMIC_ACQUIRE);
	ULONGLONG all;

	if (eventLevel >= level_plus1)
		return FALSE;
	if (!eventKeyword)
		return TRUE;
	all = __atomic_load_n(&hProvider->KeywordAll, __ATOMIC_RELAXED);
	return (eventKeyword &
		__atomic_load_n(&hProvider->KeywordAny, __ATOMIC_RELAXED)) &&
	       (eventKeyword & all) == all;
}

/**
 * TraceLoggingProviderId() - the provider's GUID
 * @hProvider: the provider
 *
 * Context: any thread.
 * Return: the GUID TRACELOGGING_DEFINE_PROVIDER gave it.
 */
FORCEINLINE const GUID *TraceLoggingProviderId(TraceLoggingHProvider hProvider)
{
	return &hProvider->ProviderId;
}

/*
 * What EventRegister calls: record the enable state as the SDK does
 * (level 0 enables every level; a capture-state request changes
 * nothing), then call the provider's own callback.
 */
FORCEINLINE VOID NTAPI etw_tlg_enable_callback(LPCGUID SourceId,
		ULONG IsEnabled, UCHAR Level, ULONGLONG MatchAnyKeyword,
		ULONGLONG MatchAllKeyword, PEVENT_FILTER_DESCRIPTOR FilterData,
		PVOID CallbackContext)
{
	struct etw_tlg_provider *p = (struct etw_tlg_provider *)CallbackContext;

	/* EVENT_CONTROL_CODE_DISABLE_PROVIDER, _ENABLE_PROVIDER */
	if (IsEnabled == 0) {
		__atomic_store_n(&p->LevelPlus1, 0, __ATOMIC_RELEASE);
	} else if (IsEnabled == 1) {
		__atomic_store_n(&p->KeywordAny, MatchAnyKeyword,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&p->KeywordAll, MatchAllKeyword,
				 __ATOMIC_RELAXED);
		/* Pairs with the acquire in TraceLoggingProviderEnabled(). */
		__atomic_store_n(&p->LevelPlus1, Level ? Level + 1u : 256u,
				 __ATOMIC_RELEASE);
	}
	if (p->EnableCallback)
		p->EnableCallback(SourceId, IsEnabled, Level, MatchAnyKeyword,
				  MatchAllKeyword, FilterData,
				  p->CallbackContext);
}

FORCEINLINE USHORT etw_tlg_le16(const UINT8 *p)
{
	return (USHORT)(p[0] | p[1] << 8);
}

/**
 * TraceLoggingRegisterEx() - register a provider, with an enable callback
 * @hProvider: the provider, not registered
 * @pEnableCallback: called after the provider's enable state changed, or
 *	NULL
 * @pCallbackContext: passed to @pEnableCallback
 *
 * Registers the provider's GUID and sets its traits (the name, the
 * group), which also makes the writes' metadata descriptors reach
 * sessions as extended items.
 *
 * Context: not from an enable callback of this provider.
 * Return: S_OK; HRESULT_FROM_WIN32 of EventRegister's or
 * EventSetInformation's error; HRESULT_FROM_WIN32(ERROR_INVALID_PARAMETER)
 * for a provider already registered.
 */
FORCEINLINE HRESULT TraceLoggingRegisterEx(TraceLoggingHProvider hProvider,
		PENABLECALLBACK pEnableCallback, PVOID pCallbackContext)
{
	struct etw_tlg_provider *p = etw_tlg_mut(hProvider);
	REGHANDLE reg = 0;
	ULONG err;

	if (__atomic_load_n(&p->RegHandle, __ATOMIC_RELAXED))
		return etw_tlg_hresult(87);	/* ERROR_INVALID_PARAMETER */
	p->EnableCallback = pEnableCallback;
	p->CallbackContext = pCallbackContext;
	err = ETW_TLG_EVENT_REGISTER(&p->ProviderId, etw_tlg_enable_callback, p,
				     &reg);
	if (err)
		return etw_tlg_hresult(err);
	/* Writers on other threads read it once the callback enabled. */
	__atomic_store_n(&p->RegHandle, reg, __ATOMIC_RELAXED);
	err = ETW_TLG_EVENT_SET_INFORMATION(reg, EventProviderSetTraits,
			(PVOID)p->Traits, etw_tlg_le16(p->Traits));
	if (err) {
		ETW_TLG_EVENT_UNREGISTER(reg);
		__atomic_store_n(&p->RegHandle, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&p->LevelPlus1, 0, __ATOMIC_RELEASE);
	}
	return etw_tlg_hresult(err);
}

/**
 * TraceLoggingRegister() - register a provider
 * @hProvider: the provider, not registered
 *
 * Context: as TraceLoggingRegisterEx().
 * Return: as TraceLoggingRegisterEx().
 */
FORCEINLINE HRESULT TraceLoggingRegister(TraceLoggingHProvider hProvider)
{
	return TraceLoggingRegisterEx(hProvider, NULL, NULL);
}

/**
 * TraceLoggingUnregister() - unregister a provider
 * @hProvider: the provider; nothing happens if it is not registered
 *
 * When it returns no enable callback of the provider runs, and writes
 * through it are no-ops until it is registered again.
 *
 * Context: not from an enable callback of this provider.
 */
FORCEINLINE void TraceLoggingUnregister(TraceLoggingHProvider hProvider)
{
	struct etw_tlg_provider *p = etw_tlg_mut(hProvider);
	REGHANDLE reg = __atomic_load_n(&p->RegHandle, __ATOMIC_RELAXED);

	__atomic_store_n(&p->LevelPlus1, 0, __ATOMIC_RELEASE);
	if (!reg)
		return;
	ETW_TLG_EVENT_UNREGISTER(reg);
	__atomic_store_n(&p->RegHandle, 0, __ATOMIC_RELAXED);
	/* A callback that ran during the unregistration may have set it. */
	__atomic_store_n(&p->LevelPlus1, 0, __ATOMIC_RELEASE);
}

/**
 * TraceLoggingSetInformation() - EventSetInformation on the provider
 * @hProvider: a registered provider
 * @InformationClass: the EVENT_INFO_CLASS
 * @pvInformation: the class's data
 * @cbInformation: its size
 *
 * Context: any thread.
 * Return: S_OK or HRESULT_FROM_WIN32 of EventSetInformation's error.
 */
FORCEINLINE HRESULT TraceLoggingSetInformation(TraceLoggingHProvider hProvider,
		EVENT_INFO_CLASS InformationClass, PVOID pvInformation,
		ULONG cbInformation)
{
	return etw_tlg_hresult(ETW_TLG_EVENT_SET_INFORMATION(
			__atomic_load_n(&hProvider->RegHandle,
					__ATOMIC_RELAXED),
			InformationClass, pvInformation, cbInformation));
}

FORCEINLINE void etw_tlg_desc(EVENT_DATA_DESCRIPTOR *d, const void *p,
			      ULONG size, ULONG type)
{
	d->Ptr = (ULONGLONG)(ULONG_PTR)p;
	d->Size = size;
	d->Reserved = type;
}

/* NULL is written as the empty string, as on Windows. */
FORCEINLINE void etw_tlg_desc_str(EVENT_DATA_DESCRIPTOR *d, const char *s)
{
	if (!s)
		s = "";
	etw_tlg_desc(d, s, (ULONG)strlen(s) + 1, 0);
}

FORCEINLINE void etw_tlg_desc_wstr(EVENT_DATA_DESCRIPTOR *d, const WCHAR *s)
{
	static const WCHAR empty[1] = { 0 };
	ULONG n = 0;

	if (!s)
		s = empty;
	while (s[n])
		n++;
	etw_tlg_desc(d, s, (n + 1) * (ULONG)sizeof(WCHAR), 0);
}

/* A SID is 8 bytes and 4 per sub-authority (its second byte). */
FORCEINLINE void etw_tlg_desc_sid(EVENT_DATA_DESCRIPTOR *d, const void *sid)
{
	etw_tlg_desc(d, sid, 8 + 4 * (ULONG)((const UINT8 *)sid)[1], 0);
}

/*
 * The write of an enabled event: the provider's traits and the event's
 * metadata go first, as the descriptor types that become its extended
 * items.  TraceLogging events have id, version and task 0.
 */
FORCEINLINE void etw_tlg_write(TraceLoggingHProvider h, const void *meta,
		ULONG meta_size, UCHAR level, UCHAR opcode, UCHAR channel,
		ULONGLONG keyword, LPCGUID activity, LPCGUID related,
		ULONG count, EVENT_DATA_DESCRIPTOR *data)
{
	EVENT_DESCRIPTOR desc;

	EventDescCreate(&desc, 0, 0, channel, level, 0, opcode, keyword);
	etw_tlg_desc(&data[0], h->Traits, etw_tlg_le16(h->Traits),
		     EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA);
	etw_tlg_desc(&data[1], meta, meta_size,
		     EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA);
	ETW_TLG_EVENT_WRITE_TRANSFER(__atomic_load_n(&h->RegHandle,
						     __ATOMIC_RELAXED),
				     &desc, activity, related, count, data);
}

#ifdef __cplusplus
}
#endif

/* --- compile-time byte strings --------------------------------------- */

/*
 * Tags take 1 to 4 bytes and decide whether an OutType byte is there, so
 * a field's InType/OutType/tags run is 1 to 6 bytes long depending on
 * constant values.  ETW_TLG_BT(L) is a type of L bytes and
 * ETW_TLG_BI(L, b0, ..., b5) its initialiser from the first L bytes.
 */
#ifdef __cplusplus
template <int L> struct etw_tlg_b;
template <> struct etw_tlg_b<1> {
	UINT8 b[1];
	constexpr etw_tlg_b(UINT8 b0, UINT8, UINT8, UINT8, UINT8, UINT8)
		: b{ b0 } {}
};
template <> struct etw_tlg_b<2> {
	UINT8 b[2];
	constexpr etw_tlg_b(UINT8 b0, UINT8 b1, UINT8, UINT8, UINT8, UINT8)
		: b{ b0, b1 } {}
};
template <> struct etw_tlg_b<3> {
	UINT8 b[3];
	constexpr etw_tlg_b(UINT8 b0, UINT8 b1, UINT8 b2, UINT8, UINT8, UINT8)
		: b{ b0, b1, b2 } {}
};
template <> struct etw_tlg_b<4> {
	UINT8 b[4];
	constexpr etw_tlg_b(UINT8 b0, UINT8 b1, UINT8 b2, UINT8 b3, UINT8,
			    UINT8)
		: b{ b0, b1, b2, b3 } {}
};
template <> struct etw_tlg_b<5> {
	UINT8 b[5];
	constexpr etw_tlg_b(UINT8 b0, UINT8 b1, UINT8 b2, UINT8 b3, UINT8 b4,
			    UINT8)
		: b{ b0, b1, b2, b3, b4 } {}
};
template <> struct etw_tlg_b<6> {
	UINT8 b[6];
	constexpr etw_tlg_b(UINT8 b0, UINT8 b1, UINT8 b2, UINT8 b3, UINT8 b4,
			    UINT8 b5)
		: b{ b0, b1, b2, b3, b4, b5 } {}
};
#define ETW_TLG_BT(L) etw_tlg_b<(L)>
#define ETW_TLG_BI(L, b0, b1, b2, b3, b4, b5) \
	{ (UINT8)(b0), (UINT8)(b1), (UINT8)(b2), (UINT8)(b3), (UINT8)(b4), \
	  (UINT8)(b5) }
#define ETW_TLG_AUTO(name, value) auto name = (value)
#define ETW_TLG_EXTERN_CONST extern const
#define ETW_TLG_PEDANTIC_OFF
#define ETW_TLG_PEDANTIC_ON
#else
struct etw_tlg_b1 { UINT8 b[1]; };
struct etw_tlg_b2 { UINT8 b[2]; };
struct etw_tlg_b3 { UINT8 b[3]; };
struct etw_tlg_b4 { UINT8 b[4]; };
struct etw_tlg_b5 { UINT8 b[5]; };
struct etw_tlg_b6 { UINT8 b[6]; };
#define ETW_TLG_BI(L, b0, b1, b2, b3, b4, b5) \
	__extension__ ETW_TLG_BI_(L, b0, b1, b2, b3, b4, b5)
#define ETW_TLG_BI_(L, b0, b1, b2, b3, b4, b5) \
	__builtin_choose_expr((L) == 1, \
		(struct etw_tlg_b1){ { (UINT8)(b0) } }, \
	__builtin_choose_expr((L) == 2, \
		(struct etw_tlg_b2){ { (UINT8)(b0), (UINT8)(b1) } }, \
	__builtin_choose_expr((L) == 3, \
		(struct etw_tlg_b3){ { (UINT8)(b0), (UINT8)(b1), \
				       (UINT8)(b2) } }, \
	__builtin_choose_expr((L) == 4, \
		(struct etw_tlg_b4){ { (UINT8)(b0), (UINT8)(b1), \
				       (UINT8)(b2), (UINT8)(b3) } }, \
	__builtin_choose_expr((L) == 5, \
		(struct etw_tlg_b5){ { (UINT8)(b0), (UINT8)(b1), \
				       (UINT8)(b2), (UINT8)(b3), \
				       (UINT8)(b4) } }, \
		(struct etw_tlg_b6){ { (UINT8)(b0), (UINT8)(b1), \
				       (UINT8)(b2), (UINT8)(b3), \
				       (UINT8)(b4), (UINT8)(b5) } })))))
#define ETW_TLG_BT(L) __typeof__(ETW_TLG_BI_(L, 0, 0, 0, 0, 0, 0))
#define ETW_TLG_AUTO(name, value) __typeof__(value) name = (value)
#define ETW_TLG_EXTERN_CONST const
/* Compound literals initialising a static object are a GNU extension. */
#define ETW_TLG_PEDANTIC_OFF \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wpedantic\"")
#define ETW_TLG_PEDANTIC_ON _Pragma("GCC diagnostic pop")
#endif

/* Tags: the bytes of the 28-bit value, high 7 bits first. */
#define ETW_TLG_M28(t) ((UINT32)(t) & ETW_TLG_TAGS_MASK)
#define ETW_TLG_TAGLEN(t) \
	(((t) & 0x1fffff) == 0 ? 1 : ((t) & 0x3fff) == 0 ? 2 : \
	 ((t) & 0x7f) == 0 ? 3 : 4)
#define ETW_TLG_TAGBYTE(t, k) \
	((((t) >> (21 - 7 * (k))) & 0x7f) | \
	 (((t) & ((1u << (21 - 7 * (k))) - 1)) ? ETW_TLG_CHAIN : 0))
#define ETW_TLG_TAGS_BI(t) \
	ETW_TLG_BI(ETW_TLG_TAGLEN(t), ETW_TLG_TAGBYTE(t, 0), \
		   ETW_TLG_TAGBYTE(t, 1), ETW_TLG_TAGBYTE(t, 2), \
		   ETW_TLG_TAGBYTE(t, 3), 0, 0)

/* A field's InType, [OutType, [tags]] run. */
#define ETW_TLG_HASOUT(out, t) ((out) != 0 || (t) != 0)
#define ETW_TLG_FLEN(out, t) \
	(ETW_TLG_HASOUT(out, t) ? 2 + ((t) ? ETW_TLG_TAGLEN(t) : 0) : 1)
#define ETW_TLG_FBT(out, t) ETW_TLG_BT(ETW_TLG_FLEN(out, ETW_TLG_M28(t)))
#define ETW_TLG_FBI(in, out, t) ETW_TLG_FBI_(in, out, ETW_TLG_M28(t))
#define ETW_TLG_FBI_(in, out, t) \
	ETW_TLG_BI(ETW_TLG_FLEN(out, t), \
		   (in) | (ETW_TLG_HASOUT(out, t) ? ETW_TLG_CHAIN : 0), \
		   (out) | ((t) ? ETW_TLG_CHAIN : 0), \
		   ETW_TLG_TAGBYTE(t, 0), ETW_TLG_TAGBYTE(t, 1), \
		   ETW_TLG_TAGBYTE(t, 2), ETW_TLG_TAGBYTE(t, 3))

/* --- preprocessor plumbing -------------------------------------------- */

#define ETW_TLG_EXPAND(...) __VA_ARGS__
#define ETW_TLG_PASTE(a, b) ETW_TLG_PASTE_(a, b)
#define ETW_TLG_PASTE_(a, b) a##b

/* The trailing 0 keeps "..." of ETW_TLG_NARG_N non-empty (ISO C99). */
#define ETW_TLG_NARG(...) \
	ETW_TLG_NARG_(__VA_ARGS__, ETW_TLG_NARG_SEQ, 0)
#define ETW_TLG_NARG_(...) ETW_TLG_NARG_N(__VA_ARGS__)
#define ETW_TLG_NARG_N(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
	_13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, \
	_27, _28, _29, _30, _31, _32, _33, _34, _35, _36, _37, _38, _39, _40, \
	_41, _42, _43, _44, _45, _46, _47, _48, _49, _50, _51, _52, _53, _54, \
	_55, _56, _57, _58, _59, _60, _61, _62, _63, _64, _65, _66, _67, _68, \
	_69, _70, _71, _72, _73, _74, _75, _76, _77, _78, _79, _80, _81, _82, \
	_83, _84, _85, _86, _87, _88, _89, _90, _91, _92, _93, _94, _95, _96, \
	_97, _98, _99, _100, N, ...) N
#define ETW_TLG_NARG_SEQ 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88, \
	87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, \
	70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, \
	53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, \
	36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, \
	19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1

#define ETW_TLG_FE(M, ...) \
	ETW_TLG_PASTE(ETW_TLG_FE_, ETW_TLG_NARG(__VA_ARGS__))(M, __VA_ARGS__)
#define ETW_TLG_FE_1(M, a) M(1, a)
#define ETW_TLG_FE_2(M, a, ...) M(2, a) ETW_TLG_FE_1(M, __VA_ARGS__)
#define ETW_TLG_FE_3(M, a, ...) M(3, a) ETW_TLG_FE_2(M, __VA_ARGS__)
#define ETW_TLG_FE_4(M, a, ...) M(4, a) ETW_TLG_FE_3(M, __VA_ARGS__)
#define ETW_TLG_FE_5(M, a, ...) M(5, a) ETW_TLG_FE_4(M, __VA_ARGS__)
#define ETW_TLG_FE_6(M, a, ...) M(6, a) ETW_TLG_FE_5(M, __VA_ARGS__)
#define ETW_TLG_FE_7(M, a, ...) M(7, a) ETW_TLG_FE_6(M, __VA_ARGS__)
#define ETW_TLG_FE_8(M, a, ...) M(8, a) ETW_TLG_FE_7(M, __VA_ARGS__)
#define ETW_TLG_FE_9(M, a, ...) M(9, a) ETW_TLG_FE_8(M, __VA_ARGS__)
#define ETW_TLG_FE_10(M, a, ...) M(10, a) ETW_TLG_FE_9(M, __VA_ARGS__)
#define ETW_TLG_FE_11(M, a, ...) M(11, a) ETW_TLG_FE_10(M, __VA_ARGS__)
#define ETW_TLG_FE_12(M, a, ...) M(12, a) ETW_TLG_FE_11(M, __VA_ARGS__)
#define ETW_TLG_FE_13(M, a, ...) M(13, a) ETW_TLG_FE_12(M, __VA_ARGS__)
#define ETW_TLG_FE_14(M, a, ...) M(14, a) ETW_TLG_FE_13(M, __VA_ARGS__)
#define ETW_TLG_FE_15(M, a, ...) M(15, a) ETW_TLG_FE_14(M, __VA_ARGS__)
#define ETW_TLG_FE_16(M, a, ...) M(16, a) ETW_TLG_FE_15(M, __VA_ARGS__)
#define ETW_TLG_FE_17(M, a, ...) M(17, a) ETW_TLG_FE_16(M, __VA_ARGS__)
#define ETW_TLG_FE_18(M, a, ...) M(18, a) ETW_TLG_FE_17(M, __VA_ARGS__)
#define ETW_TLG_FE_19(M, a, ...) M(19, a) ETW_TLG_FE_18(M, __VA_ARGS__)
#define ETW_TLG_FE_20(M, a, ...) M(20, a) ETW_TLG_FE_19(M, __VA_ARGS__)
#define ETW_TLG_FE_21(M, a, ...) M(21, a) ETW_TLG_FE_20(M, __VA_ARGS__)
#define ETW_TLG_FE_22(M, a, ...) M(22, a) ETW_TLG_FE_21(M, __VA_ARGS__)
#define ETW_TLG_FE_23(M, a, ...) M(23, a) ETW_TLG_FE_22(M, __VA_ARGS__)
#define ETW_TLG_FE_24(M, a, ...) M(24, a) ETW_TLG_FE_23(M, __VA_ARGS__)
#define ETW_TLG_FE_25(M, a, ...) M(25, a) ETW_TLG_FE_24(M, __VA_ARGS__)
#define ETW_TLG_FE_26(M, a, ...) M(26, a) ETW_TLG_FE_25(M, __VA_ARGS__)
#define ETW_TLG_FE_27(M, a, ...) M(27, a) ETW_TLG_FE_26(M, __VA_ARGS__)
#define ETW_TLG_FE_28(M, a, ...) M(28, a) ETW_TLG_FE_27(M, __VA_ARGS__)
#define ETW_TLG_FE_29(M, a, ...) M(29, a) ETW_TLG_FE_28(M, __VA_ARGS__)
#define ETW_TLG_FE_30(M, a, ...) M(30, a) ETW_TLG_FE_29(M, __VA_ARGS__)
#define ETW_TLG_FE_31(M, a, ...) M(31, a) ETW_TLG_FE_30(M, __VA_ARGS__)
#define ETW_TLG_FE_32(M, a, ...) M(32, a) ETW_TLG_FE_31(M, __VA_ARGS__)
#define ETW_TLG_FE_33(M, a, ...) M(33, a) ETW_TLG_FE_32(M, __VA_ARGS__)
#define ETW_TLG_FE_34(M, a, ...) M(34, a) ETW_TLG_FE_33(M, __VA_ARGS__)
#define ETW_TLG_FE_35(M, a, ...) M(35, a) ETW_TLG_FE_34(M, __VA_ARGS__)
#define ETW_TLG_FE_36(M, a, ...) M(36, a) ETW_TLG_FE_35(M, __VA_ARGS__)
#define ETW_TLG_FE_37(M, a, ...) M(37, a) ETW_TLG_FE_36(M, __VA_ARGS__)
#define ETW_TLG_FE_38(M, a, ...) M(38, a) ETW_TLG_FE_37(M, __VA_ARGS__)
#define ETW_TLG_FE_39(M, a, ...) M(39, a) ETW_TLG_FE_38(M, __VA_ARGS__)
#define ETW_TLG_FE_40(M, a, ...) M(40, a) ETW_TLG_FE_39(M, __VA_ARGS__)
#define ETW_TLG_FE_41(M, a, ...) M(41, a) ETW_TLG_FE_40(M, __VA_ARGS__)
#define ETW_TLG_FE_42(M, a, ...) M(42, a) ETW_TLG_FE_41(M, __VA_ARGS__)
#define ETW_TLG_FE_43(M, a, ...) M(43, a) ETW_TLG_FE_42(M, __VA_ARGS__)
#define ETW_TLG_FE_44(M, a, ...) M(44, a) ETW_TLG_FE_43(M, __VA_ARGS__)
#define ETW_TLG_FE_45(M, a, ...) M(45, a) ETW_TLG_FE_44(M, __VA_ARGS__)
#define ETW_TLG_FE_46(M, a, ...) M(46, a) ETW_TLG_FE_45(M, __VA_ARGS__)
#define ETW_TLG_FE_47(M, a, ...) M(47, a) ETW_TLG_FE_46(M, __VA_ARGS__)
#define ETW_TLG_FE_48(M, a, ...) M(48, a) ETW_TLG_FE_47(M, __VA_ARGS__)
#define ETW_TLG_FE_49(M, a, ...) M(49, a) ETW_TLG_FE_48(M, __VA_ARGS__)
#define ETW_TLG_FE_50(M, a, ...) M(50, a) ETW_TLG_FE_49(M, __VA_ARGS__)
#define ETW_TLG_FE_51(M, a, ...) M(51, a) ETW_TLG_FE_50(M, __VA_ARGS__)
#define ETW_TLG_FE_52(M, a, ...) M(52, a) ETW_TLG_FE_51(M, __VA_ARGS__)
#define ETW_TLG_FE_53(M, a, ...) M(53, a) ETW_TLG_FE_52(M, __VA_ARGS__)
#define ETW_TLG_FE_54(M, a, ...) M(54, a) ETW_TLG_FE_53(M, __VA_ARGS__)
#define ETW_TLG_FE_55(M, a, ...) M(55, a) ETW_TLG_FE_54(M, __VA_ARGS__)
#define ETW_TLG_FE_56(M, a, ...) M(56, a) ETW_TLG_FE_55(M, __VA_ARGS__)
#define ETW_TLG_FE_57(M, a, ...) M(57, a) ETW_TLG_FE_56(M, __VA_ARGS__)
#define ETW_TLG_FE_58(M, a, ...) M(58, a) ETW_TLG_FE_57(M, __VA_ARGS__)
#define ETW_TLG_FE_59(M, a, ...) M(59, a) ETW_TLG_FE_58(M, __VA_ARGS__)
#define ETW_TLG_FE_60(M, a, ...) M(60, a) ETW_TLG_FE_59(M, __VA_ARGS__)
#define ETW_TLG_FE_61(M, a, ...) M(61, a) ETW_TLG_FE_60(M, __VA_ARGS__)
#define ETW_TLG_FE_62(M, a, ...) M(62, a) ETW_TLG_FE_61(M, __VA_ARGS__)
#define ETW_TLG_FE_63(M, a, ...) M(63, a) ETW_TLG_FE_62(M, __VA_ARGS__)
#define ETW_TLG_FE_64(M, a, ...) M(64, a) ETW_TLG_FE_63(M, __VA_ARGS__)
#define ETW_TLG_FE_65(M, a, ...) M(65, a) ETW_TLG_FE_64(M, __VA_ARGS__)
#define ETW_TLG_FE_66(M, a, ...) M(66, a) ETW_TLG_FE_65(M, __VA_ARGS__)
#define ETW_TLG_FE_67(M, a, ...) M(67, a) ETW_TLG_FE_66(M, __VA_ARGS__)
#define ETW_TLG_FE_68(M, a, ...) M(68, a) ETW_TLG_FE_67(M, __VA_ARGS__)
#define ETW_TLG_FE_69(M, a, ...) M(69, a) ETW_TLG_FE_68(M, __VA_ARGS__)
#define ETW_TLG_FE_70(M, a, ...) M(70, a) ETW_TLG_FE_69(M, __VA_ARGS__)
#define ETW_TLG_FE_71(M, a, ...) M(71, a) ETW_TLG_FE_70(M, __VA_ARGS__)
#define ETW_TLG_FE_72(M, a, ...) M(72, a) ETW_TLG_FE_71(M, __VA_ARGS__)
#define ETW_TLG_FE_73(M, a, ...) M(73, a) ETW_TLG_FE_72(M, __VA_ARGS__)
#define ETW_TLG_FE_74(M, a, ...) M(74, a) ETW_TLG_FE_73(M, __VA_ARGS__)
#define ETW_TLG_FE_75(M, a, ...) M(75, a) ETW_TLG_FE_74(M, __VA_ARGS__)
#define ETW_TLG_FE_76(M, a, ...) M(76, a) ETW_TLG_FE_75(M, __VA_ARGS__)
#define ETW_TLG_FE_77(M, a, ...) M(77, a) ETW_TLG_FE_76(M, __VA_ARGS__)
#define ETW_TLG_FE_78(M, a, ...) M(78, a) ETW_TLG_FE_77(M, __VA_ARGS__)
#define ETW_TLG_FE_79(M, a, ...) M(79, a) ETW_TLG_FE_78(M, __VA_ARGS__)
#define ETW_TLG_FE_80(M, a, ...) M(80, a) ETW_TLG_FE_79(M, __VA_ARGS__)
#define ETW_TLG_FE_81(M, a, ...) M(81, a) ETW_TLG_FE_80(M, __VA_ARGS__)
#define ETW_TLG_FE_82(M, a, ...) M(82, a) ETW_TLG_FE_81(M, __VA_ARGS__)
#define ETW_TLG_FE_83(M, a, ...) M(83, a) ETW_TLG_FE_82(M, __VA_ARGS__)
#define ETW_TLG_FE_84(M, a, ...) M(84, a) ETW_TLG_FE_83(M, __VA_ARGS__)
#define ETW_TLG_FE_85(M, a, ...) M(85, a) ETW_TLG_FE_84(M, __VA_ARGS__)
#define ETW_TLG_FE_86(M, a, ...) M(86, a) ETW_TLG_FE_85(M, __VA_ARGS__)
#define ETW_TLG_FE_87(M, a, ...) M(87, a) ETW_TLG_FE_86(M, __VA_ARGS__)
#define ETW_TLG_FE_88(M, a, ...) M(88, a) ETW_TLG_FE_87(M, __VA_ARGS__)
#define ETW_TLG_FE_89(M, a, ...) M(89, a) ETW_TLG_FE_88(M, __VA_ARGS__)
#define ETW_TLG_FE_90(M, a, ...) M(90, a) ETW_TLG_FE_89(M, __VA_ARGS__)
#define ETW_TLG_FE_91(M, a, ...) M(91, a) ETW_TLG_FE_90(M, __VA_ARGS__)
#define ETW_TLG_FE_92(M, a, ...) M(92, a) ETW_TLG_FE_91(M, __VA_ARGS__)
#define ETW_TLG_FE_93(M, a, ...) M(93, a) ETW_TLG_FE_92(M, __VA_ARGS__)
#define ETW_TLG_FE_94(M, a, ...) M(94, a) ETW_TLG_FE_93(M, __VA_ARGS__)
#define ETW_TLG_FE_95(M, a, ...) M(95, a) ETW_TLG_FE_94(M, __VA_ARGS__)
#define ETW_TLG_FE_96(M, a, ...) M(96, a) ETW_TLG_FE_95(M, __VA_ARGS__)
#define ETW_TLG_FE_97(M, a, ...) M(97, a) ETW_TLG_FE_96(M, __VA_ARGS__)
#define ETW_TLG_FE_98(M, a, ...) M(98, a) ETW_TLG_FE_97(M, __VA_ARGS__)
#define ETW_TLG_FE_99(M, a, ...) M(99, a) ETW_TLG_FE_98(M, __VA_ARGS__)
#define ETW_TLG_FE_100(M, a, ...) M(100, a) ETW_TLG_FE_99(M, __VA_ARGS__)

/*
 * The arguments of TraceLoggingWrite after the event name are items, each
 * a parenthesised (kind, ...) list; ETW_TLG_FE applies one pass to each,
 * with a number that tells the items' locals apart.  The passes:
 *   D  the field's members of the metadata struct,
 *   I  their initialisers,
 *   N  how many data descriptors the item fills,
 *   V  the statements that evaluate the value and fill them,
 *   L, K, O, C, T  its share of level, keyword, opcode, channel, tags.
 * The kinds: ETW_TLGK_END (closes every list), ETW_TLGK_OPT (an event
 * option), ETW_TLGK_FLD (a field), ETW_TLGK_FLDC (a fixed-count array
 * field: a UINT16 count follows in the metadata), ETW_TLGK_DATA (packed
 * data without metadata).  A field's data is a (data kind, ...) list.
 */
#define ETW_TLG_APPLY(P, n, item) ETW_TLG_APPLY_(P, n, ETW_TLG_EXPAND item)
#define ETW_TLG_APPLY_(P, n, ...) ETW_TLG_APPLY__(P, n, __VA_ARGS__)
#define ETW_TLG_APPLY__(P, n, kind, ...) P##_##kind(n, __VA_ARGS__)
#define ETW_TLG_PD(n, item) ETW_TLG_APPLY(ETW_TLG_D, n, item)
#define ETW_TLG_PI(n, item) ETW_TLG_APPLY(ETW_TLG_I, n, item)
#define ETW_TLG_PN(n, item) ETW_TLG_APPLY(ETW_TLG_N, n, item)
#define ETW_TLG_PV(n, item) ETW_TLG_APPLY(ETW_TLG_V, n, item)
#define ETW_TLG_PL(n, item) ETW_TLG_APPLY(ETW_TLG_L, n, item)
#define ETW_TLG_PK(n, item) ETW_TLG_APPLY(ETW_TLG_K, n, item)
#define ETW_TLG_PO(n, item) ETW_TLG_APPLY(ETW_TLG_O, n, item)
#define ETW_TLG_PC(n, item) ETW_TLG_APPLY(ETW_TLG_C, n, item)
#define ETW_TLG_PT(n, item) ETW_TLG_APPLY(ETW_TLG_T, n, item)

/* A field's data list: (data kind, ...). */
#define ETW_TLG_DATA(P, n, data) ETW_TLG_DATA_(P, n, ETW_TLG_EXPAND data)
#define ETW_TLG_DATA_(P, n, ...) ETW_TLG_DATA__(P, n, __VA_ARGS__)
#define ETW_TLG_DATA__(P, n, kind, ...) P##_##kind(n, __VA_ARGS__)

/* ETW_TLGK_END, x */
#define ETW_TLG_D_ETW_TLGK_END(n, x)
#define ETW_TLG_I_ETW_TLGK_END(n, x)
#define ETW_TLG_N_ETW_TLGK_END(n, x)
#define ETW_TLG_V_ETW_TLGK_END(n, x)
#define ETW_TLG_L_ETW_TLGK_END(n, x)
#define ETW_TLG_K_ETW_TLGK_END(n, x)
#define ETW_TLG_O_ETW_TLGK_END(n, x)
#define ETW_TLG_C_ETW_TLGK_END(n, x)
#define ETW_TLG_T_ETW_TLGK_END(n, x)

/* ETW_TLGK_OPT, level - 5, keyword, opcode, channel - 11, tags */
#define ETW_TLG_D_ETW_TLGK_OPT(n, l, k, o, c, t)
#define ETW_TLG_I_ETW_TLGK_OPT(n, l, k, o, c, t)
#define ETW_TLG_N_ETW_TLGK_OPT(n, l, k, o, c, t)
#define ETW_TLG_V_ETW_TLGK_OPT(n, l, k, o, c, t)
#define ETW_TLG_L_ETW_TLGK_OPT(n, l, k, o, c, t) + (l)
#define ETW_TLG_K_ETW_TLGK_OPT(n, l, k, o, c, t) | (k)
#define ETW_TLG_O_ETW_TLGK_OPT(n, l, k, o, c, t) + (o)
#define ETW_TLG_C_ETW_TLGK_OPT(n, l, k, o, c, t) + (c)
#define ETW_TLG_T_ETW_TLGK_OPT(n, l, k, o, c, t) | (t)

/* ETW_TLGK_FLD, name, in, out, tags, data */
#define ETW_TLG_D_ETW_TLGK_FLD(n, name, in, out, t, data) \
	char field_name##n[sizeof(name)]; ETW_TLG_FBT(out, t) field_type##n;
#define ETW_TLG_I_ETW_TLGK_FLD(n, name, in, out, t, data) \
	, name, ETW_TLG_FBI(in, out, t)
#define ETW_TLG_N_ETW_TLGK_FLD(n, name, in, out, t, data) \
	+ ETW_TLG_DATA(ETW_TLG_DN, n, data)
#define ETW_TLG_V_ETW_TLGK_FLD(n, name, in, out, t, data) \
	ETW_TLG_DATA(ETW_TLG_DV, n, data)
#define ETW_TLG_L_ETW_TLGK_FLD(n, name, in, out, t, data)
#define ETW_TLG_K_ETW_TLGK_FLD(n, name, in, out, t, data)
#define ETW_TLG_O_ETW_TLGK_FLD(n, name, in, out, t, data)
#define ETW_TLG_C_ETW_TLGK_FLD(n, name, in, out, t, data)
#define ETW_TLG_T_ETW_TLGK_FLD(n, name, in, out, t, data)

/* ETW_TLGK_FLDC, name, in, out, tags, count, data */
#define ETW_TLG_D_ETW_TLGK_FLDC(n, name, in, out, t, c, data) \
	ETW_TLG_D_ETW_TLGK_FLD(n, name, in, out, t, data) \
	UINT8 field_count##n[2];
#define ETW_TLG_I_ETW_TLGK_FLDC(n, name, in, out, t, c, data) \
	ETW_TLG_I_ETW_TLGK_FLD(n, name, in, out, t, data), \
	{ (UINT8)((c) & 0xff), (UINT8)(((c) >> 8) & 0xff) }
#define ETW_TLG_N_ETW_TLGK_FLDC(n, name, in, out, t, c, data) \
	+ ETW_TLG_DATA(ETW_TLG_DN, n, data)
#define ETW_TLG_V_ETW_TLGK_FLDC(n, name, in, out, t, c, data) \
	ETW_TLG_DATA(ETW_TLG_DV, n, data)
#define ETW_TLG_L_ETW_TLGK_FLDC(n, name, in, out, t, c, data)
#define ETW_TLG_K_ETW_TLGK_FLDC(n, name, in, out, t, c, data)
#define ETW_TLG_O_ETW_TLGK_FLDC(n, name, in, out, t, c, data)
#define ETW_TLG_C_ETW_TLGK_FLDC(n, name, in, out, t, c, data)
#define ETW_TLG_T_ETW_TLGK_FLDC(n, name, in, out, t, c, data)

/* ETW_TLGK_DATA, data */
#define ETW_TLG_D_ETW_TLGK_DATA(n, data)
#define ETW_TLG_I_ETW_TLGK_DATA(n, data)
#define ETW_TLG_N_ETW_TLGK_DATA(n, data) + ETW_TLG_DATA(ETW_TLG_DN, n, data)
#define ETW_TLG_V_ETW_TLGK_DATA(n, data) ETW_TLG_DATA(ETW_TLG_DV, n, data)
#define ETW_TLG_L_ETW_TLGK_DATA(n, data)
#define ETW_TLG_K_ETW_TLGK_DATA(n, data)
#define ETW_TLG_O_ETW_TLGK_DATA(n, data)
#define ETW_TLG_C_ETW_TLGK_DATA(n, data)
#define ETW_TLG_T_ETW_TLGK_DATA(n, data)

/*
 * Data kinds: DN is the number of descriptors, DV the statements.  Each
 * value is evaluated once, into a local named after the item.
 */
#define ETW_TLG_DESC(p, size) \
	etw_tlg_desc(&etw_tlg_data[etw_tlg_n++], (p), (ULONG)(size), 0);
/* No data (structs, metadata of packed fields). */
#define ETW_TLG_DN_ETW_TLGD_NONE(n, x) 0
#define ETW_TLG_DV_ETW_TLGD_NONE(n, x)
/* A value of type ctype. */
#define ETW_TLG_DN_ETW_TLGD_VAL(n, ctype, v) 1
#define ETW_TLG_DV_ETW_TLGD_VAL(n, ctype, v) \
	ctype const etw_tlg_v##n = (v); \
	ETW_TLG_DESC(&etw_tlg_v##n, sizeof(ctype))
/* size bytes at p. */
#define ETW_TLG_DN_ETW_TLGD_PTR(n, p, size) 1
#define ETW_TLG_DV_ETW_TLGD_PTR(n, p, size) ETW_TLG_DESC(p, size)
/* count elements of ctype at p, after a UINT16 count. */
#define ETW_TLG_DN_ETW_TLGD_VCNT(n, ctype, p, count) 2
#define ETW_TLG_DV_ETW_TLGD_VCNT(n, ctype, p, count) \
	const ctype *const etw_tlg_p##n = (p); \
	UINT16 const etw_tlg_v##n = (UINT16)(count); \
	ETW_TLG_DESC(&etw_tlg_v##n, sizeof(UINT16)) \
	ETW_TLG_DESC(etw_tlg_p##n, etw_tlg_v##n * sizeof(ctype))
/* count elements of ctype at p, the count in the metadata. */
#define ETW_TLG_DN_ETW_TLGD_CCNT(n, ctype, p, count) 1
#define ETW_TLG_DV_ETW_TLGD_CCNT(n, ctype, p, count) \
	const ctype *const etw_tlg_p##n = (p); \
	ETW_TLG_DESC(etw_tlg_p##n, (count) * sizeof(ctype))
/* count units of unit bytes at p, after a UINT16 byte count. */
#define ETW_TLG_DN_ETW_TLGD_BCNT(n, unit, p, count) 2
#define ETW_TLG_DV_ETW_TLGD_BCNT(n, unit, p, count) \
	const void *const etw_tlg_p##n = (p); \
	UINT16 const etw_tlg_v##n = (UINT16)((count) * (unit)); \
	ETW_TLG_DESC(&etw_tlg_v##n, sizeof(UINT16)) \
	ETW_TLG_DESC(etw_tlg_p##n, etw_tlg_v##n)
/* A NUL-terminated string. */
#define ETW_TLG_DN_ETW_TLGD_STR(n, p) 1
#define ETW_TLG_DV_ETW_TLGD_STR(n, p) \
	etw_tlg_desc_str(&etw_tlg_data[etw_tlg_n++], (p));
#define ETW_TLG_DN_ETW_TLGD_WSTR(n, p) 1
#define ETW_TLG_DV_ETW_TLGD_WSTR(n, p) \
	etw_tlg_desc_wstr(&etw_tlg_data[etw_tlg_n++], (p));
/* An ANSI_STRING or UNICODE_STRING: Length bytes at Buffer. */
#define ETW_TLG_DN_ETW_TLGD_NTS(n, p) 2
#define ETW_TLG_DV_ETW_TLGD_NTS(n, p) \
	ETW_TLG_AUTO(etw_tlg_p##n, (p)); \
	UINT16 const etw_tlg_v##n = etw_tlg_p##n->Length; \
	ETW_TLG_DESC(&etw_tlg_v##n, sizeof(UINT16)) \
	ETW_TLG_DESC(etw_tlg_p##n->Buffer, etw_tlg_v##n)
#define ETW_TLG_DN_ETW_TLGD_SID(n, p) 1
#define ETW_TLG_DV_ETW_TLGD_SID(n, p) \
	etw_tlg_desc_sid(&etw_tlg_data[etw_tlg_n++], (p));
/* Packed data with a descriptor type of its own. */
#define ETW_TLG_DN_ETW_TLGD_RAW(n, p, size, type) 1
#define ETW_TLG_DV_ETW_TLGD_RAW(n, p, size, type) \
	etw_tlg_desc(&etw_tlg_data[etw_tlg_n++], (p), (ULONG)(size), (type));

/*
 * Field macros take their value arguments, then an optional name (the
 * first value argument's text by default), description and tags.
 * ETW_TLG_Fk(shape, ...) parses k value arguments and calls the shape's
 * maker with (shape args, values, name, tags).
 */
#define ETW_TLG_CALL(S, ...) ETW_TLG_CALL_(ETW_TLG_EXPAND S, __VA_ARGS__)
#define ETW_TLG_CALL_(...) ETW_TLG_CALL__(__VA_ARGS__)
#define ETW_TLG_CALL__(M, ...) M(__VA_ARGS__)

/* @text is the arguments as written: the default name when only one. */
#define ETW_TLG_F1(S, text, ...) \
	ETW_TLG_PASTE(ETW_TLG_F1_, ETW_TLG_NARG(__VA_ARGS__))(S, text, \
							      __VA_ARGS__)
#define ETW_TLG_F1_1(S, text, a) ETW_TLG_CALL(S, a, text, 0)
#define ETW_TLG_F1_2(S, text, a, name) ETW_TLG_CALL(S, a, name, 0)
#define ETW_TLG_F1_3(S, text, a, name, d) ETW_TLG_CALL(S, a, name, 0)
#define ETW_TLG_F1_4(S, text, a, name, d, t) ETW_TLG_CALL(S, a, name, t)
#define ETW_TLG_F2(S, ...) \
	ETW_TLG_PASTE(ETW_TLG_F2_, ETW_TLG_NARG(__VA_ARGS__))(S, __VA_ARGS__)
#define ETW_TLG_F2_2(S, a, b) ETW_TLG_CALL(S, a, b, #a, 0)
#define ETW_TLG_F2_3(S, a, b, name) ETW_TLG_CALL(S, a, b, name, 0)
#define ETW_TLG_F2_4(S, a, b, name, d) ETW_TLG_CALL(S, a, b, name, 0)
#define ETW_TLG_F2_5(S, a, b, name, d, t) ETW_TLG_CALL(S, a, b, name, t)
#define ETW_TLG_F3(S, ...) \
	ETW_TLG_PASTE(ETW_TLG_F3_, ETW_TLG_NARG(__VA_ARGS__))(S, __VA_ARGS__)
#define ETW_TLG_F3_3(S, a, b, c) ETW_TLG_CALL(S, a, b, c, #a, 0)
#define ETW_TLG_F3_4(S, a, b, c, name) ETW_TLG_CALL(S, a, b, c, name, 0)
#define ETW_TLG_F3_5(S, a, b, c, name, d) ETW_TLG_CALL(S, a, b, c, name, 0)
#define ETW_TLG_F3_6(S, a, b, c, name, d, t) \
	ETW_TLG_CALL(S, a, b, c, name, t)
#define ETW_TLG_F4(S, ...) \
	ETW_TLG_PASTE(ETW_TLG_F4_, ETW_TLG_NARG(__VA_ARGS__))(S, __VA_ARGS__)
#define ETW_TLG_F4_5(S, a, b, c, e, name) \
	ETW_TLG_CALL(S, a, b, c, e, name, 0)
#define ETW_TLG_F4_6(S, a, b, c, e, name, d) \
	ETW_TLG_CALL(S, a, b, c, e, name, 0)
#define ETW_TLG_F4_7(S, a, b, c, e, name, d, t) \
	ETW_TLG_CALL(S, a, b, c, e, name, t)

/* Makers: shape args first, then the values, name and tags. */
#define ETW_TLG_MK_VAL(ctype, in, out, v, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_VAL, ctype, v))
#define ETW_TLG_MK_VARR(ctype, in, out, p, c, name, t) \
	(ETW_TLGK_FLD, name, (in) | ETW_TLG_IN_VCOUNT, out, t, \
	 (ETW_TLGD_VCNT, ctype, p, c))
#define ETW_TLG_MK_FARR(ctype, in, out, p, c, name, t) \
	(ETW_TLGK_FLDC, name, (in) | ETW_TLG_IN_CCOUNT, out, t, c, \
	 (ETW_TLGD_CCNT, ctype, p, c))
#define ETW_TLG_MK_STR(in, out, p, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_STR, p))
#define ETW_TLG_MK_WSTR(in, out, p, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_WSTR, p))
#define ETW_TLG_MK_BCNT(unit, in, out, p, c, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_BCNT, unit, p, c))
#define ETW_TLG_MK_BINEX(p, c, out, name, t) \
	(ETW_TLGK_FLD, name, TlgInBINARY, out, t, (ETW_TLGD_BCNT, 1, p, c))
#define ETW_TLG_MK_NTS(in, out, p, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_NTS, p))
#define ETW_TLG_MK_SID(p, name, t) \
	(ETW_TLGK_FLD, name, TlgInSID, TlgOutNULL, t, (ETW_TLGD_SID, p))
#define ETW_TLG_MK_IPV6(p, name, t) \
	(ETW_TLGK_FLD, name, TlgInBINARY, TlgOutIPV6, t, \
	 (ETW_TLGD_BCNT, 1, p, 16))
#define ETW_TLG_MK_META(in, out, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_NONE, 0))
#define ETW_TLG_MK_PACKED(p, size, in, out, name, t) \
	(ETW_TLGK_FLD, name, in, out, t, (ETW_TLGD_PTR, p, size))

/* --- event options ------------------------------------------------------ */

/* The event's level (default 5, verbose); a constant. */
#define TraceLoggingLevel(eventLevel) \
	(ETW_TLGK_OPT, (eventLevel) - 5, 0, 0, 0, 0)
/* Keywords; several are ORed together. */
#define TraceLoggingKeyword(eventKeyword) \
	(ETW_TLGK_OPT, 0, (eventKeyword), 0, 0, 0)
#define TraceLoggingOpcode(eventOpcode) \
	(ETW_TLGK_OPT, 0, 0, (eventOpcode), 0, 0)
/* The channel (default 11, WINEVENT_CHANNEL_TRACELOGGING). */
#define TraceLoggingChannel(eventChannel) \
	(ETW_TLGK_OPT, 0, 0, 0, (eventChannel) - 11, 0)
/* 28 bits of tags; several are ORed together. */
#define TraceLoggingEventTag(eventTag) \
	(ETW_TLGK_OPT, 0, 0, 0, 0, (eventTag))
/* For documentation only: not written. */
#define TraceLoggingDescription(description) (ETW_TLGK_OPT, 0, 0, 0, 0, 0)
#define TraceLoggingCustomAttribute(name, value) \
	(ETW_TLGK_OPT, 0, 0, 0, 0, 0)

/* --- writing ------------------------------------------------------------ */

#define ETW_TLG_LEVEL(...) ((UCHAR)(5 ETW_TLG_FE(ETW_TLG_PL, __VA_ARGS__)))
#define ETW_TLG_KEYWORD(...) \
	((ULONGLONG)(0 ETW_TLG_FE(ETW_TLG_PK, __VA_ARGS__)))
#define ETW_TLG_OPCODE(...) ((UCHAR)(0 ETW_TLG_FE(ETW_TLG_PO, __VA_ARGS__)))
#define ETW_TLG_CHANNEL(...) ((UCHAR)(11 ETW_TLG_FE(ETW_TLG_PC, __VA_ARGS__)))
#define ETW_TLG_EVTAGS(...) \
	ETW_TLG_M28(0 ETW_TLG_FE(ETW_TLG_PT, __VA_ARGS__))

/*
 * The metadata struct holds only byte arrays, so it has no padding and
 * its size is the blob's.  Nothing is evaluated unless the provider is
 * enabled for the event's level and keyword.
 */
#define ETW_TLG_WRITE(hProvider, activity, related, eventName, ...) \
do { \
	TraceLoggingHProvider const etw_tlg_h = (hProvider); \
	if (TraceLoggingProviderEnabled(etw_tlg_h, \
					ETW_TLG_LEVEL(__VA_ARGS__), \
					ETW_TLG_KEYWORD(__VA_ARGS__))) { \
		ETW_TLG_PEDANTIC_OFF \
		static const struct { \
			UINT8 size[2]; \
			ETW_TLG_BT(ETW_TLG_TAGLEN( \
				ETW_TLG_EVTAGS(__VA_ARGS__))) tags; \
			char event_name[sizeof(eventName)]; \
			ETW_TLG_FE(ETW_TLG_PD, __VA_ARGS__) \
		} etw_tlg_meta = { \
			{ (UINT8)(sizeof(etw_tlg_meta) & 0xff), \
			  (UINT8)(sizeof(etw_tlg_meta) >> 8) }, \
			ETW_TLG_TAGS_BI(ETW_TLG_EVTAGS(__VA_ARGS__)), \
			eventName ETW_TLG_FE(ETW_TLG_PI, __VA_ARGS__) \
		}; \
		ETW_TLG_PEDANTIC_ON \
		EVENT_DATA_DESCRIPTOR etw_tlg_data[2 \
			ETW_TLG_FE(ETW_TLG_PN, __VA_ARGS__)]; \
		ULONG etw_tlg_n = 2; \
		ETW_TLG_FE(ETW_TLG_PV, __VA_ARGS__) \
		etw_tlg_write(etw_tlg_h, &etw_tlg_meta, sizeof(etw_tlg_meta), \
			      ETW_TLG_LEVEL(__VA_ARGS__), \
			      ETW_TLG_OPCODE(__VA_ARGS__), \
			      ETW_TLG_CHANNEL(__VA_ARGS__), \
			      ETW_TLG_KEYWORD(__VA_ARGS__), (activity), \
			      (related), etw_tlg_n, etw_tlg_data); \
	} \
} while (0)

/**
 * TraceLoggingWrite() - write an event
 * @hProvider: the provider
 * @...: the event's name (a string literal), then its fields and event
 *	options, in any order (at most 99)
 *
 * Nothing after @hProvider is evaluated unless the provider is enabled
 * for the event's level and keyword.
 */
#define TraceLoggingWrite(hProvider, ...) \
	ETW_TLG_WRITE(hProvider, NULL, NULL, __VA_ARGS__, (ETW_TLGK_END, 0))

/**
 * TraceLoggingWriteActivity() - write an event with an activity
 * @hProvider: the provider
 * @eventName: the event's name, a string literal
 * @pActivityId: the activity, or NULL for the thread's
 * @...: the parent activity (pRelatedActivityId) or NULL, then fields and
 *	event options
 */
#define TraceLoggingWriteActivity(hProvider, eventName, pActivityId, ...) \
	ETW_TLG_WRITE_ACT(hProvider, pActivityId, eventName, __VA_ARGS__, \
			  (ETW_TLGK_END, 0))
#define ETW_TLG_WRITE_ACT(hProvider, act, eventName, related, ...) \
	ETW_TLG_WRITE(hProvider, act, related, eventName, __VA_ARGS__)

/* --- providers ---------------------------------------------------------- */

#define TRACELOGGING_DECLARE_PROVIDER(hProvider) \
	extern const TraceLoggingHProvider hProvider

/* A provider option: the provider group's GUID, as 11 numbers. */
#define TraceLoggingOptionGroup(g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, \
				g11) \
	(ETW_TLGK_GROUP, g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11)

#define ETW_TLG_GUID(g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, g11) \
	{ g1, g2, g3, { g4, g5, g6, g7, g8, g9, g10, g11 } }
#define ETW_TLG_OPT(P, opt) ETW_TLG_OPT_(P, ETW_TLG_EXPAND opt)
#define ETW_TLG_OPT_(P, ...) ETW_TLG_OPT__(P, __VA_ARGS__)
#define ETW_TLG_OPT__(P, kind, ...) P##_##kind(__VA_ARGS__)
#define ETW_TLG_TD_ETW_TLGK_NONE(x)
#define ETW_TLG_TI_ETW_TLGK_NONE(x)
/* The group trait: UINT16 size 19, type 1, the GUID's bytes. */
#define ETW_TLG_TD_ETW_TLGK_GROUP(g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, \
				  g11) \
	UINT8 group_size[2]; UINT8 group_type; UINT8 group[16];
#define ETW_TLG_TI_ETW_TLGK_GROUP(g1, g2, g3, g4, g5, g6, g7, g8, g9, g10, \
				  g11) \
	, { 19, 0 }, 1, \
	{ (UINT8)((g1) & 0xff), (UINT8)(((g1) >> 8) & 0xff), \
	  (UINT8)(((g1) >> 16) & 0xff), (UINT8)(((g1) >> 24) & 0xff), \
	  (UINT8)((g2) & 0xff), (UINT8)(((g2) >> 8) & 0xff), \
	  (UINT8)((g3) & 0xff), (UINT8)(((g3) >> 8) & 0xff), \
	  (UINT8)(g4), (UINT8)(g5), (UINT8)(g6), (UINT8)(g7), \
	  (UINT8)(g8), (UINT8)(g9), (UINT8)(g10), (UINT8)(g11) }

#define ETW_TLG_STORAGE(st, providerName, providerId, opt) \
	static const struct { \
		UINT8 size[2]; \
		char name[sizeof(providerName)]; \
		ETW_TLG_OPT(ETW_TLG_TD, opt) \
	} etw_tlg_traits_##st = { \
		{ (UINT8)(sizeof(etw_tlg_traits_##st) & 0xff), \
		  (UINT8)(sizeof(etw_tlg_traits_##st) >> 8) }, \
		providerName ETW_TLG_OPT(ETW_TLG_TI, opt) \
	}; \
	static struct etw_tlg_provider st = { \
		0, 0, 0, 0, 0, NULL, NULL, \
		(const UINT8 *)&etw_tlg_traits_##st, \
		ETW_TLG_GUID providerId \
	}
#define ETW_TLG_STORAGE_3(st, providerName, providerId) \
	ETW_TLG_STORAGE(st, providerName, providerId, (ETW_TLGK_NONE, 0))
#define ETW_TLG_STORAGE_4(st, providerName, providerId, opt) \
	ETW_TLG_STORAGE(st, providerName, providerId, opt)
#define ETW_TLG_DEFINE_3(h, providerName, providerId) \
	ETW_TLG_STORAGE_3(etw_tlg_provider_##h, providerName, providerId); \
	ETW_TLG_EXTERN_CONST TraceLoggingHProvider h = &etw_tlg_provider_##h
#define ETW_TLG_DEFINE_4(h, providerName, providerId, opt) \
	ETW_TLG_STORAGE_4(etw_tlg_provider_##h, providerName, providerId, \
			  opt); \
	ETW_TLG_EXTERN_CONST TraceLoggingHProvider h = &etw_tlg_provider_##h

/**
 * TRACELOGGING_DEFINE_PROVIDER_STORAGE() - a provider without its handle
 * @...: storageVariable, the static provider object to define (its
 *	address is the TraceLoggingHProvider); then providerName, providerId
 *	and the option as for TRACELOGGING_DEFINE_PROVIDER()
 *
 * For handles TRACELOGGING_DEFINE_PROVIDER cannot define, such as a class
 * member or a handle of internal linkage.
 */
#define TRACELOGGING_DEFINE_PROVIDER_STORAGE(...) \
	ETW_TLG_PASTE(ETW_TLG_STORAGE_, ETW_TLG_NARG(__VA_ARGS__))(__VA_ARGS__)

/**
 * TRACELOGGING_DEFINE_PROVIDER() - define a provider
 * @...: hProvider, the handle variable (TraceLoggingHProvider) to define;
 *	providerName, a string literal (no NUL inside); providerId, the GUID
 *	as 11 numbers in parentheses, e.g. (0xce5fa4ea, 0xab00, 0x5402,
 *	0x8b, 0x76, 0x9f, 0x76, 0xac, 0x85, 0x8f, 0xb5), usually the one
 *	EtwProviderGuidFromName(providerName) gives; optionally
 *	TraceLoggingOptionGroup(...)
 */
#define TRACELOGGING_DEFINE_PROVIDER(...) \
	ETW_TLG_PASTE(ETW_TLG_DEFINE_, ETW_TLG_NARG(__VA_ARGS__))(__VA_ARGS__)

/* --- fields ------------------------------------------------------------- */

/*
 * Scalars by value: TraceLoggingInt32(value [, name [, description
 * [, tags]]]); variable-count arrays: TraceLoggingInt32Array(pValues,
 * cValues, ...), written as a UINT16 count and the values; fixed-count
 * arrays: TraceLoggingInt32FixedArray(pValues, cValues, ...) with a
 * constant count kept in the metadata.
 */
#define TraceLoggingInt8(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT8, TlgInINT8, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingInt8Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT8, TlgInINT8, TlgOutNULL), __VA_ARGS__)
#define TraceLoggingInt8FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT8, TlgInINT8, TlgOutNULL), __VA_ARGS__)
#define TraceLoggingUInt8(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT8, TlgInUINT8, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUInt8Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT8, TlgInUINT8, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt8FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT8, TlgInUINT8, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt16(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT16, TlgInINT16, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingInt16Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT16, TlgInINT16, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt16FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT16, TlgInINT16, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt16(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT16, TlgInUINT16, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUInt16Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT16, TlgInUINT16, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt16FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT16, TlgInUINT16, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt32(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT32, TlgInINT32, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingInt32Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT32, TlgInINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt32FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT32, TlgInINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt32(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT32, TlgInUINT32, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUInt32Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT32, TlgInUINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt32FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT32, TlgInUINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt64(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT64, TlgInINT64, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingInt64Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT64, TlgInINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingInt64FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT64, TlgInINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt64(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT64, TlgInUINT64, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUInt64Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT64, TlgInUINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUInt64FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT64, TlgInUINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingIntPtr(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT_PTR, TlgInINTPTR, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingIntPtrArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT_PTR, TlgInINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingIntPtrFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT_PTR, TlgInINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUIntPtr(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT_PTR, TlgInUINTPTR, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUIntPtrArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT_PTR, TlgInUINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingUIntPtrFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT_PTR, TlgInUINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingLong(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, LONG, TlgInLONG, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingLongArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, LONG, TlgInLONG, TlgOutNULL), __VA_ARGS__)
#define TraceLoggingLongFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, LONG, TlgInLONG, TlgOutNULL), __VA_ARGS__)
#define TraceLoggingULong(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, ULONG, TlgInULONG, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingULongArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, ULONG, TlgInULONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingULongFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, ULONG, TlgInULONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexInt8(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT8, TlgInUINT8, TlgOutHEX), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexInt8Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT8, TlgInUINT8, TlgOutHEX), __VA_ARGS__)
#define TraceLoggingHexInt8FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT8, TlgInUINT8, TlgOutHEX), __VA_ARGS__)
#define TraceLoggingHexUInt8(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT8, TlgInUINT8, TlgOutHEX), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexUInt8Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT8, TlgInUINT8, TlgOutHEX), __VA_ARGS__)
#define TraceLoggingHexUInt8FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT8, TlgInUINT8, TlgOutHEX), __VA_ARGS__)
#define TraceLoggingHexInt16(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT16, TlgInUINT16, TlgOutHEX), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexInt16Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT16, TlgInUINT16, TlgOutHEX), \
		   __VA_ARGS__)
#define TraceLoggingHexInt16FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT16, TlgInUINT16, TlgOutHEX), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt16(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT16, TlgInUINT16, TlgOutHEX), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexUInt16Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT16, TlgInUINT16, TlgOutHEX), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt16FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT16, TlgInUINT16, TlgOutHEX), \
		   __VA_ARGS__)
#define TraceLoggingHexInt32(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT32, TlgInHEXINT32, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexInt32Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT32, TlgInHEXINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexInt32FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT32, TlgInHEXINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt32(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT32, TlgInHEXINT32, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexUInt32Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT32, TlgInHEXINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt32FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT32, TlgInHEXINT32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexInt64(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT64, TlgInHEXINT64, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexInt64Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT64, TlgInHEXINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexInt64FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT64, TlgInHEXINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt64(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT64, TlgInHEXINT64, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexUInt64Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT64, TlgInHEXINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUInt64FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT64, TlgInHEXINT64, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexIntPtr(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, INT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexIntPtrArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, INT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexIntPtrFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, INT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUIntPtr(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexUIntPtrArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexUIntPtrFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT_PTR, TlgInHEXINTPTR, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexLong(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, LONG, TlgInHEXLONG, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexLongArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, LONG, TlgInHEXLONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexLongFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, LONG, TlgInHEXLONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexULong(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, ULONG, TlgInHEXLONG, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHexULongArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, ULONG, TlgInHEXLONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingHexULongFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, ULONG, TlgInHEXLONG, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFloat32(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, float, TlgInFLOAT, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingFloat32Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, float, TlgInFLOAT, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFloat32FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, float, TlgInFLOAT, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFloat64(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, double, TlgInDOUBLE, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingFloat64Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, double, TlgInDOUBLE, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFloat64FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, double, TlgInDOUBLE, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingBoolean(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT8, TlgInUINT8, TlgOutBOOLEAN), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingBooleanArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT8, TlgInUINT8, TlgOutBOOLEAN), \
		   __VA_ARGS__)
#define TraceLoggingBooleanFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT8, TlgInUINT8, TlgOutBOOLEAN), \
		   __VA_ARGS__)
#define TraceLoggingBool(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, BOOL, TlgInBOOL32, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingBoolArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, BOOL, TlgInBOOL32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingBoolFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, BOOL, TlgInBOOL32, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingChar(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, char, TlgInUINT8, TlgOutSTRING), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingCharArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, char, TlgInUINT8, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingCharFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, char, TlgInUINT8, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingChar16(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingChar16Array(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingChar16FixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingWChar(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingWCharArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingWCharFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, WCHAR, TlgInUINT16, TlgOutSTRING), \
		   __VA_ARGS__)
#define TraceLoggingPointer(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, ETW_TLG_PTR, TlgInPOINTER, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingPointerArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, ETW_TLG_PTR, TlgInPOINTER, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingPointerFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, ETW_TLG_PTR, TlgInPOINTER, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingCodePointer(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, ETW_TLG_PTR, TlgInPOINTER, \
		   TlgOutCODE_POINTER), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingCodePointerArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, ETW_TLG_PTR, TlgInPOINTER, \
		   TlgOutCODE_POINTER), \
		   __VA_ARGS__)
#define TraceLoggingCodePointerFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, ETW_TLG_PTR, TlgInPOINTER, \
		   TlgOutCODE_POINTER), \
		   __VA_ARGS__)
#define TraceLoggingPid(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT32, TlgInUINT32, TlgOutPID), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingPidArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT32, TlgInUINT32, TlgOutPID), \
		   __VA_ARGS__)
#define TraceLoggingPidFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT32, TlgInUINT32, TlgOutPID), \
		   __VA_ARGS__)
#define TraceLoggingTid(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT32, TlgInUINT32, TlgOutTID), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingTidArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT32, TlgInUINT32, TlgOutTID), \
		   __VA_ARGS__)
#define TraceLoggingTidFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT32, TlgInUINT32, TlgOutTID), \
		   __VA_ARGS__)
#define TraceLoggingIPv4Address(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT32, TlgInUINT32, TlgOutIPV4), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingIPv4AddressArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT32, TlgInUINT32, TlgOutIPV4), \
		   __VA_ARGS__)
#define TraceLoggingIPv4AddressFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT32, TlgInUINT32, TlgOutIPV4), \
		   __VA_ARGS__)
#define TraceLoggingPort(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, UINT16, TlgInUINT16, TlgOutPORT), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingPortArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, UINT16, TlgInUINT16, TlgOutPORT), \
		   __VA_ARGS__)
#define TraceLoggingPortFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, UINT16, TlgInUINT16, TlgOutPORT), \
		   __VA_ARGS__)
#define TraceLoggingWinError(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, ULONG, TlgInUINT32, TlgOutWIN32ERROR), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingWinErrorArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, ULONG, TlgInUINT32, TlgOutWIN32ERROR), \
		   __VA_ARGS__)
#define TraceLoggingWinErrorFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, ULONG, TlgInUINT32, TlgOutWIN32ERROR), \
		   __VA_ARGS__)
#define TraceLoggingNTStatus(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, LONG, TlgInUINT32, TlgOutNTSTATUS), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingNTStatusArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, LONG, TlgInUINT32, TlgOutNTSTATUS), \
		   __VA_ARGS__)
#define TraceLoggingNTStatusFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, LONG, TlgInUINT32, TlgOutNTSTATUS), \
		   __VA_ARGS__)
#define TraceLoggingHResult(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, LONG, TlgInINT32, TlgOutHRESULT), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingHResultArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, LONG, TlgInINT32, TlgOutHRESULT), \
		   __VA_ARGS__)
#define TraceLoggingHResultFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, LONG, TlgInINT32, TlgOutHRESULT), \
		   __VA_ARGS__)
#define TraceLoggingFileTime(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, FILETIME, TlgInFILETIME, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingFileTimeArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, FILETIME, TlgInFILETIME, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFileTimeFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, FILETIME, TlgInFILETIME, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingFileTimeUtc(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, FILETIME, TlgInFILETIME, \
		   TlgOutDATETIME_UTC), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingFileTimeUtcArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, FILETIME, TlgInFILETIME, \
		   TlgOutDATETIME_UTC), \
		   __VA_ARGS__)
#define TraceLoggingFileTimeUtcFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, FILETIME, TlgInFILETIME, \
		   TlgOutDATETIME_UTC), \
		   __VA_ARGS__)
#define TraceLoggingSystemTime(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, SYSTEMTIME, TlgInSYSTEMTIME, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingSystemTimeArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, SYSTEMTIME, TlgInSYSTEMTIME, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingSystemTimeFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, SYSTEMTIME, TlgInSYSTEMTIME, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingSystemTimeUtc(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, SYSTEMTIME, TlgInSYSTEMTIME, \
		   TlgOutDATETIME_UTC), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingSystemTimeUtcArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, SYSTEMTIME, TlgInSYSTEMTIME, \
		   TlgOutDATETIME_UTC), \
		   __VA_ARGS__)
#define TraceLoggingSystemTimeUtcFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, SYSTEMTIME, TlgInSYSTEMTIME, \
		   TlgOutDATETIME_UTC), \
		   __VA_ARGS__)
#define TraceLoggingGuid(...) \
	ETW_TLG_F1((ETW_TLG_MK_VAL, GUID, TlgInGUID, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingGuidArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_VARR, GUID, TlgInGUID, TlgOutNULL), __VA_ARGS__)
#define TraceLoggingGuidFixedArray(...) \
	ETW_TLG_F2((ETW_TLG_MK_FARR, GUID, TlgInGUID, TlgOutNULL), __VA_ARGS__)

/* NUL-terminated strings; NULL is written as "". */
#define TraceLoggingString(...) \
	ETW_TLG_F1((ETW_TLG_MK_STR, TlgInANSISTRING, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUtf8String(...) \
	ETW_TLG_F1((ETW_TLG_MK_STR, TlgInANSISTRING, TlgOutUTF8), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingWideString(...) \
	ETW_TLG_F1((ETW_TLG_MK_WSTR, TlgInUNICODESTRING, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)

/* Counted strings: (pValue, cchValue, ...), a UINT16 byte count first. */
#define TraceLoggingCountedString(...) \
	ETW_TLG_F2((ETW_TLG_MK_BCNT, 1, TlgInCOUNTEDANSISTRING, TlgOutNULL), \
		   __VA_ARGS__)
#define TraceLoggingCountedUtf8String(...) \
	ETW_TLG_F2((ETW_TLG_MK_BCNT, 1, TlgInCOUNTEDANSISTRING, TlgOutUTF8), \
		   __VA_ARGS__)
#define TraceLoggingCountedWideString(...) \
	ETW_TLG_F2((ETW_TLG_MK_BCNT, 2, TlgInCOUNTEDSTRING, TlgOutNULL), \
		   __VA_ARGS__)
/* ANSI_STRING / UNICODE_STRING pointers: Length bytes at Buffer. */
#define TraceLoggingAnsiString(...) \
	ETW_TLG_F1((ETW_TLG_MK_NTS, TlgInCOUNTEDANSISTRING, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingUnicodeString(...) \
	ETW_TLG_F1((ETW_TLG_MK_NTS, TlgInCOUNTEDSTRING, TlgOutNULL), \
		   #__VA_ARGS__, __VA_ARGS__)

/* Bytes: (pValue, cbValue, ...), a UINT16 byte count first. */
#define TraceLoggingBinary(...) \
	ETW_TLG_F2((ETW_TLG_MK_BCNT, 1, TlgInBINARY, TlgOutNULL), __VA_ARGS__)
/* (pValue, cbValue, outType, ...) */
#define TraceLoggingBinaryEx(...) ETW_TLG_F3((ETW_TLG_MK_BINEX), __VA_ARGS__)
/* A 16-byte IPv6 address: (pValue, ...). */
#define TraceLoggingIPv6Address(...) \
	ETW_TLG_F1((ETW_TLG_MK_IPV6), #__VA_ARGS__, __VA_ARGS__)
/* A sockaddr of cbValue bytes: (pValue, cbValue, ...). */
#define TraceLoggingSocketAddress(...) \
	ETW_TLG_F2((ETW_TLG_MK_BCNT, 1, TlgInBINARY, TlgOutSOCKETADDRESS), \
		   __VA_ARGS__)
/* A SID: (pValue, ...), 8 + 4 * SubAuthorityCount bytes. */
#define TraceLoggingSid(...) \
	ETW_TLG_F1((ETW_TLG_MK_SID), #__VA_ARGS__, __VA_ARGS__)

/* The next fieldCount fields are the members: (fieldCount, name, ...). */
#define TraceLoggingStruct(...) \
	ETW_TLG_F1((ETW_TLG_MK_META, TlgInSTRUCT), #__VA_ARGS__, __VA_ARGS__)

/*
 * Packed fields: the metadata and the data given apart, for layouts the
 * typed macros do not cover.  PackedField(pValue, cbValue, inType, name,
 * ...) is both; PackedMetadata(inType, name, ...) and PackedData(pValue,
 * cbValue) are one each, PackedDataEx adds a descriptor type.
 */
#define TraceLoggingPackedField(...) \
	ETW_TLG_F3((ETW_TLG_MK_PACKEDF), __VA_ARGS__)
#define ETW_TLG_MK_PACKEDF(p, size, in, name, t) \
	ETW_TLG_MK_PACKED(p, size, in, TlgOutNULL, name, t)
#define TraceLoggingPackedFieldEx(...) \
	ETW_TLG_F4((ETW_TLG_MK_PACKED), __VA_ARGS__)
#define TraceLoggingPackedMetadata(...) \
	ETW_TLG_F1((ETW_TLG_MK_PACKEDM), #__VA_ARGS__, __VA_ARGS__)
#define ETW_TLG_MK_PACKEDM(in, name, t) \
	ETW_TLG_MK_META(in, TlgOutNULL, name, t)
#define TraceLoggingPackedMetadataEx(...) \
	ETW_TLG_F2((ETW_TLG_MK_META), __VA_ARGS__)
#define TraceLoggingPackedStruct(...) \
	ETW_TLG_F1((ETW_TLG_MK_META, TlgInSTRUCT), #__VA_ARGS__, __VA_ARGS__)
/* A struct array: the data holds a UINT16 count, then the elements. */
#define TraceLoggingPackedStructArray(...) \
	ETW_TLG_F1((ETW_TLG_MK_META, TlgInSTRUCT | ETW_TLG_IN_VCOUNT), \
		   #__VA_ARGS__, __VA_ARGS__)
#define TraceLoggingPackedData(pValue, cbValue) \
	(ETW_TLGK_DATA, (ETW_TLGD_PTR, pValue, cbValue))
#define TraceLoggingPackedDataEx(pValue, cbValue, dataDescType) \
	(ETW_TLGK_DATA, (ETW_TLGD_RAW, pValue, cbValue, dataDescType))

#ifdef __cplusplus
#include <type_traits>

/*
 * TraceLoggingValue(value [, name [, description [, tags]]]), C++ only as
 * in the SDK: the field's type follows the value's.  etw_tlg_auto<T>
 * gives T's InType, OutType and data descriptor; a type it has no
 * specialisation for does not compile.
 */
template <typename T, typename Enable = void> struct etw_tlg_auto;

template <typename T> struct etw_tlg_auto_fixed {
	static void desc(EVENT_DATA_DESCRIPTOR *d, const T &v)
	{
		etw_tlg_desc(d, &v, sizeof(T), 0);
	}
};

/* Integers by size and sign; the character types and bool apart. */
template <typename T> struct etw_tlg_auto<T, typename std::enable_if<
		std::is_integral<T>::value && !std::is_same<T, bool>::value &&
		!std::is_same<T, char>::value &&
		!std::is_same<T, char16_t>::value &&
		!std::is_same<T, char32_t>::value &&
		!std::is_same<T, wchar_t>::value>::type>
	: etw_tlg_auto_fixed<T> {
	/* Each signed InType is one below its unsigned one. */
	enum : UINT8 {
		in_type = (sizeof(T) == 1 ? TlgInUINT8 :
			   sizeof(T) == 2 ? TlgInUINT16 :
			   sizeof(T) == 4 ? TlgInUINT32 : TlgInUINT64) -
			  (std::is_signed<T>::value ? 1 : 0),
		out_type = TlgOutNULL
	};
};

#define ETW_TLG_AUTO_FIXED(type, inType, outType) \
	template <> struct etw_tlg_auto<type> : etw_tlg_auto_fixed<type> { \
		enum : UINT8 { in_type = inType, out_type = outType }; \
	}
ETW_TLG_AUTO_FIXED(bool, TlgInUINT8, TlgOutBOOLEAN);
ETW_TLG_AUTO_FIXED(char, TlgInUINT8, TlgOutSTRING);
ETW_TLG_AUTO_FIXED(char16_t, TlgInUINT16, TlgOutSTRING);
ETW_TLG_AUTO_FIXED(float, TlgInFLOAT, TlgOutNULL);
ETW_TLG_AUTO_FIXED(double, TlgInDOUBLE, TlgOutNULL);
ETW_TLG_AUTO_FIXED(GUID, TlgInGUID, TlgOutNULL);
ETW_TLG_AUTO_FIXED(FILETIME, TlgInFILETIME, TlgOutNULL);
ETW_TLG_AUTO_FIXED(SYSTEMTIME, TlgInSYSTEMTIME, TlgOutNULL);

/* Pointers are written as their address, strings excepted (below). */
template <typename T> struct etw_tlg_auto<T *> : etw_tlg_auto_fixed<T *> {
	enum : UINT8 { in_type = TlgInPOINTER, out_type = TlgOutNULL };
};

/* NUL-terminated strings, NULL written as "". */
template <typename C> struct etw_tlg_auto_str {
	enum : UINT8 {
		in_type = sizeof(C) == 1 ? TlgInANSISTRING : TlgInUNICODESTRING,
		out_type = TlgOutNULL
	};
	static void desc(EVENT_DATA_DESCRIPTOR *d, const C *s)
	{
		if (sizeof(C) == 1)
			etw_tlg_desc_str(d, (const char *)s);
		else
			etw_tlg_desc_wstr(d, (const WCHAR *)s);
	}
};
template <> struct etw_tlg_auto<const char *> : etw_tlg_auto_str<char> {};
template <> struct etw_tlg_auto<char *> : etw_tlg_auto_str<char> {};
template <> struct etw_tlg_auto<const char16_t *>
	: etw_tlg_auto_str<char16_t> {};
template <> struct etw_tlg_auto<char16_t *> : etw_tlg_auto_str<char16_t> {};
#if __SIZEOF_WCHAR_T__ == 2
/* -fshort-wchar: wchar_t is a UTF-16 unit, as on Windows. */
ETW_TLG_AUTO_FIXED(wchar_t, TlgInUINT16, TlgOutSTRING);
template <> struct etw_tlg_auto<const wchar_t *>
	: etw_tlg_auto_str<wchar_t> {};
template <> struct etw_tlg_auto<wchar_t *> : etw_tlg_auto_str<wchar_t> {};
#endif

#define ETW_TLG_AUTO_T(v) \
	etw_tlg_auto<typename std::decay<decltype(v)>::type>
#define ETW_TLG_MK_AUTO(v, name, t) \
	(ETW_TLGK_FLD, name, ETW_TLG_AUTO_T(v)::in_type, \
	 ETW_TLG_AUTO_T(v)::out_type, t, (ETW_TLGD_AUTO, v))
#define ETW_TLG_DN_ETW_TLGD_AUTO(n, v) 1
#define ETW_TLG_DV_ETW_TLGD_AUTO(n, v) \
	auto const etw_tlg_v##n = (v); \
	ETW_TLG_AUTO_T(etw_tlg_v##n)::desc(&etw_tlg_data[etw_tlg_n++], \
					   etw_tlg_v##n);
#define TraceLoggingValue(...) \
	ETW_TLG_F1((ETW_TLG_MK_AUTO), #__VA_ARGS__, __VA_ARGS__)
#endif

#endif /* _TRACELOGGINGPROVIDER_H_ */
