// SPDX-License-Identifier: GPL-2.0
/*
 * etw_provider.c - the GUID table, provider registrations (user and
 * in-kernel), their traits and the groups they join.
 *
 * Every GUID that is registered, enabled, or named as a group has an
 * etw_guid_entry in the table, while any of those lasts.  Joining a
 * group: the first member's uid owns the group while it has members;
 * other uids need etw_may_control().  The other provider files are named
 * in etw_provider.h, with the rules they keep.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"
#include "etw_trace.h"

static DEFINE_HASHTABLE(etw_guids, 8);
/* Chosen at load: a caller cannot pick GUIDs that share a bucket. */
static u32 etw_guid_seed __read_mostly;
static u64 etw_enable_stamp;

/**
 * etw_providers_init() - set up the GUID table at module load
 *
 * Context: module init.
 */
void etw_providers_init(void)
{
	etw_guid_seed = get_random_u32();
}

static u32 etw_guid_hash(const struct etw_guid *g)
{
	return jhash(g, sizeof(*g), etw_guid_seed);
}

static struct etw_guid_entry *etw_guid_entry_find(const struct etw_guid *guid)
{
	struct etw_guid_entry *g;

	lockdep_assert_held(&etw_mutex);
	hash_for_each_possible(etw_guids, g, node, etw_guid_hash(guid))
		if (!memcmp(&g->guid, guid, sizeof(*guid)))
			return g;
	return NULL;
}

static struct etw_guid_entry *etw_guid_entry_get(const struct etw_guid *guid)
{
	struct etw_guid_entry *g = etw_guid_entry_find(guid);

	if (g)
		return g;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		return NULL;
	g->guid = *guid;
	INIT_LIST_HEAD(&g->regs);
	INIT_LIST_HEAD(&g->members);
	INIT_LIST_HEAD(&g->private_enables);
	hash_add(etw_guids, &g->node, etw_guid_hash(guid));
	return g;
}

static void etw_guid_entry_put(struct etw_guid_entry *g)
{
	int i;

	lockdep_assert_held(&etw_mutex);
	if (!list_empty(&g->regs) || !list_empty(&g->members) ||
	    !list_empty(&g->private_enables))
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
	kfree(e->stack_ids);
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

/* Give @e the filters in @in; @e takes @in->data. */
static int etw_enable_filters(struct etw_enable *e,
			      struct etw_enable_filters *in)
{
	e->filter_data = in->data;
	e->filter_size = in->data_size;
	in->data = NULL;
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
 *	@in->data, also when this fails
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
		kfree(in->data);
		in->data = NULL;
		return ERR_PTR(-ENOMEM);
	}
	e->level = a->level;
	e->properties = a->properties;
	e->match_any = a->match_any;
	e->match_all = a->match_all;
	e->source_id = a->source_id;
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

/* Register @reg (fields set, not linked) and notify it if enabled. */
static int etw_reg_attach(struct etw_reg *reg)
{
	struct etw_guid_entry *g;
	struct etw_op op;
	int ret;

	lockdep_assert_held(&etw_mutex);
	g = etw_guid_entry_get(&reg->guid);
	if (!g)
		return -ENOMEM;
	reg->guid_entry = g;
	list_add_tail(&reg->gnode, &g->regs);

	etw_op_init(&op, NULL, GFP_KERNEL_ACCOUNT, NULL);
	ret = etw_op_add(&op, reg, ETW_NOTIFY_ON_CHANGE);
	if (!ret)
		ret = etw_op_finish(&op);
	else
		etw_op_abort(&op);
	if (ret) {
		list_del(&reg->gnode);
		etw_guid_entry_put(g);
	}
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
	reg->exec_id = READ_ONCE(current->self_exec_id);
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
	struct etw_guid_entry *g = reg->guid_entry;
	struct etw_route *r;

	lockdep_assert_held(&etw_mutex);
	list_del(&reg->gnode);
	if (reg->group)
		list_del(&reg->mnode);
	r = rcu_replace_pointer(reg->route, NULL, lockdep_is_held(&etw_mutex));
	if (r)
		kfree_rcu(r, rcu);
	etw_state_publish(reg, &off);
	if (reg->file)
		etw_notify_drop_reg(reg->file, reg);
	/* Last: the group may be the registration's own GUID. */
	if (reg->group && reg->group != g)
		etw_guid_entry_put(reg->group);
	etw_guid_entry_put(g);
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
 * Return: 0, or -EBADF for an id that is not registered on @f by this
 * program image.
 */
int etw_unregister(struct etw_file *f, u32 reg_id)
{
	struct etw_reg *reg;

	mutex_lock(&etw_mutex);
	reg = etw_file_reg(f, reg_id);
	if (!reg || !etw_reg_is_current(reg)) {
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
 * etw_providers_release_file() - unregister everything a closing file holds
 * @f: the file
 *
 * Context: process context; etw_mutex held.
 */
void etw_providers_release_file(struct etw_file *f)
{
	struct etw_reg *reg;
	u32 id;

	lockdep_assert_held(&etw_mutex);
	for (id = 1; id <= ETW_MAX_REGISTRATIONS; id++) {
		reg = etw_file_reg(f, id);
		if (!reg)
			continue;
		RCU_INIT_POINTER(f->regs[id - 1], NULL);
		etw_unregister_reg(reg);
	}
	f->nregs = 0;
}

/**
 * etw_providers_end_image() - execve(): unregister the old image's
 *	registrations on a file
 * @f: a file the exec'ing process holds
 *
 * Context: process context, in the process after execve(); etw_mutex held.
 */
void etw_providers_end_image(struct etw_file *f)
{
	struct etw_reg *reg;
	u32 id;

	lockdep_assert_held(&etw_mutex);
	for (id = 1; id <= ETW_MAX_REGISTRATIONS; id++) {
		reg = etw_file_reg(f, id);
		if (!reg || reg->tgid != task_tgid(current) ||
		    etw_reg_is_current(reg))
			continue;
		RCU_INIT_POINTER(f->regs[id - 1], NULL);
		f->nregs--;
		etw_unregister_reg(reg);
	}
}

/**
 * etw_register_kernel() - register an in-kernel provider's registration
 * @reg: the registration, with @guid and @notify set
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

static int etw_group_may_join(struct etw_guid_entry *grp)
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
 * @blob: the blob, kmalloc'ed; ownership passes on success only
 * @len: its size
 *
 * Context: process context; etw_mutex held.
 * Return: 0, -EEXIST when traits were set before, -EBADMSG for a bad
 * blob, -EACCES when the group may not be joined, -ENOMEM.  On failure
 * nothing changed and the caller still owns @blob.
 */
int etw_set_traits_reg(struct etw_reg *reg, u8 *blob, u16 len)
{
	static const struct etw_guid no_group;
	struct etw_guid_entry *grp;
	struct etw_guid group;
	struct etw_op op;
	int ret;

	lockdep_assert_held(&etw_mutex);
	if (reg->traits)
		return -EEXIST;
	ret = etw_traits_parse(blob, len, &group);
	if (ret)
		return ret;
	if (!memcmp(&group, &no_group, sizeof(group)))
		goto out_publish;

	grp = etw_guid_entry_get(&group);
	if (!grp)
		return -ENOMEM;
	ret = etw_group_may_join(grp);
	if (ret)
		goto out_put_group;
	reg->group = grp;
	list_add_tail(&reg->mnode, &grp->members);
	etw_op_init(&op, NULL, GFP_KERNEL_ACCOUNT, NULL);
	ret = etw_op_add(&op, reg, ETW_NOTIFY_ON_CHANGE);
	if (ret)
		goto out_leave_group;
	reg->traits_len = len;
	/* Pairs with smp_load_acquire() in etw_event_size(). */
	smp_store_release(&reg->traits, blob);
	etw_op_commit(&op);
	return 0;

out_publish:
	reg->traits_len = len;
	/* Pairs with smp_load_acquire() in etw_event_size(). */
	smp_store_release(&reg->traits, blob);
	return 0;

out_leave_group:
	list_del_init(&reg->mnode);
	reg->group = NULL;
out_put_group:
	etw_guid_entry_put(grp);
	return ret;
}

/**
 * etw_set_traits() - ETW_IOC_SET_TRAITS
 * @f: the file
 * @reg_id: the registration
 * @blob: the blob, kmalloc'ed; ownership passes on success only
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
	if (!reg || !etw_reg_is_current(reg))
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

static bool etw_enable_same(const struct etw_enable *a,
			    const struct etw_enable *b)
{
	if (a->level != b->level || a->properties != b->properties ||
	    a->match_any != b->match_any || a->match_all != b->match_all ||
	    a->npids != b->npids || a->filter_size != b->filter_size)
		return false;
	if (memcmp(a->pids, b->pids, a->npids * sizeof(a->pids[0])) ||
	    (a->filter_size &&
	     memcmp(a->filter_data, b->filter_data, a->filter_size)))
		return false;
	return etw_id_filter_same(a->ids, b->ids) &&
	       etw_id_filter_same(a->stack_ids, b->stack_ids);
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
