/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * With initguid_b.c: two units that both define INITGUID link into one
 * program (the definitions are weak, like __declspec(selectany)) and see
 * one GUID.  Exit status 0 when SystemTraceControlGuid has its value.
 */
#define INITGUID
#include <windows.h>
#include <evntrace.h>

const GUID *other_unit_guid(void);

int main(void)
{
	static const GUID want = { 0x9e814aad, 0x3204, 0x11d2,
		{ 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39 } };

	if (other_unit_guid() != &SystemTraceControlGuid)
		return 2;
	return IsEqualGUID(&SystemTraceControlGuid, &want) ? 0 : 1;
}
