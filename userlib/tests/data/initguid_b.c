/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* The second INITGUID unit of initguid_a.c. */
#define INITGUID
#include <windows.h>
#include <evntrace.h>

const GUID *other_unit_guid(void);

const GUID *other_unit_guid(void)
{
	return &SystemTraceControlGuid;
}
