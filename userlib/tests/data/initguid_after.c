/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * INITGUID defined after <windows.h> (or <initguid.h> included, with
 * INITGUID_HEADER), then <evntrace.h>: the GUIDs of evntrace.h are
 * defined in this unit, as on Windows, so the program links alone.  With
 * NO_INITGUID neither is done, and the program must not link.  Exit
 * status 0 when the GUIDs have their values.
 */
#include <windows.h>
#ifdef INITGUID_HEADER
#include <initguid.h>
#elif !defined(NO_INITGUID)
#define INITGUID
#endif
#include <guiddef.h>
#include <evntrace.h>

int main(void)
{
	static const GUID header = { 0x68fdd900, 0x4a3e, 0x11d1,
		{ 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3 } };
	static const GUID kernel = { 0x9e814aad, 0x3204, 0x11d2,
		{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

	return memcmp(&EventTraceGuid, &header, sizeof(GUID)) ||
		memcmp(&SystemTraceControlGuid, &kernel, sizeof(GUID));
}
