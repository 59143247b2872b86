// SPDX-License-Identifier: GPL-2.0
/*
 * etw_filter.c - ETW's enable rules as pure predicates.
 *
 * The rules (Documentation/abi.rst, "Filtering"): an event passes a session
 * when its level is 0 or not above the session's level (session level 0
 * means every level), and when its keyword is 0 (unless the session set
 * IGNORE_KEYWORD_0) or it shares a bit with MatchAnyKeyword and holds every
 * bit of MatchAllKeyword.  MatchAnyKeyword 0 means "all" for manifest and
 * TraceLogging providers, not for classic ones.
 */
#include <linux/bsearch.h>
#include <linux/errno.h>
#include <linux/sort.h>

#include "compat.h"
#include "etw_filter.h"

static int etw_cmp_u16(const void *a, const void *b)
{
	return (int)*(const u16 *)a - (int)*(const u16 *)b;
}

/**
 * etw_event_id_listed() - is an event id in an event-ID filter's list
 * @f: the filter
 * @id: the event's id
 *
 * Context: any.
 * Return: true when @id is listed (whether the filter lets it in or out).
 */
bool etw_event_id_listed(const struct etw_id_filter *f, u16 id)
{
	return bsearch(&id, f->ids, f->count, sizeof(u16), etw_cmp_u16);
}
EXPORT_SYMBOL_IF_KUNIT(etw_event_id_listed);

/**
 * etw_id_filter_sort() - sort the ids of a filter and drop duplicates
 * @ids: the ids
 * @count: entries in @ids
 *
 * Context: any.
 * Return: the number of distinct ids now at the front of @ids.
 */
int etw_id_filter_sort(u16 *ids, u16 count)
{
	int i, n = 0;

	sort(ids, count, sizeof(u16), etw_cmp_u16, NULL);
	for (i = 0; i < count; i++)
		if (!n || ids[n - 1] != ids[i])
			ids[n++] = ids[i];
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(etw_id_filter_sort);

/**
 * etw_pid_filter_match() - does a process pass a PID filter
 * @pids: the process ids
 * @count: entries in @pids; 0 means no PID filter
 * @pid: the process (thread group id) of the registration
 *
 * Context: any.
 * Return: true when there is no filter or @pid is listed.
 */
bool etw_pid_filter_match(const u32 *pids, unsigned int count, u32 pid)
{
	unsigned int i;

	if (!count)
		return true;
	for (i = 0; i < count; i++)
		if (pids[i] == pid)
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(etw_pid_filter_match);

/**
 * etw_combine_init() - start a combined state: disabled
 * @c: the state
 *
 * Context: any.
 */
void etw_combine_init(struct etw_combined *c)
{
	c->enabled = false;
	c->level = 0;
	c->session_level = 0;
	c->match_any = 0;
	c->match_all = ~0ULL;
}
EXPORT_SYMBOL_IF_KUNIT(etw_combine_init);

/**
 * etw_combine_add() - fold one session's filter into a combined state
 * @c: the state
 * @f: the session's normalised filter
 * @session_level: the level the session passed (@f's before 0 became 255)
 *
 * The result is the least restrictive state: a provider-side check with it
 * may let through events no session takes, never the reverse.
 *
 * Context: any.
 */
void etw_combine_add(struct etw_combined *c, const struct etw_level_kw *f,
		     u8 session_level)
{
	/* 0 is the most verbose level as passed, so it wins. */
	if (!c->enabled || (c->session_level && session_level))
		c->session_level = max(c->session_level, session_level);
	else
		c->session_level = 0;
	c->enabled = true;
	c->level = max(c->level, f->level);
	c->match_any |= f->match_any;
	c->match_all &= f->match_all;
}
EXPORT_SYMBOL_IF_KUNIT(etw_combine_add);
