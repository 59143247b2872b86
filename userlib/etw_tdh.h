/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libetw's TDH internals, shared by etw_tdh.c (the schema of an event:
 * TdhGetEventInformation), etw_tdh_data.c (TdhGetPropertySize,
 * TdhGetProperty) and etw_tdh_format.c (TdhFormatProperty), and by
 * etwctl.  Not installed.  Every function returns a Win32 code.
 */
#ifndef _ETW_TDH_H
#define _ETW_TDH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <tdh.h>

ULONG etw_tdh_pointer_size(const EVENT_RECORD *ev, ULONG count,
			   const TDH_CONTEXT *ctx, ULONG *ptr_size);
ULONG etw_tdh_event_info(const EVENT_RECORD *ev, TRACE_EVENT_INFO **tei);
ULONG etw_tdh_fixed_size(USHORT in, ULONG ptr_size);
const EVENT_HEADER_EXTENDED_DATA_ITEM *
etw_tdh_ext(const EVENT_RECORD *ev, USHORT type);
bool etw_tdh_cache_lookup(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			  ULONG cap, ULONG *needed, ULONG *ret);
void etw_tdh_cache_store(const EVENT_RECORD *ev, ULONG ptr_size,
			 const BYTE *tei, ULONG size);
ULONG etw_tdh_value_size(USHORT in, USHORT out, USHORT length,
			 ULONG ptr_size, const BYTE *p, size_t avail,
			 ULONG *size);
ULONG etw_tdh_load_manifest(PWSTR path, FILE *err);
ULONG etw_tdh_kernel_build(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			   ULONG cap, ULONG *needed);

#endif /* _ETW_TDH_H */
