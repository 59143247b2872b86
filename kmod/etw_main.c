// SPDX-License-Identifier: GPL-2.0
/*
 * etw_main.c - module init and exit, the /dev/etw misc device, parameters.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "compat.h"
#include "etw_internal.h"

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
 * Context: process context.
 * Return: true for CAP_SYS_ADMIN or membership in the control_gid group.
 */
bool etw_may_control(void)
{
	int gid = READ_ONCE(control_gid);

	if (capable(CAP_SYS_ADMIN))
		return true;
	return gid >= 0 && in_group_p(make_kgid(current_user_ns(), gid));
}

static struct miscdevice etw_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "etw",
	.fops = &etw_fops,
	.mode = 0666,
};

static int __init etw_init(void)
{
	return misc_register(&etw_misc);
}

static void __exit etw_exit(void)
{
	misc_deregister(&etw_misc);
}

module_init(etw_init);
module_exit(etw_exit);

MODULE_DESCRIPTION("Event Tracing for Windows routing core");
MODULE_LICENSE("GPL");
