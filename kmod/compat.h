/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, and only those.  Supported: 6.1 to 6.12.
 */
#ifndef _ETW_COMPAT_H
#define _ETW_COMPAT_H

#include <linux/module.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "etw needs Linux 6.1 or later"
#endif

#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/visibility.h>
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT(symbol)
#endif

/* <asm/unaligned.h> moved to <linux/unaligned.h> in 6.12. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* The namespace became a string literal in 6.13. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ETW_IMPORT_KUNIT_NS() MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define ETW_IMPORT_KUNIT_NS() MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/* __assign_str() takes its source from __string() since 6.10. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define etw_assign_str(dst, src) __assign_str(dst)
#else
#define etw_assign_str(dst, src) __assign_str(dst, src)
#endif

#include <linux/mm.h>

/* vm_flags became read-only behind helpers in 6.3. */
static inline void etw_vma_clear_maywrite(struct vm_area_struct *vma)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
}

static inline void etw_vma_set_flags(struct vm_area_struct *vma,
				     unsigned long flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

/*
 * The current program's executable, referenced (fput() it), or NULL.
 * get_task_exe_file() is not exported; get_file_rcu() took the pointer's
 * address in 6.7, when files became SLAB_TYPESAFE_BY_RCU.
 */
static inline struct file *etw_current_exe_file(void)
{
	struct mm_struct *mm = current->mm;
	struct file *exe;

	if (!mm || (current->flags & PF_KTHREAD))
		return NULL;
	rcu_read_lock();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	exe = get_file_rcu(&mm->exe_file);
#else
	exe = rcu_dereference(mm->exe_file);
	if (exe && !get_file_rcu(exe))
		exe = NULL;
#endif
	rcu_read_unlock();
	return exe;
}

#include <linux/stacktrace.h>

/*
 * The kernel frames of a task that is not running, innermost first, at
 * most @size: stack_trace_save_tsk() is exported in 6.12, not in 6.1 (the
 * kernels between are not checked); there, none.
 */
static inline unsigned int etw_stack_save_tsk(struct task_struct *t,
					      unsigned long *store,
					      unsigned int size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	return stack_trace_save_tsk(t, store, size, 0);
#else
	return 0;
#endif
}

/*
 * For the KUnit suites (kmod/tests/), which include <kunit/test.h> before
 * this file: what older kernels' KUnit lacks.
 */
#ifdef _KUNIT_TEST_H
#include <kunit/resource.h>
#include <linux/slab.h>
#include <linux/string.h>

/* KUNIT_EXPECT_MEMEQ() came in 6.2; before, the bytes are not shown. */
#ifndef KUNIT_EXPECT_MEMEQ
#define KUNIT_EXPECT_MEMEQ(test, left, right, size)			\
	KUNIT_EXPECT_TRUE_MSG(test, !memcmp(left, right, size),		\
			      "%s and %s differ in their first %zu bytes", \
			      #left, #right, (size_t)(size))
#endif

/* Deferred actions came in 6.4: before, a resource whose free runs one. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
typedef void (kunit_action_t)(void *);

struct etw_kunit_action {
	kunit_action_t *fn;
	void *ctx;
};

static inline int etw_kunit_action_init(struct kunit_resource *res,
					void *ctx)
{
	res->data = ctx;
	return 0;
}

static inline void etw_kunit_action_free(struct kunit_resource *res)
{
	struct etw_kunit_action *a = res->data;

	a->fn(a->ctx);
	kfree(a);
}

/* As in 6.4: @fn(@ctx) when the test ends, or at once on -ENOMEM. */
static inline int kunit_add_action_or_reset(struct kunit *test,
					    kunit_action_t *fn, void *ctx)
{
	struct etw_kunit_action *a = kmalloc(sizeof(*a), GFP_KERNEL);

	if (a) {
		a->fn = fn;
		a->ctx = ctx;
		if (kunit_alloc_resource(test, etw_kunit_action_init,
					 etw_kunit_action_free, GFP_KERNEL, a))
			return 0;
		kfree(a);
	}
	fn(ctx);
	return -ENOMEM;
}
#endif

/*
 * kunit_vm_mmap() came in 6.12.  Before, a KUnit thread has no mm and a
 * module cannot make one (mm_alloc() is not exported): the case that
 * needs user memory is skipped; the kselftests read from user memory.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
static inline unsigned long kunit_vm_mmap(struct kunit *test,
					  struct file *file,
					  unsigned long addr, unsigned long len,
					  unsigned long prot, unsigned long flag,
					  unsigned long offset)
{
	kunit_skip(test, "kunit_vm_mmap() needs Linux 6.12");
	return 0;
}
#endif
#endif /* _KUNIT_TEST_H */

#endif /* _ETW_COMPAT_H */
