// SPDX-License-Identifier: GPL-2.0
/*
 * etw_exec.c - execve() ends a program image's registrations and private
 * sessions, as if the process had exited.
 *
 * Registrations and private sessions belong to the program image that
 * made them (etw_reg.exec_id, etw_session.owner_exec_id): the write path
 * and every lookup already refuse a stale image's objects.  This file
 * also ends them at once, so that a stale private session's consumers
 * read to end of file instead of waiting for the file to close.
 *
 * The sched_process_exec tracepoint fires in the exec'ing task once the
 * new image is committed, in atomic context.  When the task still holds a
 * /dev/etw file (one without O_CLOEXEC), the probe queues a task_work,
 * which runs in process context before the new image's first instruction
 * and ends the stale objects on each such file under etw_mutex, after
 * draining the file's staging rings.  The image's rings themselves end
 * whether or not a file survives (etw_batch.c hooks the same tracepoint).
 * Without the tracepoint (a kernel without tracepoints), the stale
 * objects stay inert until their file is closed.
 */
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>

#include "compat.h"
#include "etw_internal.h"

/* Open /dev/etw files: the probe does nothing while there are none. */
static atomic_t etw_open_files = ATOMIC_INIT(0);
static struct tracepoint *etw_exec_tp;

/**
 * etw_exec_file_opened() - count an open /dev/etw file
 *
 * Context: any.
 */
void etw_exec_file_opened(void)
{
	atomic_inc(&etw_open_files);
}

/**
 * etw_exec_file_closed() - a /dev/etw file was released
 *
 * Context: any.
 */
void etw_exec_file_closed(void)
{
	atomic_dec(&etw_open_files);
}

/* iterate_fd() callback: the first /dev/etw file, as its fd plus one. */
static int etw_exec_match(const void *unused, struct file *file, unsigned int fd)
{
	return file->f_op == &etw_fops ? fd + 1 : 0;
}

static void etw_exec_work(struct callback_head *head)
{
	unsigned int next = 0;
	int found;

	kfree(head);
	while ((found = iterate_fd(current->files, next, etw_exec_match, NULL))) {
		struct file *file = fget(found - 1);

		next = found;
		if (!file)
			continue;
		if (file->f_op == &etw_fops) {
			/* While the old image's registrations still exist. */
			etw_batch_drain_file(file->private_data);
			mutex_lock(&etw_mutex);
			etw_providers_end_image(file->private_data);
			etw_sessions_end_image(file->private_data);
			mutex_unlock(&etw_mutex);
		}
		fput(file);
	}
}

static void etw_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct callback_head *work;

	if (!atomic_read(&etw_open_files) || p != current ||
	    !iterate_fd(p->files, 0, etw_exec_match, NULL))
		return;
	work = kmalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return;	/* the stale objects stay inert until closed */
	init_task_work(work, etw_exec_work);
	if (task_work_add(p, work, TWA_RESUME))
		kfree(work);
}

/**
 * etw_exec_init() - hook execve()
 *
 * Context: module init.
 * Return: 0, or the tracepoint's registration error.
 */
int etw_exec_init(void)
{
	etw_exec_tp = etw_tracepoint_find("sched_process_exec");
	if (!etw_exec_tp)
		return 0;
	return tracepoint_probe_register(etw_exec_tp, etw_exec_probe, NULL);
}

/**
 * etw_exec_exit() - unhook execve(); no probe runs on return
 *
 * Context: module exit.
 */
void etw_exec_exit(void)
{
	if (!etw_exec_tp)
		return;
	tracepoint_probe_unregister(etw_exec_tp, etw_exec_probe, NULL);
	tracepoint_synchronize_unregister();
}
