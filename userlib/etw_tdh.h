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
#include <stdint.h>
#include <stdio.h>

#include <tdh.h>

ULONG etw_tdh_pointer_size(const EVENT_RECORD *ev, ULONG count,
			   const TDH_CONTEXT *ctx, ULONG *ptr_size);
ULONG etw_tdh_event_info(const EVENT_RECORD *ev, TRACE_EVENT_INFO **tei);
ULONG etw_tdh_fixed_size(USHORT in, ULONG ptr_size);
const EVENT_HEADER_EXTENDED_DATA_ITEM *
etw_tdh_ext(const EVENT_RECORD *ev, USHORT type);

/* Which builder a cached schema is from: the low byte of a key's @tag. */
enum etw_tdh_cache_kind {
	ETW_TDH_CACHE_TL = 1,
	ETW_TDH_CACHE_KERNEL,
	ETW_TDH_CACHE_MANIFEST,
};

/*
 * What a cached schema is a function of (etw_tdh_cache.c): @tag, the
 * kind and what else fits in 32 bits, then two byte strings (@b may be
 * empty).
 */
struct etw_tdh_cache_key {
	uint32_t tag;
	uint32_t a_len;
	uint32_t b_len;
	const void *a;
	const void *b;
};

bool etw_tdh_cache_lookup(const struct etw_tdh_cache_key *k,
			  const EVENT_DESCRIPTOR *desc, BYTE *buf, ULONG cap,
			  ULONG *needed, ULONG *ret);
void etw_tdh_cache_store(const struct etw_tdh_cache_key *k, const BYTE *tei,
			 ULONG size);
uint64_t etw_tdh_cache_last(const BYTE **tei, ULONG *size);
ULONG etw_tdh_event_schema(const EVENT_RECORD *ev, const TRACE_EVENT_INFO **tei,
			   ULONG *size, uint64_t *id);
ULONG etw_tdh_value_size(USHORT in, USHORT out, USHORT length,
			 ULONG ptr_size, const BYTE *p, size_t avail,
			 ULONG *size);
ULONG etw_tdh_load_manifest(PWSTR path, FILE *err);
struct etw_etl_event;
USHORT etw_event_width(const struct etw_etl_event *ev);
ULONG etw_tdh_kernel_build(const EVENT_RECORD *ev, ULONG ptr_size, BYTE *buf,
			   ULONG cap, ULONG *needed);

#endif /* _ETW_TDH_H */
