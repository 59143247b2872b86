/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top_maps.h: what etwctl top's BPF programs (top.bpf.c) and etwctl share:
 * the tracepoint records as kmod/etw_trace.h lays them out, and the map
 * they count in.  etwctl checks the layouts against tracefs' format files
 * before it attaches (ctl/top_layout.c).
 */
#ifndef _ETWCTL_TOP_MAPS_H
#define _ETWCTL_TOP_MAPS_H

#include <linux/types.h>

/* Distinct (provider, session) pairs counted; more are left out. */
#define ETWCTL_TOP_MAX_KEYS	4096

/* Bytes of struct trace_entry, which starts every record. */
#define ETWCTL_TOP_COMMON	8

/* events/etw/etw_write */
struct etwctl_top_write_rec {
	__u8 common[ETWCTL_TOP_COMMON];
	__u32 logger_id;
	__u16 event_id;
	__u16 size;
	__u64 provider[2];
};

/* events/etw/etw_lost */
struct etwctl_top_lost_rec {
	__u8 common[ETWCTL_TOP_COMMON];
	__u32 logger_id;
	__s32 error;
	__u64 provider[2];
	__u16 event_id;
};

/* A provider's events in one session; @provider holds its GUID's bytes. */
struct etwctl_top_key {
	__u64 provider[2];
	__u32 logger_id;
	__u32 pad;
};

/* Per CPU: the events and bytes written, the events lost. */
struct etwctl_top_val {
	__u64 events;
	__u64 bytes;
	__u64 lost;
};

#endif /* _ETWCTL_TOP_MAPS_H */
