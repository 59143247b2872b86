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
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

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
 * etw_exe_filter_parse() - build an executable-name filter from its list
 * @list: image names separated by ';' (not NUL-terminated)
 * @len: bytes at @list, at most %ETW_MAX_EXE_FILTER
 * @gfp: allocation flags
 *
 * Empty items (";;", a leading or trailing ';') are skipped, as in a
 * Windows list; the names are kept as given and compared ignoring ASCII
 * case.
 *
 * Context: may sleep when @gfp allows.
 * Return: the filter, kfree() it; ERR_PTR(-EINVAL) when @list holds a NUL,
 * no name or a name longer than a file name can be (%NAME_MAX);
 * ERR_PTR(-ENOMEM).
 */
struct etw_exe_filter *etw_exe_filter_parse(const char *list, u32 len,
					    gfp_t gfp)
{
	struct etw_exe_filter *f;
	u32 i, start = 0, n = 0;
	char *out;

	if (!len || len > ETW_MAX_EXE_FILTER || memchr(list, 0, len))
		return ERR_PTR(-EINVAL);
	f = kzalloc(struct_size(f, names, len + 1), gfp);
	if (!f)
		return ERR_PTR(-ENOMEM);
	out = f->names;
	for (i = 0; i <= len; i++) {
		if (i < len && list[i] != ';')
			continue;
		if (i - start > NAME_MAX)
			goto out_invalid;
		if (i > start) {
			memcpy(out, list + start, i - start);
			out += i - start + 1;	/* kzalloc()ed: NUL ends it */
			n++;
		}
		start = i + 1;
	}
	if (!n)
		goto out_invalid;
	f->count = n;
	return f;

out_invalid:
	kfree(f);
	return ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL_IF_KUNIT(etw_exe_filter_parse);

/**
 * etw_exe_filter_match() - does a program pass an executable-name filter
 * @f: the filter, or NULL for none
 * @exe: the file name of the program's executable, or NULL for in-kernel
 *	providers, which a scope filter never enables (as on Windows)
 *
 * Context: any.
 * Return: true when there is no filter or @exe is one of its names.
 */
bool etw_exe_filter_match(const struct etw_exe_filter *f, const char *exe)
{
	const char *name;
	u16 i;

	if (!f)
		return true;
	if (!exe)
		return false;
	for (i = 0, name = f->names; i < f->count;
	     i++, name += strlen(name) + 1)
		if (!strcasecmp(name, exe))
			return true;
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(etw_exe_filter_match);

/**
 * etw_name_filter_parse() - build an event-name filter from its block
 * @blob: a struct etw_event_name_filter (EVENT_FILTER_EVENT_NAME)
 * @len: bytes at @blob, at most %ETW_MAX_EVENT_NAME_FILTER
 * @gfp: allocation flags
 *
 * Bytes after the last name are ignored, as padding.
 *
 * Context: may sleep when @gfp allows.
 * Return: the filter, kfree() it; ERR_PTR(-EINVAL) for a block shorter
 * than its names, no name, an empty name, one longer than
 * %ETW_MAX_EVENT_NAME or @filter_in above 1; ERR_PTR(-ENOMEM).
 */
struct etw_name_filter *etw_name_filter_parse(const void *blob, u32 len,
					      gfp_t gfp)
{
	const struct etw_event_name_filter *in = blob;
	u32 i, off = ETW_EVENT_NAME_FILTER_NAMES, n;
	struct etw_name_filter *f;

	if (len < ETW_EVENT_NAME_FILTER_NAMES ||
	    len > ETW_MAX_EVENT_NAME_FILTER || !in->name_count ||
	    in->filter_in > 1)
		return ERR_PTR(-EINVAL);
	for (i = 0; i < in->name_count; i++) {
		n = strnlen((const char *)blob + off, len - off);
		if (!n || n > ETW_MAX_EVENT_NAME || off + n == len)
			return ERR_PTR(-EINVAL);
		off += n + 1;
	}
	n = off - ETW_EVENT_NAME_FILTER_NAMES;
	f = kzalloc(struct_size(f, names, n), gfp);
	if (!f)
		return ERR_PTR(-ENOMEM);
	f->lk.level = etw_level_norm(in->level);
	f->lk.match_any = etw_match_any_norm(in->match_any, false);
	f->lk.match_all = in->match_all;
	f->filter_in = in->filter_in;
	f->count = in->name_count;
	memcpy(f->names, (const char *)blob + ETW_EVENT_NAME_FILTER_NAMES, n);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(etw_name_filter_parse);

/**
 * etw_name_filter_match() - does an event pass an event-name filter
 * @f: the filter
 * @level: the event's level
 * @keyword: the event's keyword
 * @name: the event's name (its TraceLogging metadata's)
 *
 * The filter decides only for the events its level and keywords select;
 * the others pass (EVENT_FILTER_EVENT_NAME: "the category of events to
 * filter on").  Names are compared byte for byte.
 *
 * Context: any.
 * Return: true when the event passes.
 */
bool etw_name_filter_match(const struct etw_name_filter *f, u8 level,
			   u64 keyword, const char *name)
{
	const char *n = f->names;
	u16 i;

	if (!etw_level_kw_match(&f->lk, level, keyword))
		return true;
	for (i = 0; i < f->count; i++, n += strlen(n) + 1)
		if (!strcmp(n, name))
			return f->filter_in;
	return !f->filter_in;
}
EXPORT_SYMBOL_IF_KUNIT(etw_name_filter_match);

/**
 * etw_tlg_event_name() - the event name in TraceLogging event metadata
 * @meta: the metadata's first @len bytes: UINT16 size, tags (7 bits a
 *	byte, bit 7 = another follows, at most 4), the NUL-terminated name
 * @len: bytes at @meta
 *
 * Context: any.
 * Return: the name, in @meta; "" when @meta is malformed or the name does
 * not end within @len (longer than any name a filter lists).
 */
const char *etw_tlg_event_name(char *meta, u32 len)
{
	u32 i = sizeof(u16), tags = 0;

	while (i < len && ((u8)meta[i] & 0x80) && ++tags < 4)
		i++;
	if (++i >= len || !memchr(meta + i, 0, len - i))
		return "";
	return meta + i;
}
EXPORT_SYMBOL_IF_KUNIT(etw_tlg_event_name);

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
