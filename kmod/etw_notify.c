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
 * A file queues at most ETW_MAX_QUEUED notifications and ETW_MAX_QUEUED_BYTES
 * of them.  When a new one does not fit, the oldest notification of a
 * registration that has a newer one queued makes room (the newest state of
 * every registration stays queued); only if there is none (which the
 * limits make impossible: 1024 registrations per file) is the new one
 * dropped.  A dropped notification counts as handled for waiters.
 *
 * read() takes a notification off the queue onto the file's reading list
 * before copying it out, and puts it back at the head when the copy
 * faults.  Unregistering drops the registration's queued notifications
 * and detaches those being read (their @reg becomes NULL), which are then
 * freed instead of put back: a registration is freed after an RCU grace
 * period, while a copy out may wait on the user's memory for any time.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "etw_internal.h"

#define ETW_MAX_QUEUED		4096
/* Room for one largest notification per registration of a file. */
#define ETW_MAX_QUEUED_BYTES	(16 << 20)

DECLARE_WAIT_QUEUE_HEAD(etw_ack_wq);

/**
 * struct etw_notify_node - one queued notification
 * @node: on the file's queue
 * @reg: the registration it is for; NULL once that was unregistered
 *	while read() copied the notification out
 * @n: the notification
 * @filter: its filter data, @n.filter_size bytes
 */
struct etw_notify_node {
	struct list_head node;
	struct etw_reg *reg;
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
 * etw_notify_alloc() - prepare a notification for a registration
 * @reg: the registration
 * @control: ETW_CONTROL_*
 * @c: the registration's combined state
 * @source: the controller's SourceId
 * @fsize: bytes of filter data that will follow (see etw_notify_filter())
 * @fcount: EVENT_FILTER_HEADER blocks in it
 * @gfp: allocation flags
 *
 * Context: process context.
 * Return: the notification, not queued yet, or NULL.
 */
struct etw_notify_node *etw_notify_alloc(const struct etw_reg *reg, u32 control,
					 const struct etw_combined *c,
					 const struct etw_guid *source,
					 u32 fsize, u32 fcount, gfp_t gfp)
{
	struct etw_notify_node *nn;

	nn = kzalloc(struct_size(nn, filter, fsize), gfp);
	if (!nn)
		return NULL;
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
	return nn;
}

/**
 * etw_notify_filter() - where a prepared notification's filter data goes
 * @nn: the notification
 *
 * Context: any.
 * Return: the zeroed filter area, etw_notify_alloc()'s @fsize bytes.
 */
u8 *etw_notify_filter(struct etw_notify_node *nn)
{
	return nn->filter;
}

/**
 * etw_notify_free() - free a notification that was not queued
 * @nn: the notification, or NULL
 *
 * Context: any.
 */
void etw_notify_free(struct etw_notify_node *nn)
{
	kfree(nn);
}

static void etw_notify_unlink_locked(struct etw_file *f,
				     struct etw_notify_node *nn)
{
	lockdep_assert_held(&f->nlock);
	list_del(&nn->node);
	f->nqueued--;
	f->nbytes -= nn->n.size;
	nn->reg->nqueued--;
}

/* The oldest notification whose registration has a newer one queued. */
static struct etw_notify_node *etw_notify_superseded_locked(struct etw_file *f)
{
	struct etw_notify_node *nn;

	lockdep_assert_held(&f->nlock);
	list_for_each_entry(nn, &f->notifications, node)
		if (nn->reg->nqueued > 1)
			return nn;
	return NULL;
}

/**
 * etw_notify_queue() - queue a prepared notification
 * @reg: the registration it is for; a user registration
 * @nn: the notification from etw_notify_alloc(); ownership passes
 *
 * Context: process context; etw_mutex held.
 * Return: its sequence number, or 0 when it was dropped (see above).
 */
u64 etw_notify_queue(struct etw_reg *reg, struct etw_notify_node *nn)
{
	struct etw_file *f = reg->file;
	struct etw_notify_node *old;
	LIST_HEAD(gone);
	u64 seq = 0;

	lockdep_assert_held(&etw_mutex);
	nn->reg = reg;
	spin_lock(&f->nlock);
	/* Counted first, so that an older one of @reg counts as superseded. */
	reg->nqueued++;
	while (f->nqueued >= ETW_MAX_QUEUED ||
	       f->nbytes + nn->n.size > ETW_MAX_QUEUED_BYTES) {
		old = etw_notify_superseded_locked(f);
		if (!old)
			break;
		etw_notify_unlink_locked(f, old);
		list_add(&old->node, &gone);
	}
	if (f->nqueued < ETW_MAX_QUEUED &&
	    f->nbytes + nn->n.size <= ETW_MAX_QUEUED_BYTES) {
		nn->n.seq = ++f->seq;
		seq = nn->n.seq;
		list_add_tail(&nn->node, &f->notifications);
		f->nqueued++;
		f->nbytes += nn->n.size;
		nn = NULL;
	} else {
		reg->nqueued--;
	}
	spin_unlock(&f->nlock);
	while ((old = list_first_entry_or_null(&gone, struct etw_notify_node,
					       node))) {
		list_del(&old->node);
		kfree(old);
	}
	kfree(nn);
	if (seq)
		wake_up_interruptible(&f->nwait);
	return seq;
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
		etw_notify_unlink_locked(f, nn);
		list_add(&nn->node, &gone);
	}
	/* Their readers free them: @reg must not be queued again. */
	list_for_each_entry(nn, &f->reading, node)
		if (nn->reg == reg)
			nn->reg = NULL;
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
 * Return: bytes read, -EAGAIN, -ERESTARTSYS, -EFAULT, or -EINVAL when @len is
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
			return -ERESTARTSYS;
	}
	for (;;) {
		struct etw_notify_node *nn;
		unsigned long fault;
		u32 size;

		spin_lock(&f->nlock);
		nn = list_first_entry_or_null(&f->notifications,
					      struct etw_notify_node, node);
		if (!nn || nn->n.size > len - total) {
			spin_unlock(&f->nlock);
			break;
		}
		etw_notify_unlink_locked(f, nn);
		list_add_tail(&nn->node, &f->reading);
		f->read_seq = max(f->read_seq, nn->n.seq);
		size = nn->n.size;
		spin_unlock(&f->nlock);

		fault = copy_to_user(buf + total, &nn->n, size);
		spin_lock(&f->nlock);
		list_del(&nn->node);
		if (fault && nn->reg) {
			/* Still registered: it stays the next to read. */
			list_add(&nn->node, &f->notifications);
			f->nqueued++;
			f->nbytes += nn->n.size;
			nn->reg->nqueued++;
			nn = NULL;
		}
		spin_unlock(&f->nlock);
		kfree(nn);
		if (fault)
			return total ? total : -EFAULT;
		total += size;
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
 * etw_waits_grow() - make room for more files to wait on
 * @w: the list
 * @cap: entries wanted in all
 *
 * Context: process context.
 * Return: 0, or -ENOMEM with @w unchanged.
 */
int etw_waits_grow(struct etw_waits *w, unsigned int cap)
{
	struct etw_file **files;
	u64 *seqs;

	if (cap <= w->cap)
		return 0;
	files = kvmalloc_array(cap, sizeof(*files), GFP_KERNEL_ACCOUNT);
	seqs = kvmalloc_array(cap, sizeof(*seqs), GFP_KERNEL_ACCOUNT);
	if (!files || !seqs) {
		kvfree(files);
		kvfree(seqs);
		return -ENOMEM;
	}
	memcpy(files, w->files, w->n * sizeof(*files));
	memcpy(seqs, w->seqs, w->n * sizeof(*seqs));
	kvfree(w->files);
	kvfree(w->seqs);
	w->files = files;
	w->seqs = seqs;
	w->cap = cap;
	return 0;
}

/**
 * etw_waits_add() - wait for a notification on a file
 * @w: the list, with room (etw_waits_grow())
 * @f: the file; a reference is taken
 * @seq: the notification's sequence number
 *
 * Context: any.
 */
void etw_waits_add(struct etw_waits *w, struct etw_file *f, u64 seq)
{
	kref_get(&f->ref);
	w->files[w->n] = f;
	w->seqs[w->n++] = seq;
}

/**
 * etw_waits_release() - drop a wait list's references and memory
 * @w: the list
 *
 * Context: process context.
 */
void etw_waits_release(struct etw_waits *w)
{
	unsigned int i;

	for (i = 0; i < w->n; i++)
		etw_file_put(w->files[i]);
	kvfree(w->files);
	kvfree(w->seqs);
	memset(w, 0, sizeof(*w));
}

/**
 * etw_notify_wait() - wait until providers handled their notifications
 * @w: the files and sequence numbers
 * @timeout_ms: the longest wait in all
 *
 * Context: process context, may sleep.
 * Return: 0, -ETIMEDOUT, or -EINTR.
 */
long etw_notify_wait(const struct etw_waits *w, u32 timeout_ms)
{
	long left = msecs_to_jiffies(timeout_ms);
	unsigned int i;

	for (i = 0; i < w->n; i++) {
		struct etw_file *f = w->files[i];
		u64 seq = w->seqs[i];

		left = wait_event_interruptible_timeout(etw_ack_wq,
							etw_notify_handled(f, seq),
							left);
		if (left < 0)
			return -EINTR;
		if (!left && !etw_notify_handled(f, seq))
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
	f->nbytes = 0;
	WRITE_ONCE(f->released, true);
	spin_unlock(&f->nlock);
	list_for_each_entry_safe(nn, tmp, &gone, node)
		kfree(nn);
	wake_up_all(&etw_ack_wq);
}
