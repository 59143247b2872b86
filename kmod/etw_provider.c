// SPDX-License-Identifier: GPL-2.0
/*
 * etw_provider.c - provider registrations, enable tables, groups, routes.
 *
 * Every GUID that is registered, enabled, or named as a group has an
 * etw_gentry.  A registration's route is rebuilt from its GUID's enables
 * and its group's enables whenever one of them changes; then its combined
 * state is written to the enable area, then the provider is notified.
 *
 * Rules (Documentation/abi.rst, "Providers"):
 * - up to 8 sessions enable a GUID; a 9th gets -ENOSPC;
 * - a GUID with a classic registration has one session: enabling it from
 *   another session replaces the first (the newest enable wins, also when
 *   the classic provider registers after several enables);
 * - a private session reaches only registrations of its own process and
 *   cannot enable groups;
 * - a PID filter is applied when routes are built (at enable and at
 *   registration), also for group enables; an event-ID filter applies on
 *   every event, but not through groups;
 * - joining a group: the first member's uid owns the group while it has
 *   members; other uids need etw_may_control().
 *
 * All of this runs under etw_mutex.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"

static DEFINE_HASHTABLE(etw_guids, 8);
static u64 etw_enable_stamp;

/* Affected files and sequence numbers an enabling controller waits for. */
struct etw_waits {
	struct etw_file **files;
	u64 *seqs;
	unsigned int n;
	unsigned int cap;
	bool wanted;
};

static u32 etw_guid_hash(const struct etw_guid *g)
{
	return jhash(g, sizeof(*g), 0);
}

static struct etw_gentry *etw_gentry_find(const struct etw_guid *guid)
{
	struct etw_gentry *g;

	lockdep_assert_held(&etw_mutex);
	hash_for_each_possible(etw_guids, g, node, etw_guid_hash(guid))
		if (!memcmp(&g->guid, guid, sizeof(*guid)))
			return g;
	return NULL;
}

static struct etw_gentry *etw_gentry_get(const struct etw_guid *guid)
{
	struct etw_gentry *g = etw_gentry_find(guid);

	if (g)
		return g;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	g->guid = *guid;
	INIT_LIST_HEAD(&g->regs);
	INIT_LIST_HEAD(&g->members);
	hash_add(etw_guids, &g->node, etw_guid_hash(guid));
	return g;
}

static void etw_gentry_put(struct etw_gentry *g)
{
	int i;

	lockdep_assert_held(&etw_mutex);
	if (!list_empty(&g->regs) || !list_empty(&g->members))
		return;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (g->enables[i] || g->group_enables[i])
			return;
	hash_del(&g->node);
	kfree(g);
}

/**
 * etw_enable_free() - free an enable no route refers to any more
 * @e: the enable, or NULL
 *
 * Context: process context, after an RCU grace period.
 */
void etw_enable_free(struct etw_enable *e)
{
	if (!e)
		return;
	kfree(e->ids);
	kfree(e->filter_data);
	kfree(e);
}

static bool etw_gentry_is_classic(const struct etw_gentry *g)
{
	const struct etw_reg *reg;

	list_for_each_entry(reg, &g->regs, gnode)
		if (reg->classic)
			return true;
	return false;
}

static bool etw_enable_reaches(const struct etw_enable *e,
			       const struct etw_reg *reg)
{
	const struct etw_session *s = e->session;

	if (s->stopped)
		return false;
	if (etw_session_is_private(s) && s->owner_tgid != reg->tgid)
		return false;
	return etw_pid_filter_match(e->pids, e->npids,
				    reg->tgid ? pid_nr(reg->tgid) : 0);
}

static void etw_route_fill(struct etw_route_entry *re, const struct etw_enable *e,
			   bool classic, u64 bit, bool ids)
{
	re->session = e->session;
	re->lk.level = etw_session_level(e->level);
	/* Classic providers ignore enable properties. */
	re->lk.ignore_keyword0 = !classic &&
				 (e->properties & ETW_ENABLE_IGNORE_KEYWORD_0);
	re->lk.match_any = etw_session_match_any(e->match_any, classic);
	re->lk.match_all = classic ? 0 : e->match_all;
	re->ids = ids ? e->ids : NULL;
	re->instance_bit = bit;
}

/* Build @reg's route from the enables of its GUID and of its group. */
static struct etw_route *etw_route_build(const struct etw_reg *reg)
{
	const struct etw_gentry *g = reg->gentry, *grp = reg->group;
	bool classic = etw_gentry_is_classic(g);
	struct etw_route *r;
	unsigned int i, n = 0;

	r = kzalloc(struct_size(r, e, 2 * ETW_MAX_SESSIONS_PER_PROVIDER),
		    GFP_KERNEL);
	if (!r)
		return NULL;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		const struct etw_enable *e = g->enables[i];

		if (e && etw_enable_reaches(e, reg))
			etw_route_fill(&r->e[n++], e, classic, BIT_ULL(i), true);
	}
	for (i = 0; grp && i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		const struct etw_enable *e = grp->group_enables[i];

		if (!e || !etw_enable_reaches(e, reg) ||
		    etw_session_disallows(e->session, &reg->guid))
			continue;
		etw_route_fill(&r->e[n++], e, false,
			       BIT_ULL(ETW_MAX_SESSIONS_PER_PROVIDER + i), false);
	}
	r->count = n;
	return r;
}

static struct etw_enable_state *etw_reg_state(struct etw_reg *reg)
{
	if (reg->file)
		return &reg->file->enable_map[reg->id - 1];
	return &reg->state;
}

/*
 * Publish a combined state.  Readers (libetw's EventEnabled, and
 * etw_kprovider_enabled()) check @seq around their loads.
 */
static void etw_state_publish(struct etw_reg *reg, const struct etw_combined *c)
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

static void etw_route_combine(const struct etw_route *r, struct etw_combined *c)
{
	unsigned int i;

	etw_combine_init(c);
	for (i = 0; r && i < r->count; i++)
		etw_combine_add(c, &r->e[i].lk);
}

static int etw_waits_add(struct etw_waits *w, struct etw_file *f, u64 seq)
{
	if (!w || !w->wanted || !f)
		return 0;
	if (w->n == w->cap) {
		unsigned int cap = w->cap ? 2 * w->cap : 8;
		struct etw_file **files;
		u64 *seqs;

		files = krealloc_array(w->files, cap, sizeof(*files), GFP_KERNEL);
		if (!files)
			return -ENOMEM;
		w->files = files;
		seqs = krealloc_array(w->seqs, cap, sizeof(*seqs), GFP_KERNEL);
		if (!seqs)
			return -ENOMEM;
		w->seqs = seqs;
		w->cap = cap;
	}
	kref_get(&f->ref);
	w->files[w->n] = f;
	w->seqs[w->n++] = seq;
	return 0;
}

/* The filter data of the GUID's enables, chained as ETW chains them. */
static u8 *etw_filter_chain(const struct etw_reg *reg, u32 *size, u32 *count)
{
	const struct etw_gentry *g = reg->gentry;
	u32 total = 0, off = 0, n = 0, i;
	u8 *buf;

	*size = 0;
	*count = 0;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (g->enables[i] && g->enables[i]->filter_size &&
		    etw_enable_reaches(g->enables[i], reg))
			total += ALIGN(g->enables[i]->filter_size, 8);
	if (!total)
		return NULL;
	buf = kzalloc(total, GFP_KERNEL);
	if (!buf)
		return NULL;
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		const struct etw_enable *e = g->enables[i];
		u8 *hdr = buf + off;
		u64 bit = BIT_ULL(i);

		if (!e || !e->filter_size || !etw_enable_reaches(e, reg))
			continue;
		memcpy(hdr, e->filter_data, e->filter_size);
		/* EVENT_FILTER_HEADER: InstanceId at 8, NextOffset at 20. */
		memcpy(hdr + 8, &bit, sizeof(bit));
		off += ALIGN(e->filter_size, 8);
		n++;
		put_unaligned_le32(off < total ? ALIGN(e->filter_size, 8) : 0,
				   hdr + 20);
	}
	*size = total;
	*count = n;
	return buf;
}

/*
 * Rebuild @reg's route, publish it and its state, and notify the provider
 * with @control (-1: only when the state changed; ETW_CONTROL_ENABLE
 * becomes DISABLE when nothing enables it any more).
 */
static int etw_reg_update(struct etw_reg *reg, int control,
			  const struct etw_guid *source, struct etw_waits *w)
{
	static const struct etw_guid null_guid;
	struct etw_route *r, *old;
	struct etw_combined c, was;
	u32 fsize, fcount;
	u8 *filter;
	u64 seq = 0;
	int ret;

	lockdep_assert_held(&etw_mutex);
	r = etw_route_build(reg);
	if (!r)
		return -ENOMEM;
	old = rcu_dereference_protected(reg->route, lockdep_is_held(&etw_mutex));
	etw_route_combine(old, &was);
	etw_route_combine(r, &c);
	if (!r->count) {
		kfree(r);
		r = NULL;
	}
	rcu_assign_pointer(reg->route, r);
	if (old)
		kfree_rcu(old, rcu);
	etw_state_publish(reg, &c);

	if (control < 0) {
		if (was.enabled == c.enabled && was.level == c.level &&
		    was.match_any == c.match_any && was.match_all == c.match_all)
			return 0;
		control = ETW_CONTROL_ENABLE;
	}
	if (control == ETW_CONTROL_ENABLE && !c.enabled)
		control = ETW_CONTROL_DISABLE;
	if (control == ETW_CONTROL_CAPTURE_STATE && !c.enabled)
		return 0;
	if (control == ETW_CONTROL_DISABLE && !was.enabled)
		return 0;
	filter = etw_filter_chain(reg, &fsize, &fcount);
	ret = etw_notify(reg, control, &c, source ?: &null_guid, filter, fsize,
			 fcount, &seq);
	kfree(filter);
	if (!ret && seq)
		ret = etw_waits_add(w, reg->file, seq);
	return ret;
}

static int etw_regs_update(struct list_head *regs, bool members, int control,
			   const struct etw_guid *source, struct etw_waits *w)
{
	struct etw_reg *reg;
	int ret = 0, err;

	if (members) {
		list_for_each_entry(reg, regs, mnode) {
			err = etw_reg_update(reg, control, source, w);
			ret = ret ?: err;
		}
	} else {
		list_for_each_entry(reg, regs, gnode) {
			err = etw_reg_update(reg, control, source, w);
			ret = ret ?: err;
		}
	}
	return ret;
}

/* Keep only the newest enable of a classic GUID; return the others. */
static void etw_classic_trim(struct etw_gentry *g, struct list_head *gone)
{
	struct etw_enable *newest = NULL;
	int i;

	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++)
		if (g->enables[i] &&
		    (!newest || g->enables[i]->stamp > newest->stamp))
			newest = g->enables[i];
	for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
		struct etw_enable *e = g->enables[i];

		if (e && e != newest) {
			g->enables[i] = NULL;
			list_add_tail(&e->gone, gone);
		}
	}
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

static void etw_reg_link(struct etw_reg *reg, struct etw_gentry *g)
{
	reg->gentry = g;
	list_add_tail(&reg->gnode, &g->regs);
}

/* Register @reg (fields set, not linked) and notify it if enabled. */
static int etw_reg_attach(struct etw_reg *reg)
{
	struct etw_gentry *g;
	LIST_HEAD(gone);
	int ret;

	lockdep_assert_held(&etw_mutex);
	g = etw_gentry_get(&reg->guid);
	if (!g)
		return -ENOMEM;
	etw_reg_link(reg, g);
	if (reg->classic) {
		etw_classic_trim(g, &gone);
		if (!list_empty(&gone)) {
			/* Sessions that lost the provider stop receiving. */
			ret = etw_regs_update(&g->regs, false, -1, NULL, NULL);
			if (ret)
				goto out_unlink;
		}
	}
	ret = etw_reg_update(reg, -1, NULL, NULL);
	if (ret)
		goto out_unlink;
	etw_enables_free_later(&gone);
	return 0;

out_unlink:
	list_del(&reg->gnode);
	etw_gentry_put(g);
	etw_enables_free_later(&gone);
	return ret;
}

/**
 * etw_register() - ETW_IOC_REGISTER
 * @f: the file
 * @a: the arguments; @a->reg_id and @a->enable_index are filled in
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, -EINVAL for unknown flags, -EMFILE past
 * %ETW_MAX_REGISTRATIONS, -ENOMEM.
 */
int etw_register(struct etw_file *f, struct etw_register_args *a)
{
	struct etw_reg *reg;
	u32 id;
	int ret;

	if (a->flags & ~ETW_REGISTER_CLASSIC)
		return -EINVAL;
	reg = kzalloc(sizeof(*reg), GFP_KERNEL_ACCOUNT);
	if (!reg)
		return -ENOMEM;
	reg->file = f;
	reg->tgid = get_pid(task_tgid(current));
	reg->guid = a->guid;
	reg->cookie = a->cookie;
	reg->classic = a->flags & ETW_REGISTER_CLASSIC;
	INIT_LIST_HEAD(&reg->mnode);

	mutex_lock(&etw_mutex);
	/* The lowest free id; etw_mutex keeps it free until published. */
	for (id = 1; id <= ETW_MAX_REGISTRATIONS && etw_file_reg(f, id); id++)
		;
	if (id > ETW_MAX_REGISTRATIONS) {
		ret = -EMFILE;
		goto out_unlock;
	}
	reg->id = id;
	ret = etw_reg_attach(reg);
	if (ret)
		goto out_unlock;
	/* Visible to the write path only once it is fully linked. */
	rcu_assign_pointer(f->regs[id - 1], reg);
	f->nregs++;
	mutex_unlock(&etw_mutex);
	a->reg_id = id;
	a->enable_index = id - 1;
	return 0;

out_unlock:
	mutex_unlock(&etw_mutex);
	put_pid(reg->tgid);
	kfree(reg);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(etw_register);

static void etw_reg_free_rcu(struct rcu_head *rcu)
{
	struct etw_reg *reg = container_of(rcu, struct etw_reg, rcu);

	kfree(reg->traits);
	put_pid(reg->tgid);
	kfree(reg);
}

/* Unlink a registration; the caller has removed it from lookups. */
static void etw_reg_detach(struct etw_reg *reg)
{
	static const struct etw_combined off;
	struct etw_route *r;

	lockdep_assert_held(&etw_mutex);
	list_del(&reg->gnode);
	etw_gentry_put(reg->gentry);
	if (reg->group) {
		list_del(&reg->mnode);
		etw_gentry_put(reg->group);
	}
	r = rcu_dereference_protected(reg->route, lockdep_is_held(&etw_mutex));
	RCU_INIT_POINTER(reg->route, NULL);
	if (r)
		kfree_rcu(r, rcu);
	etw_state_publish(reg, &off);
	if (reg->file)
		etw_notify_drop_reg(reg->file, reg);
}

/**
 * etw_unregister_reg() - unregister and free a registration
 * @reg: the registration, already removed from its file's lookup
 *
 * Context: process context; etw_mutex held.
 */
void etw_unregister_reg(struct etw_reg *reg)
{
	lockdep_assert_held(&etw_mutex);
	etw_reg_detach(reg);
	call_rcu(&reg->rcu, etw_reg_free_rcu);
}

/**
 * etw_unregister() - ETW_IOC_UNREGISTER
 * @f: the file
 * @reg_id: the registration
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, or -EBADF for an id that is not registered on @f.
 */
int etw_unregister(struct etw_file *f, u32 reg_id)
{
	struct etw_reg *reg;

	mutex_lock(&etw_mutex);
	reg = etw_file_reg(f, reg_id);
	if (!reg || reg->tgid != task_tgid(current)) {
		mutex_unlock(&etw_mutex);
		return -EBADF;
	}
	RCU_INIT_POINTER(f->regs[reg_id - 1], NULL);
	f->nregs--;
	etw_unregister_reg(reg);
	mutex_unlock(&etw_mutex);
	return 0;
}

/**
 * etw_register_kernel() - register an in-kernel provider's registration
 * @reg: the registration, with @guid and @kprov set
 *
 * Context: process context; takes etw_mutex.
 * Return: 0 or -ENOMEM.
 */
int etw_register_kernel(struct etw_reg *reg)
{
	int ret;

	INIT_LIST_HEAD(&reg->mnode);
	mutex_lock(&etw_mutex);
	ret = etw_reg_attach(reg);
	mutex_unlock(&etw_mutex);
	return ret;
}

static int etw_group_may_join(struct etw_gentry *grp)
{
	if (list_empty(&grp->members)) {
		grp->group_owner = current_fsuid();
		return 0;
	}
	if (uid_eq(grp->group_owner, current_fsuid()) || etw_may_control())
		return 0;
	return -EACCES;
}

/**
 * etw_set_traits_reg() - attach a traits blob to a registration
 * @reg: the registration
 * @blob: the blob, kmalloc'ed; ownership passes on success
 * @len: its size
 *
 * Context: process context; etw_mutex held.
 * Return: 0, -EEXIST when traits were set before, -EBADMSG for a bad
 * blob, -EACCES when the group may not be joined, -ENOMEM.
 */
int etw_set_traits_reg(struct etw_reg *reg, u8 *blob, u16 len)
{
	static const struct etw_guid no_group;
	struct etw_gentry *grp = NULL;
	struct etw_guid group;
	int ret;

	lockdep_assert_held(&etw_mutex);
	if (reg->traits)
		return -EEXIST;
	ret = etw_traits_parse(blob, len, &group);
	if (ret)
		return ret;
	if (memcmp(&group, &no_group, sizeof(group))) {
		grp = etw_gentry_get(&group);
		if (!grp)
			return -ENOMEM;
		ret = etw_group_may_join(grp);
		if (ret) {
			etw_gentry_put(grp);
			return ret;
		}
		reg->group = grp;
		list_add_tail(&reg->mnode, &grp->members);
	}
	reg->traits_len = len;
	/* Pairs with smp_load_acquire() in etw_event_size(). */
	smp_store_release(&reg->traits, blob);
	return grp ? etw_reg_update(reg, -1, NULL, NULL) : 0;
}

/**
 * etw_set_traits() - ETW_IOC_SET_TRAITS
 * @f: the file
 * @reg_id: the registration
 * @blob: the blob, kmalloc'ed; ownership passes on success
 * @len: its size
 *
 * Context: process context; takes etw_mutex.
 * Return: as etw_set_traits_reg(), or -EBADF for an unknown @reg_id.
 */
int etw_set_traits(struct etw_file *f, u32 reg_id, u8 *blob, u16 len)
{
	struct etw_reg *reg;
	int ret;

	mutex_lock(&etw_mutex);
	reg = etw_file_reg(f, reg_id);
	if (!reg || reg->tgid != task_tgid(current))
		ret = -EBADF;
	else
		ret = etw_set_traits_reg(reg, blob, len);
	mutex_unlock(&etw_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(etw_set_traits);

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

/* Put @e into @table for its session; the replaced enable goes to @gone. */
static int etw_table_set(struct etw_gentry *g, struct etw_enable **table,
			 struct etw_enable *e, bool group,
			 struct list_head *gone)
{
	int slot = etw_find_slot(table, e->session);

	if (slot < 0 && !group && etw_gentry_is_classic(g)) {
		/* A classic provider follows the newest session. */
		int i;

		for (i = 0; i < ETW_MAX_SESSIONS_PER_PROVIDER; i++) {
			if (table[i]) {
				list_add_tail(&table[i]->gone, gone);
				table[i] = NULL;
			}
		}
	}
	if (slot < 0)
		slot = etw_free_slot(table);
	if (slot < 0)
		return -ENOSPC;
	if (table[slot])
		list_add_tail(&table[slot]->gone, gone);
	e->slot = slot;
	e->stamp = ++etw_enable_stamp;
	table[slot] = e;
	return 0;
}

/**
 * etw_enable() - ETW_IOC_ENABLE, once the session is found and checked
 * @s: the session (referenced, not stopped when called)
 * @a: the arguments
 * @e: for ETW_CONTROL_ENABLE, the new enable with filters filled in
 *	(ownership passes); NULL otherwise
 * @wf: out: files to wait on (referenced), when @a->timeout_ms is set
 * @ws: out: their sequence numbers
 * @nw: out: entries in @wf and @ws
 *
 * Context: process context; takes etw_mutex.
 * Return: 0, -ENOSPC for a 9th session, -ENOENT when the session stopped,
 * -ENOMEM.
 */
int etw_enable(struct etw_session *s, struct etw_enable_args *a,
	       struct etw_enable *e, struct etw_file ***wf, u64 **ws,
	       unsigned int *nw)
{
	bool group = a->properties & ETW_ENABLE_PROVIDER_GROUP;
	struct etw_waits w = { .wanted = a->timeout_ms != 0 };
	struct etw_enable **table;
	struct etw_gentry *g;
	LIST_HEAD(gone);
	int ret = 0, slot, control;

	mutex_lock(&etw_mutex);
	if (s->stopped) {
		ret = -ENOENT;
		goto out_unlock;
	}
	g = etw_gentry_get(&a->guid);
	if (!g) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	table = group ? g->group_enables : g->enables;

	switch (a->control_code) {
	case ETW_CONTROL_ENABLE:
		e->session = s;
		ret = etw_table_set(g, table, e, group, &gone);
		if (ret)
			goto out_put;
		e = NULL;
		control = ETW_CONTROL_ENABLE;
		break;
	case ETW_CONTROL_DISABLE:
		slot = etw_find_slot(table, s);
		if (slot < 0)
			goto out_put;
		list_add_tail(&table[slot]->gone, &gone);
		table[slot] = NULL;
		control = ETW_CONTROL_ENABLE;
		break;
	default:
		control = ETW_CONTROL_CAPTURE_STATE;
		break;
	}
	if (control == ETW_CONTROL_CAPTURE_STATE) {
		struct list_head *regs = group ? &g->members : &g->regs;
		struct etw_reg *reg;

		if (group) {
			list_for_each_entry(reg, regs, mnode)
				ret = ret ?: etw_reg_update(reg, control,
							    &a->source_id, &w);
		} else {
			list_for_each_entry(reg, regs, gnode)
				ret = ret ?: etw_reg_update(reg, control,
							    &a->source_id, &w);
		}
	} else {
		ret = etw_regs_update(group ? &g->members : &g->regs, group,
				      control, &a->source_id, &w);
	}
out_put:
	etw_gentry_put(g);
out_unlock:
	mutex_unlock(&etw_mutex);
	etw_enables_free_later(&gone);
	etw_enable_free(e);
	*wf = w.files;
	*ws = w.seqs;
	*nw = w.n;
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(etw_enable);

static void etw_table_drop_session(struct etw_enable **table,
				   struct etw_session *s, struct list_head *gone)
{
	int slot = etw_find_slot(table, s);

	if (slot >= 0) {
		list_add_tail(&table[slot]->gone, gone);
		table[slot] = NULL;
	}
}

/**
 * etw_provider_session_gone() - unlink a stopping session from every GUID
 * @s: the session, already marked stopped
 *
 * Providers are notified with their new combined state.  On return no
 * route refers to @s and no writer still uses an old route (an RCU grace
 * period has passed).
 *
 * Context: process context; etw_mutex held.
 */
void etw_provider_session_gone(struct etw_session *s)
{
	struct etw_enable *e, *etmp;
	struct etw_gentry *g;
	struct hlist_node *tmp;
	LIST_HEAD(gone);
	int bkt;

	lockdep_assert_held(&etw_mutex);
	hash_for_each_safe(etw_guids, bkt, tmp, g, node) {
		bool direct = etw_find_slot(g->enables, s) >= 0;
		bool group = etw_find_slot(g->group_enables, s) >= 0;

		if (!direct && !group)
			continue;
		etw_table_drop_session(g->enables, s, &gone);
		etw_table_drop_session(g->group_enables, s, &gone);
		if (direct)
			etw_regs_update(&g->regs, false, ETW_CONTROL_ENABLE,
					NULL, NULL);
		if (group)
			etw_regs_update(&g->members, true, ETW_CONTROL_ENABLE,
					NULL, NULL);
		etw_gentry_put(g);
	}
	/* No writer may still use a route that led to @s. */
	synchronize_rcu();
	list_for_each_entry_safe(e, etmp, &gone, gone)
		etw_enable_free(e);
}

/**
 * etw_list_providers() - ETW_IOC_LIST_PROVIDERS
 * @info: out: up to @count entries
 * @count: in: room in @info; out: registrations visible to the caller
 * @all: list every process's registrations (privileged callers)
 *
 * Context: process context; takes etw_mutex.
 * Return: 0.
 */
int etw_list_providers(struct etw_provider_info *info, u32 *count, bool all)
{
	struct etw_gentry *g;
	u32 n = 0;
	int bkt;

	mutex_lock(&etw_mutex);
	hash_for_each(etw_guids, bkt, g, node) {
		struct etw_reg *reg;

		list_for_each_entry(reg, &g->regs, gnode) {
			struct etw_provider_info *p;
			const struct etw_enable_state *es;
			const struct etw_route *r;
			unsigned int i;

			if (!all && reg->tgid != task_tgid(current))
				continue;
			if (n++ >= *count)
				continue;
			p = &info[n - 1];
			memset(p, 0, sizeof(*p));
			p->guid = reg->guid;
			p->pid = reg->tgid ? pid_nr(reg->tgid) : 0;
			p->flags = reg->classic ? ETW_REGISTER_CLASSIC : 0;
			if (reg->group)
				p->group = reg->group->guid;
			/* The name is NUL-terminated: etw_traits_parse() checked. */
			if (reg->traits)
				strscpy(p->name, reg->traits + 2, sizeof(p->name));
			es = etw_reg_state(reg);
			p->enabled = es->enabled;
			p->level = es->level;
			p->match_any = es->match_any;
			p->match_all = es->match_all;
			r = rcu_dereference_protected(reg->route,
						      lockdep_is_held(&etw_mutex));
			for (i = 0; r && i < r->count; i++) {
				u16 id = r->e[i].session->logger_id;

				if (id <= ETW_MAX_GLOBAL_SESSIONS)
					p->session_mask |= BIT_ULL(id - 1);
			}
		}
	}
	mutex_unlock(&etw_mutex);
	*count = n;
	return 0;
}

/**
 * etw_provider_regroup() - a session's disallow list changed
 * @s: the session
 *
 * Rebuilds the routes of every member of a group @s enables.
 *
 * Context: process context; etw_mutex held.
 */
void etw_provider_regroup(struct etw_session *s)
{
	struct etw_gentry *g;
	int bkt;

	lockdep_assert_held(&etw_mutex);
	hash_for_each(etw_guids, bkt, g, node)
		if (etw_find_slot(g->group_enables, s) >= 0)
			etw_regs_update(&g->members, true, -1, NULL, NULL);
}

/**
 * etw_unregister_kernel() - unlink an in-kernel provider's registration
 * @reg: the registration; its owner frees it after an RCU grace period
 *
 * Context: process context; takes etw_mutex.
 */
void etw_unregister_kernel(struct etw_reg *reg)
{
	mutex_lock(&etw_mutex);
	etw_reg_detach(reg);
	mutex_unlock(&etw_mutex);
}
