// SPDX-License-Identifier: GPL-2.0
/*
 * etw_route.c - which enables reach a registration, the route built from
 * them, and the combined state published in the enable area.
 *
 * A route holds a registration's direct enables (a classic registration's
 * only the newest that reaches it, with classic keyword rules), then its
 * group's; etw_write.c walks it on every event.  The rules are in
 * etw_provider.h.
 */
#include <linux/pid.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"

/* Bits of etw_write_args.exclude_mask: direct, group, private enables. */
#define ETW_GROUP_BIT0		ETW_MAX_SESSIONS_PER_PROVIDER
#define ETW_PRIVATE_BIT0	(2 * ETW_MAX_SESSIONS_PER_PROVIDER)

/* Is @guid on @s's disallow list: @s's group enables skip it. */
static bool etw_disallowed(const struct etw_session *s,
			   const struct etw_guid *guid)
{
	u32 i;

	lockdep_assert_held(&etw_mutex);
	for (i = 0; i < s->ndisallow; i++)
		if (!memcmp(&s->disallow[i], guid, sizeof(*guid)))
			return true;
	return false;
}

/**
 * etw_enable_would_reach() - would an enable reach a registration
 * @e: the enable
 * @reg: the registration
 * @group: @e enables @reg's group, not its GUID
 *
 * The session's state is not looked at: this answers for while it runs.
 *
 * Context: etw_mutex held.
 * Return: true when @e's session, private-session rule, disallow list
 * (for @group), PID filter and executable-name filter let @e reach @reg.
 */
bool etw_enable_would_reach(const struct etw_enable *e,
			    const struct etw_reg *reg, bool group)
{
	const struct etw_session *s = e->session;

	if (etw_session_is_private(s) &&
	    (s->owner_tgid != reg->tgid || s->owner_exec_id != reg->exec_id))
		return false;
	if (group && etw_disallowed(s, &reg->guid))
		return false;
	return etw_pid_filter_match(e->pids, e->npids,
				    reg->tgid ? pid_nr(reg->tgid) : 0) &&
	       etw_exe_filter_match(e->exe, reg->exe_name);
}

/**
 * etw_enable_reaches() - does a direct enable reach a registration
 * @e: an enable of @reg's GUID
 * @reg: the registration
 *
 * Context: etw_mutex held.
 * Return: true when @e's session runs and @e reaches @reg.
 */
bool etw_enable_reaches(const struct etw_enable *e, const struct etw_reg *reg)
{
	return !e->session->stopped && etw_enable_would_reach(e, reg, false);
}

/**
 * etw_group_enable_reaches() - does a group enable reach a member
 * @e: an enable of @reg's group
 * @reg: the registration, a member of the group
 *
 * Context: etw_mutex held.
 * Return: true when @e's session runs and @e reaches @reg.
 */
bool etw_group_enable_reaches(const struct etw_enable *e,
			      const struct etw_reg *reg)
{
	return !e->session->stopped && etw_enable_would_reach(e, reg, true);
}

/**
 * etw_enable_bit() - a direct enable's bit in EventWriteEx's filter
 * @e: the enable
 *
 * Context: etw_mutex held.
 * Return: the bit of etw_write_args.exclude_mask that leaves @e's session
 * out.
 */
u64 etw_enable_bit(const struct etw_enable *e)
{
	if (etw_session_is_private(e->session))
		return BIT_ULL(ETW_PRIVATE_BIT0 + e->slot);
	return BIT_ULL(e->slot);
}

/**
 * etw_newest_reaching() - the one enable in a classic registration's route
 * @g: the GUID's entry
 * @reg: the registration
 *
 * Context: etw_mutex held.
 * Return: the newest enable of @g that reaches @reg, or NULL.
 */
const struct etw_enable *etw_newest_reaching(const struct etw_guid_entry *g,
					     const struct etw_reg *reg)
{
	const struct etw_enable *newest = NULL, *e;
	int i;

	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		e = g->enables[i];
		if (e && etw_enable_reaches(e, reg) &&
		    (!newest || e->stamp > newest->stamp))
			newest = e;
	}
	list_for_each_entry(e, &g->private_enables, pnode)
		if (etw_enable_reaches(e, reg) &&
		    (!newest || e->stamp > newest->stamp))
			newest = e;
	return newest;
}

/**
 * etw_direct_enables() - the direct (not group) enables in a route
 * @reg: the registration
 * @out: out: the enables, room for %ETW_MAX_ROUTE
 *
 * Context: etw_mutex held.
 * Return: how many are in @out.
 */
unsigned int etw_direct_enables(const struct etw_reg *reg,
				const struct etw_enable **out)
{
	const struct etw_guid_entry *g = reg->guid_entry;
	const struct etw_enable *e;
	unsigned int n = 0;
	int i;

	if (reg->classic) {
		e = etw_newest_reaching(g, reg);
		if (e)
			out[n++] = e;
		return n;
	}
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		e = g->enables[i];
		if (e && etw_enable_reaches(e, reg))
			out[n++] = e;
	}
	list_for_each_entry(e, &g->private_enables, pnode)
		if (etw_enable_reaches(e, reg))
			out[n++] = e;
	return n;
}

static void etw_route_fill(struct etw_route_entry *re, const struct etw_enable *e,
			   bool classic, u64 bit, bool ids)
{
	re->session = e->session;
	re->session_level = e->level;
	re->lk.level = etw_level_norm(e->level);
	/* Classic providers ignore enable properties. */
	re->lk.ignore_keyword0 = !classic &&
				 (e->properties & ETW_ENABLE_IGNORE_KEYWORD_0);
	re->lk.match_any = etw_match_any_norm(e->match_any, classic);
	re->lk.match_all = classic ? 0 : e->match_all;
	re->ids = ids ? e->ids : NULL;
	re->instance_bit = bit;
	/* Classic records carry no extended items. */
	re->ext = classic ? 0 : e->properties & ETW_ENABLE_EXT_PROPS;
	re->stack_ids = e->stack_ids;
	re->stack_lk_filter = e->stack_lk_filter;
	re->stack_lk = e->stack_lk;
	/* As event ids: a group's members name their events differently. */
	re->names = classic || !ids ? NULL : e->names;
	re->stack_names = e->stack_names;
	/* Classic providers ignore enable properties. */
	re->exclude_inprivate = !classic &&
				(e->properties & ETW_ENABLE_EXCLUDE_INPRIVATE);
	/* As event ids: the blocks name the provider's own events. */
	re->payload = classic || !ids ? NULL : e->payload;
}

/*
 * The filter of @r->every: the highest level every entry takes, a keyword
 * 0 only when no entry ignores it, MatchAny bits every entry's has and
 * MatchAll bits any entry's has.  An event that passes it passes each
 * entry's level and keyword filter.  Event-ID and event-name filters are
 * not folded in: with one in the route, it passes nothing, and each
 * entry's own filters decide.  Payload filters are not either, and need
 * not be: the write path tests them before the loop over entries and
 * excludes the entries whose filter failed, whatever decides the level
 * and keyword test.
 */
static void etw_route_every(struct etw_route *r)
{
	struct etw_level_kw *f = &r->every;
	unsigned int i;

	f->level = U8_MAX;
	f->ignore_keyword0 = false;
	f->match_any = ~0ULL;
	f->match_all = 0;
	for (i = 0; i < r->count; i++) {
		const struct etw_route_entry *e = &r->e[i];

		if (e->ids || e->names) {
			/* Level 0 and keyword 0 ignored: nothing passes. */
			f->level = 0;
			f->ignore_keyword0 = true;
			f->match_any = 0;
			return;
		}
		f->level = min(f->level, e->lk.level);
		f->ignore_keyword0 |= e->lk.ignore_keyword0;
		f->match_any &= e->lk.match_any;
		f->match_all |= e->lk.match_all;
	}
}

/* An entry's index is a bit of etw_route.payload_firsts. */
static_assert(ETW_MAX_ROUTE <= 32);

/*
 * Entries whose payload filters are the same give an event the same
 * answer: the write path tests the first one's, once, for all of them
 * (etw_event_payload_exclude()).  @i joins the first entry before it that
 * holds the same, or becomes one of @r->payload_firsts.
 */
static void etw_route_payload_share(struct etw_route *r, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++) {
		if ((r->payload_firsts & BIT(j)) &&
		    etw_payload_filter_same(r->e[j].payload, r->e[i].payload)) {
			r->e[j].payload_mask |= r->e[i].instance_bit;
			return;
		}
	}
	r->payload_firsts |= BIT(i);
	r->e[i].payload_mask = r->e[i].instance_bit;
}

/**
 * etw_route_build() - a registration's route from the enables that reach it
 * @reg: the registration
 * @gfp: allocation flags
 *
 * Built from the enables of @reg's GUID and of its group; not published.
 *
 * Context: process context; etw_mutex held.
 * Return: the route (it may have no entry), or NULL when it cannot be
 * allocated.
 */
struct etw_route *etw_route_build(const struct etw_reg *reg, gfp_t gfp)
{
	const struct etw_enable *direct[ETW_MAX_ROUTE];
	const struct etw_guid_entry *grp = reg->group;
	unsigned int i, n = etw_direct_enables(reg, direct);
	struct etw_route *r;

	r = kzalloc(struct_size(r, e, ETW_MAX_ROUTE), gfp);
	if (!r)
		return NULL;
	for (i = 0; i < n; i++)
		etw_route_fill(&r->e[r->count++], direct[i], reg->classic,
			       etw_enable_bit(direct[i]), true);
	for (i = 0; grp && i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		const struct etw_enable *e = grp->group_enables[i];

		if (e && etw_group_enable_reaches(e, reg))
			etw_route_fill(&r->e[r->count++], e, false,
				       BIT_ULL(ETW_GROUP_BIT0 + i), false);
	}
	for (i = 0; i < r->count; i++) {
		r->ext |= r->e[i].ext;
		r->names |= r->e[i].names || r->e[i].stack_names;
		r->payload |= !!r->e[i].payload;
		if (r->e[i].payload) {
			r->payload_bytes =
				max(r->payload_bytes,
				    etw_payload_filter_extent(r->e[i].payload));
			etw_route_payload_share(r, i);
		}
		if (r->e[i].exclude_inprivate)
			r->inprivate |= r->e[i].instance_bit;
	}
	if (r->payload)
		r->ext |= ETW_ROUTE_PAYLOAD;
	etw_route_every(r);
	return r;
}

/**
 * etw_reg_state() - where a registration's combined state is published
 * @reg: the registration
 *
 * Context: any.
 * Return: its entry of its file's enable area, or the in-kernel
 * provider's own.
 */
struct etw_enable_state *etw_reg_state(struct etw_reg *reg)
{
	if (reg->file)
		return &reg->file->enable_map[reg->id - 1];
	return &reg->state;
}

/**
 * etw_state_publish() - publish a registration's combined state
 * @reg: the registration
 * @c: the state
 *
 * Readers (libetw's EventEnabled) check the entry's @seq around their
 * loads; libetw's write-path check and etw_kprovider_enabled() read
 * single fields.
 *
 * Context: etw_mutex held.
 */
void etw_state_publish(struct etw_reg *reg, const struct etw_combined *c)
{
	struct etw_enable_state *es = etw_reg_state(reg);
	u32 seq = READ_ONCE(es->seq);

	WRITE_ONCE(es->seq, seq + 1);
	/*
	 * Odd seq before the fields: pairs with the read barrier before the
	 * reader's second seq load, so a reader that saw new fields sees seq
	 * changed.
	 */
	smp_wmb();
	WRITE_ONCE(es->level, c->enabled ? c->level : 0);
	WRITE_ONCE(es->session_level, c->enabled ? c->session_level : 0);
	WRITE_ONCE(es->match_any, c->enabled ? c->match_any : 0);
	WRITE_ONCE(es->match_all, c->enabled ? c->match_all : 0);
	WRITE_ONCE(es->enabled, c->enabled);
	/*
	 * Fields before the even seq: pairs with the acquire of the reader's
	 * first seq load, so a reader that saw the new seq sees the fields.
	 */
	smp_wmb();
	WRITE_ONCE(es->seq, seq + 2);
}

/**
 * etw_route_combine() - the combined state of a route
 * @r: the route, or NULL
 * @c: out: what its entries' levels and keywords let through together
 *
 * Context: any.
 */
void etw_route_combine(const struct etw_route *r, struct etw_combined *c)
{
	unsigned int i;

	etw_combine_init(c);
	for (i = 0; r && i < r->count; i++)
		etw_combine_add(c, &r->e[i].lk, r->e[i].session_level);
}
