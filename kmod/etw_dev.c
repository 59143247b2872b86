// SPDX-License-Identifier: GPL-2.0
/*
 * etw_dev.c - /dev/etw: its file operations and the ioctl dispatcher.
 *
 * Each command's handler copies its arguments in and its results out
 * with etw_args_in() and etw_args_out() (etw_file.c) and leaves the work
 * to the file that owns it.  Commands are dispatched with the size bits
 * of the command number masked off: the struct's own size field is the
 * one that counts.
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "etw_internal.h"

#define ETW_KNOWN_PROPERTIES \
	(ETW_ENABLE_IGNORE_KEYWORD_0 | ETW_ENABLE_PROVIDER_GROUP | \
	 ETW_ENABLE_EXCLUDE_INPRIVATE | ETW_ENABLE_EXT_PROPS)

/* Each published first size ends at a member of that version. */
static_assert(offsetofend(struct etw_info, boot_offset_ns) ==
	      ETW_INFO_SIZE_VER0);
static_assert(offsetofend(struct etw_register_args, enable_index) ==
	      ETW_REGISTER_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_unregister_args, reg_id) ==
	      ETW_UNREGISTER_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_traits_args, flags) ==
	      ETW_TRAITS_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_write_args, exclude_mask) ==
	      ETW_WRITE_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_ack_args, seq) ==
	      ETW_ACK_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_provider_info, name) ==
	      ETW_PROVIDER_INFO_SIZE_VER0);
static_assert(offsetofend(struct etw_provider_info, sessions) ==
	      ETW_PROVIDER_INFO_SIZE_VER1);
static_assert(offsetofend(struct etw_list_providers_args, flags) ==
	      ETW_LIST_PROVIDERS_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_session_args, start_time_ns) ==
	      ETW_SESSION_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_list_args, ids_ptr) ==
	      ETW_LIST_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_enable_args, reserved2) ==
	      ETW_ENABLE_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_enable_args, stack_ids_ptr) ==
	      ETW_ENABLE_ARGS_SIZE_VER1);
static_assert(offsetofend(struct etw_enable_args, stack_names_ptr) ==
	      ETW_ENABLE_ARGS_SIZE_VER2);
static_assert(offsetofend(struct etw_enable_args, payload_ptr) ==
	      ETW_ENABLE_ARGS_SIZE_VER3);
static_assert(offsetofend(struct etw_event_name_filter, name_count) ==
	      ETW_EVENT_NAME_FILTER_NAMES);
static_assert(offsetofend(struct etw_disallow_args, guids_ptr) ==
	      ETW_DISALLOW_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_consume_args, reserved) ==
	      ETW_CONSUME_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_consumer_stats_args, stats) ==
	      ETW_CONSUMER_STATS_ARGS_SIZE_VER0);
static_assert(offsetofend(struct etw_batch_args, reserved) ==
	      ETW_BATCH_ARGS_SIZE_VER0);

/* struct etw_filter_header is EVENT_FILTER_HEADER, byte for byte. */
static_assert(offsetof(struct etw_filter_header, instance_id) == 8);
static_assert(offsetof(struct etw_filter_header, size) == 16);
static_assert(offsetof(struct etw_filter_header, next_offset) == 20);
static_assert(sizeof(struct etw_filter_header) == 24);

static int etw_open(struct inode *inode, struct file *file)
{
	struct etw_file *f = etw_file_alloc();

	if (!f)
		return -ENOMEM;
	file->private_data = f;
	etw_exec_file_opened();
	return 0;
}

static int etw_release(struct inode *inode, struct file *file)
{
	struct etw_file *f = file->private_data;

	/* Staged events of the registrations about to end go first. */
	etw_batch_drain_file(f);
	mutex_lock(&etw_mutex);
	etw_providers_release_file(f);
	etw_sessions_release_file(f);
	mutex_unlock(&etw_mutex);
	etw_notify_release(f);
	etw_file_put(f);
	etw_exec_file_closed();
	return 0;
}

static ssize_t etw_read(struct file *file, char __user *buf, size_t len,
			loff_t *ppos)
{
	return etw_notify_read(file->private_data, buf, len,
			       file->f_flags & O_NONBLOCK);
}

static __poll_t etw_poll(struct file *file, poll_table *wait)
{
	struct etw_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->nwait, wait);
	spin_lock(&f->nlock);
	if (!list_empty(&f->notifications))
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&f->nlock);
	return mask;
}

static int etw_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct etw_file *f = file->private_data;
	unsigned long off;
	int ret;

	if (vma->vm_pgoff != ETW_MMAP_ENABLE ||
	    vma->vm_end - vma->vm_start > ETW_ENABLE_MAP_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	etw_vma_clear_maywrite(vma);
	for (off = 0; off < vma->vm_end - vma->vm_start; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page((void *)f->enable_map + off));
		if (ret)
			return ret;
	}
	return 0;
}

static long etw_ioctl_get_info(void __user *uarg)
{
	struct etw_info info = {};
	u32 usize;
	int ret;

	ret = etw_args_in(&info, sizeof(info), ETW_INFO_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	memset(&info, 0, sizeof(info));
	info.abi_version = ETW_ABI_VERSION;
	info.max_global_sessions = ETW_MAX_GLOBAL_SESSIONS;
	info.max_private_sessions = ETW_MAX_PRIVATE_SESSIONS;
	info.max_sessions_per_provider = ETW_MAX_SESSIONS_PER_PROVIDER;
	info.max_event_size = ETW_MAX_EVENT_SIZE;
	info.max_data_descriptors = ETW_MAX_DATA_DESCRIPTORS;
	info.max_registrations = ETW_MAX_REGISTRATIONS;
	info.enable_map_size = ETW_ENABLE_MAP_SIZE;
	info.clock_id = CLOCK_MONOTONIC;
	info.boot_offset_ns = ktime_get_real_ns() - ktime_get_ns();
	return etw_args_out(uarg, &info, sizeof(info), usize);
}

static long etw_ioctl_register(struct etw_file *f, void __user *uarg)
{
	struct etw_register_args a;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_REGISTER_ARGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	ret = etw_register(f, &a);
	if (ret)
		return ret;
	ret = etw_args_out(uarg, &a, sizeof(a), usize);
	if (ret)
		etw_unregister(f, a.reg_id);
	return ret;
}

static long etw_ioctl_unregister(struct etw_file *f, void __user *uarg)
{
	struct etw_unregister_args a;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_UNREGISTER_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	/* Every thread's staged events of the registration go first. */
	etw_batch_drain_file(f);
	return etw_unregister(f, a.reg_id);
}

static long etw_ioctl_ack(struct etw_file *f, void __user *uarg)
{
	struct etw_ack_args a;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_ACK_ARGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	etw_notify_ack(f, a.seq);
	return 0;
}

static long etw_ioctl_set_traits(struct etw_file *f, void __user *uarg)
{
	struct etw_traits_args a;
	u32 usize;
	u8 *blob;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_TRAITS_ARGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (a.flags)
		return -EINVAL;
	/* At least the size and an empty name. */
	if (a.traits_len < ETW_TRAITS_NAME_OFFSET + 1 ||
	    a.traits_len > ETW_MAX_TRAITS_SIZE)
		return -EBADMSG;
	blob = kmalloc(a.traits_len, GFP_KERNEL_ACCOUNT);
	if (!blob)
		return -ENOMEM;
	if (copy_from_user(blob, u64_to_user_ptr(a.traits_ptr), a.traits_len)) {
		kfree(blob);
		return -EFAULT;
	}
	/* On success the registration owns @blob; on failure nothing does. */
	ret = etw_set_traits(f, a.reg_id, blob, a.traits_len);
	if (ret)
		kfree(blob);
	return ret;
}

static long etw_ioctl_session(struct etw_file *f, unsigned int cmd,
			      void __user *uarg)
{
	struct etw_session_args *a;
	u32 usize;
	int ret;

	a = kmalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	ret = etw_args_in(a, sizeof(*a), ETW_SESSION_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		goto out_free;
	if (memchr_inv(a->pad, 0, sizeof(a->pad))) {
		ret = -EINVAL;
		goto out_free;
	}
	/* The config is read by start and update; their room must be zero. */
	if ((cmd == ETW_IOC_START || cmd == ETW_IOC_UPDATE) &&
	    memchr_inv(a->config.reserved2, 0, sizeof(a->config.reserved2))) {
		ret = -EINVAL;
		goto out_free;
	}
	/*
	 * An UPDATE cannot be taken back: find an unwritable result area
	 * first, by writing the caller's own bytes back.
	 */
	if (cmd == ETW_IOC_UPDATE &&
	    copy_to_user(uarg, a, min_t(u32, usize, sizeof(*a)))) {
		ret = -EFAULT;
		goto out_free;
	}
	/* Output only: what goes back is the kernel's, zeroes included. */
	memset(&a->stats, 0, sizeof(a->stats));
	if (cmd == ETW_IOC_START)
		ret = etw_session_start(f, a);
	else
		ret = etw_session_control(f, cmd, a);
	if (ret)
		goto out_free;
	ret = etw_args_out(uarg, a, sizeof(*a), usize);
	/* The caller never learnt the new session's id: take it back. */
	if (ret && cmd == ETW_IOC_START)
		etw_session_control(f, ETW_IOC_STOP, a);
out_free:
	kfree(a);
	return ret;
}

static long etw_ioctl_list(struct etw_file *f, void __user *uarg)
{
	struct etw_list_args a;
	u32 usize, n, *ids = NULL;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_LIST_ARGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	n = min_t(u32, a.count, ETW_MAX_GLOBAL_SESSIONS +
		  ETW_MAX_PRIVATE_SESSIONS);
	if (n) {
		ids = kcalloc(n, sizeof(*ids), GFP_KERNEL);
		if (!ids)
			return -ENOMEM;
	}
	a.count = n;
	etw_session_list(f, ids, &a.count);
	ret = 0;
	if (n && copy_to_user(u64_to_user_ptr(a.ids_ptr), ids,
			      min(n, a.count) * sizeof(*ids)))
		ret = -EFAULT;
	kfree(ids);
	return ret ?: etw_args_out(uarg, &a, sizeof(a), usize);
}

/* Entries @info_size bytes apart: what this module knows, zeroes after. */
static int etw_provider_info_out(u64 uptr, u32 info_size,
				 const struct etw_provider_info *info, u32 n)
{
	size_t known = min_t(size_t, info_size, sizeof(*info));
	char __user *u = u64_to_user_ptr(uptr);
	u32 i;

	if (info_size == sizeof(*info))
		return copy_to_user(u, info, n * sizeof(*info)) ? -EFAULT : 0;
	for (i = 0; i < n; i++, u += info_size) {
		if (copy_to_user(u, &info[i], known) ||
		    clear_user(u + known, info_size - known))
			return -EFAULT;
	}
	return 0;
}

static long etw_ioctl_list_providers(struct etw_file *f, void __user *uarg)
{
	struct etw_list_providers_args a;
	struct etw_provider_info *info = NULL;
	u32 usize, n;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_LIST_PROVIDERS_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if ((a.flags & ~ETW_LIST_PRE_ENABLED) ||
	    a.info_size < ETW_PROVIDER_INFO_SIZE_VER0 ||
	    a.info_size > PAGE_SIZE)
		return -EINVAL;
	n = min_t(u32, a.count, ETW_LIST_PROVIDERS_MAX);
	if (n) {
		info = kvcalloc(n, sizeof(*info), GFP_KERNEL);
		if (!info)
			return -ENOMEM;
	}
	a.total = n;
	etw_list_providers(info, a.start, &a.total, etw_may_control(),
			   a.flags);
	a.count = a.start < a.total ? min(n, a.total - a.start) : 0;
	ret = etw_provider_info_out(a.info_ptr, a.info_size, info, a.count);
	kvfree(info);
	return ret ?: etw_args_out(uarg, &a, sizeof(a), usize);
}

/* ENABLE's executable-name filter, parsed from the caller's list. */
static int etw_enable_exe_in(const struct etw_enable_args *a,
			     struct etw_enable_filters *in)
{
	struct etw_exe_filter *f;
	char *list;

	if (!a->exe_names_size)
		return 0;
	if (a->exe_names_size > ETW_MAX_EXE_FILTER)
		return -EINVAL;
	list = memdup_user(u64_to_user_ptr(a->exe_names_ptr),
			   a->exe_names_size);
	if (IS_ERR(list))
		return PTR_ERR(list);
	f = etw_exe_filter_parse(list, a->exe_names_size, GFP_KERNEL_ACCOUNT);
	kfree(list);
	if (IS_ERR(f))
		return PTR_ERR(f);
	in->exe = f;
	return 0;
}

/* An event-name filter (EVENT_NAME or STACKWALK_NAME) from its block. */
static int etw_enable_names_in(u64 ptr, u32 size, struct etw_name_filter **out)
{
	struct etw_name_filter *f;
	void *blob;

	if (!size)
		return 0;
	if (size > ETW_MAX_EVENT_NAME_FILTER)
		return -EINVAL;
	blob = memdup_user(u64_to_user_ptr(ptr), size);
	if (IS_ERR(blob))
		return PTR_ERR(blob);
	f = etw_name_filter_parse(blob, size, GFP_KERNEL_ACCOUNT);
	kfree(blob);
	if (IS_ERR(f))
		return PTR_ERR(f);
	*out = f;
	return 0;
}

/* ENABLE's payload filter, checked and compiled (etw_payload_filter.c). */
static int etw_enable_payload_in(const struct etw_enable_args *a,
				 struct etw_enable_filters *in)
{
	struct etw_payload_set *f;
	void *blob;

	if (!a->payload_size)
		return 0;
	if (a->payload_size > ETW_MAX_PAYLOAD_FILTER)
		return -EINVAL;
	blob = memdup_user(u64_to_user_ptr(a->payload_ptr), a->payload_size);
	if (IS_ERR(blob))
		return PTR_ERR(blob);
	f = etw_payload_filter_parse(blob, a->payload_size, GFP_KERNEL_ACCOUNT);
	kfree(blob);
	if (IS_ERR(f))
		return PTR_ERR(f);
	in->payload = f;
	return etw_write_payload_scratch();
}

/*
 * Copy ENABLE's filters in and check their format; on failure the caller
 * frees what @in holds (etw_enable_filters_release()).
 */
static int etw_enable_filters_in(const struct etw_enable_args *a,
				 struct etw_enable_filters *in)
{
	u32 size = a->filter_data_size;
	int ret;

	if (a->event_id_count > ETW_MAX_EVENT_ID_FILTER ||
	    a->event_ids_filter_in > 1 ||
	    (a->event_ids_filter_in && !a->event_id_count) ||
	    a->stack_id_count > ETW_MAX_EVENT_ID_FILTER ||
	    a->stack_ids_filter_in > 1 ||
	    (a->stack_ids_filter_in && !a->stack_id_count) ||
	    (a->stack_id_count && !(a->properties & ETW_ENABLE_STACK_TRACE)) ||
	    a->stack_lk_filter > ETW_STACK_LK_OUT ||
	    (a->stack_lk_filter && !(a->properties & ETW_ENABLE_STACK_TRACE)) ||
	    (a->stack_names_size &&
	     !(a->properties & ETW_ENABLE_STACK_TRACE)) ||
	    a->pid_count > ETW_MAX_PID_FILTER ||
	    (size && (size < sizeof(struct etw_filter_header) ||
		      size > ETW_MAX_FILTER_DATA)))
		return -EINVAL;
	in->nids = a->event_id_count;
	in->ids_in = a->event_ids_filter_in;
	in->nstack_ids = a->stack_id_count;
	in->stack_ids_in = a->stack_ids_filter_in;
	in->npids = a->pid_count;
	in->data_size = size;
	if (copy_from_user(in->ids, u64_to_user_ptr(a->event_ids_ptr),
			   in->nids * sizeof(in->ids[0])) ||
	    copy_from_user(in->stack_ids, u64_to_user_ptr(a->stack_ids_ptr),
			   in->nstack_ids * sizeof(in->stack_ids[0])) ||
	    copy_from_user(in->pids, u64_to_user_ptr(a->pids_ptr),
			   in->npids * sizeof(in->pids[0])))
		return -EFAULT;
	ret = etw_enable_exe_in(a, in) ?:
	      etw_enable_names_in(a->names_ptr, a->names_size, &in->names) ?:
	      etw_enable_names_in(a->stack_names_ptr, a->stack_names_size,
				  &in->stack_names) ?:
	      etw_enable_payload_in(a, in);
	if (ret || !size)
		return ret;
	in->data = kmalloc(size, GFP_KERNEL_ACCOUNT);
	if (!in->data)
		return -ENOMEM;
	if (copy_from_user(in->data, u64_to_user_ptr(a->filter_data_ptr), size))
		return -EFAULT;
	/* One EVENT_FILTER_HEADER, whose Size says @size, and its data. */
	if (((struct etw_filter_header *)in->data)->size != size)
		return -EINVAL;
	return 0;
}

static long etw_ioctl_enable(struct etw_file *f, void __user *uarg)
{
	struct etw_enable_filters in = {};
	struct etw_enable *e = NULL;
	struct etw_waits w = {};
	struct etw_enable_args a;
	struct etw_session *s;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_ENABLE_ARGS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (memchr_inv(a.reserved, 0, sizeof(a.reserved)) || a.reserved1 ||
	    a.reserved2 || a.reserved3 || a.reserved5 ||
	    memchr_inv(a.reserved4, 0, sizeof(a.reserved4)) ||
	    (a.properties & ~ETW_KNOWN_PROPERTIES) ||
	    a.control_code > ETW_CONTROL_CAPTURE_STATE)
		return -EINVAL;
	s = etw_session_find(f, a.logger_id);
	if (IS_ERR(s))
		return PTR_ERR(s);
	/*
	 * A private session takes its own process's events only: no group,
	 * and no PID filter (EVENT_FILTER_TYPE_PID: "only valid for a kernel
	 * mode logger session").
	 */
	if ((a.properties & ETW_ENABLE_PROVIDER_GROUP || a.pid_count) &&
	    etw_session_is_private(s)) {
		ret = -EINVAL;
		goto out_put_session;
	}
	if (a.control_code == ETW_CONTROL_ENABLE) {
		ret = etw_enable_filters_in(&a, &in);
		if (ret) {
			etw_enable_filters_release(&in);
			goto out_put_session;
		}
		e = etw_enable_alloc(&a, &in);
		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			goto out_put_session;
		}
	}
	ret = etw_enable(s, &a, e, &w);
	if (!ret && w.n)
		ret = etw_notify_wait(&w, a.timeout_ms);
	etw_waits_release(&w);
out_put_session:
	etw_session_put(s);
	return ret;
}

static long etw_ioctl_disallow(struct etw_file *f, void __user *uarg)
{
	struct etw_disallow_args a;
	struct etw_guid *guids = NULL;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_DISALLOW_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (a.reserved || a.count > ETW_MAX_DISALLOW)
		return -EINVAL;
	if (a.count) {
		guids = memdup_array_user(u64_to_user_ptr(a.guids_ptr), a.count,
					  sizeof(*guids));
		if (IS_ERR(guids))
			return PTR_ERR(guids);
	}
	return etw_session_set_disallow(f, a.logger_id, guids, a.count);
}

static long etw_ioctl_get_disallow(void __user *uarg)
{
	struct etw_disallow_args a;
	struct etw_guid *guids;
	u32 usize, n;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_DISALLOW_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (a.reserved)
		return -EINVAL;
	guids = kmalloc_array(ETW_MAX_DISALLOW, sizeof(*guids), GFP_KERNEL);
	if (!guids)
		return -ENOMEM;
	ret = etw_session_get_disallow(a.logger_id, guids, &n);
	if (!ret && copy_to_user(u64_to_user_ptr(a.guids_ptr), guids,
				 min(n, a.count) * sizeof(*guids)))
		ret = -EFAULT;
	kfree(guids);
	a.count = n;
	return ret ?: etw_args_out(uarg, &a, sizeof(a), usize);
}

static long etw_ioctl_consume(struct etw_file *f, void __user *uarg)
{
	struct etw_consume_args a;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_CONSUME_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (a.reserved)
		return -EINVAL;
	return etw_consumer_open(f, a.logger_id, a.flags);
}

static long etw_ioctl_profile_interval(void __user *uarg)
{
	struct etw_profile_interval_args a;
	u32 usize;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_PROFILE_INTERVAL_ARGS_SIZE_VER0,
			  uarg, &usize);
	if (ret)
		return ret;
	ret = etw_klogger_profile_interval(&a);
	return ret ?: etw_args_out(uarg, &a, sizeof(a), usize);
}

static long etw_ioctl_stack_events(struct etw_file *f, void __user *uarg)
{
	struct etw_stack_events_args a;
	struct etw_classic_event_id *ids;
	void __user *uids;
	u32 usize, room;
	int ret;

	ret = etw_args_in(&a, sizeof(a), ETW_STACK_EVENTS_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (a.count > ETW_MAX_STACK_EVENTS)
		return -EINVAL;
	uids = u64_to_user_ptr(a.ids_ptr);
	room = a.count;
	ids = kmalloc_array(ETW_MAX_STACK_EVENTS, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return -ENOMEM;
	if ((a.flags & ETW_STACK_EVENTS_SET) &&
	    copy_from_user(ids, uids, a.count * sizeof(*ids))) {
		kfree(ids);
		return -EFAULT;
	}
	ret = etw_klogger_stack_events(f, &a, ids);
	if (!ret && !(a.flags & ETW_STACK_EVENTS_SET) &&
	    copy_to_user(uids, ids, min(room, a.count) * sizeof(*ids)))
		ret = -EFAULT;
	kfree(ids);
	return ret ?: etw_args_out(uarg, &a, sizeof(a), usize);
}

static long etw_ioctl_batch_open(struct etw_file *f, void __user *uarg)
{
	struct etw_batch_args a;
	struct file *file;
	u32 usize;
	int fd, ret;

	ret = etw_args_in(&a, sizeof(a), ETW_BATCH_ARGS_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (a.reserved)
		return -EINVAL;
	fd = etw_batch_open(f, a.flags, &a.ring_size, &a.ctl_size, &a.clock,
			    &file);
	if (fd < 0)
		return fd;
	ret = etw_args_out(uarg, &a, sizeof(a), usize);
	if (ret) {
		put_unused_fd(fd);
		fput(file);
		return ret;
	}
	fd_install(fd, file);
	return fd;
}

/*
 * Every command but the write; out of line, see etw_ioctl().  Each drains
 * the calling thread's staging ring first.
 */
static noinline long etw_ioctl_cmd(struct etw_file *f, unsigned int cmd,
				   void __user *uarg)
{
	if (!list_empty(&f->batches))
		etw_batch_drain_current(f);
	switch (ETW_IOC_ANYSIZE(cmd)) {
	case ETW_IOC_NULL:
		return 0;
	case ETW_IOC_ANYSIZE(ETW_IOC_GET_INFO):
		return etw_ioctl_get_info(uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_REGISTER):
		return etw_ioctl_register(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_UNREGISTER):
		return etw_ioctl_unregister(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_SET_TRAITS):
		return etw_ioctl_set_traits(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_ACK):
		return etw_ioctl_ack(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_LIST_PROVIDERS):
		return etw_ioctl_list_providers(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_BATCH_OPEN):
		return etw_ioctl_batch_open(f, uarg);
	/* The session code tells these apart by their own numbers. */
	case ETW_IOC_ANYSIZE(ETW_IOC_START):
		return etw_ioctl_session(f, ETW_IOC_START, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_STOP):
		return etw_ioctl_session(f, ETW_IOC_STOP, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_QUERY):
		return etw_ioctl_session(f, ETW_IOC_QUERY, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_UPDATE):
		return etw_ioctl_session(f, ETW_IOC_UPDATE, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_FLUSH):
		return etw_ioctl_session(f, ETW_IOC_FLUSH, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_LIST_SESSIONS):
		return etw_ioctl_list(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_ENABLE):
		return etw_ioctl_enable(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_SET_DISALLOW):
		return etw_ioctl_disallow(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_CONSUME):
		return etw_ioctl_consume(f, uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_GET_DISALLOW):
		return etw_ioctl_get_disallow(uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_PROFILE_INTERVAL):
		return etw_ioctl_profile_interval(uarg);
	case ETW_IOC_ANYSIZE(ETW_IOC_STACK_EVENTS):
		return etw_ioctl_stack_events(f, uarg);
	default:
		return -ENOTTY;
	}
}

/*
 * The write first, and both as tail calls: this frame is empty, and the
 * write's own (etw_write_user()) is the one it runs in.
 */
static long etw_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct etw_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (ETW_IOC_ANYSIZE(cmd) == ETW_IOC_ANYSIZE(ETW_IOC_WRITE))
		return etw_write_user(f, uarg);
	return etw_ioctl_cmd(f, cmd, uarg);
}

const struct file_operations etw_fops = {
	.owner = THIS_MODULE,
	.open = etw_open,
	.release = etw_release,
	.read = etw_read,
	.poll = etw_poll,
	.mmap = etw_mmap,
	.unlocked_ioctl = etw_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
