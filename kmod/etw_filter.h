/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ETW's per-session filter predicates: pure functions of their arguments,
 * used by the write path and by route building, and tested by KUnit.
 */
#ifndef _ETW_FILTER_H
#define _ETW_FILTER_H

#include <linux/types.h>
#include <linux/etw.h>

/**
 * struct etw_level_kw - one session's level and keyword filter
 * @level: session level, already mapped so that 0 reads as 255
 * @ignore_keyword0: drop events whose keyword is 0
 * @match_any: MatchAnyKeyword, already normalised (0 reads as ~0)
 * @match_all: MatchAllKeyword
 */
struct etw_level_kw {
	u8 level;
	bool ignore_keyword0;
	u64 match_any;
	u64 match_all;
};

/**
 * struct etw_id_filter - an event-ID filter
 * @filter_in: true: only @ids pass; false: all but @ids pass
 * @count: entries in @ids, sorted ascending, no duplicates
 * @ids: the event ids
 */
struct etw_id_filter {
	bool filter_in;
	u16 count;
	u16 ids[];
};

/**
 * struct etw_exe_filter - an executable-name (image-name) filter
 * @count: names in @names
 * @names: @count NUL-terminated image names, one after another
 */
struct etw_exe_filter {
	u16 count;
	char names[];
};

/**
 * struct etw_name_filter - an event-name filter (EVENT_FILTER_EVENT_NAME)
 * @lk: the events it selects, normalised as a session's filter
 * @filter_in: a selected event passes only when listed (else only when not)
 * @count: names in @names
 * @names: @count NUL-terminated names, one after another
 */
struct etw_name_filter {
	struct etw_level_kw lk;
	bool filter_in;
	u16 count;
	char names[];
};

/**
 * struct etw_combined - a registration's combined enable state
 * @enabled: at least one session enables it
 * @level: the most verbose session level (0 mapped to 255)
 * @session_level: the same as the sessions passed it: 0 when one passed 0
 * @match_any: OR of the sessions' MatchAnyKeyword
 * @match_all: AND of the sessions' MatchAllKeyword
 */
struct etw_combined {
	bool enabled;
	u8 level;
	u8 session_level;
	u64 match_any;
	u64 match_all;
};

/* A session's level as compared: 0 (no level filtering) reads as 255. */
static inline u8 etw_level_norm(u8 level)
{
	return level ? level : 255;
}

/*
 * A session's MatchAnyKeyword as compared: 0 reads as ~0 for manifest
 * providers; classic providers see only the low 32 bits.
 */
static inline u64 etw_match_any_norm(u64 match_any, bool classic)
{
	if (classic)
		return match_any & 0xffffffffULL;
	return match_any ? match_any : ~0ULL;
}

bool etw_event_id_listed(const struct etw_id_filter *f, u16 id);
int etw_id_filter_sort(u16 *ids, u16 count);
bool etw_pid_filter_match(const u32 *pids, unsigned int count, u32 pid);
struct etw_exe_filter *etw_exe_filter_parse(const char *list, u32 len,
					    gfp_t gfp);
bool etw_exe_filter_match(const struct etw_exe_filter *f, const char *exe);
struct etw_name_filter *etw_name_filter_parse(const void *blob, u32 len,
					      gfp_t gfp);
bool etw_name_filter_match(const struct etw_name_filter *f, u8 level,
			   u64 keyword, const char *name);
const char *etw_tlg_event_name(char *meta, u32 len);

/* EVENT_FILTER_TYPE_PAYLOAD (etw_payload_filter.c) */
struct etw_payload_set;
struct etw_payload_set *etw_payload_filter_parse(const void *blob, u32 len,
						 gfp_t gfp);
void etw_payload_filter_free(struct etw_payload_set *set);
u32 etw_payload_filter_extent(const struct etw_payload_set *set);
bool etw_payload_filter_same(const struct etw_payload_set *a,
			     const struct etw_payload_set *b);
void etw_combine_init(struct etw_combined *c);
void etw_combine_add(struct etw_combined *c, const struct etw_level_kw *f,
		     u8 session_level);

/*
 * The two predicates the write path applies per session and event are
 * inline: an out-of-line call per session is a measurable part of a write.
 */

/**
 * etw_level_kw_match() - does an event pass a session's level and keywords
 * @f: the session's normalised filter
 * @level: the event's level
 * @keyword: the event's keyword
 *
 * Context: any.
 * Return: true when the event passes.
 */
static inline bool etw_level_kw_match(const struct etw_level_kw *f, u8 level,
				      u64 keyword)
{
	if (level > f->level)
		return false;
	if (!keyword)
		return !f->ignore_keyword0;
	return (keyword & f->match_any) &&
	       (keyword & f->match_all) == f->match_all;
}

/**
 * etw_event_id_match() - does an event id pass an event-ID filter
 * @f: the filter, or NULL for none
 * @id: the event's id
 *
 * Context: any.
 * Return: true when the event passes.
 */
static inline bool etw_event_id_match(const struct etw_id_filter *f, u16 id)
{
	return !f || etw_event_id_listed(f, id) == f->filter_in;
}

#endif /* _ETW_FILTER_H */
