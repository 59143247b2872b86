/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ETW calls of an etwctl mc header, replaced through its MCGEN_*
 * overrides: registering enables the provider at every level and
 * keyword, and each event written is printed, one line, for
 * ctl/tests/mc_test.c to decode with TDH:
 *
 *   E ID VERSION CHANNEL LEVEL OPCODE TASK KEYWORD TRAITS HEX
 *
 * TRAITS is the size of the provider traits the header put first, HEX
 * the payload: every other EVENT_DATA_DESCRIPTOR's bytes, in order.
 * Include before the generated header, in C or C++.
 */
#ifndef _MC_HOOKS_H
#define _MC_HOOKS_H

#include <stdio.h>
#include <windows.h>
#include <evntrace.h>
#include <evntprov.h>

#define MCGEN_EVENTREGISTER mc_hook_register
#define MCGEN_EVENTUNREGISTER mc_hook_unregister
#define MCGEN_EVENTSETINFORMATION mc_hook_set_information
#define MCGEN_EVENTWRITETRANSFER mc_hook_write

static ULONG mc_hook_traits;

static ULONG mc_hook_register(LPCGUID id, PENABLECALLBACK cb, PVOID ctx,
			      PREGHANDLE h)
{
	*h = 1;
	if (cb)
		cb(id, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0xff, ~0ull, 0, NULL,
		   ctx);
	return ERROR_SUCCESS;
}

static ULONG mc_hook_unregister(REGHANDLE h)
{
	return h == 1 ? ERROR_SUCCESS : ERROR_INVALID_HANDLE;
}

static ULONG mc_hook_set_information(REGHANDLE h, EVENT_INFO_CLASS c,
				     PVOID info, ULONG len)
{
	(void)info;
	mc_hook_traits = h == 1 && c == EventProviderSetTraits ? len : 0;
	return ERROR_SUCCESS;
}

static ULONG mc_hook_write(REGHANDLE h, PCEVENT_DESCRIPTOR d, LPCGUID act,
			   LPCGUID rel, ULONG n, PEVENT_DATA_DESCRIPTOR data)
{
	ULONG i, j;

	(void)act;
	(void)rel;
	if (h != 1 || !n || data[0].Reserved != 2 ||
	    data[0].Size != mc_hook_traits)
		return ERROR_INVALID_PARAMETER;
	printf("E %u %u %u %u %u %u 0x%llx %u ", d->Id, d->Version,
	       d->Channel, d->Level, d->Opcode, d->Task,
	       (unsigned long long)d->Keyword, data[0].Size);
	for (i = 1; i < n; i++)
		for (j = 0; j < data[i].Size; j++)
			printf("%02x", ((const unsigned char *)(ULONG_PTR)
					data[i].Ptr)[j]);
	printf("\n");
	return ERROR_SUCCESS;
}

#endif /* _MC_HOOKS_H */
