// SPDX-License-Identifier: GPL-2.0
/*
 * etw_notify.c - enable notifications for providers.
 *
 * Each /dev/etw file has a queue of notifications for its registrations,
 * read with read()/poll().  Sequence numbers grow per file; libetw
 * acknowledges a notification (ETW_IOC_ACK) after running the provider's
 * EnableCallback, and an enabling controller may wait until every
 * notification it caused is acknowledged, its file closed, or a timeout.
 *
 * A file queues at most ETW_MAX_QUEUED notifications; past that, new ones
 * are dropped (the enable area still holds the current state) and count as
 * handled for waiters.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_internal.h"

#define ETW_MAX_QUEUED	4096

DECLARE_WAIT_QUEUE_HEAD(etw_ack_wq);

struct etw_notify_node {
	struct list_head node;
	const struct etw_reg *reg;
	struct etw_notification n;
	u8 filter[];
};

/* Everything read was acknowledged and nothing waits: all is handled. */
static void etw_notify_settle_locked(struct etw_file *f)
{
	lockdep_assert_held(&f->nlock);
	if (list_empty(&f->notifications) && f->acked_seq >= f->read_seq)
		f->acked_seq = f->seq;
}

/**
 * etw_notify() - queue a notification for a registration
 * @reg: the registration
 * @control: ETW_CONTROL_*
 * @c: the registration's combined state
 * @source: the controller's SourceId
 * @filter: filter data (chained EVENT_FILTER_HEADER blocks) or NULL
 * @fsize: bytes of @filter
 * @fcount: blocks in @filter
 * @seq: out: the notification's sequence number, 0 when none was queued
 *
 * Context: process context; etw_mutex held.
 * Return: 0 or -ENOMEM.
 */
int etw_notify(struct etw_reg *reg, u32 control, const struct etw_combined *c,
	       const struct etw_guid *source, const u8 *filter, u32 fsize,
	       u32 fcount, u64 *seq)
{
	struct etw_file *f = reg->file;
	struct etw_notify_node *nn;

	lockdep_assert_held(&etw_mutex);
	*seq = 0;
	if (!f) {
		etw_kprovider_notify(reg, control, c);
		return 0;
	}
	nn = kzalloc(struct_size(nn, filter, fsize), GFP_KERNEL_ACCOUNT);
	if (!nn)
		return -ENOMEM;
	nn->reg = reg;
	nn->n.size = sizeof(nn->n) + fsize;
	nn->n.reg_id = reg->id;
	nn->n.cookie = reg->cookie;
	nn->n.control_code = control;
	nn->n.level = c->enabled ? c->level : 0;
	nn->n.match_any = c->enabled ? c->match_any : 0;
	nn->n.match_all = c->enabled ? c->match_all : 0;
	nn->n.source_id = *source;
	nn->n.filter_size = fsize;
	nn->n.filter_count = fcount;
	if (fsize)
		memcpy(nn->filter, filter, fsize);

	spin_lock(&f->nlock);
	if (f->nqueued >= ETW_MAX_QUEUED) {
		spin_unlock(&f->nlock);
		kfree(nn);
		return 0;
	}
	nn->n.seq = ++f->seq;
	*seq = nn->n.seq;
	list_add_tail(&nn->node, &f->notifications);
	f->nqueued++;
	spin_unlock(&f->nlock);
	wake_up_interruptible(&f->nwait);
	return 0;
}

/**
 * etw_notify_drop_reg() - forget the queued notifications of a registration
 * @f: its file
 * @reg: the registration being unregistered
 *
 * Context: process context.
 */
void etw_notify_drop_reg(struct etw_file *f, struct etw_reg *reg)
{
	struct etw_notify_node *nn, *tmp;
	LIST_HEAD(gone);

	spin_lock(&f->nlock);
	list_for_each_entry_safe(nn, tmp, &f->notifications, node) {
		if (nn->reg != reg)
			continue;
		list_move(&nn->node, &gone);
		f->nqueued--;
	}
	etw_notify_settle_locked(f);
	spin_unlock(&f->nlock);
	list_for_each_entry_safe(nn, tmp, &gone, node)
		kfree(nn);
	wake_up_all(&etw_ack_wq);
}

static bool etw_notify_pending(struct etw_file *f)
{
	bool ret;

	spin_lock(&f->nlock);
	ret = !list_empty(&f->notifications);
	spin_unlock(&f->nlock);
	return ret;
}

/**
 * etw_notify_read() - read() on /dev/etw: whole notifications
 * @f: the file
 * @buf: user buffer
 * @len: its size
 * @nonblock: O_NONBLOCK
 *
 * Context: process context, may sleep.
 * Return: bytes read, -EAGAIN, -EINTR, -EFAULT, or -EINVAL when @len is
 * too small for the next notification.
 */
ssize_t etw_notify_read(struct etw_file *f, char __user *buf, size_t len,
			bool nonblock)
{
	size_t total = 0;

	if (len < sizeof(struct etw_notification))
		return -EINVAL;
	while (!etw_notify_pending(f)) {
		if (nonblock)
			return -EAGAIN;
		if (wait_event_interruptible(f->nwait, etw_notify_pending(f)))
			return -EINTR;
	}
	for (;;) {
		struct etw_notify_node *nn;

		spin_lock(&f->nlock);
		nn = list_first_entry_or_null(&f->notifications,
					      struct etw_notify_node, node);
		if (!nn || nn->n.size > len - total) {
			spin_unlock(&f->nlock);
			break;
		}
		list_del(&nn->node);
		f->nqueued--;
		f->read_seq = max(f->read_seq, nn->n.seq);
		spin_unlock(&f->nlock);

		if (copy_to_user(buf + total, &nn->n, nn->n.size)) {
			spin_lock(&f->nlock);
			list_add(&nn->node, &f->notifications);
			f->nqueued++;
			spin_unlock(&f->nlock);
			return total ? total : -EFAULT;
		}
		total += nn->n.size;
		kfree(nn);
	}
	return total ? total : -EINVAL;
}

/**
 * etw_notify_ack() - ETW_IOC_ACK: notifications up to @seq are handled
 * @f: the file
 * @seq: a sequence number read from @f
 *
 * Context: process context.
 */
void etw_notify_ack(struct etw_file *f, u64 seq)
{
	spin_lock(&f->nlock);
	f->acked_seq = max(f->acked_seq, min(seq, f->read_seq));
	etw_notify_settle_locked(f);
	spin_unlock(&f->nlock);
	wake_up_all(&etw_ack_wq);
}

static bool etw_notify_handled(struct etw_file *f, u64 seq)
{
	bool ret;

	spin_lock(&f->nlock);
	ret = f->acked_seq >= seq || READ_ONCE(f->released);
	spin_unlock(&f->nlock);
	return ret;
}

/**
 * etw_notify_wait() - wait until providers handled their notifications
 * @files: the files
 * @seqs: the sequence number to wait for on each
 * @n: entries
 * @timeout_ms: the longest wait in all
 *
 * Context: process context, may sleep.
 * Return: 0, -ETIMEDOUT, or -EINTR.
 */
long etw_notify_wait(struct etw_file **files, u64 *seqs, unsigned int n,
		     u32 timeout_ms)
{
	long left = msecs_to_jiffies(timeout_ms);
	unsigned int i;

	for (i = 0; i < n; i++) {
		left = wait_event_interruptible_timeout(etw_ack_wq,
							etw_notify_handled(files[i],
									   seqs[i]),
							left);
		if (left < 0)
			return -EINTR;
		if (!left && !etw_notify_handled(files[i], seqs[i]))
			return -ETIMEDOUT;
		left = max(left, 1L);
	}
	return 0;
}

/**
 * etw_notify_release() - free a closing file's queue, release waiters
 * @f: the file
 *
 * Context: process context.
 */
void etw_notify_release(struct etw_file *f)
{
	struct etw_notify_node *nn, *tmp;
	LIST_HEAD(gone);

	spin_lock(&f->nlock);
	list_splice_init(&f->notifications, &gone);
	f->nqueued = 0;
	WRITE_ONCE(f->released, true);
	spin_unlock(&f->nlock);
	list_for_each_entry_safe(nn, tmp, &gone, node)
		kfree(nn);
	wake_up_all(&etw_ack_wq);
}
