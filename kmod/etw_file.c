// SPDX-License-Identifier: GPL-2.0
/*
 * etw_file.c - an open /dev/etw's struct etw_file: made, referenced and
 * freed; and the rules by which ioctl arguments are copied in and out.
 *
 * Every ioctl argument struct starts with its size.  etw_args_in() reads
 * it, bounds it (at least the first published size, ETW_*_SIZE_VER0, else
 * -EINVAL; at most a page, else -E2BIG) and copies with
 * copy_struct_from_user(), so older callers get zeroes for new fields and
 * newer callers get -E2BIG for non-zero fields this module does not know.
 * Results go back truncated to the caller's size.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "etw_internal.h"

/**
 * etw_file_alloc() - a new etw_file, for an open of /dev/etw
 *
 * Context: process context, may sleep.
 * Return: the file with one reference, or NULL.
 */
struct etw_file *etw_file_alloc(void)
{
	struct etw_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return NULL;
	/*
	 * Charged to the opener (vmalloc_user() is not); pages map singly.
	 * A failure is the opener's ENOMEM, not a report in the kernel log.
	 */
	f->enable_map = __vmalloc(ETW_ENABLE_MAP_SIZE,
				  GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	f->regs = kvcalloc(ETW_MAX_REGISTRATIONS, sizeof(*f->regs),
			   GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!f->enable_map || !f->regs) {
		vfree(f->enable_map);
		kvfree(f->regs);
		kfree(f);
		return NULL;
	}
	kref_init(&f->ref);
	spin_lock_init(&f->nlock);
	INIT_LIST_HEAD(&f->notifications);
	INIT_LIST_HEAD(&f->reading);
	init_waitqueue_head(&f->nwait);
	mutex_init(&f->batch_mutex);
	INIT_LIST_HEAD(&f->batches);
	return f;
}

static void etw_file_free(struct kref *ref)
{
	struct etw_file *f = container_of(ref, struct etw_file, ref);

	vfree(f->enable_map);
	kvfree(f->regs);
	kfree(f);
}

/**
 * etw_file_put() - drop a reference to an etw_file
 * @f: the file
 *
 * Context: process context, or an RCU callback (a staging ring's, see
 * etw_batch.c): the last reference's frees may run in softirq context.
 */
void etw_file_put(struct etw_file *f)
{
	kref_put(&f->ref, etw_file_free);
}

/**
 * etw_args_in() - copy an ioctl's argument struct in
 * @k: the kernel's struct
 * @ksize: its size
 * @min: the first published size of the struct (ETW_*_SIZE_VER0)
 * @u: the caller's struct, its size first
 * @usize: out: the caller's size, for etw_args_out()
 *
 * Context: process context.
 * Return: 0; -EFAULT; -EINVAL below @min; -E2BIG above a page, or when
 * the caller's struct sets bytes beyond @ksize.
 */
int etw_args_in(void *k, size_t ksize, size_t min, const void __user *u,
		u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)u))
		return -EFAULT;
	if (*usize < min)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(k, ksize, u, *usize);
}

/**
 * etw_args_out() - copy an ioctl's result struct out
 * @u: the caller's struct
 * @k: the kernel's struct, its size field first (set here)
 * @ksize: its size
 * @usize: the caller's size (from etw_args_in())
 *
 * Context: process context.
 * Return: 0 or -EFAULT.
 */
int etw_args_out(void __user *u, void *k, size_t ksize, u32 usize)
{
	u32 size = min_t(u32, usize, ksize);

	/* The size field tells the caller how much is meaningful. */
	*(u32 *)k = size;
	return copy_to_user(u, k, size) ? -EFAULT : 0;
}
