// SPDX-License-Identifier: GPL-2.0
/*
 * etw_main.c - module init and exit, the /dev/etw misc device, parameters,
 * etw_mutex; and what every part of the module asks of the kernel: who
 * may control sessions and see what records show, core tracepoints by
 * name.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/coredump.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/user_namespace.h>

#include "compat.h"
#include "etw_internal.h"

/* Serialises control operations; see the locking rules in etw_internal.h. */
DEFINE_MUTEX(etw_mutex);
EXPORT_SYMBOL_IF_KUNIT(etw_mutex);

/*
 * The group whose members may control global sessions without
 * CAP_SYS_ADMIN, the Linux counterpart of "Performance Log Users";
 * -1 (the default) means none.
 */
static int control_gid = -1;
module_param(control_gid, int, 0644);
MODULE_PARM_DESC(control_gid, "gid allowed to control global sessions (-1: none)");

/**
 * etw_may_control() - may the caller control global sessions
 *
 * control_gid names a group of the initial user namespace.  A caller in
 * any other user namespace never qualifies through it: there, whoever
 * created the namespace could map control_gid onto a gid of their own.
 *
 * Context: process context.
 * Return: true for CAP_SYS_ADMIN in the initial user namespace, or for a
 * member of the control_gid group in the initial user namespace.
 */
bool etw_may_control(void)
{
	int gid = READ_ONCE(control_gid);
	kgid_t kgid;

	if (capable(CAP_SYS_ADMIN))
		return true;
	if (gid < 0 || current_user_ns() != &init_user_ns)
		return false;
	kgid = make_kgid(&init_user_ns, gid);
	return gid_valid(kgid) && in_group_p(kgid);
}

/**
 * etw_viewer_init() - what the caller may see in the records it gets
 * @v: filled in from the caller's credentials
 *
 * The kernel's own rules: kernel addresses where kptr_restrict and
 * perf_event_paranoid would show them (CAP_SYSLOG, CAP_PERFMON or
 * CAP_SYS_ADMIN in the initial user namespace); another process's command
 * line, mappings and user stack where /proc/PID/maps would
 * (etw_viewer_may_read()).
 *
 * Context: process context.
 */
void etw_viewer_init(struct etw_viewer *v)
{
	const struct cred *c = current_cred();

	v->fsuid = c->fsuid;
	v->fsgid = c->fsgid;
	v->kaddr = ns_capable_noaudit(&init_user_ns, CAP_SYSLOG) ||
		   ns_capable_noaudit(&init_user_ns, CAP_PERFMON) ||
		   ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN);
	v->all_tasks = ns_capable_noaudit(&init_user_ns, CAP_SYS_PTRACE);
}
EXPORT_SYMBOL_IF_KUNIT(etw_viewer_init);

/**
 * etw_viewer_may_read() - may @v see @t's command line, mappings and stack
 * @v: the viewer
 * @t: the task
 * @mm: @t's address space, or NULL
 *
 * ptrace_may_access(PTRACE_MODE_READ_FSCREDS), the rule of /proc/PID/maps,
 * with @v's credentials and without the LSM hook: CAP_SYS_PTRACE, or
 * @v's fsuid and fsgid equal to each of @t's real, effective and saved
 * ids and @mm dumpable.
 *
 * Context: any; takes the RCU read lock.
 * Return: true when @v may see them.
 */
bool etw_viewer_may_read(const struct etw_viewer *v, struct task_struct *t,
			 struct mm_struct *mm)
{
	const struct cred *tc;
	bool same;

	if (v->all_tasks)
		return true;
	rcu_read_lock();
	tc = __task_cred(t);
	same = uid_eq(v->fsuid, tc->uid) && uid_eq(v->fsuid, tc->euid) &&
	       uid_eq(v->fsuid, tc->suid) && gid_eq(v->fsgid, tc->gid) &&
	       gid_eq(v->fsgid, tc->egid) && gid_eq(v->fsgid, tc->sgid);
	rcu_read_unlock();
	return same && (!mm || get_dumpable(mm) == SUID_DUMP_USER);
}
EXPORT_SYMBOL_IF_KUNIT(etw_viewer_may_read);

/**
 * etw_viewer_covers() - may @reader see all that @session's records show
 * @session: what the session's records may show (its starter's viewer)
 * @reader: the would-be reader's, from etw_viewer_init()
 *
 * The records carry kernel addresses only with @session->kaddr, and the
 * command lines, mappings and stacks of every process with
 * @session->all_tasks, else of processes running as @session's fsuid and
 * fsgid.  So @reader needs each of @session's capabilities and, without
 * CAP_SYS_PTRACE, @session's fsuid and fsgid: else a control_gid member
 * would read the KASLR offsets and the layouts of root's processes in a
 * session root started.
 *
 * Context: any.
 * Return: true when @reader may read @session's records.
 */
bool etw_viewer_covers(const struct etw_viewer *session,
		       const struct etw_viewer *reader)
{
	if (session->kaddr && !reader->kaddr)
		return false;
	if (reader->all_tasks)
		return true;
	return !session->all_tasks && uid_eq(session->fsuid, reader->fsuid) &&
	       gid_eq(session->fsgid, reader->fsgid);
}
EXPORT_SYMBOL_IF_KUNIT(etw_viewer_covers);

/* What etw_tracepoint_find() looks for, and what it found. */
struct etw_tp_wanted {
	const char *name;
	struct tracepoint *tp;
};

static void etw_tracepoint_match(struct tracepoint *tp, void *priv)
{
	struct etw_tp_wanted *want = priv;

	if (!strcmp(tp->name, want->name))
		want->tp = tp;
}

/**
 * etw_tracepoint_find() - a core kernel tracepoint by name
 * @name: its name
 *
 * Most are not exported to modules; the kernel lists them all.
 *
 * Context: process context.
 * Return: the tracepoint, or NULL (a kernel without it).
 */
struct tracepoint *etw_tracepoint_find(const char *name)
{
	struct etw_tp_wanted want = { .name = name };

	for_each_kernel_tracepoint(etw_tracepoint_match, &want);
	return want.tp;
}

static struct miscdevice etw_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "etw",
	.fops = &etw_fops,
	.mode = 0666,
};

/*
 * Not module_misc_device(): init seeds the GUID hash and hooks execve()
 * before /dev/etw appears, and exit waits for RCU callbacks after it is
 * gone.
 */
static int __init etw_init(void)
{
	int ret;

	etw_providers_init();
	ret = etw_exec_init();
	if (ret)
		return ret;
	ret = etw_batch_init();
	if (ret)
		goto out_exec_exit;
	ret = misc_register(&etw_misc);
	if (ret)
		goto out_batch_exit;
	return 0;

out_batch_exit:
	etw_batch_exit();
out_exec_exit:
	etw_exec_exit();
	return ret;
}

static void __exit etw_exit(void)
{
	misc_deregister(&etw_misc);
	etw_batch_exit();
	etw_exec_exit();
	/* Registrations and routes freed with call_rcu() run our code. */
	rcu_barrier();
	etw_write_exit();
}

module_init(etw_init);
module_exit(etw_exit);

MODULE_DESCRIPTION("Event Tracing for Windows routing core");
MODULE_LICENSE("GPL");
MODULE_VERSION(ETW_VERSION);
