// SPDX-License-Identifier: GPL-2.0
/*
 * etw_dev.c - /dev/etw file operations and ioctl dispatch.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_internal.h"

static long etw_ioctl_get_info(void __user *uarg)
{
	struct etw_info info = {};
	u32 usize;
	int ret;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ETW_INFO_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&info, sizeof(info), uarg, usize);
	if (ret)
		return ret;
	info.abi_version = ETW_ABI_VERSION;
	info.features = 0;
	info.max_global_sessions = ETW_MAX_GLOBAL_SESSIONS;
	info.max_private_sessions = ETW_MAX_PRIVATE_SESSIONS;
	info.max_sessions_per_provider = ETW_MAX_SESSIONS_PER_PROVIDER;
	info.max_event_size = ETW_MAX_EVENT_SIZE;
	info.max_data_descriptors = ETW_MAX_DATA_DESCRIPTORS;
	info.max_registrations = ETW_MAX_REGISTRATIONS;
	info.enable_map_size = 0;
	info.clock_id = CLOCK_MONOTONIC;
	info.boot_offset_ns = ktime_get_real_ns() - ktime_get_ns();
	info.size = min_t(u32, usize, sizeof(info));
	if (copy_to_user(uarg, &info, info.size))
		return -EFAULT;
	return 0;
}

static long etw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case ETW_IOC_NULL:
		return 0;
	case ETW_IOC_GET_INFO:
		return etw_ioctl_get_info(uarg);
	default:
		return -ENOTTY;
	}
}

const struct file_operations etw_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = etw_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
