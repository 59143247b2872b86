// SPDX-License-Identifier: GPL-2.0
/*
 * etw_main.c - module init and exit, the /dev/etw misc device, parameters,
 * etw_mutex.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
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
}

module_init(etw_init);
module_exit(etw_exit);

MODULE_DESCRIPTION("Event Tracing for Windows routing core");
MODULE_LICENSE("GPL");
MODULE_VERSION(ETW_VERSION);
