/* SPDX-License-Identifier: GPL-2.0 */
/*
 * top.h: etwctl top's snapshots and rows (top.c) and the check of the
 * tracepoint layouts it counts from (top_layout.c).
 */
#ifndef _ETWCTL_TOP_H
#define _ETWCTL_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <windows.h>

/**
 * struct etwctl_top_count - counts of one provider in one session
 * @provider: the provider GUID
 * @logger_id: the session
 * @events: records written
 * @bytes: their bytes, headers and extended items included
 * @lost: events the session lost
 */
struct etwctl_top_count {
	GUID provider;
	uint32_t logger_id;
	uint64_t events;
	uint64_t bytes;
	uint64_t lost;
};

/**
 * struct etwctl_top_snap - every pair's counts at one moment
 * @v: the pairs, @n of them (@cap allocated)
 * @n: entries at @v
 * @cap: entries allocated
 * @untracked: events not counted because the BPF map was full
 * @start: when the counts started (seconds, CLOCK_MONOTONIC)
 * @time: when they were read
 */
struct etwctl_top_snap {
	struct etwctl_top_count *v;
	size_t n;
	size_t cap;
	uint64_t untracked;
	double start;
	double time;
};

/**
 * struct etwctl_top_row - one provider's or one session's line
 * @c: the group's key (the provider or the logger id) and its counts
 * @past_events: the counts at the previous snapshot, for rates
 * @past_bytes: as @past_events
 * @past_lost: as @past_events
 */
struct etwctl_top_row {
	struct etwctl_top_count c;
	uint64_t past_events;
	uint64_t past_bytes;
	uint64_t past_lost;
};

/**
 * struct etwctl_top_rows - rows, busiest first
 * @v: the rows
 * @n: entries at @v
 * @cap: entries allocated
 */
struct etwctl_top_rows {
	struct etwctl_top_row *v;
	size_t n;
	size_t cap;
};

/**
 * struct etwctl_top_names - session names for the output
 * @session: the name of a logger id, or NULL when unknown
 * @ctx: passed to @session
 */
struct etwctl_top_names {
	const char *(*session)(void *ctx, uint32_t logger_id);
	void *ctx;
};

int etwctl_top_snap_add(struct etwctl_top_snap *s,
			const struct etwctl_top_count *c);
void etwctl_top_snap_free(struct etwctl_top_snap *s);
int etwctl_top_group(const struct etwctl_top_snap *now,
		     const struct etwctl_top_snap *prev, bool by_session,
		     struct etwctl_top_rows *rows);
int etwctl_top_print(FILE *f, const struct etwctl_top_snap *now,
		     const struct etwctl_top_snap *prev, bool json,
		     const struct etwctl_top_names *names);

/**
 * struct etwctl_top_field - where a record field must be
 * @name: the field's name in the format file
 * @offset: its offset in the record
 * @size: its bytes
 */
struct etwctl_top_field {
	const char *name;
	unsigned int offset;
	unsigned int size;
};

int etwctl_top_layout_check(const char *format,
			    const struct etwctl_top_field *want, size_t n,
			    char *why, size_t why_len);

#endif /* _ETWCTL_TOP_H */
