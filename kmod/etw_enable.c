// SPDX-License-Identifier: GPL-2.0
/*
 * etw_enable.c - enables: built from ETW_IOC_ENABLE's arguments, kept in
 * their GUID's tables (eight global slots for direct enables, eight for
 * group enables, private sessions' apart), changed by enable, disable and
 * capture-state requests, removed when their session stops; and a
 * session's group enables applied again when its disallow list changes.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"
#include "etw_trace.h"

/* Enable order: the classic rule takes the newest (etw_newest_reaching()). */
static u64 etw_enable_stamp;

/* Free an enable no route refers to any more (after a grace period). */
static void etw_enable_free(struct etw_enable *e)
{
	if (!e)
		return;
	kfree(e->ids);
	kfree(e->stack_ids);
	kfree(e->exe);
	kfree(e->names);
	kfree(e->stack_names);
	etw_payload_filter_free(e->payload);
	kfree(e->filter_data);
	kfree(e);
}

/*
 * A PID filter names processes as the controller sees them; routes compare
 * initial-namespace pids, so translate at enable time.  A pid the caller
 * cannot see matches nothing.
 */
static void etw_pids_resolve(u32 *pids, u32 n)
{
	struct pid *pid;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		if (!pids[i])	/* in-kernel providers */
			continue;
		pid = find_vpid(pids[i]);
		pids[i] = pid ? pid_nr(pid) : ETW_PID_NONE;
	}
	rcu_read_unlock();
}

/* An event-ID filter of @n ids (sorted here), or NULL when @n is 0. */
static int etw_id_filter_new(struct etw_id_filter **out, const u16 *ids,
			     u32 n, bool in)
{
	struct etw_id_filter *f;

	if (!n)
		return 0;
	f = kzalloc(struct_size(f, ids, n), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	memcpy(f->ids, ids, n * sizeof(u16));
	f->count = etw_id_filter_sort(f->ids, n);
	f->filter_in = in;
	*out = f;
	return 0;
}

/**
 * etw_enable_filters_release() - free what ENABLE's filters hold
 * @in: the filters, copied in (etw_dev.c)
 *
 * Context: any.
 */
void etw_enable_filters_release(struct etw_enable_filters *in)
{
	kfree(in->data);
	kfree(in->exe);
	kfree(in->names);
	kfree(in->stack_names);
	etw_payload_filter_free(in->payload);
	in->data = NULL;
	in->exe = NULL;
	in->names = NULL;
	in->stack_names = NULL;
	in->payload = NULL;
}

/* Give @e the filters in @in; @e takes what @in allocated. */
static int etw_enable_filters(struct etw_enable *e,
			      struct etw_enable_filters *in)
{
	e->filter_data = in->data;
	e->filter_size = in->data_size;
	e->exe = in->exe;
	e->names = in->names;
	e->stack_names = in->stack_names;
	e->payload = in->payload;
	in->data = NULL;
	in->exe = NULL;
	in->names = NULL;
	in->stack_names = NULL;
	in->payload = NULL;
	if (etw_id_filter_new(&e->ids, in->ids, in->nids, in->ids_in) ||
	    etw_id_filter_new(&e->stack_ids, in->stack_ids, in->nstack_ids,
			      in->stack_ids_in))
		return -ENOMEM;
	memcpy(e->pids, in->pids, in->npids * sizeof(u32));
	e->npids = in->npids;
	etw_pids_resolve(e->pids, e->npids);
	return 0;
}

/**
 * etw_enable_alloc() - build an enable from ETW_IOC_ENABLE's arguments
 * @a: the arguments, for %ETW_CONTROL_ENABLE
 * @in: its filters, copied in and checked (etw_dev.c); the enable takes
 *	what they allocated, also when this fails
 *
 * Sorts the event ids and translates the PID filter into initial-namespace
 * pids.
 *
 * Context: process context, may sleep; etw_mutex not held.
 * Return: the enable, for etw_enable(), or ERR_PTR(-ENOMEM).
 */
struct etw_enable *etw_enable_alloc(const struct etw_enable_args *a,
				    struct etw_enable_filters *in)
{
	struct etw_enable *e;
	int ret;

	e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e) {
		etw_enable_filters_release(in);
		return ERR_PTR(-ENOMEM);
	}
	e->level = a->level;
	e->properties = a->properties;
	e->match_any = a->match_any;
	e->match_all = a->match_all;
	e->source_id = a->source_id;
	e->stack_lk_filter = a->stack_lk_filter;
	e->stack_lk.level = etw_level_norm(a->stack_level);
	e->stack_lk.match_any = etw_match_any_norm(a->stack_match_any, false);
	e->stack_lk.match_all = a->stack_match_all;
	ret = etw_enable_filters(e, in);
	if (ret) {
		etw_enable_free(e);
		return ERR_PTR(ret);
	}
	return e;
}

/* Free unlinked enables once no writer can see them. */
static void etw_enables_free_later(struct list_head *gone)
{
	struct etw_enable *e, *tmp;

	if (list_empty(gone))
		return;
	synchronize_rcu();
	list_for_each_entry_safe(e, tmp, gone, gone)
		etw_enable_free(e);
}

static int etw_find_slot(struct etw_enable **table, struct etw_session *s)
{
	int i;

	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (table[i] && table[i]->session == s)
			return i;
	return -1;
}

static int etw_free_slot(struct etw_enable **table)
{
	int i;

	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (!table[i])
			return i;
	return -1;
}

static struct etw_enable *etw_private_find(struct etw_guid_entry *g,
					   struct etw_session *s)
{
	struct etw_enable *e;

	list_for_each_entry(e, &g->private_enables, pnode)
		if (e->session == s)
			return e;
	return NULL;
}

/* The lowest exclude bit no other private session of the owner uses. */
static int etw_private_slot(struct etw_guid_entry *g, struct etw_session *s)
{
	unsigned long used = 0;
	struct etw_enable *e;

	list_for_each_entry(e, &g->private_enables, pnode)
		if (e->session->owner_tgid == s->owner_tgid)
			__set_bit(e->slot, &used);
	return find_first_zero_bit(&used, ETW_MAX_PRIVATE_SESSIONS);
}

/* Where the enables of one GUID by one kind of session live. */
struct etw_table {
	struct etw_guid_entry *g;
	struct etw_enable **slots;	/* global: direct or group */
	bool group;
	bool private;
};

/*
 * The enable state of one table before an operation changed it, so that
 * a failed operation can put it back: the global slots, or the private
 * enable that was replaced or removed.
 */
struct etw_table_undo {
	struct etw_enable *slots[ETW_MAX_SESSIONS_PER_PROVIDER];
	struct etw_enable *old_private;
	struct etw_enable *new_private;
};

static struct etw_enable *etw_table_find(const struct etw_table *t,
					 struct etw_session *s)
{
	int slot;

	if (t->private)
		return etw_private_find(t->g, s);
	slot = etw_find_slot(t->slots, s);
	return slot < 0 ? NULL : t->slots[slot];
}

/*
 * Put @e into the table for its session; the enable it replaces goes to
 * @gone.  Classic registrations pick the newest enable from the table
 * (etw_newest_reaching()): no enable is removed for them.
 */
static int etw_table_set(const struct etw_table *t, struct etw_enable *e,
			 struct etw_table_undo *u, struct list_head *gone)
{
	struct etw_enable *old;
	int slot;

	if (t->private) {
		old = etw_private_find(t->g, e->session);
		e->slot = old ? old->slot : etw_private_slot(t->g, e->session);
		if (old) {
			list_del(&old->pnode);
			list_add_tail(&old->gone, gone);
		}
		u->old_private = old;
		u->new_private = e;
		e->stamp = ++etw_enable_stamp;
		list_add_tail(&e->pnode, &t->g->private_enables);
		return 0;
	}
	memcpy(u->slots, t->slots, sizeof(u->slots));
	slot = etw_find_slot(t->slots, e->session);
	if (slot < 0)
		slot = etw_free_slot(t->slots);
	if (slot < 0)
		return -ENOSPC;
	if (t->slots[slot])
		list_add_tail(&t->slots[slot]->gone, gone);
	e->slot = slot;
	e->stamp = ++etw_enable_stamp;
	t->slots[slot] = e;
	return 0;
}

/* Remove @s's enable from the table; it goes to @gone. */
static struct etw_enable *etw_table_clear(const struct etw_table *t,
					  struct etw_session *s,
					  struct etw_table_undo *u,
					  struct list_head *gone)
{
	struct etw_enable *old;
	int slot;

	if (t->private) {
		old = etw_private_find(t->g, s);
		if (old)
			list_del(&old->pnode);
		u->old_private = old;
	} else {
		memcpy(u->slots, t->slots, sizeof(u->slots));
		slot = etw_find_slot(t->slots, s);
		old = slot < 0 ? NULL : t->slots[slot];
		if (old)
			t->slots[slot] = NULL;
	}
	if (old)
		list_add_tail(&old->gone, gone);
	return old;
}

/* Put the table back as @u saved it; @gone is emptied. */
static void etw_table_undo(const struct etw_table *t,
			   struct etw_table_undo *u, struct list_head *gone)
{
	if (t->private) {
		if (u->new_private)
			list_del(&u->new_private->pnode);
		if (u->old_private)
			list_add_tail(&u->old_private->pnode,
				      &t->g->private_enables);
	} else {
		memcpy(t->slots, u->slots, sizeof(u->slots));
	}
	INIT_LIST_HEAD(gone);
}

static bool etw_id_filter_same(const struct etw_id_filter *a,
			       const struct etw_id_filter *b)
{
	if (!a || !b)
		return a == b;
	return a->count == b->count && a->filter_in == b->filter_in &&
	       !memcmp(a->ids, b->ids, a->count * sizeof(a->ids[0]));
}

/* @count NUL-terminated names, one after another, equal in @a and @b. */
static bool etw_name_list_same(const char *a, const char *b, u16 count)
{
	u16 i;

	for (i = 0; i < count; i++, a += strlen(a) + 1, b += strlen(b) + 1)
		if (strcmp(a, b))
			return false;
	return true;
}

static bool etw_exe_filter_same(const struct etw_exe_filter *a,
				const struct etw_exe_filter *b)
{
	if (!a || !b)
		return a == b;
	return a->count == b->count &&
	       etw_name_list_same(a->names, b->names, a->count);
}

static bool etw_name_filter_same(const struct etw_name_filter *a,
				 const struct etw_name_filter *b)
{
	if (!a || !b)
		return a == b;
	return a->count == b->count && a->filter_in == b->filter_in &&
	       a->lk.level == b->lk.level &&
	       a->lk.match_any == b->lk.match_any &&
	       a->lk.match_all == b->lk.match_all &&
	       etw_name_list_same(a->names, b->names, a->count);
}

static bool etw_enable_same(const struct etw_enable *a,
			    const struct etw_enable *b)
{
	if (a->level != b->level || a->properties != b->properties ||
	    a->match_any != b->match_any || a->match_all != b->match_all ||
	    a->npids != b->npids || a->filter_size != b->filter_size ||
	    a->stack_lk_filter != b->stack_lk_filter ||
	    a->stack_lk.level != b->stack_lk.level ||
	    a->stack_lk.match_any != b->stack_lk.match_any ||
	    a->stack_lk.match_all != b->stack_lk.match_all)
		return false;
	if (memcmp(a->pids, b->pids, a->npids * sizeof(a->pids[0])) ||
	    (a->filter_size &&
	     memcmp(a->filter_data, b->filter_data, a->filter_size)))
		return false;
	return etw_id_filter_same(a->ids, b->ids) &&
	       etw_id_filter_same(a->stack_ids, b->stack_ids) &&
	       etw_exe_filter_same(a->exe, b->exe) &&
	       etw_name_filter_same(a->names, b->names) &&
	       etw_name_filter_same(a->stack_names, b->stack_names) &&
	       etw_payload_filter_same(a->payload, b->payload);
}

static bool etw_table_reaches(const struct etw_table *t,
			      const struct etw_enable *e,
			      const struct etw_reg *reg)
{
	if (!e)
		return false;
	return t->group ? etw_group_enable_reaches(e, reg) :
			  etw_enable_reaches(e, reg);
}

/*
 * Add @reg if an enable change reaches it: @new (or NULL) replaced @old
 * (or NULL) of the same session.  An identical re-enable notifies only if
 * the combined state changed.  @new == @old is a capture-state request by
 * that enable: it reaches what the enable reaches, on a classic
 * registration only as the newest.
 */
static int etw_op_add_if_reached(struct etw_op *op, const struct etw_table *t,
				 struct etw_reg *reg,
				 const struct etw_enable *new,
				 const struct etw_enable *old)
{
	bool reach_new = etw_table_reaches(t, new, reg);
	bool reach_old = etw_table_reaches(t, old, reg);

	if (new == old) {
		if (!reach_new || (!t->group && reg->classic &&
				   etw_newest_reaching(t->g, reg) != new))
			return 0;
		return etw_op_add(op, reg, ETW_NOTIFY_CAPTURE);
	}
	if (reach_new && reach_old && etw_enable_same(new, old))
		return etw_op_add(op, reg, ETW_NOTIFY_ON_CHANGE);
	if (reach_new || reach_old)
		return etw_op_add(op, reg, ETW_NOTIFY_REACHED);
	return 0;
}

/* etw_op_add_if_reached() for each registration (or member) of @t. */
static int etw_op_add_reached(struct etw_op *op, const struct etw_table *t,
			      const struct etw_enable *new,
			      const struct etw_enable *old)
{
	struct etw_reg *reg;
	int ret;

	if (t->group) {
		list_for_each_entry(reg, &t->g->members, mnode) {
			ret = etw_op_add_if_reached(op, t, reg, new, old);
			if (ret)
				return ret;
		}
		return 0;
	}
	list_for_each_entry(reg, &t->g->regs, gnode) {
		ret = etw_op_add_if_reached(op, t, reg, new, old);
		if (ret)
			return ret;
	}
	return 0;
}

static int etw_enable_capture(struct etw_session *s, const struct etw_guid *guid,
			      bool group, struct etw_op *op)
{
	struct etw_table t = { .group = group,
			       .private = etw_session_is_private(s) };
	const struct etw_enable *e;
	int ret;

	t.g = etw_guid_entry_find(guid);
	if (!t.g)
		return 0;
	t.slots = group ? t.g->group_enables : t.g->enables;
	e = etw_table_find(&t, s);
	if (!e)
		return 0;
	ret = etw_op_add_reached(op, &t, e, e);
	if (ret) {
		etw_op_abort(op);
		return ret;
	}
	return etw_op_finish(op);
}

/**
 * etw_enable() - ETW_IOC_ENABLE, once the session is found and checked
 * @s: the session (referenced)
 * @a: the arguments
 * @e: for ETW_CONTROL_ENABLE, the new enable with filters filled in
 *	(ownership passes); NULL otherwise
 * @w: out: files to wait on (referenced), when @a->timeout_ms is set
 *
 * A disable or capture-state request for a GUID the session does not
 * enable does nothing.
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, -ENOSPC for a 9th global session, -EDQUOT past
 * %ETW_MAX_PRIVATE_ENABLES for a private session, -ENOENT when the
 * session stopped, -ENOMEM (nothing changed).
 */
int etw_enable(struct etw_session *s, struct etw_enable_args *a,
	       struct etw_enable *e, struct etw_waits *w)
{
	bool group = a->properties & ETW_ENABLE_PROVIDER_GROUP;
	struct etw_table t = { .group = group,
			       .private = etw_session_is_private(s) };
	struct etw_table_undo u = {};
	struct etw_enable *old = NULL;
	struct etw_op op;
	LIST_HEAD(gone);
	int ret = 0;

	etw_op_init(&op, &a->source_id, GFP_KERNEL_ACCOUNT,
		    a->timeout_ms ? w : NULL);
	mutex_lock(&etw_mutex);
	if (s->stopped) {
		ret = -ENOENT;
		goto out_unlock;
	}
	if (a->control_code == ETW_CONTROL_CAPTURE_STATE) {
		ret = etw_enable_capture(s, &a->guid, group, &op);
		goto out_unlock;
	}
	t.g = a->control_code == ETW_CONTROL_ENABLE ?
		etw_guid_entry_get(&a->guid) : etw_guid_entry_find(&a->guid);
	if (!t.g) {
		ret = a->control_code == ETW_CONTROL_ENABLE ? -ENOMEM : 0;
		goto out_unlock;
	}
	t.slots = group ? t.g->group_enables : t.g->enables;

	if (a->control_code == ETW_CONTROL_ENABLE) {
		old = etw_table_find(&t, s);
		if (!old && t.private &&
		    s->nenables >= ETW_MAX_PRIVATE_ENABLES) {
			ret = -EDQUOT;
			goto out_put;
		}
		e->session = s;
		ret = etw_table_set(&t, e, &u, &gone);
		if (ret) {
			etw_table_undo(&t, &u, &gone);
			goto out_put;
		}
		ret = etw_op_add_reached(&op, &t, e, old);
	} else {
		old = etw_table_clear(&t, s, &u, &gone);
		if (!old)
			goto out_put;
		ret = etw_op_add_reached(&op, &t, NULL, old);
	}
	if (!ret)
		ret = etw_op_finish(&op);
	else
		etw_op_abort(&op);
	if (ret) {
		etw_table_undo(&t, &u, &gone);
		goto out_put;
	}
	if (a->control_code == ETW_CONTROL_ENABLE) {
		s->nenables += !old;
		e = NULL;
	} else {
		s->nenables--;
	}
out_put:
	etw_guid_entry_put(t.g);
out_unlock:
	trace_etw_enable(s, a, ret);
	mutex_unlock(&etw_mutex);
	etw_enables_free_later(&gone);
	etw_enable_free(e);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(etw_enable);

/* Remove @s's enable from @t and update what it reached; cannot fail. */
static void etw_table_drop_session(const struct etw_table *t,
				   struct etw_session *s,
				   struct list_head *gone)
{
	struct etw_table_undo u;
	struct etw_enable *old;
	struct etw_reg *reg;

	old = etw_table_clear(t, s, &u, gone);
	if (!old)
		return;
	/* @s is marked stopped: ask whether @old reached while it ran. */
	if (t->group) {
		list_for_each_entry(reg, &t->g->members, mnode)
			if (etw_enable_would_reach(old, reg, true))
				etw_reg_update_nofail(reg, ETW_NOTIFY_REACHED);
	} else {
		list_for_each_entry(reg, &t->g->regs, gnode)
			if (etw_enable_would_reach(old, reg, false))
				etw_reg_update_nofail(reg, ETW_NOTIFY_REACHED);
	}
}

/**
 * etw_provider_session_gone() - unlink a stopping session from every GUID
 * @s: the session, already marked stopped
 *
 * Providers whose combined state changes are notified.  On return no
 * route refers to @s and no writer still uses an old route (an RCU grace
 * period has passed).
 *
 * Context: process context; etw_mutex held.
 */
void etw_provider_session_gone(struct etw_session *s)
{
	struct etw_enable *e, *etmp;
	struct etw_guid_entry *g;
	struct hlist_node *tmp;
	LIST_HEAD(gone);
	int bkt;

	lockdep_assert_held(&etw_mutex);
	hash_for_each_safe(etw_guids, bkt, tmp, g, node) {
		struct etw_table direct = { .g = g, .slots = g->enables,
					    .private = etw_session_is_private(s) };
		struct etw_table group = { .g = g, .slots = g->group_enables,
					   .group = true };

		etw_table_drop_session(&direct, s, &gone);
		if (!direct.private)
			etw_table_drop_session(&group, s, &gone);
		etw_guid_entry_put(g);
	}
	s->nenables = 0;
	/* No writer may still use a route that led to @s. */
	synchronize_rcu();
	list_for_each_entry_safe(e, etmp, &gone, gone)
		etw_enable_free(e);
}

/**
 * etw_provider_regroup() - a session's disallow list changed
 * @s: the session
 *
 * Rebuilds the routes of every member of a group @s enables.
 *
 * Context: process context; etw_mutex held.
 * Return: 0, or -ENOMEM with no route changed.
 */
int etw_provider_regroup(struct etw_session *s)
{
	struct etw_guid_entry *g;
	struct etw_reg *reg;
	struct etw_op op;
	int bkt, ret;

	lockdep_assert_held(&etw_mutex);
	etw_op_init(&op, NULL, GFP_KERNEL_ACCOUNT, NULL);
	hash_for_each(etw_guids, bkt, g, node) {
		if (etw_find_slot(g->group_enables, s) < 0)
			continue;
		list_for_each_entry(reg, &g->members, mnode) {
			ret = etw_op_add(&op, reg, ETW_NOTIFY_ON_CHANGE);
			if (ret) {
				etw_op_abort(&op);
				return ret;
			}
		}
	}
	return etw_op_finish(&op);
}
