/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * comutil.h - COM's C++ string and variant classes (_bstr_t, _variant_t)
 * are not part of libetw: ETW samples include this header without using
 * them, so it brings in <windows.h> only, and code that does use them
 * fails to compile, naming what it lacks.
 */
#include <windows.h>
