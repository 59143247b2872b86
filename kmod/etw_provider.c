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
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"
#include "etw_internal.h"
#include "etw_provider.h"

/* Every etw_guid_entry, by GUID; protected by etw_mutex. */
DEFINE_HASHTABLE(etw_guids, ETW_GUID_HASH_BITS);
/* Chosen at load: a caller cannot pick GUIDs that share a bucket. */
static u32 etw_guid_seed __read_mostly;

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

/**
 * etw_guid_entry_find() - look up a GUID's entry
 * @guid: the GUID
 *
 * Context: etw_mutex held.
 * Return: the entry, or NULL when nothing registers, enables or names
 * @guid as a group.
 */
struct etw_guid_entry *etw_guid_entry_find(const struct etw_guid *guid)
{
	struct etw_guid_entry *g;

	lockdep_assert_held(&etw_mutex);
	hash_for_each_possible(etw_guids, g, node, etw_guid_hash(guid))
		if (!memcmp(&g->guid, guid, sizeof(*guid)))
			return g;
	return NULL;
}

/**
 * etw_guid_entry_get() - a GUID's entry, made if there is none
 * @guid: the GUID
 *
 * A new entry stays in the table until etw_guid_entry_put() finds it
 * unused.
 *
 * Context: process context; etw_mutex held.
 * Return: the entry, or NULL when it cannot be allocated.
 */
struct etw_guid_entry *etw_guid_entry_get(const struct etw_guid *guid)
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

/**
 * etw_guid_entry_put() - free a GUID's entry if nothing uses it any more
 * @g: the entry
 *
 * An entry is used while it has registrations, group members or enables.
 *
 * Context: etw_mutex held.
 */
void etw_guid_entry_put(struct etw_guid_entry *g)
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

/*
 * The file name of the current program's executable, for the
 * executable-name filter: fixed at registration, which execve() ends.
 * NULL when the process has no executable.
 */
static int etw_reg_exe_name(struct etw_reg *reg)
{
	struct name_snapshot name;
	struct file *exe;

	exe = etw_current_exe_file();
	if (!exe)
		return 0;
	take_dentry_name_snapshot(&name, exe->f_path.dentry);
	reg->exe_name = kstrdup(name.name.name, GFP_KERNEL_ACCOUNT);
	release_dentry_name_snapshot(&name);
	fput(exe);
	return reg->exe_name ? 0 : -ENOMEM;
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
	ret = etw_reg_exe_name(reg);
	if (ret)
		goto out_free;
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
out_free:
	kfree(reg->exe_name);
	kfree(reg);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(etw_register);

static void etw_reg_free_rcu(struct rcu_head *rcu)
{
	struct etw_reg *reg = container_of(rcu, struct etw_reg, rcu);

	kfree(reg->traits);
	kfree(reg->exe_name);
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

/*
 * Publish @reg's traits.  What the file's threads staged before is routed
 * first, without them, as the route was (etw_batch.c).
 */
static void etw_traits_publish(struct etw_reg *reg, u8 *blob, u16 len)
{
	if (reg->file)
		etw_batch_drain_file(reg->file);
	reg->traits_len = len;
	/* Pairs with smp_load_acquire() in etw_event_size(). */
	smp_store_release(&reg->traits, blob);
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
	etw_traits_publish(reg, blob, len);
	etw_op_commit(&op);
	return 0;

out_publish:
	etw_traits_publish(reg, blob, len);
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
