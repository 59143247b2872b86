//**********************************************************************`
//* SPDX-License-Identifier: GPL-2.0                                   *`
//* A header in the shape mc.exe -um generates, for mcgen_events.man,  *`
//* written by hand for the etw tests (nothing here is generated or    *`
//* copied): MSVC-isms and all, it must compile unchanged against      *`
//* libetw's headers in C and C++17, in several units of one program.  *`
//**********************************************************************`
#pragma once

//*****************************************************************************
//
// Notes on the ETW event code in this header:
//
// - The EventWrite[EventName] macros check EventEnabled[EventName]() (one
//   bit of the provider's enable mask, kept by McGenControlCallbackV2) and
//   call a template function that fills an EVENT_DATA_DESCRIPTOR per field.
// - Descriptor 0 of every event carries the provider traits, marked as
//   EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA.
// - The MCGEN_EVENTREGISTER, MCGEN_EVENTUNREGISTER, MCGEN_EVENTSETINFORMATION
//   and MCGEN_EVENTWRITETRANSFER macros may be defined before including this
//   header to replace the ETW API the helpers call; the helper names carry
//   the replacement's name, so units may choose differently.
//
//*****************************************************************************

#include <wmistr.h>
#include <evntrace.h>
#include <evntprov.h>

#ifndef ETW_INLINE
  #ifdef _ETW_KM_
    // In kernel mode, save stack space by never inlining templates.
    #define ETW_INLINE DECLSPEC_NOINLINE __inline
  #else
    // In user mode, save code size by inlining templates only if they are small.
    #define ETW_INLINE __inline
  #endif
#endif // ETW_INLINE

#if defined(__cplusplus)
extern "C" {
#endif

//
// MCGEN_DISABLE_PROVIDER_CODE_GENERATION macro:
// Define this macro to have the compiler skip the generated functions in this
// header.
//
#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//
// MCGEN_USE_KERNEL_MODE_APIS macro:
// Controls whether the generated code uses kernel-mode or user-mode APIs.
//
#ifndef MCGEN_USE_KERNEL_MODE_APIS
  #ifdef _ETW_KM_
    #define MCGEN_USE_KERNEL_MODE_APIS 1
  #else
    #define MCGEN_USE_KERNEL_MODE_APIS 0
  #endif
#endif // MCGEN_USE_KERNEL_MODE_APIS

//
// MCGEN_HAVE_EVENTSETINFORMATION macro:
// 1: call MCGEN_EVENTSETINFORMATION directly; 2: look EventSetInformation up
// at run time; 0: provider traits are not registered.
//
#ifndef MCGEN_HAVE_EVENTSETINFORMATION
  #ifdef MCGEN_EVENTSETINFORMATION             // if MCGEN_EVENTSETINFORMATION has been customized,
    #define MCGEN_HAVE_EVENTSETINFORMATION   1 //   directly invoke MCGEN_EVENTSETINFORMATION(...).
  #elif MCGEN_USE_KERNEL_MODE_APIS             // else if using kernel-mode APIs,
    #if NTDDI_VERSION >= 0x06040000            //   if target OS is Windows 10 or later,
      #define MCGEN_HAVE_EVENTSETINFORMATION 1 //     directly invoke EtwSetInformation(...).
    #else                                      //   else
      #define MCGEN_HAVE_EVENTSETINFORMATION 2 //     find "EtwSetInformation" at run time.
    #endif                                     // else (using user-mode APIs)
  #else                                        //   if target OS and SDK is Windows 8 or later,
    #if WINVER >= 0x0602 && defined(EVENT_FILTER_TYPE_SCHEMATIZED)
      #define MCGEN_HAVE_EVENTSETINFORMATION 1 //     directly invoke EventSetInformation(...).
    #else                                      //   else
      #define MCGEN_HAVE_EVENTSETINFORMATION 2 //     find "EventSetInformation" at run time.
    #endif
  #endif
#endif // MCGEN_HAVE_EVENTSETINFORMATION

//
// MCGEN Override Macros: each must be a simple identifier, defined before the
// first MC-generated header of a unit and not changed afterwards.
//
#ifndef MCGEN_EVENTREGISTER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTREGISTER        EtwRegister
  #else
    #define MCGEN_EVENTREGISTER        EventRegister
  #endif
#endif // MCGEN_EVENTREGISTER
#ifndef MCGEN_EVENTUNREGISTER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTUNREGISTER      EtwUnregister
  #else
    #define MCGEN_EVENTUNREGISTER      EventUnregister
  #endif
#endif // MCGEN_EVENTUNREGISTER
#ifndef MCGEN_EVENTSETINFORMATION
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTSETINFORMATION  EtwSetInformation
  #else
    #define MCGEN_EVENTSETINFORMATION  EventSetInformation
  #endif
#endif // MCGEN_EVENTSETINFORMATION
#ifndef MCGEN_EVENTWRITETRANSFER
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define MCGEN_EVENTWRITETRANSFER   EtwWriteTransfer
  #else
    #define MCGEN_EVENTWRITETRANSFER   EventWriteTransfer
  #endif
#endif // MCGEN_EVENTWRITETRANSFER

//
// MCGEN_EVENT_ENABLED macro:
// Override to control how the EventWrite[EventName] macros determine whether
// an event is enabled.
//
#ifndef MCGEN_EVENT_ENABLED
#define MCGEN_EVENT_ENABLED(EventName) EventEnabled##EventName()
#endif

//
// MCGEN_ENABLE_CHECK macro:
// Determines whether the specified event would be considered as enabled
// based on the state of the specified context.
//
#ifndef MCGEN_ENABLE_CHECK
#define MCGEN_ENABLE_CHECK(Context, Descriptor) (Context.IsEnabled && McGenEventEnabled(&Context, &Descriptor))
#endif

#if !defined(MCGEN_TRACE_CONTEXT_DEF)
#define MCGEN_TRACE_CONTEXT_DEF
// This structure is for use by MC-generated code and should not be used directly.
typedef struct _MCGEN_TRACE_CONTEXT
{
    TRACEHANDLE            RegistrationHandle;
    TRACEHANDLE            Logger;      // Used as pointer to provider traits.
    ULONGLONG              MatchAnyKeyword;
    ULONGLONG              MatchAllKeyword;
    ULONG                  Flags;
    ULONG                  IsEnabled;
    UCHAR                  Level;
    UCHAR                  Reserve;
    USHORT                 EnableBitsCount;
    PULONG                 EnableBitMask;
    const ULONGLONG*       EnableKeyWords;
    const UCHAR*           EnableLevel;
} MCGEN_TRACE_CONTEXT, *PMCGEN_TRACE_CONTEXT;
#endif // MCGEN_TRACE_CONTEXT_DEF

#if !defined(MCGEN_LEVEL_KEYWORD_ENABLED_DEF)
#define MCGEN_LEVEL_KEYWORD_ENABLED_DEF
//
// Determines whether an event with a given Level and Keyword would be
// considered as enabled based on the state of the specified context.
//
FORCEINLINE
BOOLEAN
McGenLevelKeywordEnabled(
    _In_ PMCGEN_TRACE_CONTEXT EnableInfo,
    _In_ UCHAR Level,
    _In_ ULONGLONG Keyword
    )
{
    //
    // A level of 0 on either side means every level.
    //
    if ((Level <= EnableInfo->Level) || // This also covers the case of Level == 0.
        (EnableInfo->Level == 0)) {

        //
        // An event without keywords is always wanted; otherwise it needs one
        // of MatchAnyKeyword and all of MatchAllKeyword.
        //
        if ((Keyword == (ULONGLONG)0) ||
            ((Keyword & EnableInfo->MatchAnyKeyword) &&
             ((Keyword & EnableInfo->MatchAllKeyword) == EnableInfo->MatchAllKeyword))) {
            return TRUE;
        }
    }

    return FALSE;
}
#endif // MCGEN_LEVEL_KEYWORD_ENABLED_DEF

#if !defined(MCGEN_EVENT_ENABLED_DEF)
#define MCGEN_EVENT_ENABLED_DEF
//
// Determines whether the specified event would be considered as enabled based
// on the state of the specified context.
//
FORCEINLINE
BOOLEAN
McGenEventEnabled(
    _In_ PMCGEN_TRACE_CONTEXT EnableInfo,
    _In_ PCEVENT_DESCRIPTOR EventDescriptor
    )
{
    return McGenLevelKeywordEnabled(EnableInfo, EventDescriptor->Level, EventDescriptor->Keyword);
}
#endif // MCGEN_EVENT_ENABLED_DEF

#if !defined(MCGEN_CONTROL_CALLBACK)
#define MCGEN_CONTROL_CALLBACK

// This function is for use by MC-generated code and should not be used directly.
DECLSPEC_NOINLINE __inline
VOID
__stdcall
McGenControlCallbackV2(
    _In_ LPCGUID SourceId,
    _In_ ULONG ControlCode,
    _In_ UCHAR Level,
    _In_ ULONGLONG MatchAnyKeyword,
    _In_ ULONGLONG MatchAllKeyword,
    _In_opt_ PEVENT_FILTER_DESCRIPTOR FilterData,
    _Inout_opt_ PVOID CallbackContext
    )
/*++

Routine Description:

    ETW calls this function when a session enables or disables the provider;
    it records the session's level and keywords in the context and sets one
    bit per (level, keyword) pair of the manifest's events.

--*/
{
    PMCGEN_TRACE_CONTEXT Ctx = (PMCGEN_TRACE_CONTEXT)CallbackContext;
    ULONG Ix;
#ifndef MCGEN_PRIVATE_ENABLE_CALLBACK_V2
    UNREFERENCED_PARAMETER(SourceId);
    UNREFERENCED_PARAMETER(FilterData);
#endif

    if (Ctx == NULL) {
        return;
    }

    switch (ControlCode) {

        case EVENT_CONTROL_CODE_ENABLE_PROVIDER:
            Ctx->Level = Level;
            Ctx->MatchAnyKeyword = MatchAnyKeyword;
            Ctx->MatchAllKeyword = MatchAllKeyword;
            Ctx->IsEnabled = EVENT_CONTROL_CODE_ENABLE_PROVIDER;

            for (Ix = 0; Ix < Ctx->EnableBitsCount; Ix += 1) {
                if (McGenLevelKeywordEnabled(Ctx, Ctx->EnableLevel[Ix], Ctx->EnableKeyWords[Ix]) != FALSE) {
                    Ctx->EnableBitMask[Ix >> 5] |= (1u << (Ix % 32));
                } else {
                    Ctx->EnableBitMask[Ix >> 5] &= ~(1u << (Ix % 32));
                }
            }
            break;

        case EVENT_CONTROL_CODE_DISABLE_PROVIDER:
            Ctx->IsEnabled = EVENT_CONTROL_CODE_DISABLE_PROVIDER;
            Ctx->Level = 0;
            Ctx->MatchAnyKeyword = 0;
            Ctx->MatchAllKeyword = 0;
            if (Ctx->EnableBitsCount > 0) {
#pragma warning(suppress: 26451) // Arithmetic overflow cannot occur, no matter the value of EnableBitCount
                RtlZeroMemory(Ctx->EnableBitMask, (((Ctx->EnableBitsCount - 1) / 32) + 1) * sizeof(ULONG));
            }
            break;

        default:
            break;
    }

#ifdef MCGEN_PRIVATE_ENABLE_CALLBACK_V2
    //
    // Call user defined callback
    //
    MCGEN_PRIVATE_ENABLE_CALLBACK_V2(
        SourceId,
        ControlCode,
        Level,
        MatchAnyKeyword,
        MatchAllKeyword,
        FilterData,
        CallbackContext
        );
#endif // MCGEN_PRIVATE_ENABLE_CALLBACK_V2

    return;
}

#endif // MCGEN_CONTROL_CALLBACK

#ifndef _mcgen_PENABLECALLBACK
  #if MCGEN_USE_KERNEL_MODE_APIS
    #define _mcgen_PENABLECALLBACK      PETWENABLECALLBACK
  #else
    #define _mcgen_PENABLECALLBACK      PENABLECALLBACK
  #endif
#endif // _mcgen_PENABLECALLBACK

#if !defined(_mcgen_PASTE2)
// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_PASTE2(a, b) _mcgen_PASTE2_imp(a, b)
#define _mcgen_PASTE2_imp(a, b) a##b
#endif // _mcgen_PASTE2

#if !defined(_mcgen_PASTE3)
// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_PASTE3(a, b, c) _mcgen_PASTE3_imp(a, b, c)
#define _mcgen_PASTE3_imp(a, b, c) a##b##_##c
#endif // _mcgen_PASTE3

//
// Macro validation
//

// Validate MCGEN_EVENTREGISTER:

// Trigger an error if MCGEN_EVENTREGISTER is not an unqualified (simple) identifier:
struct _mcgen_PASTE2(MCGEN_EVENTREGISTER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTREGISTER);

// Trigger an error if MCGEN_EVENTREGISTER is redefined:
typedef struct _mcgen_PASTE2(MCGEN_EVENTREGISTER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTREGISTER)
    MCGEN_EVENTREGISTER_must_not_be_redefined_between_headers;

// Trigger an error if MCGEN_EVENTREGISTER is defined as a function-like macro:
typedef void MCGEN_EVENTREGISTER_must_not_be_a_functionLike_macro_MCGEN_EVENTREGISTER;
typedef int _mcgen_PASTE2(MCGEN_EVENTREGISTER_must_not_be_a_functionLike_macro_, MCGEN_EVENTREGISTER);

// Validate MCGEN_EVENTUNREGISTER:

struct _mcgen_PASTE2(MCGEN_EVENTUNREGISTER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTUNREGISTER);

typedef struct _mcgen_PASTE2(MCGEN_EVENTUNREGISTER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTUNREGISTER)
    MCGEN_EVENTUNREGISTER_must_not_be_redefined_between_headers;

typedef void MCGEN_EVENTUNREGISTER_must_not_be_a_functionLike_macro_MCGEN_EVENTUNREGISTER;
typedef int _mcgen_PASTE2(MCGEN_EVENTUNREGISTER_must_not_be_a_functionLike_macro_, MCGEN_EVENTUNREGISTER);

// Validate MCGEN_EVENTSETINFORMATION:

struct _mcgen_PASTE2(MCGEN_EVENTSETINFORMATION_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTSETINFORMATION);

typedef struct _mcgen_PASTE2(MCGEN_EVENTSETINFORMATION_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTSETINFORMATION)
    MCGEN_EVENTSETINFORMATION_must_not_be_redefined_between_headers;

typedef void MCGEN_EVENTSETINFORMATION_must_not_be_a_functionLike_macro_MCGEN_EVENTSETINFORMATION;
typedef int _mcgen_PASTE2(MCGEN_EVENTSETINFORMATION_must_not_be_a_functionLike_macro_, MCGEN_EVENTSETINFORMATION);

// Validate MCGEN_EVENTWRITETRANSFER:

struct _mcgen_PASTE2(MCGEN_EVENTWRITETRANSFER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTWRITETRANSFER);

typedef struct _mcgen_PASTE2(MCGEN_EVENTWRITETRANSFER_definition_must_be_an_unqualified_identifier_, MCGEN_EVENTWRITETRANSFER)
    MCGEN_EVENTWRITETRANSFER_must_not_be_redefined_between_headers;

typedef void MCGEN_EVENTWRITETRANSFER_must_not_be_a_functionLike_macro_MCGEN_EVENTWRITETRANSFER;
typedef int _mcgen_PASTE2(MCGEN_EVENTWRITETRANSFER_must_not_be_a_functionLike_macro_, MCGEN_EVENTWRITETRANSFER);

#ifndef McGenEventWrite_def
#define McGenEventWrite_def

// This macro is for use by MC-generated code and should not be used directly.
#define McGenEventWrite _mcgen_PASTE2(McGenEventWrite_, MCGEN_EVENTWRITETRANSFER)

// This function is for use by MC-generated code and should not be used directly.
DECLSPEC_NOINLINE __inline
ULONG __stdcall
McGenEventWrite(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ LPCGUID ActivityId,
    _In_range_(1, 128) ULONG EventDataCount,
    _Pre_cap_(EventDataCount) EVENT_DATA_DESCRIPTOR* EventData
    )
{
    const USHORT UNALIGNED* Traits;

    // Some customizations need to use the Context parameter.
    UNREFERENCED_PARAMETER(Context);

    // Traits pointer is stored in Context->Logger.
    Traits = (const USHORT UNALIGNED*)(UINT_PTR)Context->Logger;

    if (Traits == NULL) {
        EventData[0].Ptr = 0;
        EventData[0].Size = 0;
        EventData[0].Reserved = 0;
    } else {
        EventData[0].Ptr = (ULONG_PTR)Traits;
        EventData[0].Size = *Traits;
        EventData[0].Reserved = 2; // EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA
    }

    return MCGEN_EVENTWRITETRANSFER(
        Context->RegistrationHandle,
        Descriptor,
        ActivityId,
        NULL,
        EventDataCount,
        EventData);
}
#endif // McGenEventWrite_def

#if !defined(McGenEventRegisterUnregister)
#define McGenEventRegisterUnregister

#pragma warning(push)
#pragma warning(disable:6103)
// This macro is for use by MC-generated code and should not be used directly.
#define McGenEventRegister _mcgen_PASTE2(McGenEventRegister_, MCGEN_EVENTREGISTER)

// This function is for use by MC-generated code and should not be used directly.
DECLSPEC_NOINLINE __inline
ULONG __stdcall
McGenEventRegister(
    _In_ LPCGUID ProviderId,
    _In_opt_ _mcgen_PENABLECALLBACK EnableCallback,
    _In_opt_ PVOID CallbackContext,
    _Inout_ PREGHANDLE RegHandle
    )
/*++

Routine Description:

    Registers the provider with ETW.  A provider that is registered already
    (*RegHandle != 0) is left alone and SUCCESS returned, as before.

--*/
{
    ULONG Error;

    if (*RegHandle != 0)
    {
        Error = 0; // ERROR_SUCCESS
    }
    else
    {
        Error = MCGEN_EVENTREGISTER(ProviderId, EnableCallback, CallbackContext, RegHandle);
    }

    return Error;
}
#pragma warning(pop)

// This macro is for use by MC-generated code and should not be used directly.
#define McGenEventUnregister _mcgen_PASTE2(McGenEventUnregister_, MCGEN_EVENTUNREGISTER)

// This function is for use by MC-generated code and should not be used directly.
DECLSPEC_NOINLINE __inline
ULONG __stdcall
McGenEventUnregister(_Inout_ PREGHANDLE RegHandle)
/*++

Routine Description:

    Unregisters from ETW and sets *RegHandle = 0; SUCCESS when the provider
    was never registered.

--*/
{
    ULONG Error;

    if(*RegHandle == 0)
    {
        Error = 0; // ERROR_SUCCESS
    }
    else
    {
        Error = MCGEN_EVENTUNREGISTER(*RegHandle);
        *RegHandle = (REGHANDLE)0;
    }

    return Error;
}

#endif // McGenEventRegisterUnregister

#ifndef McGenEventSetInformation_def
#define McGenEventSetInformation_def

// This macro is for use by MC-generated code and should not be used directly.
#define McGenEventSetInformation _mcgen_PASTE2(McGenEventSetInformation_, MCGEN_EVENTSETINFORMATION)

// This function is for use by MC-generated code and should not be used directly.
_IRQL_requires_max_(PASSIVE_LEVEL)
DECLSPEC_NOINLINE __inline
ULONG __stdcall
McGenEventSetInformation(
    _In_ REGHANDLE RegHandle,
    _In_ EVENT_INFO_CLASS InformationClass,
    _In_opt_bytecount_(InformationLength) PVOID EventInformation,
    _In_ ULONG InformationLength
    )
{
    ULONG Error;

#if MCGEN_HAVE_EVENTSETINFORMATION == 1

#pragma warning(suppress: 6387) // It's ok for EventInformation to be null if InformationLength is 0.
    Error = MCGEN_EVENTSETINFORMATION(
        RegHandle,
        InformationClass,
        EventInformation,
        InformationLength);

#elif MCGEN_HAVE_EVENTSETINFORMATION == 2

    HMODULE hEventing;
    Error = ERROR_NOT_SUPPORTED;
    if (GetModuleHandleExW(0, L"advapi32", &hEventing))
    {
        typedef ULONG(WINAPI* PFEventSetInformation)(
            _In_ REGHANDLE regHandle,
            _In_ EVENT_INFO_CLASS informationClass,
            _In_opt_bytecount_(informationLength) PVOID eventInformation,
            _In_ ULONG informationLength);
        PFEventSetInformation pfEventSetInformation =
            (PFEventSetInformation)GetProcAddress(hEventing, "EventSetInformation");
        if (pfEventSetInformation)
        {
            Error = pfEventSetInformation(
                RegHandle,
                InformationClass,
                EventInformation,
                InformationLength);
        }

        FreeLibrary(hEventing);
    }

#else // MCGEN_HAVE_EVENTSETINFORMATION == 0

    (void)RegHandle;
    (void)InformationClass;
    (void)EventInformation;
    (void)InformationLength;

    Error = ERROR_NOT_SUPPORTED;

#endif // MCGEN_HAVE_EVENTSETINFORMATION

    return Error;
}
#endif // McGenEventSetInformation_def

#ifndef McGenEventRegisterContext_def
#define McGenEventRegisterContext_def

// This macro is for use by MC-generated code and should not be used directly.
#define McGenEventRegisterContext _mcgen_PASTE3(McGenEventRegisterContext_, MCGEN_EVENTREGISTER, MCGEN_EVENTSETINFORMATION)

#pragma warning(push)
#pragma warning(disable:6103)
// This function is for use by MC-generated code and should not be used directly.
_IRQL_requires_max_(PASSIVE_LEVEL)
DECLSPEC_NOINLINE __inline
ULONG __stdcall
McGenEventRegisterContext(
    _In_ LPCGUID ProviderId,
    _In_opt_ _mcgen_PENABLECALLBACK EnableCallback,
    _In_opt_ PVOID CallbackContext,
    _Inout_ PMCGEN_TRACE_CONTEXT Context
    )
/*++

Routine Description:

    Registers the provider with ETW and then its traits, which
    Context->Logger points at.  Registering a registered provider is a bug:
    INVALID_PARAMETER.

--*/
{
    ULONG Error;

    if (Context->RegistrationHandle != 0)
    {
        Error = ERROR_INVALID_PARAMETER;
    }
    else
    {
        Error = MCGEN_EVENTREGISTER(
            ProviderId,
            EnableCallback,
            CallbackContext,
            &Context->RegistrationHandle);
        if (Error == 0 && Context->Logger != 0)
        {
            (void)McGenEventSetInformation(
                Context->RegistrationHandle,
                (EVENT_INFO_CLASS)2, // EventProviderSetTraits
                (void*)(UINT_PTR)Context->Logger,
                *(USHORT const UNALIGNED*)(UINT_PTR)Context->Logger);
        }
    }

    return Error;
}
#pragma warning(pop)
#endif // McGenEventRegisterContext_def

#ifndef _mcgen_EVENT_BIT_SET
  #if defined(_M_IX86) || defined(_M_X64)
    // This macro is for use by MC-generated code and should not be used directly.
    #define _mcgen_EVENT_BIT_SET(EnableBits, BitPosition) ((((const unsigned char*)EnableBits)[BitPosition >> 3] & (1u << (BitPosition & 7))) != 0)
  #else // CPU type
    // This macro is for use by MC-generated code and should not be used directly.
    #define _mcgen_EVENT_BIT_SET(EnableBits, BitPosition) ((EnableBits[BitPosition >> 5] & (1u << (BitPosition & 31))) != 0)
  #endif // CPU type
#endif // _mcgen_EVENT_BIT_SET

#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++
// Provider "Etw-Test-McGen" event count 6
//+++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++

// Provider GUID = 3f1e5c0a-8b2d-4e7f-9a61-0c5d2b7e4a19
EXTERN_C __declspec(selectany) const GUID ETW_TEST_MCGEN = {0x3f1e5c0a, 0x8b2d, 0x4e7f, {0x9a, 0x61, 0x0c, 0x5d, 0x2b, 0x7e, 0x4a, 0x19}};

#ifndef ETW_TEST_MCGEN_Traits
#define ETW_TEST_MCGEN_Traits ( \
    "\x11\x00" /* Total size of traits = 17 */ \
    "Etw-Test-McGen\x00" /* Provider name */ \
    )
#endif // ETW_TEST_MCGEN_Traits

//
// Tasks
//
#define TASK_TRANSFER 0x1

//
// Keyword
//
#define KW_SESSION 0x1
#define KW_DATA 0x2

//
// Event Descriptors
//
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR TransferStart = {0x1, 0x0, 0x0, 0x4, 0x1, 0x1, 0x2};
#define TransferStart_value 0x1
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR TransferStop = {0x2, 0x1, 0x0, 0x5, 0x2, 0x1, 0x3};
#define TransferStop_value 0x2
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR Heartbeat = {0x3, 0x0, 0x0, 0x3, 0x0, 0x0, 0x1};
#define Heartbeat_value 0x3
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR Failure = {0x4, 0x0, 0x0, 0x2, 0x0, 0x0, 0x0};
#define Failure_value 0x4
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR FileOpened = {0x5, 0x0, 0x0, 0x4, 0x0, 0x0, 0x1};
#define FileOpened_value 0x5
EXTERN_C __declspec(selectany) const EVENT_DESCRIPTOR Note = {0x6, 0x0, 0x0, 0x5, 0x0, 0x0, 0x0};
#define Note_value 0x6

//
// MCGEN_DISABLE_PROVIDER_CODE_GENERATION macro:
// Define this macro to have the compiler skip the generated functions in this
// header.
//
#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//
// Event Enablement Bits
// These variables are for use by MC-generated code and should not be used directly.
//
EXTERN_C __declspec(selectany) DECLSPEC_CACHEALIGN ULONG ETW_TEST_MCGENEnableBits[1];
EXTERN_C __declspec(selectany) const ULONGLONG ETW_TEST_MCGEN_Keywords[6] = {0x2, 0x3, 0x1, 0x0, 0x1, 0x0};
EXTERN_C __declspec(selectany) const unsigned char ETW_TEST_MCGEN_Level[6] = {4, 5, 3, 2, 4, 5};

//
// Provider context
//
EXTERN_C __declspec(selectany) MCGEN_TRACE_CONTEXT ETW_TEST_MCGEN_Context = {0, (ULONG_PTR)ETW_TEST_MCGEN_Traits, 0, 0, 0, 0, 0, 0, 6, ETW_TEST_MCGENEnableBits, ETW_TEST_MCGEN_Keywords, ETW_TEST_MCGEN_Level};

//
// Provider REGHANDLE
//
#define Etw_Test_McGenHandle (ETW_TEST_MCGEN_Context.RegistrationHandle)

//
// This macro is set to 1, indicating that the EventWrite[Name] macros
// have an Activity parameter. This is controlled by the -km and -um options.
//
#define ETW_TEST_MCGEN_EventWriteActivity 1

//
// Register with ETW using the control GUID specified in the manifest.
// Invoke this macro during module initialization (i.e. program startup,
// DLL process attach, or driver load) to initialize the provider.
// Note that if this function returns an error, the error means that
// will not work, but no action needs to be taken -- even if EventRegister
// returns an error, it is generally safe to use EventWrite and
// EventUnregister macros (they will be no-ops if EventRegister failed).
//
#ifndef EventRegisterEtw_Test_McGen
#define EventRegisterEtw_Test_McGen() McGenEventRegisterContext(&ETW_TEST_MCGEN, McGenControlCallbackV2, &ETW_TEST_MCGEN_Context, &ETW_TEST_MCGEN_Context)
#endif

//
// Register with ETW using a specific control GUID (i.e. a GUID other than what
// is specified in the manifest). Advanced scenarios only.
//
#ifndef EventRegisterByGuidEtw_Test_McGen
#define EventRegisterByGuidEtw_Test_McGen(Guid) McGenEventRegisterContext(&(Guid), McGenControlCallbackV2, &ETW_TEST_MCGEN_Context, &ETW_TEST_MCGEN_Context)
#endif

//
// Unregister with ETW and close the provider.
// Invoke this macro during module shutdown (i.e. program exit, DLL process
// detach, or driver unload) to unregister the provider.
//
#ifndef EventUnregisterEtw_Test_McGen
#define EventUnregisterEtw_Test_McGen() McGenEventUnregister(&Etw_Test_McGenHandle)
#endif

//
// Enablement check macro for event "TransferStart"
//
#define EventEnabledTransferStart() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 0)

//
// Event write macros for event "TransferStart"
//
#define EventWriteTransferStart(Activity, Name, Size) \
        MCGEN_EVENT_ENABLED(TransferStart) \
        ? _mcgen_TEMPLATE_FOR_TransferStart(&ETW_TEST_MCGEN_Context, &TransferStart, Activity, Name, Size) : 0
#define EventWriteTransferStart_AssumeEnabled(Name, Size) \
        _mcgen_TEMPLATE_FOR_TransferStart(&ETW_TEST_MCGEN_Context, &TransferStart, NULL, Name, Size)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_TransferStart _mcgen_PASTE2(McTemplateU0sq_, MCGEN_EVENTWRITETRANSFER)

//
// Enablement check macro for event "TransferStop"
//
#define EventEnabledTransferStop() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 1)

//
// Event write macros for event "TransferStop"
//
#define EventWriteTransferStop(Activity, Bytes, Status) \
        MCGEN_EVENT_ENABLED(TransferStop) \
        ? _mcgen_TEMPLATE_FOR_TransferStop(&ETW_TEST_MCGEN_Context, &TransferStop, Activity, Bytes, Status) : 0
#define EventWriteTransferStop_AssumeEnabled(Bytes, Status) \
        _mcgen_TEMPLATE_FOR_TransferStop(&ETW_TEST_MCGEN_Context, &TransferStop, NULL, Bytes, Status)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_TransferStop _mcgen_PASTE2(McTemplateU0xd_, MCGEN_EVENTWRITETRANSFER)

//
// Enablement check macro for event "Heartbeat"
//
#define EventEnabledHeartbeat() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 2)

//
// Event write macros for event "Heartbeat"
//
#define EventWriteHeartbeat(Activity) \
        MCGEN_EVENT_ENABLED(Heartbeat) \
        ? _mcgen_TEMPLATE_FOR_Heartbeat(&ETW_TEST_MCGEN_Context, &Heartbeat, Activity) : 0
#define EventWriteHeartbeat_AssumeEnabled() \
        _mcgen_TEMPLATE_FOR_Heartbeat(&ETW_TEST_MCGEN_Context, &Heartbeat, NULL)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_Heartbeat _mcgen_PASTE2(McTemplateU0_, MCGEN_EVENTWRITETRANSFER)

//
// Enablement check macro for event "Failure"
//
#define EventEnabledFailure() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 3)

//
// Event write macros for event "Failure"
//
#define EventWriteFailure(Activity, Code, Message) \
        MCGEN_EVENT_ENABLED(Failure) \
        ? _mcgen_TEMPLATE_FOR_Failure(&ETW_TEST_MCGEN_Context, &Failure, Activity, Code, Message) : 0
#define EventWriteFailure_AssumeEnabled(Code, Message) \
        _mcgen_TEMPLATE_FOR_Failure(&ETW_TEST_MCGEN_Context, &Failure, NULL, Code, Message)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_Failure _mcgen_PASTE2(McTemplateU0qs_, MCGEN_EVENTWRITETRANSFER)

//
// Enablement check macro for event "FileOpened"
//
#define EventEnabledFileOpened() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 4)

//
// Event write macros for event "FileOpened"
//
#define EventWriteFileOpened(Activity, Path, Flags) \
        MCGEN_EVENT_ENABLED(FileOpened) \
        ? _mcgen_TEMPLATE_FOR_FileOpened(&ETW_TEST_MCGEN_Context, &FileOpened, Activity, Path, Flags) : 0
#define EventWriteFileOpened_AssumeEnabled(Path, Flags) \
        _mcgen_TEMPLATE_FOR_FileOpened(&ETW_TEST_MCGEN_Context, &FileOpened, NULL, Path, Flags)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_FileOpened _mcgen_PASTE2(McTemplateU0zq_, MCGEN_EVENTWRITETRANSFER)

//
// Enablement check macro for event "Note"
//
#define EventEnabledNote() _mcgen_EVENT_BIT_SET(ETW_TEST_MCGENEnableBits, 5)

//
// Event write macros for event "Note"
//
#define EventWriteNote(Activity, Text) \
        MCGEN_EVENT_ENABLED(Note) \
        ? _mcgen_TEMPLATE_FOR_Note(&ETW_TEST_MCGEN_Context, &Note, Activity, Text) : 0
#define EventWriteNote_AssumeEnabled(Text) \
        _mcgen_TEMPLATE_FOR_Note(&ETW_TEST_MCGEN_Context, &Note, NULL, Text)

// This macro is for use by MC-generated code and should not be used directly.
#define _mcgen_TEMPLATE_FOR_Note _mcgen_PASTE2(McTemplateU0s_, MCGEN_EVENTWRITETRANSFER)

#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//
// MCGEN_DISABLE_PROVIDER_CODE_GENERATION macro:
// Define this macro to have the compiler skip the generated functions in this
// header.
//
#ifndef MCGEN_DISABLE_PROVIDER_CODE_GENERATION

//
// Template Functions
//

//
// Function for template "(null)" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0_def
#define McTemplateU0_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity
    )
{
#define McTemplateU0_ARGCOUNT 0

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0_ARGCOUNT + 1];

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0_def

//
// Function for template "T_Failure" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0qs_def
#define McTemplateU0qs_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0qs_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity,
    _In_ const unsigned int  _Arg0,
    _In_opt_ LPCSTR  _Arg1
    )
{
#define McTemplateU0qs_ARGCOUNT 2

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0qs_ARGCOUNT + 1];

    EventDataDescCreate(&EventData[1],&_Arg0, sizeof(const unsigned int)  );

    EventDataDescCreate(&EventData[2],
                        (_Arg1 != NULL) ? _Arg1 : "NULL",
                        (_Arg1 != NULL) ? (ULONG)((strlen(_Arg1) + 1) * sizeof(char)) : (ULONG)sizeof("NULL"));

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0qs_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0qs_def

//
// Function for template "T_Note" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0s_def
#define McTemplateU0s_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0s_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity,
    _In_opt_ LPCSTR  _Arg0
    )
{
#define McTemplateU0s_ARGCOUNT 1

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0s_ARGCOUNT + 1];

    EventDataDescCreate(&EventData[1],
                        (_Arg0 != NULL) ? _Arg0 : "NULL",
                        (_Arg0 != NULL) ? (ULONG)((strlen(_Arg0) + 1) * sizeof(char)) : (ULONG)sizeof("NULL"));

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0s_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0s_def

//
// Function for template "T_Start" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0sq_def
#define McTemplateU0sq_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0sq_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity,
    _In_opt_ LPCSTR  _Arg0,
    _In_ const unsigned int  _Arg1
    )
{
#define McTemplateU0sq_ARGCOUNT 2

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0sq_ARGCOUNT + 1];

    EventDataDescCreate(&EventData[1],
                        (_Arg0 != NULL) ? _Arg0 : "NULL",
                        (_Arg0 != NULL) ? (ULONG)((strlen(_Arg0) + 1) * sizeof(char)) : (ULONG)sizeof("NULL"));

    EventDataDescCreate(&EventData[2],&_Arg1, sizeof(const unsigned int)  );

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0sq_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0sq_def

//
// Function for template "T_Stop" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0xd_def
#define McTemplateU0xd_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0xd_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity,
    _In_ const unsigned __int64  _Arg0,
    _In_ const signed int  _Arg1
    )
{
#define McTemplateU0xd_ARGCOUNT 2

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0xd_ARGCOUNT + 1];

    EventDataDescCreate(&EventData[1],&_Arg0, sizeof(const unsigned __int64)  );

    EventDataDescCreate(&EventData[2],&_Arg1, sizeof(const signed int)  );

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0xd_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0xd_def

//
// Function for template "T_File" (and possibly others).
// This function is for use by MC-generated code and should not be used directly.
//
#ifndef McTemplateU0zq_def
#define McTemplateU0zq_def
ETW_INLINE
ULONG
_mcgen_PASTE2(McTemplateU0zq_, MCGEN_EVENTWRITETRANSFER)(
    _In_ PMCGEN_TRACE_CONTEXT Context,
    _In_ PCEVENT_DESCRIPTOR Descriptor,
    _In_opt_ const GUID* Activity,
    _In_opt_ PCWSTR  _Arg0,
    _In_ const unsigned int  _Arg1
    )
{
#define McTemplateU0zq_ARGCOUNT 2

    EVENT_DATA_DESCRIPTOR EventData[McTemplateU0zq_ARGCOUNT + 1];

    EventDataDescCreate(&EventData[1],
                        (_Arg0 != NULL) ? _Arg0 : L"NULL",
                        (_Arg0 != NULL) ? (ULONG)((wcslen(_Arg0) + 1) * sizeof(WCHAR)) : (ULONG)sizeof(L"NULL"));

    EventDataDescCreate(&EventData[2],&_Arg1, sizeof(const unsigned int)  );

    return McGenEventWrite(Context, Descriptor, Activity, McTemplateU0zq_ARGCOUNT + 1, EventData);
}
#endif // McTemplateU0zq_def

#endif // MCGEN_DISABLE_PROVIDER_CODE_GENERATION

#if defined(__cplusplus)
}
#endif
