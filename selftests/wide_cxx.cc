// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ half of wide_test: wide_record.h's round trips compiled as C++11
 * with -fshort-wchar, where L"..." is wchar_t and must convert to LPCWSTR
 * as on Windows.  Built without exceptions or RTTI, so the test links
 * without the C++ runtime.
 */
#include "wide_record.h"

#define WIDE_CXX_PATH	"/tmp/etw-wide-cxx.etl"

static const GUID wide_cxx_provider = { 0x71de5c00, 0x3a2b, 0x4c5d,
	{ 0x8e, 0x9f, 0x10, 0x21, 0x32, 0x43, 0x54, 0x02 } };

/* C++ proper: wchar_t is its own type, and WCHAR must be it. */
template <typename A, typename B> struct wide_same {
	static const bool value = false;
};
template <typename A> struct wide_same<A, A> {
	static const bool value = true;
};
static_assert(wide_same<WCHAR, wchar_t>::value, "WCHAR is wchar_t");

extern "C" int wide_cxx_record(void);
extern "C" int wide_cxx_realtime(void);

/* Returns wide_record()'s step: 0 when the round trip held. */
int wide_cxx_record(void)
{
	static const WCHAR logger[] = L"etw-wide-c++";
	static const WCHAR file[] = L"" WIDE_CXX_PATH;

	return wide_record(&wide_cxx_provider, logger, sizeof(logger), file,
			   sizeof(file), WIDE_CXX_PATH);
}

/* Returns wide_realtime()'s step: 0 when the event arrived. */
int wide_cxx_realtime(void)
{
	return wide_realtime(&wide_cxx_provider, L"etw-wide-c++-rt");
}
