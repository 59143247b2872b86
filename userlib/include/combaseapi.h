/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * combaseapi.h - of COM, the GUID string functions (StringFromGUID2,
 * StringFromCLSID, StringFromIID, CLSIDFromString, IIDFromString) and the
 * task allocator they use (CoTaskMemAlloc, CoTaskMemFree), which
 * <windows.h> declares.
 */
#include <windows.h>
