// SPDX-License-Identifier: GPL-2.0
/*
 * etw_provider_list.c - ETW_IOC_LIST_PROVIDERS: the registrations and the
 * GUIDs enabled before anything registered them, with the sessions they
 * go to, as far as the caller may see them.
 */
#include <linux/sched.h>
#include <linux/string.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"

/* Append what the session of @e passed to @p's sessions. */
static void etw_info_session(struct etw_provider_info *p,
			     const struct etw_enable *e)
{
	struct etw_provider_session *ps = &p->sessions[p->session_count++];

	ps->logger_id = e->session->logger_id;
	ps->level = e->level;
	ps->properties = e->properties;
	ps->match_any = e->match_any;
	ps->match_all = e->match_all;
}

/*
 * The sessions of @reg's route: what etw_route_build() routes to; only the
 * private ones (its own process's) unless @all.
 */
static void etw_info_reg_sessions(struct etw_provider_info *p,
				  const struct etw_reg *reg, bool all)
{
	const struct etw_enable *direct[ETW_MAX_ROUTE];
	const struct etw_guid_entry *grp = reg->group;
	unsigned int i, n = etw_direct_enables(reg, direct);

	for (i = 0; i < n; i++)
		if (all || etw_session_is_private(direct[i]->session))
			etw_info_session(p, direct[i]);
	/* Private sessions never enable groups. */
	for (i = 0; all && grp && i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		const struct etw_enable *e = grp->group_enables[i];

		if (e && etw_group_enable_reaches(e, reg))
			etw_info_session(p, e);
	}
}

/* @all: the caller may control global sessions and sees them. */
static void etw_info_reg(struct etw_provider_info *p, struct etw_reg *reg,
			 bool all)
{
	const struct etw_enable_state *es;
	const struct etw_route *r;
	unsigned int i;

	p->guid = reg->guid;
	p->pid = reg->tgid ? pid_vnr(reg->tgid) : 0;
	p->flags = reg->classic ? ETW_REGISTER_CLASSIC : 0;
	if (reg->group)
		p->group = reg->group->guid;
	/* The name is NUL-terminated: etw_traits_parse() checked. */
	if (reg->traits)
		strscpy(p->name, reg->traits + ETW_TRAITS_NAME_OFFSET,
			sizeof(p->name));
	es = etw_reg_state(reg);
	p->enabled = es->enabled;
	p->level = es->level;
	p->match_any = es->match_any;
	p->match_all = es->match_all;
	r = rcu_dereference_protected(reg->route, lockdep_is_held(&etw_mutex));
	for (i = 0; all && r && i < r->count; i++) {
		u16 id = r->e[i].session->logger_id;

		if (id <= ETW_MAX_GLOBAL_SESSIONS)
			p->session_mask |= BIT_ULL(id - 1);
	}
	etw_info_reg_sessions(p, reg, all);
}

static bool etw_enable_live(const struct etw_enable *e)
{
	return e && !e->session->stopped;
}

/* Do sessions enable @g while nothing registered it. */
static bool etw_guid_entry_pre_enabled(const struct etw_guid_entry *g)
{
	const struct etw_enable *e;
	int i;

	if (!list_empty(&g->regs))
		return false;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (etw_enable_live(g->enables[i]))
			return true;
	list_for_each_entry(e, &g->private_enables, pnode)
		if (etw_enable_live(e))
			return true;
	return false;
}

static void etw_info_pre_enabled(struct etw_provider_info *p,
				 const struct etw_guid_entry *g)
{
	const struct etw_enable *e;
	int i;

	p->guid = g->guid;
	p->flags = ETW_PROVIDER_PRE_ENABLED;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (etw_enable_live(g->enables[i]))
			etw_info_session(p, g->enables[i]);
	list_for_each_entry(e, &g->private_enables, pnode)
		if (etw_enable_live(e))
			etw_info_session(p, e);
}

/* The zeroed entry of the @n'th listed item; NULL outside the page. */
static struct etw_provider_info *etw_info_at(struct etw_provider_info *info,
					     u32 n, u32 start, u32 room)
{
	if (n < start || n - start >= room)
		return NULL;
	memset(&info[n - start], 0, sizeof(*info));
	return &info[n - start];
}

/**
 * etw_list_providers() - ETW_IOC_LIST_PROVIDERS
 * @info: out: up to @count entries, from the @start'th visible on
 * @start: visible registrations to skip
 * @count: in: room in @info; out: registrations visible to the caller
 * @all: the caller may control global sessions: list every process's
 *	registrations and the global sessions they go to; else only the
 *	caller's own registrations and, of their sessions, its private ones
 * @flags: ETW_LIST_*; pre-enabled GUIDs are listed only with @all
 *
 * Process ids are given in the caller's PID namespace (0 when the process
 * is not visible there).  The combined state is listed either way: the
 * caller's enable area shows it for its own registrations.
 *
 * Context: process context; takes etw_mutex.
 * Return: 0.
 */
int etw_list_providers(struct etw_provider_info *info, u32 start,
		       u32 *count, bool all, u32 flags)
{
	struct etw_provider_info *p;
	struct etw_guid_entry *g;
	u32 n = 0;
	int bkt;

	mutex_lock(&etw_mutex);
	hash_for_each(etw_guids, bkt, g, node) {
		struct etw_reg *reg;

		if (all && (flags & ETW_LIST_PRE_ENABLED) &&
		    etw_guid_entry_pre_enabled(g)) {
			p = etw_info_at(info, n++, start, *count);
			if (p)
				etw_info_pre_enabled(p, g);
		}
		list_for_each_entry(reg, &g->regs, gnode) {
			if (!all && reg->tgid != task_tgid(current))
				continue;
			p = etw_info_at(info, n++, start, *count);
			if (p)
				etw_info_reg(p, reg, all);
		}
	}
	mutex_unlock(&etw_mutex);
	*count = n;
	return 0;
}
